package secrets_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// TestOctokitSecrets runs clients/octokit/secrets.test.mjs: secrets sealed
// with libsodium-wrappers, as GitHub's documentation does, sent with
// @octokit/rest. A missing node or package is a failure: `make deps`
// installs them.
func TestOctokitSecrets(t *testing.T) {
	e := apitest.New(t)
	root := apitest.Root()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed (scripts/deps.sh installs it)")
	}
	for _, pkg := range []string{"@octokit/rest", "libsodium-wrappers"} {
		if _, err := os.Stat(filepath.Join(root, "node_modules", pkg)); err != nil {
			t.Fatalf("%s is not installed: run `make deps`", pkg)
		}
	}
	cmd := exec.Command("node", "--test", "--test-reporter=spec", filepath.Join(root, "clients", "octokit", "secrets.test.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HUBD_URL="+e.URL, "HUBD_TOKEN="+e.AdminToken)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("octokit secrets: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
