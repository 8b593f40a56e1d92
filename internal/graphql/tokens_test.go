package graphql_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// repoIssuesAndPulls reads a repository's issues and pull requests.
const repoIssuesAndPulls = `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
	nameWithOwner issues(first: 5) { totalCount nodes { title } } pullRequests(first: 5) { totalCount } } }`

// installedApp is an app owned by octo (issues: write, contents: read)
// installed on octo's core only.
type installedApp struct {
	ID       int64  `json:"id"`
	Slug     string `json:"slug"`
	ClientID string `json:"client_id"`
	inst     *model.Installation
}

// installationToken installs the app and makes its ghs_ token.
func installationToken(t *testing.T, w *world) (string, *installedApp) {
	t.Helper()
	e := w.e
	app := &installedApp{}
	e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "octo", "name": "Triage Bot",
		"default_permissions": map[string]string{"issues": "write", "contents": "read"}}).JSON(t, app)
	var in struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, map[string]any{
		"account": "octo", "repository_selection": "selected", "repositories": []string{"core"}}).JSON(t, &in)
	inst, err := e.Store.R().InstallationByID(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	app.inst = inst
	var tok string
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		tok, _, err = tx.CreateInstallationToken(ctx, inst, inst.Permissions, nil, e.Store.Now().Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok, "ghs_") {
		t.Fatalf("installation token %q", tok)
	}
	return tok, app
}

// forbiddenAt checks that r refused exactly the field at path with
// GitHub's FORBIDDEN error and message.
func forbiddenAt(t *testing.T, r *gqlResult, msg string, path ...string) {
	t.Helper()
	if r.Status != 200 || len(r.Errors) != 1 {
		t.Fatalf("want one error at %v: %d %s", path, r.Status, r.Raw)
	}
	e := r.Errors[0]
	var got []string
	for _, p := range e.Path {
		s, _ := p.(string)
		got = append(got, s)
	}
	if e.Type != "FORBIDDEN" || e.Message != msg || strings.Join(got, ".") != strings.Join(path, ".") {
		t.Fatalf("error %+v, want FORBIDDEN %q at %v", e, msg, path)
	}
	if e.Extensions["saml_failure"] != false || !strings.Contains(string(r.Raw), `"path":`) ||
		!strings.Contains(string(r.Raw), `"extensions":{"saml_failure":false},"locations":`) {
		t.Fatalf("FORBIDDEN error without GitHub's extensions: %s", r.Raw)
	}
	var at any = r.Data
	for _, p := range path[:len(path)-1] {
		at = dig(at, p)
	}
	m, ok := at.(map[string]any)
	if v, present := m[path[len(path)-1]]; !ok || !present || v != nil {
		t.Fatalf("%v is not null in %s", path, r.Raw)
	}
}

// tokenKindCase is what one token kind is checked for: it reads issues
// and creates one in repo, is refused pull requests there, and does not
// see hidden.
func tokenKindCase(t *testing.T, w *world, tok, owner, repo, hidden, msg string) {
	t.Helper()
	e := w.e
	var gh = e.GitHub(w.monaTok)
	if owner == "octo" {
		gh = e.GitHub(w.olgaTok)
	}
	if _, _, err := gh.Issues.Create(ctx, owner, repo, github.CreateIssueRequest{Title: "Seeded"}); err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{"owner": owner, "name": repo}
	r := post(t, e, tok, repoIssuesAndPulls, vars)
	forbiddenAt(t, r, msg, "repository", "pullRequests")
	if dig(r.Data, "repository", "nameWithOwner") != owner+"/"+repo || dig(r.Data, "repository", "issues", "totalCount").(interface{ String() string }).String() != "1" ||
		dig(r.Data, "repository", "issues", "nodes").([]any)[0].(map[string]any)["title"] != "Seeded" {
		t.Fatalf("the rest of the document: %s", r.Raw)
	}
	if r.Header.Get("X-OAuth-Scopes") != "" {
		t.Errorf("X-OAuth-Scopes %q for a fine-grained token", r.Header.Get("X-OAuth-Scopes"))
	}

	// A mutation the token's permissions cover runs.
	var id struct {
		NodeID string `json:"node_id"`
	}
	e.Must(200, "GET", "/repos/"+owner+"/"+repo, tok, nil).JSON(t, &id)
	created := mustData(t, post(t, e, tok, `mutation($in: CreateIssueInput!) { createIssue(input: $in) { issue { number title } } }`,
		map[string]any{"in": map[string]any{"repositoryId": id.NodeID, "title": "By token"}}))
	if dig(created, "createIssue", "issue", "title") != "By token" {
		t.Fatalf("createIssue: %v", created)
	}
	// One it does not is refused before it runs: nothing is written.
	r = post(t, e, tok, `mutation($in: CreatePullRequestInput!) { createPullRequest(input: $in) { pullRequest { number } } }`,
		map[string]any{"in": map[string]any{"repositoryId": id.NodeID, "baseRefName": "main", "headRefName": "main", "title": "x"}})
	forbiddenAt(t, r, msg, "createPullRequest")
	if r.Data == nil {
		t.Fatalf("mutation data dropped: %s", r.Raw)
	}

	// A public repository outside the token's grant (mona/app: outside
	// every token's selection, though mona owns it) is read, never written:
	// each mutation is refused with the token's message and changes
	// nothing.
	e.Must(200, "GET", "/repos/mona/app", tok, nil).JSON(t, &id)
	var outside struct {
		NodeID string `json:"node_id"`
		Number int    `json:"number"`
	}
	e.Must(201, "POST", "/repos/mona/app/issues", w.monaTok, map[string]any{"title": "Outside"}).JSON(t, &outside)
	for name, in := range map[string]map[string]any{
		"createIssue": {"repositoryId": id.NodeID, "title": "Planted"},
		"addComment":  {"subjectId": outside.NodeID, "body": "Planted"},
		"closeIssue":  {"issueId": outside.NodeID},
	} {
		typ := strings.ToUpper(name[:1]) + name[1:] + "Input"
		r = post(t, e, tok, `mutation($in: `+typ+`!) { `+name+`(input: $in) { clientMutationId } }`, map[string]any{"in": in})
		forbiddenAt(t, r, msg, name)
	}
	var after []struct {
		State    string `json:"state"`
		Comments int    `json:"comments"`
	}
	e.Must(200, "GET", "/repos/mona/app/issues?state=all", w.monaTok, nil).JSON(t, &after)
	if len(after) != 1 || after[0].State != "open" || after[0].Comments != 0 {
		t.Fatalf("mona/app's issues after the refused mutations: %+v", after)
	}

	// A repository outside the token's reach is GitHub's NOT_FOUND.
	r = post(t, e, tok, repoIssuesAndPulls, map[string]any{"owner": owner, "name": hidden})
	if len(r.Errors) != 1 || r.Errors[0].Type != "NOT_FOUND" || r.Data["repository"] != nil {
		t.Fatalf("%s/%s outside the token: %s", owner, hidden, r.Raw)
	}
	// So is its node id.
	e.Must(200, "GET", "/repos/"+owner+"/"+hidden, w.tokOf(owner), nil).JSON(t, &id)
	r = post(t, e, tok, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id.NodeID})
	if r.Data["node"] != nil || len(r.Errors) != 1 || r.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("node of %s/%s outside the token: %s", owner, hidden, r.Raw)
	}
}

func (w *world) tokOf(owner string) string {
	if owner == "octo" {
		return w.olgaTok
	}
	return w.monaTok
}

// TestInstallationToken: a GitHub App's installation token queries and
// mutates through GraphQL with its installation's permissions and
// repositories.
func TestInstallationToken(t *testing.T) {
	w := newWorld(t)
	if _, _, err := w.e.GitHub(w.olgaTok).Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("vault"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	tok, _ := installationToken(t, w)
	tokenKindCase(t, w, tok, "octo", "core", "vault", "Resource not accessible by integration")
}

// TestUserAccessToken: a GitHub App's ghu_ token for olga sees what both
// she and the installation may (core, not vault), with the app's
// permissions.
func TestUserAccessToken(t *testing.T) {
	w := newWorld(t)
	if _, _, err := w.e.GitHub(w.olgaTok).Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("vault"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	_, app := installationToken(t, w)
	exp := w.e.Store.Now().Add(8 * time.Hour)
	var ghu string
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		ghu, _, err = tx.CreateClientToken(ctx, authz.UserToServer, w.olga.ID, app.ClientID, app.ID, nil, &exp)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ghu, "ghu_") {
		t.Fatalf("user access token %q", ghu)
	}
	tokenKindCase(t, w, ghu, "octo", "core", "vault", "Resource not accessible by integration")
}

// TestFineGrainedToken: a fine-grained personal access token likewise,
// with its own message.
func TestFineGrainedToken(t *testing.T) {
	w := newWorld(t)
	if _, _, err := w.e.GitHub(w.monaTok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hidden"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	var tok struct {
		Token string `json:"token"`
	}
	w.e.Must(201, "POST", "/admin/users/mona/personal-access-tokens", w.monaTok, map[string]any{"name": "gql",
		"repositories": []string{"secret"}, "permissions": map[string]string{"issues": "write"}}).JSON(t, &tok)
	if !strings.HasPrefix(tok.Token, "github_pat_") {
		t.Fatalf("token %q", tok.Token)
	}
	tokenKindCase(t, w, tok.Token, "mona", "secret", "hidden", "Resource not accessible by personal access token")
}

// TestClassicTokenUnchanged: a classic token keeps its scopes: the same
// document answers in full.
func TestClassicTokenUnchanged(t *testing.T) {
	w := newWorld(t)
	d := mustData(t, post(t, w.e, w.monaTok, repoIssuesAndPulls, map[string]any{"owner": "mona", "name": "secret"}))
	if dig(d, "repository", "pullRequests", "totalCount") == nil {
		t.Fatalf("classic token: %v", d)
	}
}
