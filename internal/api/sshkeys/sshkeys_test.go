package sshkeys_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
	gossh "golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

func newKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(sp)))
}

func events(t *testing.T, e *apitest.Env, typ string) int {
	t.Helper()
	list, err := e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range list {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// fieldError is the message of a 422's first error.
func fieldError(t *testing.T, r *apitest.Response) string {
	t.Helper()
	m := r.Map(t)
	errs, _ := m["errors"].([]any)
	if m["message"] != "Validation Failed" || len(errs) != 1 {
		t.Fatalf("422 body: %v", m)
	}
	return errs[0].(map[string]any)["message"].(string)
}

// TestUserKeys: go-github adds, lists, gets and deletes the authenticated
// user's keys; the key is stored without its comment and shown to anyone
// (id and key); a key is in use once, across users and deploy keys; bad
// keys get GitHub's 422s; each write appends its event.
func TestUserKeys(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, bobTok := e.NewUser("bob", false)
	gh := e.GitHub(tok)
	text := newKey(t)
	k, resp, err := gh.Users.CreateKey(ctx, github.CreateUserKeyRequest{Title: github.Ptr("laptop"), Key: text + " mona@laptop"})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create: %v", err)
	}
	if k.GetKey() != text || k.GetTitle() != "laptop" || !k.GetVerified() || k.GetReadOnly() || k.LastUsed != nil ||
		k.GetURL() != e.API+"/user/keys/"+itoa(k.GetID()) {
		t.Fatalf("created key: %+v", k)
	}
	got, _, err := gh.Users.GetKey(ctx, k.GetID())
	if err != nil || got.GetKey() != text {
		t.Fatalf("get: %+v %v", got, err)
	}
	for i := 0; i < 2; i++ {
		if _, _, err := gh.Users.CreateKey(ctx, github.CreateUserKeyRequest{Key: newKey(t)}); err != nil {
			t.Fatal(err)
		}
	}
	list, resp, err := gh.Users.ListKeys(ctx, "", &github.ListOptions{PerPage: 2})
	if err != nil || len(list) != 2 || list[0].GetID() != k.GetID() || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("list: %d %v next %d last %d", len(list), err, resp.NextPage, resp.LastPage)
	}
	// Anyone sees a user's keys: id and key.
	var public []map[string]any
	e.Must(200, "GET", "/users/mona/keys", "", nil).JSON(t, &public)
	if len(public) != 3 || public[0]["key"] != text || public[0]["title"] != nil || public[0]["url"] != nil {
		t.Fatalf("public keys: %v", public)
	}
	e.Must(404, "GET", "/users/nobody/keys", "", nil)

	// Another user sees none of mona's keys through /user/keys.
	e.Must(404, "GET", "/user/keys/"+itoa(k.GetID()), bobTok, nil)
	e.Must(404, "DELETE", "/user/keys/"+itoa(k.GetID()), bobTok, nil)

	// A key is in use once: by another user, or as a deploy key.
	r := e.Must(422, "POST", "/user/keys", bobTok, map[string]any{"key": text})
	if m := fieldError(t, r); m != "key is already in use" {
		t.Fatalf("duplicate: %q", m)
	}
	e.Must(201, "POST", "/user/repos", bobTok, map[string]any{"name": "app"})
	r = e.Must(422, "POST", "/repos/bob/app/keys", bobTok, map[string]any{"key": text})
	if m := fieldError(t, r); m != "key is already in use" {
		t.Fatalf("duplicate deploy key: %q", m)
	}
	// Keys that do not parse.
	for _, bad := range []string{"ssh-ed25519 AAAAnotbase64!!", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ== x", "ssh-ed25519 " + strings.Fields(text)[1] + "\n" + text} {
		r := e.Must(422, "POST", "/user/keys", tok, map[string]any{"key": bad})
		if m := fieldError(t, r); !strings.HasPrefix(m, "key is invalid") {
			t.Fatalf("bad key %q: %q", bad, m)
		}
	}
	e.Must(422, "POST", "/user/keys", tok, map[string]any{"title": "no key"})
	e.Must(422, "POST", "/user/keys", tok, map[string]any{"key": "not a key"})

	if _, err := gh.Users.DeleteKey(ctx, k.GetID()); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", "/user/keys/"+itoa(k.GetID()), tok, nil)
	if c, d := events(t, e, "public_key.created"), events(t, e, "public_key.deleted"); c != 3 || d != 1 {
		t.Fatalf("events: %d created, %d deleted", c, d)
	}
	// Once deleted, the key may be added again.
	e.Must(201, "POST", "/user/keys", bobTok, map[string]any{"key": text})
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

// TestUserKeyTokens: classic tokens need read:public_key to read,
// write:public_key to add and admin:public_key to delete (a token without
// the scope finds nothing); fine-grained tokens the "Git SSH keys"
// permission; installation tokens act for no user.
func TestUserKeyTokens(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	id := e.Must(201, "POST", "/user/keys", tok, map[string]any{"key": newKey(t)}).Map(t)["id"].(float64)
	path := "/user/keys/" + itoa(int64(id))
	none, read, write := e.Token(mona, "repo"), e.Token(mona, "read:public_key"), e.Token(mona, "write:public_key")
	e.Must(404, "GET", "/user/keys", none, nil)
	e.Must(404, "GET", path, none, nil)
	e.Must(200, "GET", "/user/keys", read, nil)
	e.Must(200, "GET", path, write, nil)
	e.Must(404, "POST", "/user/keys", read, map[string]any{"key": newKey(t)})
	e.Must(201, "POST", "/user/keys", write, map[string]any{"key": newKey(t)})
	e.Must(404, "DELETE", path, write, nil)
	e.Must(401, "GET", "/user/keys", "", nil)

	fine := func(perms map[string]string) string {
		var plain string
		if err := e.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			plain, err = tx.CreateFineGrainedToken(ctx, &store.FineGrainedToken{Token: store.Token{UserID: mona.ID}, Name: "t" + itoa(int64(len(perms))),
				ResourceOwnerID: mona.ID, Selection: authz.SelectionNone, Permissions: perms})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return plain
	}
	fNone, fRead, fWrite := fine(nil), fine(map[string]string{"git_ssh_keys": "read"}), fine(map[string]string{"git_ssh_keys": "write", "metadata": "read"})
	e.Must(403, "GET", "/user/keys", fNone, nil)
	e.Must(200, "GET", "/user/keys", fRead, nil)
	e.Must(403, "POST", "/user/keys", fRead, map[string]any{"key": newKey(t)})
	e.Must(201, "POST", "/user/keys", fWrite, map[string]any{"key": newKey(t)})
	e.Must(204, "DELETE", path, fWrite, nil)
}

// TestDeployKeys: a repository's administrators manage its deploy keys
// (read-only or not, added_by their login); others get 404 (cannot see)
// or 403 (can see, not administer).
func TestDeployKeys(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, bobTok := e.NewUser("bob", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	text := newKey(t)
	k, resp, err := gh.Repositories.CreateKey(ctx, "mona", "app", github.CreateDeployKeyRequest{Title: github.Ptr("ci"), Key: text, ReadOnly: github.Ptr(true)})
	if err != nil || resp.StatusCode != 201 {
		t.Fatal(err)
	}
	if k.GetKey() != text || !k.GetReadOnly() || k.GetAddedBy() != "mona" || !k.GetEnabled() || k.GetURL() != e.API+"/repos/mona/app/keys/"+itoa(k.GetID()) {
		t.Fatalf("deploy key: %+v", k)
	}
	rw, _, err := gh.Repositories.CreateKey(ctx, "mona", "app", github.CreateDeployKeyRequest{Key: newKey(t)})
	if err != nil || rw.GetReadOnly() {
		t.Fatalf("read-write key: %+v %v", rw, err)
	}
	list, resp, err := gh.Repositories.ListKeys(ctx, "mona", "app", &github.ListOptions{PerPage: 1})
	if err != nil || len(list) != 1 || list[0].GetID() != rw.GetID() || resp.LastPage != 2 {
		t.Fatalf("list: %v %v", list, err)
	}
	got, _, err := gh.Repositories.GetKey(ctx, "mona", "app", k.GetID())
	if err != nil || got.GetTitle() != "ci" {
		t.Fatalf("get: %+v %v", got, err)
	}
	// A key of another repository is not found here.
	e.Must(404, "GET", "/repos/mona/secret/keys/"+itoa(k.GetID()), tok, nil)
	e.Must(404, "DELETE", "/repos/mona/secret/keys/"+itoa(k.GetID()), tok, nil)
	// Bob sees app (public) but does not administer it; secret he cannot see.
	e.Must(403, "GET", "/repos/mona/app/keys", bobTok, nil)
	e.Must(403, "POST", "/repos/mona/app/keys", bobTok, map[string]any{"key": newKey(t)})
	e.Must(404, "GET", "/repos/mona/secret/keys", bobTok, nil)
	r := e.Must(422, "POST", "/repos/mona/app/keys", tok, map[string]any{"key": "ssh-ed25519 AAAA"})
	if m := fieldError(t, r); !strings.HasPrefix(m, "key is invalid") {
		t.Fatalf("bad key: %q", m)
	}
	if _, err := gh.Repositories.DeleteKey(ctx, "mona", "app", k.GetID()); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", "/repos/mona/app/keys/"+itoa(k.GetID()), tok, nil)
	if c, d := events(t, e, "deploy_key.created"), events(t, e, "deploy_key.deleted"); c != 2 || d != 1 {
		t.Fatalf("events: %d created, %d deleted", c, d)
	}
}

// TestAdminKeys: a site administrator lists every key (user and deploy
// keys, with their owner) and deletes any; others may not.
func TestAdminKeys(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/keys", tok, map[string]any{"key": newKey(t), "title": "laptop"})
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "app"})
	dk := e.Must(201, "POST", "/repos/mona/app/keys", tok, map[string]any{"key": newKey(t)}).Map(t)
	var all []map[string]any
	r := e.Must(200, "GET", "/admin/keys?direction=asc&per_page=1", e.AdminToken, nil)
	r.JSON(t, &all)
	if len(all) != 1 || all[0]["user_id"] != float64(mona.ID) || all[0]["repository_id"] != nil || !strings.Contains(r.Header.Get("Link"), `rel="last"`) {
		t.Fatalf("admin keys: %v", all)
	}
	e.Must(200, "GET", "/admin/keys?direction=desc", e.AdminToken, nil).JSON(t, &all)
	if len(all) != 2 || all[0]["id"] != dk["id"] || all[0]["user_id"] != nil || all[0]["url"] != dk["url"] {
		t.Fatalf("admin keys: %v", all)
	}
	e.Must(200, "GET", "/admin/keys?since=2000-01-01T00:00:00Z", e.AdminToken, nil).JSON(t, &all)
	if len(all) != 0 { // no key was used yet
		t.Fatalf("keys used since 2000: %v", all)
	}
	e.Must(403, "GET", "/admin/keys", tok, nil)
	e.Must(403, "DELETE", "/admin/keys/"+itoa(int64(dk["id"].(float64))), tok, nil)
	e.Must(204, "DELETE", "/admin/keys/"+itoa(int64(dk["id"].(float64))), e.AdminToken, nil)
	e.Must(404, "DELETE", "/admin/keys/"+itoa(int64(dk["id"].(float64))), e.AdminToken, nil)
	e.Must(http.StatusOK, "GET", "/admin/keys", e.AdminToken, nil).JSON(t, &all)
	if len(all) != 1 {
		t.Fatalf("after delete: %v", all)
	}
}
