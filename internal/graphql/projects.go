package graphql

import (
	"context"
	"strconv"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/wire"
)

// Projects (v2) as issues and pull requests show them: Issue.projectItems
// and PullRequest.projectItems with each item's project and its Status
// (fieldValueByName), run by the projects service (internal/projects),
// which REST's projectsV2 operations run too. A page of issues' items, their
// projects and field values load in a constant number of queries.

type projectObj struct{ p *projects.Project }

type projectItemObj struct {
	it   *model.ProjectItem
	proj *projectObj
}

// selectValueObj is a single select field's value on an item.
type selectValueObj struct {
	item int64
	f    *model.ProjectField
	opt  model.ProjectOption
}

func (a *API) registerProjects() {
	a.registerOwnerProjects()
	a.registerProjectValues()
	a.registerProjectFieldMutations()
	a.registerLocatable()
	a.registerProjectMutations()
	a.connectionTypes("ProjectV2ItemConnection", "ProjectV2ItemEdge")
	for _, typ := range []string{"Issue", "PullRequest"} {
		a.schema.Resolve(typ, "projectItems", a.projectItems)
	}
	a.field("ProjectV2Item", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return wire.NodeID("PVTI", p.(*projectItemObj).it.ID), nil
	})
	a.field("ProjectV2Item", "project", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*projectItemObj).proj, nil
	})
	a.schema.Resolve("ProjectV2Item", "fieldValueByName", a.fieldValueByName)
	a.field("ProjectV2", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return wire.NodeID("PVT", p.(*projectObj).p.ID), nil
	})
	a.field("ProjectV2", "title", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*projectObj).p.Title, nil })
	a.field("ProjectV2", "number", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*projectObj).p.Number, nil })
	a.field("ProjectV2", "closed", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*projectObj).p.ClosedAt != nil, nil
	})
	a.field("ProjectV2", "url", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*projectObj).p
		return a.d.URLs.ProjectHTMLURL(o.Owner, o.Number), nil
	})
	a.field("ProjectV2", "resourcePath", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*projectObj).p
		return a.d.URLs.ProjectHTMLURL(o.Owner, o.Number)[len(a.d.URLs.Web):], nil
	})
	a.field("ProjectV2ItemFieldSingleSelectValue", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		v := p.(*selectValueObj)
		return "PVTFSV_" + strconv.FormatInt(v.item, 10) + "_" + strconv.FormatInt(v.f.ID, 10), nil
	})
	a.field("ProjectV2ItemFieldSingleSelectValue", "name", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*selectValueObj).opt.Name, nil
	})
	a.field("ProjectV2ItemFieldSingleSelectValue", "optionId", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*selectValueObj).opt.ID, nil
	})
}

// projectItems resolves projectItems for a batch of issues and pull
// requests: their items in one query, the items' projects (those the
// viewer may read) in a few, whatever the batch's size.
func (a *API) projectItems(ctx context.Context, b *engine.Batch) ([]any, error) {
	ids := make([]int64, len(b.Parents))
	for i, p := range b.Parents {
		switch o := p.(type) {
		case *issueObj:
			ids[i] = o.is.ID
		case *pullObj:
			ids[i] = o.iss.is.ID
		}
	}
	byIssue, err := a.d.Store.R().ItemsOfIssues(ctx, ids)
	if err != nil {
		return nil, err
	}
	pids := map[int64]bool{}
	for _, list := range byIssue {
		for _, it := range list {
			pids[it.ProjectID] = true
		}
	}
	plist := make([]int64, 0, len(pids))
	for id := range pids {
		plist = append(plist, id)
	}
	visible, err := projects.New(a.d.Store).Visible(ctx, from(ctx).caller, plist)
	if err != nil {
		return nil, err
	}
	archived := true
	if v, ok := b.Args["includeArchived"].(bool); ok {
		archived = v
	}
	objs := map[int64]*projectObj{}
	out := b.Values(len(b.Parents))
	for i, id := range ids {
		var items []*projectItemObj
		for _, it := range byIssue[id] {
			p := visible[it.ProjectID]
			if p == nil || !archived && it.ArchivedAt != nil {
				continue
			}
			if objs[p.ID] == nil {
				objs[p.ID] = &projectObj{p: p}
			}
			items = append(items, &projectItemObj{it: it, proj: objs[p.ID]})
		}
		c, err := slicePage(items, b, "projectItems")
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// fieldValueByName resolves fieldValueByName for a batch of items: the
// fields of their projects and their values in one query each. Of the
// value types, hubd's schema has the single select's (Status).
func (a *API) fieldValueByName(ctx context.Context, b *engine.Batch) ([]any, error) {
	name, _ := b.Args["name"].(string)
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
	out := b.Values(len(b.Parents))
	for i, p := range b.Parents {
		it := p.(*projectItemObj).it
		var f *model.ProjectField
		for _, x := range fields[it.ProjectID] {
			if x.Name == name {
				f = x
				break
			}
		}
		if f == nil || f.DataType != "single_select" {
			continue
		}
		for _, v := range vals[it.ID] {
			if v.FieldID != f.ID {
				continue
			}
			for _, o := range f.Options {
				if o.ID == v.Text {
					out[i] = &selectValueObj{item: it.ID, f: f, opt: o}
				}
			}
		}
	}
	return out, nil
}
