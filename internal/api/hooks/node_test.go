package hooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// TestOctokitWebhooks runs clients/octokit/webhooks.test.mjs: hooks made
// with @octokit/rest, deliveries verified with @octokit/webhooks. A
// missing node or package is a failure: `make deps` installs them.
func TestOctokitWebhooks(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8")
	e := apitest.New(t)
	root := apitest.Root()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed (scripts/deps.sh installs it)")
	}
	for _, pkg := range []string{"rest", "webhooks"} {
		if _, err := os.Stat(filepath.Join(root, "node_modules", "@octokit", pkg)); err != nil {
			t.Fatalf("@octokit/%s is not installed: run `make deps`", pkg)
		}
	}
	cmd := exec.Command("node", "--test", "--test-reporter=spec", filepath.Join(root, "clients", "octokit", "webhooks.test.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HUBD_URL="+e.URL, "HUBD_TOKEN="+e.AdminToken)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("octokit webhooks: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
