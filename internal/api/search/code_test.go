package search_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/codeindex"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/store"
)

// codeWorld is what the code and commit search tests search: mona's
// public mona/app (Go, Python and Markdown files, a binary file and one
// over 384 KB) and private mona/secret, which hubot may not see. Files
// come through the contents API, each a push that queues an index job.
type codeWorld struct {
	e              *apitest.Env
	monaTok        string
	hubotTok       string
	gh, hubotGH    *github.Client
	secretID, mona int64
}

func newCodeWorld(t *testing.T) *codeWorld {
	t.Helper()
	l := ratelimit.DefaultLimits()
	l.Anonymous, l.Authenticated, l.Search, l.SearchAnon = 1_000_000, 1_000_000, 1_000_000, 1_000_000
	e := apitest.New(t, apitest.Options{Limits: &l})
	w := &codeWorld{e: e}
	mona, monaTok := e.NewUser("mona", false)
	_, w.hubotTok = e.NewUser("hubot", false)
	w.monaTok, w.mona = monaTok, mona.ID
	w.gh, w.hubotGH = e.GitHub(w.monaTok), e.GitHub(w.hubotTok)
	if _, _, err := w.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	secret, _, err := w.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	w.secretID = secret.GetID()
	w.put(t, "app", "src/widget.go", "package widget\n\n// WidgetSpinner turns widgets.\nfunc Spin() {}\n", "Add the widget spinner")
	w.put(t, "app", "docs/guide.md", "# Guide\n\nHow to spin a widget.\n", "Write a guide")
	w.put(t, "app", "main.py", "print('hello spinner')\n", "Add main")
	w.put(t, "app", "logo.bin", "spinner\x00\x01\x02", "Add a logo")
	w.put(t, "app", "big.txt", strings.Repeat("spinner ", 384*1024/8+1), "Add a big file")
	w.put(t, "secret", "hidden.go", "package hidden\n\n// a secret spinner\n", "Hide the spinner")
	e.RunJobs()
	return w
}

// put writes a file through the contents API (creating or replacing it).
func (w *codeWorld) put(t *testing.T, repo, path, content, message string) {
	t.Helper()
	opts := &github.RepositoryContentFileOptions{Message: github.Ptr(message), Content: []byte(content)}
	if f, _, _, err := w.gh.Repositories.GetContents(ctx, "mona", repo, path, nil); err == nil && f != nil {
		opts.SHA = f.SHA
	}
	if _, _, err := w.gh.Repositories.CreateFile(ctx, "mona", repo, path, opts); err != nil {
		t.Fatalf("put %s: %v", path, err)
	}
}

// code searches as gh and returns "repo:path" of each file found.
func code(t *testing.T, gh *github.Client, q string) []string {
	t.Helper()
	res, _, err := gh.Search.Code(ctx, q, nil)
	if err != nil {
		t.Fatalf("search code %q: %v", q, err)
	}
	var out []string
	for _, f := range res.CodeResults {
		out = append(out, f.GetRepository().GetName()+":"+f.GetPath())
	}
	if res.GetTotal() != len(out) || res.GetIncompleteResults() {
		t.Fatalf("search code %q: total %d for %d items", q, res.GetTotal(), len(out))
	}
	return out
}

func TestSearchCode(t *testing.T) {
	w := newCodeWorld(t)
	for _, tc := range []struct {
		q     string
		files []string
	}{
		{"spinner", []string{"app:src/widget.go", "app:main.py", "secret:hidden.go"}},
		{"SPINNER repo:mona/app", []string{"app:src/widget.go", "app:main.py"}},
		{"spin repo:mona/app", []string{"app:src/widget.go", "app:main.py", "app:docs/guide.md"}},
		{`"hello spinner"`, []string{"app:main.py"}},
		{"spinner language:go", []string{"app:src/widget.go", "secret:hidden.go"}},
		{"spinner language:Python", []string{"app:main.py"}},
		{"spin extension:md", []string{"app:docs/guide.md"}},
		{"spin extension:.py", []string{"app:main.py"}},
		{"spin filename:guide.md", []string{"app:docs/guide.md"}},
		{"filename:widget.go", []string{"app:src/widget.go"}},
		{"spin path:src", []string{"app:src/widget.go"}},
		{"spin path:/", []string{"app:main.py", "secret:hidden.go"}},
		{"spin path:/ repo:mona/app", []string{"app:main.py"}},
		{"widget in:path", []string{"app:src/widget.go"}},
		{"turns in:path", nil},
		{"turns in:file", []string{"app:src/widget.go"}},
		{"spinner size:<30", []string{"app:main.py"}},
		{"spinner size:>=30", []string{"app:src/widget.go", "secret:hidden.go"}},
		{"spinner size:20..40", []string{"app:main.py", "secret:hidden.go"}},
		{"spinner user:mona -language:go", []string{"app:main.py"}},
		{"spinner repo:mona/app repo:mona/secret", []string{"app:src/widget.go", "app:main.py", "secret:hidden.go"}},
		{"spinner is:private", nil}, // is: is not a code qualifier: words
		{"spinner fork:only", nil},
		{"go", []string{"app:src/widget.go", "secret:hidden.go"}}, // a short word: in the path
		{"nothing-like-this", nil},
	} {
		want(t, tc.q, code(t, w.gh, tc.q), tc.files...)
	}
	// hubot does not see mona/secret.
	want(t, "spinner", code(t, w.hubotGH, "spinner"), "app:src/widget.go", "app:main.py")

	// A code search item, with text matches.
	r := w.e.Must(200, "GET", "/search/code?q=spinner+filename:main.py", w.monaTok, nil, "Accept: application/vnd.github.text-match+json")
	var res struct {
		Total int `json:"total_count"`
		Items []struct {
			Name, Path, SHA, URL, HTMLURL string
			GitURL                        string `json:"git_url"`
			Language                      string
			TextMatches                   []struct {
				ObjectURL  string `json:"object_url"`
				ObjectType string `json:"object_type"`
				Property   string
				Fragment   string
				Matches    []struct {
					Text    string
					Indices []int
				}
			} `json:"text_matches"`
		}
	}
	r.JSON(t, &res)
	if res.Total != 1 || len(res.Items) != 1 {
		t.Fatalf("text-match search: %s", r.Body)
	}
	it := res.Items[0]
	if it.Name != "main.py" || it.Language != "Python" || !strings.Contains(it.URL, "/repos/mona/app/contents/main.py?ref=") ||
		!strings.HasSuffix(it.GitURL, "/repos/mona/app/git/blobs/"+it.SHA) || len(it.TextMatches) != 1 {
		t.Fatalf("code item: %s", r.Body)
	}
	tm := it.TextMatches[0]
	if tm.ObjectType != "FileContent" || tm.Property != "content" || tm.ObjectURL != it.URL || tm.Fragment != "print('hello spinner')\n" ||
		len(tm.Matches) != 1 || tm.Matches[0].Text != "spinner" || tm.Matches[0].Indices[0] != 13 || tm.Matches[0].Indices[1] != 20 {
		t.Fatalf("text match: %+v", tm)
	}
	// The blob is what the git API serves.
	w.e.Must(200, "GET", strings.TrimPrefix(it.GitURL, w.e.API), w.monaTok, nil)

	// Pages, with a Link header.
	r = w.e.Must(200, "GET", "/search/code?q=spinner&per_page=1&page=2", w.monaTok, nil)
	if link := r.Header.Get("Link"); !strings.Contains(link, `rel="next"`) || !strings.Contains(link, `rel="prev"`) {
		t.Fatalf("Link: %q", link)
	}
	if r.Map(t)["total_count"] != float64(3) || len(r.Map(t)["items"].([]any)) != 1 {
		t.Fatalf("page 2: %s", r.Body)
	}

	// Refusals.
	w.e.Must(401, "GET", "/search/code?q=spinner", "", nil)
	refused(t, w.e, "/search/code?q=language:go", w.monaTok, "Must include at least one search term (a word to look for in files), or a filename: qualifier.")
	refused(t, w.e, "/search/code?q=spin+repo:mona/nope", w.monaTok,
		"The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.")
	refused(t, w.e, "/search/code?q=spin+repo:mona/secret", w.hubotTok,
		"The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.")
	if r := w.e.Do("GET", "/search/code", w.monaTok, nil); r.StatusCode != 422 {
		t.Fatalf("no q: %d %s", r.StatusCode, r.Body)
	}
	if r := w.e.Do("GET", "/search/code?q=spinner&page=11&per_page=100", w.monaTok, nil); r.StatusCode != 422 {
		t.Fatalf("past the window: %d %s", r.StatusCode, r.Body)
	}
}

// TestSearchCodeIndexFollowsPushes checks the index after changes: a file
// rewritten and one removed (through a git push), a repository made
// private, one deleted.
func TestSearchCodeIndexFollowsPushes(t *testing.T) {
	w := newCodeWorld(t)
	e := w.e
	dir := t.TempDir()
	apitest.MustGit(t, dir, "clone", "-q", e.Remote("mona", "app", "mona", w.monaTok), "app")
	app := dir + "/app"
	apitest.MustGit(t, app, "config", "user.email", "mona@example.com")
	apitest.MustGit(t, app, "config", "user.name", "Mona Lisa")
	writeFile(t, app+"/src/widget.go", "package widget\n\n// Rotor turns widgets.\nfunc Rotate() {}\n")
	apitest.MustGit(t, app, "rm", "-q", "main.py")
	apitest.MustGit(t, app, "commit", "-qam", "Rotate instead of spinning")
	apitest.MustGit(t, app, "push", "-q", "origin", "HEAD")
	e.RunJobs()
	want(t, "spinner", code(t, w.gh, "spinner"), "secret:hidden.go")
	want(t, "rotor", code(t, w.gh, "rotor"), "app:src/widget.go")
	want(t, "rotating commits", commitMessages(t, w.gh, "rotate repo:mona/app"), "Rotate instead of spinning")

	// A history rewritten: the index is rebuilt from the new head.
	apitest.MustGit(t, app, "reset", "-q", "--hard", "HEAD~1")
	writeFile(t, app+"/notes.txt", "gyroscope\n")
	apitest.MustGit(t, app, "add", "notes.txt")
	apitest.MustGit(t, app, "commit", "-qm", "Notes on the gyroscope")
	apitest.MustGit(t, app, "push", "-q", "-f", "origin", "HEAD")
	e.RunJobs()
	want(t, "after a force push", code(t, w.gh, "spinner repo:mona/app"), "app:src/widget.go", "app:main.py")
	want(t, "gyroscope", code(t, w.gh, "gyroscope"), "app:notes.txt")
	want(t, "rewritten commits", commitMessages(t, w.gh, "rotate repo:mona/app"))

	// Made private: hubot no longer finds it, mona does.
	if _, _, err := w.gh.Repositories.Edit(ctx, "mona", "app", &github.Repository{Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	want(t, "gyroscope as hubot", code(t, w.hubotGH, "gyroscope"))
	want(t, "gyroscope as mona", code(t, w.gh, "gyroscope"), "app:notes.txt")

	// Deleted: its index goes with it.
	if _, err := w.gh.Repositories.Delete(ctx, "mona", "secret"); err != nil {
		t.Fatal(err)
	}
	e.RunJobs()
	want(t, "spinner after deletion", code(t, w.gh, "spinner"), "app:src/widget.go", "app:main.py")
	files, commits, err := e.Store.R().CodeIndexSize(ctx, w.secretID)
	if err != nil {
		t.Fatal(err)
	}
	if files != 0 || commits != 0 {
		t.Fatalf("%d files and %d commits of a deleted repository left in the index", files, commits)
	}
}

// commitMessages searches commits as gh and returns their messages.
func commitMessages(t *testing.T, gh *github.Client, q string, opts ...*github.SearchOptions) []string {
	t.Helper()
	var o *github.SearchOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	res, _, err := gh.Search.Commits(ctx, q, o)
	if err != nil {
		t.Fatalf("search commits %q: %v", q, err)
	}
	var out []string
	for _, c := range res.Commits {
		out = append(out, c.GetCommit().GetMessage())
	}
	if res.GetTotal() != len(out) {
		t.Fatalf("search commits %q: total %d for %d items", q, res.GetTotal(), len(out))
	}
	return out
}

func TestSearchCommits(t *testing.T) {
	w := newCodeWorld(t)
	res, _, err := w.gh.Search.Commits(ctx, "spinner repo:mona/app", nil)
	if err != nil || len(res.Commits) != 1 {
		t.Fatalf("search commits: %v %v", res, err)
	}
	c := res.Commits[0]
	sha, tree, parent := c.GetSHA(), c.GetCommit().GetTree().GetSHA(), c.Parents[0].GetSHA()
	if c.GetAuthor().GetLogin() != "mona" || c.GetCommitter() == nil || c.GetRepository().GetFullName() != "mona/app" ||
		c.GetCommit().GetMessage() != "Add the widget spinner" || c.GetCommit().GetAuthor().GetDate().IsZero() {
		t.Fatalf("commit found: %+v", c)
	}
	email := c.GetCommit().GetAuthor().GetEmail()
	name := c.GetCommit().GetAuthor().GetName()
	all := []string{"Initial commit", "Add the widget spinner", "Write a guide", "Add main", "Add a logo", "Add a big file"}
	for _, tc := range []struct {
		q    string
		msgs []string
	}{
		{"spinner", []string{"Add the widget spinner", "Hide the spinner"}},
		{"repo:mona/app", all},
		{"guide", []string{"Write a guide"}},
		{"author:mona repo:mona/app", all},
		{"committer:mona repo:mona/app add", []string{"Add the widget spinner", "Add main", "Add a logo", "Add a big file"}},
		{"author:hubot", nil},
		{"author-name:\"" + name + "\" spinner", []string{"Add the widget spinner", "Hide the spinner"}},
		{"author-email:" + email + " guide", []string{"Write a guide"}},
		{"committer-email:nobody@example.com", nil},
		{"hash:" + sha[:7], []string{"Add the widget spinner"}},
		{"hash:" + sha, []string{"Add the widget spinner"}},
		{"parent:" + parent[:8], []string{"Add the widget spinner"}},
		{"tree:" + tree[:10], []string{"Add the widget spinner"}},
		{"merge:true", nil},
		{"merge:false repo:mona/secret", []string{"Initial commit", "Hide the spinner"}},
		{"is:private spinner", []string{"Hide the spinner"}},
		{"is:public spinner", []string{"Add the widget spinner"}},
		{"author-date:>2000-01-01 guide", []string{"Write a guide"}},
		{"committer-date:<2000-01-01", nil},
		{"committer-date:2000-01-01..* guide", []string{"Write a guide"}},
		{"user:mona spinner -is:private", []string{"Add the widget spinner"}},
	} {
		want(t, tc.q, commitMessages(t, w.gh, tc.q), tc.msgs...)
	}
	want(t, "spinner as hubot", commitMessages(t, w.hubotGH, "spinner"), "Add the widget spinner")
	want(t, "anonymous", commitMessages(t, w.e.GitHub(""), "spinner"), "Add the widget spinner")

	// Sorted by author date, oldest first.
	got := commitMessages(t, w.gh, "repo:mona/app", &github.SearchOptions{Sort: "author-date", Order: "asc"})
	if len(got) != len(all) || got[0] != "Initial commit" {
		t.Fatalf("sorted: %q", got)
	}

	// Text matches in the message.
	r := w.e.Must(200, "GET", "/search/commits?q=guide", w.monaTok, nil, "Accept: application/vnd.github.text-match+json")
	var body struct {
		Items []struct {
			URL         string
			TextMatches []struct {
				ObjectURL  string `json:"object_url"`
				ObjectType string `json:"object_type"`
				Property   string
				Fragment   string
			} `json:"text_matches"`
		}
	}
	r.JSON(t, &body)
	if len(body.Items) != 1 || len(body.Items[0].TextMatches) != 1 {
		t.Fatalf("text matches: %s", r.Body)
	}
	if tm := body.Items[0].TextMatches[0]; tm.ObjectType != "Commit" || tm.Property != "message" || tm.Fragment != "Write a guide" ||
		tm.ObjectURL != body.Items[0].URL {
		t.Fatalf("text match: %+v", tm)
	}
	refused(t, w.e, "/search/commits?q=author-date:yesterday", w.monaTok,
		`"yesterday" is not a recognized date/time format. Please provide an ISO 8601 date/time value, such as YYYY-MM-DD.`)
	refused(t, w.e, "/search/commits?q=author:nobody-here", w.monaTok,
		"The listed users cannot be searched either because the users do not exist or you do not have permission to view the users.")
	if r := w.e.Do("GET", "/search/commits?q=", w.monaTok, nil); r.StatusCode != 422 {
		t.Fatalf("empty q: %d", r.StatusCode)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSearchCodeBackfill: repositories pushed before hubd indexed code
// (here: their index emptied, as migration 58 left every repository) are
// found once the start-up backfill has run, page after page (one
// repository a step here), each step queueing the next.
func TestSearchCodeBackfill(t *testing.T) {
	w := newCodeWorld(t)
	st := w.e.Store
	app, _, err := w.gh.Repositories.Get(ctx, "mona", "app")
	if err != nil {
		t.Fatal(err)
	}
	// An empty repository (never pushed) is passed over.
	if _, _, err := w.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("empty")}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{app.GetID(), w.secretID} {
		if err := st.Tx(ctx, func(tx store.Q) error { return tx.ApplyCodeIndex(ctx, store.CodeIndexUpdate{RepoID: id, Reset: true}) }); err != nil {
			t.Fatal(err)
		}
	}
	want(t, "spinner", code(t, w.gh, "spinner"))
	if err := codeindex.Backfill(ctx, w.e.Deps.Jobs, 1); err != nil {
		t.Fatal(err)
	}
	w.e.RunJobs()
	want(t, "spinner", code(t, w.gh, "spinner"), "app:src/widget.go", "app:main.py", "secret:hidden.go")
	res, _, err := w.gh.Search.Commits(ctx, "spinner repo:mona/secret", nil)
	if err != nil || res.GetTotal() != 1 {
		t.Fatalf("commits after the backfill: %v %v", res.GetTotal(), err)
	}
	// Every repository was visited: nothing is left unindexed but the
	// empty one, and a second backfill finds nothing to do.
	left, err := st.R().ReposUnindexed(ctx, 0, 100)
	if err != nil || len(left) != 1 {
		t.Fatalf("unindexed after the backfill: %v %v", left, err)
	}
	if err := codeindex.Backfill(ctx, w.e.Deps.Jobs, 0); err != nil {
		t.Fatal(err)
	}
	w.e.RunJobs()
	want(t, "spinner", code(t, w.gh, "spinner"), "app:src/widget.go", "app:main.py", "secret:hidden.go")
}
