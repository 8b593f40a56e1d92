package releases_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// fixture is mona/app (public, auto-initialised with a README on main).
type fixture struct {
	t      *testing.T
	e      *apitest.Env
	gh     *github.Client
	token  string
	repoID int64
}

func newFixture(t *testing.T, opts ...apitest.Options) *fixture {
	t.Helper()
	e := apitest.New(t, opts...)
	_, tok := e.NewUser("mona", false)
	f := &fixture{t: t, e: e, gh: e.GitHub(tok), token: tok}
	repo, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.repoID = repo.GetID()
	return f
}

// ref is the object a ref of mona/app names ("" when it does not exist).
func (f *fixture) ref(name string) string {
	sha, err := f.e.Deps.Git.Open(f.repoID).ResolveRef(ctx, name)
	if err != nil {
		return ""
	}
	return sha
}

// user makes another user, a collaborator of mona/app with perm when perm
// is above none.
func (f *fixture) user(login string, perm authz.Permission) (*github.Client, string) {
	f.t.Helper()
	u, tok := f.e.NewUser(login, false)
	if perm > authz.None {
		if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, f.repoID, u.ID, perm) }); err != nil {
			f.t.Fatal(err)
		}
	}
	return f.e.GitHub(tok), tok
}

// create makes a release, failing the test on an error.
func (f *fixture) create(gh *github.Client, req github.CreateReleaseRequest) *github.RepositoryRelease {
	f.t.Helper()
	rel, resp, err := gh.Repositories.CreateRelease(ctx, "mona", "app", req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		f.t.Fatalf("create release %s: %v", req.TagName, err)
	}
	return rel
}

// latest is the tag of mona/app's latest release ("" when none).
func (f *fixture) latest() string {
	f.t.Helper()
	rel, resp, err := f.gh.Repositories.GetLatestRelease(ctx, "mona", "app")
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return ""
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return rel.TagName
}

// status is the HTTP status of a go-github error (0 for none).
func status(err error) int {
	if er, ok := err.(*github.ErrorResponse); ok {
		return er.Response.StatusCode
	}
	return 0
}

// fieldError is the first errors[] entry of a 422 as "Resource.field code".
func fieldError(err error) string {
	er, ok := err.(*github.ErrorResponse)
	if !ok || len(er.Errors) == 0 {
		return ""
	}
	e := er.Errors[0]
	return e.Resource + "." + e.Field + " " + e.Code
}

// git runs the real git client in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// remote is mona/app's clone URL with mona's credentials.
func (f *fixture) remote() string {
	u, _ := url.Parse(f.e.URL + "/mona/app.git")
	u.User = url.UserPassword("mona", f.token)
	return u.String()
}

// lsRemote maps the refs git sees on the server to their objects.
func lsRemote(t *testing.T, remote string) map[string]string {
	refs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(git(t, t.TempDir(), "ls-remote", remote)), "\n") {
		sha, name, _ := strings.Cut(line, "\t")
		refs[name] = sha
	}
	return refs
}

// events are the payloads of the domain events of a type, oldest first.
func (f *fixture) events(typ string) []string {
	f.t.Helper()
	list, err := f.e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, ev := range list {
		if ev.Type == typ {
			out = append(out, string(ev.Payload))
		}
	}
	return out
}
