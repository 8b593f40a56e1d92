package repos_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/licenses"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// waitFor polls GET /repos/{owner}/{repo} until ok holds: detection runs in
// the background after a push, so the test allows it a bounded time.
func waitFor(t *testing.T, gh *github.Client, owner, name string, ok func(*github.Repository) bool) *github.Repository {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r, _, err := gh.Repositories.Get(ctx, owner, name)
		if err != nil {
			t.Fatal(err)
		}
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/%s: license %+v language %q after 90 s", owner, name, r.License, r.GetLanguage())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestLicenseAndLanguageDetectedAfterPush(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newOrg(t, e, "acme", mona)
	create(t, gh, "acme", &github.Repository{Name: github.Ptr("tool")})

	// A new repository has neither.
	r, _, err := gh.Repositories.Get(ctx, "acme", "tool")
	if err != nil || r.License != nil || r.Language != nil {
		t.Fatalf("fresh repository: %+v %v %v", r.License, r.Language, err)
	}
	mit, _ := licenses.Find("mit")
	for _, f := range []struct{ path, content string }{
		{"LICENSE", mit.Fill("2026", "Mona")},
		{"main.go", "package main\n\nfunc main() { println(\"hello, world\") }\n"},
		{"README.md", strings.Repeat("prose does not count\n", 100)},
	} {
		if _, _, err := gh.Repositories.CreateFile(ctx, "acme", "tool", f.path, &github.RepositoryContentFileOptions{
			Message: github.Ptr("add " + f.path), Content: []byte(f.content)}); err != nil {
			t.Fatal(err)
		}
	}
	got := waitFor(t, gh, "acme", "tool", func(r *github.Repository) bool {
		return r.GetLicense().GetKey() == "mit" && r.GetLanguage() == "Go"
	})
	l := got.GetLicense()
	if l.GetName() != "MIT License" || l.GetSPDXID() != "MIT" || l.GetURL() != e.API+"/licenses/mit" {
		t.Fatalf("license = %+v", l)
	}
	// The lists show the same objects.
	for _, list := range []func() ([]*github.Repository, *github.Response, error){
		func() ([]*github.Repository, *github.Response, error) {
			return gh.Repositories.ListByAuthenticatedUser(ctx, nil)
		},
		func() ([]*github.Repository, *github.Response, error) {
			return gh.Repositories.ListByOrg(ctx, "acme", nil)
		},
		func() ([]*github.Repository, *github.Response, error) {
			return e.GitHub("").Repositories.ListByOrg(ctx, "acme", nil)
		},
	} {
		repos, _, err := list()
		if err != nil || len(repos) != 1 || repos[0].GetLicense().GetKey() != "mit" || repos[0].GetLanguage() != "Go" {
			t.Fatalf("list: %v %v", repos, err)
		}
	}

	// Branch list items carry the protection of an unprotected branch.
	branches, _, err := gh.Repositories.ListBranches(ctx, "acme", "tool", nil)
	if err != nil || len(branches) != 1 {
		t.Fatalf("branches: %v %v", branches, err)
	}
	if b := branches[0]; b.GetProtected() || b.Protection == nil || b.GetProtectionURL() != e.API+"/repos/acme/tool/branches/main/protection" {
		t.Fatalf("branch = %+v", b)
	}
	var raw []struct {
		Protection struct {
			Enabled              *bool
			RequiredStatusChecks struct {
				EnforcementLevel string   `json:"enforcement_level"`
				Contexts         []string `json:"contexts"`
				Checks           []any    `json:"checks"`
			} `json:"required_status_checks"`
		}
	}
	e.Must(200, "GET", "/repos/acme/tool/branches", tok, nil).JSON(t, &raw)
	if p := raw[0].Protection; p.Enabled == nil || *p.Enabled || p.RequiredStatusChecks.EnforcementLevel != "off" ||
		p.RequiredStatusChecks.Contexts == nil || p.RequiredStatusChecks.Checks == nil {
		t.Fatalf("protection = %+v", p)
	}

	// A license text no license matches is "other"; deleting the file
	// leaves none.
	cur, _, _, err := gh.Repositories.GetContents(ctx, "acme", "tool", "LICENSE", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.UpdateFile(ctx, "acme", "tool", "LICENSE", &github.RepositoryContentFileOptions{
		Message: github.Ptr("own terms"), Content: []byte("You may do what you like, except on Tuesdays.\n"), SHA: cur.SHA}); err != nil {
		t.Fatal(err)
	}
	got = waitFor(t, gh, "acme", "tool", func(r *github.Repository) bool { return r.GetLicense().GetKey() == "other" })
	if l := got.GetLicense(); l.GetSPDXID() != "NOASSERTION" || l.URL != nil || l.GetName() != "Other" {
		t.Fatalf("other license = %+v", l)
	}
	cur, _, _, err = gh.Repositories.GetContents(ctx, "acme", "tool", "LICENSE", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.DeleteFile(ctx, "acme", "tool", "LICENSE", &github.RepositoryContentFileOptions{
		Message: github.Ptr("no license"), SHA: cur.SHA}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, gh, "acme", "tool", func(r *github.Repository) bool { return r.License == nil && r.GetLanguage() == "Go" })
}

func TestGetRepositorySendsLastModified(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	created := create(t, gh, "", &github.Repository{Name: github.Ptr("dated")})
	r := e.Must(200, "GET", "/repos/mona/dated", tok, nil)
	lm := r.Header.Get("Last-Modified")
	if lm != created.GetUpdatedAt().UTC().Format(http.TimeFormat) {
		t.Fatalf("Last-Modified %q, updated_at %v", lm, created.GetUpdatedAt())
	}
	// A client revalidating with the date gets 304.
	e.Must(304, "GET", "/repos/mona/dated", tok, nil, "If-Modified-Since: "+lm)
}

// Repositories pushed before hubd detected facts (here: pushed with the
// detection hook removed) get them from the backfill that the first
// repository read starts.
func TestFactsBackfilledForEarlierPushes(t *testing.T) {
	e := apitest.New(t)
	e.Deps.PushHooks = nil // before any request: pushes record no facts
	mona, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	// Straight in the store: a create through the API would read the
	// repository back, and so start the backfill before the push.
	repo := &model.Repo{OwnerID: mona.ID, Owner: mona, Name: "old", Visibility: model.Public, HasIssues: true,
		SquashMergeCommitTitle: "COMMIT_OR_PR_TITLE", SquashMergeCommitMessage: "COMMIT_MESSAGES",
		MergeCommitTitle: "MERGE_MESSAGE", MergeCommitMessage: "PR_TITLE"}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateRepo(ctx, repo) }); err != nil {
		t.Fatal(err)
	}
	mit, _ := licenses.Find("mit")
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "old", "LICENSE", &github.RepositoryContentFileOptions{
		Message: github.Ptr("license"), Content: []byte(mit.Fill("2020", "Mona"))}); err != nil {
		t.Fatal(err)
	}
	if f, err := e.Store.R().RepoFacts(ctx, []int64{repo.ID}); err != nil || f[repo.ID] != (store.RepoFacts{}) {
		t.Fatalf("facts before the backfill: %+v %v", f, err)
	}
	waitFor(t, gh, "mona", "old", func(r *github.Repository) bool { return r.GetLicense().GetKey() == "mit" })
}

// License and language are the default branch's: changing the default
// branch detects them again.
func TestFactsFollowTheDefaultBranch(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	create(t, gh, "", &github.Repository{Name: github.Ptr("switch"), AutoInit: github.Ptr(true)})
	main, _, err := gh.Git.GetRef(ctx, "mona", "switch", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "mona", "switch", github.CreateRef{Ref: "refs/heads/py", SHA: main.GetObject().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "switch", "tool.py", &github.RepositoryContentFileOptions{
		Message: github.Ptr("python"), Content: []byte(strings.Repeat("print('hello')\n", 50)), Branch: github.Ptr("py")}); err != nil {
		t.Fatal(err)
	}
	if r := waitFor(t, gh, "mona", "switch", func(r *github.Repository) bool { return true }); r.GetLanguage() == "Python" {
		t.Fatal("the default branch (main) has no Python")
	}
	// A branch that does not exist is refused, as on GitHub.
	bad := e.Must(422, "PATCH", "/repos/mona/switch", tok, map[string]any{"default_branch": "nope"}).Map(t)
	if errs, _ := bad["errors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["message"] != "The branch nope was not found. Please push that ref first or create it via the Git Data API." {
		t.Fatalf("unknown branch: %v", bad)
	}
	edited, _, err := gh.Repositories.Edit(ctx, "mona", "switch", &github.Repository{DefaultBranch: github.Ptr("py")})
	if err != nil || edited.GetDefaultBranch() != "py" {
		t.Fatalf("edit: %v %v", edited.GetDefaultBranch(), err)
	}
	// HEAD moved with it: the default ref of the contents API is py.
	e.Must(200, "GET", "/repos/mona/switch/contents/tool.py", tok, nil)
	waitFor(t, gh, "mona", "switch", func(r *github.Repository) bool { return r.GetLanguage() == "Python" })
}
