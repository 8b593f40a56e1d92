package projects

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Loaded is a page of items with everything their answers show, loaded
// in a constant number of queries whatever the page size: the project's
// fields, the items' values, their issues and pull requests (those the
// caller may see), repositories and users.
type Loaded struct {
	Items  []*model.ProjectItem
	Fields []*model.ProjectField
	Values map[int64][]*model.ProjectValue
	Issues map[int64]*model.Issue // by issue id; content the caller may not see is absent
	Repos  map[int64]*model.Repo
	Users  map[int64]*model.Account
}

// Load loads what a page of items of a project shows.
func (s *Service) Load(ctx context.Context, c *authz.Caller, p *Project, items []*model.ProjectItem) (*Loaded, error) {
	q := s.Store.R()
	l := &Loaded{Items: items, Issues: map[int64]*model.Issue{}, Repos: map[int64]*model.Repo{}}
	var err error
	if l.Fields, err = q.ProjectFields(ctx, p.ID); err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(items))
	var issueIDs []int64
	userIDs := map[int64]bool{p.CreatorID: true}
	for _, it := range items {
		ids = append(ids, it.ID)
		userIDs[it.CreatorID] = true
		if it.IssueID != 0 {
			issueIDs = append(issueIDs, it.IssueID)
		}
	}
	if l.Values, err = q.ProjectValues(ctx, ids); err != nil {
		return nil, err
	}
	if err := s.loadIssues(ctx, c, issueIDs, l); err != nil {
		return nil, err
	}
	users := make([]int64, 0, len(userIDs))
	for id := range userIDs {
		users = append(users, id)
	}
	if l.Users, err = q.AccountsByID(ctx, users); err != nil {
		return nil, err
	}
	return l, nil
}

// loadIssues loads issues (with their details) and repositories, keeping
// those in repositories the caller may read.
func (s *Service) loadIssues(ctx context.Context, c *authz.Caller, ids []int64, l *Loaded) error {
	if len(ids) == 0 {
		return nil
	}
	q := s.Store.R()
	list, err := q.DetailedIssues(ctx, ids)
	if err != nil {
		return err
	}
	repoIDs := map[int64]bool{}
	for _, is := range list {
		repoIDs[is.RepoID] = true
	}
	rids := make([]int64, 0, len(repoIDs))
	for id := range repoIDs {
		rids = append(rids, id)
	}
	views, err := q.ReposByID(ctx, rids, c.UserID())
	if err != nil {
		return err
	}
	for _, v := range views {
		if authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
			l.Repos[v.Repo.ID] = v.Repo
		}
	}
	for _, is := range list {
		if l.Repos[is.RepoID] != nil {
			l.Issues[is.ID] = is
		}
	}
	return nil
}

// Items pages through a project's items.
func (s *Service) Items(ctx context.Context, p *Project, f store.ItemQuery) ([]*model.ProjectItem, bool, error) {
	f.ProjectID = p.ID
	return s.Store.R().ListProjectItems(ctx, f)
}

// FindIssue is the issue (or pull request, pull true) an item names, by
// id or by repository and number, in a repository the caller may read:
// 404 otherwise; 422 when it is of the other kind.
func (s *Service) FindIssue(ctx context.Context, c *authz.Caller, id int64, owner, repo string, number int64, pull bool) (*model.Issue, *model.Repo, error) {
	q := s.Store.R()
	var is *model.Issue
	var v *store.RepoView
	var err error
	if id != 0 {
		if is, err = q.IssueByID(ctx, id); err != nil {
			return nil, nil, err
		}
		views, err := q.ReposByID(ctx, []int64{is.RepoID}, c.UserID())
		if err != nil {
			return nil, nil, err
		}
		if v = views[is.RepoID]; v == nil {
			return nil, nil, model.ErrNotFound
		}
	} else {
		if v, err = q.RepoByName(ctx, owner, repo, c.UserID()); err != nil {
			return nil, nil, err
		}
		if is, err = q.IssueByNumber(ctx, v.Repo.ID, number); err != nil {
			return nil, nil, err
		}
	}
	if !authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
		return nil, nil, model.ErrNotFound
	}
	if is.IsPull != pull {
		want := "an issue"
		if pull {
			want = "a pull request"
		}
		return nil, nil, model.Custom("ProjectV2Item", "type", "The content is not "+want+".")
	}
	return is, v.Repo, nil
}

// Visible loads the projects of ids the caller may read, with their
// owners: one query for the projects, one for the owners, and the
// caller's organization roles once per owning organization.
func (s *Service) Visible(ctx context.Context, c *authz.Caller, ids []int64) (map[int64]*Project, error) {
	q := s.Store.R()
	ps, err := q.ProjectsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	owners := map[int64]bool{}
	for _, p := range ps {
		owners[p.OwnerID] = true
	}
	oids := make([]int64, 0, len(owners))
	for id := range owners {
		oids = append(oids, id)
	}
	accs, err := q.AccountsByID(ctx, oids)
	if err != nil {
		return nil, err
	}
	subs := map[int64]authz.ProjectSubject{}
	for id, acc := range accs {
		if subs[id], err = s.subject(ctx, c, acc); err != nil {
			return nil, err
		}
	}
	out := map[int64]*Project{}
	for id, p := range ps {
		owner := accs[p.OwnerID]
		if owner == nil {
			continue
		}
		if pp := perm(c, subs[p.OwnerID], p); pp >= authz.Read {
			out[id] = &Project{Project: p, Owner: owner, Perm: pp}
		}
	}
	return out, nil
}

// Subject is what the caller's permission on owner's projects depends on
// but for each project's own flags (With).
func (s *Service) Subject(ctx context.Context, c *authz.Caller, owner *model.Account) (authz.ProjectSubject, error) {
	return s.subject(ctx, c, owner)
}

// With is p with owner and the caller's permission under sub.
func With(c *authz.Caller, sub authz.ProjectSubject, owner *model.Account, p *model.Project) *Project {
	return &Project{Project: p, Owner: owner, Perm: perm(c, sub, p)}
}
