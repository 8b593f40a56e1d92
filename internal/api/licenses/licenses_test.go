package licenses_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/licenses"
)

var ctx = context.Background()

func keys(ls []*github.License) string {
	var out []string
	for _, l := range ls {
		out = append(out, l.GetKey())
	}
	return strings.Join(out, ",")
}

func TestLicenseCatalogue(t *testing.T) {
	e := apitest.New(t)
	gh := e.GitHub("")

	all, _, err := gh.Licenses.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "agpl-3.0,apache-2.0,bsd-2-clause,bsd-3-clause,bsl-1.0,cc0-1.0,epl-2.0,gpl-2.0,gpl-3.0,lgpl-2.1,mit,mpl-2.0,unlicense"
	if keys(all) != want {
		t.Fatalf("licenses = %s", keys(all))
	}
	mit := all[10]
	if mit.GetName() != "MIT License" || mit.GetSPDXID() != "MIT" || mit.GetURL() != e.API+"/licenses/mit" {
		t.Fatalf("mit = %v", mit)
	}
	if raw := e.Must(200, "GET", "/licenses", "", nil).Body; !strings.Contains(string(raw), `"node_id":"MDc6TGljZW5zZW1pdA=="`) {
		t.Fatalf("node id: %s", raw)
	}

	featured, _, err := gh.Licenses.List(ctx, &github.ListLicensesOptions{Featured: github.Ptr(true)})
	if err != nil || keys(featured) != "apache-2.0,gpl-3.0,mit" {
		t.Fatalf("featured = %s %v", keys(featured), err)
	}
	page, resp, err := gh.Licenses.List(ctx, &github.ListLicensesOptions{ListOptions: github.ListOptions{PerPage: 5, Page: 2}})
	if err != nil || keys(page) != "cc0-1.0,epl-2.0,gpl-2.0,gpl-3.0,lgpl-2.1" || resp.NextPage != 3 || resp.LastPage != 3 || resp.PrevPage != 1 {
		t.Fatalf("page 2 = %s next %d last %d %v", keys(page), resp.NextPage, resp.LastPage, err)
	}

	l, _, err := gh.Licenses.Get(ctx, "MIT") // keys ignore case
	if err != nil {
		t.Fatal(err)
	}
	if l.GetKey() != "mit" || !l.GetFeatured() || !strings.Contains(l.GetBody(), "Copyright (c) [year] [fullname]") ||
		strings.Join(l.GetPermissions(), ",") != "commercial-use,modifications,distribution,private-use" ||
		strings.Join(l.GetConditions(), ",") != "include-copyright" || strings.Join(l.GetLimitations(), ",") != "liability,warranty" ||
		l.GetHTMLURL() != "https://choosealicense.com/licenses/mit/" || l.GetDescription() == "" || l.GetImplementation() == "" {
		t.Fatalf("mit = %+v", l)
	}
	gpl, _, err := gh.Licenses.Get(ctx, "gpl-3.0")
	if err != nil || !strings.Contains(gpl.GetBody(), "GNU GENERAL PUBLIC LICENSE") || strings.Join(gpl.GetConditions(), ",") != "include-copyright,document-changes,disclose-source,same-license" {
		t.Fatalf("gpl-3.0 = %+v %v", gpl, err)
	}
	// Licenses beyond the common list are reachable by key.
	if isc, _, err := gh.Licenses.Get(ctx, "isc"); err != nil || isc.GetFeatured() || isc.GetSPDXID() != "ISC" {
		t.Fatalf("isc = %+v %v", isc, err)
	}
	_, resp, err = gh.Licenses.Get(ctx, "wtfpl-9")
	if err == nil || resp.StatusCode != 404 {
		t.Fatalf("unknown license: %v", err)
	}
}

func TestGitignoreTemplates(t *testing.T) {
	e := apitest.New(t)
	gh := e.GitHub("")
	names, _, err := gh.Gitignores.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 40 {
		t.Fatalf("%d templates", len(names))
	}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	for _, n := range []string{"Go", "C", "C++", "Python", "Node", "Java", "Rust", "VisualStudio", "Terraform", "Unity"} {
		if !has[n] {
			t.Errorf("no %s template", n)
		}
	}
	g, _, err := gh.Gitignores.Get(ctx, "Go")
	if err != nil || g.GetName() != "Go" || !strings.Contains(g.GetSource(), "*.test\n") || !strings.Contains(g.GetSource(), "vendor/\n") {
		t.Fatalf("Go = %+v %v", g, err)
	}
	// The raw media type answers the source alone.
	r := e.Must(200, "GET", "/gitignore/templates/Python", "", nil, "Accept: application/vnd.github.raw")
	src, _ := licenses.Gitignore("Python")
	if string(r.Body) != src || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/vnd.github.raw") {
		t.Fatalf("raw: %q %q", r.Header.Get("Content-Type"), r.Body)
	}
	// Names are case sensitive, as on GitHub.
	for _, n := range []string{"go", "NoSuchThing"} {
		_, resp, err := gh.Gitignores.Get(ctx, n)
		if err == nil || resp.StatusCode != 404 {
			t.Fatalf("%s: %v", n, err)
		}
	}
}

// commit writes files as a commit on top of parent ("" for none) and moves
// main to it, as a push would.
func commit(t *testing.T, e *apitest.Env, owner, name string, parent string, files map[string]string) string {
	t.Helper()
	v, err := e.Store.R().RepoByName(ctx, owner, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.Deps.GitRepo(ctx, v.Repo)
	if err != nil {
		t.Fatal(err)
	}
	var entries []gitrepo.TreeEntry
	for p, content := range files {
		oid, err := g.WriteObject(ctx, "blob", []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, gitrepo.TreeEntry{Mode: "100644", Name: p, OID: oid})
	}
	data, err := gitrepo.EncodeTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := g.WriteObject(ctx, "tree", data)
	if err != nil {
		t.Fatal(err)
	}
	sig := gitrepo.Signature{Name: "Mona", Email: "mona@example.com", When: time.Unix(1700000000, 0).UTC()}
	c := &gitrepo.Commit{Tree: tree, Author: sig, Committer: sig, Message: "files"}
	old := gitrepo.ZeroOID
	if parent != "" {
		c.Parents, old = []string{parent}, parent
	}
	id, err := g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(c))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.UpdateRef(ctx, "refs/heads/main", id, old); err != nil {
		t.Fatal(err)
	}
	if err := e.Deps.RecordPush(ctx, v.Repo, v.Repo.OwnerID, []api.RefUpdate{{Ref: "refs/heads/main", Old: old, New: id}}, false); err != nil {
		t.Fatal(err)
	}
	return id
}

func body(key string) string {
	l, _ := licenses.Find(key)
	return l.Fill("2024", "Mona Octocat")
}

func TestLicenseForRepo(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	for _, n := range []string{"mit", "apache", "gpl", "custom", "none", "empty"} {
		if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(n)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("private"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	first := commit(t, e, "mona", "mit", "", map[string]string{"README.md": "# mit\n", "LICENSE": body("mit")})
	commit(t, e, "mona", "mit", first, map[string]string{"README.md": "# mit\n", "LICENSE": body("gpl-3.0")})
	commit(t, e, "mona", "apache", "", map[string]string{"LICENSE.md": body("apache-2.0"), "LICENSE-THIRD-PARTY": body("mit")})
	commit(t, e, "mona", "gpl", "", map[string]string{"COPYING": body("gpl-3.0"), "main.c": "int main(){}\n"})
	custom := "Copyright (c) 2024 Example Corp. All rights reserved.\n\nThis software is confidential. You may not copy, change or share it.\n"
	commit(t, e, "mona", "custom", "", map[string]string{"LICENSE.txt": custom})
	commit(t, e, "mona", "none", "", map[string]string{"README.md": "no license here\n", "docs": "x"})
	commit(t, e, "mona", "private", "", map[string]string{"LICENSE": body("mit")})

	for _, c := range []struct {
		repo, path, key, spdx string
	}{
		{"mit", "LICENSE", "gpl-3.0", "GPL-3.0"}, // the default branch's latest commit
		{"apache", "LICENSE.md", "apache-2.0", "Apache-2.0"},
		{"gpl", "COPYING", "gpl-3.0", "GPL-3.0"},
		{"custom", "LICENSE.txt", "other", "NOASSERTION"},
		{"private", "LICENSE", "mit", "MIT"},
	} {
		rl, _, err := gh.Repositories.License(ctx, "mona", c.repo)
		if err != nil {
			t.Fatalf("%s: %v", c.repo, err)
		}
		if rl.GetPath() != c.path || rl.GetName() != c.path || rl.GetType() != "file" || rl.GetEncoding() != "base64" ||
			rl.License.GetKey() != c.key || rl.License.GetSPDXID() != c.spdx {
			t.Errorf("%s: %s %s %s", c.repo, rl.GetPath(), rl.License.GetKey(), rl.License.GetSPDXID())
		}
		if c.key == "other" && (rl.License.URL != nil || rl.License.GetName() != "Other") {
			t.Errorf("other: %+v", rl.License)
		}
		content, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(rl.GetContent(), "\n", ""))
		if err != nil || rl.GetSize() != len(content) || !strings.Contains(string(content), map[string]string{
			"mit": "GNU GENERAL", "apache": "Apache License", "gpl": "GNU GENERAL", "custom": "confidential", "private": "Mona Octocat"}[c.repo]) {
			t.Errorf("%s content: %v %q", c.repo, err, content)
		}
		if !strings.HasSuffix(rl.GetURL(), "/repos/mona/"+c.repo+"/contents/"+c.path+"?ref=main") || rl.GetGitURL() != e.API+"/repos/mona/"+c.repo+"/git/blobs/"+rl.GetSHA() ||
			rl.GetHTMLURL() != e.URL+"/mona/"+c.repo+"/blob/main/"+c.path {
			t.Errorf("%s urls: %s %s %s", c.repo, rl.GetURL(), rl.GetGitURL(), rl.GetHTMLURL())
		}
		if (rl.DownloadURL == nil) != (c.repo == "private") {
			t.Errorf("%s download_url %v", c.repo, rl.DownloadURL)
		}
	}

	// ref picks another commit.
	r := e.Must(200, "GET", "/repos/mona/mit/license?ref="+first, tok, nil).Map(t)
	if r["license"].(map[string]any)["key"] != "mit" || !strings.HasSuffix(r["url"].(string), "?ref="+first) {
		t.Fatalf("ref: %v", r)
	}
	// The raw media type is the file.
	raw := e.Must(200, "GET", "/repos/mona/gpl/license", tok, nil, "Accept: application/vnd.github.raw")
	if string(raw.Body) != body("gpl-3.0") {
		t.Fatalf("raw: %.100q", raw.Body)
	}

	html := e.Must(200, "GET", "/repos/mona/apache/license", tok, nil, "Accept: application/vnd.github.html+json")
	if !strings.Contains(string(html.Body), `<article class="markdown-body`) || !strings.Contains(string(html.Body), "Apache License") ||
		!strings.HasPrefix(html.Header.Get("Content-Type"), "application/vnd.github.html") {
		t.Fatalf("html: %s %.200q", html.Header.Get("Content-Type"), html.Body)
	}
	// The download URL of a public repository serves the file.
	rl, _, err := gh.Repositories.License(ctx, "mona", "gpl")
	if err != nil {
		t.Fatal(err)
	}
	if dl := e.Do("GET", rl.GetDownloadURL(), "", nil); dl.StatusCode != 200 || string(dl.Body) != body("gpl-3.0") {
		t.Fatalf("download %s: %d", rl.GetDownloadURL(), dl.StatusCode)
	}

	// No license file, an empty repository, an unknown ref, a hidden or
	// missing repository: 404.
	_, other := e.NewUser("hubot", false)
	for _, c := range []struct{ path, token string }{
		{"/repos/mona/none/license", tok},
		{"/repos/mona/empty/license", tok},
		{"/repos/mona/mit/license?ref=nope", tok},
		{"/repos/mona/private/license", other},
		{"/repos/mona/private/license", ""},
		{"/repos/mona/missing/license", tok},
	} {
		e.Must(404, "GET", c.path, c.token, nil)
	}
	_, resp, err := e.GitHub(other).Repositories.License(ctx, "mona", "none")
	var ghErr *github.ErrorResponse
	if !errors.As(err, &ghErr) || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("go-github: %v", err)
	}
}
