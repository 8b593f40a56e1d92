package pulls

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// runUpdateBranch merges the base into the head branch (in the head's
// repository), unless either moved since the request: then it gives up, as
// the caller's expected_head_sha no longer holds.
func (s *Service) runUpdateBranch(ctx context.Context, payload []byte) error {
	var in struct {
		IssueID int64  `json:"issue_id"`
		HeadSHA string `json:"head_sha"`
		BaseSHA string `json:"base_sha"`
		ActorID int64  `json:"actor_id"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return jobs.Permanent(err)
	}
	p, err := s.Store.R().PullByIssueID(ctx, in.IssueID)
	if err != nil {
		return ignoreGone(err)
	}
	repo, err := s.repo(ctx, p.RepoID)
	if err != nil {
		return ignoreGone(err)
	}
	head, err := s.repo(ctx, p.HeadRepoID)
	if err != nil {
		return ignoreGone(err)
	}
	g := s.Git.Open(repo.ID)
	hg := s.Git.Open(head.ID)
	if head.ID != repo.ID {
		// The merge is made where the head lives: bring the base's
		// commits over first.
		ref := "refs/hubd/update-branch/" + itoa(p.Number)
		if err := g.SetRef(ctx, ref, in.BaseSHA); err != nil {
			return err
		}
		defer g.RemoveRef(context.WithoutCancel(ctx), ref)
		if _, err := hg.Git(ctx, nil, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--",
			s.Git.Path(repo.ID), ref); err != nil {
			return err
		}
	}
	tree, err := hg.MergeTree(ctx, in.HeadSHA, in.BaseSHA)
	if err != nil {
		return jobs.Permanent(err)
	}
	now := s.Store.Now()
	c := &gitrepo.Commit{Tree: tree, Parents: []string{in.HeadSHA, in.BaseSHA}, Author: s.identity(ctx, in.ActorID, now),
		Committer: s.systemSignature(),
		Message:   "Merge branch '" + p.BaseRef + "' into " + p.HeadRef + "\n"}
	oid, err := hg.WriteObject(ctx, "commit", gitrepo.EncodeCommit(c))
	if err != nil {
		return err
	}
	if err := hg.UpdateRef(ctx, "refs/heads/"+p.HeadRef, oid, in.HeadSHA); errors.Is(err, gitrepo.ErrRefConflict) {
		return jobs.Permanent(err) // the head moved meanwhile: nothing to do
	} else if err != nil {
		return err
	}
	if s.RecordPush != nil {
		return s.RecordPush(ctx, head, in.ActorID, []RefUpdate{{Ref: "refs/heads/" + p.HeadRef, Old: in.HeadSHA, New: oid}})
	}
	return nil
}

// UpdateInput is PATCH .../pulls/{n}: nil fields stay as they are.
type UpdateInput struct {
	Title               *string
	Body                *string
	BodySet             bool // body given (possibly null)
	State               *string
	Base                *string
	MaintainerCanModify *bool
}

// Update edits a pull request: its author or someone with write access.
func (s *Service) Update(ctx context.Context, repo *model.Repo, c Caller, number int64, in UpdateInput) (*model.Pull, error) {
	p, err := s.Store.R().PullByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	if p.Issue.UserID != c.UserID && c.Perm < authz.Write {
		return nil, model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return nil, model.Invalid("PullRequest", "title", "missing_field")
	}
	if err := CheckText(in.Title, in.Body); err != nil {
		return nil, err
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		return nil, model.Invalid("PullRequest", "state", "invalid")
	}
	var counts *store.PullCounts
	var newBaseSHA string
	if in.Base != nil && *in.Base != p.BaseRef {
		if p.Merged() || p.Issue.State != "open" {
			return nil, custom("Cannot change base branch of closed pull request.")
		}
		if newBaseSHA, err = s.baseSHA(ctx, repo, *in.Base); err != nil {
			return nil, err
		}
		if p.HeadRepoID == repo.ID && p.HeadRef == *in.Base {
			return nil, custom("Cannot change the base branch to the head branch.")
		}
		if n, err := s.Store.R().OpenPullExists(ctx, repo.ID, p.HeadRepoID, p.HeadRef, *in.Base); err != nil {
			return nil, err
		} else if n != 0 && n != p.Number {
			return nil, custom("A pull request already exists for base branch '" + *in.Base + "' and head branch '" + p.HeadRef + "'")
		}
		cn, err := s.figures(ctx, s.Git.Open(repo.ID), newBaseSHA, p.HeadSHA)
		if err != nil {
			return nil, err
		}
		counts = &cn
	}
	reopen := in.State != nil && *in.State == "open" && p.Issue.State == "closed"
	if reopen {
		if p.Merged() {
			return nil, custom("Cannot reopen a merged pull request.")
		}
		if p.HeadRepoID == 0 {
			return nil, custom("Cannot reopen a pull request whose head repository was deleted.")
		}
		if _, err := s.Git.Open(p.HeadRepoID).ResolveRef(ctx, "refs/heads/"+p.HeadRef); err != nil {
			return nil, custom("Cannot reopen a pull request whose head branch was deleted.")
		}
		if n, err := s.Store.R().OpenPullExists(ctx, repo.ID, p.HeadRepoID, p.HeadRef, p.BaseRef); err != nil {
			return nil, err
		} else if n != 0 {
			return nil, custom("A pull request already exists for " + s.headLabel(p, ":") + ".")
		}
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		before := *p.Issue
		is := p.Issue
		changed := false
		event := func(e *model.IssueEvent) error {
			e.RepoID, e.IssueID, e.ActorID = repo.ID, p.IssueID, c.UserID
			return tx.AddIssueEvent(ctx, e, orgID(repo), map[string]any{"number": p.Number})
		}
		if in.Title != nil && *in.Title != is.Title {
			if err := event(&model.IssueEvent{Event: "renamed", RenameFrom: is.Title, RenameTo: *in.Title}); err != nil {
				return err
			}
			is.Title, changed = *in.Title, true
		}
		if in.BodySet {
			is.Body, changed = in.Body, true
		}
		action := "edited"
		if in.State != nil && *in.State != is.State {
			changed = true
			if *in.State == "closed" {
				now := tx.Now()
				is.State, is.ClosedAt, is.ClosedByID = "closed", &now, c.UserID
				action = "closed"
			} else {
				is.State, is.ClosedAt, is.ClosedByID, is.StateReason = "open", nil, 0, nil
				action = "reopened"
			}
			if err := event(&model.IssueEvent{Event: action}); err != nil {
				return err
			}
		}
		if changed {
			if err := tx.UpdateIssue(ctx, &before, is); err != nil {
				return err
			}
		}
		if in.BodySet && s.NoteBody != nil && !sameText(before.Body, is.Body) {
			if err := s.NoteBody(ctx, tx, repo, is, c.UserID); err != nil {
				return err
			}
		}
		if counts != nil {
			if err := tx.SetPullBase(ctx, p.IssueID, *in.Base, newBaseSHA, *counts); err != nil {
				return err
			}
			if err := event(&model.IssueEvent{Event: "base_ref_changed"}); err != nil {
				return err
			}
			p.BaseRef, p.BaseSHA = *in.Base, newBaseSHA
		}
		if in.MaintainerCanModify != nil && *in.MaintainerCanModify != p.MaintainerCanModify {
			if p.Issue.UserID != c.UserID {
				return model.Forbidden("Only the pull request author may change maintainer_can_modify.")
			}
			if err := tx.SetPullFlags(ctx, p.IssueID, p.Draft, *in.MaintainerCanModify && p.HeadRepoID != repo.ID); err != nil {
				return err
			}
		} else if !changed && counts == nil {
			return nil
		} else if !changed {
			if err := tx.TouchIssue(ctx, is); err != nil {
				return err
			}
		}
		if err := tx.AppendEvent(ctx, "pull_request."+action, c.UserID, repo.ID, orgID(repo), s.payload(p, action)); err != nil {
			return err
		}
		if counts != nil || reopen {
			return jobs.Enqueue(ctx, tx, syncJob(p.IssueID))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Jobs.Notify()
	return s.Store.R().PullByIssueID(ctx, p.IssueID)
}

// Details loads what pull request objects show beside the rows: the head
// repositories and owners and who merged, for every pull of a page in a
// few queries, with their stacks. Requested reviewers come from
// ReviewersOf when set.
func (s *Service) Details(ctx context.Context, list []*model.Pull, viewerID int64) error {
	var repoIDs, accountIDs []int64
	for _, p := range list {
		if p.HeadRepoID != 0 {
			repoIDs = append(repoIDs, p.HeadRepoID)
		}
		accountIDs = append(accountIDs, p.HeadOwnerID)
		if p.MergedByID != 0 {
			accountIDs = append(accountIDs, p.MergedByID)
		}
	}
	q := s.Store.R()
	repos, err := q.ReposByID(ctx, dedup(repoIDs), viewerID)
	if err != nil {
		return err
	}
	accounts, err := q.SlimAccounts(ctx, dedup(accountIDs))
	if err != nil {
		return err
	}
	for _, p := range list {
		if v := repos[p.HeadRepoID]; v != nil {
			p.HeadRepo = v.Repo
		}
		p.HeadOwner = accounts[p.HeadOwnerID]
		p.MergedBy = accounts[p.MergedByID]
	}
	ids := make([]int64, len(list))
	for i, p := range list {
		ids[i] = p.IssueID
	}
	stacks, err := q.StacksOfPulls(ctx, ids)
	if err != nil {
		return err
	}
	autos, err := q.AutoMerges(ctx, ids)
	if err != nil {
		return err
	}
	for _, p := range list {
		p.Stack = stacks[p.IssueID]
		p.AutoMerge = autos[p.IssueID]
	}
	if s.ReviewersOf != nil {
		byPull, err := s.ReviewersOf(ctx, ids)
		if err != nil {
			return err
		}
		for _, p := range list {
			p.RequestedReviewers = byPull[p.IssueID]
		}
	}
	return nil
}

func dedup(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if id != 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func sameText(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
