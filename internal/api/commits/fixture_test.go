package commits_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// history is a repository with a known history, pushed with the real git
// client:
//
//	main:    c1 ─ c2 ─ c3 ─ c4 ─ n01..n20 ─ m1
//	feature:                          n20 ─ f1 ─ f2
//	merged:  m1 + merge of feature (no fast-forward)
//	topic/slash: c3
//	orphan:  o1 (a second root)
//	tags: v1.0 (lightweight, c1), v2.0 (annotated, c3)
type history struct {
	e      *apitest.Env
	mona   *model.Account
	token  string
	gh     *github.Client
	dir    string
	sha    map[string]string
	files  map[string]int // sizes of the files of main's tip, by path
	domain string         // noreply domain
}

const (
	monaID  = "Mona Lisa <mona@example.com>"
	otherID = "Other Person <other@example.com>"
)

func newHistory(t *testing.T) *history {
	t.Helper()
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	mona.Email = "mona@example.com"
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.UpdateAccount(ctx, mona) }); err != nil {
		t.Fatal(err)
	}
	h := &history{e: e, mona: mona, token: tok, gh: e.GitHub(tok), dir: t.TempDir(), sha: map[string]string{}, files: map[string]int{}}
	h.domain = "users.noreply." + strings.Split(strings.TrimPrefix(e.URL, "http://"), ":")[0]
	if _, _, err := h.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hist")}); err != nil {
		t.Fatal(err)
	}
	h.git(t, "", "init", "-q", "-b", "main")
	h.git(t, "", "remote", "add", "origin", remote(e, "mona", tok, "mona", "hist"))

	day := 0
	next := func() string { day++; return fmt.Sprintf("2020-01-%02dT12:00:00Z", day) }
	mainGo := "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"
	h.sha["c1"] = h.commit(t, monaID, next(), "first commit\n\nwith a body", map[string]string{
		"README.md":       "# hist\n",
		"main.go":         mainGo,
		"web/index.html":  "<!doctype html>\n<p>hi</p>\n",
		"web/style.css":   "p { color: red; }\n",
		"lib/util.py":     "def util():\n    return 1\n\n\ndef other():\n    return 2\n",
		"scripts/run.sh":  "#!/bin/sh\necho run\n",
		"Makefile":        "all:\n\tgo build\n",
		"docs/example.py": "print('docs are not counted')\n",
	})
	h.sha["c2"] = h.commit(t, otherID, next(), "add a logo", map[string]string{
		"logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00binary\x00data",
	})
	mainGo2 := strings.Replace(mainGo, "hello", "hello, world", 1) + "\n// more\n"
	noreply := "Mona Lisa <" + strconv.FormatInt(mona.ID, 10) + "+mona@" + h.domain + ">"
	h.sha["c3"] = h.commit(t, noreply, next(), "rename util, drop the style", map[string]string{
		"main.go":        mainGo2,
		"lib/util.py":    "",
		"lib/helpers.py": "def util():\n    return 1\n\n\ndef other():\n    return 2\n",
		"web/style.css":  "",
	})
	h.sha["c4"] = h.commit(t, otherID, next(), "vendored code", map[string]string{
		"vendor/lib.js":             strings.Repeat("var x = 1;\n", 50),
		"node_modules/dep/index.js": "module.exports = 1;\n",
		"web/app.min.js":            "var a=1;",
	})
	for i := 1; i <= 20; i++ {
		h.sha[fmt.Sprintf("n%02d", i)] = h.commit(t, otherID, next(), fmt.Sprintf("counter %d", i), map[string]string{
			"counter.txt": strconv.Itoa(i) + "\n",
		})
	}
	h.git(t, "", "tag", "v1.0", h.sha["c1"])
	h.git(t, "", "tag", "-a", "-m", "version two", "v2.0", h.sha["c3"])
	h.git(t, "", "branch", "topic/slash", h.sha["c3"])
	h.git(t, "", "checkout", "-q", "-b", "feature")
	h.sha["f1"] = h.commit(t, otherID, next(), "feature one", map[string]string{"feature.go": "package main\n\nvar feature = 1\n"})
	h.sha["f2"] = h.commit(t, otherID, next(), "feature two", map[string]string{"feature.go": "package main\n\nvar feature = 2\n"})
	h.git(t, "", "checkout", "-q", "main")
	h.sha["m1"] = h.commit(t, monaID, next(), "main moves on", map[string]string{"main.go": mainGo2 + "// m1\n"})
	h.git(t, "", "checkout", "-q", "-b", "merged")
	h.gitEnv(t, h.env(next(), monaID), "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
	h.sha["merge"] = h.rev(t, "HEAD")
	h.git(t, "", "checkout", "-q", "--orphan", "orphan")
	h.git(t, "", "rm", "-q", "-rf", ".")
	h.sha["o1"] = h.commit(t, otherID, next(), "unrelated root", map[string]string{"other.txt": "other\n"})
	h.git(t, "", "checkout", "-q", "main")
	h.git(t, "", "push", "-q", "origin", "main")
	h.git(t, "", "push", "-q", "origin", "feature", "merged", "topic/slash", "orphan", "--tags")

	out := h.git(t, "", "ls-tree", "-r", "-l", "main")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		meta, path, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		n, _ := strconv.Atoi(f[3])
		h.files[path] = n
	}
	return h
}

// remote is the clone URL of owner/name with credentials.
func remote(e *apitest.Env, login, token, owner, name string) string {
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	if token != "" {
		u.User = url.UserPassword(login, token)
	}
	return u.String()
}

func (h *history) env(date, who string) []string {
	name, email, _ := strings.Cut(who, " <")
	email = strings.TrimSuffix(email, ">")
	return []string{"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email, "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email, "GIT_COMMITTER_DATE=" + date}
}

// commit writes files ("" deletes one) and commits them as who at date.
func (h *history) commit(t *testing.T, who, date, msg string, files map[string]string) string {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(h.dir, p)
		if content == "" {
			os.Remove(full)
			continue
		}
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.git(t, "", "add", "-A")
	h.gitEnv(t, h.env(date, who), "commit", "-q", "-m", msg)
	return h.rev(t, "HEAD")
}

func (h *history) rev(t *testing.T, rev string) string {
	t.Helper()
	return strings.TrimSpace(h.git(t, "", "rev-parse", rev))
}

func (h *history) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return h.gitIn(t, dir, nil, args...)
}

func (h *history) gitEnv(t *testing.T, env []string, args ...string) string {
	t.Helper()
	return h.gitIn(t, "", env, args...)
}

func (h *history) gitIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := runGit(dir, h.dir, env, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func runGit(dir, def string, env []string, args ...string) (string, error) {
	if dir == "" {
		dir = def
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=", "SSH_ASKPASS="), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// user makes another user with a permission on mona/hist (authz.None: no
// relation, which on a public repository is read).
func (h *history) user(t *testing.T, login string, perm authz.Permission) (*model.Account, string) {
	t.Helper()
	u, tok := h.e.NewUser(login, false)
	if perm > authz.None {
		repo, _, err := h.gh.Repositories.Get(ctx, "mona", "hist")
		if err != nil {
			t.Fatal(err)
		}
		err = h.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.GetID(), u.ID, perm) })
		if err != nil {
			t.Fatal(err)
		}
	}
	return u, tok
}

// status is the HTTP status of a go-github call.
func status(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// revList is git's own answer, for comparison with the API.
func (h *history) revList(t *testing.T, args ...string) []string {
	t.Helper()
	out := strings.TrimSpace(h.git(t, "", append([]string{"rev-list"}, args...)...))
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}
