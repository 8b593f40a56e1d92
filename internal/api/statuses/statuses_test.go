package statuses_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// fixture is mona/app (public, auto-initialised) with a branch "featuree" one
// commit ahead of main, a tag v1 on main, and mona/secret (private).
type fixture struct {
	e             *apitest.Env
	gh            *github.Client
	token         string
	repoID        int64
	main, feature string // commit ids
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	f := &fixture{e: e, gh: e.GitHub(tok), token: tok}
	repo, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.repoID = repo.GetID()
	b, _, err := f.gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	f.main = b.GetCommit().GetSHA()
	for ref, sha := range map[string]string{"refs/heads/featuree": f.main, "refs/tags/v1": f.main} {
		if _, _, err := f.gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: ref, SHA: sha}); err != nil {
			t.Fatal(err)
		}
	}
	fc, _, err := f.gh.Repositories.CreateFile(ctx, "mona", "app", "f.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("featuree work"), Content: []byte("f\n"), Branch: github.Ptr("featuree")})
	if err != nil {
		t.Fatal(err)
	}
	f.feature = fc.GetSHA()
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return f
}

// user makes another user, a collaborator with perm on mona/app when perm
// is above none.
func (f *fixture) user(t *testing.T, login string, perm authz.Permission) string {
	t.Helper()
	u, tok := f.e.NewUser(login, false)
	if perm > authz.None {
		if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, f.repoID, u.ID, perm) }); err != nil {
			t.Fatal(err)
		}
	}
	return tok
}

func (f *fixture) create(t *testing.T, ref, state, context string) *github.RepoStatus {
	t.Helper()
	st := &github.RepoStatus{State: github.Ptr(state), Description: github.Ptr(state + " " + context),
		TargetURL: github.Ptr("https://ci.example.com/" + context)}
	if context != "" {
		st.Context = github.Ptr(context)
	}
	s, resp, err := f.gh.Repositories.CreateStatus(ctx, "mona", "app", ref, *st)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create status %s on %s: %v", state, ref, err)
	}
	return s
}

func TestCreateAndList(t *testing.T) {
	f := newFixture(t)

	// A status without a context gets "default"; empty strings are null.
	s := f.create(t, f.feature, "pending", "")
	if s.GetContext() != "default" || s.GetState() != "pending" || s.GetCreator().GetLogin() != "mona" ||
		s.GetID() == 0 || !strings.HasPrefix(s.GetNodeID(), "SC_") || !strings.HasSuffix(s.GetURL(), "/repos/mona/app/statuses/"+f.feature) {
		t.Errorf("created %+v", s)
	}
	resp := f.e.Must(201, "POST", "/repos/mona/app/statuses/"+f.main, f.token, map[string]any{"state": "success", "description": ""})
	if loc := resp.Header.Get("Location"); loc != f.e.API+"/repos/mona/app/statuses/"+f.main {
		t.Errorf("Location %q", loc)
	}
	r := resp.Map(t)
	if r["description"] != nil || r["target_url"] != nil || r["context"] != "default" {
		t.Errorf("empty description: %v", r)
	}
	// A branch name as {sha} names its head commit.
	if s := f.create(t, "featuree", "success", "ci/build"); s.GetURL() != f.e.API+"/repos/mona/app/statuses/"+f.feature {
		t.Errorf("status on a branch name: %s", s.GetURL())
	}

	// The statuses of featuree's head, newest first, by branch and by sha;
	// main's status is listed by main, its sha and the tag v1.
	for _, ref := range []string{"featuree", f.feature} {
		list, _, err := f.gh.Repositories.ListStatuses(ctx, "mona", "app", ref, nil)
		if err != nil || len(list) != 2 || list[0].GetContext() != "ci/build" || list[1].GetContext() != "default" {
			t.Fatalf("list %s: %v %v", ref, list, err)
		}
	}
	for _, ref := range []string{"main", f.main, "v1"} {
		list, _, err := f.gh.Repositories.ListStatuses(ctx, "mona", "app", ref, nil)
		if err != nil || len(list) != 1 || list[0].GetState() != "success" {
			t.Fatalf("list %s: %v %v", ref, list, err)
		}
	}
	// A ref that names nothing has no statuses.
	list, _, err := f.gh.Repositories.ListStatuses(ctx, "mona", "app", "nope", nil)
	if err != nil || len(list) != 0 {
		t.Errorf("list unknown ref: %v %v", list, err)
	}
	// Anonymous readers of a public repository see them too.
	if list, _, err := f.e.GitHub("").Repositories.ListStatuses(ctx, "mona", "app", "main", nil); err != nil || len(list) != 1 {
		t.Errorf("anonymous list: %v %v", list, err)
	}
}

func TestPagination(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 5; i++ {
		f.create(t, f.main, "pending", "ctx"+string(rune('a'+i)))
	}
	var got []string
	opts := &github.ListOptions{PerPage: 2}
	pages := 0
	for {
		list, resp, err := f.gh.Repositories.ListStatuses(ctx, "mona", "app", "main", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range list {
			got = append(got, s.GetContext())
		}
		if resp.NextPage == 0 {
			if resp.PrevPage != 2 {
				t.Errorf("last page prev %d", resp.PrevPage)
			}
			break
		}
		opts.Page = resp.NextPage
	}
	if strings.Join(got, ",") != "ctxe,ctxd,ctxc,ctxb,ctxa" || pages != 3 {
		t.Errorf("paged %v in %d pages", got, pages)
	}

	// The combined status pages its statuses too, but counts every context.
	c, resp, err := f.gh.Repositories.GetCombinedStatus(ctx, "mona", "app", "main", &github.ListOptions{PerPage: 2, Page: 3})
	if err != nil || c.GetTotalCount() != 5 || len(c.Statuses) != 1 || c.Statuses[0].GetContext() != "ctxa" ||
		resp.PrevPage != 2 || resp.NextPage != 0 {
		t.Errorf("combined page 3: %+v %+v %v", c, resp, err)
	}
}

func TestCombined(t *testing.T) {
	f := newFixture(t)
	combined := func(ref string) *github.CombinedStatus {
		t.Helper()
		c, _, err := f.gh.Repositories.GetCombinedStatus(ctx, "mona", "app", ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// No status yet: pending.
	c := combined("main")
	if c.GetState() != "pending" || c.GetTotalCount() != 0 || len(c.Statuses) != 0 || c.GetSHA() != f.main ||
		c.GetCommitURL() != f.e.API+"/repos/mona/app/commits/"+f.main {
		t.Errorf("empty combined: %+v", c)
	}
	// go-github drops the repository: check it raw.
	raw := f.e.Must(200, "GET", "/repos/mona/app/commits/main/status", f.token, nil).Map(t)
	if repo, _ := raw["repository"].(map[string]any); repo["full_name"] != "mona/app" || raw["url"] != f.e.API+"/repos/mona/app/commits/"+f.main+"/status" {
		t.Errorf("combined raw: %v", raw)
	}
	steps := []struct {
		state, context string
		want           string
		contexts       int
	}{
		{"pending", "ci/build", "pending", 1},
		{"success", "ci/build", "success", 1}, // the newest per context counts
		{"pending", "ci/lint", "pending", 2},
		{"success", "ci/lint", "success", 2},
		{"error", "deploy", "failure", 3},
		{"success", "deploy", "success", 3},
		{"failure", "ci/lint", "failure", 3}, // failure wins over success
		{"pending", "deploy", "failure", 3},  // and over pending
	}
	for _, s := range steps {
		f.create(t, "main", s.state, s.context)
		c := combined("main")
		if c.GetState() != s.want || c.GetTotalCount() != s.contexts || len(c.Statuses) != s.contexts {
			t.Fatalf("after %s %s: state %s, %d contexts; want %s, %d", s.context, s.state, c.GetState(), c.GetTotalCount(), s.want, s.contexts)
		}
	}
	// Newest first, one per context, by tag and sha alike.
	for _, ref := range []string{"v1", f.main} {
		c := combined(ref)
		var got []string
		for _, s := range c.Statuses {
			got = append(got, s.GetContext()+"="+s.GetState())
		}
		if strings.Join(got, ",") != "deploy=pending,ci/lint=failure,ci/build=success" {
			t.Errorf("combined %s statuses: %v", ref, got)
		}
	}
	// featuree's head has its own statuses.
	if c := combined("featuree"); c.GetTotalCount() != 0 || c.GetSHA() != f.feature {
		t.Errorf("featuree combined: %+v", c)
	}
	r := f.e.Do("GET", "/repos/mona/app/commits/nope/status", f.token, nil)
	if r.StatusCode != 404 || !strings.Contains(string(r.Body), "No commit found for SHA: nope") {
		t.Errorf("unknown ref: %d %s", r.StatusCode, r.Body)
	}
}

func TestRefusals(t *testing.T) {
	f := newFixture(t)
	reader := f.user(t, "reader", authz.Read)
	writer := f.user(t, "writer", authz.Write)
	stranger := f.user(t, "stranger", authz.None)
	missing := strings.Repeat("ab", 20)
	good := map[string]any{"state": "success"}

	for _, tc := range []struct {
		name, path, token string
		body              any
		want              int
		message           string
	}{
		{"anonymous", "/repos/mona/app/statuses/" + f.main, "", good, 401, "Requires authentication"},
		{"reader", "/repos/mona/app/statuses/" + f.main, reader, good, 403, "Must have write access"},
		{"stranger on public", "/repos/mona/app/statuses/" + f.main, stranger, good, 403, "Must have write access"},
		{"stranger on private", "/repos/mona/secret/statuses/" + f.main, stranger, good, 404, "Not Found"},
		{"bad state", "/repos/mona/app/statuses/" + f.main, f.token, map[string]any{"state": "done"}, 422, ""},
		{"no state", "/repos/mona/app/statuses/" + f.main, f.token, map[string]any{"context": "x"}, 422, ""},
		{"unknown sha", "/repos/mona/app/statuses/" + missing, f.token, good, 422, "No commit found for SHA: " + missing},
		{"unknown name", "/repos/mona/app/statuses/nope", writer, good, 422, "No commit found for SHA: nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.e.Do("POST", tc.path, tc.token, tc.body)
			if r.StatusCode != tc.want || !strings.Contains(string(r.Body), tc.message) {
				t.Errorf("status %d, want %d with %q: %s", r.StatusCode, tc.want, tc.message, r.Body)
			}
		})
	}
	// Nothing was written.
	total := 0
	for _, sha := range []string{f.main, f.feature, missing} {
		_, n, err := f.e.Store.R().CommitStatuses(ctx, f.repoID, sha, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total != 0 {
		t.Errorf("%d statuses written by refused requests", total)
	}
	if n := statusEvents(t, f.e.Store, f.repoID); n != 0 {
		t.Errorf("%d status events from refused requests", n)
	}

	// Private repositories are hidden from others when reading.
	for _, p := range []string{"/repos/mona/secret/commits/main/statuses", "/repos/mona/secret/commits/main/status"} {
		if r := f.e.Do("GET", p, stranger, nil); r.StatusCode != 404 {
			t.Errorf("GET %s by a stranger: %d", p, r.StatusCode)
		}
		f.e.Must(200, "GET", p, f.token, nil)
	}
	// A collaborator with write access may report; the write appends one
	// domain event.
	f.e.Must(201, "POST", "/repos/mona/app/statuses/"+f.main, writer, good)
	if n := statusEvents(t, f.e.Store, f.repoID); n != 1 {
		t.Errorf("%d status events after one status", n)
	}
}

func TestLimitPerContext(t *testing.T) {
	f := newFixture(t)
	// Fill the context straight in the store; the API refuses the next one.
	err := f.e.Store.Tx(ctx, func(tx store.Q) error {
		for i := 0; i < 1000; i++ {
			if err := tx.CreateCommitStatus(ctx, statusRow(f.repoID, f.main, "full")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := f.e.Do("POST", "/repos/mona/app/statuses/"+f.main, f.token, map[string]any{"state": "success", "context": "full"})
	if r.StatusCode != 422 || !strings.Contains(string(r.Body), "maximum number of statuses") {
		t.Errorf("1001st status: %d %s", r.StatusCode, r.Body)
	}
	// Other contexts of the same commit are not limited by it.
	f.e.Must(201, "POST", "/repos/mona/app/statuses/"+f.main, f.token, map[string]any{"state": "success", "context": "other"})
}
