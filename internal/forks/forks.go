// Package forks is the fork service: it creates forks (a repository row at
// once, its git copy in the background through the job queue) with GitHub's
// rules — who may fork what into which account, the existing fork returned
// instead of a second one, names that collide get a suffix — and lists a
// repository's forks. Fork networks (parent, source) live in the store.
package forks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/store"
)

// JobCopy is the job kind that makes a fork's git copy.
const JobCopy = "fork.copy"

// Service is the fork service; it also makes repositories from templates
// and syncs a fork's branch with its upstream.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
	Jobs  *jobs.Queue
	// RecordPush records ref updates the service made (merge-upstream, a
	// generated repository's branches) as a push does: events, webhooks,
	// workflows.
	RecordPush func(ctx context.Context, repo *model.Repo, actorID int64, updates []RefUpdate) error
	// Identity is a user's commit identity (nil: the instance's).
	Identity func(u *model.Account, when time.Time) gitrepo.Signature
}

// RefUpdate is one ref the service changed (Old or New is gitrepo.ZeroOID
// for a created or deleted ref).
type RefUpdate struct{ Ref, Old, New string }

// New makes the service and registers its job handlers on q.
func New(st *store.Store, git *gitrepo.Manager, q *jobs.Queue) *Service {
	s := &Service{Store: st, Git: git, Jobs: q}
	if q != nil {
		q.Handle(JobCopy, s.copy)
		q.Handle(JobGenerate, s.generate)
	}
	return s
}

// Input is a fork request (every field optional).
type Input struct {
	Organization      string // "" forks into the caller's account
	Name              string // "" keeps the parent's name
	DefaultBranchOnly bool
}

// ErrForkingDisabled is GitHub's 403 when a repository may not be forked.
var ErrForkingDisabled = model.Forbidden("The repository exists, but forking is disabled.")

// ErrNameTaken is GitHub's 422 for a fork (or a repository made from a
// template) named as a repository its owner has.
var ErrNameTaken = nameTaken()

func nameTaken() *model.ValidationError {
	err := model.Custom("Repository", "name", "name already exists on this account")
	err.Message = "Repository creation failed."
	return err
}

// errOrgCreate is GitHub's 403 for an organization the caller may not
// create the fork in.
var errOrgCreate = model.Forbidden("You need admin access to the organization before adding a repository to it.")

// copyJob is the payload of a JobCopy job.
type copyJob struct {
	ForkID     int64  `json:"fork_id"`
	ParentID   int64  `json:"parent_id"`
	Branch     string `json:"branch"`
	OnlyBranch bool   `json:"default_branch_only"`
}

// Create forks parent, which caller sees with perm, and returns the fork and
// whether it was made now. Without a name, an account that already has a
// repository in parent's network (parent itself included) gets that one
// back, as on GitHub; with one, a network may hold several repositories of
// one owner (an organization forking its own repository), and a name the
// owner has already is GitHub's 422. The fork's git storage is copied by a job after the commit; until
// then it reads as an empty repository.
func (s *Service) Create(ctx context.Context, c *authz.Caller, parent *model.Repo, perm authz.Permission, in Input) (*model.Repo, bool, error) {
	if c == nil || c.User == nil {
		return nil, false, model.Forbidden("Resource not accessible by integration")
	}
	if !authz.CanSee(perm) {
		return nil, false, model.ErrNotFound
	}
	scope := "public_repo"
	if parent.Private() {
		scope = "repo"
	}
	if !c.HasScope(scope) {
		return nil, false, model.Forbidden("Resource not accessible by personal access token")
	}
	if !parent.AllowForking {
		return nil, false, ErrForkingDisabled
	}
	if parent.Private() && parent.Owner.IsOrg() {
		set, err := s.Store.R().OrgSettings(ctx, parent.OwnerID)
		if err != nil {
			return nil, false, err
		}
		if !set.MembersCanForkPrivateRepos {
			return nil, false, ErrForkingDisabled
		}
	}
	owner, member, err := s.target(ctx, c, in.Organization)
	if err != nil {
		return nil, false, err
	}
	name := parent.Name
	if in.Name != "" {
		if name, err = names.NormalizeRepo(in.Name); err != nil {
			return nil, false, &model.ValidationError{Errors: []model.FieldError{{Resource: "Repository", Field: "name", Code: "invalid", Value: in.Name}}}
		}
	}
	fork := newFork(parent, owner)
	if member && !memberMayCreate(owner, fork.Visibility) {
		return nil, false, errOrgCreate
	}
	named := in.Name != ""
	var existing *model.Repo
	for attempt := 0; ; attempt++ {
		existing = nil
		err = s.Store.Tx(ctx, func(tx store.Q) error {
			if err := tx.LockNetwork(ctx, parent.ID); err != nil {
				return err
			}
			if named {
				// A named fork is a new repository of the network even
				// where the owner holds one already (the parent's own
				// organization included); its name must be free.
				fork.Name = name
				return s.insert(ctx, tx, c, parent, fork, member, in.DefaultBranchOnly)
			}
			got, err := tx.NetworkRepoOwnedBy(ctx, parent.ID, owner.ID)
			if err == nil {
				existing = got
				return nil
			}
			if !errors.Is(err, model.ErrNotFound) {
				return err
			}
			if fork.Name, err = freeName(ctx, tx, owner.ID, name); err != nil {
				return err
			}
			return s.insert(ctx, tx, c, parent, fork, member, in.DefaultBranchOnly)
		})
		// A repository of that name made concurrently: pick again.
		if named || !errors.Is(err, store.ErrDuplicate) || attempt == 3 {
			break
		}
	}
	if errors.Is(err, store.ErrDuplicate) {
		return nil, false, ErrNameTaken
	}
	if err != nil {
		return nil, false, err
	}
	if existing != nil {
		return existing, false, nil
	}
	s.Jobs.Notify()
	return fork, true, nil
}

// target is the account the fork goes to: the caller, or an organization
// they may create repositories in (member: as a member whom the
// organization's settings limit, not an admin).
func (s *Service) target(ctx context.Context, c *authz.Caller, org string) (*model.Account, bool, error) {
	if org == "" {
		return c.User, false, nil
	}
	a, err := s.Store.R().AccountByLogin(ctx, org)
	if errors.Is(err, model.ErrNotFound) || (err == nil && !a.IsOrg()) {
		return nil, false, &model.ValidationError{Errors: []model.FieldError{{Resource: "Fork", Field: "organization", Code: "invalid", Value: org}}}
	}
	if err != nil {
		return nil, false, err
	}
	return s.orgCreator(ctx, c, a)
}

// orgCreator checks that c may create repositories in organization org:
// its active members may; member says c is not an admin, so the
// organization's settings limit what they may create.
func (s *Service) orgCreator(ctx context.Context, c *authz.Caller, org *model.Account) (*model.Account, bool, error) {
	m, err := s.Store.R().Membership(ctx, org.ID, c.User.ID)
	if errors.Is(err, model.ErrNotFound) || (err == nil && m.State != "active") {
		return nil, false, errOrgCreate
	}
	if err != nil {
		return nil, false, err
	}
	return org, m.Role != model.RoleAdmin, nil
}

func memberMayCreate(org *model.Account, v model.Visibility) bool {
	if !org.MembersCanCreateRepos {
		return false
	}
	switch v {
	case model.Public:
		return org.MembersCanCreatePublicRepos
	case model.Private:
		return org.MembersCanCreatePrivRepos
	case model.Internal:
		return org.MembersCanCreateIntRepos
	}
	return false
}

// newFork is the fork's row as GitHub makes it: description, homepage,
// default branch and visibility of the parent (a private or internal
// parent's fork stays private; internal only inside an organization), issues
// off, the other settings at their defaults.
func newFork(parent *model.Repo, owner *model.Account) *model.Repo {
	vis := parent.Visibility
	if vis == model.Internal && !owner.IsOrg() {
		vis = model.Private
	}
	source := parent.SourceID
	if source == 0 {
		source = parent.ID
	}
	return &model.Repo{
		OwnerID: owner.ID, Owner: owner, Description: parent.Description, Homepage: parent.Homepage,
		Visibility: vis, DefaultBranch: parent.DefaultBranch, Topics: []string{},
		HasIssues: false, HasProjects: true, HasWiki: true, HasDownloads: true,
		AllowSquashMerge: true, AllowMergeCommit: true, AllowRebaseMerge: true, AllowForking: true,
		SquashMergeCommitTitle: "COMMIT_OR_PR_TITLE", SquashMergeCommitMessage: "COMMIT_MESSAGES",
		MergeCommitTitle: "MERGE_MESSAGE", MergeCommitMessage: "PR_TITLE",
		Size: parent.Size, ParentID: parent.ID, SourceID: source,
	}
}

// freeName is name, or the first of name-1, name-2, ... the owner has no
// repository of (GitHub's suffix for a fork whose name is taken).
func freeName(ctx context.Context, tx store.Q, ownerID int64, name string) (string, error) {
	for i := 0; i < 1000; i++ {
		n := name
		if i > 0 {
			suffix := "-" + strconv.Itoa(i)
			if len(n)+len(suffix) > 100 {
				n = n[:100-len(suffix)]
			}
			n += suffix
		}
		taken, err := tx.RepoNameTaken(ctx, ownerID, n)
		if err != nil {
			return "", err
		}
		if !taken {
			return n, nil
		}
	}
	return "", model.Custom("Repository", "name", "name already exists on this account")
}

// insert writes the fork's row, its labels and facts, its events and the
// job that copies its git storage, in the caller's transaction.
func (s *Service) insert(ctx context.Context, tx store.Q, c *authz.Caller, parent, fork *model.Repo, member, onlyBranch bool) error {
	if err := s.createRow(ctx, tx, c, fork, member, map[string]any{"fork": true, "parent_id": parent.ID}); err != nil {
		return err
	}
	// The fork was last pushed when its parent was: it holds the same refs.
	fork.PushedAt = parent.PushedAt
	if err := tx.MarkForkPushed(ctx, fork.ID, parent.PushedAt); err != nil {
		return err
	}
	if err := tx.CopyRepoFacts(ctx, parent.ID, fork.ID); err != nil {
		return err
	}
	// GitHub's ForkEvent: on the parent, by the forker; forkee is the fork.
	porg := int64(0)
	if parent.Owner.IsOrg() {
		porg = parent.OwnerID
	}
	if err := tx.AppendEvent(ctx, "fork", c.User.ID, parent.ID, porg, map[string]any{
		"forkee": map[string]any{"id": fork.ID, "full_name": fork.FullName(), "owner_id": fork.OwnerID,
			"private": fork.Private(), "parent_id": fork.ParentID, "source_id": fork.SourceID},
	}); err != nil {
		return err
	}
	// Attempts enough to outwait the copy of a parent that is a fork
	// itself (see copy).
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: JobCopy, Key: copyKey(fork.ID), MaxAttempts: 10,
		Payload: copyJob{ForkID: fork.ID, ParentID: parent.ID, Branch: fork.DefaultBranch, OnlyBranch: onlyBranch}})
}

// createRow writes a new repository's row, the caller's watch, its labels,
// the member creator's admin grant and its repository.created event (with
// extra in its payload), in the caller's transaction.
func (s *Service) createRow(ctx context.Context, tx store.Q, c *authz.Caller, repo *model.Repo, member bool, extra map[string]any) error {
	if err := tx.CreateRepo(ctx, repo); err != nil {
		return err
	}
	if err := tx.WatchRepo(ctx, c.User.ID, repo.ID); err != nil {
		return err
	}
	if err := tx.CreateDefaultLabels(ctx, repo.ID); err != nil {
		return err
	}
	if member {
		// The member who creates an organization repository administers it.
		if err := tx.SetCollaborator(ctx, repo.ID, c.User.ID, authz.Admin); err != nil {
			return err
		}
	}
	org := int64(0)
	if repo.Owner.IsOrg() {
		org = repo.OwnerID
	}
	payload := map[string]any{"action": "created", "repository_id": repo.ID, "full_name": repo.FullName(), "visibility": repo.Visibility}
	for k, v := range extra {
		payload[k] = v
	}
	return tx.AppendEvent(ctx, "repository.created", c.User.ID, repo.ID, org, payload)
}

func copyKey(forkID int64) string { return "fork:" + strconv.FormatInt(forkID, 10) }

// errParentPending retries the copy of a fork whose parent, a fork itself,
// is not copied yet.
var errParentPending = errors.New("forks: the parent's own copy is not done yet")

// copy is the JobCopy handler: it copies the parent's git storage into the
// fork's. A fork deleted meanwhile needs nothing; a parent deleted
// meanwhile leaves an empty fork.
func (s *Service) copy(ctx context.Context, payload []byte) error {
	var j copyJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return jobs.Permanent(fmt.Errorf("fork job payload: %w", err))
	}
	if _, err := s.Store.R().RepoByID(ctx, j.ForkID, 0); errors.Is(err, model.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	// A fork of a fork copies what its parent holds once that is there.
	if busy, err := s.Store.R().JobQueued(ctx, copyKey(j.ParentID)); err != nil {
		return err
	} else if busy {
		return errParentPending
	}
	return s.Git.Fork(ctx, j.ParentID, j.ForkID, j.Branch, j.OnlyBranch)
}

// ListQuery selects a page of parent's forks for the viewer.
type ListQuery struct {
	Viewer        store.Viewer
	Sort          string // newest (default), oldest, stargazers, watchers
	Limit, Offset int
}

// List is one page of parent's direct forks the viewer may see, and their
// total. Stars and watchers are not counted by hubd yet: those sorts order
// as newest.
func (s *Service) List(ctx context.Context, parent *model.Repo, q ListQuery) ([]*store.RepoView, int, error) {
	f := store.RepoQuery{Viewer: q.Viewer, ParentID: parent.ID, Sort: "created", Desc: q.Sort != "oldest",
		Limit: q.Limit, Offset: q.Offset}
	return s.Store.R().ListRepos(ctx, f)
}
