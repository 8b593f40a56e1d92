// Package projects is the Projects (v2) service: projects of users and
// organizations, their fields (built-in and custom), items (issues, pull
// requests, draft issues) with their field values, views and linked
// repositories. REST (internal/api/projects) and GraphQL call it; it
// authorizes through authz (Caller.Project), validates, writes in one
// transaction and appends the projects_v2 and projects_v2_item events.
package projects

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/roles"
	"github.com/hubd/hubd/internal/store"
)

// Service is the projects service.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Project is a project with its owner and the caller's permission on it.
type Project struct {
	*model.Project
	Owner *model.Account
	Perm  authz.Permission
}

// Owner is the account login names (an organization when org is true, a
// user else): 404 when there is none of that kind.
func (s *Service) Owner(ctx context.Context, login string, org bool) (*model.Account, error) {
	a, err := s.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	if (a.Type == model.TypeOrganization) != org {
		return nil, model.ErrNotFound
	}
	return a, nil
}

// subject is what the caller's permission on owner's projects depends
// on but for the project's own flags.
func (s *Service) subject(ctx context.Context, c *authz.Caller, owner *model.Account) (authz.ProjectSubject, error) {
	sub := authz.ProjectSubject{OwnerID: owner.ID, OrgOwned: owner.Type == model.TypeOrganization}
	if sub.OrgOwned && c.User != nil && c.Kind != authz.Installation {
		a, err := roles.New(s.Store).ActorIn(ctx, owner, c.User)
		if err != nil {
			return sub, err
		}
		sub.OrgMember, sub.OrgOwner = a.Member(), a.Owner()
	}
	return sub, nil
}

func perm(c *authz.Caller, sub authz.ProjectSubject, p *model.Project) authz.Permission {
	sub.Public, sub.BaseRole = p.Public, p.BaseRole
	return c.ProjectToken(sub, c.Project(sub))
}

// Get is project number of owner for a caller who needs permission need:
// 404 when they may not see it, 403 when they see it but may not act.
func (s *Service) Get(ctx context.Context, c *authz.Caller, owner *model.Account, number int64, need authz.Permission) (*Project, error) {
	sub, err := s.subject(ctx, c, owner)
	if err != nil {
		return nil, err
	}
	p, err := s.Store.R().ProjectByNumber(ctx, owner.ID, number)
	if err != nil {
		return nil, err
	}
	return check(c, &Project{Project: p, Owner: owner, Perm: perm(c, sub, p)}, need)
}

// ByID is a project by id, as Get.
func (s *Service) ByID(ctx context.Context, c *authz.Caller, id int64, need authz.Permission) (*Project, error) {
	p, err := s.Store.R().ProjectByID(ctx, id)
	if err != nil {
		return nil, err
	}
	owner, err := s.Store.R().AccountByID(ctx, p.OwnerID)
	if err != nil {
		return nil, err
	}
	sub, err := s.subject(ctx, c, owner)
	if err != nil {
		return nil, err
	}
	return check(c, &Project{Project: p, Owner: owner, Perm: perm(c, sub, p)}, need)
}

func check(c *authz.Caller, p *Project, need authz.Permission) (*Project, error) {
	if p.Perm < authz.Read {
		return nil, model.ErrNotFound
	}
	if p.Perm < need {
		if c.Kind == authz.ClassicPAT || c.Kind == authz.OAuthApp {
			if !c.HasScope("project") {
				return nil, model.Forbidden("Resource not accessible by personal access token")
			}
		}
		return nil, model.Forbidden("You do not have permission to update this project.")
	}
	return p, nil
}

// List pages through owner's projects the caller may see: private
// projects are left out for callers who may not read them.
func (s *Service) List(ctx context.Context, c *authz.Caller, owner *model.Account, f store.ProjectQuery) ([]*Project, bool, error) {
	sub, err := s.subject(ctx, c, owner)
	if err != nil {
		return nil, false, err
	}
	probe := &model.Project{BaseRole: "none"}
	// Whether the caller reads private projects depends on the base role
	// of each; members with a base role of none read only public ones.
	f.OwnerID = owner.ID
	f.PublicOnly = perm(c, sub, probe) < authz.Read && !(sub.OrgMember)
	list, more, err := s.Store.R().ListProjects(ctx, f)
	if err != nil {
		return nil, false, err
	}
	var out []*Project
	for _, p := range list {
		if pp := perm(c, sub, p); pp >= authz.Read {
			out = append(out, &Project{Project: p, Owner: owner, Perm: pp})
		}
	}
	return out, more, nil
}

// Input is a project's editable attributes; nil leaves one alone.
type Input struct {
	Title            *string
	ShortDescription *string
	Readme           *string
	Public           *bool
	Closed           *bool
}

// builtins are the fields every project starts with, in order.
var builtins = []struct{ name, typ string }{
	{"Title", "title"}, {"Assignees", "assignees"}, {"Status", "single_select"}, {"Labels", "labels"},
	{"Linked pull requests", "linked_pull_requests"}, {"Milestone", "milestone"}, {"Repository", "repository"},
	{"Reviewers", "reviewers"}, {"Parent issue", "parent_issue"}, {"Sub-issues progress", "sub_issues_progress"},
}

// Builtin reports whether a data type is one of the fields projects come
// with, whose values come from the content (not set on the item).
func Builtin(dataType string) bool {
	switch dataType {
	case "title", "assignees", "labels", "linked_pull_requests", "milestone", "repository", "reviewers", "parent_issue", "sub_issues_progress", "issue_type":
		return true
	}
	return false
}

func validTitle(t string) error {
	if strings.TrimSpace(t) == "" {
		return model.Invalid("ProjectV2", "title", "missing_field")
	}
	if utf8.RuneCountInString(t) > 256 {
		return model.Custom("ProjectV2", "title", "Title is too long (maximum is 256 characters)")
	}
	return nil
}

// Create makes a project of owner with its built-in fields (Status with
// Todo, In Progress and Done) and a first table view. Users create their
// own projects; organization members create the organization's (owners
// and, as on GitHub by default, members).
func (s *Service) Create(ctx context.Context, c *authz.Caller, owner *model.Account, title string) (*Project, error) {
	sub, err := s.mayCreate(ctx, c, owner, title)
	if err != nil {
		return nil, err
	}
	p := &model.Project{OwnerID: owner.ID, CreatorID: c.User.ID, Title: title, BaseRole: "none"}
	if sub.OrgOwned {
		p.BaseRole = "write"
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateProject(ctx, p); err != nil {
			return err
		}
		for _, b := range builtins {
			f := &model.ProjectField{ProjectID: p.ID, Name: b.name, DataType: b.typ}
			if b.name == "Status" {
				f.Options = []model.ProjectOption{
					{ID: optionID(), Name: "Todo", Color: "GREEN", Description: "This item hasn't been started"},
					{ID: optionID(), Name: "In Progress", Color: "YELLOW", Description: "This is actively being worked on"},
					{ID: optionID(), Name: "Done", Color: "PURPLE", Description: "This has been completed"},
				}
			}
			if err := tx.CreateProjectField(ctx, f); err != nil {
				return err
			}
		}
		if err := tx.CreateProjectView(ctx, &model.ProjectView{ProjectID: p.ID, Name: "View 1", Layout: "table", CreatorID: c.User.ID}); err != nil {
			return err
		}
		return s.event(ctx, tx, c, owner, "projects_v2", "created", projectPayload(p))
	})
	if err != nil {
		return nil, err
	}
	return &Project{Project: p, Owner: owner, Perm: authz.Admin}, nil
}

// mayCreate checks that c may create a project titled title for owner.
func (s *Service) mayCreate(ctx context.Context, c *authz.Caller, owner *model.Account, title string) (authz.ProjectSubject, error) {
	if c.User == nil || c.Kind == authz.Installation {
		return authz.ProjectSubject{}, model.Forbidden("Resource not accessible by integration")
	}
	sub, err := s.subject(ctx, c, owner)
	if err != nil {
		return sub, err
	}
	may := sub.OrgOwner || sub.OrgMember || !sub.OrgOwned && owner.ID == c.User.ID || c.SiteAdmin()
	if !may {
		if sub.OrgOwned {
			return sub, model.ErrNotFound
		}
		return sub, model.Forbidden("You do not have permission to create projects for this owner.")
	}
	if c.ProjectToken(sub, authz.Admin) < authz.Write {
		return sub, model.Forbidden("Resource not accessible by personal access token")
	}
	return sub, validTitle(title)
}

// Copy copies project src (which the caller may read) to owner as a new
// project titled title: its description, readme, fields (with their
// options and iterations), views and, with drafts, its draft issues; not
// its issues, pull requests or field values, as GitHub copies. One
// transaction.
func (s *Service) Copy(ctx context.Context, c *authz.Caller, src *Project, owner *model.Account, title string, drafts bool) (*Project, error) {
	sub, err := s.mayCreate(ctx, c, owner, title)
	if err != nil {
		return nil, err
	}
	p := &model.Project{OwnerID: owner.ID, CreatorID: c.User.ID, Title: title, ShortDescription: src.ShortDescription, Readme: src.Readme, BaseRole: "none"}
	if sub.OrgOwned {
		p.BaseRole = "write"
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		fields, err := tx.ProjectFields(ctx, src.ID)
		if err != nil {
			return err
		}
		views, err := tx.ProjectViews(ctx, src.ID)
		if err != nil {
			return err
		}
		if err := tx.CreateProject(ctx, p); err != nil {
			return err
		}
		ids := map[int64]int64{}
		for _, f := range fields {
			nf := &model.ProjectField{ProjectID: p.ID, Name: f.Name, DataType: f.DataType}
			for _, o := range f.Options {
				o.ID = optionID()
				nf.Options = append(nf.Options, o)
			}
			if f.Iteration != nil {
				cfg := *f.Iteration
				cfg.Iterations = nil
				for _, it := range f.Iteration.Iterations {
					it.ID = optionID()
					cfg.Iterations = append(cfg.Iterations, it)
				}
				nf.Iteration = &cfg
			}
			if err := tx.CreateProjectField(ctx, nf); err != nil {
				return err
			}
			ids[f.ID] = nf.ID
		}
		mapIDs := func(list []int64) []int64 {
			var out []int64
			for _, id := range list {
				if n, ok := ids[id]; ok {
					out = append(out, n)
				}
			}
			return out
		}
		for _, v := range views {
			nv := &model.ProjectView{ProjectID: p.ID, Name: v.Name, Layout: v.Layout, Filter: v.Filter, CreatorID: c.User.ID,
				VisibleFields: mapIDs(v.VisibleFields), GroupBy: mapIDs(v.GroupBy), VerticalGroupBy: mapIDs(v.VerticalGroupBy)}
			for _, sb := range v.SortBy {
				var id int64
				switch x := sb[0].(type) {
				case int64:
					id = x
				case float64:
					id = int64(x)
				}
				if ids[id] != 0 {
					nv.SortBy = append(nv.SortBy, [2]any{ids[id], sb[1]})
				}
			}
			if err := tx.CreateProjectView(ctx, nv); err != nil {
				return err
			}
		}
		if drafts {
			items, err := tx.ProjectItemsPage(ctx, src.ID, 1<<30, 0)
			if err != nil {
				return err
			}
			for _, it := range items {
				if it.ContentType != "DraftIssue" {
					continue
				}
				d := &model.ProjectItem{ProjectID: p.ID, ContentType: "DraftIssue", DraftTitle: it.DraftTitle, DraftBody: it.DraftBody, CreatorID: c.User.ID}
				if err := tx.AddProjectItem(ctx, d); err != nil {
					return err
				}
			}
		}
		return s.event(ctx, tx, c, owner, "projects_v2", "created", projectPayload(p))
	})
	if err != nil {
		return nil, err
	}
	return &Project{Project: p, Owner: owner, Perm: authz.Admin}, nil
}

// Update edits a project (admin).
func (s *Service) Update(ctx context.Context, c *authz.Caller, p *Project, in Input) error {
	if p.Perm < authz.Admin {
		return model.Forbidden("You do not have permission to update this project.")
	}
	if in.Title != nil {
		if err := validTitle(*in.Title); err != nil {
			return err
		}
		p.Title = *in.Title
	}
	if in.ShortDescription != nil {
		p.ShortDescription = *in.ShortDescription
	}
	if in.Readme != nil {
		p.Readme = *in.Readme
	}
	if in.Public != nil {
		p.Public = *in.Public
	}
	action := "edited"
	if in.Closed != nil && *in.Closed != (p.ClosedAt != nil) {
		if *in.Closed {
			now := s.Store.Now()
			p.ClosedAt, action = &now, "closed"
		} else {
			p.ClosedAt, action = nil, "reopened"
		}
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateProject(ctx, p.Project); err != nil {
			return err
		}
		return s.event(ctx, tx, c, p.Owner, "projects_v2", action, projectPayload(p.Project))
	})
}

// Delete deletes a project (admin).
func (s *Service) Delete(ctx context.Context, c *authz.Caller, p *Project) error {
	if p.Perm < authz.Admin {
		return model.Forbidden("You do not have permission to delete this project.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.event(ctx, tx, c, p.Owner, "projects_v2", "deleted", projectPayload(p.Project)); err != nil {
			return err
		}
		return tx.DeleteProject(ctx, p.ID)
	})
}

// event appends a projects_v2 or projects_v2_item event of the owner
// (an organization's events reach its webhooks).
func (s *Service) event(ctx context.Context, tx store.Q, c *authz.Caller, owner *model.Account, typ, action string, payload map[string]any) error {
	payload["action"] = action
	var orgID int64
	if owner.Type == model.TypeOrganization {
		orgID = owner.ID
	}
	payload["owner_id"] = owner.ID
	return tx.AppendEvent(ctx, typ+"."+action, c.UserID(), 0, orgID, payload)
}

var errNoContent = errors.New("projects: item has no content")

// projectPayload is a projects_v2 event's payload: the project as it is
// after the change (a deleted one's webhook needs the copy).
func projectPayload(p *model.Project) map[string]any {
	return map[string]any{"project_id": p.ID, "webhook": map[string]any{"project": *p}}
}
