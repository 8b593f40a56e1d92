package graphql

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
)

// The Projects (v2) mutations, run by the projects service as REST's
// projectsV2 operations are.

// projectPayload is the payload of the project mutations.
type projectPayload struct {
	clientMutationID any
	project          *projectObj
	item             *projectItemObj
	deletedID        string
}

func notResolved(id string) *engine.Error {
	return notFound("Could not resolve to a node with the global id of '%s'", id)
}

// projectByNodeID is the project of a global id the caller may read (and
// act on with need).
func (a *API) projectByNodeID(ctx context.Context, svc *projects.Service, id string, need authz.Permission) (*projectObj, error) {
	prefix, n, ok := decodeNodeID(id)
	if !ok || prefix != "PVT" {
		return nil, notResolved(id)
	}
	p, err := svc.ByID(ctx, from(ctx).caller, n, need)
	if err != nil {
		if errors.Is(err, model.ErrNotFound) {
			return nil, notResolved(id)
		}
		return nil, gqlError(err)
	}
	return &projectObj{p: p}, nil
}

// itemByNodeID is an item of project p.
func (a *API) itemByNodeID(ctx context.Context, p *projectObj, id string) (*projectItemObj, error) {
	prefix, n, ok := decodeNodeID(id)
	if !ok || prefix != "PVTI" {
		return nil, notResolved(id)
	}
	it, err := a.d.Store.R().ProjectItemByID(ctx, p.p.ID, n)
	if err != nil {
		return nil, notResolved(id)
	}
	return &projectItemObj{it: it, proj: p}, nil
}

func (a *API) registerProjectMutations() {
	svc := projects.New(a.d.Store)
	in := func(args map[string]any) map[string]any { m, _ := args["input"].(map[string]any); return m }
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	optStr := func(m map[string]any, k string) *string {
		if s, ok := m[k].(string); ok {
			return &s
		}
		return nil
	}
	a.field("Mutation", "createProjectV2", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		if str(m, "teamId") != "" {
			return nil, engine.Errorf("UNPROCESSABLE", "Projects can't be linked to teams on this server.")
		}
		prefix, ownerID, ok := decodeNodeID(str(m, "ownerId"))
		if !ok || prefix != "U" && prefix != "O" {
			return nil, notResolved(str(m, "ownerId"))
		}
		owner, err := a.d.Store.R().AccountByID(ctx, ownerID)
		if err != nil {
			return nil, notResolved(str(m, "ownerId"))
		}
		var repo *repoObj
		if rid := str(m, "repositoryId"); rid != "" {
			if repo, err = a.repoByNodeID(ctx, rid); err != nil {
				return nil, err
			}
		}
		c := from(ctx).caller
		p, err := svc.Create(ctx, c, owner, str(m, "title"))
		if err != nil {
			return nil, gqlError(err)
		}
		if repo != nil {
			if err := svc.LinkRepo(ctx, c, p, repo.v.Repo, true); err != nil {
				return nil, gqlError(err)
			}
		}
		return &projectPayload{clientMutationID: m["clientMutationId"], project: &projectObj{p: p}}, nil
	})
	a.field("Mutation", "updateProjectV2", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Admin)
		if err != nil {
			return nil, err
		}
		input := projects.Input{Title: optStr(m, "title"), ShortDescription: optStr(m, "shortDescription"), Readme: optStr(m, "readme")}
		if b, ok := m["public"].(bool); ok {
			input.Public = &b
		}
		if b, ok := m["closed"].(bool); ok {
			input.Closed = &b
		}
		if err := svc.Update(ctx, from(ctx).caller, p.p, input); err != nil {
			return nil, gqlError(err)
		}
		return &projectPayload{clientMutationID: m["clientMutationId"], project: p}, nil
	})
	a.field("Mutation", "deleteProjectV2", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Admin)
		if err != nil {
			return nil, err
		}
		if err := svc.Delete(ctx, from(ctx).caller, p.p); err != nil {
			return nil, gqlError(err)
		}
		return &projectPayload{clientMutationID: m["clientMutationId"], project: p}, nil
	})
	a.field("Mutation", "addProjectV2DraftIssue", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		if len(stringList(m["assigneeIds"])) > 0 {
			return nil, engine.Errorf("UNPROCESSABLE", "Draft issues can't have assignees on this server.")
		}
		p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Write)
		if err != nil {
			return nil, err
		}
		it, err := svc.AddDraft(ctx, from(ctx).caller, p.p, str(m, "title"), str(m, "body"))
		if err != nil {
			return nil, gqlError(err)
		}
		return &projectPayload{clientMutationID: m["clientMutationId"], item: &projectItemObj{it: it, proj: p}}, nil
	})
	a.field("Mutation", "addProjectV2ItemById", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Write)
		if err != nil {
			return nil, err
		}
		cid := str(m, "contentId")
		prefix, n, ok := decodeNodeID(cid)
		if !ok || prefix != "I" && prefix != "PR" {
			return nil, notResolved(cid)
		}
		c := from(ctx).caller
		is, _, err := svc.FindIssue(ctx, c, n, "", "", 0, prefix == "PR")
		if err != nil {
			return nil, notResolved(cid)
		}
		it, err := svc.AddIssue(ctx, c, p.p, is)
		if err != nil {
			return nil, gqlError(err)
		}
		return &projectPayload{clientMutationID: m["clientMutationId"], item: &projectItemObj{it: it, proj: p}}, nil
	})
	setValue := func(clear bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			m := in(args)
			p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Write)
			if err != nil {
				return nil, err
			}
			item, err := a.itemByNodeID(ctx, p, str(m, "itemId"))
			if err != nil {
				return nil, err
			}
			fid := str(m, "fieldId")
			prefix, n, ok := decodeNodeID(fid)
			if !ok || prefix != "PVTF" && prefix != "PVTSSF" && prefix != "PVTIF" {
				return nil, notResolved(fid)
			}
			v := projects.Value{FieldID: n}
			if !clear {
				val, _ := m["value"].(map[string]any)
				set := 0
				for _, k := range []string{"text", "number", "date", "singleSelectOptionId", "iterationId"} {
					if x, ok := val[k]; ok && x != nil {
						set++
						switch num := x.(type) {
						case json.Number:
							x, _ = num.Float64()
						case int64:
							x = float64(num)
						case int:
							x = float64(num)
						}
						v.Value = x
					}
				}
				if set != 1 {
					return nil, engine.Errorf("UNPROCESSABLE", "Exactly one of text, number, date, singleSelectOptionId and iterationId must be given.")
				}
			}
			if err := svc.SetValues(ctx, from(ctx).caller, p.p, item.it, []projects.Value{v}); err != nil {
				return nil, gqlError(err)
			}
			return &projectPayload{clientMutationID: m["clientMutationId"], item: item}, nil
		}
	}
	a.field("Mutation", "updateProjectV2ItemFieldValue", setValue(false))
	a.field("Mutation", "clearProjectV2ItemFieldValue", setValue(true))
	a.field("Mutation", "deleteProjectV2Item", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Write)
		if err != nil {
			return nil, err
		}
		item, err := a.itemByNodeID(ctx, p, str(m, "itemId"))
		if err != nil {
			return nil, err
		}
		if err := svc.DeleteItem(ctx, from(ctx).caller, p.p, item.it); err != nil {
			return nil, gqlError(err)
		}
		return &projectPayload{clientMutationID: m["clientMutationId"], deletedID: str(m, "itemId")}, nil
	})
	a.field("Mutation", "archiveProjectV2Item", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Write)
		if err != nil {
			return nil, err
		}
		item, err := a.itemByNodeID(ctx, p, str(m, "itemId"))
		if err != nil {
			return nil, err
		}
		if err := svc.Archive(ctx, from(ctx).caller, p.p, item.it, true); err != nil {
			return nil, gqlError(err)
		}
		return &projectPayload{clientMutationID: m["clientMutationId"], item: item}, nil
	})
	pay := func(typ, field string, f func(p *projectPayload) any) {
		a.field(typ, field, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*projectPayload)), nil })
	}
	for _, typ := range []string{"CreateProjectV2Payload", "UpdateProjectV2Payload", "DeleteProjectV2Payload", "CopyProjectV2Payload", "AddProjectV2DraftIssuePayload",
		"AddProjectV2ItemByIdPayload", "UpdateProjectV2ItemFieldValuePayload", "ClearProjectV2ItemFieldValuePayload", "DeleteProjectV2ItemPayload", "ArchiveProjectV2ItemPayload"} {
		pay(typ, "clientMutationId", func(p *projectPayload) any { return p.clientMutationID })
	}
	for _, typ := range []string{"CreateProjectV2Payload", "UpdateProjectV2Payload", "DeleteProjectV2Payload", "CopyProjectV2Payload"} {
		pay(typ, "projectV2", func(p *projectPayload) any { return p.project })
	}
	pay("AddProjectV2DraftIssuePayload", "projectItem", func(p *projectPayload) any { return p.item })
	pay("AddProjectV2ItemByIdPayload", "item", func(p *projectPayload) any { return p.item })
	pay("ArchiveProjectV2ItemPayload", "item", func(p *projectPayload) any { return p.item })
	pay("UpdateProjectV2ItemFieldValuePayload", "projectV2Item", func(p *projectPayload) any { return p.item })
	pay("ClearProjectV2ItemFieldValuePayload", "projectV2Item", func(p *projectPayload) any { return p.item })
	pay("DeleteProjectV2ItemPayload", "deletedItemId", func(p *projectPayload) any { return p.deletedID })
}
