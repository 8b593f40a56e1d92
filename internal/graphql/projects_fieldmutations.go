package graphql

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/wire"
)

// The Projects (v2) mutations on fields, draft issues, archived items and
// linked repositories (gh project field-create, field-delete, item-edit,
// item-archive --undo, link, unlink).

type fieldPayload struct {
	clientMutationID any
	field            *projectFieldObj
	draft            *draftObj
	item             *projectItemObj
	repo             *repoObj
}

// fieldByNodeID is a field (PVTF_, PVTSSF_, PVTIF_) with its project, the
// caller needing need on the project.
func (a *API) fieldByNodeID(ctx context.Context, svc *projects.Service, id string, need authz.Permission) (*projectObj, *model.ProjectField, error) {
	prefix, n, ok := decodeNodeID(id)
	if !ok || prefix != "PVTF" && prefix != "PVTSSF" && prefix != "PVTIF" {
		return nil, nil, notResolved(id)
	}
	f, err := a.d.Store.R().ProjectFieldAnyProject(ctx, n)
	if err != nil {
		return nil, nil, notResolved(id)
	}
	p, err := svc.ByID(ctx, from(ctx).caller, f.ProjectID, need)
	if err != nil {
		if errors.Is(err, model.ErrNotFound) {
			return nil, nil, notResolved(id)
		}
		return nil, nil, gqlError(err)
	}
	return &projectObj{p: p}, f, nil
}

func (a *API) registerProjectFieldMutations() {
	svc := projects.New(a.d.Store)
	in := func(args map[string]any) map[string]any { m, _ := args["input"].(map[string]any); return m }
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	a.field("Mutation", "createProjectV2Field", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Write)
		if err != nil {
			return nil, err
		}
		fin := projects.FieldInput{Name: str(m, "name"), DataType: strings.ToLower(str(m, "dataType"))}
		if opts, ok := m["singleSelectOptions"].([]any); ok {
			for _, o := range opts {
				om, _ := o.(map[string]any)
				fin.Options = append(fin.Options, model.ProjectOption{Name: str(om, "name"), Color: str(om, "color"), Description: str(om, "description")})
			}
		}
		if cfg, ok := m["iterationConfiguration"].(map[string]any); ok {
			dur, _ := intArg(cfg, "duration")
			it := &model.ProjectIterations{Duration: dur, StartDay: 1}
			if list, ok := cfg["iterations"].([]any); ok {
				for _, x := range list {
					xm, _ := x.(map[string]any)
					d, _ := intArg(xm, "duration")
					it.Iterations = append(it.Iterations, model.ProjectIteration{Title: str(xm, "title"), StartDate: str(xm, "startDate"), Duration: d})
				}
			}
			fin.Iteration = it
		} else if fin.DataType == "iteration" {
			// GitHub starts an iteration field with three two-week
			// iterations from this week's Monday.
			fin.Iteration = defaultIterations()
		}
		f, err := svc.CreateField(ctx, from(ctx).caller, p.p, fin)
		if err != nil {
			return nil, gqlError(err)
		}
		return &fieldPayload{clientMutationID: m["clientMutationId"], field: &projectFieldObj{f: f}}, nil
	})
	a.field("Mutation", "deleteProjectV2Field", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		p, f, err := a.fieldByNodeID(ctx, svc, str(m, "fieldId"), authz.Write)
		if err != nil {
			return nil, err
		}
		if err := svc.DeleteField(ctx, from(ctx).caller, p.p, f); err != nil {
			return nil, gqlError(err)
		}
		return &fieldPayload{clientMutationID: m["clientMutationId"], field: &projectFieldObj{f: f}}, nil
	})
	a.field("Mutation", "updateProjectV2DraftIssue", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		id := str(m, "draftIssueId")
		if len(stringList(m["assigneeIds"])) > 0 {
			return nil, engine.Errorf("UNPROCESSABLE", "Draft issues can't have assignees on this server.")
		}
		prefix, n, ok := decodeNodeID(id)
		if !ok || prefix != "DI" {
			return nil, notResolved(id)
		}
		items, err := a.d.Store.R().ProjectItemsByID(ctx, []int64{n})
		if err != nil {
			return nil, err
		}
		it := items[n]
		if it == nil || it.ContentType != "DraftIssue" {
			return nil, notResolved(id)
		}
		p, err := a.projectByNodeID(ctx, svc, wire.NodeID("PVT", it.ProjectID), authz.Read)
		if err != nil {
			return nil, notResolved(id)
		}
		var title, body *string
		if s, ok := m["title"].(string); ok {
			title = &s
		}
		if s, ok := m["body"].(string); ok {
			body = &s
		}
		if err := svc.EditDraft(ctx, from(ctx).caller, p.p, it, title, body); err != nil {
			return nil, gqlError(err)
		}
		if items, err = a.d.Store.R().ProjectItemsByID(ctx, []int64{n}); err != nil || items[n] == nil {
			return nil, notResolved(id)
		}
		return &fieldPayload{clientMutationID: m["clientMutationId"], draft: &draftObj{it: items[n]}}, nil
	})
	a.field("Mutation", "unarchiveProjectV2Item", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Write)
		if err != nil {
			return nil, err
		}
		item, err := a.itemByNodeID(ctx, p, str(m, "itemId"))
		if err != nil {
			return nil, err
		}
		if err := svc.Archive(ctx, from(ctx).caller, p.p, item.it, false); err != nil {
			return nil, gqlError(err)
		}
		return &fieldPayload{clientMutationID: m["clientMutationId"], item: item}, nil
	})
	link := func(on bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			m := in(args)
			p, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Write)
			if err != nil {
				return nil, err
			}
			repo, err := a.repoByNodeID(ctx, str(m, "repositoryId"))
			if err != nil {
				return nil, err
			}
			if err := svc.LinkRepo(ctx, from(ctx).caller, p.p, repo.v.Repo, on); err != nil {
				return nil, gqlError(err)
			}
			return &fieldPayload{clientMutationID: m["clientMutationId"], repo: repo}, nil
		}
	}
	a.field("Query", "resource", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		raw, _ := args["url"].(string)
		return a.resource(ctx, raw)
	})
	a.field("Mutation", "copyProjectV2", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		m := in(args)
		src, err := a.projectByNodeID(ctx, svc, str(m, "projectId"), authz.Read)
		if err != nil {
			return nil, err
		}
		prefix, ownerID, ok := decodeNodeID(str(m, "ownerId"))
		if !ok || prefix != "U" && prefix != "O" {
			return nil, notResolved(str(m, "ownerId"))
		}
		owner, err := a.d.Store.R().AccountByID(ctx, ownerID)
		if err != nil {
			return nil, notResolved(str(m, "ownerId"))
		}
		drafts, _ := m["includeDraftIssues"].(bool)
		p, err := svc.Copy(ctx, from(ctx).caller, src.p, owner, str(m, "title"), drafts)
		if err != nil {
			if errors.Is(err, model.ErrNotFound) {
				return nil, notResolved(str(m, "ownerId"))
			}
			return nil, gqlError(err)
		}
		return &projectPayload{clientMutationID: m["clientMutationId"], project: &projectObj{p: p}}, nil
	})
	a.field("Mutation", "linkProjectV2ToRepository", link(true))
	a.field("Mutation", "unlinkProjectV2FromRepository", link(false))
	pay := func(typ, field string, f func(p *fieldPayload) any) {
		a.field(typ, field, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*fieldPayload)), nil })
	}
	for _, typ := range []string{"CreateProjectV2FieldPayload", "DeleteProjectV2FieldPayload", "UpdateProjectV2DraftIssuePayload",
		"UnarchiveProjectV2ItemPayload", "LinkProjectV2ToRepositoryPayload", "UnlinkProjectV2FromRepositoryPayload"} {
		pay(typ, "clientMutationId", func(p *fieldPayload) any { return p.clientMutationID })
	}
	pay("CreateProjectV2FieldPayload", "projectV2Field", func(p *fieldPayload) any { return p.field })
	pay("DeleteProjectV2FieldPayload", "projectV2Field", func(p *fieldPayload) any { return p.field })
	pay("UpdateProjectV2DraftIssuePayload", "draftIssue", func(p *fieldPayload) any { return p.draft })
	pay("UnarchiveProjectV2ItemPayload", "item", func(p *fieldPayload) any { return p.item })
	pay("LinkProjectV2ToRepositoryPayload", "repository", func(p *fieldPayload) any { return p.repo })
	pay("UnlinkProjectV2FromRepositoryPayload", "repository", func(p *fieldPayload) any { return p.repo })
}

// defaultIterations is a new iteration field's configuration: three
// two-week iterations from this week's Monday.
func defaultIterations() *model.ProjectIterations {
	now := time.Now().UTC()
	monday := now.AddDate(0, 0, -((int(now.Weekday()) + 6) % 7))
	cfg := &model.ProjectIterations{StartDay: 1, Duration: 14}
	for i := 0; i < 3; i++ {
		cfg.Iterations = append(cfg.Iterations, model.ProjectIteration{
			Title: "Iteration " + strconv.Itoa(i+1), StartDate: monday.AddDate(0, 0, 14*i).Format("2006-01-02"), Duration: 14,
		})
	}
	return cfg
}

// resource is Query.resource(url): the repository, issue or pull request
// a URL of this server names (null for other URLs, as GitHub answers).
func (a *API) resource(ctx context.Context, raw string) (any, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 {
		return nil, nil
	}
	r, err := a.repoByName(ctx, parts[0], parts[1], true)
	if err != nil {
		var ge *engine.Error
		if errors.As(err, &ge) {
			return nil, nil
		}
		return nil, err
	}
	repo := r.(*repoObj)
	switch {
	case len(parts) == 2:
		return repo, nil
	case len(parts) >= 4 && (parts[2] == "issues" || parts[2] == "pull"):
		n, err := strconv.ParseInt(parts[3], 10, 64)
		if err != nil {
			return nil, nil
		}
		q := a.d.Store.R()
		is, err := q.IssueByNumber(ctx, repo.v.Repo.ID, n)
		if errors.Is(err, model.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if !is.IsPull {
			if parts[2] == "pull" {
				return nil, nil
			}
			return &issueObj{is: is, repo: repo}, nil
		}
		pulls, err := q.PullsByIssueID(ctx, []int64{is.ID})
		if err != nil {
			return nil, err
		}
		if pulls[is.ID] == nil {
			return nil, nil
		}
		return a.pullOf(pulls[is.ID], repo), nil
	}
	return nil, nil
}

// projectNodes resolves the Projects (v2) ids among ids into out: projects
// (PVT_), items (PVTI_) and draft issues (DI_) of projects the viewer may
// read, in one query for the items and one for the projects.
func (a *API) projectNodes(ctx context.Context, ids []string, out []any) error {
	var itemIDs, projectIDs []int64
	for _, s := range ids {
		prefix, id, _ := decodeNodeID(s)
		switch prefix {
		case "PVT":
			projectIDs = append(projectIDs, id)
		case "PVTI", "DI":
			itemIDs = append(itemIDs, id)
		}
	}
	q := a.d.Store.R()
	items, err := q.ProjectItemsByID(ctx, itemIDs)
	if err != nil {
		return err
	}
	for _, it := range items {
		projectIDs = append(projectIDs, it.ProjectID)
	}
	visible, err := projects.New(a.d.Store).Visible(ctx, from(ctx).caller, projectIDs)
	if err != nil {
		return err
	}
	for i, s := range ids {
		prefix, id, _ := decodeNodeID(s)
		switch prefix {
		case "PVT":
			if p := visible[id]; p != nil {
				out[i] = &projectObj{p: p}
			}
		case "PVTI", "DI":
			it := items[id]
			if it == nil || visible[it.ProjectID] == nil {
				continue
			}
			if prefix == "DI" {
				if it.ContentType == "DraftIssue" {
					out[i] = &draftObj{it: it}
				}
				continue
			}
			out[i] = &projectItemObj{it: it, proj: &projectObj{p: visible[it.ProjectID]}}
		}
	}
	return nil
}
