package pulls

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/workflowguard"
)

// MergeInput is PUT .../merge's body.
type MergeInput struct {
	Method        string // merge (default), squash, rebase
	CommitTitle   *string
	CommitMessage *string
	SHA           string // the head the caller reviewed ("": any)
	// AuthorEmail, when set, is the merging user's address on the commit
	// they author (auto-merge's authorEmail).
	AuthorEmail string
}

// MergeResult is what a merge answers.
type MergeResult struct {
	SHA     string
	Message string
}

func notAllowed(msg string) error { return &model.HTTPError{Status: 405, Message: msg} }

var errNotMergeable = notAllowed("Pull Request is not mergeable")

// Merge merges pull request number of repo with the caller's method. The
// new base commit is written with a compare-and-swap of the base branch, so
// a push that lands meanwhile is never lost (the merge fails instead).
func (s *Service) Merge(ctx context.Context, repo *model.Repo, c Caller, number int64, in MergeInput) (*MergeResult, error) {
	if c.Perm < authz.Write {
		return nil, model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	}
	p, err := s.Store.R().PullByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	if in.Method == "" {
		in.Method = model.MergeMerge
	}
	switch in.Method {
	case model.MergeMerge, model.MergeSquash, model.MergeRebase:
		if err := methodAllowed(repo, in.Method); err != nil {
			return nil, err
		}
	default:
		return nil, model.Invalid("PullRequest", "merge_method", "invalid")
	}
	if p.Merged() || p.Issue.State != "open" {
		return nil, errNotMergeable
	}
	if p.Draft {
		return nil, notAllowed("Pull Request is still a draft")
	}
	// The head as it is now (a push may not be synchronised yet).
	headSHA, err := s.refreshHead(ctx, repo, p)
	if err != nil {
		return nil, err
	}
	if in.SHA != "" && in.SHA != headSHA {
		return nil, model.Conflict("Head branch was modified. Review and try the merge again.")
	}
	g := s.Git.Open(repo.ID)
	baseSHA, err := g.ResolveRef(ctx, "refs/heads/"+p.BaseRef)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return nil, errNotMergeable
	}
	if err != nil {
		return nil, err
	}
	states, err := s.commitStates(ctx, repo.ID, headSHA)
	if err != nil {
		return nil, err
	}
	gated := *p
	gated.HeadSHA = headSHA // judge the head being merged
	if _, err := s.Protection.MergeGateAs(ctx, repo, &gated, protection.For(ctx, c.UserID, c.Perm), states); err != nil {
		return nil, err // GitHub's 405 refusal, or a real error
	}
	now := s.Store.Now()
	committer := s.systemSignature()
	actor := s.identity(ctx, c.UserID, now)
	if in.AuthorEmail != "" {
		actor.Email = in.AuthorEmail
	}
	var newSHA string
	switch in.Method {
	case model.MergeMerge, model.MergeSquash:
		tree, err := g.MergeTree(ctx, baseSHA, headSHA)
		if errors.Is(err, gitrepo.ErrConflict) || errors.Is(err, gitrepo.ErrNotFound) {
			return nil, errNotMergeable
		}
		if err != nil {
			return nil, err
		}
		commit := &gitrepo.Commit{Tree: tree, Committer: committer}
		if in.Method == model.MergeMerge {
			commit.Parents = []string{baseSHA, headSHA}
			commit.Author = actor
			commit.Message = s.mergeMessage(repo, p, in)
		} else {
			commits, err := s.rangeCommits(ctx, g, baseSHA, headSHA, 250)
			if err != nil {
				return nil, err
			}
			commit.Parents = []string{baseSHA}
			commit.Author = s.identity(ctx, p.Issue.UserID, now)
			commit.Message = s.squashMessage(repo, p, commits, in)
		}
		if newSHA, err = g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(commit)); err != nil {
			return nil, err
		}
	case model.MergeRebase:
		commits, err := s.rangeCommits(ctx, g, baseSHA, headSHA, maxRebaseCheck+1)
		if err != nil {
			return nil, err
		}
		if len(commits) > maxRebaseCheck {
			return nil, notAllowed("This branch can't be rebased")
		}
		newSHA, err = g.Replay(ctx, baseSHA, commits, committer)
		if errors.Is(err, gitrepo.ErrConflict) {
			return nil, notAllowed("This branch can't be rebased")
		}
		if err != nil {
			return nil, err
		}
	}
	if no, err := workflowguard.Check(ctx, c.Auth, g, nil, workflowguard.Change{Ref: "refs/heads/" + p.BaseRef, Old: baseSHA, New: newSHA}); err != nil {
		return nil, err
	} else if no != nil {
		return nil, no.MergeError()
	}
	if err := g.UpdateRef(ctx, "refs/heads/"+p.BaseRef, newSHA, baseSHA); errors.Is(err, gitrepo.ErrRefConflict) {
		return nil, notAllowed("Base branch was modified. Review and try the merge again.")
	} else if err != nil {
		return nil, err
	}
	// The base moved: from here on the merge happened, whatever fails.
	ctx = context.WithoutCancel(ctx)
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.MarkPullMerged(ctx, p.IssueID, c.UserID, newSHA, headSHA, baseSHA, now); err != nil {
			return err
		}
		if _, err := tx.DeleteAutoMerge(ctx, p.IssueID); err != nil {
			return err
		}
		before := *p.Issue
		is := p.Issue
		is.State, is.StateReason, is.ClosedByID, is.ClosedAt = "closed", nil, c.UserID, &now
		if err := tx.UpdateIssue(ctx, &before, is); err != nil {
			return err
		}
		for _, ev := range []string{"merged", "closed"} {
			e := &model.IssueEvent{RepoID: repo.ID, IssueID: p.IssueID, ActorID: c.UserID, Event: ev, CommitID: &newSHA}
			if err := tx.AddIssueEvent(ctx, e, orgID(repo), map[string]any{"number": p.Number}); err != nil {
				return err
			}
		}
		pl := s.payload(p, "closed")
		pl["merged"], pl["merge_commit_sha"], pl["merge_method"] = true, newSHA, in.Method
		return tx.AppendEvent(ctx, "pull_request.closed", c.UserID, repo.ID, orgID(repo), pl)
	})
	if err != nil {
		return nil, err
	}
	g.SetRef(ctx, pullHead(p.Number), headSHA)
	g.RemoveRef(ctx, pullMerge(p.Number))
	updates := []RefUpdate{{Ref: "refs/heads/" + p.BaseRef, Old: baseSHA, New: newSHA}}
	if repo.DeleteBranchOnMerge && p.HeadRepoID == repo.ID && p.HeadRef != repo.DefaultBranch {
		if err := s.deleteHead(ctx, repo, c, p, headSHA); err == nil {
			updates = append(updates, RefUpdate{Ref: "refs/heads/" + p.HeadRef, Old: headSHA, New: gitrepo.ZeroOID})
		}
	}
	if s.RecordPush != nil {
		if err := s.RecordPush(ctx, repo, c.UserID, updates); err != nil {
			return nil, err
		}
	}
	return &MergeResult{SHA: newSHA, Message: "Pull Request successfully merged"}, nil
}

// deleteHead deletes a merged pull request's head branch (unless another
// open pull request still uses it) with a head_ref_deleted event.
func (s *Service) deleteHead(ctx context.Context, repo *model.Repo, c Caller, p *model.Pull, headSHA string) error {
	others, err := s.Store.R().OpenPullsTouching(ctx, repo.ID, p.HeadRef)
	if err != nil {
		return err
	}
	if len(others) > 0 {
		return errors.New("branch still used")
	}
	if err := s.Git.Open(repo.ID).DeleteRef(ctx, "refs/heads/"+p.HeadRef, headSHA); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		e := &model.IssueEvent{RepoID: repo.ID, IssueID: p.IssueID, ActorID: c.UserID, Event: "head_ref_deleted"}
		return tx.AddIssueEvent(ctx, e, orgID(repo), map[string]any{"number": p.Number})
	})
}

func (s *Service) identity(ctx context.Context, userID int64, now time.Time) gitrepo.Signature {
	if s.Identity == nil || userID == 0 {
		return s.systemSignature()
	}
	u, err := s.Store.R().AccountByID(ctx, userID)
	if err != nil {
		return s.systemSignature()
	}
	return s.Identity(u, now)
}

// mergeMessage is a merge commit's message: the caller's title and message,
// or the repository's defaults (merge_commit_title / merge_commit_message).
func (s *Service) mergeMessage(repo *model.Repo, p *model.Pull, in MergeInput) string {
	title := "Merge pull request #" + itoa(p.Number) + " from " + s.headLabel(p, "/")
	if repo.MergeCommitTitle == "PR_TITLE" {
		title = p.Issue.Title + " (#" + itoa(p.Number) + ")"
	}
	body := p.Issue.Title
	switch repo.MergeCommitMessage {
	case "PR_BODY":
		body = deref(p.Issue.Body)
	case "BLANK":
		body = ""
	}
	if repo.MergeCommitTitle == "PR_TITLE" && repo.MergeCommitMessage == "PR_TITLE" {
		body = ""
	}
	if in.CommitTitle != nil && *in.CommitTitle != "" {
		title = *in.CommitTitle
	}
	if in.CommitMessage != nil {
		body = *in.CommitMessage
	}
	return message(title, body)
}

// squashMessage is a squash commit's message: by default the pull
// request's title (or its one commit's) with its number, and the messages
// of its commits as a list.
func (s *Service) squashMessage(repo *model.Repo, p *model.Pull, commits []*gitrepo.Commit, in MergeInput) string {
	title := p.Issue.Title + " (#" + itoa(p.Number) + ")"
	if repo.SquashMergeCommitTitle != "PR_TITLE" && len(commits) == 1 {
		subject, _, _ := strings.Cut(strings.TrimSpace(commits[0].Message), "\n")
		title = subject + " (#" + itoa(p.Number) + ")"
	}
	var body string
	switch repo.SquashMergeCommitMessage {
	case "PR_BODY":
		body = deref(p.Issue.Body)
	case "BLANK":
		body = ""
	default:
		var b strings.Builder
		for i, c := range commits {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("* " + strings.TrimSpace(c.Message))
		}
		body = b.String()
		if len(commits) == 1 {
			_, rest, _ := strings.Cut(strings.TrimSpace(commits[0].Message), "\n")
			body = strings.TrimSpace(rest)
		}
	}
	if in.CommitTitle != nil && *in.CommitTitle != "" {
		title = *in.CommitTitle
	}
	if in.CommitMessage != nil {
		body = *in.CommitMessage
	}
	return message(title, body)
}

func message(title, body string) string {
	if strings.TrimSpace(body) == "" {
		return title + "\n"
	}
	return title + "\n\n" + strings.TrimRight(body, "\n") + "\n"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// headLabel is owner<sep>branch of the head.
func (s *Service) headLabel(p *model.Pull, sep string) string {
	login := ""
	if p.HeadOwner != nil {
		login = p.HeadOwner.Login
	} else if a, err := s.Store.R().AccountByID(context.Background(), p.HeadOwnerID); err == nil {
		login = a.Login
	}
	return login + sep + p.HeadRef
}

// UpdateBranch queues the merge of the base into the head branch (PUT
// .../update-branch answers 202 at once, as GitHub does).
func (s *Service) UpdateBranch(ctx context.Context, repo *model.Repo, c Caller, number int64, expected string) error {
	p, err := s.Store.R().PullByNumber(ctx, repo.ID, number)
	if err != nil {
		return err
	}
	if p.Issue.State != "open" || p.Merged() {
		return model.Unprocessable("Pull request is not open")
	}
	if p.HeadRepoID == 0 {
		return model.Unprocessable("The head repository does not exist")
	}
	if err := s.mayPushHead(ctx, repo, c, p); err != nil {
		return err
	}
	headSHA, err := s.refreshHead(ctx, repo, p)
	if err != nil {
		return err
	}
	if expected != "" && expected != headSHA {
		return model.Unprocessable("expected head sha didn’t match current head ref.")
	}
	g := s.Git.Open(repo.ID)
	baseSHA, err := g.ResolveRef(ctx, "refs/heads/"+p.BaseRef)
	if err != nil {
		return err
	}
	if ok, err := g.IsAncestor(ctx, baseSHA, headSHA); err != nil {
		return err
	} else if ok {
		return model.Unprocessable("There are no new commits on the base branch.")
	}
	if _, err := g.MergeTree(ctx, headSHA, baseSHA); errors.Is(err, gitrepo.ErrConflict) {
		return model.Unprocessable("merge conflict between base and head")
	} else if err != nil {
		return err
	}
	// GitHub answers a head the merge would change workflow files of
	// with its 403 at once.
	if no, err := workflowguard.CheckMerge(ctx, c.Auth, g, "refs/heads/"+p.HeadRef, headSHA, baseSHA); err != nil {
		return err
	} else if no != nil {
		return no.Forbidden()
	}
	job := jobs.Job{Kind: jobUpdateBranch, Key: "pull-update:" + itoa(p.IssueID),
		Payload: map[string]any{"issue_id": p.IssueID, "head_sha": headSHA, "base_sha": baseSHA, "actor_id": c.UserID}}
	if err := s.Jobs.Enqueue(ctx, job); err != nil {
		return err
	}
	return nil
}

// mayPushHead: write access to the head repository, or a maintainer of the
// base when the author allows maintainers to modify the head.
func (s *Service) mayPushHead(ctx context.Context, repo *model.Repo, c Caller, p *model.Pull) error {
	if p.HeadRepoID == repo.ID {
		if c.Perm < authz.Write {
			return model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
		}
		return nil
	}
	head, err := s.repo(ctx, p.HeadRepoID)
	if err != nil {
		return err
	}
	perm, err := c.PermOn(ctx, head)
	if err != nil {
		return err
	}
	if perm >= authz.Write {
		return nil
	}
	if p.MaintainerCanModify && c.Perm >= authz.Write {
		// A maintainer of the base pushes to the fork, if the token's grant
		// reaches it.
		if c.Grant == nil {
			return nil
		}
		return c.Grant(head)
	}
	return model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
}
