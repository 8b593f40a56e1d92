// Package pulls is the pull request service: opening (from a branch of the
// same repository or of a fork), editing, closing and reopening, the
// background synchronisation that keeps refs/pull/N/head and
// refs/pull/N/merge, the figures and the mergeability up to date, and the
// merge itself (merge commit, squash, rebase). Every transport calls it.
package pulls

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/store"
)

// RefUpdate is one ref the service changed (a merge moves the base).
type RefUpdate struct{ Ref, Old, New string }

// Service is the pull request service.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
	Jobs  *jobs.Queue
	// RecordPush records ref updates the service made (merge, update
	// branch, delete on merge) as pushes, so every push hook runs.
	RecordPush func(ctx context.Context, repo *model.Repo, actorID int64, updates []RefUpdate) error
	// NetworkRepo is the repository of owner in repo's fork network
	// (model.ErrNotFound when none).
	NetworkRepo func(ctx context.Context, repoID, ownerID int64) (*model.Repo, error)
	// HeadMoved run after a pull request's head or base moved (review
	// comments find their new lines).
	HeadMoved []func(ctx context.Context, repo *model.Repo, p *model.Pull) error
	// Opened run (in a job) after a pull request opened, other than as a
	// draft, or became ready for review.
	Opened []func(ctx context.Context, repo *model.Repo, p *model.Pull) error
	// Identity is the commit identity of a user (nil: the instance's, the
	// committer of every merge as GitHub's web-flow identity is).
	Identity func(u *model.Account, when time.Time) gitrepo.Signature
	// Protection is branch protection: the merge gate (required reviews
	// and contexts, strict, admins) and stale approvals.
	Protection *protection.Service
	// ReviewersOf are the requested reviewers of pull requests (by issue
	// id), nil until reviews exist.
	ReviewersOf func(ctx context.Context, issueIDs []int64) (map[int64][]*model.Account, error)
	// CheckStates are the newest check runs of a commit by name, as
	// "success", "pending" or "failure" (nil until checks exist).
	CheckStates func(ctx context.Context, repoID int64, sha string) (map[string]string, error)
	// Guard refuses a user who may not take part in a repository (blocks,
	// interaction limits) a new pull request; kind is "pull" or
	// "draft_pull" (nil: no such limits).
	Guard func(ctx context.Context, repo *model.Repo, userID int64, kind string) error
	// NoteBody records what a new or edited body references and closes,
	// in the write's transaction (internal/closing; nil: nothing).
	NoteBody func(ctx context.Context, tx store.Q, repo *model.Repo, is *model.Issue, actorID int64) error
}

// Job kinds.
const (
	jobSync         = "pulls.sync"
	jobCommitState  = "pulls.commit_state"
	jobUpdateBranch = "pulls.update_branch"
)

// New makes the service and registers its jobs.
func New(s *Service) *Service {
	if s.Protection == nil {
		s.Protection = protection.New(s.Store, s.Git)
	}
	s.HeadMoved = append(s.HeadMoved, s.Protection.HeadMoved)
	if s.Jobs != nil {
		s.Jobs.Handle(jobSync, s.runSync)
		s.Jobs.Handle(jobCommitState, s.runCommitState)
		s.Jobs.Handle(jobUpdateBranch, s.runUpdateBranch)
		s.Jobs.Handle(jobMergeAsync, s.runMergeAsync)
		s.Jobs.Handle(jobOpened, s.runOpened)
		s.Jobs.Handle(jobAutoMerge, s.runAutoMerge)
	}
	return s
}

func orgID(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

// Caller is who acts, with a way to ask their permission on another
// repository (the head's).
type Caller struct {
	UserID int64
	Login  string
	Perm   authz.Permission // on the base repository
	// PermOn is the caller's permission on another repository.
	PermOn func(ctx context.Context, repo *model.Repo) (authz.Permission, error)
	// Auth is the caller's credential, for what the token may change
	// beyond the repository permission (workflow files); nil for hubd's
	// own work.
	Auth *authz.Caller
	// Grant refuses another repository outside the caller's grant
	// (authz.Grants, with GitHub's refusal) and is nil inside it: a token
	// pushes to a fork's head branch only there, whatever the fork lets
	// maintainers do. A nil Grant (a merge already authorized) refuses
	// nothing.
	Grant func(repo *model.Repo) error
}

// CallerFor is the service's view of an authenticated caller whose
// permission on the base repository is perm (both transports build it).
func CallerFor(st *store.Store, c *authz.Caller, perm authz.Permission) Caller {
	login := ""
	if c.User != nil {
		login = c.User.Login
	}
	return Caller{UserID: c.UserID(), Login: login, Perm: perm, Auth: c,
		PermOn: func(ctx context.Context, repo *model.Repo) (authz.Permission, error) {
			v, err := st.R().RepoByID(ctx, repo.ID, c.UserID())
			if err != nil {
				return authz.None, err
			}
			return authz.RepoPermission(c, v.Repo, v.Facts), nil
		},
		Grant: func(repo *model.Repo) error {
			if authz.Grants(c, repo) {
				return nil
			}
			return authz.Outside(c)
		}}
}

// CreateInput is a new pull request as a client asks for it.
type CreateInput struct {
	Title               string
	Body                *string
	Head                string // "branch" or "owner:branch"
	HeadRepo            string // the head repository's name (same-owner forks)
	Base                string
	Draft               bool
	MaintainerCanModify *bool
	Issue               int64 // turn this issue into the pull request
}

// CheckText refuses GitHub's over-long titles (256 characters) and bodies
// (65,536).
func CheckText(title, body *string) error {
	if title != nil && len([]rune(*title)) > 256 {
		return model.Custom("PullRequest", "title", "title is too long (maximum is 256 characters)")
	}
	if body != nil && len([]rune(*body)) > 65536 {
		return model.Custom("PullRequest", "body", "body is too long (maximum is 65536 characters)")
	}
	return nil
}

func invalid(field string) error { return model.Invalid("PullRequest", field, "invalid") }

func custom(msg string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "PullRequest", Code: "custom", Message: msg}}}
}

// head is a resolved head: repository, branch and commit.
type head struct {
	repo   *model.Repo
	owner  *model.Account
	branch string
	sha    string
}

// resolveHead finds the head repository and commit of "owner:branch" (or a
// branch of base) that the caller may read.
func (s *Service) resolveHead(ctx context.Context, base *model.Repo, c Caller, spec, repoName string) (*head, error) {
	owner, branch, cross := strings.Cut(spec, ":")
	if !cross {
		owner, branch = base.Owner.Login, spec
	}
	if branch == "" || owner == "" {
		return nil, invalid("head")
	}
	h := &head{branch: branch}
	if strings.EqualFold(owner, base.Owner.Login) && (repoName == "" || strings.EqualFold(repoName, base.Name)) {
		h.repo = base
	} else {
		acct, err := s.Store.R().AccountByLogin(ctx, owner)
		if errors.Is(err, model.ErrNotFound) {
			return nil, invalid("head")
		}
		if err != nil {
			return nil, err
		}
		if s.NetworkRepo == nil {
			return nil, invalid("head")
		}
		r, err := s.NetworkRepo(ctx, base.ID, acct.ID)
		if errors.Is(err, model.ErrNotFound) {
			return nil, invalid("head")
		}
		if err != nil {
			return nil, err
		}
		if repoName != "" && !strings.EqualFold(repoName, r.Name) {
			return nil, invalid("head")
		}
		perm, err := c.PermOn(ctx, r)
		if err != nil {
			return nil, err
		}
		if !authz.CanSee(perm) {
			return nil, invalid("head")
		}
		h.repo = r
	}
	h.owner = h.repo.Owner
	if !gitrepo.ValidBranchName(branch) {
		return nil, invalid("head")
	}
	g := s.Git.Open(h.repo.ID)
	if !g.Exists() {
		return nil, invalid("head")
	}
	sha, err := g.ResolveRef(ctx, "refs/heads/"+branch)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return nil, invalid("head")
	}
	if err != nil {
		return nil, err
	}
	h.sha = sha
	return h, nil
}

// baseSHA is the commit of base's branch (invalid base when missing).
func (s *Service) baseSHA(ctx context.Context, repo *model.Repo, branch string) (string, error) {
	if !gitrepo.ValidBranchName(branch) {
		return "", invalid("base")
	}
	g := s.Git.Open(repo.ID)
	if !g.Exists() {
		return "", invalid("base")
	}
	sha, err := g.ResolveRef(ctx, "refs/heads/"+branch)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return "", invalid("base")
	}
	return sha, err
}

// stageHead makes the head commit present in the base repository under
// ref (refs/pull/N/head, or a staging ref before N is known).
func (s *Service) stageHead(ctx context.Context, base *model.Repo, h *head, ref string) error {
	g := s.Git.Open(base.ID)
	if h.repo.ID == base.ID {
		return g.SetRef(ctx, ref, h.sha)
	}
	return g.FetchCommit(ctx, s.Git.Path(h.repo.ID), h.branch, ref)
}

// figures counts the commits and changes of base...head.
func (s *Service) figures(ctx context.Context, g *gitrepo.Repo, baseSHA, headSHA string) (store.PullCounts, error) {
	return Figures(ctx, g, baseSHA, headSHA)
}

// Figures counts the commits and changes of base...head, the figures a
// pull request shows (a migration import computes them once the git data
// is in place).
func Figures(ctx context.Context, g *gitrepo.Repo, baseSHA, headSHA string) (store.PullCounts, error) {
	var c store.PullCounts
	mb, err := g.MergeBase(ctx, baseSHA, headSHA)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return c, nil // unrelated histories: nothing in common to compare
	}
	if err != nil {
		return c, err
	}
	if c.Commits, err = g.CountRange(ctx, mb, headSHA); err != nil {
		return c, err
	}
	files, err := g.DiffStats(ctx, mb, headSHA)
	if err != nil {
		return c, err
	}
	c.ChangedFiles = len(files)
	for _, f := range files {
		c.Additions += f.Additions
		c.Deletions += f.Deletions
	}
	return c, nil
}

// Create opens a pull request on base repository repo.
func (s *Service) Create(ctx context.Context, repo *model.Repo, c Caller, in CreateInput) (*model.Pull, error) {
	if err := repo.WriteRefusal(); err != nil {
		return nil, err
	}
	if s.Guard != nil {
		kind := "pull"
		if in.Draft {
			kind = "draft_pull"
		}
		if err := s.Guard(ctx, repo, c.UserID, kind); err != nil {
			return nil, err
		}
	}
	if in.Issue == 0 && strings.TrimSpace(in.Title) == "" {
		return nil, model.Invalid("PullRequest", "title", "missing_field")
	}
	if err := CheckText(&in.Title, in.Body); err != nil {
		return nil, err
	}
	if in.Base == "" {
		return nil, model.Invalid("PullRequest", "base", "missing_field")
	}
	if in.Head == "" {
		return nil, model.Invalid("PullRequest", "head", "missing_field")
	}
	baseSHA, err := s.baseSHA(ctx, repo, in.Base)
	if err != nil {
		return nil, err
	}
	h, err := s.resolveHead(ctx, repo, c, in.Head, in.HeadRepo)
	if err != nil {
		return nil, err
	}
	label := h.owner.Login + ":" + h.branch
	if h.repo.ID == repo.ID && h.branch == in.Base {
		return nil, custom("No commits between " + in.Base + " and " + label)
	}
	if n, err := s.Store.R().OpenPullExists(ctx, repo.ID, h.repo.ID, h.branch, in.Base); err != nil {
		return nil, err
	} else if n != 0 {
		return nil, custom("A pull request already exists for " + label + ".")
	}
	g := s.Git.Open(repo.ID)
	// Stage the head in the base repository first: a failure here leaves
	// at most a staging ref, which the next open of the same head reuses.
	staging := "refs/hubd/pull-staging/" + strings.ReplaceAll(label, ":", "/")
	if !gitrepo.ValidRefName(staging) {
		staging = "refs/hubd/pull-staging/" + h.sha
	}
	if err := s.stageHead(ctx, repo, h, staging); err != nil {
		return nil, err
	}
	defer g.RemoveRef(context.WithoutCancel(ctx), staging)
	if h.repo.ID != repo.ID {
		if sha, err := g.ResolveRef(ctx, staging); err == nil {
			h.sha = sha // the branch as fetched
		}
	}
	if ok, err := g.IsAncestor(ctx, h.sha, baseSHA); err != nil {
		return nil, err
	} else if ok {
		return nil, custom("No commits between " + in.Base + " and " + label)
	}
	if _, err := g.MergeBase(ctx, baseSHA, h.sha); errors.Is(err, gitrepo.ErrNotFound) {
		return nil, custom("The " + label + " branch has no history in common with " + repo.Owner.Login + ":" + in.Base)
	}
	counts, err := s.figures(ctx, g, baseSHA, h.sha)
	if err != nil {
		return nil, err
	}
	commits, err := s.newCommits(ctx, g, baseSHA, "", h.sha)
	if err != nil {
		return nil, err
	}
	// A maintainer may edit the head of a fork's pull request unless the
	// author says no (the default on GitHub is yes for user-owned forks).
	mcm := false
	if h.repo.ID != repo.ID {
		mcm = !h.owner.IsOrg()
		if in.MaintainerCanModify != nil {
			mcm = *in.MaintainerCanModify && !h.owner.IsOrg()
		}
	}
	p := &model.Pull{BaseRef: in.Base, BaseSHA: baseSHA, HeadRepoID: h.repo.ID, HeadOwnerID: h.owner.ID,
		HeadRef: h.branch, HeadSHA: h.sha, Draft: in.Draft, MaintainerCanModify: mcm,
		Commits: counts.Commits, Additions: counts.Additions, Deletions: counts.Deletions, ChangedFiles: counts.ChangedFiles}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		var is *model.Issue
		if in.Issue != 0 {
			var err error
			if is, err = s.convertIssue(ctx, tx, repo, c, in.Issue); err != nil {
				return err
			}
		} else {
			is = &model.Issue{RepoID: repo.ID, IsPull: true, Title: in.Title, Body: in.Body, UserID: c.UserID}
			if err := tx.CreateIssue(ctx, is); err != nil {
				return err
			}
		}
		p.Issue = is
		if err := tx.CreatePull(ctx, p); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "pull_request.opened", c.UserID, repo.ID, orgID(repo), s.payload(p, "opened")); err != nil {
			return err
		}
		if s.NoteBody != nil {
			if err := s.NoteBody(ctx, tx, repo, is, c.UserID); err != nil {
				return err
			}
		}
		if err := recordCommitted(ctx, tx, repo, p, c.UserID, commits); err != nil {
			return err
		}
		if !p.Draft {
			if err := s.enqueueOpened(ctx, tx, p.IssueID); err != nil {
				return err
			}
		}
		return jobs.Enqueue(ctx, tx, syncJob(p.IssueID))
	})
	if err != nil {
		return nil, err
	}
	// refs/pull/N/head now; the sync job writes it again should this fail.
	if err := g.SetRef(ctx, pullHead(p.Number), h.sha); err != nil {
		return nil, err
	}
	s.Jobs.Notify()
	return s.Store.R().PullByIssueID(ctx, p.IssueID)
}

// convertIssue turns an open issue into the issue half of a pull request:
// its author or someone with write access may do it.
func (s *Service) convertIssue(ctx context.Context, tx store.Q, repo *model.Repo, c Caller, number int64) (*model.Issue, error) {
	is, err := tx.IssueByNumber(ctx, repo.ID, number)
	if errors.Is(err, model.ErrNotFound) {
		return nil, model.Invalid("PullRequest", "issue", "invalid")
	}
	if err != nil {
		return nil, err
	}
	if is.IsPull {
		return nil, custom("Issue #" + itoa(number) + " is already a pull request")
	}
	if is.State != "open" {
		return nil, custom("Issue #" + itoa(number) + " is closed")
	}
	if is.UserID != c.UserID && c.Perm < authz.Write {
		return nil, model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	}
	if err := tx.MarkIssuePull(ctx, is.ID); err != nil {
		return nil, err
	}
	is.IsPull = true
	return is, nil
}

func pullHead(n int64) string  { return "refs/pull/" + itoa(n) + "/head" }
func pullMerge(n int64) string { return "refs/pull/" + itoa(n) + "/merge" }

func syncJob(issueID int64) jobs.Job { return syncJobBy(issueID, 0) }

// syncJobBy is the sync of a pull request after actorID pushed (while one
// is pending, later pushes join it: its actor stays the first pusher's).
func syncJobBy(issueID, actorID int64) jobs.Job {
	return jobs.Job{Kind: jobSync, Key: "pull-sync:" + itoa(issueID), Payload: map[string]int64{"issue_id": issueID, "actor_id": actorID}}
}

// payload is the domain event payload of a pull request action.
func (s *Service) payload(p *model.Pull, action string) map[string]any {
	return map[string]any{"action": action, "number": p.Number, "issue_id": p.IssueID,
		"head_ref": p.HeadRef, "head_sha": p.HeadSHA, "head_repo_id": p.HeadRepoID,
		"base_ref": p.BaseRef, "base_sha": p.BaseSHA}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
