package apitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Playwright is what a test needs to drive Debian's chromium with npm's
// playwright-core (never a downloaded browser).
type Playwright struct {
	Node, Chromium string
	Root           string // the repository root: its node_modules has the packages
	Artifacts      string // where screenshots go: $HUBD_TEST_ARTIFACTS or a temporary directory
}

// NewPlaywright finds node, chromium ($HUBD_CHROMIUM or on the PATH), the
// repository root with the npm packages pkgs (playwright-core at least) and
// the artifacts' directory; anything missing fails the test (scripts/deps.sh
// installs them all).
func NewPlaywright(t testing.TB, pkgs ...string) Playwright {
	t.Helper()
	var p Playwright
	var err error
	if p.Node, err = exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: run `bash scripts/deps.sh`")
	}
	p.Chromium = os.Getenv("HUBD_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p.Chromium == "" {
			p.Chromium, _ = exec.LookPath(name)
		}
	}
	if p.Chromium == "" {
		t.Fatal("chromium is not installed: run `bash scripts/deps.sh` (apt-get install chromium) or set HUBD_CHROMIUM")
	}
	_, file, _, _ := runtime.Caller(0) // internal/apitest/playwright.go
	p.Root = filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	for _, pkg := range append([]string{"playwright-core"}, pkgs...) {
		if _, err := os.Stat(filepath.Join(p.Root, "node_modules", pkg, "package.json")); err != nil {
			t.Fatalf("npm package %s is missing: run `npm ci` (scripts/deps.sh)", pkg)
		}
	}
	if p.Artifacts = os.Getenv("HUBD_TEST_ARTIFACTS"); p.Artifacts == "" {
		p.Artifacts = t.TempDir()
	}
	if err := os.MkdirAll(p.Artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
