package admin_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func eventTypes(t *testing.T, e *apitest.Env) []string {
	t.Helper()
	evs, err := e.Store.R().EventsAfter(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

func hasEvent(t *testing.T, e *apitest.Env, typ string) bool {
	for _, et := range eventTypes(t, e) {
		if et == typ {
			return true
		}
	}
	return false
}

func TestCreateUser(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	gh := e.GitHub(e.AdminToken)

	u, resp, err := gh.Admin.CreateUser(ctx, github.CreateUserRequest{Login: "mona", Email: github.Ptr("mona@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusCreated || u.GetLogin() != "mona" || u.GetType() != "User" || u.GetSiteAdmin() || u.GetID() == 0 {
		t.Fatalf("create = %d %+v", resp.StatusCode, u)
	}
	if resp.Header.Get("X-Accepted-OAuth-Scopes") != "site_admin" {
		t.Fatalf("X-Accepted-OAuth-Scopes = %q", resp.Header.Get("X-Accepted-OAuth-Scopes"))
	}
	got, _, err := gh.Users.Get(ctx, "mona")
	if err != nil || got.GetID() != u.GetID() || got.GetEmail() != "mona@example.com" {
		t.Fatalf("GET /users/mona = %+v %v", got, err)
	}
	if !hasEvent(t, e, "user.created") {
		t.Fatalf("no user.created event: %v", eventTypes(t, e))
	}

	// GHES normalizes the login to letters, digits and single hyphens.
	oc, _, err := gh.Admin.CreateUser(ctx, github.CreateUserRequest{Login: "octo_cat"})
	if err != nil || oc.GetLogin() != "octo-cat" {
		t.Fatalf("octo_cat = %+v %v", oc, err)
	}

	// A user created suspended cannot use a token.
	if _, _, err := gh.Admin.CreateUser(ctx, github.CreateUserRequest{Login: "sleepy", Suspended: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	sleepy, err := e.Store.R().AccountByLogin(ctx, "sleepy")
	if err != nil || sleepy.SuspendedAt == nil {
		t.Fatalf("sleepy = %+v %v", sleepy, err)
	}
	e.Must(401, "GET", "/user", e.Token(sleepy, "repo"), nil)
}

func TestRenameUser(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	mona, tok := e.NewUser("mona", false)

	r := e.Must(202, "PATCH", "/admin/users/mona", e.AdminToken, map[string]string{"login": "monalisa"})
	m := r.Map(t)
	if m["message"] != "Job queued to rename user. It may take a few minutes to complete." || m["url"] != e.API+"/user/"+strconv.FormatInt(mona.ID, 10) {
		t.Fatalf("rename body %s", r.Body)
	}
	gh := e.GitHub(tok)
	me, _, err := gh.Users.Get(ctx, "")
	if err != nil || me.GetLogin() != "monalisa" || me.GetID() != mona.ID {
		t.Fatalf("GET /user after rename = %+v %v", me, err)
	}
	e.Must(404, "GET", "/users/mona", "", nil)
	e.Must(200, "GET", "/users/monalisa", "", nil)
	// A change of case only is a rename too.
	e.Must(202, "PATCH", "/admin/users/monalisa", e.AdminToken, map[string]string{"login": "MonaLisa"})
	if m := e.Must(200, "GET", "/users/monalisa", "", nil).Map(t); m["login"] != "MonaLisa" {
		t.Fatalf("login = %v", m["login"])
	}
	if !hasEvent(t, e, "user.renamed") {
		t.Fatalf("no user.renamed event: %v", eventTypes(t, e))
	}
}

func TestDeleteUser(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	mona, tok := e.NewUser("mona", false)
	hubot, _ := e.NewUser("hubot", false)
	org := &model.Account{Login: "octo-org"}
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, hubot.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: mona.ID, Role: model.RoleMember, State: "active"})
	})
	if err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(e.AdminToken)
	imp, _, err := gh.Admin.CreateUserImpersonation(ctx, "mona", github.CreateUserImpersonationRequest{Scopes: []string{"repo"}})
	if err != nil {
		t.Fatal(err)
	}

	resp, err := gh.Admin.DeleteUser(ctx, "mona")
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %v %v", resp, err)
	}
	e.Must(404, "GET", "/users/mona", "", nil)
	// Tokens and memberships went with the account.
	e.Must(401, "GET", "/user", tok, nil)
	e.Must(401, "GET", "/user", imp.GetToken(), nil)
	if _, err := e.Store.R().Membership(ctx, org.ID, mona.ID); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("membership after delete: %v", err)
	}
	if _, err := e.Store.R().Membership(ctx, org.ID, hubot.ID); err != nil {
		t.Fatalf("other member lost: %v", err)
	}
	if !hasEvent(t, e, "user.deleted") {
		t.Fatalf("no user.deleted event: %v", eventTypes(t, e))
	}
	// The login is free again.
	if _, _, err := gh.Admin.CreateUser(ctx, github.CreateUserRequest{Login: "mona"}); err != nil {
		t.Fatal(err)
	}
}

func TestImpersonation(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	_, pat := e.NewUser("mona", false)
	gh := e.GitHub(e.AdminToken)

	a, resp, err := gh.Admin.CreateUserImpersonation(ctx, "mona", github.CreateUserImpersonationRequest{Scopes: []string{"user", "repo"}})
	if err != nil {
		t.Fatal(err)
	}
	tok := a.GetToken()
	if resp.StatusCode != http.StatusCreated || !strings.HasPrefix(tok, "gho_") || len(tok) != 40 {
		t.Fatalf("impersonation = %d %+v", resp.StatusCode, a)
	}
	if a.GetTokenLastEight() != tok[len(tok)-8:] || a.GetHashedToken() != store.HashToken(tok) {
		t.Fatalf("last eight %q hashed %q", a.GetTokenLastEight(), a.GetHashedToken())
	}
	if len(a.Scopes) != 2 || a.Scopes[0] != "repo" || a.Scopes[1] != "user" || a.GetApp().GetName() == "" {
		t.Fatalf("authorization = %+v", a)
	}
	// The token acts as mona with exactly its scopes.
	r := e.Must(200, "GET", "/user", tok, nil)
	if m := r.Map(t); m["login"] != "mona" || r.Header.Get("X-OAuth-Scopes") != "repo, user" {
		t.Fatalf("GET /user with impersonation token: %s %v", r.Body, r.Header.Get("X-OAuth-Scopes"))
	}
	// The same scopes again: 200 with the existing token, whose value is
	// not shown twice.
	same, resp, err := gh.Admin.CreateUserImpersonation(ctx, "mona", github.CreateUserImpersonationRequest{Scopes: []string{"repo", "user"}})
	if err != nil || resp.StatusCode != http.StatusOK || same.GetID() != a.GetID() || same.GetToken() != "" ||
		same.GetHashedToken() != a.GetHashedToken() || same.GetTokenLastEight() != a.GetTokenLastEight() {
		t.Fatalf("repeated impersonation: %v %+v %v", resp.Status, same, err)
	}
	// Other scopes: another token (201).
	second, resp, err := gh.Admin.CreateUserImpersonation(ctx, "mona", github.CreateUserImpersonationRequest{Scopes: []string{}})
	if err != nil || resp.StatusCode != http.StatusCreated || second.GetToken() == tok || second.GetID() == a.GetID() {
		t.Fatalf("second token: %+v %v", second, err)
	}
	e.Must(200, "GET", "/user", second.GetToken(), nil)

	resp, err = gh.Admin.DeleteUserImpersonation(ctx, "mona")
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete impersonation: %v %v", resp, err)
	}
	e.Must(401, "GET", "/user", tok, nil)
	e.Must(401, "GET", "/user", second.GetToken(), nil)
	// Her own token is not an impersonation token.
	e.Must(200, "GET", "/user", pat, nil)
	// Deleting when there is none is still a 204.
	e.Must(204, "DELETE", "/admin/users/mona/authorizations", e.AdminToken, nil)
	for _, typ := range []string{"user.impersonation_token_created", "user.impersonation_tokens_deleted"} {
		if !hasEvent(t, e, typ) {
			t.Fatalf("no %s event: %v", typ, eventTypes(t, e))
		}
	}
}

func TestAdminErrors(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	mona, monaTok := e.NewUser("mona", false)
	e.NewUser("hubot", false)
	noScope := e.Token(e.Admin, "repo,user,admin:org")
	org := &model.Account{Login: "octo-org"}
	var fine string
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, mona.ID); err != nil {
			return err
		}
		m, err := tx.AccountByID(ctx, mona.ID)
		if err != nil {
			return err
		}
		m.Email = "mona@example.com"
		if err := tx.UpdateAccount(ctx, m); err != nil {
			return err
		}
		fine, _, err = tx.CreateToken(ctx, e.Admin.ID, authz.FineGrained, nil, "", nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	adm := e.AdminToken
	const notAdmin = "Must be a site administrator."
	for _, tc := range []struct {
		name         string
		method, path string
		token        string
		body         any
		status       int
		message      string
		field, code  string // of errors[0] on a 422
	}{
		{"anonymous create", "POST", "/admin/users", "", `{"login":"x1"}`, 401, "Requires authentication", "", ""},
		{"bad credentials", "POST", "/admin/users", "ghp_nope", `{"login":"x1"}`, 401, "Bad credentials", "", ""},
		{"non-admin create", "POST", "/admin/users", monaTok, `{"login":"x1"}`, 403, notAdmin, "", ""},
		{"non-admin rename", "PATCH", "/admin/users/hubot", monaTok, `{"login":"x1"}`, 403, notAdmin, "", ""},
		{"non-admin delete", "DELETE", "/admin/users/hubot", monaTok, nil, 403, notAdmin, "", ""},
		{"non-admin impersonate", "POST", "/admin/users/hubot/authorizations", monaTok, `{"scopes":[]}`, 403, notAdmin, "", ""},
		{"non-admin revoke", "DELETE", "/admin/users/hubot/authorizations", monaTok, nil, 403, notAdmin, "", ""},
		{"admin without site_admin scope", "POST", "/admin/users", noScope, `{"login":"x1"}`, 403, "Resource not accessible by personal access token", "", ""},
		{"fine-grained token", "POST", "/admin/users", fine, `{"login":"x1"}`, 403, "Resource not accessible by personal access token", "", ""},
		{"malformed JSON", "POST", "/admin/users", adm, `{"login":`, 400, "Problems parsing JSON", "", ""},
		{"login wrong type", "POST", "/admin/users", adm, `{"login":5}`, 422, "Invalid request.\n\nFor 'properties/login', 5 is not a string.", "", ""},
		{"login missing", "POST", "/admin/users", adm, `{}`, 422, "Invalid request.\n\n\"login\" wasn't supplied.", "", ""},
		{"login empty", "POST", "/admin/users", adm, `{"login":""}`, 422, "Validation Failed", "login", "missing_field"},
		{"login only punctuation", "POST", "/admin/users", adm, `{"login":"__"}`, 422, "Validation Failed", "login", "custom"},
		{"login too long", "POST", "/admin/users", adm, `{"login":"` + strings.Repeat("a", 40) + `"}`, 422, "Validation Failed", "login", "custom"},
		{"login reserved", "POST", "/admin/users", adm, `{"login":"admin"}`, 422, "Validation Failed", "login", "custom"},
		{"login taken", "POST", "/admin/users", adm, `{"login":"mona"}`, 422, "Validation Failed", "login", "already_exists"},
		{"login taken, other case", "POST", "/admin/users", adm, `{"login":"HUBOT"}`, 422, "Validation Failed", "login", "already_exists"},
		{"login taken by an org", "POST", "/admin/users", adm, `{"login":"octo-org"}`, 422, "Validation Failed", "login", "already_exists"},
		{"email invalid", "POST", "/admin/users", adm, `{"login":"x1","email":"nope"}`, 422, "Validation Failed", "email", "invalid"},
		{"email taken", "POST", "/admin/users", adm, `{"login":"x1","email":"MONA@example.com"}`, 422, "Validation Failed", "email", "already_exists"},
		{"rename unknown", "PATCH", "/admin/users/nobody", adm, `{"login":"x1"}`, 404, "Not Found", "", ""},
		{"rename an org", "PATCH", "/admin/users/octo-org", adm, `{"login":"x1"}`, 404, "Not Found", "", ""},
		{"rename missing login", "PATCH", "/admin/users/hubot", adm, `{}`, 422, "Invalid request.\n\n\"login\" wasn't supplied.", "", ""},
		{"rename invalid", "PATCH", "/admin/users/hubot", adm, `{"login":"bad_name"}`, 422, "Validation Failed", "login", "custom"},
		{"rename taken", "PATCH", "/admin/users/hubot", adm, `{"login":"Mona"}`, 422, "Validation Failed", "login", "already_exists"},
		{"delete unknown", "DELETE", "/admin/users/nobody", adm, nil, 404, "Not Found", "", ""},
		{"delete an org", "DELETE", "/admin/users/octo-org", adm, nil, 404, "Not Found", "", ""},
		{"delete yourself", "DELETE", "/admin/users/hubadmin", adm, nil, 403, "You cannot delete your own account.", "", ""},
		{"impersonate unknown", "POST", "/admin/users/nobody/authorizations", adm, `{"scopes":["repo"]}`, 404, "Not Found", "", ""},
		{"impersonate without scopes", "POST", "/admin/users/hubot/authorizations", adm, `{}`, 422, "Invalid request.\n\n\"scopes\" wasn't supplied.", "", ""},
		{"impersonate unknown scope", "POST", "/admin/users/hubot/authorizations", adm, `{"scopes":["everything"]}`, 422, "Validation Failed", "scopes", "invalid"},
		{"impersonate scopes wrong type", "POST", "/admin/users/hubot/authorizations", adm, `{"scopes":"repo"}`, 422, "Invalid request.\n\nFor 'properties/scopes', \"repo\" is not an array.", "", ""},
		{"revoke unknown", "DELETE", "/admin/users/nobody/authorizations", adm, nil, 404, "Not Found", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do(tc.method, tc.path, tc.token, tc.body)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			var body struct {
				Message string `json:"message"`
				Docs    string `json:"documentation_url"`
				Errors  []struct {
					Resource, Field, Code string
				} `json:"errors"`
			}
			r.JSON(t, &body)
			if body.Message != tc.message || body.Docs == "" {
				t.Fatalf("body %s", r.Body)
			}
			if tc.code != "" && (len(body.Errors) != 1 || body.Errors[0].Field != tc.field || body.Errors[0].Code != tc.code) {
				t.Fatalf("errors %s", r.Body)
			}
		})
	}
	// Nothing above changed anyone.
	for _, l := range []string{"mona", "hubot", "hubadmin"} {
		e.Must(200, "GET", "/users/"+l, "", nil)
	}
	e.Must(404, "GET", "/users/x1", "", nil)
}
