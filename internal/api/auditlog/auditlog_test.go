package auditlog_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"golang.org/x/crypto/nacl/box"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

func seal(t *testing.T, key *github.PublicKey, value string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(key.GetKey())
	if err != nil || len(raw) != 32 {
		t.Fatalf("public key %q: %v", key.GetKey(), err)
	}
	var pub [32]byte
	copy(pub[:], raw)
	ct, err := box.SealAnonymous(nil, []byte(value), &pub, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(ct)
}

// entries reads a log page raw (the harness validates it against the
// operation's schema).
func entries(t *testing.T, e *apitest.Env, path, tok string, kv ...string) ([]map[string]any, *apitest.Response) {
	t.Helper()
	var out []map[string]any
	if len(kv) > 0 {
		path = apitest.Query(path, kv...)
	}
	r := e.Must(200, "GET", path, tok, nil)
	r.JSON(t, &out)
	return out, r
}

func actions(list []map[string]any) []string {
	var out []string
	for _, m := range list {
		out = append(out, m["action"].(string))
	}
	return out
}

// world makes an organization acme owned by mona with a repository and
// the administrative actions the log records.
func world(t *testing.T, e *apitest.Env) (monaTok, hubotTok string) {
	_, monaTok = e.NewUser("mona", false)
	_, hubotTok = e.NewUser("hubot", false)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	gh := e.GitHub(monaTok)
	if _, _, err := gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("app"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	// Membership: an invitation, accepted.
	e.Must(200, "PUT", "/orgs/acme/memberships/hubot", monaTok, map[string]any{"role": "member"})
	e.Must(200, "PATCH", "/user/memberships/orgs/acme", hubotTok, map[string]any{"state": "active"})
	// A collaborator's invitation.
	e.Must(201, "PUT", "/repos/acme/app/collaborators/"+e.Admin.Login, monaTok, map[string]any{"permission": "push"})
	// Branch protection and a ruleset.
	e.Must(200, "PUT", "/repos/acme/app/branches/main/protection", monaTok, map[string]any{
		"required_status_checks": nil, "enforce_admins": true, "required_pull_request_reviews": nil, "restrictions": nil})
	e.Must(201, "POST", "/repos/acme/app/rulesets", monaTok, map[string]any{"name": "no-deletes", "target": "branch",
		"enforcement": "active", "rules": []map[string]any{{"type": "deletion"}}})
	// A secret and a hook.
	key, _, err := gh.Actions.GetOrgPublicKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Actions.CreateOrUpdateOrgSecret(ctx, "acme", "TOKEN", github.SecretOrgRequest{KeyID: key.GetKeyID(),
		EncryptedValue: seal(t, key, "s3cret"), Visibility: "all"}); err != nil {
		t.Fatal(err)
	}
	e.Must(201, "POST", "/orgs/acme/hooks", monaTok, map[string]any{"name": "web", "config": map[string]any{"url": "https://example.com/hook"}})
	// Visibility.
	e.Must(200, "PATCH", "/repos/acme/app", monaTok, map[string]any{"private": false})
	return monaTok, hubotTok
}

func TestOrgAuditLogRecordsAndSearches(t *testing.T) {
	e := apitest.New(t)
	monaTok, hubotTok := world(t, e)
	auditTok := e.Token(&model.Account{ID: mustID(t, e, "mona"), Login: "mona"}, "read:audit_log")
	log := "/orgs/acme/audit-log"

	all, _ := entries(t, e, log, auditTok, "per_page", "100")
	got := actions(all)
	for _, want := range []string{"org.create", "repo.create", "org.invite_member", "org.add_member", "repository_invitation.create",
		"protected_branch.create", "repository_ruleset.create", "org.create_actions_secret", "hook.create", "repo.access"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %s entry in %v", want, got)
		}
	}
	// Newest first by default.
	if got[0] != "repo.access" || got[len(got)-1] != "org.create" {
		t.Errorf("order = %v", got)
	}
	// Entry shape.
	for _, m := range all {
		switch m["action"] {
		case "repo.create":
			if m["actor"] != "mona" || m["repo"] != "acme/app" || m["org"] != "acme" || m["operation_type"] != "create" {
				t.Errorf("repo.create = %v", m)
			}
		case "org.add_member":
			if m["actor"] != "hubot" || m["user"] != "hubot" {
				t.Errorf("org.add_member = %v", m)
			}
		case "repo.access":
			if m["visibility"] != "public" || m["operation_type"] != "access" {
				t.Errorf("repo.access = %v", m)
			}
		case "org.create":
			if m["actor"] != e.Admin.Login {
				t.Errorf("org.create = %v", m)
			}
		}
		if m["@timestamp"] == nil || m["_document_id"] == nil || m["created_at"] == nil {
			t.Errorf("entry lacks its stamps: %v", m)
		}
	}

	// Qualifiers.
	cases := []struct {
		phrase string
		want   []string
	}{
		{"action:repo.create", []string{"repo.create"}},
		{"action:repo.create action:hook.create", []string{"hook.create", "repo.create"}},
		{"action:org", []string{"org.create_actions_secret", "org.add_member", "org.invite_member", "org.create"}},
		{"actor:hubot", []string{"org.add_member"}},
		{"actor:HUBOT", []string{"org.add_member"}},
		{"user:hubot action:org", []string{"org.add_member", "org.invite_member"}},
		{"repo:acme/app action:protected_branch", []string{"protected_branch.create"}},
		{"actor:" + e.Admin.Login, []string{"org.create"}},
		{"actor:nobody", nil},
		{"created:<2001-01-01", nil},
		{"created:2000-01-01..2000-12-31", nil},
		{"created:>=" + time.Now().UTC().Format("2006-01-02") + " actor:hubot", []string{"org.add_member"}},
		{"created:" + time.Now().UTC().Format("2006-01-02") + " action:repo.access", []string{"repo.access"}},
		{"created:*.." + time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02") + " action:hook", []string{"hook.create"}},
		{"action:org -action:org.create_actions_secret -action:org.invite_member", []string{"org.add_member", "org.create"}},
	}
	for _, tc := range cases {
		list, _ := entries(t, e, log, auditTok, "phrase", tc.phrase)
		if g := actions(list); !slices.Equal(g, tc.want) {
			t.Errorf("phrase %q = %v, want %v", tc.phrase, g, tc.want)
		}
	}
	e.Must(422, "GET", apitest.Query(log, "phrase", "created:yesterday"), auditTok, nil)
	e.Must(422, "GET", apitest.Query(log, "after", "!!"), auditTok, nil)
	e.Must(422, "GET", apitest.Query(log, "include", "none"), auditTok, nil)

	// Ascending order, git events only with include.
	asc, _ := entries(t, e, log, auditTok, "order", "asc", "per_page", "100")
	if a := actions(asc); a[0] != "org.create" || len(a) != len(got) {
		t.Errorf("asc = %v", a)
	}
	// The repository's first commit was a push: a git event.
	if list, _ := entries(t, e, log, auditTok, "include", "git"); !slices.Equal(actions(list), []string{"git.push"}) || list[0]["repo"] != "acme/app" {
		t.Errorf("git entries = %v", list)
	}
	if list, _ := entries(t, e, log, auditTok, "include", "all", "per_page", "100"); len(list) != len(got)+1 {
		t.Errorf("all entries = %v", actions(list))
	}

	// Cursor paging: next pages concatenate to the whole log, prev goes back.
	var paged []string
	next := apitest.Query(log, "per_page", "3")
	var pages []string
	for next != "" {
		list, r := entries(t, e, next, auditTok)
		pages = append(pages, next)
		paged = append(paged, actions(list)...)
		next = rel(t, e, r, "next")
		if len(pages) > 20 {
			t.Fatal("paging does not end")
		}
	}
	if !slices.Equal(paged, got) {
		t.Errorf("paged = %v, want %v", paged, got)
	}
	_, r := entries(t, e, pages[1], auditTok)
	prev := rel(t, e, r, "prev")
	if prev == "" || !strings.Contains(prev, "before=") {
		t.Fatalf("second page's Link = %q", r.Header.Get("Link"))
	}
	back, _ := entries(t, e, prev, auditTok)
	if !slices.Equal(actions(back), got[:3]) {
		t.Errorf("prev page = %v, want %v", actions(back), got[:3])
	}

	// go-github reads it.
	gl, _, err := e.GitHub(auditTok).Organizations.GetAuditLog(ctx, "acme", &github.GetAuditLogOptions{Phrase: github.Ptr("action:repo.create")})
	if err != nil || len(gl) != 1 || gl[0].GetAction() != "repo.create" || gl[0].GetActor() != "mona" {
		t.Fatalf("go-github = %+v %v", gl, err)
	}

	// Authorization: owners with read:audit_log (or admin:org); members,
	// other tokens and strangers get 403, anonymous 401, no such org 404.
	e.Must(200, "GET", log, monaTok, nil)
	e.Must(200, "GET", log, e.Token(&model.Account{ID: mustID(t, e, "mona")}, "admin:org"), nil)
	e.Must(403, "GET", log, e.Token(&model.Account{ID: mustID(t, e, "mona")}, "repo,read:org"), nil)
	e.Must(403, "GET", log, hubotTok, nil)
	e.Must(401, "GET", log, "", nil)
	e.Must(404, "GET", "/orgs/nope/audit-log", monaTok, nil)
}

func mustID(t *testing.T, e *apitest.Env, login string) int64 {
	t.Helper()
	a, err := e.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// rel is the path (under the API base) of a Link header's rel.
func rel(t *testing.T, e *apitest.Env, r *apitest.Response, name string) string {
	t.Helper()
	for _, part := range strings.Split(r.Header.Get("Link"), ",") {
		u, rest, ok := strings.Cut(strings.TrimSpace(part), ">;")
		if ok && strings.Contains(rest, `rel="`+name+`"`) {
			pu, err := url.Parse(strings.TrimPrefix(u, "<"))
			if err != nil {
				t.Fatal(err)
			}
			return strings.TrimPrefix(pu.Path, "/api/v3") + "?" + pu.RawQuery
		}
	}
	return ""
}

func TestEnterpriseAuditLog(t *testing.T) {
	e := apitest.New(t)
	monaTok, _ := world(t, e)
	log := "/enterprises/hubd/audit-log"
	read := e.Token(e.Admin, "read:audit_log")

	// Sign-in, impersonation tokens, SCIM-free user actions and the
	// repository's deletion land in the enterprise's log.
	e.SetPassword("mona", "correct horse battery")
	e.Browser().SignIn("mona", "correct horse battery")
	e.Must(201, "POST", "/admin/users/hubot/authorizations", e.AdminToken, map[string]any{"scopes": []string{"repo"}})
	e.Must(204, "DELETE", "/admin/users/hubot/authorizations", e.AdminToken, nil)
	e.Must(204, "DELETE", "/repos/acme/app", monaTok, nil)
	// SCIM provisioning and deprovisioning.
	scim := e.Token(e.Admin, "scim:enterprise")
	u := e.Must(201, "POST", "/scim/v2/enterprises/hubd/Users", scim, map[string]any{
		"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"}, "userName": "octo@example.com", "externalId": "ext-octo",
		"name": map[string]any{"givenName": "Octo", "familyName": "Cat"}, "displayName": "Octo Cat",
		"emails": []any{map[string]any{"primary": true, "value": "octo@example.com", "type": "work"}}, "active": true,
	}, "Content-Type: application/scim+json").Map(t)
	e.Must(204, "DELETE", "/scim/v2/enterprises/hubd/Users/"+u["id"].(string), scim, nil)

	all, _ := entries(t, e, log, read, "per_page", "100")
	got := actions(all)
	for _, want := range []string{"org.create", "repo.create", "user.login", "oauth_access.create", "oauth_access.destroy", "repo.destroy",
		"external_identity.provision", "external_identity.deprovision"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %s entry in %v", want, got)
		}
	}
	for _, m := range all {
		if m["business"] != "hubd" {
			t.Fatalf("entry without its business: %v", m)
		}
		if m["action"] == "user.login" && (m["actor"] != "mona" || m["operation_type"] != "authentication") {
			t.Errorf("user.login = %v", m)
		}
		if m["action"] == "repo.destroy" && m["repo"] != "acme/app" {
			t.Errorf("repo.destroy keeps the name it had: %v", m)
		}
	}
	list, _ := entries(t, e, log, read, "phrase", "action:user.login actor:mona")
	if len(list) != 1 {
		t.Errorf("sign-ins = %v", actions(list))
	}
	list, _ = entries(t, e, log, read, "phrase", "org:acme action:repo")
	if g := actions(list); !slices.Equal(g, []string{"repo.destroy", "repo.access", "repo.create"}) {
		t.Errorf("org:acme action:repo = %v", g)
	}
	gl, _, err := e.GitHub(read).Enterprise.GetAuditLog(ctx, "hubd", &github.GetAuditLogOptions{Phrase: github.Ptr("action:repo.destroy")})
	if err != nil || len(gl) != 1 {
		t.Fatalf("go-github = %+v %v", gl, err)
	}

	e.Must(401, "GET", log, "", nil)
	e.Must(403, "GET", log, monaTok, nil)
	e.Must(403, "GET", log, e.Token(e.Admin, "repo"), nil)
	e.Must(404, "GET", "/enterprises/other/audit-log", read, nil)
}

// A write that fails leaves no entry: the entry is written in the
// change's transaction.
func TestAuditEntryRollsBackWithItsChange(t *testing.T) {
	e := apitest.New(t)
	before, _, err := e.Store.R().SearchAudit(ctx, model.AuditQuery{Include: "all", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	err = e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.AppendEvent(ctx, "repository.created", e.Admin.ID, 0, 0, map[string]any{"full_name": "x/y"}); err != nil {
			return err
		}
		return model.ErrNotFound
	})
	if err != model.ErrNotFound {
		t.Fatal(err)
	}
	after, _, err := e.Store.R().SearchAudit(ctx, model.AuditQuery{Include: "all", Limit: 100})
	if err != nil || len(after) != len(before) {
		t.Fatalf("entries %d → %d (%v)", len(before), len(after), err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.AppendEvent(ctx, "repository.created", e.Admin.ID, 0, 0, map[string]any{"full_name": "x/y"})
	}); err != nil {
		t.Fatal(err)
	}
	after, _, _ = e.Store.R().SearchAudit(ctx, model.AuditQuery{Include: "all", Limit: 100})
	if len(after) != len(before)+1 || after[0].Repo != "x/y" || after[0].Actor != e.Admin.Login {
		t.Fatalf("committed entry: %+v", after)
	}
	_ = http.StatusOK
}
