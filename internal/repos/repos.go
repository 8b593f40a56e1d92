// Package repos is the repository service: creating, updating and
// deleting repositories with their rules and events, and the repository
// objects every transport shows (REST's internal/api/repos, GraphQL).
package repos

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/licenses"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Service is the repository service.
type Service struct {
	d     *deps.Deps
	facts *detector // license and language detection after pushes
}

// New makes the service; it detects license and language after every push.
func New(d *deps.Deps) *Service {
	a := &Service{d: d}
	a.facts = newDetector(d)
	d.PushHooks = append(d.PushHooks, a.facts.pushed)
	return a
}

// Backfill queues, once per process, the detection of the repositories
// stored before detection existed (see detector.backfill).
func (a *Service) Backfill() { a.facts.backfill() }

// BackfillDone starts the backfill if no read has and returns a channel
// closed once it has queued its jobs: tests that compare database states
// wait for it, so its jobs do not show up as a later request's writes.
func (a *Service) BackfillDone() <-chan struct{} {
	a.facts.backfill()
	return a.facts.filled
}

// Full is Full for the service's callers, after Backfill.
func (a *Service) Full(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission) (wire.FullRepository, error) {
	a.facts.backfill()
	return Full(ctx, a.d, c, repo, perm)
}

// Counts are a repository's counters and detected facts (see counts).
func Counts(d *deps.Deps, r *model.Repo, f store.RepoFacts) wire.RepoCounts {
	return wire.RepoCounts{OpenIssues: r.OpenIssues, Forks: r.ForksCount, Language: f.Language, License: licenses.SimpleByKey(d.URLs, f.License)}
}

// MinimalList and RepositoryList render repositories as list entries for
// caller c — minimal-repository or repository objects — each with the
// caller's permission, its counters and detected facts (loaded in one
// batch). Every list of repositories outside this package (forks,
// installation and token repositories, event payloads) goes through them.
func MinimalList(ctx context.Context, d *deps.Deps, c *authz.Caller, views []*store.RepoView) ([]wire.MinimalRepository, error) {
	return listed(ctx, d, c, views, d.URLs.ToMinimalRepository)
}

// MinimalByIDs is MinimalList of the repositories ids, in that order (those
// gone since are left out): the selected repositories of secrets,
// variables and runner groups.
func MinimalByIDs(ctx context.Context, d *deps.Deps, c *authz.Caller, ids []int64) ([]wire.MinimalRepository, error) {
	views, err := d.Store.R().ReposByID(ctx, ids, c.UserID())
	if err != nil {
		return nil, err
	}
	list := make([]*store.RepoView, 0, len(ids))
	for _, id := range ids {
		if v := views[id]; v != nil {
			list = append(list, v)
		}
	}
	return MinimalList(ctx, d, c, list)
}

// RepositoryList: see MinimalList.
func RepositoryList(ctx context.Context, d *deps.Deps, c *authz.Caller, views []*store.RepoView) ([]wire.Repository, error) {
	return listed(ctx, d, c, views, d.URLs.ToRepository)
}

func listed[T any](ctx context.Context, d *deps.Deps, c *authz.Caller, views []*store.RepoView,
	conv func(*model.Repo, wire.RepoCounts, wire.Access) T) ([]T, error) {
	ids := make([]int64, len(views))
	for i, v := range views {
		ids[i] = v.Repo.ID
	}
	facts, err := d.Store.R().RepoFacts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(views))
	for i, v := range views {
		access := wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: c.Authenticated()}
		out[i] = conv(v.Repo, Counts(d, v.Repo, facts[v.Repo.ID]), access)
	}
	return out, nil
}

// Full is repo as GET /repos/{owner}/{repo} shows it to caller c, who has
// perm on it: with its counters and detected facts, its network's size and,
// for a fork, its parent and source (loaded here: lists never embed them).
func Full(ctx context.Context, d *deps.Deps, c *authz.Caller, repo *model.Repo, perm authz.Permission) (wire.FullRepository, error) {
	q := d.Store.R()
	ids := []int64{repo.ID}
	var parent, source *store.RepoView
	if repo.ParentID != 0 {
		var err error
		if parent, err = q.RepoByID(ctx, repo.ParentID, c.UserID()); err != nil {
			return wire.FullRepository{}, err
		}
		ids = append(ids, parent.Repo.ID)
		source = parent
		if repo.SourceID != 0 && repo.SourceID != repo.ParentID {
			if source, err = q.RepoByID(ctx, repo.SourceID, c.UserID()); err != nil {
				return wire.FullRepository{}, err
			}
			ids = append(ids, source.Repo.ID)
		}
	}
	var template *store.RepoView
	if repo.TemplateID != 0 {
		t, err := q.RepoByID(ctx, repo.TemplateID, c.UserID())
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return wire.FullRepository{}, err
		}
		if err == nil && authz.CanSee(authz.RepoPermission(c, t.Repo, t.Facts)) {
			template = t
			ids = append(ids, t.Repo.ID)
		}
	}
	facts, err := q.RepoFacts(ctx, ids)
	if err != nil {
		return wire.FullRepository{}, err
	}
	root := repo.ID
	if repo.ParentID != 0 && repo.SourceID != 0 {
		root = repo.SourceID
	}
	network, err := q.NetworkCount(ctx, root)
	if err != nil {
		return wire.FullRepository{}, err
	}
	authn := c.Authenticated()
	out := d.URLs.ToFullRepository(repo, Counts(d, repo, facts[repo.ID]), wire.Access{Perm: perm, Authenticated: authn})
	out.NetworkCount = network
	out.TempCloneToken = d.TempCloneToken(c, repo, perm)
	if authn && perm >= authz.Admin {
		// GitHub shows the security settings to administrators only.
		sec, err := q.RepoSecurity(ctx, repo.ID)
		if err != nil {
			return wire.FullRepository{}, err
		}
		out.SecurityAndAnalysis = wire.ToSecurityAndAnalysis(sec)
	}
	embed := func(v *store.RepoView) *wire.Repository {
		access := wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: authn}
		r := d.URLs.ToRepository(v.Repo, Counts(d, v.Repo, facts[v.Repo.ID]), access)
		return &r
	}
	if parent != nil {
		out.Parent, out.Source = embed(parent), embed(source)
	}
	if template != nil {
		out.TemplateRepository = embed(template)
	}
	return out, nil
}

// OrgCreator checks that c may create repositories in org: its active
// members may; member says c is not an admin, so the organization's
// settings limit what it may create.
func (a *Service) OrgCreator(ctx context.Context, c *authz.Caller, org *model.Account) (member bool, err error) {
	m, err := a.d.Store.R().Membership(ctx, org.ID, c.User.ID)
	if errors.Is(err, model.ErrNotFound) || (err == nil && m.State != "active") {
		return false, model.Forbidden("You need admin access to the organization before adding a repository to it.")
	}
	if err != nil {
		return false, err
	}
	return m.Role != model.RoleAdmin, nil
}

// Create creates a repository owned by owner (the caller or an
// organization) as POST /user/repos and POST /orgs/{org}/repos do; GraphQL's
// createRepository runs it too.
func (a *Service) Create(ctx context.Context, c *authz.Caller, owner *model.Account, in CreateInput) (*model.Repo, error) {
	if c.User == nil {
		return nil, rest.ErrRequiresAuth
	}
	member := false
	if owner.IsOrg() {
		var err error
		if member, err = a.OrgCreator(ctx, c, owner); err != nil {
			return nil, err
		}
	} else if owner.ID != c.User.ID {
		return nil, model.Forbidden("You cannot create repositories for another user.")
	}
	return a.create(ctx, c, owner, member, in)
}

// create is both create operations: owner is the user or organization, and
// member says the caller is an organization member (not an admin) whose
// rights the organization's settings limit.
func (a *Service) create(ctx context.Context, c *authz.Caller, owner *model.Account, member bool, in CreateInput) (*model.Repo, error) {
	repo := newRepo(owner)
	var e errs
	if n, ok := in.Name.Get(); !ok || n == "" {
		e = append(e, model.FieldError{Resource: "Repository", Field: "name", Code: "missing_field"})
	}
	in.apply(repo, owner.IsOrg(), &e)
	files := initFiles{}
	files.readme, _ = in.AutoInit.Get()
	files.templates(in, &e)
	if v, ok := in.TeamID.Get(); ok && v != 0 {
		e.invalid("team_id", v) // no team exists yet
	}
	if v, ok := in.CustomProperties.Get(); ok && len(v) > 0 {
		e.custom("custom_properties", "the organization defines no custom properties")
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	scope := "public_repo"
	if repo.Private() {
		scope = "repo"
	}
	if err := deps.RequireScope(c, scope); err != nil {
		return nil, err
	}
	if member && !canMemberCreate(owner, repo.Visibility) {
		return nil, model.Forbidden("You need admin access to the organization before adding a repository to it.")
	}
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
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
		return tx.AppendEvent(ctx, "repository.created", c.User.ID, repo.ID, OrgID(owner), map[string]any{
			"action": "created", "repository_id": repo.ID, "full_name": repo.FullName(), "visibility": repo.Visibility,
		})
	})
	if errors.Is(err, store.ErrDuplicate) {
		// GitHub's message for this one differs from the usual Validation Failed.
		err := model.Custom("Repository", "name", "name already exists on this account")
		err.Message = "Repository creation failed."
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if files.any() {
		// Git work comes after the row's transaction: a failure leaves an
		// empty repository, never a half-written row.
		if err := a.initialCommit(ctx, repo, c.User, files); err != nil {
			return nil, err
		}
		now := a.d.Store.Now()
		repo.PushedAt, repo.UpdatedAt = &now, now
	}
	return repo, nil
}

func canMemberCreate(org *model.Account, v model.Visibility) bool {
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

func OrgID(owner *model.Account) int64 {
	if owner.IsOrg() {
		return owner.ID
	}
	return 0
}

// defaultBranch is a validated change of the default branch.
type defaultBranch struct {
	branch string
	git    *gitrepo.Repo
}

// newDefaultBranch checks a requested default branch as GitHub does: the
// repository must have commits and the branch must exist. nil: no change.
func (a *Service) newDefaultBranch(ctx context.Context, repo *model.Repo, in rest.Opt[string]) (*defaultBranch, error) {
	b, ok := in.Get()
	if !ok || b == repo.DefaultBranch {
		return nil, nil
	}
	g, err := a.d.GitRepo(ctx, repo)
	if err != nil {
		return nil, err
	}
	empty, err := deps.IsEmpty(ctx, g)
	if err != nil {
		return nil, err
	}
	if empty {
		return nil, model.Custom("Repository", "default_branch", "Cannot update default branch for an empty repository. Please init the repository and push first.")
	}
	notFound := !gitrepo.ValidBranchName(b)
	if !notFound {
		_, err = g.Info(ctx, "refs/heads/"+b)
		notFound = errors.Is(err, gitrepo.ErrNotFound)
	}
	if notFound {
		return nil, model.Custom("Repository", "default_branch", "The branch "+b+" was not found. Please push that ref first or create it via the Git Data API.")
	} else if err != nil {
		return nil, err
	}
	return &defaultBranch{branch: b, git: g}, nil
}

// Update changes a repository as PATCH /repos/{owner}/{repo} does; the
// caller administers found (the transport checked). GraphQL's
// archiveRepository and unarchiveRepository run it too.
func (a *Service) Update(ctx context.Context, c *authz.Caller, found *model.Repo, in UpdateInput) (*model.Repo, error) {
	head, err := a.newDefaultBranch(ctx, found, in.DefaultBranch)
	if err != nil {
		return nil, err
	}
	var repo *model.Repo
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		v, err := tx.RepoByID(ctx, found.ID, 0)
		if err != nil {
			return err
		}
		repo = v.Repo
		before := *repo
		var e errs
		if in.Name.Set && !in.Name.Null && in.Name.Value == "" {
			e.custom("name", "name cannot be blank")
		}
		in.apply(repo, repo.Owner.IsOrg(), &e)
		if before.ParentID != 0 {
			// A fork keeps its network's visibility: GitHub ignores a change.
			repo.Visibility = before.Visibility
		}
		if head != nil {
			repo.DefaultBranch = head.branch
		}
		if v, ok := in.HasPullRequests.Get(); ok && !v {
			e.custom("has_pull_requests", "pull requests cannot be disabled")
		}
		if v, ok := in.PullRequestCreationPolicy.Get(); ok && v != "all" {
			e.custom("pull_request_creation_policy", "only the policy all is supported")
		}
		security, err := tx.RepoSecurity(ctx, repo.ID)
		if err != nil {
			return err
		}
		nextSecurity := security
		if v, ok := in.SecurityAndAnalysis.Get(); ok && len(v) > 0 {
			nextSecurity = applySecurity(security, v, repo, &e)
		}
		setBool(&repo.Archived, in.Archived)
		if err := e.err(); err != nil {
			return err
		}
		if repo.Private() && !c.HasScope("repo") {
			return deps.RequireScope(c, "repo")
		}
		if err := saveSecurity(ctx, tx, c.UserID(), repo, security, nextSecurity); err != nil {
			return err
		}
		changes := changesOf(&before, repo)
		if len(changes) == 0 {
			return nil
		}
		if err := tx.UpdateRepo(ctx, repo, before.Name); err != nil {
			return err
		}
		if before.ParentID == 0 && publicPrivate(before.Visibility, repo.Visibility) {
			// Between public and private GitHub erases stars and watchers
			// and detaches the forks (made private: the public forks stay
			// one network; made public: each private fork stands alone).
			if err := tx.EraseStarsAndWatchers(ctx, repo.ID); err != nil {
				return err
			}
			if err := tx.DetachNetwork(ctx, repo.ID, repo.Visibility == model.Public); err != nil {
				return err
			}
			repo.StargazersCount, repo.SubscribersCount, repo.ForksCount = 0, 0, 0
		}
		for _, ch := range changes {
			p := map[string]any{"action": ch.action, "repository_id": repo.ID, "full_name": repo.FullName()}
			if ch.changes != nil {
				p["changes"] = ch.changes
			}
			if err := tx.AppendEvent(ctx, "repository."+ch.action, c.UserID(), repo.ID, OrgID(repo.Owner), p); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, model.Custom("Repository", "name", "name already exists on this account")
	}
	if err != nil {
		return nil, err
	}
	if head != nil && repo.DefaultBranch == head.branch {
		// HEAD follows the row once it is committed, so clones check out the
		// new default; license and language are the default branch's.
		if err := head.git.SetHead(ctx, head.branch); err != nil {
			return nil, err
		}
		a.facts.pushed(ctx, repo, c.UserID(), nil)
	}
	return repo, nil
}

// publicPrivate reports whether a visibility change goes from public to
// private or back (internal is neither).
func publicPrivate(from, to model.Visibility) bool {
	pp := func(v model.Visibility) bool { return v == model.Public || v == model.Private }
	return from != to && pp(from) && pp(to)
}

// change is one domain event of a PATCH.
type change struct {
	action  string
	changes map[string]any
}

// changesOf lists what a PATCH changed, one event per kind of change
// GitHub's repository webhook tells apart; "edited" carries the old values
// of the other settings that changed. No change, no event (and no write).
func changesOf(before, after *model.Repo) []change {
	var out []change
	from := func(v any) map[string]any { return map[string]any{"from": v} }
	if before.Name != after.Name {
		out = append(out, change{"renamed", map[string]any{"repository": map[string]any{"name": from(before.Name)}}})
	}
	if before.Archived != after.Archived {
		action := "unarchived"
		if after.Archived {
			action = "archived"
		}
		out = append(out, change{action, nil})
	}
	if before.Visibility != after.Visibility {
		action := "privatized"
		if after.Visibility == model.Public {
			action = "publicized"
		}
		out = append(out, change{action, map[string]any{"visibility": from(before.Visibility)}})
	}
	edited := map[string]any{}
	diff := func(field string, b, a any) {
		if b != a {
			edited[field] = from(b)
		}
	}
	diff("description", before.Description, after.Description)
	diff("homepage", before.Homepage, after.Homepage)
	diff("default_branch", before.DefaultBranch, after.DefaultBranch)
	diff("has_issues", before.HasIssues, after.HasIssues)
	diff("has_projects", before.HasProjects, after.HasProjects)
	diff("has_wiki", before.HasWiki, after.HasWiki)
	diff("has_discussions", before.HasDiscussions, after.HasDiscussions)
	diff("has_downloads", before.HasDownloads, after.HasDownloads)
	diff("is_template", before.IsTemplate, after.IsTemplate)
	diff("allow_squash_merge", before.AllowSquashMerge, after.AllowSquashMerge)
	diff("allow_merge_commit", before.AllowMergeCommit, after.AllowMergeCommit)
	diff("allow_rebase_merge", before.AllowRebaseMerge, after.AllowRebaseMerge)
	diff("allow_auto_merge", before.AllowAutoMerge, after.AllowAutoMerge)
	diff("allow_update_branch", before.AllowUpdateBranch, after.AllowUpdateBranch)
	diff("allow_forking", before.AllowForking, after.AllowForking)
	diff("delete_branch_on_merge", before.DeleteBranchOnMerge, after.DeleteBranchOnMerge)
	diff("web_commit_signoff_required", before.WebCommitSignoffRequired, after.WebCommitSignoffRequired)
	diff("squash_merge_commit_title", before.SquashMergeCommitTitle, after.SquashMergeCommitTitle)
	diff("squash_merge_commit_message", before.SquashMergeCommitMessage, after.SquashMergeCommitMessage)
	diff("merge_commit_title", before.MergeCommitTitle, after.MergeCommitTitle)
	diff("merge_commit_message", before.MergeCommitMessage, after.MergeCommitMessage)
	if len(edited) > 0 {
		out = append(out, change{"edited", edited})
	}
	return out
}

// Delete deletes repo as DELETE /repos/{owner}/{repo} does; the caller
// administers it (the transport checked), and a classic token needs
// delete_repo.
func (a *Service) Delete(ctx context.Context, c *authz.Caller, repo *model.Repo) error {
	if !c.HasScope("delete_repo") {
		return deps.NeedPermission(authz.Admin)
	}
	// A private repository takes its (private) forks with it, as on
	// GitHub; a public one leaves its forks to the rest of the network.
	gone := []int64{repo.ID}
	// The repository webhook's "deleted" carries each repository as it was.
	license := func(k string) *wire.LicenseSimple { return licenses.SimpleByKey(a.d.URLs, k) }
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		if repo.Private() {
			forks, err := tx.PrivateForks(ctx, repo.ID)
			if err != nil {
				return err
			}
			for _, id := range forks {
				fork, snap, err := hooks.RepoObject(ctx, tx, a.d.URLs, license, id)
				if err != nil {
					return err
				}
				if err := tx.DeleteRepo(ctx, id); err != nil {
					return err
				}
				if err := tx.AppendEvent(ctx, "repository.deleted", c.UserID(), id, OrgID(fork.Owner), map[string]any{
					"action": "deleted", "repository_id": id, "full_name": fork.FullName(), "webhook": map[string]any{"repository": snap},
				}); err != nil {
					return err
				}
				gone = append(gone, id)
			}
		}
		_, snap, err := hooks.RepoObject(ctx, tx, a.d.URLs, license, repo.ID)
		if err != nil {
			return err
		}
		if err := tx.DeleteRepo(ctx, repo.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "repository.deleted", c.UserID(), repo.ID, OrgID(repo.Owner), map[string]any{
			"action": "deleted", "repository_id": repo.ID, "full_name": repo.FullName(), "webhook": map[string]any{"repository": snap},
		})
	})
	if err != nil {
		return err
	}
	// The rows are gone; their git storage follows. Should removal fail, the
	// directory is an orphan keyed by an id no row has (a sweep may take it).
	for _, id := range gone {
		if err := a.d.Git.Remove(id); err != nil {
			slog.Warn("repository storage left behind", "repo_id", id, "err", err)
		}
	}
	return nil
}
