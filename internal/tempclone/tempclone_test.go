package tempclone_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/tempclone"
)

var ctx = context.Background()

type keys map[string]string

func (k keys) ServerKey(_ context.Context, name, candidate string) (string, error) {
	if k[name] == "" {
		k[name] = candidate
	}
	return k[name], nil
}

// A token reads back as what it was made for until it expires; a changed
// token, or one of another key, is refused.
func TestTokens(t *testing.T) {
	now := time.Date(2026, 1, 2, 10, 30, 0, 0, time.UTC)
	i, err := tempclone.New(ctx, keys{})
	if err != nil {
		t.Fatal(err)
	}
	i.Now = func() time.Time { return now }
	tok := i.Token(42, 7)
	if !tempclone.Looks(tok) || tok != i.Token(42, 7) {
		t.Fatalf("token %q", tok)
	}
	repo, user, exp, ok := i.Check(tok)
	if !ok || repo != 42 || user != 7 || !exp.Equal(time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("check: %d %d %v %v", repo, user, exp, ok)
	}
	bad := []byte(tok)
	bad[3] ^= 1
	if _, _, _, ok := i.Check(string(bad)); ok || tempclone.Looks("ghp_abc") {
		t.Fatal("a changed token passed")
	}
	other, _ := tempclone.New(ctx, keys{})
	if _, _, _, ok := other.Check(tok); ok {
		t.Fatal("another key's token passed")
	}
	now = now.Add(90 * time.Minute)
	if _, _, _, ok := i.Check(tok); ok {
		t.Fatal("an expired token passed")
	}
}

// GET /repos/{owner}/{repo} gives a private repository's readers a
// temp_clone_token (null for a public repository and for anonymous
// callers); git clones that repository with it, but pushes nothing, clones
// no other private repository, and the API takes it for no credential.
func TestTempCloneTokenClones(t *testing.T) {
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	rita, ritaT := e.NewUser("rita", false)
	mg := e.GitHub(monaT)
	var secretID int64
	for _, name := range []string{"secret", "other"} {
		r, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(true), AutoInit: github.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if name == "secret" {
			secretID = r.GetID()
		}
	}
	if _, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("open"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, secretID, rita.ID, authz.Read) }); err != nil {
		t.Fatal(err)
	}
	token := func(tok, repo string) any {
		return e.Must(200, "GET", "/repos/mona/"+repo, tok, nil).Map(t)["temp_clone_token"]
	}
	if token(monaT, "open") != nil || token("", "open") != nil {
		t.Fatal("a public repository has a temp_clone_token")
	}
	tok, _ := token(ritaT, "secret").(string)
	if tok == "" {
		t.Fatal("a reader of a private repository has no temp_clone_token")
	}
	remote := func(repo string) string {
		u, _ := url.Parse(e.URL + "/mona/" + repo + ".git")
		u.User = url.UserPassword("x-access-token", tok)
		return u.String()
	}
	dir := t.TempDir()
	apitest.MustGit(t, dir, "clone", "-q", remote("secret"), "c")
	clone := filepath.Join(dir, "c")
	if _, err := os.Stat(filepath.Join(clone, "README.md")); err != nil {
		t.Fatalf("cloned: %v", err)
	}
	os.WriteFile(filepath.Join(clone, "x.txt"), []byte("x"), 0o644)
	apitest.MustGit(t, clone, "add", ".")
	apitest.MustGit(t, clone, "commit", "-q", "-m", "x")
	if out, err := apitest.Git(t, clone, "push", "-q", remote("secret"), "HEAD:refs/heads/main"); err == nil {
		t.Fatalf("pushed with a temp_clone_token: %s", out)
	}
	// The owner's token of one repository does not clone another of hers.
	tok, _ = token(monaT, "secret").(string)
	if out, err := apitest.Git(t, dir, "clone", "-q", remote("other"), "o"); err == nil || !strings.Contains(out, "not found") && !strings.Contains(out, "403") && !strings.Contains(out, "401") {
		t.Fatalf("cloned another private repository: %v %s", err, out)
	}
	e.Must(401, "GET", "/repos/mona/secret", tok, nil)
}
