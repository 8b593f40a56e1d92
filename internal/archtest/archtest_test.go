package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/hubd/hubd/"

// transports are the packages that speak to clients, each a tree of
// packages (a prefix below the module). Every REST category is the one
// transport "internal/api".
var transports = []string{
	"internal/api",
	"internal/graphql",
	"internal/web",
	"internal/githttp",
	"internal/oauthweb",
	"internal/ssh",
	"internal/sshd",
	"internal/gitssh",
}

// roots compose the transports: they may import all of them.
var roots = []string{
	"cmd/",
	"internal/server",
	"internal/apitest", // the test harness runs the whole server
}

// allowed are the imports that break a rule today, each with its reason.
// Keep it empty: move the rule into a service instead.
var allowed = map[string]string{}

// transportOf is the transport tree p belongs to ("" for none).
func transportOf(p string) string {
	for _, t := range transports {
		if p == t || strings.HasPrefix(p, t+"/") {
			return t
		}
	}
	return ""
}

func isRoot(p string) bool {
	for _, r := range roots {
		if p == strings.TrimSuffix(r, "/") || (strings.HasSuffix(r, "/") && strings.HasPrefix(p, r)) {
			return true
		}
	}
	return false
}

// imports lists every package of the module with the module's packages it
// imports (non-test files: tests may use the harness).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	all := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], module) {
			continue
		}
		p := strings.TrimPrefix(f[0], module)
		all[p] = nil
		for _, i := range f[1:] {
			if strings.HasPrefix(i, module) {
				all[p] = append(all[p], strings.TrimPrefix(i, module))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(all) < 50 || all["internal/server"] == nil {
		t.Fatalf("go list found %d packages of the module: not the whole tree", len(all))
	}
	return all
}

// violation is why p may not import i ("" when it may).
func violation(p, i string) string {
	if isRoot(p) {
		return ""
	}
	from, to := transportOf(p), transportOf(i)
	switch {
	case p == "internal/wire" && (i == "internal/store" || strings.HasPrefix(i, "internal/store/")):
		return "wire converts plain values and never touches storage"
	case to == "":
		return ""
	case from == "":
		return "a service or library imports the " + to + " transport (move the rule it needs into a service)"
	case from != to:
		return "the " + from + " transport imports the " + to + " transport (both should call a service)"
	case from == "internal/api" && p != "internal/api" && i != "internal/api":
		return "a REST category imports another (the rule it needs belongs in a service package)"
	}
	return ""
}

// TestNoTransportImportsAnother enforces the rule on the whole tree.
func TestNoTransportImportsAnother(t *testing.T) {
	all := imports(t)
	for p, list := range all {
		for _, i := range list {
			why := violation(p, i)
			if why == "" {
				continue
			}
			if _, ok := allowed[p+" -> "+i]; ok {
				continue
			}
			t.Errorf("%s imports %s: %s", p, i, why)
		}
	}
	for k := range allowed {
		p, i, _ := strings.Cut(k, " -> ")
		if !slices.Contains(all[p], i) {
			t.Errorf("allowed exception %q no longer exists: remove it", k)
		}
	}
}

// TestViolation checks the rule itself on made-up imports.
func TestViolation(t *testing.T) {
	for _, c := range []struct {
		from, to string
		bad      bool
	}{
		{"internal/graphql", "internal/api/issues", true},
		{"internal/graphql", "internal/api", true},
		{"internal/web", "internal/api/markdown", true},
		{"internal/api/gists", "internal/githttp", true},
		{"internal/api/oauth", "internal/oauthweb", true},
		{"internal/search", "internal/api", true},
		{"internal/api/forks", "internal/api/repos", true},
		{"internal/wire", "internal/store", true},
		{"internal/api/repos", "internal/api", false},
		{"internal/api/repos", "internal/repos", false},
		{"internal/graphql", "internal/graphql/engine", false},
		{"internal/graphql", "internal/deps", false},
		{"internal/server", "internal/graphql", false},
		{"internal/apitest", "internal/api", false},
		{"cmd/hubd", "internal/api", false},
		{"internal/wire", "internal/model", false},
	} {
		if got := violation(c.from, c.to) != ""; got != c.bad {
			t.Errorf("%s -> %s: violation %v, want %v", c.from, c.to, got, c.bad)
		}
	}
}
