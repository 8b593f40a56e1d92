package commits_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/api/commits"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
)

func TestBranches(t *testing.T) {
	h := newHistory(t)
	gh := h.gh

	// Every branch, by name, paged with Link.
	var names []string
	opts := &github.BranchListOptions{ListOptions: github.ListOptions{PerPage: 2}}
	pages := 0
	for {
		list, resp, err := gh.Repositories.ListBranches(ctx, "mona", "hist", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, b := range list {
			names = append(names, b.GetName())
			if b.GetProtected() || b.GetCommit().GetSHA() != h.rev(t, b.GetName()) {
				t.Errorf("branch %s: %+v", b.GetName(), b)
			}
		}
		if resp.NextPage == 0 {
			if pages > 1 && resp.PrevPage != pages-1 {
				t.Errorf("last page has prev %d", resp.PrevPage)
			}
			break
		}
		opts.Page = resp.NextPage
	}
	want := []string{"feature", "main", "merged", "orphan", "topic/slash"}
	if !slices.Equal(names, want) || pages != 3 {
		t.Errorf("branches %v in %d pages, want %v in 3", names, pages, want)
	}
	list, _, err := gh.Repositories.ListBranches(ctx, "mona", "hist", &github.BranchListOptions{Protected: github.Ptr(true)})
	if err != nil || len(list) != 0 {
		t.Errorf("protected branches: %v %v", list, err)
	}
	list, _, err = gh.Repositories.ListBranches(ctx, "mona", "hist", &github.BranchListOptions{Protected: github.Ptr(false)})
	if err != nil || len(list) != 5 {
		t.Errorf("unprotected branches: %d %v", len(list), err)
	}

	// One branch, with its full commit; names with slashes both escaped
	// (go-github) and as plain path segments.
	b, _, err := gh.Repositories.GetBranch(ctx, "mona", "hist", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.GetCommit().GetSHA() != h.sha["m1"] || b.GetCommit().GetAuthor().GetLogin() != "mona" ||
		b.GetProtected() || b.GetProtection().GetRequiredStatusChecks() == nil ||
		b.GetCommit().GetCommit().GetMessage() != "main moves on" {
		t.Errorf("main: %+v", b)
	}
	b, _, err = gh.Repositories.GetBranch(ctx, "mona", "hist", "topic/slash", 0)
	if err != nil || b.GetName() != "topic/slash" || b.GetCommit().GetSHA() != h.sha["c3"] {
		t.Fatalf("topic/slash: %+v %v", b, err)
	}
	r := h.e.Must(200, "GET", "/repos/mona/hist/branches/topic/slash", "", nil)
	m := r.Map(t)
	links := m["_links"].(map[string]any)
	if m["name"] != "topic/slash" || !strings.HasSuffix(links["self"].(string), "/repos/mona/hist/branches/topic/slash") ||
		!strings.HasSuffix(m["protection_url"].(string), "/branches/topic/slash/protection") {
		t.Errorf("plain path: %v", m)
	}

	for _, tc := range []struct {
		name, path, token string
		status            int
		message           string
	}{
		{"unknown branch", "/repos/mona/hist/branches/nope", "", 404, "Branch not found"},
		{"a tag is not a branch", "/repos/mona/hist/branches/v1.0", "", 404, "Branch not found"},
		{"bad name", "/repos/mona/hist/branches/a..b", "", 404, "Branch not found"},
		{"unknown repository", "/repos/mona/nope/branches", "", 404, "Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.e.Must(tc.status, "GET", tc.path, tc.token, nil)
			if msg := r.Map(t)["message"]; msg != tc.message {
				t.Errorf("message %q, want %q", msg, tc.message)
			}
		})
	}
}

func TestRenameBranch(t *testing.T) {
	h := newHistory(t)
	_, readerTok := h.user(t, "reader", authz.None)
	_, writerTok := h.user(t, "writer", authz.Write)
	writer := h.e.GitHub(writerTok)

	// Errors first, as table tests.
	for _, tc := range []struct {
		name, branch, newName, token string
		status                       int
	}{
		{"reader may not rename", "feature", "x", readerTok, 403},
		{"writer may not rename the default branch", "main", "trunk", writerTok, 403},
		{"anonymous", "feature", "x", "", 401},
		{"unknown branch", "nope", "x", h.token, 404},
		{"existing name", "feature", "merged", h.token, 422},
		{"invalid name", "feature", "bad..name", h.token, 422},
		{"invalid name with a space", "feature", "bad name", h.token, 422},
		{"directory clash", "feature", "topic", h.token, 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.e.Must(tc.status, "POST", "/repos/mona/hist/branches/"+tc.branch+"/rename", tc.token, map[string]string{"new_name": tc.newName})
		})
	}
	h.e.Must(422, "POST", "/repos/mona/hist/branches/feature/rename", h.token, map[string]string{})

	// A writer renames a branch; the old name redirects to the new one.
	b, resp, err := writer.Repositories.RenameBranch(ctx, "mona", "hist", "feature", "feature-renamed")
	if err != nil || status(resp) != 201 || b.GetName() != "feature-renamed" || b.GetCommit().GetSHA() != h.sha["f2"] {
		t.Fatalf("rename feature: %+v %v", b, err)
	}
	req, _ := http.NewRequest("GET", h.e.API+"/repos/mona/hist/branches/feature", nil)
	req.Header.Set("Authorization", "token "+h.token)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	moved, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	moved.Body.Close()
	if loc := moved.Header.Get("Location"); moved.StatusCode != 301 || loc != h.e.API+"/repos/mona/hist/branches/feature-renamed" {
		t.Errorf("redirect: %d to %q", moved.StatusCode, loc)
	}
	if got, _, err := h.gh.Repositories.GetBranch(ctx, "mona", "hist", "feature", 1); err != nil || got.GetName() != "feature-renamed" {
		t.Errorf("following the redirect: %+v %v", got, err)
	}
	// Names with slashes: go-github escapes them (%2F) under /api/v3.
	sb, _, err := h.gh.Repositories.RenameBranch(ctx, "mona", "hist", "topic/slash", "topic/renamed")
	if err != nil || sb.GetName() != "topic/renamed" {
		t.Errorf("slash rename: %+v %v", sb, err)
	}

	// The owner renames the default branch: the repository's default branch
	// and HEAD follow, so a fresh clone checks out the new name.
	b, resp, err = h.gh.Repositories.RenameBranch(ctx, "mona", "hist", "main", "trunk")
	if err != nil || status(resp) != 201 || b.GetName() != "trunk" || b.GetCommit().GetSHA() != h.sha["m1"] {
		t.Fatalf("rename main: %+v %v", b, err)
	}
	repo, _, err := h.gh.Repositories.Get(ctx, "mona", "hist")
	if err != nil || repo.GetDefaultBranch() != "trunk" {
		t.Fatalf("default branch %q %v", repo.GetDefaultBranch(), err)
	}
	clone := t.TempDir()
	h.git(t, clone, "clone", "-q", remote(h.e, "mona", h.token, "mona", "hist"), "c")
	if head := strings.TrimSpace(h.git(t, clone+"/c", "rev-parse", "--abbrev-ref", "HEAD")); head != "trunk" {
		t.Errorf("fresh clone checked out %q", head)
	}
	// The default branch now answers for "" refs.
	c, _, err := h.gh.Repositories.ListCommits(ctx, "mona", "hist", &github.CommitsListOptions{ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || len(c) != 1 || c[0].GetSHA() != h.sha["m1"] {
		t.Errorf("commits of the renamed default branch: %v", err)
	}

	// Archived repositories are read-only.
	if _, _, err := h.gh.Repositories.Edit(ctx, "mona", "hist", &github.Repository{Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	h.e.Must(403, "POST", "/repos/mona/hist/branches/merged/rename", h.token, map[string]string{"new_name": "x"})
}

func TestListCommits(t *testing.T) {
	h := newHistory(t)
	gh := h.gh

	// Paging over main's 25 commits with Link, newest first.
	want := h.revList(t, "main")
	var got []string
	opts := &github.CommitsListOptions{ListOptions: github.ListOptions{PerPage: 10}}
	for {
		list, resp, err := gh.Repositories.ListCommits(ctx, "mona", "hist", opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			got = append(got, c.GetSHA())
		}
		if opts.Page == 0 && resp.LastPage != 3 {
			t.Errorf("first page: last %d, want 3", resp.LastPage)
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(want) != 25 || !slices.Equal(got, want) {
		t.Fatalf("paged commits %d, want %d:\n%v\n%v", len(got), len(want), got, want)
	}

	since, _ := time.Parse(time.RFC3339, "2020-01-20T00:00:00Z")
	until, _ := time.Parse(time.RFC3339, "2020-01-03T23:00:00Z")
	noreply := h.mona.Login
	for _, tc := range []struct {
		name string
		opts github.CommitsListOptions
		want []string
	}{
		{"path", github.CommitsListOptions{Path: "main.go"}, []string{"m1", "c3", "c1"}},
		{"path of a directory", github.CommitsListOptions{Path: "lib"}, []string{"c3", "c1"}},
		{"path that never existed", github.CommitsListOptions{Path: "nope.txt"}, nil},
		{"author by login (email and noreply address)", github.CommitsListOptions{Author: noreply}, []string{"m1", "c3", "c1"}},
		{"author by email", github.CommitsListOptions{Author: "mona@example.com"}, []string{"m1", "c1"}},
		{"author by email, other case", github.CommitsListOptions{Author: "MONA@example.com"}, []string{"m1", "c1"}},
		{"unknown author", github.CommitsListOptions{Author: "nobody"}, nil},
		{"author and path", github.CommitsListOptions{Author: "other@example.com", Path: "logo.png"}, []string{"c2"}},
		{"since", github.CommitsListOptions{Since: since}, []string{"m1", "n20", "n19", "n18", "n17", "n16"}},
		{"until", github.CommitsListOptions{Until: until}, []string{"c3", "c2", "c1"}},
		{"since and until", github.CommitsListOptions{Since: until.Add(-36 * time.Hour), Until: until}, []string{"c3", "c2"}},
		{"sha is a branch", github.CommitsListOptions{SHA: "feature", ListOptions: github.ListOptions{PerPage: 3}}, []string{"f2", "f1", "n20"}},
		{"sha is a commit", github.CommitsListOptions{SHA: "c2", ListOptions: github.ListOptions{PerPage: 5}}, []string{"c2", "c1"}},
		{"sha is a tag", github.CommitsListOptions{SHA: "v2.0", ListOptions: github.ListOptions{PerPage: 1}}, []string{"c3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			if o.SHA != "" && h.sha[o.SHA] != "" {
				o.SHA = h.sha[o.SHA]
			}
			list, _, err := gh.Repositories.ListCommits(ctx, "mona", "hist", &o)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range list {
				names = append(names, h.name(c.GetSHA()))
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("got %v, want %v", names, tc.want)
			}
		})
	}

	// Commit objects: users by email and noreply address, null otherwise.
	list, _, err := gh.Repositories.ListCommits(ctx, "mona", "hist", &github.CommitsListOptions{SHA: h.sha["c3"]})
	if err != nil || len(list) != 3 {
		t.Fatalf("%d %v", len(list), err)
	}
	c3, c2, c1 := list[0], list[1], list[2]
	if c3.GetAuthor().GetLogin() != "mona" || c3.GetCommitter().GetLogin() != "mona" || c1.GetAuthor().GetLogin() != "mona" {
		t.Errorf("mona's commits: %v %v", c3.GetAuthor(), c1.GetAuthor())
	}
	if c2.Author != nil || c2.Committer != nil || c2.GetCommit().GetAuthor().GetEmail() != "other@example.com" {
		t.Errorf("a commit of nobody known: %+v", c2)
	}
	if c1.GetCommit().GetMessage() != "first commit\n\nwith a body" || len(c1.Parents) != 0 ||
		len(c2.Parents) != 1 || c2.Parents[0].GetSHA() != h.sha["c1"] ||
		c1.GetCommit().GetAuthor().GetDate().Format(time.RFC3339) != "2020-01-01T12:00:00Z" ||
		c1.GetCommit().GetVerification().GetReason() != "unsigned" || c1.GetCommit().GetTree().GetSHA() == "" ||
		!strings.HasSuffix(c1.GetHTMLURL(), "/mona/hist/commit/"+h.sha["c1"]) {
		t.Errorf("c1: %+v", c1)
	}

	for _, tc := range []struct {
		name, query string
		status      int
	}{
		{"unknown sha", "?sha=nope", 404},
		{"unknown commit", "?sha=" + strings.Repeat("ab", 20), 404},
		{"bad since", "?since=yesterday", 400},
		{"NUL in author", "?author=a%00b", 400},
		{"NUL in committer", "?committer=mona%00", 400},
		{"NUL in path", "?path=main.go%00x", 400},
		{"NUL in sha", "?sha=main%00", 400},
		{"author that looks like an option", "?author=--all", 200},
		{"path that looks like an option", "?path=--output=/tmp/x", 200},
		{"sha that looks like an option", "?sha=--all", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.e.Must(tc.status, "GET", "/repos/mona/hist/commits"+tc.query, "", nil)
			if tc.status == 200 && strings.TrimSpace(string(r.Body)) != "[]" {
				t.Errorf("%s matched commits: %s", tc.query, r.Body)
			}
		})
	}
}

// name is the fixture's name of a sha.
func (h *history) name(sha string) string {
	for k, v := range h.sha {
		if v == sha {
			return k
		}
	}
	return sha
}

func TestGetCommit(t *testing.T) {
	h := newHistory(t)
	gh := h.gh

	c, _, err := gh.Repositories.GetCommit(ctx, "mona", "hist", h.sha["c3"], nil)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*github.CommitFile{}
	for _, f := range c.Files {
		files[f.GetFilename()] = f
	}
	if len(files) != 3 || c.GetAuthor().GetLogin() != "mona" {
		t.Fatalf("c3 files %v", files)
	}
	if f := files["main.go"]; f.GetStatus() != "modified" || f.GetAdditions() != 3 || f.GetDeletions() != 1 || f.GetChanges() != 4 ||
		!strings.HasPrefix(f.GetPatch(), "@@ -1,5 +1,7 @@") || !strings.Contains(f.GetPatch(), "+\tprintln(\"hello, world\")") ||
		!strings.HasSuffix(f.GetBlobURL(), "/mona/hist/blob/"+h.sha["c3"]+"/main.go") ||
		!strings.HasSuffix(f.GetContentsURL(), "/repos/mona/hist/contents/main.go?ref="+h.sha["c3"]) {
		t.Errorf("main.go: %+v", f)
	}
	if f := files["lib/helpers.py"]; f.GetStatus() != "renamed" || f.GetPreviousFilename() != "lib/util.py" || f.GetChanges() != 0 || f.Patch != nil {
		t.Errorf("renamed: %+v", f)
	}
	if f := files["web/style.css"]; f.GetStatus() != "removed" || f.GetDeletions() != 1 ||
		!strings.Contains(f.GetRawURL(), "/raw/"+h.sha["c2"]+"/web/style.css") {
		t.Errorf("removed: %+v", f)
	}
	if s := c.GetStats(); s.GetAdditions() != 3 || s.GetDeletions() != 2 || s.GetTotal() != 5 {
		t.Errorf("stats %+v", s)
	}

	// A root commit is compared with the empty tree; a binary file has no patch.
	c, _, err = gh.Repositories.GetCommit(ctx, "mona", "hist", h.sha["c1"], nil)
	if err != nil || len(c.Files) != 8 || c.Files[0].GetStatus() != "added" {
		t.Fatalf("root commit: %d files %v", len(c.Files), err)
	}
	c, _, err = gh.Repositories.GetCommit(ctx, "mona", "hist", "v1.0", nil)
	if err != nil || c.GetSHA() != h.sha["c1"] {
		t.Errorf("by tag: %v", err)
	}
	c, _, err = gh.Repositories.GetCommit(ctx, "mona", "hist", h.sha["c2"][:10], nil)
	if err != nil || c.GetSHA() != h.sha["c2"] || len(c.Files) != 1 || c.Files[0].Patch != nil || c.Files[0].GetAdditions() != 0 {
		t.Errorf("binary: %+v %v", c, err)
	}
	// Branch names with slashes, and heads/ and tags/ prefixes.
	for ref, want := range map[string]string{"topic/slash": "c3", "heads/feature": "f2", "tags/v2.0": "c3", "merged": "merge"} {
		c, _, err := gh.Repositories.GetCommit(ctx, "mona", "hist", ref, nil)
		if err != nil || c.GetSHA() != h.sha[want] {
			t.Errorf("%s: %v", ref, err)
		}
	}
	// A merge commit lists its parents and the files against the first one.
	c, _, err = gh.Repositories.GetCommit(ctx, "mona", "hist", "merged", nil)
	if err != nil || len(c.Parents) != 2 || len(c.Files) != 1 || c.Files[0].GetFilename() != "feature.go" {
		t.Errorf("merge: %+v %v", c, err)
	}

	// Files are paged (300 by default).
	r := h.e.Must(200, "GET", apitest.Query("/repos/mona/hist/commits/"+h.sha["c1"], "per_page", "3", "page", "2"), "", nil)
	var page struct {
		Files []struct{ Filename string }
		Stats struct{ Total int }
	}
	r.JSON(t, &page)
	if len(page.Files) != 3 || !strings.Contains(r.Header.Get("Link"), `rel="next"`) || !strings.Contains(r.Header.Get("Link"), `rel="prev"`) || page.Stats.Total == 0 {
		t.Errorf("files page 2: %v link %q", page.Files, r.Header.Get("Link"))
	}

	// The diff and patch media types.
	diff, _, err := gh.Repositories.GetCommitRaw(ctx, "mona", "hist", h.sha["c3"], github.RawOptions{Type: github.Diff})
	if err != nil || !strings.HasPrefix(diff, "diff --git a/lib/util.py b/lib/helpers.py") || !strings.Contains(diff, "diff --git a/main.go b/main.go\n") ||
		!strings.Contains(diff, "deleted file mode 100644") {
		t.Errorf("diff: %v\n%s", err, diff)
	}
	patch, _, err := gh.Repositories.GetCommitRaw(ctx, "mona", "hist", h.sha["c3"], github.RawOptions{Type: github.Patch})
	if err != nil || !strings.HasPrefix(patch, "From "+h.sha["c3"]+" Mon Sep 17 00:00:00 2001\n") ||
		!strings.Contains(patch, "Subject: [PATCH] rename util, drop the style") || !strings.Contains(patch, "+\tprintln(\"hello, world\")") {
		t.Errorf("patch: %v\n%s", err, patch)
	}
	patch, _, err = gh.Repositories.GetCommitRaw(ctx, "mona", "hist", "merged", github.RawOptions{Type: github.Patch})
	if err != nil || !strings.Contains(patch, "Subject: [PATCH] merge feature") || !strings.Contains(patch, "feature.go") {
		t.Errorf("merge patch: %v\n%s", err, patch)
	}
	r = h.e.Must(200, "GET", "/repos/mona/hist/commits/main", "", nil, "Accept: application/vnd.github.diff")
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.github.diff") || !strings.Contains(string(r.Body), "+// m1") {
		t.Errorf("diff of main: %s %s", ct, r.Body)
	}
	// Diffs too large to send answer 406, as on GitHub.
	restore := commits.SetMaxText(100)
	h.e.Must(http.StatusNotAcceptable, "GET", "/repos/mona/hist/commits/"+h.sha["c1"], "", nil, "Accept: application/vnd.github.diff")
	h.e.Must(http.StatusNotAcceptable, "GET", "/repos/mona/hist/compare/v1.0...main", "", nil, "Accept: application/vnd.github.patch")
	restore()

	// The sha media type, and go-github's poll with the last sha.
	sha, _, err := gh.Repositories.GetCommitSHA1(ctx, "mona", "hist", "main", "")
	if err != nil || sha != h.sha["m1"] {
		t.Errorf("sha: %q %v", sha, err)
	}
	if _, resp, _ := gh.Repositories.GetCommitSHA1(ctx, "mona", "hist", "main", h.sha["m1"]); status(resp) != http.StatusNotModified {
		t.Errorf("poll with the current sha: %d", status(resp))
	}

	for _, tc := range []struct {
		name, ref string
		status    int
		message   string
	}{
		{"unknown ref", "nope", 422, "No commit found for SHA: nope"},
		{"unknown sha", strings.Repeat("0", 40), 422, "No commit found for SHA: " + strings.Repeat("0", 40)},
		{"a tree is not a commit", h.rev(t, "main^{tree}"), 422, "No commit found for SHA: " + h.rev(t, "main^{tree}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.e.Must(tc.status, "GET", "/repos/mona/hist/commits/"+tc.ref, "", nil)
			if msg := r.Map(t)["message"]; msg != tc.message {
				t.Errorf("message %q, want %q", msg, tc.message)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	h := newHistory(t)
	gh := h.gh

	for _, tc := range []struct {
		name, base, head string
		status           string
		ahead, behind    int
		mergeBase        string
		commits          []string
		files            []string
	}{
		{"ahead", "c3", "main", "ahead", 22, 0, "c3", nil, []string{"counter.txt", "main.go", "node_modules/dep/index.js", "vendor/lib.js", "web/app.min.js"}},
		{"behind", "main", "c3", "behind", 0, 22, "c3", nil, []string{}},
		{"diverged", "main", "feature", "diverged", 2, 1, "n20", []string{"f1", "f2"}, []string{"feature.go"}},
		{"identical", "main", "main", "identical", 0, 0, "m1", []string{}, []string{}},
		{"owner prefix", "mona:main", "mona:feature", "diverged", 2, 1, "n20", []string{"f1", "f2"}, []string{"feature.go"}},
		{"owner and repository prefix", "main", "mona:hist:feature", "diverged", 2, 1, "n20", []string{"f1", "f2"}, []string{"feature.go"}},
		{"tags", "v1.0", "v2.0", "ahead", 2, 0, "c1", []string{"c2", "c3"}, []string{"lib/helpers.py", "logo.png", "main.go", "web/style.css"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, head := tc.base, tc.head
			if s := h.sha[base]; s != "" {
				base = s
			}
			if s := h.sha[head]; s != "" {
				head = s
			}
			c, _, err := gh.Repositories.CompareCommits(ctx, "mona", "hist", base, head, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.GetStatus() != tc.status || c.GetAheadBy() != tc.ahead || c.GetBehindBy() != tc.behind || c.GetTotalCommits() != tc.ahead ||
				h.name(c.GetMergeBaseCommit().GetSHA()) != tc.mergeBase {
				t.Errorf("status %s ahead %d behind %d total %d merge base %s", c.GetStatus(), c.GetAheadBy(), c.GetBehindBy(), c.GetTotalCommits(), h.name(c.GetMergeBaseCommit().GetSHA()))
			}
			if tc.commits != nil {
				var names []string
				for _, x := range c.Commits {
					names = append(names, h.name(x.GetSHA()))
				}
				if !slices.Equal(names, tc.commits) && !(len(names) == 0 && len(tc.commits) == 0) {
					t.Errorf("commits %v, want %v", names, tc.commits)
				}
			}
			var files []string
			for _, f := range c.Files {
				files = append(files, f.GetFilename())
			}
			slices.Sort(files)
			if !slices.Equal(files, tc.files) && !(len(files) == 0 && len(tc.files) == 0) {
				t.Errorf("files %v, want %v", files, tc.files)
			}
		})
	}

	// Two dots compare with base itself, not the merge base.
	r := h.e.Must(200, "GET", "/repos/mona/hist/compare/main..feature", "", nil)
	var two struct {
		Status string
		Files  []struct{ Filename string }
	}
	r.JSON(t, &two)
	if two.Status != "diverged" || len(two.Files) != 2 { // feature.go added, main.go's m1 change undone
		t.Errorf("two dots: %+v", two)
	}

	// Without paging parameters the most recent 250 commits, oldest first;
	// with them, pages from the oldest, with Link.
	c, _, err := gh.Repositories.CompareCommits(ctx, "mona", "hist", h.sha["c1"], "main", nil)
	if err != nil || len(c.Commits) != 24 || c.Commits[0].GetSHA() != h.sha["c2"] || c.Commits[23].GetSHA() != h.sha["m1"] {
		t.Fatalf("c1...main: %d commits %v", len(c.Commits), err)
	}
	var paged []string
	opts := &github.ListOptions{PerPage: 10}
	for {
		c, resp, err := gh.Repositories.CompareCommits(ctx, "mona", "hist", h.sha["c1"], "main", opts)
		if err != nil {
			t.Fatal(err)
		}
		if (opts.Page <= 1) != (c.Files != nil) {
			t.Errorf("page %d: files %d", opts.Page, len(c.Files))
		}
		for _, x := range c.Commits {
			paged = append(paged, x.GetSHA())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	want := h.revList(t, "--reverse", h.sha["c1"]+"..main")
	if !slices.Equal(paged, want) {
		t.Errorf("paged comparison: %d commits, want %d", len(paged), len(want))
	}

	// The diff and patch media types.
	diff, _, err := gh.Repositories.CompareCommitsRaw(ctx, "mona", "hist", "main", "feature", github.RawOptions{Type: github.Diff})
	if err != nil || !strings.HasPrefix(diff, "diff --git a/feature.go b/feature.go\nnew file mode 100644") || strings.Contains(diff, "main.go") {
		t.Errorf("diff: %v\n%s", err, diff)
	}
	patch, _, err := gh.Repositories.CompareCommitsRaw(ctx, "mona", "hist", "main", "feature", github.RawOptions{Type: github.Patch})
	if err != nil || strings.Count(patch, "\nSubject: [PATCH ") != 2 || !strings.Contains(patch, "[PATCH 1/2] feature one") {
		t.Errorf("patch: %v\n%s", err, patch)
	}

	for _, tc := range []struct {
		name, basehead string
		message        string
	}{
		{"unknown base", "nope...main", "Not Found"},
		{"unknown head", "main...nope", "Not Found"},
		{"no separator", "main", "Not Found"},
		{"another owner", "someone:main...feature", "Not Found"},
		{"unrelated histories", "main...orphan", "No common ancestor between main and orphan."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.e.Must(404, "GET", "/repos/mona/hist/compare/"+tc.basehead, "", nil)
			if msg := r.Map(t)["message"]; msg != tc.message {
				t.Errorf("message %q, want %q", msg, tc.message)
			}
		})
	}
}

func TestTagsAndLanguages(t *testing.T) {
	h := newHistory(t)
	gh := h.gh
	for i := 3; i <= 12; i++ {
		h.git(t, "", "tag", "z"+string(rune('a'+i)), h.sha["c2"])
	}
	h.git(t, "", "push", "-q", "origin", "--tags")

	var tags []*github.RepositoryTag
	opts := &github.ListOptions{PerPage: 5}
	for {
		list, resp, err := gh.Repositories.ListTags(ctx, "mona", "hist", opts)
		if err != nil {
			t.Fatal(err)
		}
		tags = append(tags, list...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(tags) != 12 || tags[0].GetName() != "zm" || tags[10].GetName() != "v2.0" || tags[11].GetName() != "v1.0" {
		t.Fatalf("tags: %d %v", len(tags), tags)
	}
	// The annotated tag shows its commit, not the tag object.
	if tags[10].GetCommit().GetSHA() != h.sha["c3"] || tags[11].GetCommit().GetSHA() != h.sha["c1"] ||
		!strings.HasSuffix(tags[11].GetZipballURL(), "/repos/mona/hist/zipball/refs/tags/v1.0") ||
		!strings.HasSuffix(tags[11].GetTarballURL(), "/repos/mona/hist/tarball/refs/tags/v1.0") {
		t.Errorf("v2.0 %+v, v1.0 %+v", tags[10], tags[11])
	}

	// Languages of the default branch: by extension and file name, without
	// vendored, minified, documentation, data and prose files.
	langs, _, err := gh.Repositories.ListLanguages(ctx, "mona", "hist")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"Go":       h.files["main.go"],
		"HTML":     h.files["web/index.html"],
		"Python":   h.files["lib/helpers.py"],
		"Shell":    h.files["scripts/run.sh"],
		"Makefile": h.files["Makefile"],
	}
	if len(langs) != len(want) {
		t.Errorf("languages %v, want %v", langs, want)
	}
	for k, v := range want {
		if langs[k] != v || v == 0 {
			t.Errorf("%s: %d bytes, want %d (%v)", k, langs[k], v, langs)
		}
	}
	// Largest first, as GitHub writes them; the second answer is cached.
	r := h.e.Must(200, "GET", "/repos/mona/hist/languages", "", nil)
	if !strings.HasPrefix(string(r.Body), `{"Go":`) {
		t.Errorf("order: %s", r.Body)
	}
}

func TestEmptyAndPrivateRepositories(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("empty")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	_, resp, _ := gh.Repositories.ListCommits(ctx, "mona", "empty", nil)
	if status(resp) != http.StatusConflict {
		t.Errorf("commits of an empty repository: %d", status(resp))
	}
	r := e.Must(409, "GET", "/repos/mona/empty/commits", "", nil)
	if msg := r.Map(t)["message"]; msg != "Git Repository is empty." {
		t.Errorf("message %q", msg)
	}
	e.Must(409, "GET", "/repos/mona/empty/commits/main", "", nil)
	e.Must(404, "GET", "/repos/mona/empty/compare/main...main", "", nil)
	e.Must(404, "GET", "/repos/mona/empty/branches/main", "", nil)
	e.Must(404, "POST", "/repos/mona/empty/branches/main/rename", tok, map[string]string{"new_name": "x"})
	list, _, err := gh.Repositories.ListBranches(ctx, "mona", "empty", nil)
	if err != nil || len(list) != 0 {
		t.Errorf("branches: %v %v", list, err)
	}
	tags, _, err := gh.Repositories.ListTags(ctx, "mona", "empty", nil)
	if err != nil || len(tags) != 0 {
		t.Errorf("tags: %v %v", tags, err)
	}
	langs, _, err := gh.Repositories.ListLanguages(ctx, "mona", "empty")
	if err != nil || len(langs) != 0 {
		t.Errorf("languages: %v %v", langs, err)
	}
	// Nothing of a private repository shows to others.
	_, otherTok := e.NewUser("other", false)
	for _, path := range []string{"/branches", "/branches/main", "/commits", "/commits/main", "/compare/a...b", "/tags", "/languages"} {
		e.Must(404, "GET", "/repos/mona/secret"+path, "", nil)
		e.Must(404, "GET", "/repos/mona/secret"+path, otherTok, nil)
	}
	e.Must(404, "POST", "/repos/mona/secret/branches/main/rename", otherTok, map[string]string{"new_name": "x"})
	e.Must(200, "GET", "/repos/mona/secret/languages", tok, nil)
}
