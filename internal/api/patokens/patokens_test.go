package patokens_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world is an organization acme (owner alice, member bob) with private
// repositories widgets and gadgets, bob's private repository bob/own and
// public bob/pub, and an app "Token Desk" installed on acme with the
// organization permissions over fine-grained tokens.
type world struct {
	t                *testing.T
	e                *apitest.Env
	aliceTok, bobTok string
	appTok           string // the installation's token
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	w := &world{t: t, e: e}
	_, w.aliceTok = e.NewUser("alice", false)
	bob, bobTok := e.NewUser("bob", false)
	w.bobTok = bobTok
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "alice"})
	org, err := e.Store.R().AccountByLogin(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: bob.ID, Role: model.RoleMember, State: store.StateActive})
	}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"widgets", "gadgets"} {
		if _, _, err := e.GitHub(w.aliceTok).Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
	}
	for name, private := range map[string]bool{"own": true, "pub": false} {
		if _, _, err := e.GitHub(bobTok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(private), AutoInit: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
	}
	// An app with the token permissions, installed on acme; its
	// installation token is made by the apps service, as for
	// `hubd app install`.
	var app struct {
		Slug string `json:"slug"`
	}
	e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "acme", "name": "Token Desk",
		"default_permissions": map[string]string{"organization_personal_access_token_requests": "write", "organization_personal_access_tokens": "write"}}).JSON(t, &app)
	var in struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, map[string]any{"account": "acme"}).JSON(t, &in)
	inst, err := e.Store.R().InstallationByID(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		w.appTok, _, err = tx.CreateInstallationToken(ctx, inst, inst.Permissions, nil, e.Store.Now().Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

// created is the answer of the hubd route that creates a token.
type created struct {
	ID     int64   `json:"id"`
	Token  string  `json:"token"`
	Status *string `json:"status"`
}

// create makes a fine-grained token for bob through hubd's route.
func (w *world) create(body map[string]any) created {
	w.t.Helper()
	var c created
	w.e.Must(201, "POST", "/admin/users/bob/personal-access-tokens", w.bobTok, body).JSON(w.t, &c)
	return c
}

func message(t *testing.T, r *apitest.Response) string {
	t.Helper()
	var m struct {
		Message string `json:"message"`
	}
	r.JSON(t, &m)
	return m.Message
}

func expect(t *testing.T, what string, r *apitest.Response, status int, msg string) {
	t.Helper()
	if r.StatusCode != status {
		t.Fatalf("%s: status %d, want %d: %.300s", what, r.StatusCode, status, r.Body)
	}
	if msg != "" {
		if got := message(t, r); got != msg {
			t.Fatalf("%s: message %q, want %q", what, got, msg)
		}
	}
}

const patRefused = "Resource not accessible by personal access token"

// A token on acme's widgets waits for approval (acme requires it, GitHub's
// default), reaching only public repositories meanwhile; the app lists and
// approves the request through go-github; the token then reaches widgets
// with its permissions and nothing else of acme; revoked, it loses it.
func TestApprovalFlow(t *testing.T) {
	w := newWorld(t)
	e := w.e
	tok := w.create(map[string]any{"name": "ci", "resource_owner": "acme", "repositories": []string{"widgets"},
		"permissions": map[string]string{"issues": "write"}, "expires_in_days": 30, "reason": "CI triage"})
	if !strings.HasPrefix(tok.Token, "github_pat_") || len(tok.Token) != 93 || tok.Token[33] != '_' {
		t.Fatalf("token %q is not in GitHub's format", tok.Token)
	}
	if tok.Status == nil || *tok.Status != "pending" {
		t.Fatalf("status %v, want pending", tok.Status)
	}
	pat := tok.Token

	// Pending: acme's private repositories are out of reach, public ones read.
	expect(t, "pending, widgets", e.Do("GET", "/repos/acme/widgets", pat, nil), 404, "")
	r := e.Must(200, "GET", "/repos/bob/pub", pat, nil)
	if r.Header.Get("X-OAuth-Scopes") != "" {
		t.Errorf("X-OAuth-Scopes %q sent to a fine-grained token", r.Header.Get("X-OAuth-Scopes"))
	}

	// Personal access tokens may not manage requests; the app does.
	expect(t, "classic token lists requests", e.Do("GET", "/orgs/acme/personal-access-token-requests", w.aliceTok, nil), 403, patRefused)
	expect(t, "fine-grained token lists requests", e.Do("GET", "/orgs/acme/personal-access-token-requests", pat, nil), 403, patRefused)
	app := e.GitHub(w.appTok)
	reqs, _, err := app.Organizations.ListFineGrainedPersonalAccessTokenRequests(ctx, "acme", &github.ListFineGrainedPATOptions{Owner: []string{"bob"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || reqs[0].Owner.GetLogin() != "bob" || reqs[0].TokenID != tok.ID || reqs[0].TokenName != "ci" ||
		reqs[0].RepositorySelection != "subset" || reqs[0].Reason != "CI triage" ||
		reqs[0].Permissions.Repo["issues"] != "write" || reqs[0].Permissions.Repo["metadata"] != "read" {
		t.Fatalf("requests %+v", reqs)
	}
	var repos []map[string]any
	e.Must(200, "GET", "/orgs/acme/personal-access-token-requests/"+strconv.FormatInt(reqs[0].ID, 10)+"/repositories", w.appTok, nil).JSON(t, &repos)
	if len(repos) != 1 || repos[0]["full_name"] != "acme/widgets" {
		t.Fatalf("request repositories %v", repos)
	}
	if _, err := app.Organizations.ReviewPersonalAccessTokenRequest(ctx, "acme", reqs[0].ID, github.ReviewPersonalAccessTokenRequestOptions{Action: "approve"}); err != nil {
		t.Fatal(err)
	}
	expect(t, "review twice", e.Do("POST", "/orgs/acme/personal-access-token-requests/"+strconv.FormatInt(reqs[0].ID, 10), w.appTok, map[string]any{"action": "deny"}), 404, "")

	// Approved: widgets with issues: write, nothing else of acme.
	e.Must(200, "GET", "/repos/acme/widgets", pat, nil)
	expect(t, "gadgets", e.Do("GET", "/repos/acme/gadgets", pat, nil), 404, "")
	expect(t, "bob's own private repository", e.Do("GET", "/repos/bob/own", pat, nil), 404, "")
	issue, _, err := e.GitHub(pat).Issues.Create(ctx, "acme", "widgets", github.CreateIssueRequest{Title: "from a fine-grained token"})
	if err != nil {
		t.Fatal(err)
	}
	if issue.GetUser().GetLogin() != "bob" {
		t.Errorf("issue by %q, want bob", issue.GetUser().GetLogin())
	}
	r = e.Do("GET", "/repos/acme/widgets/contents/README.md", pat, nil)
	expect(t, "contents without the permission", r, 403, patRefused)
	if got := r.Header.Get("X-Accepted-GitHub-Permissions"); got != "contents=read" {
		t.Errorf("X-Accepted-GitHub-Permissions %q", got)
	}

	grants, _, err := app.Organizations.ListFineGrainedPersonalAccessTokens(ctx, "acme", &github.ListFineGrainedPATOptions{Permission: "issues_write"})
	if err != nil {
		t.Fatal(err)
	}
	if len(grants) != 1 || grants[0].GetTokenID() != tok.ID || grants[0].AccessGrantedAt == nil || grants[0].GetTokenExpired() {
		t.Fatalf("grants %+v", grants)
	}
	var grantRepos []map[string]any
	e.Must(200, "GET", "/orgs/acme/personal-access-tokens/"+strconv.FormatInt(grants[0].GetID(), 10)+"/repositories?per_page=1", w.appTok, nil).JSON(t, &grantRepos)
	if len(grantRepos) != 1 || grantRepos[0]["full_name"] != "acme/widgets" {
		t.Fatalf("grant repositories %v", grantRepos)
	}
	expect(t, "a request's repositories once granted", e.Do("GET", "/orgs/acme/personal-access-token-requests/"+strconv.FormatInt(grants[0].GetID(), 10)+"/repositories", w.appTok, nil), 404, "")
	for _, q := range []string{"owner[]=alice", "repository=gadgets", "permission=contents", "last_used_before=2030-01-01T00:00:00Z", "token_id[]=" + strconv.FormatInt(tok.ID+100, 10)} {
		var list []any
		e.Must(200, "GET", "/orgs/acme/personal-access-tokens?"+q, w.appTok, nil).JSON(t, &list)
		if len(list) != 0 {
			t.Errorf("grants with %s: %d", q, len(list))
		}
	}
	expect(t, "bad direction", e.Do("GET", "/orgs/acme/personal-access-tokens?direction=up", w.appTok, nil), 422, "")
	var left []any
	e.Must(200, "GET", "/orgs/acme/personal-access-token-requests", w.appTok, nil).JSON(t, &left)
	if len(left) != 0 {
		t.Errorf("%d requests left after the approval", len(left))
	}

	// Revoked: out of reach again.
	e.Must(204, "POST", "/orgs/acme/personal-access-tokens/"+strconv.FormatInt(grants[0].GetID(), 10), w.appTok, map[string]any{"action": "revoke"})
	expect(t, "revoked, widgets", e.Do("GET", "/repos/acme/widgets", pat, nil), 404, "")
	expect(t, "revoke twice", e.Do("POST", "/orgs/acme/personal-access-tokens", w.appTok, map[string]any{"action": "revoke", "pat_ids": []int64{grants[0].GetID()}}), 404, "")
	expect(t, "revoke without action", e.Do("POST", "/orgs/acme/personal-access-tokens/1", w.appTok, map[string]any{}), 422, "")

	// Denied in bulk: never in reach.
	t2 := w.create(map[string]any{"name": "deploy", "resource_owner": "acme", "repository_selection": "all",
		"permissions": map[string]string{"contents": "read"}})
	var pending []struct {
		ID int64 `json:"id"`
	}
	e.Must(200, "GET", "/orgs/acme/personal-access-token-requests", w.appTok, nil).JSON(t, &pending)
	if len(pending) != 1 {
		t.Fatalf("%d pending requests", len(pending))
	}
	e.Must(202, "POST", "/orgs/acme/personal-access-token-requests", w.appTok, map[string]any{"pat_request_ids": []int64{pending[0].ID}, "action": "deny", "reason": "too broad"})
	expect(t, "denied", e.Do("GET", "/repos/acme/gadgets", t2.Token, nil), 404, "")
	expect(t, "bad action", e.Do("POST", "/orgs/acme/personal-access-token-requests", w.appTok, map[string]any{"pat_request_ids": []int64{1}, "action": "maybe"}), 422, "")

	// Approved, then revoked in bulk.
	t3 := w.create(map[string]any{"name": "nightly", "resource_owner": "acme", "repository_selection": "all",
		"permissions": map[string]string{"contents": "read"}})
	e.Must(200, "GET", "/orgs/acme/personal-access-token-requests", w.appTok, nil).JSON(t, &pending)
	if len(pending) != 1 {
		t.Fatalf("%d pending requests", len(pending))
	}
	e.Must(202, "POST", "/orgs/acme/personal-access-token-requests", w.appTok, map[string]any{"pat_request_ids": []int64{pending[0].ID}, "action": "approve"})
	e.Must(200, "GET", "/repos/acme/gadgets", t3.Token, nil)
	var granted []struct {
		ID      int64 `json:"id"`
		TokenID int64 `json:"token_id"`
	}
	e.Must(200, "GET", "/orgs/acme/personal-access-tokens?token_id[]="+strconv.FormatInt(t3.ID, 10), w.appTok, nil).JSON(t, &granted)
	if len(granted) != 1 || granted[0].TokenID != t3.ID {
		t.Fatalf("grants of the third token: %+v", granted)
	}
	e.Must(202, "POST", "/orgs/acme/personal-access-tokens", w.appTok, map[string]any{"action": "revoke", "pat_ids": []int64{granted[0].ID}})
	expect(t, "revoked in bulk", e.Do("GET", "/repos/acme/gadgets", t3.Token, nil), 404, "")
}

// A token on bob's own account reaches his repositories at once; it
// expires as asked and is then bad credentials.
func TestUserTokenAndExpiry(t *testing.T) {
	w := newWorld(t)
	e := w.e
	tok := w.create(map[string]any{"name": "mine", "repository_selection": "all", "permissions": map[string]string{"contents": "read"}, "expires_in_days": 1})
	if tok.Status != nil {
		t.Fatalf("status %v for a token on the user's own resources", *tok.Status)
	}
	e.Must(200, "GET", "/repos/bob/own", tok.Token, nil)
	e.Must(200, "GET", "/repos/bob/own/contents/README.md", tok.Token, nil)
	expect(t, "issues without permission", e.Do("GET", "/repos/bob/own/issues", tok.Token, nil), 403, patRefused)
	expect(t, "acme's repository", e.Do("GET", "/repos/acme/widgets", tok.Token, nil), 404, "")
	// Lists hold the resource owner's private repositories only.
	var mine []struct {
		FullName string `json:"full_name"`
	}
	e.Must(200, "GET", "/user/repos?per_page=100", tok.Token, nil).JSON(t, &mine)
	names := []string{}
	for _, r := range mine {
		names = append(names, r.FullName)
	}
	if strings.Join(names, " ") != "bob/own bob/pub" {
		t.Errorf("/user/repos with a token on bob: %v", names)
	}
	var orgRepos []any
	e.Must(200, "GET", "/orgs/acme/repos", tok.Token, nil).JSON(t, &orgRepos)
	if len(orgRepos) != 0 {
		t.Errorf("acme's private repositories listed to a token on bob: %d", len(orgRepos))
	}
	// Organization operations need the token to target the organization.
	expect(t, "site admin route", e.Do("POST", "/admin/users/bob/personal-access-tokens", tok.Token, map[string]any{"name": "x"}), 403, patRefused)

	start := time.Now()
	e.Store.SetClock(func() time.Time { return start.Add(25 * time.Hour) })
	expect(t, "expired", e.Do("GET", "/repos/bob/own", tok.Token, nil), 401, "Bad credentials")
}

// Creation refuses what GitHub's form refuses.
func TestCreateValidation(t *testing.T) {
	w := newWorld(t)
	w.create(map[string]any{"name": "taken"})
	for name, body := range map[string]map[string]any{
		"no name":                             {},
		"name taken":                          {"name": "taken"},
		"lifetime over 366 days":              {"name": "a", "expires_in_days": 367},
		"repository permission alone":         {"name": "b", "permissions": map[string]string{"issues": "write"}},
		"organization permission, user owner": {"name": "c", "permissions": map[string]string{"members": "read"}},
		"unknown permission":                  {"name": "d", "repository_selection": "all", "permissions": map[string]string{"issues": "admin"}},
		"unknown repository":                  {"name": "e", "repositories": []string{"nope"}},
		"no expiry on an organization":        {"name": "f", "resource_owner": "acme", "expires_in_days": 0},
		"organization not joined":             {"name": "g", "resource_owner": "hubd-none"},
	} {
		r := w.e.Do("POST", "/admin/users/bob/personal-access-tokens", w.bobTok, body)
		if r.StatusCode != 422 {
			t.Errorf("%s: %d %s", name, r.StatusCode, r.Body)
		}
	}
	expect(t, "for another user", w.e.Do("POST", "/admin/users/alice/personal-access-tokens", w.bobTok, map[string]any{"name": "x"}), 403, "Must be a site administrator.")
	w.e.Must(201, "POST", "/admin/users/alice/personal-access-tokens", w.e.AdminToken, map[string]any{"name": "by the admin"})
}

// An organization's policy: without approval a token is in reach at once;
// restricted, fine-grained tokens reach none of its private resources and
// new ones are refused.
func TestPolicy(t *testing.T) {
	w := newWorld(t)
	e := w.e
	var p map[string]bool
	e.Must(200, "GET", "/admin/organizations/acme/personal-access-token-policy", w.aliceTok, nil).JSON(t, &p)
	if !p["fine_grained_allowed"] || !p["approval_required"] {
		t.Fatalf("default policy %v", p)
	}
	expect(t, "member sets policy", e.Do("PUT", "/admin/organizations/acme/personal-access-token-policy", w.bobTok, map[string]any{"approval_required": false}), 403, "")
	e.Must(200, "PUT", "/admin/organizations/acme/personal-access-token-policy", w.aliceTok, map[string]any{"approval_required": false})
	tok := w.create(map[string]any{"name": "quick", "resource_owner": "acme", "repositories": []string{"gadgets"}, "permissions": map[string]string{"members": "read"}})
	if tok.Status == nil || *tok.Status != "approved" {
		t.Fatalf("status %v, want approved", tok.Status)
	}
	e.Must(200, "GET", "/repos/acme/gadgets", tok.Token, nil)
	e.Must(200, "GET", "/orgs/acme/members", tok.Token, nil)
	e.Must(200, "PUT", "/admin/organizations/acme/personal-access-token-policy", w.aliceTok, map[string]any{"fine_grained_allowed": false})
	expect(t, "restricted", e.Do("GET", "/repos/acme/gadgets", tok.Token, nil), 404, "")
	expect(t, "restricted, organization members", e.Do("GET", "/orgs/acme/members", tok.Token, nil), 403, patRefused)
	r := e.Do("POST", "/admin/users/bob/personal-access-tokens", w.bobTok, map[string]any{"name": "late", "resource_owner": "acme"})
	expect(t, "create when restricted", r, 403, "This organization has restricted access via fine-grained personal access tokens")
	_ = http.StatusOK
}
