package codespacesecrets_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
	"golang.org/x/crypto/nacl/box"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	cs "github.com/hubd/hubd/internal/codespaces/secrets"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/patokens"
	sealed "github.com/hubd/hubd/internal/secrets"
)

var ctx = context.Background()

// scopes of the tokens these tests use: every scope and codespace.
const scopes = apitest.AllScopes + ",codespace"

// seal is what every client does: a libsodium sealed box for the scope's
// public key, base64-encoded.
func seal(t testing.TB, key *github.PublicKey, value string) string {
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

func user(e *apitest.Env, login string) (*model.Account, string, *github.Client) {
	u, _ := e.NewUser(login, false)
	tok := e.Token(u, scopes)
	return u, tok, e.GitHub(tok)
}

func repo(t *testing.T, gh *github.Client, owner, name string, private bool) *github.Repository {
	t.Helper()
	r, _, err := gh.Repositories.Create(ctx, owner, &github.Repository{Name: github.Ptr(name), Private: github.Ptr(private)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func names(list *github.SelectedReposList) []string {
	var out []string
	for _, r := range list.Repositories {
		out = append(out, r.GetFullName())
	}
	return out
}

// TestUserSecrets: a user keeps their own Codespaces secrets through
// go-github, sealed with their key, selects the repositories that get
// them (ones they may see, ids as numbers or strings), and nobody else
// sees them; tokens without the codespace scope are refused.
func TestUserSecrets(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok, gh := user(e, "mona")
	app := repo(t, gh, "", "app", true)
	lib := repo(t, gh, "", "lib", false)
	hubotU, _, hubot := user(e, "hubot")
	hidden := repo(t, hubot, "", "hidden", true)

	key, _, err := gh.Codespaces.GetUserPublicKey(ctx)
	if err != nil || key.GetKeyID() == "" {
		t.Fatalf("public key %+v: %v", key, err)
	}
	if hk, _, _ := hubot.Codespaces.GetUserPublicKey(ctx); hk.GetKey() == key.GetKey() {
		t.Error("two users share a key")
	}
	put := func(name, value string, ids ...int64) (*github.Response, error) {
		return gh.Codespaces.CreateOrUpdateUserSecret(ctx, &github.EncryptedSecret{Name: name, KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, value), SelectedRepositoryIDs: ids})
	}
	if resp, err := put("npm_token", "v1", app.GetID()); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", resp, err)
	}
	if resp, err := put("NPM_TOKEN", "v2"); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("update: %v %v", resp, err)
	}
	s, _, err := gh.Codespaces.GetUserSecret(ctx, "npm_token")
	if err != nil || s.Name != "NPM_TOKEN" || s.Visibility != "selected" || s.SelectedRepositoriesURL != e.API+"/user/codespaces/secrets/NPM_TOKEN/repositories" {
		t.Fatalf("get: %+v %v", s, err)
	}
	list, resp, err := gh.Codespaces.ListUserSecrets(ctx, nil)
	if err != nil || list.TotalCount != 1 || len(list.Secrets) != 1 {
		t.Fatalf("list: %+v %v", list, err)
	}
	// The update kept the repositories (it named none).
	sel, _, err := gh.Codespaces.ListSelectedReposForUserSecret(ctx, "NPM_TOKEN", nil)
	if err != nil || sel.GetTotalCount() != 1 || fmt.Sprint(names(sel)) != "[mona/app]" {
		t.Fatalf("selected: %+v %v", sel, err)
	}
	if _, err := gh.Codespaces.AddSelectedRepoToUserSecret(ctx, "NPM_TOKEN", lib); err != nil {
		t.Fatal(err)
	}
	sel, _, _ = gh.Codespaces.ListSelectedReposForUserSecret(ctx, "NPM_TOKEN", nil)
	if fmt.Sprint(names(sel)) != "[mona/app mona/lib]" {
		t.Fatalf("after add: %v", names(sel))
	}
	// Pagination in SQL with a Link header.
	page, resp, err := gh.Codespaces.ListSelectedReposForUserSecret(ctx, "NPM_TOKEN", &github.ListOptions{PerPage: 1, Page: 2})
	if err != nil || len(page.Repositories) != 1 || page.GetTotalCount() != 2 || resp.PrevPage != 1 {
		t.Fatalf("page 2: %+v %v %v", page, resp, err)
	}
	if _, err := gh.Codespaces.RemoveSelectedRepoFromUserSecret(ctx, "NPM_TOKEN", app); err != nil {
		t.Fatal(err)
	}
	sel, _, _ = gh.Codespaces.ListSelectedReposForUserSecret(ctx, "NPM_TOKEN", nil)
	if fmt.Sprint(names(sel)) != "[mona/lib]" {
		t.Fatalf("after remove: %v", names(sel))
	}
	if _, err := gh.Codespaces.SetSelectedReposForUserSecret(ctx, "NPM_TOKEN", github.SelectedRepoIDs{app.GetID()}); err != nil {
		t.Fatal(err)
	}
	sel, _, _ = gh.Codespaces.ListSelectedReposForUserSecret(ctx, "NPM_TOKEN", nil)
	if fmt.Sprint(names(sel)) != "[mona/app]" {
		t.Fatalf("after set: %v", names(sel))
	}
	// A repository the user may not see cannot be selected: 404, nothing
	// written.
	if _, err := gh.Codespaces.AddSelectedRepoToUserSecret(ctx, "NPM_TOKEN", hidden); apitest.Status(err) != http.StatusNotFound {
		t.Errorf("add a hidden repository: %v", err)
	}
	if _, err := gh.Codespaces.SetSelectedReposForUserSecret(ctx, "NPM_TOKEN", github.SelectedRepoIDs{app.GetID(), hidden.GetID()}); apitest.Status(err) != http.StatusNotFound {
		t.Errorf("set with a hidden repository: %v", err)
	}
	if _, err := put("SNEAKY", "x", hidden.GetID()); apitest.Status(err) != http.StatusNotFound {
		t.Errorf("create with a hidden repository: %v", err)
	}
	sel, _, _ = gh.Codespaces.ListSelectedReposForUserSecret(ctx, "NPM_TOKEN", nil)
	if fmt.Sprint(names(sel)) != "[mona/app]" {
		t.Fatalf("after refused changes: %v", names(sel))
	}
	// Ids may come as strings (GitHub's description allows both).
	e.Must(http.StatusCreated, "PUT", "/user/codespaces/secrets/STRINGS", monaTok, map[string]any{
		"key_id": key.GetKeyID(), "encrypted_value": seal(t, key, "s"), "selected_repository_ids": []any{fmt.Sprint(lib.GetID())}})
	sel, _, _ = gh.Codespaces.ListSelectedReposForUserSecret(ctx, "STRINGS", nil)
	if fmt.Sprint(names(sel)) != "[mona/lib]" {
		t.Fatalf("string ids: %v", names(sel))
	}

	// GitHub's refusals.
	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"GITHUB_TOKEN", map[string]any{"key_id": key.GetKeyID(), "encrypted_value": seal(t, key, "x")}, 422},
		{"BAD_BOX", map[string]any{"key_id": key.GetKeyID(), "encrypted_value": base64.StdEncoding.EncodeToString([]byte("not a sealed box at all, not at all"))}, 422},
		{"WRONG_KEY", map[string]any{"key_id": "123", "encrypted_value": seal(t, key, "x")}, 422},
	} {
		r := e.Do("PUT", "/user/codespaces/secrets/"+tc.name, monaTok, tc.body)
		if r.StatusCode != tc.want {
			t.Errorf("%s: %d %s", tc.name, r.StatusCode, r.Body)
		}
	}

	// Nobody else sees them.
	if _, _, err := hubot.Codespaces.GetUserSecret(ctx, "NPM_TOKEN"); apitest.Status(err) != http.StatusNotFound {
		t.Errorf("another user gets mine: %v", err)
	}
	if l, _, err := hubot.Codespaces.ListUserSecrets(ctx, nil); err != nil || l.TotalCount != 0 {
		t.Errorf("another user lists: %+v %v", l, err)
	}
	if _, err := hubot.Codespaces.DeleteUserSecret(ctx, "NPM_TOKEN"); apitest.Status(err) != http.StatusNotFound {
		t.Errorf("another user deletes mine: %v", err)
	}
	// A classic token needs codespace (or codespace:secrets).
	noScope := e.GitHub(e.Token(mona, apitest.AllScopes))
	if _, _, err := noScope.Codespaces.ListUserSecrets(ctx, nil); apitest.Status(err) != http.StatusForbidden {
		t.Errorf("without the codespace scope: %v", err)
	}
	narrow := e.GitHub(e.Token(mona, "codespace:secrets"))
	if l, _, err := narrow.Codespaces.ListUserSecrets(ctx, nil); err != nil || l.TotalCount != 2 {
		t.Errorf("with codespace:secrets: %+v %v", l, err)
	}
	if r := e.Do("GET", "/user/codespaces/secrets", "", nil); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous: %d", r.StatusCode)
	}

	if resp, err := gh.Codespaces.DeleteUserSecret(ctx, "npm_token"); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %v", err)
	}
	if _, _, err := gh.Codespaces.GetUserSecret(ctx, "NPM_TOKEN"); apitest.Status(err) != http.StatusNotFound {
		t.Errorf("after delete: %v", err)
	}
	_ = resp

	// A deleted user's secrets go with them.
	hk, _, _ := hubot.Codespaces.GetUserPublicKey(ctx)
	if _, err := hubot.Codespaces.CreateOrUpdateUserSecret(ctx, &github.EncryptedSecret{Name: "HIS", KeyID: hk.GetKeyID(), EncryptedValue: seal(t, hk, "h"), SelectedRepositoryIDs: github.SelectedRepoIDs{hidden.GetID()}}); err != nil {
		t.Fatal(err)
	}
	e.Must(http.StatusNoContent, "DELETE", "/admin/users/hubot", e.AdminToken, nil)
	if _, n, err := e.Store.R().Secrets(ctx, cs.UserScope(hubotU.ID), 10, 0); err != nil || n != 0 {
		t.Errorf("a deleted user's secrets: %d %v", n, err)
	}
}

// org makes organization acme owned by mona with member dev (who reads
// its private repositories through the default permission).
func org(t *testing.T, e *apitest.Env, monaTok, devLogin, devTok string) {
	t.Helper()
	e.Must(http.StatusCreated, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(http.StatusOK, "PUT", "/orgs/acme/memberships/"+devLogin, monaTok, map[string]any{"role": "member"})
	e.Must(http.StatusOK, "PATCH", "/user/memberships/orgs/acme", devTok, map[string]any{"state": "active"})
}

// TestOrgAndRepoSecrets: an organization's owners and a repository's
// administrators keep Codespaces secrets through go-github; members get a
// 403, strangers a 404.
func TestOrgAndRepoSecrets(t *testing.T) {
	e := apitest.New(t)
	_, monaTok, gh := user(e, "mona")
	_, devTok, dev := user(e, "dev")
	_, _, stranger := user(e, "stranger")
	org(t, e, monaTok, "dev", devTok)
	site := repo(t, gh, "acme", "site", true)
	repo(t, gh, "acme", "docs", false)

	key, _, err := gh.Codespaces.GetOrgPublicKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	rkey, _, err := gh.Codespaces.GetRepoPublicKey(ctx, "acme", "site")
	if err != nil || rkey.GetKeyID() == key.GetKeyID() {
		t.Fatalf("repository key %+v: %v", rkey, err)
	}
	resp, err := gh.Codespaces.CreateOrUpdateOrgSecret(ctx, "acme", &github.EncryptedSecret{Name: "REGISTRY", KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "r"), Visibility: "selected", SelectedRepositoryIDs: github.SelectedRepoIDs{site.GetID()}})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("org secret: %v", err)
	}
	s, _, err := gh.Codespaces.GetOrgSecret(ctx, "acme", "registry")
	if err != nil || s.Visibility != "selected" || s.SelectedRepositoriesURL != e.API+"/orgs/acme/codespaces/secrets/REGISTRY/repositories" {
		t.Fatalf("get: %+v %v", s, err)
	}
	sel, _, err := gh.Codespaces.ListSelectedReposForOrgSecret(ctx, "acme", "REGISTRY", nil)
	if err != nil || fmt.Sprint(names(sel)) != "[acme/site]" {
		t.Fatalf("selected: %+v %v", sel, err)
	}
	docs, _, _ := gh.Repositories.Get(ctx, "acme", "docs")
	if _, err := gh.Codespaces.AddSelectedRepoToOrgSecret(ctx, "acme", "REGISTRY", docs); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Codespaces.RemoveSelectedRepoFromOrgSecret(ctx, "acme", "REGISTRY", site); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Codespaces.SetSelectedReposForOrgSecret(ctx, "acme", "REGISTRY", github.SelectedRepoIDs{site.GetID(), docs.GetID()}); err != nil {
		t.Fatal(err)
	}
	sel, _, _ = gh.Codespaces.ListSelectedReposForOrgSecret(ctx, "acme", "REGISTRY", nil)
	if sel.GetTotalCount() != 2 {
		t.Fatalf("after set: %v", names(sel))
	}
	// A repository of another owner is refused; a secret not "selected"
	// has no list to change (409).
	own := repo(t, gh, "", "own", false)
	if _, err := gh.Codespaces.AddSelectedRepoToOrgSecret(ctx, "acme", "REGISTRY", own); apitest.Status(err) != http.StatusUnprocessableEntity {
		t.Errorf("another owner's repository: %v", err)
	}
	if _, err := gh.Codespaces.CreateOrUpdateOrgSecret(ctx, "acme", &github.EncryptedSecret{Name: "ALL", KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "a"), Visibility: "all"}); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Codespaces.AddSelectedRepoToOrgSecret(ctx, "acme", "ALL", site); apitest.Status(err) != http.StatusConflict {
		t.Errorf("add to a visibility all secret: %v", err)
	}
	if l, _, err := gh.Codespaces.ListOrgSecrets(ctx, "acme", nil); err != nil || l.TotalCount != 2 || l.Secrets[0].Visibility != "all" {
		t.Fatalf("list: %+v %v", l, err)
	}

	// Repository secrets.
	resp, err = gh.Codespaces.CreateOrUpdateRepoSecret(ctx, "acme", "site", &github.EncryptedSecret{Name: "DB_URL", KeyID: rkey.GetKeyID(), EncryptedValue: seal(t, rkey, "db")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("repo secret: %v", err)
	}
	if rs, _, err := gh.Codespaces.GetRepoSecret(ctx, "acme", "site", "db_url"); err != nil || rs.Name != "DB_URL" {
		t.Fatalf("get repo secret: %+v %v", rs, err)
	}
	if l, _, err := gh.Codespaces.ListRepoSecrets(ctx, "acme", "site", nil); err != nil || l.TotalCount != 1 {
		t.Fatalf("list repo secrets: %+v %v", l, err)
	}
	// A box sealed for the organization does not open for the repository.
	if _, err := gh.Codespaces.CreateOrUpdateRepoSecret(ctx, "acme", "site", &github.EncryptedSecret{Name: "X", KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "x")}); apitest.Status(err) != http.StatusUnprocessableEntity {
		t.Errorf("organization's box on the repository: %v", err)
	}

	// A member reads the repository but administers neither: 403; a
	// stranger sees neither: 404.
	for _, c := range []struct {
		who  string
		gh   *github.Client
		want int
	}{{"member", dev, http.StatusForbidden}, {"stranger", stranger, http.StatusNotFound}} {
		if _, _, err := c.gh.Codespaces.ListOrgSecrets(ctx, "acme", nil); apitest.Status(err) != c.want {
			t.Errorf("%s lists org secrets: %v", c.who, err)
		}
		if _, err := c.gh.Codespaces.DeleteOrgSecret(ctx, "acme", "REGISTRY"); apitest.Status(err) != c.want {
			t.Errorf("%s deletes an org secret: %v", c.who, err)
		}
		if _, _, err := c.gh.Codespaces.ListRepoSecrets(ctx, "acme", "site", nil); apitest.Status(err) != c.want {
			t.Errorf("%s lists repo secrets: %v", c.who, err)
		}
		if _, err := c.gh.Codespaces.DeleteRepoSecret(ctx, "acme", "site", "DB_URL"); apitest.Status(err) != c.want {
			t.Errorf("%s deletes a repo secret: %v", c.who, err)
		}
	}
	if _, err := gh.Codespaces.DeleteRepoSecret(ctx, "acme", "site", "DB_URL"); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Codespaces.DeleteOrgSecret(ctx, "acme", "REGISTRY"); err != nil {
		t.Fatal(err)
	}
	if l, _, _ := gh.Codespaces.ListOrgSecrets(ctx, "acme", nil); l.TotalCount != 1 {
		t.Errorf("after delete: %d", l.TotalCount)
	}
}

// TestEnvFor: a codespace of a user on a repository gets the
// organization's secrets visible to it, the repository's and the user's
// own selected for it, the lowest level winning a name; another user never
// gets mine, and a user who cannot see the repository gets nothing.
func TestEnvFor(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok, gh := user(e, "mona")
	devU, devTok, dev := user(e, "dev")
	stranger, _, _ := user(e, "stranger")
	org(t, e, monaTok, "dev", devTok)
	site := repo(t, gh, "acme", "site", true)
	other := repo(t, gh, "acme", "other", true)
	pub := repo(t, gh, "acme", "pub", false)

	okey, _, _ := gh.Codespaces.GetOrgPublicKey(ctx, "acme")
	orgPut := func(name, value, vis string, ids ...int64) {
		t.Helper()
		if _, err := gh.Codespaces.CreateOrUpdateOrgSecret(ctx, "acme", &github.EncryptedSecret{Name: name, KeyID: okey.GetKeyID(), EncryptedValue: seal(t, okey, value), Visibility: vis, SelectedRepositoryIDs: ids}); err != nil {
			t.Fatal(err)
		}
	}
	orgPut("SHARED", "from-org", "all")
	orgPut("ORG_ONLY", "org", "all")
	orgPut("PRIVATE_ONLY", "private", "private")
	orgPut("ELSEWHERE", "elsewhere", "selected", other.GetID())
	rkey, _, _ := gh.Codespaces.GetRepoPublicKey(ctx, "acme", "site")
	for name, v := range map[string]string{"SHARED": "from-repo", "REPO_ONLY": "repo"} {
		if _, err := gh.Codespaces.CreateOrUpdateRepoSecret(ctx, "acme", "site", &github.EncryptedSecret{Name: name, KeyID: rkey.GetKeyID(), EncryptedValue: seal(t, rkey, v)}); err != nil {
			t.Fatal(err)
		}
	}
	userPut := func(c *github.Client, name, value string, ids ...int64) {
		t.Helper()
		k, _, err := c.Codespaces.GetUserPublicKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Codespaces.CreateOrUpdateUserSecret(ctx, &github.EncryptedSecret{Name: name, KeyID: k.GetKeyID(), EncryptedValue: seal(t, k, value), SelectedRepositoryIDs: ids}); err != nil {
			t.Fatal(err)
		}
	}
	userPut(gh, "SHARED", "mine", site.GetID())
	userPut(gh, "MONA_ELSEWHERE", "x", other.GetID())
	userPut(dev, "DEV_ONLY", "dev's", site.GetID())

	svc := cs.New(e.Store, &sealed.Service{Store: e.Store})
	for _, tc := range []struct {
		who    string
		userID int64
		repoID int64
		want   map[string]string
	}{
		{"mona on site", mona.ID, site.GetID(), map[string]string{"SHARED": "mine", "ORG_ONLY": "org", "PRIVATE_ONLY": "private", "REPO_ONLY": "repo"}},
		{"dev on site", devU.ID, site.GetID(), map[string]string{"SHARED": "from-repo", "ORG_ONLY": "org", "PRIVATE_ONLY": "private", "REPO_ONLY": "repo", "DEV_ONLY": "dev's"}},
		{"mona on pub", mona.ID, pub.GetID(), map[string]string{"SHARED": "from-org", "ORG_ONLY": "org"}},
		{"mona on other", mona.ID, other.GetID(), map[string]string{"SHARED": "from-org", "ORG_ONLY": "org", "PRIVATE_ONLY": "private", "ELSEWHERE": "elsewhere", "MONA_ELSEWHERE": "x"}},
	} {
		got, err := svc.EnvFor(ctx, tc.userID, tc.repoID)
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.who, got, err, tc.want)
		}
	}
	if got, err := svc.EnvFor(ctx, stranger.ID, site.GetID()); err != model.ErrNotFound || got != nil {
		t.Errorf("a stranger on a private repository: %v %v", got, err)
	}
	// Leaving the organization takes the repository (and its secrets) away.
	e.Must(http.StatusNoContent, "DELETE", "/orgs/acme/members/dev", monaTok, nil)
	if got, err := svc.EnvFor(ctx, devU.ID, site.GetID()); err != model.ErrNotFound {
		t.Errorf("a former member: %v %v", got, err)
	}
}

// TestAccessPolicy: an owner sets who may create codespaces for the
// organization with go-github, GitHub's validation answers, and MayCreate
// follows each visibility.
func TestAccessPolicy(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok, gh := user(e, "mona")
	devU, devTok, dev := user(e, "dev")
	oc, ocTok, _ := user(e, "oc")
	stranger, _, _ := user(e, "stranger")
	org(t, e, monaTok, "dev", devTok)
	repo(t, gh, "acme", "site", true)
	// oc becomes an outside collaborator.
	e.Must(http.StatusCreated, "PUT", "/repos/acme/site/collaborators/oc", monaTok, map[string]any{"permission": "push"})
	var invs []map[string]any
	e.Must(http.StatusOK, "GET", "/user/repository_invitations", ocTok, nil).JSON(t, &invs)
	if len(invs) != 1 {
		t.Fatalf("invitations: %v", invs)
	}
	e.Must(http.StatusNoContent, "PATCH", fmt.Sprintf("/user/repository_invitations/%v", invs[0]["id"]), ocTok, nil)

	var orgID int64
	if o, _, err := gh.Organizations.Get(ctx, "acme"); err != nil {
		t.Fatal(err)
	} else {
		orgID = o.GetID()
	}
	svc := cs.New(e.Store, &sealed.Service{Store: e.Store})
	may := func() string {
		t.Helper()
		out := ""
		for _, u := range []*model.Account{mona, devU, oc, stranger} {
			ok, err := svc.MayCreate(ctx, orgID, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				out += u.Login + " "
			}
		}
		return out
	}
	if got := may(); got != "mona dev oc stranger " {
		t.Errorf("default (no policy: whoever may read the repository): %q", got)
	}
	set := func(vis string, users ...string) error {
		_, err := gh.Codespaces.SetOrgAccessControl(ctx, "acme", github.CodespacesOrgAccessControlRequest{Visibility: vis, SelectedUsernames: users})
		return err
	}
	for _, tc := range []struct {
		vis   string
		users []string
		want  string
	}{
		{"all_members", nil, "mona dev "},
		{"all_members_and_outside_collaborators", nil, "mona dev oc "},
		{"selected_members", []string{"dev"}, "dev "},
		{"disabled", nil, ""},
	} {
		if err := set(tc.vis, tc.users...); err != nil {
			t.Fatalf("%s: %v", tc.vis, err)
		}
		if got := may(); got != tc.want {
			t.Errorf("%s: may create %q, want %q", tc.vis, got, tc.want)
		}
	}
	// Selected users change only under selected_members (400 otherwise).
	if _, err := gh.Codespaces.AddUsersToOrgAccess(ctx, "acme", []string{"oc"}); apitest.Status(err) != http.StatusBadRequest {
		t.Errorf("add users while disabled: %v", err)
	}
	if err := set("selected_members", "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Codespaces.AddUsersToOrgAccess(ctx, "acme", []string{"oc", "mona"}); err != nil {
		t.Fatal(err)
	}
	if got := may(); got != "mona dev oc " {
		t.Errorf("after add: %q", got)
	}
	if _, err := gh.Codespaces.RemoveUsersFromOrgAccess(ctx, "acme", []string{"dev", "stranger", "nobody-at-all"}); err != nil {
		t.Fatal(err)
	}
	if got := may(); got != "mona oc " {
		t.Errorf("after remove: %q", got)
	}
	// GitHub's validation answers; nothing changes.
	for _, tc := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"PUT", "/orgs/acme/codespaces/access", map[string]any{"visibility": "selected_members"}, 422},
		{"PUT", "/orgs/acme/codespaces/access", map[string]any{"visibility": "selected_members", "selected_usernames": []string{"stranger"}}, 422},
		{"PUT", "/orgs/acme/codespaces/access", map[string]any{"visibility": "selected_members", "selected_usernames": []string{"oc"}}, 422}, // PUT selects members only
		{"PUT", "/orgs/acme/codespaces/access", map[string]any{"visibility": "all_members", "selected_usernames": []string{"dev"}}, 422},
		{"PUT", "/orgs/acme/codespaces/access", map[string]any{"visibility": "everyone"}, 422},
		{"PUT", "/orgs/acme/codespaces/access", map[string]any{}, 422},
		{"POST", "/orgs/acme/codespaces/access/selected_users", map[string]any{"selected_usernames": []string{"stranger"}}, 422},
		{"POST", "/orgs/acme/codespaces/access/selected_users", map[string]any{}, 422},
	} {
		r := e.Do(tc.method, tc.path, monaTok, tc.body)
		if r.StatusCode != tc.want {
			t.Errorf("%s %s %v: %d %s", tc.method, tc.path, tc.body, r.StatusCode, r.Body)
		}
	}
	if got := may(); got != "mona oc " {
		t.Errorf("after refused changes: %q", got)
	}
	// Only owners: a member gets 403, a stranger 404; admin:org is needed.
	if _, err := dev.Codespaces.SetOrgAccessControl(ctx, "acme", github.CodespacesOrgAccessControlRequest{Visibility: "all_members"}); apitest.Status(err) != http.StatusForbidden {
		t.Errorf("member: %v", err)
	}
	strangerGH := e.GitHub(e.Token(stranger, scopes))
	if _, err := strangerGH.Codespaces.AddUsersToOrgAccess(ctx, "acme", []string{"stranger"}); apitest.Status(err) != http.StatusNotFound {
		t.Errorf("stranger: %v", err)
	}
	if r := e.Do("PUT", "/orgs/acme/codespaces/access", e.Token(mona, "repo"), map[string]any{"visibility": "all_members"}); r.StatusCode != http.StatusForbidden {
		t.Errorf("without admin:org: %d", r.StatusCode)
	}
	if got := may(); got != "mona oc " {
		t.Errorf("after refused callers: %q", got)
	}
	// Each accepted change appended one event; the refused ones none.
	all, err := e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, ev := range all {
		if strings.HasPrefix(ev.Type, "org.codespaces_access") {
			counts[ev.Type]++
		}
	}
	if want := map[string]int{"org.codespaces_access_update": 5, "org.codespaces_access_add_users": 1, "org.codespaces_access_remove_users": 1}; !maps.Equal(counts, want) {
		t.Errorf("events %v, want %v", counts, want)
	}
}

// TestTokensAndEvents: a fine-grained token needs Codespaces user secrets
// for a user's secrets and Codespaces secrets (with an administrator
// behind it) for a repository's; every write appends its event.
func TestTokensAndEvents(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok, gh := user(e, "mona")
	repo(t, gh, "", "app", true)
	pats := &patokens.Service{Store: e.Store}
	pat := func(perms map[string]string) *github.Client {
		t.Helper()
		made, err := pats.Create(ctx, patokens.CreateInput{User: mona, Owner: mona, Name: "token " + fmt.Sprint(len(perms)), Selection: authz.SelectionAll, Permissions: perms})
		if err != nil {
			t.Fatal(err)
		}
		return e.GitHub(made.Plain)
	}
	with := pat(map[string]string{"codespaces_user_secrets": "write", "codespaces_secrets": "write", "metadata": "read"})
	without := pat(map[string]string{"contents": "write", "metadata": "read"})
	key, _, err := with.Codespaces.GetUserPublicKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := with.Codespaces.CreateOrUpdateUserSecret(ctx, &github.EncryptedSecret{Name: "A", KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "a")}); err != nil {
		t.Fatalf("with the permission: %v", err)
	}
	if _, _, err := without.Codespaces.ListUserSecrets(ctx, nil); apitest.Status(err) != http.StatusForbidden {
		t.Errorf("user secrets without the permission: %v", err)
	}
	rkey, _, err := with.Codespaces.GetRepoPublicKey(ctx, "mona", "app")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := with.Codespaces.CreateOrUpdateRepoSecret(ctx, "mona", "app", &github.EncryptedSecret{Name: "B", KeyID: rkey.GetKeyID(), EncryptedValue: seal(t, rkey, "b")}); err != nil {
		t.Fatalf("repository secret with the permission: %v", err)
	}
	if _, _, err := without.Codespaces.ListRepoSecrets(ctx, "mona", "app", nil); apitest.Status(err) != http.StatusForbidden {
		t.Errorf("repository secrets without the permission: %v", err)
	}
	if _, err := gh.Codespaces.DeleteUserSecret(ctx, "A"); err != nil {
		t.Fatal(err)
	}
	_ = monaTok

	all, err := e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range all {
		if strings.Contains(ev.Type, "codespaces") {
			got = append(got, ev.Type)
		}
	}
	if want := "[user.create_codespaces_secret repo.create_codespaces_secret user.remove_codespaces_secret]"; fmt.Sprint(got) != want {
		t.Errorf("events %v, want %s", got, want)
	}
}
