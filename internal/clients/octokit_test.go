// Package clients runs GitHub's own client libraries (Octokit) against hubd.
package clients_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/ratelimit"
)

// runNode runs a node:test script of clients/octokit against env. A missing
// node or Octokit is a failure: `make test` installs them.
func runNode(t *testing.T, script string, env ...string) {
	t.Helper()
	root := apitest.Root()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed (scripts/deps.sh installs it)")
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@octokit", "rest")); err != nil {
		t.Fatal("@octokit/rest is not installed: run `make deps`")
	}
	cmd := exec.Command("node", "--test", "--test-reporter=spec", filepath.Join(root, "clients", "octokit", script))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("octokit %s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}

func TestOctokitFoundation(t *testing.T) {
	e := apitest.New(t)
	limited := apitest.New(t, apitest.Options{Limits: &ratelimit.Limits{Anonymous: 3, Authenticated: 5, Installation: 5, Search: 2, SearchAnon: 1, Window: time.Hour}})
	runNode(t, "foundation.test.mjs", "HUBD_URL="+e.URL, "HUBD_TOKEN="+e.AdminToken, "HUBD_LIMITED_URL="+limited.URL)
}

func TestOctokitPulls(t *testing.T) {
	e := apitest.New(t)
	runNode(t, "pulls.test.mjs", "HUBD_URL="+e.URL, "HUBD_TOKEN="+e.AdminToken)
}
