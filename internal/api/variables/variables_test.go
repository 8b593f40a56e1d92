package variables_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world: octo (owned by olga, mike a member) with core (private) and
// docs (public); mike writes to both, rita reads docs.
type world struct {
	e                       *apitest.Env
	olga, mike, otto, rita  string // tokens
	gh                      *github.Client
	coreID, docsID, otherID int64
	mikeAcc                 *model.Account
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	olga, olgaTok := e.NewUser("olga", false)
	mike, mikeTok := e.NewUser("mike", false)
	_, ottoTok := e.NewUser("otto", false)
	rita, ritaTok := e.NewUser("rita", false)
	org := store.NewOrg("octo")
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: mike.ID, Role: model.RoleMember, State: store.StateActive})
	}); err != nil {
		t.Fatal(err)
	}
	w := &world{e: e, olga: olgaTok, mike: mikeTok, otto: ottoTok, rita: ritaTok, gh: e.GitHub(olgaTok), mikeAcc: mike}
	ids := map[string]int64{}
	for _, name := range []string{"core", "docs"} {
		r, _, err := w.gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(name == "core"), AutoInit: github.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = r.GetID()
	}
	w.coreID, w.docsID = ids["core"], ids["docs"]
	other, _, err := e.GitHub(ottoTok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("mine")})
	if err != nil {
		t.Fatal(err)
	}
	w.otherID = other.GetID()
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		for _, id := range []int64{w.coreID, w.docsID} {
			if err := tx.SetCollaborator(ctx, id, mike.ID, authz.Write); err != nil {
				return err
			}
		}
		return tx.SetCollaborator(ctx, w.docsID, rita.ID, authz.Read)
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestRepoVariables(t *testing.T) {
	w := newWorld(t)
	e, gh := w.e, w.gh
	for _, name := range []string{"username", "HOST", "_private1"} {
		if _, err := gh.Actions.CreateRepoVariable(ctx, "octo", "docs", github.ActionsCreateVariableRequest{Name: name, Value: "v-" + name}); err != nil {
			t.Fatal(name, err)
		}
	}
	// Names are case-insensitive and stored upper case: a second USERNAME is a conflict.
	if _, err := gh.Actions.CreateRepoVariable(ctx, "octo", "docs", github.ActionsCreateVariableRequest{Name: "USERNAME", Value: "x"}); apitest.Status(err) != 409 {
		t.Fatalf("duplicate: %v", err)
	}
	v, _, err := gh.Actions.GetRepoVariable(ctx, "octo", "docs", "Username")
	if err != nil || v.Name != "USERNAME" || v.Value != "v-username" || v.CreatedAt == nil || v.Visibility != nil {
		t.Fatalf("get: %+v %v", v, err)
	}
	list, resp, err := gh.Actions.ListRepoVariables(ctx, "octo", "docs", &github.ListOptions{PerPage: 2})
	if err != nil || list.TotalCount != 3 || len(list.Variables) != 2 || list.Variables[0].Name != "HOST" || resp.NextPage != 2 {
		t.Fatalf("list: %+v %v", list, err)
	}
	// Bad names and values: 422; nothing written.
	for _, body := range []map[string]any{
		{"name": "GITHUB_TOKEN2", "value": "x"}, {"name": "github_x", "value": "x"}, {"name": "1ABC", "value": "x"},
		{"name": "A-B", "value": "x"}, {"name": "A B", "value": "x"}, {"name": "BIG", "value": strings.Repeat("x", 48<<10+1)},
		{"value": "x"}, {"name": "NOVALUE"},
	} {
		r := e.Do("POST", "/repos/octo/docs/actions/variables", w.olga, body)
		if r.StatusCode != 422 {
			t.Fatalf("%v: %d %s", body["name"], r.StatusCode, r.Body)
		}
	}
	// 48 KB exactly is fine.
	e.Must(201, "POST", "/repos/octo/docs/actions/variables", w.olga, map[string]any{"name": "EXACT", "value": strings.Repeat("x", 48<<10)})
	// Update: rename and new value; a rename onto another name conflicts.
	if _, err := gh.Actions.UpdateRepoVariable(ctx, "octo", "docs", "host", github.ActionsUpdateVariableRequest{Name: github.Ptr("server"), Value: github.Ptr("h2")}); err != nil {
		t.Fatal(err)
	}
	if v, _, err := gh.Actions.GetRepoVariable(ctx, "octo", "docs", "SERVER"); err != nil || v.Value != "h2" {
		t.Fatalf("renamed: %+v %v", v, err)
	}
	if _, err := gh.Actions.UpdateRepoVariable(ctx, "octo", "docs", "SERVER", github.ActionsUpdateVariableRequest{Name: github.Ptr("USERNAME")}); apitest.Status(err) != 409 {
		t.Fatalf("rename onto another: %v", err)
	}
	if _, err := gh.Actions.UpdateRepoVariable(ctx, "octo", "docs", "NOPE", github.ActionsUpdateVariableRequest{Value: github.Ptr("x")}); apitest.Status(err) != 404 {
		t.Fatalf("update missing: %v", err)
	}
	// Writers read, only admins change; readers and outsiders are refused.
	mike := e.GitHub(w.mike)
	if _, _, err := mike.Actions.ListRepoVariables(ctx, "octo", "docs", nil); err != nil {
		t.Fatalf("writer lists: %v", err)
	}
	if _, err := mike.Actions.CreateRepoVariable(ctx, "octo", "docs", github.ActionsCreateVariableRequest{Name: "M", Value: "x"}); apitest.Status(err) != 403 {
		t.Fatalf("writer creates: %v", err)
	}
	if _, _, err := e.GitHub(w.rita).Actions.GetRepoVariable(ctx, "octo", "docs", "USERNAME"); apitest.Status(err) != 403 {
		t.Fatalf("reader gets: %v", err)
	}
	if _, _, err := e.GitHub(w.otto).Actions.ListRepoVariables(ctx, "octo", "core", nil); apitest.Status(err) != 404 {
		t.Fatalf("outsider lists a private repository's: %v", err)
	}
	e.Must(401, "GET", "/repos/octo/docs/actions/variables", "", nil)
	if _, err := gh.Actions.DeleteRepoVariable(ctx, "octo", "docs", "username"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Actions.GetRepoVariable(ctx, "octo", "docs", "USERNAME"); apitest.Status(err) != 404 {
		t.Fatalf("deleted: %v", err)
	}
	// 500 per repository: docs holds 3 (_PRIVATE1, SERVER, EXACT); 496 more, then the 500th, then no more.
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		for i := 0; i < 496; i++ {
			if err := tx.CreateVariable(ctx, &model.Variable{Kind: model.VariablesActions, RepoID: w.docsID, Name: fmt.Sprintf("N%d", i), Value: "x"}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Must(201, "POST", "/repos/octo/docs/actions/variables", w.olga, map[string]any{"name": "LAST", "value": "x"})
	e.Must(422, "POST", "/repos/octo/docs/actions/variables", w.olga, map[string]any{"name": "ONE_TOO_MANY", "value": "x"})
}

func TestOrgVariables(t *testing.T) {
	w := newWorld(t)
	e, gh := w.e, w.gh
	mk := func(name, vis string, ids []int64) {
		t.Helper()
		if _, err := gh.Actions.CreateOrgVariable(ctx, "octo", github.ActionsCreateOrgVariableRequest{Name: name, Value: "v" + name, Visibility: vis,
			SelectedRepositoryIDs: ids}); err != nil {
			t.Fatal(name, err)
		}
	}
	mk("ALL", "all", nil)
	mk("PRIV", "private", nil)
	mk("SEL", "selected", []int64{w.docsID})
	if _, err := gh.Actions.CreateOrgVariable(ctx, "octo", github.ActionsCreateOrgVariableRequest{Name: "all", Value: "x", Visibility: "all"}); apitest.Status(err) != 409 {
		t.Fatalf("duplicate: %v", err)
	}
	// Repositories outside the organization cannot be selected.
	e.Must(422, "POST", "/orgs/octo/actions/variables", w.olga, map[string]any{"name": "X", "value": "x", "visibility": "selected",
		"selected_repository_ids": []int64{w.otherID}})
	e.Must(422, "POST", "/orgs/octo/actions/variables", w.olga, map[string]any{"name": "X", "value": "x", "visibility": "all",
		"selected_repository_ids": []int64{w.docsID}})
	v, _, err := gh.Actions.GetOrgVariable(ctx, "octo", "sel")
	if err != nil || v.GetVisibility() != "selected" || v.GetSelectedRepositoriesURL() != e.API+"/orgs/octo/actions/variables/SEL/repositories" {
		t.Fatalf("get: %+v %v", v, err)
	}
	list, _, err := gh.Actions.ListOrgVariables(ctx, "octo", nil)
	if err != nil || list.TotalCount != 3 {
		t.Fatalf("list: %+v %v", list, err)
	}
	// What each repository sees.
	shared := func(repo string) string {
		t.Helper()
		l, _, err := e.GitHub(w.mike).Actions.ListRepoOrgVariables(ctx, "octo", repo, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, v := range l.Variables {
			names = append(names, v.Name)
		}
		return strings.Join(names, ",")
	}
	if got := shared("core"); got != "ALL,PRIV" {
		t.Fatalf("core sees %s", got)
	}
	if got := shared("docs"); got != "ALL,SEL" {
		t.Fatalf("docs sees %s", got)
	}
	// Selected repositories.
	repos, _, err := gh.Actions.ListSelectedReposForOrgVariable(ctx, "octo", "SEL", nil)
	if err != nil || repos.GetTotalCount() != 1 || repos.Repositories[0].GetName() != "docs" {
		t.Fatalf("selected: %+v %v", repos, err)
	}
	if _, err := gh.Actions.AddSelectedRepoToOrgVariable(ctx, "octo", "SEL", &github.Repository{ID: github.Ptr(w.coreID)}); err != nil {
		t.Fatal(err)
	}
	if got := shared("core"); got != "ALL,PRIV,SEL" {
		t.Fatalf("core after add sees %s", got)
	}
	if _, err := gh.Actions.RemoveSelectedRepoFromOrgVariable(ctx, "octo", "SEL", &github.Repository{ID: github.Ptr(w.docsID)}); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Actions.SetSelectedReposForOrgVariable(ctx, "octo", "SEL", []int64{w.docsID}); err != nil {
		t.Fatal(err)
	}
	if got := shared("core"); got != "ALL,PRIV" {
		t.Fatalf("core after set sees %s", got)
	}
	if _, err := gh.Actions.SetSelectedReposForOrgVariable(ctx, "octo", "SEL", []int64{w.otherID}); apitest.Status(err) != 422 {
		t.Fatalf("set a foreign repository: %v", err)
	}
	// Not selected: 409.
	if _, err := gh.Actions.AddSelectedRepoToOrgVariable(ctx, "octo", "ALL", &github.Repository{ID: github.Ptr(w.coreID)}); apitest.Status(err) != 409 {
		t.Fatalf("add to all: %v", err)
	}
	if _, _, err := gh.Actions.ListSelectedReposForOrgVariable(ctx, "octo", "ALL", nil); apitest.Status(err) != 409 {
		t.Fatalf("list of all: %v", err)
	}
	// Visibility changes drop the selection.
	if _, err := gh.Actions.UpdateOrgVariable(ctx, "octo", "SEL", github.ActionsUpdateOrgVariableRequest{Visibility: github.Ptr("all"), Value: github.Ptr("new")}); err != nil {
		t.Fatal(err)
	}
	if v, _, err := gh.Actions.GetOrgVariable(ctx, "octo", "SEL"); err != nil || v.Value != "new" || v.GetVisibility() != "all" || v.SelectedRepositoriesURL != nil {
		t.Fatalf("updated: %+v %v", v, err)
	}
	// Members are refused, outsiders find nothing, classic tokens need admin:org.
	if _, _, err := e.GitHub(w.mike).Actions.ListOrgVariables(ctx, "octo", nil); apitest.Status(err) != 403 {
		t.Fatalf("member lists: %v", err)
	}
	if _, _, err := e.GitHub(w.otto).Actions.GetOrgVariable(ctx, "octo", "ALL"); apitest.Status(err) != 404 {
		t.Fatalf("outsider gets: %v", err)
	}
	olga, err := e.Store.R().AccountByLogin(ctx, "olga")
	if err != nil {
		t.Fatal(err)
	}
	e.Must(403, "GET", "/orgs/octo/actions/variables", e.Token(olga, "repo"), nil)
	if _, err := gh.Actions.DeleteOrgVariable(ctx, "octo", "PRIV"); err != nil {
		t.Fatal(err)
	}
	if got := shared("core"); got != "ALL,SEL" {
		t.Fatalf("core after delete sees %s", got)
	}
}

func TestEnvironmentVariables(t *testing.T) {
	w := newWorld(t)
	e, gh := w.e, w.gh
	if _, err := gh.Actions.CreateEnvVariable(ctx, "octo", "docs", "prod", github.ActionsCreateVariableRequest{Name: "X", Value: "1"}); apitest.Status(err) != 404 {
		t.Fatalf("no environment: %v", err)
	}
	env, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "octo", "docs", "prod", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Actions.CreateEnvVariable(ctx, "octo", "docs", "prod", github.ActionsCreateVariableRequest{Name: "region", Value: "eu"}); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Actions.UpdateEnvVariable(ctx, "octo", "docs", "prod", "REGION", github.ActionsUpdateVariableRequest{Value: github.Ptr("us")}); err != nil {
		t.Fatal(err)
	}
	if v, _, err := gh.Actions.GetEnvVariable(ctx, "octo", "docs", "prod", "region"); err != nil || v.Value != "us" {
		t.Fatalf("get: %+v %v", v, err)
	}
	if l, _, err := e.GitHub(w.mike).Actions.ListEnvVariables(ctx, "octo", "docs", "prod", nil); err != nil || l.TotalCount != 1 {
		t.Fatalf("list: %+v %v", l, err)
	}
	// 100 per environment.
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		for i := 1; i < 100; i++ {
			if err := tx.CreateVariable(ctx, &model.Variable{Kind: model.VariablesActions, RepoID: w.docsID, EnvironmentID: env.GetID(),
				Name: fmt.Sprintf("V%d", i), Value: "x"}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Actions.CreateEnvVariable(ctx, "octo", "docs", "prod", github.ActionsCreateVariableRequest{Name: "ONEMORE", Value: "x"}); apitest.Status(err) != 422 {
		t.Fatalf("101st: %v", err)
	}
	if _, err := gh.Actions.DeleteEnvVariable(ctx, "octo", "docs", "prod", "REGION"); err != nil {
		t.Fatal(err)
	}
	// Deleting the environment takes its variables.
	if _, err := gh.Repositories.DeleteEnvironment(ctx, "octo", "docs", "prod"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "octo", "docs", "prod", nil); err != nil {
		t.Fatal(err)
	}
	if l, _, err := gh.Actions.ListEnvVariables(ctx, "octo", "docs", "prod", nil); err != nil || l.TotalCount != 0 {
		t.Fatalf("after re-creation: %+v %v", l, err)
	}
}

// Agents variables: the same rules under /agents, apart from Actions'.
func TestAgentsVariables(t *testing.T) {
	w := newWorld(t)
	e := w.e
	e.Must(201, "POST", "/repos/octo/docs/agents/variables", w.olga, map[string]any{"name": "model", "value": "big"})
	e.Must(201, "POST", "/repos/octo/docs/actions/variables", w.olga, map[string]any{"name": "model", "value": "other"})
	e.Must(409, "POST", "/repos/octo/docs/agents/variables", w.olga, map[string]any{"name": "MODEL", "value": "x"})
	e.Must(422, "POST", "/repos/octo/docs/agents/variables", w.olga, map[string]any{"name": "GITHUB_X", "value": "x"})
	if v := e.Must(200, "GET", "/repos/octo/docs/agents/variables/model", w.mike, nil).Map(t); v["value"] != "big" {
		t.Fatalf("get: %v", v)
	}
	if l := e.Must(200, "GET", "/repos/octo/docs/agents/variables", w.olga, nil).Map(t); l["total_count"] != float64(1) {
		t.Fatalf("list: %v", l)
	}
	e.Must(204, "PATCH", "/repos/octo/docs/agents/variables/MODEL", w.olga, map[string]any{"value": "small"})
	e.Must(403, "PATCH", "/repos/octo/docs/agents/variables/MODEL", w.mike, map[string]any{"value": "x"})
	e.Must(204, "DELETE", "/repos/octo/docs/agents/variables/MODEL", w.olga, nil)
	e.Must(404, "GET", "/repos/octo/docs/agents/variables/MODEL", w.olga, nil)
	if v := e.Must(200, "GET", "/repos/octo/docs/actions/variables/MODEL", w.olga, nil).Map(t); v["value"] != "other" {
		t.Fatalf("the Actions variable: %v", v)
	}

	const o = "/orgs/octo/agents/variables"
	e.Must(201, "POST", o, w.olga, map[string]any{"name": "SEL", "value": "s", "visibility": "selected", "selected_repository_ids": []int64{w.coreID}})
	e.Must(201, "POST", o, w.olga, map[string]any{"name": "ALL", "value": "a", "visibility": "all"})
	if l := e.Must(200, "GET", o, w.olga, nil).Map(t); l["total_count"] != float64(2) {
		t.Fatalf("org list: %v", l)
	}
	if v := e.Must(200, "GET", o+"/SEL", w.olga, nil).Map(t); v["visibility"] != "selected" {
		t.Fatalf("org get: %v", v)
	}
	if l := e.Must(200, "GET", "/repos/octo/core/agents/organization-variables", w.mike, nil).Map(t); l["total_count"] != float64(2) {
		t.Fatalf("core's: %v", l)
	}
	if l := e.Must(200, "GET", o+"/SEL/repositories", w.olga, nil).Map(t); l["total_count"] != float64(1) {
		t.Fatalf("selected: %v", l)
	}
	e.Must(204, "PUT", fmt.Sprintf("%s/SEL/repositories/%d", o, w.docsID), w.olga, nil)
	e.Must(204, "DELETE", fmt.Sprintf("%s/SEL/repositories/%d", o, w.coreID), w.olga, nil)
	e.Must(204, "PUT", o+"/SEL/repositories", w.olga, map[string]any{"selected_repository_ids": []int64{w.coreID, w.docsID}})
	e.Must(409, "PUT", o+"/ALL/repositories", w.olga, map[string]any{"selected_repository_ids": []int64{w.coreID}})
	e.Must(204, "PATCH", o+"/SEL", w.olga, map[string]any{"value": "t"})
	e.Must(403, "GET", o, w.mike, nil)
	e.Must(204, "DELETE", o+"/SEL", w.olga, nil)
	if l := e.Must(200, "GET", "/repos/octo/docs/actions/organization-variables", w.olga, nil).Map(t); l["total_count"] != float64(0) {
		t.Fatalf("Actions org variables: %v", l)
	}
}
