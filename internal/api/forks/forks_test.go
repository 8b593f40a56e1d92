package forks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// A fork answers 202 at once; its git is copied by a job, before which it
// reads as an empty repository; the real git client then clones it and
// pushes to it, and the parent counts it.
func TestForkCloneAndPush(t *testing.T) {
	e := apitest.New(t, apitest.Options{ManualJobs: true})
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	head := seeded(t, e, "mona", monaTok, "app", false)
	hubot := e.GitHub(hubotTok)

	f := fork(t, hubot, "mona", "app", nil)
	if f.GetFullName() != "hubot/app" || !f.GetFork() || f.GetPrivate() || f.GetDefaultBranch() != "main" ||
		f.GetParent().GetFullName() != "mona/app" || f.GetSource().GetFullName() != "mona/app" ||
		f.GetOwner().GetLogin() != "hubot" || f.GetHasIssues() || !f.GetPermissions().GetAdmin() {
		t.Fatalf("fork: %+v", f)
	}

	// Before the copy: an empty repository, not an error.
	if b := list(t, e.Must(200, "GET", "/repos/hubot/app/branches", hubotTok, nil)); len(b) != 0 {
		t.Errorf("branches before the copy: %v", b)
	}
	e.Must(409, "GET", "/repos/hubot/app/commits", hubotTok, nil)
	e.Must(200, "GET", "/repos/hubot/app", hubotTok, nil)

	e.RunJobs()
	got := refs(t, e, "hubot", hubotTok, "hubot", "app")
	parent := refs(t, e, "mona", monaTok, "mona", "app")
	for _, r := range []string{"refs/heads/main", "refs/heads/dev", "refs/tags/v1", "HEAD"} {
		if got[r] == "" || got[r] != parent[r] {
			t.Errorf("fork %s = %q, parent %q", r, got[r], parent[r])
		}
	}
	if got["refs/heads/main"] != head {
		t.Errorf("fork main %s, want %s", got["refs/heads/main"], head)
	}
	b, _, err := hubot.Repositories.GetBranch(ctx, "hubot", "app", "main", 0)
	if err != nil || b.GetCommit().GetSHA() != head {
		t.Fatalf("fork branch after the copy: %v %v", b, err)
	}

	// Clone the fork, commit, push; the parent does not move.
	dir := t.TempDir()
	mustGit(t, dir, "clone", "-q", remote(e, "hubot", hubotTok, "hubot", "app"), "w")
	w := filepath.Join(dir, "w")
	if err := os.WriteFile(filepath.Join(w, "fix.txt"), []byte("fix\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, w, "add", "fix.txt")
	mustGit(t, w, "commit", "-q", "-m", "fix")
	mustGit(t, w, "push", "-q", "origin", "main:refs/heads/fix")
	fix := strings.TrimSpace(mustGit(t, w, "rev-parse", "HEAD"))
	if r := refs(t, e, "hubot", hubotTok, "hubot", "app"); r["refs/heads/fix"] != fix {
		t.Errorf("pushed fix: %v", r)
	}
	if r := refs(t, e, "mona", monaTok, "mona", "app"); r["refs/heads/fix"] != "" {
		t.Errorf("the parent got the fork's branch: %v", r)
	}

	// The parent and the fork as GET shows them.
	p := e.Must(200, "GET", "/repos/mona/app", monaTok, nil).Map(t)
	if p["forks_count"] != float64(1) || p["forks"] != float64(1) || p["network_count"] != float64(1) || p["fork"] != false || p["parent"] != nil {
		t.Errorf("parent: forks_count %v forks %v network %v fork %v parent %v", p["forks_count"], p["forks"], p["network_count"], p["fork"], p["parent"])
	}
	g := e.Must(200, "GET", "/repos/hubot/app", "", nil).Map(t)
	if g["fork"] != true || g["network_count"] != float64(1) || g["forks_count"] != float64(0) ||
		g["parent"].(map[string]any)["full_name"] != "mona/app" || g["source"].(map[string]any)["full_name"] != "mona/app" {
		t.Errorf("fork as read: %v", g)
	}

	// A fork's visibility does not change (GitHub ignores the request).
	if got := e.Must(200, "PATCH", "/repos/hubot/app", hubotTok, map[string]any{"private": true, "description": "mine"}).Map(t); got["private"] != false || got["description"] != "mine" {
		t.Errorf("fork made private: %v %v", got["private"], got["description"])
	}

	// Forking again without a name returns the fork there is; forking
	// one's own repository returns that repository (GitHub's answers);
	// nothing new is made (a name makes a new fork: TestNamedForks).
	again := fork(t, hubot, "mona", "app", nil)
	if again.GetID() != f.GetID() || again.GetName() != "app" {
		t.Errorf("second fork: %d %s, want %d", again.GetID(), again.GetFullName(), f.GetID())
	}
	own := fork(t, e.GitHub(monaTok), "mona", "app", nil)
	if own.GetFullName() != "mona/app" || own.GetFork() {
		t.Errorf("forking one's own repository: %s", own.GetFullName())
	}
	list, _, err := hubot.Repositories.ListForks(ctx, "mona", "app", nil)
	if err != nil || len(list) != 1 || list[0].GetFullName() != "hubot/app" || !list[0].GetFork() {
		t.Fatalf("forks: %v %v", list, err)
	}
	// The domain event of the fork, on the parent.
	evs, err := e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Type == "fork" && float64(ev.RepoID) == p["id"].(float64) && strings.Contains(string(ev.Payload), `"full_name":"hubot/app"`) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d fork events", n)
	}
}

// A push to a fork before its copy keeps its branch and gets the parent's.
func TestPushBeforeCopy(t *testing.T) {
	e := apitest.New(t, apitest.Options{ManualJobs: true})
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	head := seeded(t, e, "mona", monaTok, "app", false)
	fork(t, e.GitHub(hubotTok), "mona", "app", nil)

	dir := t.TempDir()
	mustGit(t, dir, "init", "-q")
	mustGit(t, dir, "commit", "-q", "--allow-empty", "-m", "early")
	mustGit(t, dir, "push", "-q", remote(e, "hubot", hubotTok, "hubot", "app"), "HEAD:refs/heads/early")
	early := strings.TrimSpace(mustGit(t, dir, "rev-parse", "HEAD"))

	e.RunJobs()
	r := refs(t, e, "hubot", hubotTok, "hubot", "app")
	if r["refs/heads/early"] != early || r["refs/heads/main"] != head || r["refs/heads/dev"] == "" || r["refs/tags/v1"] == "" {
		t.Errorf("refs after the copy: %v", r)
	}
}

// Names: a taken name gets GitHub's suffix; name picks another; a fork of a
// fork has its parent and the network's source; default_branch_only copies
// one branch; deleting forks counts down and moves the network up.
func TestNetwork(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	_, carolTok := e.NewUser("carol", false)
	_, daveTok := e.NewUser("dave", false)
	seeded(t, e, "mona", monaTok, "app", false)
	carol := e.GitHub(carolTok)
	if _, _, err := carol.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app")}); err != nil {
		t.Fatal(err)
	}
	if f := fork(t, carol, "mona", "app", nil); f.GetName() != "app-1" {
		t.Errorf("taken name: %s", f.GetFullName())
	}
	hf := fork(t, e.GitHub(hubotTok), "mona", "app", &github.RepositoryCreateForkOptions{Name: "my app", DefaultBranchOnly: true})
	if hf.GetFullName() != "hubot/my-app" {
		t.Errorf("named fork: %s", hf.GetFullName())
	}
	df := fork(t, e.GitHub(daveTok), "hubot", "my-app", nil)
	if df.GetFullName() != "dave/my-app" || df.GetParent().GetFullName() != "hubot/my-app" || df.GetSource().GetFullName() != "mona/app" {
		t.Errorf("fork of a fork: %s parent %s source %s", df.GetFullName(), df.GetParent().GetFullName(), df.GetSource().GetFullName())
	}
	e.RunJobs()
	r := refs(t, e, "hubot", hubotTok, "hubot", "my-app")
	if r["refs/heads/main"] == "" || r["refs/heads/dev"] != "" || r["refs/tags/v1"] != "" {
		t.Errorf("default_branch_only copied %v", r)
	}
	if r := refs(t, e, "dave", daveTok, "dave", "my-app"); r["refs/heads/main"] == "" {
		t.Errorf("fork of a fork: %v", r)
	}

	counts := func(path string) (forks, network any) {
		m := e.Must(200, "GET", path, monaTok, nil).Map(t)
		return m["forks_count"], m["network_count"]
	}
	if f, n := counts("/repos/mona/app"); f != float64(2) || n != float64(3) {
		t.Errorf("root: forks %v network %v", f, n)
	}
	if f, n := counts("/repos/hubot/my-app"); f != float64(1) || n != float64(3) {
		t.Errorf("middle: forks %v network %v", f, n)
	}
	// Dave already has a fork in the network: forking the root returns it.
	if again := fork(t, e.GitHub(daveTok), "mona", "app", nil); again.GetID() != df.GetID() {
		t.Errorf("dave's second fork: %s", again.GetFullName())
	}

	// Deleting a fork counts down.
	e.Must(204, "DELETE", "/repos/carol/app-1", carolTok, nil)
	if f, n := counts("/repos/mona/app"); f != float64(1) || n != float64(2) {
		t.Errorf("after a delete: forks %v network %v", f, n)
	}
	// Deleting the root: its oldest fork becomes the root, the others move
	// under it; the git of the forks stands on its own.
	e.Must(204, "DELETE", "/repos/mona/app", monaTok, nil)
	h := e.Must(200, "GET", "/repos/hubot/my-app", hubotTok, nil).Map(t)
	if h["fork"] != false || h["parent"] != nil || h["forks_count"] != float64(1) || h["network_count"] != float64(1) {
		t.Errorf("new root: fork %v parent %v forks %v network %v", h["fork"], h["parent"], h["forks_count"], h["network_count"])
	}
	d := e.Must(200, "GET", "/repos/dave/my-app", daveTok, nil).Map(t)
	if d["parent"].(map[string]any)["full_name"] != "hubot/my-app" || d["source"].(map[string]any)["full_name"] != "hubot/my-app" {
		t.Errorf("dave's fork after the root went: %v %v", d["parent"], d["source"])
	}
	dir := t.TempDir()
	mustGit(t, dir, "clone", "-q", remote(e, "hubot", hubotTok, "hubot", "my-app"), "c")
	mustGit(t, filepath.Join(dir, "c"), "fsck", "--full")
}

// Private repositories: only those who may read may fork; the fork stays
// private and hidden from others; allow_forking false and the
// organization's policy refuse.
func TestPrivateAndRefusals(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	bob, bobTok := e.NewUser("bob", false)
	_, eveTok := e.NewUser("eve", false)
	seeded(t, e, "mona", monaTok, "secret", true)
	seeded(t, e, "mona", monaTok, "app", false)
	seeded(t, e, "mona", monaTok, "lib", false)
	v, err := e.Store.R().RepoByName(ctx, "mona", "secret", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, v.Repo.ID, bob.ID, authz.Read) }); err != nil {
		t.Fatal(err)
	}

	f := fork(t, e.GitHub(bobTok), "mona", "secret", nil)
	if !f.GetPrivate() || f.GetVisibility() != "private" || f.GetFullName() != "bob/secret" {
		t.Errorf("private fork: %s private %v", f.GetFullName(), f.GetPrivate())
	}
	e.RunJobs()
	if r := refs(t, e, "bob", bobTok, "bob", "secret"); r["refs/heads/main"] == "" {
		t.Errorf("private fork refs: %v", r)
	}
	e.Must(404, "GET", "/repos/bob/secret", eveTok, nil)
	e.Must(404, "GET", "/repos/bob/secret", "", nil)
	if got := list(t, e.Must(200, "GET", "/repos/mona/secret/forks", bobTok, nil)); len(got) != 1 {
		t.Errorf("bob's list of forks: %v", got)
	}
	// mona sees her repository's forks only as far as she may see them.
	if got := list(t, e.Must(200, "GET", "/repos/mona/secret/forks", monaTok, nil)); len(got) != 0 {
		t.Errorf("mona sees %v", got)
	}

	acme := org(t, e, "acme", mona, bob)
	if _, _, err := e.GitHub(monaTok).Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	e.Must(200, "PATCH", "/repos/mona/app", monaTok, map[string]any{"allow_forking": false})

	cases := []struct {
		name, path, token string
		body              any
		status            int
		message           string
	}{
		{"no access to a private repository", "/repos/mona/secret/forks", eveTok, nil, 404, "Not Found"},
		{"anonymous", "/repos/mona/app/forks", "", nil, 401, ""},
		{"forking disabled", "/repos/mona/app/forks", bobTok, nil, 403, "The repository exists, but forking is disabled."},
		{"organization forbids private forks", "/repos/acme/tools/forks", bobTok, nil, 403, "The repository exists, but forking is disabled."},
		{"organization is a user", "/repos/mona/secret/forks", bobTok, map[string]any{"organization": "eve"}, 422, ""},
		{"not a member of the organization", "/repos/mona/lib/forks", eveTok, map[string]any{"organization": "acme"}, 403, "You need admin access to the organization before adding a repository to it."},
		{"no such organization", "/repos/mona/secret/forks", bobTok, map[string]any{"organization": "nope"}, 422, ""},
		{"bad name", "/repos/mona/secret/forks", bobTok, map[string]any{"name": "x.git"}, 422, ""},
		{"body not an object", "/repos/mona/secret/forks", bobTok, []int{1}, 422, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", c.path, c.token, c.body)
			if r.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, c.status, r.Body)
			}
			if c.message != "" && r.Map(t)["message"] != c.message {
				t.Errorf("message %v", r.Map(t)["message"])
			}
		})
	}

	// A member forks into the organization once it allows private forks;
	// the fork is the organization's, private, and the member administers it.
	e.Must(200, "PATCH", "/orgs/acme", monaTok, map[string]any{"members_can_fork_private_repositories": true})
	r := e.Must(202, "POST", "/repos/mona/secret/forks", bobTok, map[string]any{"organization": "acme"}).Map(t)
	if r["full_name"] != "acme/secret" || r["private"] != true || r["organization"].(map[string]any)["login"] != "acme" ||
		r["permissions"].(map[string]any)["admin"] != true {
		t.Errorf("org fork: %v %v %v", r["full_name"], r["private"], r["permissions"])
	}
	// Private repositories of the organization: forked into the member's account.
	r = e.Must(202, "POST", "/repos/acme/tools/forks", bobTok, nil).Map(t)
	if r["full_name"] != "bob/tools" || r["private"] != true {
		t.Errorf("fork of an org repository: %v", r["full_name"])
	}
	// The organization's lists tell forks from sources; lists carry fork
	// but never embed parent or source.
	forksOnly := list(t, e.Must(200, "GET", "/orgs/acme/repos?type=forks", monaTok, nil))
	if len(forksOnly) != 1 || forksOnly[0]["full_name"] != "acme/secret" || forksOnly[0]["fork"] != true || forksOnly[0]["parent"] != nil {
		t.Errorf("type=forks: %v", forksOnly)
	}
	sources := list(t, e.Must(200, "GET", "/orgs/acme/repos?type=sources", monaTok, nil))
	if len(sources) != 1 || sources[0]["full_name"] != "acme/tools" || sources[0]["fork"] != false {
		t.Errorf("type=sources: %v", sources)
	}
	// acme has its fork of the network already: the admin forking into
	// acme gets that one.
	if got := e.Must(202, "POST", "/repos/mona/secret/forks", monaTok, map[string]any{"organization": "acme"}).Map(t); got["full_name"] != "acme/secret" {
		t.Errorf("the org admin's fork: %v", got["full_name"])
	}

	// Deleting a private repository deletes its forks (storage included);
	// a public repository's forks stay (TestNetwork).
	e.RunJobs()
	bobFork, err := e.Store.R().RepoByName(ctx, "bob", "secret", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Deps.Git.Open(bobFork.Repo.ID).Exists() {
		t.Fatal("bob's fork has no storage")
	}
	e.Must(204, "DELETE", "/repos/mona/secret", monaTok, nil)
	e.Must(404, "GET", "/repos/bob/secret", bobTok, nil)
	e.Must(404, "GET", "/repos/acme/secret", monaTok, nil)
	if e.Deps.Git.Open(bobFork.Repo.ID).Exists() {
		t.Error("bob's fork kept its storage")
	}
	e.Must(200, "GET", "/repos/bob/tools", bobTok, nil) // another network
	if acme.ID == 0 {
		t.Fatal("no org")
	}
}

// The list: newest first by default, oldest on request, paginated in SQL
// with Link.
func TestListForks(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	seeded(t, e, "mona", monaTok, "app", false)
	var names []string
	for _, login := range []string{"u1", "u2", "u3", "u4", "u5"} {
		_, tok := e.NewUser(login, false)
		if login == "u5" {
			// The body may be null (the spec's nullable object).
			e.Must(202, "POST", "/repos/mona/app/forks", tok, "null")
		} else {
			fork(t, e.GitHub(tok), "mona", "app", nil)
		}
		names = append(names, login+"/app")
	}
	gh := e.GitHub(monaTok)
	var all []string
	opts := &github.RepositoryListForksOptions{ListOptions: github.ListOptions{PerPage: 2}}
	pages := 0
	for {
		list, resp, err := gh.Repositories.ListForks(ctx, "mona", "app", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if pages == 1 && resp.LastPage != 3 {
			t.Errorf("last page %d", resp.LastPage)
		}
		for _, r := range list {
			all = append(all, r.GetFullName())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	want := []string{"u5/app", "u4/app", "u3/app", "u2/app", "u1/app"}
	if strings.Join(all, ",") != strings.Join(want, ",") {
		t.Errorf("newest: %v", all)
	}
	oldest, _, err := gh.Repositories.ListForks(ctx, "mona", "app", &github.RepositoryListForksOptions{Sort: "oldest"})
	if err != nil || len(oldest) != 5 || oldest[0].GetFullName() != "u1/app" || oldest[4].GetFullName() != "u5/app" {
		t.Errorf("oldest: %v %v", oldest, err)
	}
	e.Must(422, "GET", "/repos/mona/app/forks?sort=size", monaTok, nil)
	e.Must(404, "GET", "/repos/mona/nope/forks", monaTok, nil)
	if got := list(t, e.Must(200, "GET", "/repos/u1/app/forks", "", nil)); len(got) != 0 {
		t.Errorf("forks of a fork without forks: %v", got)
	}
	if len(names) != 5 {
		t.Fatal(names)
	}
}

// Concurrent forks of one network into one account make one fork.
func TestConcurrentForks(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	seeded(t, e, "mona", monaTok, "app", false)
	ids := make(chan int64, 6)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.Do("POST", "/repos/mona/app/forks", hubotTok, nil)
			if r.StatusCode != 202 {
				t.Errorf("status %d: %s", r.StatusCode, r.Body)
				ids <- 0
				return
			}
			var m map[string]any
			if err := json.Unmarshal(r.Body, &m); err != nil {
				t.Error(err)
			}
			id, _ := m["id"].(float64)
			ids <- int64(id)
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Errorf("forks made: %v", seen)
	}
	if got := list(t, e.Must(200, "GET", "/repos/mona/app/forks", monaTok, nil)); len(got) != 1 {
		t.Errorf("%d forks listed", len(got))
	}
}
