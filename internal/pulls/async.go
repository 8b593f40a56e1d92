package pulls

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/workflowguard"
)

// Asynchronous merges (PUT .../merge-async): the request is checked for the
// pull request's basic state, recorded with a uuid, and merged by a
// "pulls.merge_async" job exactly as PUT .../merge would; its outcome is
// read back by uuid.

const jobMergeAsync = "pulls.merge_async"

// AsyncOutcome is what PUT .../merge-async answers: an HTTP status and the
// request it is about (a new one, the one already pending, or only the
// already merged commit / the reason it cannot merge).
type AsyncOutcome struct {
	Status  int
	Request *model.MergeRequest // status pending (202, 409)
	Result  string              // merged, failed (200, 400) when Request is nil
	Message string
	SHA     string
}

// MergeAsync queues a merge of pull request number.
func (s *Service) MergeAsync(ctx context.Context, repo *model.Repo, c Caller, number int64, in MergeInput, action string) (*AsyncOutcome, error) {
	if c.Perm < authz.Write {
		return nil, model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	}
	p, err := s.Store.R().PullByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	switch in.Method {
	case "":
		in.Method = model.MergeMerge
	case model.MergeMerge, model.MergeSquash, model.MergeRebase:
	default:
		return nil, model.Invalid("PullRequest", "merge_method", "invalid")
	}
	switch action {
	case "", "default", "direct_merge":
		if action == "" {
			action = "default"
		}
	case "merge_queue":
		return &AsyncOutcome{Status: 400, Result: "failed", Message: "This repository does not use a merge queue."}, nil
	default:
		return nil, model.Invalid("PullRequest", "merge_action", "invalid")
	}
	if p.Merged() {
		return &AsyncOutcome{Status: 200, Result: "merged", Message: "Pull request is already merged.", SHA: deref(p.MergeCommitSHA)}, nil
	}
	if p.Issue.State != "open" {
		return &AsyncOutcome{Status: 400, Result: "failed", Message: "Pull request is closed."}, nil
	}
	if p.Draft {
		return &AsyncOutcome{Status: 400, Result: "failed", Message: "Pull request is still a draft."}, nil
	}
	if m, err := s.Store.R().PendingMergeRequest(ctx, p.IssueID); err == nil {
		m.Message = "A merge request already exists for this pull request."
		return &AsyncOutcome{Status: 409, Request: m}, nil
	} else if !errors.Is(err, model.ErrNotFound) {
		return nil, err
	}
	expected := in.SHA
	if expected == "" {
		if expected, err = s.refreshHead(ctx, repo, p); err != nil {
			return nil, err
		}
	}
	// The job merges as hubd: the caller's token is judged now, on what
	// the head brings into the base.
	if baseSHA, err := s.Git.Open(repo.ID).ResolveRef(ctx, "refs/heads/"+p.BaseRef); err == nil && gitrepo.ValidOID(expected) {
		if no, err := workflowguard.CheckMerge(ctx, c.Auth, s.Git.Open(repo.ID), "refs/heads/"+p.BaseRef, baseSHA, expected); err != nil {
			return nil, err
		} else if no != nil {
			return nil, no.MergeError()
		}
	}
	m := &model.MergeRequest{UUID: randid.UUID(), PullID: p.IssueID, RepoID: repo.ID, ActorID: c.UserID, Method: in.Method,
		Action: action, ExpectedHeadSHA: expected, CommitTitle: in.CommitTitle, CommitMessage: in.CommitMessage,
		Status: "pending", Message: "Merge request enqueued."}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateMergeRequest(ctx, m); err != nil {
			return err
		}
		return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobMergeAsync, Payload: map[string]any{"uuid": m.UUID, "number": p.Number, "repo_id": repo.ID}})
	})
	if err != nil {
		return nil, err
	}
	s.Jobs.Notify()
	return &AsyncOutcome{Status: 202, Request: m}, nil
}

// MergeRequest is an asynchronous merge request of pull request number.
func (s *Service) MergeRequest(ctx context.Context, repo *model.Repo, number int64, uuid string) (*model.MergeRequest, error) {
	p, err := s.Store.R().PullByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	return s.Store.R().MergeRequestByUUID(ctx, p.IssueID, uuid)
}

func (s *Service) runMergeAsync(ctx context.Context, payload []byte) error {
	var in struct {
		UUID   string `json:"uuid"`
		Number int64  `json:"number"`
		RepoID int64  `json:"repo_id"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return jobs.Permanent(err)
	}
	repo, err := s.repo(ctx, in.RepoID)
	if err != nil {
		return ignoreGone(err)
	}
	m, err := s.MergeRequest(ctx, repo, in.Number, in.UUID)
	if err != nil {
		return ignoreGone(err)
	}
	if m.Status != "pending" {
		return nil
	}
	// The caller's write access was checked when the request was made.
	res, err := s.Merge(ctx, repo, Caller{UserID: m.ActorID, Perm: authz.Write}, in.Number,
		MergeInput{Method: m.Method, CommitTitle: m.CommitTitle, CommitMessage: m.CommitMessage, SHA: m.ExpectedHeadSHA})
	status, msg := "merged", ""
	var sha *string
	var he *model.HTTPError
	var ve *model.ValidationError
	switch {
	case err == nil:
		msg, sha = "Pull request successfully merged.", &res.SHA
	case errors.As(err, &he):
		status, msg = "failed", he.Message
	case errors.As(err, &ve):
		status, msg = "failed", ve.Error()
	case errors.Is(err, model.ErrNotFound):
		status, msg = "failed", "Pull request not found."
	default:
		return err // retried
	}
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.FinishMergeRequest(ctx, m.UUID, status, msg, sha) })
}
