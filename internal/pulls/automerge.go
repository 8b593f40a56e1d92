package pulls

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/codeowners"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Auto-merge (GraphQL enablePullRequestAutoMerge and
// disablePullRequestAutoMerge): the request is stored with the merge
// method and commit text; whenever something the merge waits for changes
// (a status, a check run, a review, the mergeability check: the
// pulls.commit_state and pulls.sync jobs), a pulls.auto_merge job tries the
// merge as the user who enabled it, and leaves the request waiting while
// the base branch's requirements refuse it.

const jobAutoMerge = "pulls.auto_merge"

// AutoMergeInput is what enablePullRequestAutoMerge takes.
type AutoMergeInput struct {
	Method        string // merge (default), squash, rebase
	CommitTitle   *string
	CommitMessage *string
	AuthorEmail   *string
	SHA           string // expectedHeadOid ("": any)
}

// EnableAutoMerge turns auto-merge on for pull request number, refusing
// as GitHub does: a repository that does not allow auto-merge, a closed or
// draft pull request, a method the repository does not allow, and a pull
// request that can be merged right now (clean: merge it instead).
func (s *Service) EnableAutoMerge(ctx context.Context, repo *model.Repo, c Caller, number int64, in AutoMergeInput) (*model.Pull, error) {
	if c.Perm < authz.Write {
		return nil, model.Forbidden(c.Login + " does not have permission to enable auto-merge on this pull request.")
	}
	p, err := s.Store.R().PullByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	if !repo.AllowAutoMerge {
		return nil, model.Unprocessable("Auto-merge is not allowed for this repository")
	}
	if p.Merged() || p.Issue.State != "open" {
		return nil, model.Unprocessable("Pull request is closed")
	}
	if p.Draft {
		return nil, model.Unprocessable("Pull request is in draft state")
	}
	if in.Method == "" {
		in.Method = model.MergeMerge
	}
	if err := methodAllowed(repo, in.Method); err != nil {
		return nil, model.Unprocessable(err.(*model.HTTPError).Message)
	}
	if in.SHA != "" && in.SHA != p.HeadSHA {
		return nil, model.Unprocessable("Head branch was modified. Review and try the merge again.")
	}
	if in.AuthorEmail != nil && *in.AuthorEmail != "" {
		// The merge commit's author address must be one of the enabler's:
		// their address (hubd keeps one, verified) or their no-reply one.
		u, err := s.Store.R().AccountByID(ctx, c.UserID)
		if err != nil {
			return nil, err
		}
		noreply := ""
		if s.Identity != nil {
			bare := *u
			bare.Email = ""
			noreply = s.Identity(&bare, s.Store.Now()).Email
		}
		if e := *in.AuthorEmail; !(u.Email != "" && strings.EqualFold(e, u.Email)) && !(noreply != "" && strings.EqualFold(e, noreply)) {
			return nil, model.Unprocessable("Author email must be one of your verified emails")
		}
	}
	switch st := p.MergeableState; st {
	case model.StateClean, "unstable", "has_hooks":
		if p.CheckedHeadSHA == p.HeadSHA {
			return nil, model.Unprocessable("Pull request is in " + st + " status")
		}
	}
	a := &model.AutoMerge{PullID: p.IssueID, RepoID: repo.ID, EnabledByID: c.UserID, Method: in.Method,
		CommitTitle: in.CommitTitle, CommitMessage: in.CommitMessage, AuthorEmail: in.AuthorEmail,
		ExpectedHeadSHA: in.SHA, EnabledAt: s.Store.Now()}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetAutoMerge(ctx, a); err != nil {
			return err
		}
		if err := s.autoMergeEvent(ctx, tx, repo, p, c.UserID, "auto_merge_enabled"); err != nil {
			return err
		}
		// The requirements may pass already (a stale state): look now.
		return enqueueAutoMerge(ctx, tx, p.IssueID)
	})
	if err != nil {
		return nil, err
	}
	s.Jobs.Notify()
	return s.Store.R().PullByNumber(ctx, repo.ID, number)
}

// DisableAutoMerge turns auto-merge off for pull request number.
func (s *Service) DisableAutoMerge(ctx context.Context, repo *model.Repo, c Caller, number int64) (*model.Pull, error) {
	if c.Perm < authz.Write {
		return nil, model.Forbidden(c.Login + " does not have permission to disable auto-merge on this pull request.")
	}
	p, err := s.Store.R().PullByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		had, err := tx.DeleteAutoMerge(ctx, p.IssueID)
		if err != nil || !had {
			return err
		}
		return s.autoMergeEvent(ctx, tx, repo, p, c.UserID, "auto_merge_disabled", "Disabled by a user")
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().PullByNumber(ctx, repo.ID, number)
}

// autoMergeEvent records auto_merge_enabled or auto_merge_disabled (with
// its reason) on the timeline and as the pull_request webhook action of
// the same name.
func (s *Service) autoMergeEvent(ctx context.Context, tx store.Q, repo *model.Repo, p *model.Pull, actorID int64, event string, reason ...string) error {
	e := &model.IssueEvent{RepoID: repo.ID, IssueID: p.IssueID, ActorID: actorID, Event: event}
	if err := tx.AddIssueEvent(ctx, e, orgID(repo), map[string]any{"number": p.Number}); err != nil {
		return err
	}
	pl := s.payload(p, event)
	if event == "auto_merge_disabled" && len(reason) > 0 {
		pl["reason"] = reason[0]
	}
	return tx.AppendEvent(ctx, "pull_request."+event, actorID, repo.ID, orgID(repo), pl)
}

func methodAllowed(repo *model.Repo, method string) error {
	switch method {
	case model.MergeMerge:
		if !repo.AllowMergeCommit {
			return notAllowed("Merge commits are not allowed on this repository.")
		}
	case model.MergeSquash:
		if !repo.AllowSquashMerge {
			return notAllowed("Squash merges are not allowed on this repository.")
		}
	case model.MergeRebase:
		if !repo.AllowRebaseMerge {
			return notAllowed("Rebase merges are not allowed on this repository.")
		}
	default:
		return notAllowed("Invalid merge method " + method + ".")
	}
	return nil
}

func enqueueAutoMerge(ctx context.Context, tx store.Q, pullID int64) error {
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobAutoMerge, Key: "pull-automerge:" + itoa(pullID),
		Payload: map[string]any{"pull_id": pullID}})
}

// autoMergeChanged queues the auto-merge attempt of those of list (open
// pull requests) that have auto-merge on.
func (s *Service) autoMergeChanged(ctx context.Context, list []*model.Pull) error {
	ids := make([]int64, len(list))
	for i, p := range list {
		ids[i] = p.IssueID
	}
	autos, err := s.Store.R().AutoMerges(ctx, ids)
	if err != nil || len(autos) == 0 {
		return err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		for id := range autos {
			if err := enqueueAutoMerge(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		s.Jobs.Notify()
	}
	return err
}

// runAutoMerge merges a pull request with auto-merge on, as the user who
// enabled it, if the base branch's requirements let it; a refusal leaves
// it waiting for the next change.
func (s *Service) runAutoMerge(ctx context.Context, payload []byte) error {
	var in struct {
		PullID int64 `json:"pull_id"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return jobs.Permanent(err)
	}
	q := s.Store.R()
	autos, err := q.AutoMerges(ctx, []int64{in.PullID})
	if err != nil {
		return err
	}
	a := autos[in.PullID]
	if a == nil {
		return nil
	}
	p, err := q.PullByIssueID(ctx, in.PullID)
	if err != nil {
		return ignoreGone(err)
	}
	if p.Merged() || p.Issue.State != "open" {
		return nil
	}
	repo, err := s.repo(ctx, p.RepoID)
	if err != nil {
		return ignoreGone(err)
	}
	if a.ExpectedHeadSHA != "" && a.ExpectedHeadSHA != p.HeadSHA {
		// Enabled for a head that has moved since: GitHub turns auto-merge
		// off rather than merge commits nobody reviewed for it.
		return s.Store.Tx(ctx, func(tx store.Q) error {
			had, err := tx.DeleteAutoMerge(ctx, p.IssueID)
			if err != nil || !had {
				return err
			}
			return s.autoMergeEvent(ctx, tx, repo, p, a.EnabledByID, "auto_merge_disabled", "Head branch was modified")
		})
	}
	// The enabler's access now, not when it was enabled.
	perm, err := codeowners.UserPerm(ctx, s.Store, repo, a.EnabledByID)
	if err != nil {
		return err
	}
	c := Caller{UserID: a.EnabledByID, Perm: perm}
	if a.EnabledBy != nil {
		c.Login = a.EnabledBy.Login
	}
	mi := MergeInput{Method: a.Method, CommitTitle: a.CommitTitle, CommitMessage: a.CommitMessage, SHA: a.ExpectedHeadSHA}
	if a.AuthorEmail != nil {
		mi.AuthorEmail = *a.AuthorEmail
	}
	_, err = s.Merge(ctx, repo, c, p.Number, mi)
	var he *model.HTTPError
	var ve *model.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &he), errors.As(err, &ve), errors.Is(err, model.ErrNotFound):
		return nil // not mergeable yet: the next status or review tries again
	}
	return err
}
