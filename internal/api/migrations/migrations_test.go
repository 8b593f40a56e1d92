package migrations_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// untar downloads url (no credentials) and unpacks the .tar.gz into a
// directory.
func untar(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("download %s: %d %s", url, resp.StatusCode, b)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Fatalf("entry outside the archive: %q", h.Name)
		}
		if h.Typeflag == tar.TypeDir {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// records reads every <kind>_NNNNNN.json file of an unpacked archive, in
// order, checking each holds at most 100 records.
func records(t *testing.T, dir, kind string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i := 1; ; i++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s_%06d.json", kind, i)))
		if errors.Is(err, os.ErrNotExist) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		var page []map[string]any
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatalf("%s page %d: %v", kind, i, err)
		}
		if len(page) == 0 || len(page) > 100 {
			t.Fatalf("%s page %d has %d records", kind, i, len(page))
		}
		out = append(out, page...)
	}
}

func waitState(t *testing.T, e *apitest.Env, path, tok, want string) map[string]any {
	t.Helper()
	e.RunJobs()
	m := e.Must(200, "GET", path, tok, nil).Map(t)
	if m["state"] != want {
		t.Fatalf("%s: state %v, want %s", path, m["state"], want)
	}
	return m
}

func TestOrgMigration(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(201, "POST", "/orgs/acme/repos", tok, map[string]any{"name": "widgets", "auto_init": true})
	e.Must(201, "POST", "/orgs/acme/repos", tok, map[string]any{"name": "other"})
	e.Must(201, "POST", "/orgs/acme/teams", tok, map[string]any{"name": "Core"})
	e.Must(204, "PUT", "/orgs/acme/teams/core/repos/acme/widgets", tok, map[string]any{"permission": "push"})
	e.Must(201, "POST", "/repos/acme/widgets/milestones", tok, map[string]any{"title": "v1"})
	e.Must(201, "POST", "/repos/acme/widgets/issues", tok, map[string]any{"title": "First bug", "body": "It breaks", "labels": []string{"bug"}, "milestone": 1})
	e.Must(201, "POST", "/repos/acme/widgets/issues/1/comments", tok, map[string]any{"body": "Confirmed here"})
	e.Must(200, "PATCH", "/repos/acme/widgets/issues/1", tok, map[string]any{"state": "closed"})
	// 100 more issues make two pages of issues.
	seed := make([]*store.SeedIssue, 100)
	repo, err := e.Store.R().RepoByName(context.Background(), "acme", "widgets", mona.ID)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i := range seed {
		seed[i] = &store.SeedIssue{Issue: model.Issue{Title: fmt.Sprintf("seeded %d", i), UserID: mona.ID, State: "open", CreatedAt: now, UpdatedAt: now}}
	}
	if err := e.Store.Tx(context.Background(), func(tx store.Q) error { return tx.SeedIssues(context.Background(), repo.Repo.ID, seed) }); err != nil {
		t.Fatal(err)
	}

	// Only owners see the organization's migrations.
	e.NewUser("nobody", false)
	e.Must(404, "POST", "/orgs/acme/migrations", ritaTok, map[string]any{"repositories": []string{"widgets"}})
	e.Must(404, "GET", "/orgs/acme/migrations", ritaTok, nil)
	e.Must(401, "GET", "/orgs/acme/migrations", "", nil)
	// Bad input.
	e.Must(422, "POST", "/orgs/acme/migrations", tok, map[string]any{})
	e.Must(422, "POST", "/orgs/acme/migrations", tok, map[string]any{"repositories": []string{"nope"}})
	e.Must(422, "POST", "/orgs/acme/migrations", tok, map[string]any{"repositories": []string{"mona/widgets"}})

	ctx := context.Background()
	gh := e.GitHub(tok)
	m, _, err := gh.Migrations.StartMigration(ctx, "acme", []string{"acme/widgets"}, &github.MigrationOptions{LockRepositories: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.GetState() != "pending" || !m.GetLockRepositories() || len(m.Repositories) != 1 || m.Repositories[0].GetFullName() != "acme/widgets" {
		t.Fatalf("started: %+v", m)
	}
	// Locked: REST writes and pushes are refused until unlocked.
	r := e.Must(403, "POST", "/repos/acme/widgets/issues", tok, map[string]any{"title": "no"})
	if r.Map(t)["message"] != "Repository was locked for migration" {
		t.Fatalf("locked write: %s", r.Body)
	}
	work := t.TempDir()
	apitest.MustGit(t, work, "clone", e.Remote("acme", "widgets", "mona", tok), "w")
	wd := filepath.Join(work, "w")
	os.WriteFile(filepath.Join(wd, "f.txt"), []byte("x\n"), 0o644)
	apitest.MustGit(t, wd, "add", ".")
	apitest.MustGit(t, wd, "commit", "-m", "change")
	if out, err := apitest.Git(t, wd, "push", "origin", "HEAD"); err == nil {
		t.Fatalf("push to a locked repository succeeded: %s", out)
	}
	e.Must(201, "POST", "/repos/acme/other/issues", tok, map[string]any{"title": "not locked"})

	waitState(t, e, fmt.Sprintf("/orgs/acme/migrations/%d", m.GetID()), tok, "exported")
	got, _, err := gh.Migrations.MigrationStatus(ctx, "acme", m.GetID())
	if err != nil || got.GetState() != "exported" {
		t.Fatalf("status: %+v %v", got, err)
	}
	url, err := gh.Migrations.MigrationArchiveURL(ctx, "acme", m.GetID())
	if err != nil {
		t.Fatal(err)
	}
	dir := untar(t, url)
	schema, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil || !strings.Contains(string(schema), `"version":"1.0.1"`) {
		t.Fatalf("schema.json: %s %v", schema, err)
	}
	orgs := records(t, dir, "organizations")
	if len(orgs) != 1 || orgs[0]["login"] != "acme" || orgs[0]["type"] != "organization" {
		t.Fatalf("organizations: %v", orgs)
	}
	teams := records(t, dir, "teams")
	if len(teams) != 1 || teams[0]["url"] != e.URL+"/orgs/acme/teams/core" || fmt.Sprint(teams[0]["permissions"]) !=
		fmt.Sprintf("[map[access:push repository:%s/acme/widgets]]", e.URL) || fmt.Sprint(teams[0]["members"]) !=
		fmt.Sprintf("[map[role:maintainer user:%s/mona]]", e.URL) {
		t.Fatalf("teams: %v", teams)
	}
	repos := records(t, dir, "repositories")
	if len(repos) != 1 || repos[0]["url"] != e.URL+"/acme/widgets" || repos[0]["git_url"] != "tarball://root/repositories/acme/widgets.git" {
		t.Fatalf("repositories: %v", repos)
	}
	issues := records(t, dir, "issues")
	if len(issues) != 101 || issues[0]["title"] != "First bug" || issues[0]["type"] != "issue" ||
		issues[0]["url"] != e.URL+"/acme/widgets/issues/1" || issues[0]["user"] != e.URL+"/mona" ||
		issues[0]["milestone"] != e.URL+"/acme/widgets/milestones/1" {
		t.Fatalf("issues: %d %v", len(issues), issues[:1])
	}
	if _, err := os.Stat(filepath.Join(dir, "issues_000002.json")); err != nil {
		t.Fatalf("second page of issues: %v", err)
	}
	comments := records(t, dir, "issue_comments")
	if len(comments) != 1 || comments[0]["body"] != "Confirmed here" || comments[0]["issue"] != e.URL+"/acme/widgets/issues/1" {
		t.Fatalf("issue_comments: %v", comments)
	}
	events := records(t, dir, "issue_events")
	closed := false
	for _, ev := range events {
		closed = closed || ev["event"] == "closed" && ev["issue"] == e.URL+"/acme/widgets/issues/1"
	}
	if !closed {
		t.Fatalf("issue_events: %v", events)
	}
	if ms := records(t, dir, "milestones"); len(ms) != 1 || ms[0]["title"] != "v1" {
		t.Fatalf("milestones: %v", ms)
	}
	users := records(t, dir, "users")
	if len(users) != 1 || users[0]["login"] != "mona" {
		t.Fatalf("users: %v", users)
	}
	bare := filepath.Join(dir, "repositories", "acme", "widgets.git")
	apitest.MustGit(t, bare, "fsck", "--strict")
	if log := apitest.MustGit(t, bare, "log", "--oneline", "main"); !strings.Contains(log, "Initial commit") {
		t.Fatalf("git log: %s", log)
	}

	// Unlocking lifts the lock; a second unlock finds nothing locked.
	if _, err := gh.Migrations.UnlockRepo(ctx, "acme", m.GetID(), "widgets"); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "DELETE", fmt.Sprintf("/orgs/acme/migrations/%d/repos/widgets/lock", m.GetID()), tok, nil)
	e.Must(201, "POST", "/repos/acme/widgets/issues", tok, map[string]any{"title": "writable again"})
	apitest.MustGit(t, wd, "push", "origin", "HEAD")

	// The repositories of the migration.
	var list []map[string]any
	e.Must(200, "GET", fmt.Sprintf("/orgs/acme/migrations/%d/repositories", m.GetID()), tok, nil).JSON(t, &list)
	if len(list) != 1 || list[0]["full_name"] != "acme/widgets" {
		t.Fatalf("repositories: %v", list)
	}

	// Excluding metadata and git data leaves the repository record only.
	m2 := e.Must(201, "POST", "/orgs/acme/migrations", tok, map[string]any{"repositories": []string{"widgets", "other"},
		"exclude_metadata": true, "exclude_git_data": true, "exclude": []string{"repositories"}}).Map(t)
	if rs := m2["repositories"].([]any); len(rs) != 0 {
		t.Fatalf("exclude repositories: %v", m2)
	}
	id2 := int64(m2["id"].(float64))
	waitState(t, e, fmt.Sprintf("/orgs/acme/migrations/%d", id2), tok, "exported")
	url2, err := gh.Migrations.MigrationArchiveURL(ctx, "acme", id2)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := untar(t, url2)
	if len(records(t, dir2, "repositories")) != 2 || len(records(t, dir2, "issues")) != 0 {
		t.Fatal("exclude_metadata: metadata exported")
	}
	if _, err := os.Stat(filepath.Join(dir2, "repositories")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("exclude_git_data: git data exported (%v)", err)
	}

	// The list, newest first, paged.
	page := e.Must(200, "GET", "/orgs/acme/migrations?per_page=1", tok, nil)
	var ms []map[string]any
	page.JSON(t, &ms)
	if len(ms) != 1 || int64(ms[0]["id"].(float64)) != id2 || !strings.Contains(page.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("list: %v %q", ms, page.Header.Get("Link"))
	}
	all, _, err := gh.Migrations.ListMigrations(ctx, "acme", &github.ListOptions{PerPage: 100})
	if err != nil || len(all) != 2 || all[1].GetID() != m.GetID() {
		t.Fatalf("ListMigrations: %v %v", all, err)
	}

	// Deleting the archive: 204, then the archive is gone.
	if _, err := gh.Migrations.DeleteMigration(ctx, "acme", m.GetID()); err != nil {
		t.Fatal(err)
	}
	e.Must(410, "GET", fmt.Sprintf("/orgs/acme/migrations/%d/archive", m.GetID()), tok, nil)
	e.Must(410, "DELETE", fmt.Sprintf("/orgs/acme/migrations/%d/archive", m.GetID()), tok, nil)
	if resp, err := http.Get(url); err != nil || resp.StatusCode == 200 {
		t.Fatalf("download after deletion: %v %v", resp, err)
	}
	e.Must(404, "GET", "/orgs/acme/migrations/99999", tok, nil)
}

func TestUserMigration(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "auto_init": true})
	e.Must(201, "POST", "/user/repos", ritaTok, map[string]any{"name": "hers"})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "Mine"})
	e.Must(201, "POST", "/repos/mona/hello/releases", tok, map[string]any{"tag_name": "v1.0.0", "name": "One"})
	sha := e.Must(200, "GET", "/repos/mona/hello/branches/main", tok, nil).Map(t)["commit"].(map[string]any)["sha"].(string)
	e.Must(201, "POST", "/repos/mona/hello/git/refs", tok, map[string]any{"ref": "refs/heads/feature", "sha": sha})
	e.Must(201, "PUT", "/repos/mona/hello/contents/f.txt", tok, map[string]any{"message": "add f", "content": "Zgo=", "branch": "feature"})
	e.Must(201, "POST", "/repos/mona/hello/pulls", tok, map[string]any{"title": "Feature", "head": "feature", "base": "main"})
	e.Must(201, "POST", "/repos/mona/hello/commits/"+sha+"/comments", tok, map[string]any{"body": "Nice commit"})

	ctx := context.Background()
	gh := e.GitHub(tok)
	// Another user's repository is not the caller's to migrate.
	e.Must(422, "POST", "/user/migrations", tok, map[string]any{"repositories": []string{"rita/hers"}})
	m, _, err := gh.Migrations.StartUserMigration(ctx, []string{"hello"}, &github.UserMigrationOptions{LockRepositories: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.GetState() != "pending" || len(m.Repositories) != 1 {
		t.Fatalf("started: %+v", m)
	}
	e.Must(403, "PATCH", "/repos/mona/hello/issues/1", tok, map[string]any{"title": "renamed"})
	// rita sees none of it.
	e.Must(404, "GET", fmt.Sprintf("/user/migrations/%d", m.GetID()), ritaTok, nil)
	e.Must(200, "GET", "/user/migrations", ritaTok, nil)

	waitState(t, e, fmt.Sprintf("/user/migrations/%d", m.GetID()), tok, "exported")
	got, _, err := gh.Migrations.UserMigrationStatus(ctx, m.GetID())
	if err != nil || got.GetState() != "exported" {
		t.Fatalf("status: %+v %v", got, err)
	}
	url, err := gh.Migrations.UserMigrationArchiveURL(ctx, m.GetID())
	if err != nil || url == "" {
		t.Fatalf("archive url: %q %v", url, err)
	}
	dir := untar(t, url)
	if rels := records(t, dir, "releases"); len(rels) != 1 || rels[0]["tag_name"] != "v1.0.0" {
		t.Fatalf("releases: %v", rels)
	}
	if is := records(t, dir, "issues"); len(is) != 1 || is[0]["title"] != "Mine" {
		t.Fatalf("issues: %v", is)
	}
	if ps := records(t, dir, "pull_requests"); len(ps) != 1 || ps[0]["url"] != e.URL+"/mona/hello/pull/2" || ps[0]["title"] != "Feature" ||
		ps[0]["base"].(map[string]any)["ref"] != "main" || ps[0]["head"].(map[string]any)["ref"] != "feature" {
		t.Fatalf("pull_requests: %v", ps)
	}
	if cs := records(t, dir, "commit_comments"); len(cs) != 1 || cs[0]["body"] != "Nice commit" || cs[0]["commit_id"] != sha {
		t.Fatalf("commit_comments: %v", cs)
	}
	if len(records(t, dir, "organizations")) != 0 {
		t.Fatal("a user's archive has an organization")
	}
	apitest.MustGit(t, filepath.Join(dir, "repositories", "mona", "hello.git"), "fsck")
	// A forged or altered token gets nothing.
	if resp, err := http.Get(url + "x"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("forged token: %v %v", resp, err)
	}

	list, _, err := gh.Migrations.ListUserMigrations(ctx, nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("ListUserMigrations: %v %v", list, err)
	}
	var repos []map[string]any
	e.Must(200, "GET", fmt.Sprintf("/user/migrations/%d/repositories", m.GetID()), tok, nil).JSON(t, &repos)
	if len(repos) != 1 || repos[0]["full_name"] != "mona/hello" {
		t.Fatalf("repositories: %v", repos)
	}
	if _, err := gh.Migrations.UnlockUserRepo(ctx, m.GetID(), "hello"); err != nil {
		t.Fatal(err)
	}
	e.Must(200, "PATCH", "/repos/mona/hello/issues/1", tok, map[string]any{"title": "renamed"})
	if _, err := gh.Migrations.DeleteUserMigration(ctx, m.GetID()); err != nil {
		t.Fatal(err)
	}
	e.Must(410, "GET", fmt.Sprintf("/user/migrations/%d/archive", m.GetID()), tok, nil)

	// Classic tokens need the repo scope.
	mona, _ := e.Store.R().AccountByLogin(ctx, "mona")
	weak := e.Token(mona, "read:user")
	e.Must(403, "GET", "/user/migrations", weak, nil)
}
