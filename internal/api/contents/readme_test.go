package contents_test

import (
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func TestReadme(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "docs", false)
	work := push(t, e, "mona", tok, "mona", "docs", func(dir string) {
		write(t, dir, "readme.txt", "plain <text>\n", 0o644)
		write(t, dir, "README.md", "# Title\n\nBody.\n", 0o644)
		write(t, dir, "docs/README.rst", "Docs\n====\n", 0o644)
		write(t, dir, "sub/Readme", "sub readme\n", 0o644)
		write(t, dir, "sub/other.md", "x\n", 0o644)
	})

	// The root README: Markdown wins over plain text.
	rd, _, err := gh.Repositories.GetReadme(ctx, "mona", "docs", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := rd.GetContent(); got != "# Title\n\nBody.\n" || rd.GetPath() != "README.md" || rd.GetType() != "file" || rd.GetURL() != e.API+"/repos/mona/docs/contents/README.md?ref=main" {
		t.Fatalf("readme: %+v", rd)
	}
	// A directory's README, in any case.
	rd, _, err = githubReadmeIn(gh, "sub", "")
	if err != nil || rd.GetPath() != "sub/Readme" {
		t.Fatalf("sub readme: %v %+v", err, rd)
	}
	rd, _, err = githubReadmeIn(gh, "docs", "")
	if err != nil || rd.GetPath() != "docs/README.rst" {
		t.Fatalf("docs readme: %v %+v", err, rd)
	}
	// raw and html.
	r := e.Must(200, "GET", "/repos/mona/docs/readme", tok, nil, "Accept: application/vnd.github.raw")
	if string(r.Body) != "# Title\n\nBody.\n" {
		t.Fatalf("raw readme: %q", r.Body)
	}
	r = e.Must(200, "GET", "/repos/mona/docs/readme", tok, nil, "Accept: application/vnd.github.html")
	if !strings.HasPrefix(string(r.Body), `<div id="readme" class="md" data-path="README.md"><article class="markdown-body entry-content container-lg" itemprop="text">`) || !strings.Contains(string(r.Body), "<p>Body.</p>") {
		t.Fatalf("html readme: %s", r.Body)
	}
	r = e.Must(200, "GET", "/repos/mona/docs/readme/sub", tok, nil, "Accept: application/vnd.github.html")
	if !strings.Contains(string(r.Body), `id="readme" class="plain"`) || !strings.Contains(string(r.Body), "sub readme") {
		t.Fatalf("html plain readme: %s", r.Body)
	}

	// .github wins over the root; the root over docs/; ref picks the commit.
	first := strings.TrimSpace(git(t, work, "rev-parse", "HEAD"))
	write(t, work, ".github/README.md", "from .github\n", 0o644)
	git(t, work, "add", "-A")
	git(t, work, "commit", "-q", "-m", "github readme")
	git(t, work, "push", "-q", remote(e, "mona", tok, "mona", "docs"), "HEAD:refs/heads/main")
	rd, _, err = gh.Repositories.GetReadme(ctx, "mona", "docs", nil)
	if err != nil || rd.GetPath() != ".github/README.md" {
		t.Fatalf(".github readme: %v %+v", err, rd)
	}
	rd, _, err = gh.Repositories.GetReadme(ctx, "mona", "docs", &github.RepositoryContentGetOptions{Ref: first})
	if err != nil || rd.GetPath() != "README.md" || !strings.HasSuffix(rd.GetURL(), "?ref="+first) {
		t.Fatalf("readme at %s: %v %+v", first, err, rd)
	}
	git(t, work, "rm", "-q", "-r", ".github", "README.md", "readme.txt")
	git(t, work, "commit", "-q", "-m", "only docs")
	git(t, work, "push", "-q", remote(e, "mona", tok, "mona", "docs"), "HEAD:refs/heads/main")
	rd, _, err = gh.Repositories.GetReadme(ctx, "mona", "docs", nil)
	if err != nil || rd.GetPath() != "docs/README.rst" {
		t.Fatalf("docs fallback: %v %+v", err, rd)
	}

	// None: 404.
	for _, p := range []string{"/repos/mona/docs/readme/nope", "/repos/mona/docs/readme/sub/other.md", "/repos/mona/docs/readme?ref=nope"} {
		e.Must(404, "GET", p, tok, nil)
	}
	git(t, work, "rm", "-q", "-r", "docs")
	git(t, work, "commit", "-q", "-m", "no docs")
	git(t, work, "push", "-q", remote(e, "mona", tok, "mona", "docs"), "HEAD:refs/heads/main")
	if _, resp, err := gh.Repositories.GetReadme(ctx, "mona", "docs", nil); ghStatus(err) != 404 {
		t.Fatalf("no readme: %v %v", err, resp)
	}
}

// githubReadmeIn is GET /repos/mona/docs/readme/{dir} (go-github has no
// method for it).
func githubReadmeIn(gh *github.Client, dir, ref string) (*github.RepositoryContent, *github.Response, error) {
	u := "repos/mona/docs/readme/" + dir
	if ref != "" {
		u += "?ref=" + ref
	}
	req, err := gh.NewRequest(ctx, "GET", u, nil)
	if err != nil {
		return nil, nil, err
	}
	var rc github.RepositoryContent
	resp, err := gh.Do(req, &rc)
	return &rc, resp, err
}
