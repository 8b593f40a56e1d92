package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/api/metrics"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/gitrepo"
)

var ctx = context.Background()

// identity is a commit's author (and committer) with a fixed date.
type identity struct {
	name, email string
	when        string // RFC 3339 with the author's offset
}

// work is a local clone driven by the real git client.
type work struct {
	t   *testing.T
	dir string
}

func (w *work) git(env []string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main", "-c", "protocol.version=2"}, args...)...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=", "SSH_ASKPASS=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func newWork(t *testing.T) *work {
	t.Helper()
	w := &work{t: t, dir: t.TempDir()}
	w.git(nil, "init", "-q", ".")
	return w
}

// commit writes files (nil content deletes the file) and commits them as id.
func (w *work) commit(id identity, msg string, files map[string]*string) {
	w.t.Helper()
	for name, content := range files {
		p := filepath.Join(w.dir, name)
		if content == nil {
			w.git(nil, "rm", "-q", name)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(*content), 0o644); err != nil {
			w.t.Fatal(err)
		}
		w.git(nil, "add", name)
	}
	w.git(id.env(), "commit", "-q", "--allow-empty", "-m", msg)
}

func (id identity) env() []string {
	return []string{"GIT_AUTHOR_NAME=" + id.name, "GIT_AUTHOR_EMAIL=" + id.email, "GIT_AUTHOR_DATE=" + id.when,
		"GIT_COMMITTER_NAME=" + id.name, "GIT_COMMITTER_EMAIL=" + id.email, "GIT_COMMITTER_DATE=" + id.when}
}

func text(s string) *string { return &s }

// remote is the clone URL of owner/name with credentials (none when token
// is "").
func remote(e *apitest.Env, login, token, owner, name string) string {
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	if token != "" {
		u.User = url.UserPassword(login, token)
	}
	return u.String()
}

func createRepo(t *testing.T, e *apitest.Env, token, name, description string, private bool) *github.Repository {
	t.Helper()
	r, _, err := e.GitHub(token).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), Description: github.Ptr(description), Private: github.Ptr(private)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hub(t testing.TB, e *apitest.Env) *metrics.Hub {
	h, ok := e.Deps.Metrics.(*metrics.Hub)
	if !ok {
		t.Fatal("no metrics hub installed")
	}
	return h
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// generate writes a linear history of n commits on main with git
// fast-import (straight into the repository's storage) and records it as
// a push: commit i is by author i%authors, an hour after the one before,
// and adds a line to one of 100 files.
func generate(tb testing.TB, e *apitest.Env, owner, name string, n, authors int) {
	tb.Helper()
	v, err := e.Store.R().RepoByName(ctx, owner, name, 0)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := e.Deps.GitRepo(ctx, v.Repo)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := g.Cmd(ctx, nil, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	b := bufio.NewWriterSize(in, 1<<20)
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	files := map[string]string{}
	for i := range n {
		a := i % authors
		f := fmt.Sprintf("dir%d/file%d.txt", i%10, i%100)
		content := files[f] + fmt.Sprintf("line %d\n", i)
		if len(content) > 2000 {
			content = content[1000:]
		}
		files[f] = content
		fmt.Fprintf(b, "commit refs/heads/main\nmark :%d\n", i+1)
		fmt.Fprintf(b, "author Author %d <a%d@example.com> %d +0000\n", a, a, start+int64(i)*3600)
		fmt.Fprintf(b, "committer Author %d <a%d@example.com> %d +0000\n", a, a, start+int64(i)*3600)
		msg := fmt.Sprintf("commit %d\n", i)
		fmt.Fprintf(b, "data %d\n%s", len(msg), msg)
		if i > 0 {
			fmt.Fprintf(b, "from :%d\n", i)
		}
		fmt.Fprintf(b, "M 100644 inline %s\ndata %d\n%s\n", f, len(content), content)
	}
	if err := b.Flush(); err != nil {
		tb.Fatal(err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		tb.Fatalf("fast-import: %v %s", err, stderr.String())
	}
	head, err := g.ResolveRef(ctx, "refs/heads/main")
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Deps.RecordPush(ctx, v.Repo, v.Repo.OwnerID, []api.RefUpdate{{Ref: "refs/heads/main", Old: gitrepo.ZeroOID, New: head}}, false); err != nil {
		tb.Fatal(err)
	}
}
