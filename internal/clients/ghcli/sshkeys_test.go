package ghcli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// keygen makes an ed25519 key pair with ssh-keygen; it returns the public
// key's file.
func keygen(t *testing.T, comment string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	return path + ".pub"
}

// gh ssh-key add/list and gh repo deploy-key add/list/delete.
func TestGhSSHKeys(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	g0 := ghcli.Start(t, e)
	g0.LoginAs("mona", tok)
	pub := keygen(t, "mona@laptop")
	text, err := os.ReadFile(pub)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(text))

	t.Run("ssh-key add and list", func(t *testing.T) {
		g := g0.For(t)
		g.Must("ssh-key", "add", pub, "--title", "laptop")
		var keys []map[string]any
		e.Must(200, "GET", "/user/keys", tok, nil).JSON(t, &keys)
		if len(keys) != 1 || keys[0]["title"] != "laptop" || keys[0]["key"] != fields[0]+" "+fields[1] {
			t.Fatalf("keys after gh ssh-key add: %v", keys)
		}
		out := g.Must("ssh-key", "list")
		if !strings.Contains(out, "laptop") || !strings.Contains(out, fields[1][:20]) {
			t.Fatalf("gh ssh-key list:\n%s", out)
		}
		// The same key again: gh says it is already there.
		r := g.Run("ssh-key", "add", pub, "--title", "again")
		if !strings.Contains(r.Stdout+r.Stderr, "already exists") && !strings.Contains(r.Stdout+r.Stderr, "already in use") {
			t.Fatalf("gh ssh-key add of a key in use:\n%s", r)
		}
	})

	t.Run("repo deploy-key add, list and delete", func(t *testing.T) {
		g := g0.For(t)
		dpub := keygen(t, "ci")
		g.Must("repo", "deploy-key", "add", dpub, "--repo", "mona/hello", "--title", "ci", "--allow-write")
		var keys []map[string]any
		e.Must(200, "GET", "/repos/mona/hello/keys", tok, nil).JSON(t, &keys)
		if len(keys) != 1 || keys[0]["title"] != "ci" || keys[0]["read_only"] != false {
			t.Fatalf("deploy keys after gh repo deploy-key add: %v", keys)
		}
		out := g.Must("repo", "deploy-key", "list", "--repo", "mona/hello")
		if !strings.Contains(out, "ci") || !strings.Contains(out, "read-write") {
			t.Fatalf("gh repo deploy-key list:\n%s", out)
		}
		g.Must("repo", "deploy-key", "delete", itoa(keys[0]["id"]), "--repo", "mona/hello")
		e.Must(200, "GET", "/repos/mona/hello/keys", tok, nil).JSON(t, &keys)
		if len(keys) != 0 {
			t.Fatalf("deploy keys after gh repo deploy-key delete: %v", keys)
		}
	})
}
