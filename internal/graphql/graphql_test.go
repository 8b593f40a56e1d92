package graphql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/graphql"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// served is the schema the server executes (resolvers are registered but
// never called: the tests only check responses against it).
var served = graphql.New(&deps.Deps{}, graphql.Services{}).Schema()

type gqlResult struct {
	Status int
	Data   map[string]any
	Errors []engine.RespError
	Raw    []byte
	Header http.Header
}

// post sends a GraphQL request to /api/graphql as gh does and checks the
// data against the served schema.
func post(t *testing.T, e *apitest.Env, token, query string, vars map[string]any) *gqlResult {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", e.URL+"/api/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	res := &gqlResult{Status: resp.StatusCode, Raw: buf.Bytes(), Header: resp.Header}
	if resp.StatusCode != 200 {
		return res
	}
	var out struct {
		Data   any                `json:"data"`
		Errors []engine.RespError `json:"errors"`
	}
	dec := json.NewDecoder(bytes.NewReader(res.Raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, res.Raw)
	}
	res.Errors = out.Errors
	if m, ok := out.Data.(map[string]any); ok {
		res.Data = m
	}
	p, bad := served.Prepare(&engine.Request{Query: query, Variables: vars})
	// A FORBIDDEN field is null even where the schema says non-null, as
	// GitHub answers it.
	forbidden := false
	for _, e := range out.Errors {
		forbidden = forbidden || e.Type == "FORBIDDEN"
	}
	if bad == nil && !forbidden {
		if err := served.CheckResponse(p, out.Data); err != nil {
			t.Errorf("response does not match the schema: %v\n%s", err, res.Raw)
		}
	}
	return res
}

func mustData(t *testing.T, r *gqlResult) map[string]any {
	t.Helper()
	if r.Status != 200 || len(r.Errors) > 0 || r.Data == nil {
		t.Fatalf("status %d, errors: %s", r.Status, r.Raw)
	}
	return r.Data
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

// TestSchemaPromisesWhatIsResolved: every field of every object type in the
// served schema has a resolver.
func TestSchemaPromisesWhatIsResolved(t *testing.T) {
	if u := served.Unresolved(); len(u) > 0 {
		sort.Strings(u)
		t.Fatalf("fields in schema.graphql without a resolver: %s", strings.Join(u, ", "))
	}
}

// TestServedSchemaIsGitHubs: every type, field, argument and enum value
// served exists in GitHub's schema with the same type (extra.graphql's
// additions aside).
func TestServedSchemaIsGitHubs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(apitest.Root(), "node_modules", "@octokit", "graphql-schema", "schema.graphql"))
	if err != nil {
		t.Fatalf("GitHub's schema is not installed (make deps): %v", err)
	}
	doc, err := parser.ParseSchema(&ast.Source{Input: string(raw)})
	if err != nil {
		t.Fatal(err)
	}
	gh := map[string]*ast.Definition{}
	for _, d := range doc.Definitions {
		gh[d.Name] = d
	}
	// What extra.graphql adds (GitHub's, newer than the npm schema).
	extraRaw, err := os.ReadFile("extra.graphql")
	if err != nil {
		t.Fatal(err)
	}
	extraDoc, err := parser.ParseSchema(&ast.Source{Input: string(extraRaw)})
	if err != nil {
		t.Fatal(err)
	}
	extra := map[string]bool{}
	for _, d := range extraDoc.Definitions {
		extra[d.Name] = true
	}
	for _, d := range extraDoc.Extensions {
		for _, f := range d.Fields {
			extra[d.Name+"."+f.Name] = true
		}
	}
	for name, d := range served.AST.Types {
		if strings.HasPrefix(name, "__") || d.BuiltIn || extra[name] {
			continue
		}
		g := gh[name]
		if g == nil || g.Kind != d.Kind {
			t.Errorf("type %s is not GitHub's", name)
			continue
		}
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Name, "__") || extra[name+"."+f.Name] {
				continue
			}
			gf := g.Fields.ForName(f.Name)
			if gf == nil || gf.Type.String() != f.Type.String() {
				t.Errorf("%s.%s is not GitHub's", name, f.Name)
				continue
			}
			for _, a := range f.Arguments {
				ga := gf.Arguments.ForName(a.Name)
				if ga == nil || ga.Type.String() != a.Type.String() {
					t.Errorf("%s.%s(%s) is not GitHub's", name, f.Name, a.Name)
				}
			}
		}
		for _, v := range d.EnumValues {
			if g.EnumValues.ForName(v.Name) == nil {
				t.Errorf("%s.%s is not GitHub's", name, v.Name)
			}
		}
	}
}

type world struct {
	e                *apitest.Env
	mona, olga, mel  *model.Account
	monaTok, olgaTok string
	melTok, strTok   string
	org              *model.Account
}

// newWorld: mona owns public mona/app (initialised) and private
// mona/secret; olga administers org octo (base permission read) with
// member mel and the private octo/core; a stranger has nothing.
func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	w := &world{e: e}
	w.mona, w.monaTok = e.NewUser("mona", false)
	gh := e.GitHub(w.monaTok)
	for _, r := range []*github.Repository{
		{Name: github.Ptr("app"), AutoInit: github.Ptr(true), Description: github.Ptr("The app")},
		{Name: github.Ptr("secret"), Private: github.Ptr(true)},
	} {
		if _, _, err := gh.Repositories.Create(ctx, "", r); err != nil {
			t.Fatal(err)
		}
	}
	w.olga, w.olgaTok = e.NewUser("olga", false)
	w.mel, w.melTok = e.NewUser("mel", false)
	_, w.strTok = e.NewUser("stranger", false)
	w.org = &model.Account{Login: "octo", DefaultRepoPermission: "read", MembersCanCreateRepos: true}
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, w.org, w.olga.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: w.org.ID, UserID: w.mel.ID, Role: model.RoleMember, State: "active"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.GitHub(w.olgaTok).Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("core"),
		Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestAuthenticationRequired(t *testing.T) {
	w := newWorld(t)
	r := post(t, w.e, "", `{ viewer { login } }`, nil)
	if r.Status != 401 || !strings.Contains(string(r.Raw), "This endpoint requires you to be authenticated.") {
		t.Fatalf("anonymous: %d %s", r.Status, r.Raw)
	}
	// /graphql answers as /api/graphql does.
	req, _ := http.NewRequest("POST", w.e.URL+"/graphql", strings.NewReader(`{"query":"{ viewer { login } }"}`))
	req.Header.Set("Authorization", "token "+w.monaTok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if dig(out, "data", "viewer", "login") != "mona" {
		t.Fatalf("/graphql: %v", out)
	}
	if resp.Header.Get("X-RateLimit-Resource") != "graphql" {
		t.Fatalf("rate limit resource %q", resp.Header.Get("X-RateLimit-Resource"))
	}
}

// TestRepositoryNetwork is gh's RepositoryNetwork query (every command that
// resolves a git remote sends it): aliases, a fragment used twice, parent.
func TestRepositoryNetwork(t *testing.T) {
	w := newWorld(t)
	// mel forks... (no: a fork needs the forks job); octo/core is read for mel.
	q := `
	fragment repo on Repository {
		id
		databaseId
		name
		owner { login }
		viewerPermission
		defaultBranchRef { name }
		isPrivate
	}
	query RepositoryNetwork {
		viewer { login }
		repo_000: repository(owner: "mona", name: "app") { ...repo parent { ...repo } }
		repo_001: repository(owner: "octo", name: "core") { ...repo parent { ...repo } }
		repo_002: repository(owner: "mona", name: "secret") { ...repo parent { ...repo } }
	}`
	r := post(t, w.e, w.melTok, q, nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if dig(r.Data, "viewer", "login") != "mel" {
		t.Fatalf("viewer: %s", r.Raw)
	}
	if dig(r.Data, "repo_000", "viewerPermission") != "READ" || dig(r.Data, "repo_000", "defaultBranchRef", "name") != "main" ||
		dig(r.Data, "repo_000", "owner", "login") != "mona" || dig(r.Data, "repo_000", "parent") != nil {
		t.Fatalf("mona/app: %s", r.Raw)
	}
	if dig(r.Data, "repo_001", "viewerPermission") != "READ" || dig(r.Data, "repo_001", "isPrivate") != true {
		t.Fatalf("octo/core for a member with base read: %s", r.Raw)
	}
	// A private repository mel may not see: null and GitHub's NOT_FOUND.
	if v, ok := r.Data["repo_002"]; !ok || v != nil {
		t.Fatalf("mona/secret should be null: %s", r.Raw)
	}
	if len(r.Errors) != 1 || r.Errors[0].Type != "NOT_FOUND" ||
		r.Errors[0].Message != "Could not resolve to a Repository with the name 'mona/secret'." ||
		len(r.Errors[0].Path) != 1 || r.Errors[0].Path[0] != "repo_002" || len(r.Errors[0].Locations) != 1 {
		t.Fatalf("errors: %s", r.Raw)
	}
	// The owner sees it, with ADMIN; an empty repository has no default branch.
	r = post(t, w.e, w.monaTok, q, nil)
	d := r.Data
	if dig(d, "repo_002", "viewerPermission") != "ADMIN" || dig(d, "repo_002", "defaultBranchRef") != nil {
		t.Fatalf("owner: %s", r.Raw)
	}
	if dig(d, "repo_001") != nil {
		t.Fatalf("octo/core is hidden from mona: %s", r.Raw)
	}
}

// TestRepositoryInfo is gh's RepositoryInfo (repo view) with variables.
func TestRepositoryInfo(t *testing.T) {
	w := newWorld(t)
	q := `query RepositoryInfo($owner: String!, $name: String!) {
		repository(owner: $owner, name: $name) {
			id databaseId name nameWithOwner description url homepageUrl sshUrl
			isPrivate isArchived isFork isTemplate isEmpty visibility
			hasIssuesEnabled hasWikiEnabled hasProjectsEnabled hasDiscussionsEnabled
			mergeCommitAllowed rebaseMergeAllowed squashMergeAllowed autoMergeAllowed deleteBranchOnMerge
			createdAt updatedAt pushedAt archivedAt stargazerCount forkCount viewerCanAdminister
			viewerPermission
			owner { __typename id login url avatarUrl(size: 40) ... on User { name isViewer } }
			defaultBranchRef { id name prefix repository { nameWithOwner } }
		}
	}`
	r := post(t, w.e, w.monaTok, q, map[string]any{"owner": "mona", "name": "app"})
	d := mustData(t, r)
	rest := w.e.Must(200, "GET", "/repos/mona/app", w.monaTok, nil).Map(t)
	repo := d["repository"].(map[string]any)
	if repo["id"] != rest["node_id"] || repo["description"] != "The app" || repo["url"] != rest["html_url"] ||
		repo["nameWithOwner"] != "mona/app" || repo["visibility"] != "PUBLIC" || repo["isEmpty"] != false ||
		repo["viewerCanAdminister"] != true || dig(repo, "owner", "__typename") != "User" || dig(repo, "owner", "isViewer") != true {
		t.Fatalf("repository: %s", r.Raw)
	}
	if n, _ := repo["databaseId"].(json.Number).Int64(); n != int64(rest["id"].(float64)) {
		t.Fatalf("databaseId %v, REST id %v", repo["databaseId"], rest["id"])
	}
	// node(id:) finds what the REST node_id names.
	r = post(t, w.e, w.monaTok, `query($id: ID!) { node(id: $id) { __typename id ... on Repository { nameWithOwner } } }`,
		map[string]any{"id": rest["node_id"]})
	if dig(mustData(t, r), "node", "nameWithOwner") != "mona/app" {
		t.Fatalf("node: %s", r.Raw)
	}
	// ... and nodes(ids:) many, null where the viewer may not look.
	secret := w.e.Must(200, "GET", "/repos/mona/secret", w.monaTok, nil).Map(t)
	user := w.e.Must(200, "GET", "/users/octo", w.monaTok, nil).Map(t)
	r = post(t, w.e, w.strTok, `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Organization { login } } }`,
		map[string]any{"ids": []any{rest["node_id"], secret["node_id"], user["node_id"], "nonsense"}})
	nodes := mustData(t, r)["nodes"].([]any)
	if len(nodes) != 4 || dig(nodes[0], "__typename") != "Repository" || nodes[1] != nil || dig(nodes[2], "login") != "octo" || nodes[3] != nil {
		t.Fatalf("nodes: %s", r.Raw)
	}
}

func TestUsersAndOrganizations(t *testing.T) {
	w := newWorld(t)
	r := post(t, w.e, w.melTok, `{
		viewer { login databaseId isSiteAdmin }
		user(login: "mona") { login isViewer repository(name: "app") { name } secret: repository(name: "secret") { name } }
		organization(login: "octo") { login id repository(name: "core") { viewerPermission } }
		nobody: user(login: "nobody") { login }
		notOrg: organization(login: "mona") { login }
		rateLimit { limit remaining used cost resetAt nodeCount }
	}`, nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if dig(r.Data, "user", "isViewer") != false || dig(r.Data, "user", "repository", "name") != "app" ||
		dig(r.Data, "user", "secret") != nil || dig(r.Data, "organization", "repository", "viewerPermission") != "READ" {
		t.Fatalf("data: %s", r.Raw)
	}
	var msgs []string
	for _, e := range r.Errors {
		msgs = append(msgs, e.Type+": "+e.Message)
	}
	sort.Strings(msgs)
	want := []string{
		"NOT_FOUND: Could not resolve to a User with the login of 'nobody'.",
		"NOT_FOUND: Could not resolve to an Organization with the login of 'mona'.",
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	if n := dig(r.Data, "rateLimit", "limit").(json.Number).String(); n != r.Header.Get("X-RateLimit-Limit") {
		t.Fatalf("rateLimit: %s", r.Raw)
	}
}

// TestIntrospection answers what gh asks to decide which fields it may
// request, from the served schema.
func TestIntrospection(t *testing.T) {
	w := newWorld(t)
	r := post(t, w.e, w.monaTok, `query {
		Repository: __type(name: "Repository") { name kind fields(includeDeprecated: true) { name type { kind name ofType { kind name } } args { name defaultValue } } }
		Visibility: __type(name: "RepositoryVisibility") { enumValues(includeDeprecated: true) { name } }
		Missing: __type(name: "TeamDiscussion") { name }
		__schema { queryType { name } types { name } }
	}`, nil)
	d := mustData(t, r)
	var names []string
	for _, f := range dig(d, "Repository", "fields").([]any) {
		names = append(names, f.(map[string]any)["name"].(string))
	}
	if !contains(names, "viewerPermission") || contains(names, "issues_not_yet") || dig(d, "Repository", "kind") != "OBJECT" {
		t.Fatalf("Repository fields: %v", names)
	}
	if len(names) != len(served.AST.Types["Repository"].Fields) {
		t.Fatalf("introspection lists %d fields, the schema has %d", len(names), len(served.AST.Types["Repository"].Fields))
	}
	if d["Missing"] != nil {
		t.Fatalf("a type hubd does not serve is introspected: %s", r.Raw)
	}
	if len(dig(d, "Visibility", "enumValues").([]any)) != 3 {
		t.Fatalf("enum values: %s", r.Raw)
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestBadDocuments(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct{ query, want string }{
		{`{ viewer { login `, "Expected"},
		{`{ viewer { nosuchfield } }`, "nosuchfield"},
		{`query($n: String!) { repository(owner: "mona", name: $n) { name } }`, "n"},
		{`query A { viewer { login } } query B { viewer { login } }`, "operation name is required"},
	} {
		r := post(t, w.e, w.monaTok, c.query, nil)
		if r.Status != 200 || len(r.Errors) == 0 || r.Data != nil || !strings.Contains(string(r.Raw), c.want) {
			t.Errorf("%q: %d %s", c.query, r.Status, r.Raw)
		}
	}
	// Not JSON at all: 400, as GitHub answers.
	req, _ := http.NewRequest("POST", w.e.URL+"/api/graphql", strings.NewReader(`{not json`))
	req.Header.Set("Authorization", "token "+w.monaTok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("bad JSON: %d", resp.StatusCode)
	}
}

// TestLenientMerging: fields of one response name in fragments on
// different object types may have different types, as GitHub allows (gh
// selects `state` on Issue and PullRequest in one issueOrPullRequest).
func TestLenientMerging(t *testing.T) {
	w := newWorld(t)
	rest := w.e.Must(200, "GET", "/repos/mona/app", w.monaTok, nil).Map(t)
	r := post(t, w.e, w.monaTok, `query($ids: [ID!]!) { nodes(ids: $ids) {
		... on Repository { x: isPrivate }
		... on User { x: login }
	} }`, map[string]any{"ids": []any{rest["node_id"], w.e.Must(200, "GET", "/users/mona", w.monaTok, nil).Map(t)["node_id"]}})
	nodes := mustData(t, r)["nodes"].([]any)
	if dig(nodes[0], "x") != false || dig(nodes[1], "x") != "mona" {
		t.Fatalf("%s", r.Raw)
	}
}

// TestPointCost: GitHub's documented example costs 51 points and may return
// 305,100 nodes; a document past 500,000 nodes is refused before it runs.
func TestPointCost(t *testing.T) {
	w := newWorld(t)
	q := `query {
		viewer { login repositories(first: 100) { edges { node { name
			issues(first: 50) { totalCount edges { node { title labels(first: 60) { edges { node { name } } } } } }
		} } } }
		rateLimit { cost nodeCount remaining used }
	}`
	r := post(t, w.e, w.monaTok, q, nil)
	d := mustData(t, r)
	if dig(d, "rateLimit", "cost").(json.Number).String() != "51" || dig(d, "rateLimit", "nodeCount").(json.Number).String() != "305100" {
		t.Fatalf("cost: %s", r.Raw)
	}
	if used := dig(d, "rateLimit", "used").(json.Number).String(); used != "51" || r.Header.Get("X-RateLimit-Used") != "51" {
		t.Fatalf("points taken: rateLimit.used %s, header %s", used, r.Header.Get("X-RateLimit-Used"))
	}
	r = post(t, w.e, w.monaTok, `{ rateLimit { cost used } }`, nil)
	if dig(mustData(t, r), "rateLimit", "cost").(json.Number).String() != "1" || dig(r.Data, "rateLimit", "used").(json.Number).String() != "52" {
		t.Fatalf("a plain query: %s", r.Raw)
	}
	// GitHub names a connection that alone may return more than 500,000
	// nodes, or else the document's sum.
	for _, c := range []struct{ labels, want string }{
		{"100", "By the time this query traverses to the labels connection, it is requesting up to 1,000,000 possible nodes which exceeds the maximum limit of 500,000."},
		{"50", "This query requests up to 510,100 possible nodes which exceeds the maximum limit of 500,000."},
	} {
		r = post(t, w.e, w.monaTok, `{ viewer { repositories(first: 100) { nodes { issues(first: 100) { nodes { labels(first: `+c.labels+`) { nodes { name } } } } } } } }`, nil)
		if len(r.Errors) != 1 || r.Errors[0].Type != "MAX_NODE_LIMIT_EXCEEDED" || r.Data != nil || r.Errors[0].Message != c.want {
			t.Fatalf("node limit: %s", r.Raw)
		}
	}
}

// TestDocumentBounds: documents past GitHub's depth, with conflicting
// aliases or too large are refused as GitHub refuses them (the engine's
// amplification suite measures the work).
func TestDocumentBounds(t *testing.T) {
	w := newWorld(t)
	deep := `{ repositoryOwner(login: "mona") {` + strings.Repeat(` repository(name: "app") { owner {`, 13) + ` login` + strings.Repeat(` } }`, 13) + ` } }`
	for _, c := range []struct{ query, want string }{
		{deep, "Query has depth of 28, which exceeds max depth of 25"},
		{`{ viewer { a: login a: name } }`, "Field 'a' has a field conflict: login or name?"},
		{"{ viewer {" + strings.Repeat(" login", 40_000) + " } }", "This query is too large to execute."},
	} {
		r := post(t, w.e, w.monaTok, c.query, nil)
		if r.Status != 200 || r.Data != nil || len(r.Errors) != 1 || r.Errors[0].Message != c.want {
			t.Errorf("want %q: %d %.300s", c.want, r.Status, r.Raw)
		}
	}
}
