package projects_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
)

var ctx = context.Background()

// world: mona owns the organization acme (repository acme/app with issue
// #1 and pull request-less issue #2), bob is a member, eve is outside;
// acme has the private project 1 made by mona.
type world struct {
	e              *apitest.Env
	mona, bob, eve string
	monaU          *model.Account
	issueID        int64
	project        *projects.Project
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	w := &world{e: e}
	var tok string
	w.monaU, tok = e.NewUser("mona", false)
	w.mona = e.Token(w.monaU, apitest.AllScopes+",project")
	_ = tok
	bob, _ := e.NewUser("bob", false)
	w.bob = e.Token(bob, apitest.AllScopes+",project")
	eve, _ := e.NewUser("eve", false)
	w.eve = e.Token(eve, apitest.AllScopes+",project")
	e.Must(http.StatusCreated, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(http.StatusOK, "PUT", "/orgs/acme/memberships/bob", w.mona, map[string]any{"role": "member"})
	e.Must(http.StatusOK, "PATCH", "/user/memberships/orgs/acme", w.bob, map[string]any{"state": "active"})
	e.Must(http.StatusCreated, "POST", "/orgs/acme/repos", w.mona, map[string]any{"name": "app", "private": true})
	var is struct {
		ID int64 `json:"id"`
	}
	e.Must(http.StatusCreated, "POST", "/repos/acme/app/issues", w.mona, map[string]any{"title": "First"}).JSON(t, &is)
	w.issueID = is.ID
	e.Must(http.StatusCreated, "POST", "/repos/acme/app/issues", w.mona, map[string]any{"title": "Second"})
	w.project = w.create(t, w.monaU, "acme", "Roadmap")
	return w
}

// create makes a project through the service (GitHub's REST description
// has no operation creating one).
func (w *world) create(t *testing.T, u *model.Account, owner, title string) *projects.Project {
	t.Helper()
	s := projects.New(w.e.Store)
	acc, err := w.e.Store.R().AccountByLogin(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	c := &authz.Caller{Kind: authz.ClassicPAT, User: u, Scopes: authz.ParseScopes("project,repo")}
	p, err := s.Create(ctx, c, acc, title)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fieldByName(t *testing.T, list []*github.ProjectV2Field, name string) *github.ProjectV2Field {
	t.Helper()
	for _, f := range list {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("no field %q", name)
	return nil
}

func TestProjectsREST(t *testing.T) {
	w := newWorld(t)
	gh := w.e.GitHub(w.mona)

	list, _, err := gh.Projects.ListOrganizationProjects(ctx, "acme", nil)
	if err != nil || len(list) != 1 || list[0].GetTitle() != "Roadmap" || list[0].GetNumber() != 1 {
		t.Fatalf("list: %v %+v", err, list)
	}
	p, _, err := gh.Projects.GetOrganizationProject(ctx, "acme", 1)
	if err != nil || p.GetCreator().GetLogin() != "mona" || p.GetOwner().GetLogin() != "acme" || p.GetPublic() {
		t.Fatalf("get: %v %+v", err, p)
	}

	// Built-in fields.
	fields, _, err := gh.Projects.ListOrganizationProjectFields(ctx, "acme", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"Title", "Assignees", "Status", "Labels", "Linked pull requests", "Milestone", "Repository", "Reviewers"} {
		fieldByName(t, fields, n)
	}
	status := fieldByName(t, fields, "Status")
	if len(status.Options) != 3 || status.Options[0].GetName().GetRaw() != "Todo" {
		t.Fatalf("status options: %+v", status.Options)
	}
	title := fieldByName(t, fields, "Title")

	// Custom fields.
	est, _, err := gh.Projects.AddOrganizationProjectField(ctx, "acme", 1, github.AddProjectV2FieldRequest{Name: github.Ptr("Estimate"), DataType: github.Ptr("number")})
	if err != nil || est.GetDataType() != "number" {
		t.Fatalf("add field: %v %+v", err, est)
	}
	prio, _, err := gh.Projects.AddOrganizationProjectField(ctx, "acme", 1, github.AddProjectV2FieldRequest{Name: github.Ptr("Priority"), DataType: github.Ptr("single_select"),
		SingleSelectOptions: []*github.ProjectV2FieldSingleSelectOption{{Name: "High", Color: github.Ptr("RED")}, {Name: "Low"}}})
	if err != nil || len(prio.Options) != 2 {
		t.Fatalf("add select: %v %+v", err, prio)
	}
	sprint := w.e.Must(http.StatusCreated, "POST", "/orgs/acme/projectsV2/1/fields", w.mona, map[string]any{"name": "Sprint", "data_type": "iteration",
		"iteration_configuration": map[string]any{"start_date": "2026-01-05", "duration": 14, "iterations": []any{map[string]any{"title": "Sprint 1", "start_date": "2026-01-05", "duration": 14}}}}).Map(t)
	iter := sprint["configuration"].(map[string]any)["iterations"].([]any)[0].(map[string]any)
	if iter["title"].(map[string]any)["raw"] != "Sprint 1" || iter["completed"] != true {
		t.Fatalf("iteration: %v", iter)
	}
	got, _, err := gh.Projects.GetOrganizationProjectField(ctx, "acme", 1, est.GetID())
	if err != nil || got.GetName() != "Estimate" {
		t.Fatalf("get field: %v %+v", err, got)
	}
	w.e.Must(http.StatusUnprocessableEntity, "POST", "/orgs/acme/projectsV2/1/fields", w.mona, map[string]any{"name": "estimate", "data_type": "text"})
	w.e.Must(http.StatusUnprocessableEntity, "POST", "/orgs/acme/projectsV2/1/fields", w.mona, map[string]any{"name": "X", "data_type": "single_select", "single_select_options": []any{}})

	// Items: an issue by id, one by repository and number, a draft.
	item, _, err := gh.Projects.AddOrganizationProjectItem(ctx, "acme", 1, &github.AddProjectItemOptions{Type: github.Ptr(github.ProjectV2ItemContentType("Issue")), ID: github.Ptr(w.issueID)})
	if err != nil || *item.GetContentType() != "Issue" {
		t.Fatalf("add item: %v %+v", err, item)
	}
	again, _, err := gh.Projects.AddOrganizationProjectItem(ctx, "acme", 1, &github.AddProjectItemOptions{Type: github.Ptr(github.ProjectV2ItemContentType("Issue")), ID: github.Ptr(w.issueID)})
	if err != nil || again.GetID() != item.GetID() {
		t.Fatalf("adding twice gives the same item: %v %d %d", err, again.GetID(), item.GetID())
	}
	w.e.Must(http.StatusCreated, "POST", "/orgs/acme/projectsV2/1/items", w.mona, map[string]any{"type": "Issue", "owner": "acme", "repo": "app", "number": 2})
	w.e.Must(http.StatusUnprocessableEntity, "POST", "/orgs/acme/projectsV2/1/items", w.mona, map[string]any{"type": "PullRequest", "owner": "acme", "repo": "app", "number": 2})
	w.e.Must(http.StatusUnprocessableEntity, "POST", "/orgs/acme/projectsV2/1/items", w.mona, map[string]any{"type": "Issue", "owner": "acme", "repo": "app", "number": 99})
	draft, _, err := gh.Projects.CreateOrganizationProjectDraftItem(ctx, "acme", 1, github.CreateProjectV2DraftItemRequest{Title: "Write docs", Body: github.Ptr("soon")})
	if err != nil || *draft.GetContentType() != "DraftIssue" {
		t.Fatalf("draft: %v %+v", err, draft)
	}

	// Field values.
	upd, _, err := gh.Projects.UpdateOrganizationProjectItem(ctx, "acme", 1, item.GetID(), &github.UpdateProjectItemOptions{Fields: []*github.UpdateProjectV2Field{
		{ID: status.GetID(), Value: status.Options[1].GetID()}, {ID: est.GetID(), Value: 3.5}, {ID: prio.GetID(), Value: prio.Options[0].GetID()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	_ = upd
	one := w.e.Must(http.StatusOK, "GET", apitest.Query("/orgs/acme/projectsV2/1/items/"+strconv.FormatInt(item.GetID(), 10), "fields", ids(status.GetID(), est.GetID(), prio.GetID(), title.GetID())), w.mona, nil).Map(t)
	vals := map[string]any{}
	for _, f := range one["fields"].([]any) {
		m := f.(map[string]any)
		vals[m["name"].(string)] = m["value"]
	}
	if vals["Status"].(map[string]any)["name"] != "In Progress" || vals["Estimate"] != 3.5 || vals["Priority"].(map[string]any)["name"] != "High" || vals["Title"].(map[string]any)["raw"] != "First" {
		t.Fatalf("values: %v", vals)
	}
	if one["content"].(map[string]any)["title"] != "First" {
		t.Fatalf("content: %v", one["content"])
	}
	// Bad values change nothing.
	path := "/orgs/acme/projectsV2/1/items/" + strconv.FormatInt(item.GetID(), 10)
	w.e.Must(http.StatusUnprocessableEntity, "PATCH", path, w.mona, map[string]any{"fields": []any{map[string]any{"id": est.GetID(), "value": 1}, map[string]any{"id": status.GetID(), "value": "nope"}}})
	w.e.Must(http.StatusUnprocessableEntity, "PATCH", path, w.mona, map[string]any{"fields": []any{map[string]any{"id": 999999, "value": "x"}}})
	w.e.Must(http.StatusUnprocessableEntity, "PATCH", path, w.mona, map[string]any{"fields": []any{map[string]any{"id": title.GetID(), "value": "renamed"}}})
	got2, _, err := gh.Projects.GetOrganizationProjectItem(ctx, "acme", 1, item.GetID(), &github.GetProjectItemOptions{Fields: []int64{est.GetID()}})
	if err != nil || len(got2.Fields) != 1 {
		t.Fatalf("get item: %v %+v", err, got2)
	}
	// A draft's title is a field; clearing a value with null.
	dpath := "/orgs/acme/projectsV2/1/items/" + strconv.FormatInt(draft.GetID(), 10)
	w.e.Must(http.StatusOK, "PATCH", dpath, w.mona, map[string]any{"fields": []any{map[string]any{"id": title.GetID(), "value": "Write the docs"}, map[string]any{"id": est.GetID(), "value": 2}}})
	d := w.e.Must(http.StatusOK, "PATCH", dpath, w.mona, map[string]any{"fields": []any{map[string]any{"id": est.GetID(), "value": nil}}}).Map(t)
	if d["content"].(map[string]any)["title"] != "Write the docs" {
		t.Fatalf("draft title: %v", d["content"])
	}

	// Paging: three items, one a page, with cursor links.
	var seen []int64
	opts := &github.ListProjectItemsOptions{ListProjectsOptions: github.ListProjectsOptions{ListProjectsPaginationOptions: github.ListProjectsPaginationOptions{PerPage: 1}}}
	for range 5 {
		page, resp, err := gh.Projects.ListOrganizationProjectItems(ctx, "acme", 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page {
			seen = append(seen, it.GetID())
		}
		if resp.After == "" {
			break
		}
		opts.After = resp.After
	}
	if len(seen) != 3 || seen[0] != item.GetID() || seen[2] != draft.GetID() {
		t.Fatalf("paged items: %v", seen)
	}
	back := w.e.Must(http.StatusOK, "GET", apitest.Query("/orgs/acme/projectsV2/1/items", "per_page", "1", "after", opts.After), w.mona, nil)
	if !strings.Contains(back.Header.Get("Link"), `rel="prev"`) {
		t.Fatalf("no prev link: %q", back.Header.Get("Link"))
	}
	w.e.Must(http.StatusBadRequest, "GET", apitest.Query("/orgs/acme/projectsV2/1/items", "after", "%%%"), w.mona, nil)

	// Views.
	v, _, err := gh.Projects.CreateOrganizationProjectView(ctx, "acme", 1, github.CreateProjectV2ViewRequest{Name: "Board", Layout: "board", Filter: github.Ptr("is:issue")})
	if err != nil || v.GetNumber() != 2 || v.GetLayout() != "board" {
		t.Fatalf("view: %v %+v", err, v)
	}
	w.e.Must(http.StatusCreated, "POST", "/orgs/acme/projectsV2/1/views", w.mona, map[string]any{"name": "Plan", "layout": "roadmap", "sort_by": []any{[]any{est.GetID(), "desc"}}, "group_by": []any{prio.GetID()}})
	w.e.Must(http.StatusUnprocessableEntity, "POST", "/orgs/acme/projectsV2/1/views", w.mona, map[string]any{"name": "Bad", "layout": "table", "group_by": []any{title.GetID()}})
	w.e.Must(http.StatusUnprocessableEntity, "POST", "/orgs/acme/projectsV2/1/views", w.mona, map[string]any{"name": "Bad", "layout": "table", "visible_fields": []any{424242}})
	vitems, _, err := gh.Projects.ListOrganizationProjectViewItems(ctx, "acme", 1, 2, nil)
	if err != nil || len(vitems) != 3 {
		t.Fatalf("view items: %v %d", err, len(vitems))
	}
	w.e.Must(http.StatusNotFound, "GET", "/orgs/acme/projectsV2/1/views/9/items", w.mona, nil)

	// Archive, then delete.
	w.e.Must(http.StatusOK, "PATCH", dpath, w.mona, map[string]any{"fields": []any{}, "archived": true})
	archived := w.e.Must(http.StatusOK, "GET", apitest.Query("/orgs/acme/projectsV2/1/items", "q", "is:archived"), w.mona, nil)
	var arch []map[string]any
	archived.JSON(t, &arch)
	if len(arch) != 1 || arch[0]["archived_at"] == nil {
		t.Fatalf("archived: %v", arch)
	}
	if _, err := gh.Projects.DeleteOrganizationProjectItem(ctx, "acme", 1, draft.GetID()); err != nil {
		t.Fatal(err)
	}
	w.e.Must(http.StatusNotFound, "GET", dpath, w.mona, nil)
}

func ids(v ...int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

func TestProjectsAccess(t *testing.T) {
	w := newWorld(t)
	// eve is outside acme: the private project is not there for her.
	w.e.Must(http.StatusNotFound, "GET", "/orgs/acme/projectsV2/1", w.eve, nil)
	var l []any
	w.e.Must(http.StatusOK, "GET", "/orgs/acme/projectsV2", w.eve, nil).JSON(t, &l)
	if len(l) != 0 {
		t.Fatalf("eve sees %v", l)
	}
	w.e.Must(http.StatusNotFound, "POST", "/orgs/acme/projectsV2/1/drafts", w.eve, map[string]any{"title": "x"})
	// Anonymous callers read public projects only and write nothing.
	w.e.Must(http.StatusNotFound, "GET", "/orgs/acme/projectsV2/1", "", nil)
	w.e.Must(http.StatusUnauthorized, "POST", "/orgs/acme/projectsV2/1/drafts", "", map[string]any{"title": "x"})
	// bob, a member, has the project's base role (write).
	w.e.Must(http.StatusCreated, "POST", "/orgs/acme/projectsV2/1/drafts", w.bob, map[string]any{"title": "bob's"})
	// A token without project scope reads with read:project only.
	bobU, _ := w.e.Store.R().AccountByLogin(ctx, "bob")
	ro := w.e.Token(bobU, "read:project")
	w.e.Must(http.StatusOK, "GET", "/orgs/acme/projectsV2/1/items", ro, nil)
	w.e.Must(http.StatusForbidden, "POST", "/orgs/acme/projectsV2/1/drafts", ro, map[string]any{"title": "x"})
	none := w.e.Token(bobU, "repo")
	w.e.Must(http.StatusNotFound, "GET", "/orgs/acme/projectsV2/1", none, nil)
	// Items of repositories the reader may not see are redacted: a public
	// project holding an issue of the private acme/app.
	s := projects.New(w.e.Store)
	mc := &authz.Caller{Kind: authz.ClassicPAT, User: w.monaU, Scopes: authz.ParseScopes("project,repo")}
	p, err := s.Get(ctx, mc, mustAcc(t, w, "acme"), 1, authz.Admin)
	if err != nil {
		t.Fatal(err)
	}
	pub := true
	if err := s.Update(ctx, mc, p, projects.Input{Public: &pub}); err != nil {
		t.Fatal(err)
	}
	w.e.Must(http.StatusCreated, "POST", "/orgs/acme/projectsV2/1/items", w.mona, map[string]any{"type": "Issue", "id": w.issueID})
	var items []map[string]any
	w.e.Must(http.StatusOK, "GET", "/orgs/acme/projectsV2/1/items", w.eve, nil).JSON(t, &items)
	for _, it := range items {
		if it["content_type"] == "Issue" && it["content"] != nil {
			t.Fatalf("eve sees the private issue: %v", it["content"])
		}
	}
	w.e.Must(http.StatusForbidden, "POST", "/orgs/acme/projectsV2/1/drafts", w.eve, map[string]any{"title": "x"})

	// A user's projects: the owner only.
	w.create(t, w.monaU, "mona", "Mine")
	gh := w.e.GitHub(w.mona)
	mine, _, err := gh.Projects.ListUserProjects(ctx, "mona", nil)
	if err != nil || len(mine) != 1 {
		t.Fatalf("user projects: %v %v", err, mine)
	}
	if _, _, err := gh.Projects.CreateUserProjectDraftItem(ctx, w.monaU.ID, 1, github.CreateProjectV2DraftItemRequest{Title: "todo"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.e.GitHub(w.bob).Projects.GetUserProject(ctx, "mona", 1); apitest.Status(err) != http.StatusNotFound {
		t.Fatalf("bob reads mona's private project: %v", err)
	}
	if _, _, err := gh.Projects.CreateUserProjectView(ctx, w.monaU.ID, 1, github.CreateProjectV2ViewRequest{Name: "T", Layout: "table"}); err != nil {
		t.Fatal(err)
	}
	uitems, _, err := gh.Projects.ListUserProjectItems(ctx, "mona", 1, nil)
	if err != nil || len(uitems) != 1 {
		t.Fatalf("user items: %v %d", err, len(uitems))
	}
	w.e.Must(http.StatusNotFound, "GET", "/users/acme/projectsV2", w.mona, nil)
	w.e.Must(http.StatusNotFound, "GET", "/orgs/mona/projectsV2", w.mona, nil)
}

func mustAcc(t *testing.T, w *world, login string) *model.Account {
	a, err := w.e.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A user's project serves the same item, field and view operations as an
// organization's, under /users/{username}.
func TestUserProjectItems(t *testing.T) {
	w := newWorld(t)
	w.create(t, w.monaU, "mona", "Mine")
	w.e.Must(http.StatusCreated, "POST", "/user/repos", w.mona, map[string]any{"name": "notes"})
	var is struct {
		ID int64 `json:"id"`
	}
	w.e.Must(http.StatusCreated, "POST", "/repos/mona/notes/issues", w.mona, map[string]any{"title": "Mine"}).JSON(t, &is)
	base := "/users/mona/projectsV2/1"
	var item struct {
		ID int64 `json:"id"`
	}
	w.e.Must(http.StatusCreated, "POST", base+"/items", w.mona, map[string]any{"type": "Issue", "id": is.ID}).JSON(t, &item)
	var fields []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	w.e.Must(http.StatusOK, "GET", base+"/fields", w.mona, nil).JSON(t, &fields)
	if len(fields) == 0 {
		t.Fatal("no fields")
	}
	if f := w.e.Must(http.StatusOK, "GET", base+"/fields/"+strconv.FormatInt(fields[0].ID, 10), w.mona, nil).Map(t); f["name"] != fields[0].Name {
		t.Fatalf("field: %v", f)
	}
	ipath := base + "/items/" + strconv.FormatInt(item.ID, 10)
	if got := w.e.Must(http.StatusOK, "GET", ipath, w.mona, nil).Map(t); got["id"] != float64(item.ID) {
		t.Fatalf("item: %v", got)
	}
	w.e.Must(http.StatusOK, "PATCH", ipath, w.mona, map[string]any{"fields": []any{}, "archived": true})
	w.e.Must(http.StatusNotFound, "GET", ipath, w.bob, nil)
	var view struct {
		Number int `json:"number"`
	}
	w.e.Must(http.StatusCreated, "POST", "/users/"+strconv.FormatInt(w.monaU.ID, 10)+"/projectsV2/1/views", w.mona, map[string]any{"name": "All", "layout": "table"}).JSON(t, &view)
	var vitems []map[string]any
	w.e.Must(http.StatusOK, "GET", base+"/views/"+strconv.Itoa(view.Number)+"/items", w.mona, nil).JSON(t, &vitems)
	w.e.Must(http.StatusNoContent, "DELETE", ipath, w.mona, nil)
	w.e.Must(http.StatusNotFound, "GET", ipath, w.mona, nil)
}
