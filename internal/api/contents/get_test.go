package contents_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/gitrepo"
)

// pushKinds pushes a tree with every kind of entry: files (one executable),
// a directory, symlinks (to a file, to a directory, out of the repository)
// and submodules (one hosted here, one elsewhere).
func pushKinds(t *testing.T, e *apitest.Env, tok string) string {
	return push(t, e, "mona", tok, "mona", "kinds", func(dir string) {
		write(t, dir, "README.md", "# Kinds\n\nSome *text*.\n", 0o644)
		write(t, dir, "bin/run.sh", "#!/bin/sh\necho hi\n", 0o755)
		write(t, dir, "docs/guide.md", "guide\n", 0o644)
		write(t, dir, ".gitmodules", "[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = "+e.URL+"/mona/lib.git\n[submodule \"ext\"]\n\tpath = ext\n\turl = https://example.com/other/ext.git\n", 0o644)
		for link, target := range map[string]string{"readme-link": "README.md", "bin-link": "bin", "outside": "../../etc/passwd", "docs/up": "../bin/run.sh"} {
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
		}
	}, func(dir string) {
		git(t, dir, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,vendor/lib")
		git(t, dir, "update-index", "--add", "--cacheinfo", "160000,2222222222222222222222222222222222222222,ext")
	})
}

func TestGetContentKinds(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "kinds", false)
	work := pushKinds(t, e, tok)
	head := strings.TrimSpace(git(t, work, "rev-parse", "HEAD"))

	// A file: base64 in lines of 60, its blob sha, its URLs.
	f, dir, _, err := gh.Repositories.GetContents(ctx, "mona", "kinds", "README.md", nil)
	if err != nil || dir != nil {
		t.Fatalf("file: %v %v", err, dir)
	}
	if got, _ := f.GetContent(); got != "# Kinds\n\nSome *text*.\n" || f.GetType() != "file" || f.GetEncoding() != "base64" || f.GetSize() != 22 {
		t.Fatalf("file: %+v", f)
	}
	blob := strings.TrimSpace(git(t, work, "rev-parse", "HEAD:README.md"))
	if f.GetSHA() != blob || f.GetURL() != e.API+"/repos/mona/kinds/contents/README.md?ref=main" ||
		f.GetGitURL() != e.API+"/repos/mona/kinds/git/blobs/"+blob || f.GetHTMLURL() != e.URL+"/mona/kinds/blob/main/README.md" {
		t.Fatalf("file urls: %+v", f)
	}

	// The download_url of a public repository needs no credentials.
	resp, err := http.Get(f.GetDownloadURL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "# Kinds\n\nSome *text*.\n" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || resp.Header.Get("ETag") != `"`+blob+`"` {
		t.Fatalf("download: %d %q %v", resp.StatusCode, body, resp.Header)
	}

	// The root: an array in tree order, with sizes and types.
	_, list, _, err := gh.Repositories.GetContents(ctx, "mona", "kinds", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, it := range list {
		types[it.GetPath()] = it.GetType()
		if it.GetPath() == "bin" && (it.GetSize() != 0 || it.DownloadURL != nil || it.GetGitURL() != e.API+"/repos/mona/kinds/git/trees/"+it.GetSHA()) {
			t.Errorf("dir entry: %+v", it)
		}
		if it.GetPath() == ".gitmodules" && it.GetSize() == 0 {
			t.Errorf("file entry without size: %+v", it)
		}
	}
	want := map[string]string{".gitmodules": "file", "README.md": "file", "bin": "dir", "bin-link": "symlink", "docs": "dir",
		"ext": "file", "outside": "symlink", "readme-link": "symlink", "vendor": "dir"}
	for p, ty := range want {
		if types[p] != ty {
			t.Errorf("root %s: type %q, want %q (%v)", p, types[p], ty, types)
		}
	}
	if len(list) != len(want) {
		t.Errorf("root has %d entries: %v", len(list), types)
	}
	// From API version 2026-03-10 a submodule is listed as one.
	r := e.Must(200, "GET", "/repos/mona/kinds/contents/", tok, nil, "X-GitHub-Api-Version: 2026-03-10")
	if !strings.Contains(string(r.Body), `{"type":"submodule","size":0,"name":"ext","path":"ext","sha":"2222222222222222222222222222222222222222"`) {
		t.Errorf("2026-03-10 listing: %s", r.Body)
	}
	// The root also answers without the trailing slash.
	e.Must(200, "GET", "/repos/mona/kinds/contents", tok, nil)

	// A subdirectory, the executable keeps being a file.
	_, list, _, err = gh.Repositories.GetContents(ctx, "mona", "kinds", "bin", nil)
	if err != nil || len(list) != 1 || list[0].GetPath() != "bin/run.sh" || list[0].GetSize() != 18 {
		t.Fatalf("bin: %v %+v", err, list)
	}

	// A symlink to a file answers the file.
	f, _, _, err = gh.Repositories.GetContents(ctx, "mona", "kinds", "readme-link", nil)
	if err != nil || f.GetType() != "file" || f.GetPath() != "README.md" || f.GetSHA() != blob {
		t.Fatalf("symlink to file: %v %+v", err, f)
	}
	f, _, _, err = gh.Repositories.GetContents(ctx, "mona", "kinds", "docs/up", nil)
	if err != nil || f.GetType() != "file" || f.GetPath() != "bin/run.sh" {
		t.Fatalf("relative symlink: %v %+v", err, f)
	}
	// A symlink to a directory or out of the repository describes itself.
	for link, target := range map[string]string{"bin-link": "bin", "outside": "../../etc/passwd"} {
		f, _, _, err = gh.Repositories.GetContents(ctx, "mona", "kinds", link, nil)
		if err != nil || f.GetType() != "symlink" || f.GetTarget() != target || f.GetSize() != len(target) || f.GetDownloadURL() == "" {
			t.Fatalf("symlink %s: %v %+v", link, err, f)
		}
	}

	// Submodules: the URL from .gitmodules; git and html URLs when hosted here.
	f, _, _, err = gh.Repositories.GetContents(ctx, "mona", "kinds", "vendor/lib", nil)
	if err != nil || f.GetType() != "submodule" || f.GetSubmoduleGitURL() != e.URL+"/mona/lib.git" ||
		f.GetSHA() != "1111111111111111111111111111111111111111" || f.GetGitURL() != e.API+"/repos/mona/lib/git/trees/1111111111111111111111111111111111111111" {
		t.Fatalf("hosted submodule: %v %+v", err, f)
	}
	f, _, _, err = gh.Repositories.GetContents(ctx, "mona", "kinds", "ext", nil)
	if err != nil || f.GetType() != "submodule" || f.GetSubmoduleGitURL() != "https://example.com/other/ext.git" || f.GitURL != nil || f.HTMLURL != nil {
		t.Fatalf("foreign submodule: %v %+v", err, f)
	}

	// ref: a branch, a tag, a sha (full or short); unknown refs and paths 404.
	git(t, work, "tag", "v1")
	git(t, work, "push", "-q", remote(e, "mona", tok, "mona", "kinds"), "v1")
	git(t, work, "push", "-q", remote(e, "mona", tok, "mona", "kinds"), "HEAD:refs/heads/feature/x")
	for _, ref := range []string{"main", "v1", head, head[:10], "refs/heads/main", "feature/x"} {
		f, _, _, err = gh.Repositories.GetContents(ctx, "mona", "kinds", "docs/guide.md", &github.RepositoryContentGetOptions{Ref: ref})
		if err != nil || f.GetPath() != "docs/guide.md" || !strings.HasSuffix(f.GetURL(), "?ref="+strings.ReplaceAll(ref, "/", "%2F")) {
			t.Fatalf("ref %s: %v %+v", ref, err, f)
		}
		if resp, err := http.Get(f.GetDownloadURL()); err != nil || resp.StatusCode != 200 {
			t.Fatalf("download at %s (%s): %v %v", ref, f.GetDownloadURL(), err, resp)
		} else {
			resp.Body.Close()
		}
	}
	// Raw URLs written by hand: the ref may hold slashes.
	for u, want := range map[string]int{
		e.URL + "/_raw/mona/kinds/feature/x/docs/guide.md": 200,
		e.URL + "/_raw/mona/kinds/v1/docs/guide.md":        200,
		e.URL + "/_raw/mona/kinds/main/docs":               404,
		e.URL + "/_raw/mona/kinds/main/vendor/lib":         404,
		e.URL + "/_raw/mona/kinds/nope/docs/guide.md":      404,
		e.URL + "/_raw/mona/kinds/main":                    404,
	} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", u, resp.StatusCode, want)
		}
	}
	for _, tc := range []struct{ path, msg string }{
		{"/repos/mona/kinds/contents/nope.txt", "Not Found"},
		{"/repos/mona/kinds/contents/README.md/x", "Not Found"},
		{"/repos/mona/kinds/contents/.git/config", "Not Found"},
		{"/repos/mona/kinds/contents/README.md?ref=nope", "No commit found for the ref nope"},
		{"/repos/mona/kinds/contents/README.md?ref=" + strings.Repeat("a", 40), "No commit found for the ref " + strings.Repeat("a", 40)},
		{"/repos/mona/nope/contents/README.md", "Not Found"},
		{"/repos/mona/kinds/readme/bin", "Not Found"},
	} {
		r := e.Must(404, "GET", tc.path, tok, nil)
		if m := r.Map(t)["message"]; m != tc.msg {
			t.Errorf("%s: message %q, want %q", tc.path, m, tc.msg)
		}
	}
}

func TestGetContentMediaTypes(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "kinds", false)
	pushKinds(t, e, tok)

	// raw: the bytes, also through a symlink; the v3 spelling is echoed.
	for accept, ctype := range map[string]string{
		"application/vnd.github.raw+json": "application/vnd.github.raw; charset=utf-8",
		"application/vnd.github.v3.raw":   "application/vnd.github.v3.raw; charset=utf-8",
	} {
		for _, p := range []string{"README.md", "readme-link"} {
			r := e.Must(200, "GET", "/repos/mona/kinds/contents/"+p, tok, nil, "Accept: "+accept)
			if string(r.Body) != "# Kinds\n\nSome *text*.\n" || r.Header.Get("Content-Type") != ctype {
				t.Fatalf("raw %s (%s): %q %s", p, accept, r.Body, r.Header.Get("Content-Type"))
			}
		}
	}
	// A symlink that is not followed: its raw form is the link.
	r := e.Must(200, "GET", "/repos/mona/kinds/contents/bin-link", tok, nil, "Accept: application/vnd.github.raw")
	if string(r.Body) != "bin" {
		t.Fatalf("raw symlink: %q", r.Body)
	}
	// html: Markdown rendered in GitHub's wrapper, other files preformatted.
	r = e.Must(200, "GET", "/repos/mona/kinds/contents/README.md", tok, nil, "Accept: application/vnd.github.html+json")
	if !strings.HasPrefix(string(r.Body), `<div id="file" class="md" data-path="README.md"><article class="markdown-body entry-content container-lg" itemprop="text">`) ||
		!strings.Contains(string(r.Body), "<em>text</em>") || !strings.Contains(string(r.Body), "Kinds</h1>") || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/vnd.github.html") {
		t.Fatalf("html: %s %v", r.Body, r.Header)
	}
	r = e.Must(200, "GET", "/repos/mona/kinds/contents/bin/run.sh", tok, nil, "Accept: application/vnd.github.html")
	if !strings.Contains(string(r.Body), "<pre") || !strings.Contains(string(r.Body), "echo hi") {
		t.Fatalf("html of code: %s", r.Body)
	}
	// object: a file is the same object; raw and html of a directory are
	// its listing.
	r = e.Must(200, "GET", "/repos/mona/kinds/contents/README.md", tok, nil, "Accept: application/vnd.github.object+json")
	if m := r.Map(t); m["type"] != "file" || m["encoding"] != "base64" {
		t.Fatalf("object file: %s", r.Body)
	}
	r = e.Must(200, "GET", "/repos/mona/kinds/contents/bin", tok, nil, "Accept: application/vnd.github.raw")
	if !strings.HasPrefix(string(r.Body), "[") {
		t.Fatalf("raw dir: %s", r.Body)
	}
}

// TestGetContentDirectoryObject reads a directory in the object media type
// (validated against content-tree, declared under
// application/vnd.github.object).
func TestGetContentDirectoryObject(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "kinds", false)
	work := pushKinds(t, e, tok)
	tree := strings.TrimSpace(git(t, work, "rev-parse", "HEAD:bin"))
	r := e.Must(200, "GET", "/repos/mona/kinds/contents/bin", tok, nil, "Accept: application/vnd.github.object")
	m := r.Map(t)
	entries, _ := m["entries"].([]any)
	if m["type"] != "dir" || m["path"] != "bin" || m["name"] != "bin" || m["sha"] != tree || m["download_url"] != nil || len(entries) != 1 {
		t.Fatalf("object dir: %s", r.Body)
	}
	if en := entries[0].(map[string]any); en["path"] != "bin/run.sh" || en["type"] != "file" || en["size"] != float64(18) {
		t.Fatalf("object entry: %v", en)
	}
	r = e.Must(200, "GET", "/repos/mona/kinds/contents/", tok, nil, "Accept: application/vnd.github.object")
	if m := r.Map(t); m["type"] != "dir" || m["path"] != "" || m["html_url"] != e.URL+"/mona/kinds/tree/main" {
		t.Fatalf("object root: %s", r.Body)
	}
}

func TestLargeFilesAndLongDirectories(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "big", true)
	v, err := e.Store.R().RepoByName(ctx, "mona", "big", 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.Deps.GitRepo(ctx, v.Repo)
	if err != nil {
		t.Fatal(err)
	}
	// 1.5 MB of content and a directory of 1,200 entries, written straight
	// into the repository.
	big := make([]byte, 3<<19)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	bigID, _ := g.WriteObject(ctx, "blob", big)
	small, _ := g.WriteObject(ctx, "blob", []byte("x\n"))
	var many []gitrepo.TreeEntry
	for i := range 1200 {
		many = append(many, gitrepo.TreeEntry{Mode: "100644", Name: fmt.Sprintf("f%04d", i), OID: small})
	}
	data, _ := gitrepo.EncodeTree(many)
	manyID, _ := g.WriteObject(ctx, "tree", data)
	data, _ = gitrepo.EncodeTree([]gitrepo.TreeEntry{{Mode: "100644", Name: "big.txt", OID: bigID}, {Mode: "040000", Name: "many", OID: manyID}})
	root, _ := g.WriteObject(ctx, "tree", data)
	sig := gitrepo.Signature{Name: "Mona", Email: "mona@example.com"}
	commit, _ := g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(&gitrepo.Commit{Tree: root, Author: sig, Committer: sig, Message: "big\n"}))
	if err := g.UpdateRef(ctx, "refs/heads/main", commit, gitrepo.ZeroOID); err != nil {
		t.Fatal(err)
	}

	// Over 1 MB: no content, encoding none; raw answers the bytes, and so
	// does the download URL (with its token, without credentials).
	f, _, _, err := gh.Repositories.GetContents(ctx, "mona", "big", "big.txt", nil)
	if err != nil || f.GetEncoding() != "none" || f.Content == nil || *f.Content != "" || f.GetSize() != len(big) {
		t.Fatalf("large file: %v %+v", err, f)
	}
	r := e.Must(200, "GET", "/repos/mona/big/contents/big.txt", tok, nil, "Accept: application/vnd.github.raw")
	if string(r.Body) != string(big) {
		t.Fatalf("raw large file: %d bytes", len(r.Body))
	}
	rc, _, err := gh.Repositories.DownloadContents(ctx, "mona", "big", "big.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != string(big) {
		t.Fatalf("DownloadContents: %d bytes", len(got))
	}
	e.Must(403, "GET", "/repos/mona/big/contents/big.txt", tok, nil, "Accept: application/vnd.github.html")

	// A directory lists its first 1,000 entries, sizes and all.
	_, list, _, err := gh.Repositories.GetContents(ctx, "mona", "big", "many", nil)
	if err != nil || len(list) != 1000 || list[999].GetName() != "f0999" || list[999].GetSize() != 2 {
		t.Fatalf("long directory: %v %d", err, len(list))
	}
}

func TestDownloadURLOfPrivateRepository(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "secret", true)
	push(t, e, "mona", tok, "mona", "secret", func(dir string) { write(t, dir, "a/b c.txt", "hidden\n", 0o644) })

	f, _, _, err := gh.Repositories.GetContents(ctx, "mona", "secret", "a/b c.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	dl := f.GetDownloadURL()
	if !strings.Contains(dl, "?token=") || !strings.Contains(dl, "/a/b%20c.txt") {
		t.Fatalf("download_url %q", dl)
	}
	get := func(u string) (int, string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := get(dl); st != 200 || body != "hidden\n" {
		t.Fatalf("with token: %d %q", st, body)
	}
	bare, _, _ := strings.Cut(dl, "?")
	tok2 := dl[strings.Index(dl, "token=")+6:]
	for name, u := range map[string]string{
		"no token":       bare,
		"tampered token": bare + "?token=" + flip(tok2),
		"other file":     strings.Replace(bare, "b%20c.txt", "x.txt", 1) + "?token=" + tok2,
		"other ref":      strings.Replace(bare, "/main/", "/"+strings.Repeat("0", 40)+"/", 1) + "?token=" + tok2,
	} {
		if st, _ := get(u); st != 404 {
			t.Errorf("%s: %d, want 404", name, st)
		}
	}
	// With credentials the token is not needed.
	r := e.Must(200, "GET", bare, tok, nil)
	if string(r.Body) != "hidden\n" {
		t.Fatalf("with credentials: %q", r.Body)
	}
	// Others do not see the file at all.
	_, other := e.NewUser("hubot", false)
	e.Must(404, "GET", "/repos/mona/secret/contents/a", other, nil)
	e.Must(404, "GET", "/repos/mona/secret/contents/a", "", nil)
}

// flip changes one character of a token.
func flip(s string) string {
	b := []byte(s)
	if b[5] == 'A' {
		b[5] = 'B'
	} else {
		b[5] = 'A'
	}
	return string(b)
}

// TestFileAnswersFollowChanges: file answers are kept by blob id, so a
// second read is the same, and a change of the file, the branch or the
// repository's name is seen at once.
func TestFileAnswersFollowChanges(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "cached", false)
	created, _, err := gh.Repositories.CreateFile(ctx, "mona", "cached", "a.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("a"), Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	get := func(repo string) map[string]any {
		t.Helper()
		return e.Must(200, "GET", "/repos/mona/"+repo+"/contents/a.txt", tok, nil).Map(t)
	}
	first, second := get("cached"), get("cached")
	if first["sha"] != created.Content.GetSHA() || second["sha"] != first["sha"] || second["content"] != first["content"] {
		t.Fatalf("two reads differ: %v %v", first, second)
	}
	updated, _, err := gh.Repositories.UpdateFile(ctx, "mona", "cached", "a.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("b"), Content: []byte("two\n"), SHA: github.Ptr(created.Content.GetSHA())})
	if err != nil {
		t.Fatal(err)
	}
	if got := get("cached"); got["sha"] != updated.Content.GetSHA() || got["content"] != "dHdvCg==\n" {
		t.Fatalf("after the update: %v", got)
	}
	// A push through git moves the branch behind hubd's back.
	dir := t.TempDir()
	git(t, dir, "clone", "-q", remote(e, "mona", tok, "mona", "cached"), "w")
	w := filepath.Join(dir, "w")
	write(t, w, "a.txt", "three\n", 0o644)
	git(t, w, "commit", "-q", "-am", "three")
	git(t, w, "push", "-q", "origin", "HEAD:refs/heads/main")
	if got := get("cached"); got["content"] != "dGhyZWUK\n" {
		t.Fatalf("after a push: %v", got)
	}
	if _, _, err := gh.Repositories.Edit(ctx, "mona", "cached", &github.Repository{Name: github.Ptr("renamed")}); err != nil {
		t.Fatal(err)
	}
	if got := get("renamed"); !strings.Contains(got["url"].(string), "/repos/mona/renamed/contents/a.txt") {
		t.Fatalf("after the rename: %v", got["url"])
	}
	// Private answers carry a download token and are never shared.
	if _, _, err := gh.Repositories.Edit(ctx, "mona", "renamed", &github.Repository{Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if got := get("renamed"); !strings.Contains(got["download_url"].(string), "?token=") {
		t.Fatalf("private download_url: %v", got["download_url"])
	}
}
