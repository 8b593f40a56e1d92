package graphql

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/wire"
)

// Projects (v2) of organizations and users: projectV2(number),
// projectsV2, a project's items with their content and field values. A
// page of items with all their values loads in a constant number of
// queries: the page, the fields of its projects, the values, the issues
// and pull requests.

type draftObj struct{ it *model.ProjectItem }

type projectFieldObj struct{ f *model.ProjectField }

type optionObj struct{ o model.ProjectOption }

// valueObj is a custom field's value on an item.
type valueObj struct {
	item int64
	f    *model.ProjectField
	v    *model.ProjectValue
}

func (v *valueObj) typeName() string {
	switch v.f.DataType {
	case "number":
		return "ProjectV2ItemFieldNumberValue"
	case "date":
		return "ProjectV2ItemFieldDateValue"
	}
	return "ProjectV2ItemFieldTextValue"
}

func (a *API) registerOwnerProjects() {
	a.connectionTypes("ProjectV2ItemFieldValueConnection", "ProjectV2ItemFieldValueEdge")
	svc := projects.New(a.d.Store)
	for _, typ := range []string{"User", "Organization"} {
		a.field(typ, "projectV2", func(ctx context.Context, p any, args map[string]any) (any, error) {
			n, _ := intArg(args, "number")
			pr, err := svc.Get(ctx, from(ctx).caller, p.(*model.Account), int64(n), authz.Read)
			if errors.Is(err, model.ErrNotFound) {
				return nil, notFound("Could not resolve to a ProjectV2 with the number %d.", n)
			}
			if err != nil {
				return nil, gqlError(err)
			}
			return &projectObj{p: pr}, nil
		})
		a.schema.Resolve(typ, "projectsV2", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
			return a.ownerProjects(ctx, svc, p.(*model.Account), b)
		}))
	}
	pf := func(name string, f func(p *projects.Project) any) {
		a.field("ProjectV2", name, func(_ context.Context, o any, _ map[string]any) (any, error) { return f(o.(*projectObj).p), nil })
	}
	pf("shortDescription", func(p *projects.Project) any { return strPtr(p.ShortDescription) })
	pf("readme", func(p *projects.Project) any { return strPtr(p.Readme) })
	pf("public", func(p *projects.Project) any { return p.Public })
	pf("createdAt", func(p *projects.Project) any { return p.CreatedAt })
	pf("updatedAt", func(p *projects.Project) any { return p.UpdatedAt })
	a.schema.Resolve("ProjectV2", "items", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*projectObj)
		page, err := sqlPage(b, "items")
		if err != nil {
			return nil, err
		}
		q := a.d.Store.R()
		total, err := q.CountProjectItems(ctx, o.p.ID)
		if err != nil {
			return nil, err
		}
		start, end := page(total)
		c := &connection{offset: start, total: total}
		if end > start {
			list, err := q.ProjectItemsPage(ctx, o.p.ID, end-start, start)
			if err != nil {
				return nil, err
			}
			for _, it := range list {
				c.nodes = append(c.nodes, &projectItemObj{it: it, proj: o})
			}
		}
		return c, nil
	}))
	a.connectionTypes("ProjectV2FieldConfigurationConnection", "ProjectV2FieldConfigurationEdge")
	pf("owner", func(p *projects.Project) any { return p.Owner })
	a.schema.Resolve("ProjectV2", "fields", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		list, err := a.d.Store.R().ProjectFields(ctx, p.(*projectObj).p.ID)
		if err != nil {
			return nil, err
		}
		objs := make([]*projectFieldObj, len(list))
		for i, f := range list {
			objs[i] = &projectFieldObj{f: f}
		}
		return slicePage(objs, b, "fields")
	}))
	itf := func(name string, f func(it *model.ProjectItem) any) {
		a.field("ProjectV2Item", name, func(_ context.Context, o any, _ map[string]any) (any, error) { return f(o.(*projectItemObj).it), nil })
	}
	itf("databaseId", func(it *model.ProjectItem) any { return it.ID })
	itf("isArchived", func(it *model.ProjectItem) any { return it.ArchivedAt != nil })
	itf("createdAt", func(it *model.ProjectItem) any { return it.CreatedAt })
	itf("updatedAt", func(it *model.ProjectItem) any { return it.UpdatedAt })
	itf("type", func(it *model.ProjectItem) any {
		return map[string]string{"Issue": "ISSUE", "PullRequest": "PULL_REQUEST", "DraftIssue": "DRAFT_ISSUE"}[it.ContentType]
	})
	a.schema.Resolve("ProjectV2Item", "content", a.itemContent)
	a.schema.Resolve("ProjectV2Item", "fieldValues", a.fieldValues)
	a.field("DraftIssue", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return wire.NodeID("DI", p.(*draftObj).it.ID), nil
	})
	a.field("DraftIssue", "title", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*draftObj).it.DraftTitle, nil })
	a.field("DraftIssue", "body", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*draftObj).it.DraftBody, nil })
	for _, typ := range []string{"ProjectV2ItemFieldTextValue", "ProjectV2ItemFieldNumberValue", "ProjectV2ItemFieldDateValue"} {
		a.field(typ, "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
			v := p.(*valueObj)
			return "PVTFV_" + strconv.FormatInt(v.item, 10) + "_" + strconv.FormatInt(v.f.ID, 10), nil
		})
		a.field(typ, "field", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return &projectFieldObj{f: p.(*valueObj).f}, nil
		})
	}
	a.field("ProjectV2ItemFieldTextValue", "text", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*valueObj).v.Text, nil })
	a.field("ProjectV2ItemFieldDateValue", "date", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*valueObj).v.Text, nil })
	a.field("ProjectV2ItemFieldNumberValue", "number", func(_ context.Context, p any, _ map[string]any) (any, error) {
		if n := p.(*valueObj).v.Number; n != nil {
			return *n, nil
		}
		return nil, nil
	})
	a.field("ProjectV2ItemFieldSingleSelectValue", "field", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return &projectFieldObj{f: p.(*selectValueObj).f}, nil
	})
	for _, typ := range []string{"ProjectV2Field", "ProjectV2SingleSelectField", "ProjectV2IterationField"} {
		a.field(typ, "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return wire.ProjectFieldNodeID(p.(*projectFieldObj).f), nil
		})
		a.field(typ, "databaseId", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*projectFieldObj).f.ID, nil })
		a.field(typ, "name", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*projectFieldObj).f.Name, nil })
		a.field(typ, "dataType", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return strings.ToUpper(p.(*projectFieldObj).f.DataType), nil
		})
	}
	a.field("ProjectV2SingleSelectField", "options", func(_ context.Context, p any, args map[string]any) (any, error) {
		names := map[string]bool{}
		for _, n := range stringList(args["names"]) {
			names[n] = true
		}
		out := []any{}
		for _, o := range p.(*projectFieldObj).f.Options {
			if len(names) == 0 || names[o.Name] {
				out = append(out, &optionObj{o: o})
			}
		}
		return out, nil
	})
	a.field("ProjectV2SingleSelectFieldOption", "id", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*optionObj).o.ID, nil })
	a.field("ProjectV2SingleSelectFieldOption", "name", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*optionObj).o.Name, nil })
	a.field("ProjectV2SingleSelectFieldOption", "color", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*optionObj).o.Color, nil })
}

// ownerProjects is an owner's projectsV2 page: private projects only for
// callers who may read them.
func (a *API) ownerProjects(ctx context.Context, svc *projects.Service, owner *model.Account, b *engine.Batch) (any, error) {
	page, err := sqlPage(b, "projectsV2")
	if err != nil {
		return nil, err
	}
	c := from(ctx).caller
	sub, err := svc.Subject(ctx, c, owner)
	if err != nil {
		return nil, err
	}
	probe := &model.Project{BaseRole: "read"}
	publicOnly := projects.With(c, sub, owner, probe).Perm < authz.Read
	q := a.d.Store.R()
	f := projectsFilter(b.Args)
	f.OwnerID, f.PublicOnly = owner.ID, publicOnly
	total, err := q.CountProjectsOf(ctx, f)
	if err != nil {
		return nil, err
	}
	start, end := page(total)
	conn := &connection{offset: start, total: total}
	if end > start {
		list, err := q.ProjectsPageOf(ctx, f, end-start, start)
		if err != nil {
			return nil, err
		}
		for _, p := range list {
			if pr := projects.With(c, sub, owner, p); pr.Perm >= authz.Read {
				conn.nodes = append(conn.nodes, &projectObj{p: pr})
			}
		}
	}
	return conn, nil
}

// itemContent resolves the content of a batch of items: drafts as they
// are, issues and pull requests in one load each (null where the viewer
// may not see the repository).
func (a *API) itemContent(ctx context.Context, b *engine.Batch) ([]any, error) {
	var ids []int64
	for _, p := range b.Parents {
		if it := p.(*projectItemObj).it; it.IssueID != 0 {
			ids = append(ids, it.IssueID)
		}
	}
	out := b.Values(len(b.Parents))
	if len(ids) > 0 {
		issues, err := a.issuesAndPullsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		var pullIDs []int64
		for _, o := range issues {
			if o.is.IsPull {
				pullIDs = append(pullIDs, o.is.ID)
			}
		}
		pulls, err := a.d.Store.R().PullsByIssueID(ctx, pullIDs)
		if err != nil {
			return nil, err
		}
		for i, p := range b.Parents {
			it := p.(*projectItemObj).it
			o := issues[it.IssueID]
			switch {
			case o == nil:
			case o.is.IsPull && pulls[o.is.ID] != nil:
				out[i] = a.pullOf(pulls[o.is.ID], o.repo)
			case !o.is.IsPull:
				out[i] = o
			}
		}
	}
	for i, p := range b.Parents {
		if it := p.(*projectItemObj).it; it.ContentType == "DraftIssue" {
			out[i] = &draftObj{it: it}
		}
	}
	return out, nil
}

// fieldValues resolves fieldValues for a batch of items: the fields of
// their projects in one query, their values in one per hundred items.
// Values follow the project's field order; built-in fields take their
// values from the content (Title, Labels, Assignees, Milestone,
// Repository, Reviewers, Linked pull requests).
func (a *API) fieldValues(ctx context.Context, b *engine.Batch) ([]any, error) {
	q := a.d.Store.R()
	pids := map[int64]bool{}
	items := make([]int64, len(b.Parents))
	for i, p := range b.Parents {
		it := p.(*projectItemObj).it
		items[i] = it.ID
		pids[it.ProjectID] = true
	}
	plist := make([]int64, 0, len(pids))
	for id := range pids {
		plist = append(plist, id)
	}
	fields, err := q.ProjectFieldsOf(ctx, plist)
	if err != nil {
		return nil, err
	}
	vals := map[int64][]*model.ProjectValue{}
	for start := 0; start < len(items); start += 100 {
		part, err := q.ProjectValues(ctx, items[start:min(start+100, len(items))])
		if err != nil {
			return nil, err
		}
		for k, v := range part {
			vals[k] = v
		}
	}
	// The items' issues and pull requests with their labels, assignees and
	// milestones, for the built-in fields' values.
	var issueIDs []int64
	for _, p := range b.Parents {
		if it := p.(*projectItemObj).it; it.IssueID != 0 {
			issueIDs = append(issueIDs, it.IssueID)
		}
	}
	issues := map[int64]*issueObj{}
	if len(issueIDs) > 0 {
		if issues, err = a.issuesAndPullsByID(ctx, issueIDs); err != nil {
			return nil, err
		}
		parents := make([]any, 0, len(issues))
		for _, o := range issues {
			parents = append(parents, o)
		}
		if err := a.details(ctx, parents); err != nil {
			return nil, err
		}
	}
	// The requested reviewers of the pull requests, users and teams, in
	// one query each.
	var pullIDs []int64
	for id, o := range issues {
		if o.is.IsPull {
			pullIDs = append(pullIDs, id)
		}
	}
	linked, err := a.linkedPulls(ctx, issues)
	if err != nil {
		return nil, err
	}
	reviewers := map[int64][]any{}
	if len(pullIDs) > 0 {
		users, err := q.RequestedReviewers(ctx, pullIDs)
		if err != nil {
			return nil, err
		}
		teams, err := q.RequestedTeams(ctx, pullIDs, from(ctx).caller.UserID())
		if err != nil {
			return nil, err
		}
		for _, id := range pullIDs {
			for _, u := range users[id] {
				reviewers[id] = append(reviewers[id], u)
			}
			for _, t := range teams[id] {
				reviewers[id] = append(reviewers[id], t)
			}
		}
	}
	out := b.Values(len(b.Parents))
	for i, id := range items {
		it := b.Parents[i].(*projectItemObj).it
		stored := map[int64]*model.ProjectValue{}
		for _, v := range vals[id] {
			stored[v.FieldID] = v
		}
		var list []any
		for _, f := range fields[it.ProjectID] {
			v := stored[f.ID]
			switch {
			case v == nil:
				if cv := contentValue(it, f, issues[it.IssueID], reviewers[it.IssueID], linked[it.IssueID]); cv != nil {
					list = append(list, cv)
				}
			case f.DataType == "single_select":
				for _, o := range f.Options {
					if o.ID == v.Text {
						list = append(list, &selectValueObj{item: id, f: f, opt: o})
					}
				}
			case f.DataType == "iteration" && f.Iteration != nil:
				for _, iter := range f.Iteration.Iterations {
					if iter.ID == v.Text {
						list = append(list, &contentValueObj{typ: "ProjectV2ItemFieldIterationValue", item: id, f: f, iter: iter})
					}
				}
			case f.DataType == "text" || f.DataType == "number" || f.DataType == "date":
				list = append(list, &valueObj{item: id, f: f, v: v})
			}
		}
		c, err := slicePage(list, b, "fieldValues")
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}
