package contents_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/gitrepo"
)

// download fetches a URL without credentials.
func download(t *testing.T, u string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// untar lists a gzipped tar: path → content (symlinks: "-> target"), and
// the modes of regular files.
func untar(t *testing.T, b []byte) (map[string]string, map[string]int64) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files, modes := map[string]string{}, map[string]int64{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeReg:
			data, _ := io.ReadAll(tr)
			files[h.Name] = string(data)
			modes[h.Name] = h.Mode
		case tar.TypeSymlink:
			files[h.Name] = "-> " + h.Linkname
		case tar.TypeDir:
			files[h.Name] = "dir"
		}
	}
	return files, modes
}

func unzip(t *testing.T, b []byte) (map[string]string, string) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			files[f.Name] = "dir"
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(data)
	}
	return files, zr.Comment
}

// location is the Location of a redirect, not followed.
func location(t *testing.T, u string) string {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("GET %s: %d, want 302", u, resp.StatusCode)
	}
	return resp.Header.Get("Location")
}

func TestArchives(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "kinds", false)
	work := pushKinds(t, e, tok)
	head := strings.TrimSpace(git(t, work, "rev-parse", "HEAD"))
	prefix := "mona-kinds-" + head[:7] + "/"

	// tarball: a 302 to the codeload route; the archive needs no credentials.
	link, resp, err := gh.Repositories.GetArchiveLink(ctx, "mona", "kinds", github.Tarball, &github.RepositoryContentGetOptions{Ref: "main"}, 0)
	if err != nil || resp.StatusCode != 302 {
		t.Fatalf("tarball link: %v %v", err, resp)
	}
	if link.String() != e.URL+"/_codeload/mona/kinds/legacy.tar.gz/main" {
		t.Fatalf("tarball link %s", link)
	}
	r, body := download(t, link.String())
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "application/x-gzip" || r.Header.Get("Content-Disposition") != "attachment; filename=mona-kinds-"+head[:7]+".tar.gz" {
		t.Fatalf("tarball: %d %v", r.StatusCode, r.Header)
	}
	files, modes := untar(t, body)
	if files[prefix+"README.md"] != "# Kinds\n\nSome *text*.\n" || files[prefix+"readme-link"] != "-> README.md" || files[prefix+"bin/run.sh"] != "#!/bin/sh\necho hi\n" ||
		modes[prefix+"bin/run.sh"]&0o111 == 0 || files[prefix+"docs/guide.md"] != "guide\n" {
		t.Fatalf("tarball content: %v", files)
	}
	for name := range files {
		if !strings.HasPrefix(name, prefix) {
			t.Errorf("entry %q outside %s", name, prefix)
		}
	}
	// The same commit again: its ETag answers 304.
	req, _ := http.NewRequest("GET", link.String(), nil)
	req.Header.Set("If-None-Match", r.Header.Get("ETag"))
	if r2, err := http.DefaultClient.Do(req); err != nil || r2.StatusCode != 304 {
		t.Fatalf("conditional download: %v %v", err, r2)
	}

	// zipball, by sha, then without a ref (the default branch).
	link, _, err = gh.Repositories.GetArchiveLink(ctx, "mona", "kinds", github.Zipball, &github.RepositoryContentGetOptions{Ref: head}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, body = download(t, link.String())
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("zipball: %d %v", r.StatusCode, r.Header)
	}
	zfiles, comment := unzip(t, body)
	if zfiles[prefix+"README.md"] != "# Kinds\n\nSome *text*.\n" || zfiles[prefix+"docs/guide.md"] != "guide\n" || comment != head {
		t.Fatalf("zipball content: %v comment %q", zfiles, comment)
	}
	link, resp, err = gh.Repositories.GetArchiveLink(ctx, "mona", "kinds", github.Zipball, nil, 0)
	if err != nil || resp.StatusCode != 302 || link.String() != e.URL+"/_codeload/mona/kinds/legacy.zip/main" {
		t.Fatalf("zipball without ref: %v %v", err, link)
	}
	// A branch with a slash and a tag.
	git(t, work, "push", "-q", remote(e, "mona", tok, "mona", "kinds"), "HEAD:refs/heads/feature/x", "HEAD:refs/tags/v1.0")
	for _, ref := range []string{"feature/x", "v1.0"} {
		loc := location(t, e.API+"/repos/mona/kinds/tarball/"+ref)
		r2, body := download(t, loc)
		if r2.StatusCode != 200 {
			t.Fatalf("%s: %d %s", ref, r2.StatusCode, body)
		}
		if files, _ := untar(t, body); files[prefix+"docs/guide.md"] != "guide\n" {
			t.Fatalf("%s: %v", ref, files)
		}
	}

	// Unknown refs and an empty repository: 404.
	e.Must(404, "GET", "/repos/mona/kinds/tarball/nope", tok, nil)
	e.Must(404, "GET", "/repos/mona/kinds/zipball/nope", tok, nil)
	newRepo(t, gh, "empty", false)
	e.Must(404, "GET", "/repos/mona/empty/tarball/main", tok, nil)
	if r, _ := download(t, e.URL+"/_codeload/mona/kinds/legacy.tar.gz/nope"); r.StatusCode != 404 {
		t.Fatalf("codeload of an unknown ref: %d", r.StatusCode)
	}
	if r, _ := download(t, e.URL+"/_codeload/mona/kinds/legacy.rar/main"); r.StatusCode != 404 {
		t.Fatalf("codeload of an unknown format: %d", r.StatusCode)
	}
}

func TestPrivateArchives(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, other := e.NewUser("hubot", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "secret", true)
	push(t, e, "mona", tok, "mona", "secret", func(dir string) { write(t, dir, "key.txt", "s3cret\n", 0o644) })
	newRepo(t, gh, "other", true)
	push(t, e, "mona", tok, "mona", "other", func(dir string) { write(t, dir, "x.txt", "x\n", 0o644) })

	// Others do not get a link at all.
	e.Must(404, "GET", "/repos/mona/secret/tarball/main", other, nil)
	e.Must(404, "GET", "/repos/mona/secret/tarball/main", "", nil)

	link, _, err := gh.Repositories.GetArchiveLink(ctx, "mona", "secret", github.Tarball, &github.RepositoryContentGetOptions{Ref: "main"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tokn := link.Query().Get("token")
	if tokn == "" {
		t.Fatalf("private link without token: %s", link)
	}
	// With the token, no credentials needed.
	r, body := download(t, link.String())
	if r.StatusCode != 200 {
		t.Fatalf("with token: %d %s", r.StatusCode, body)
	}
	if files, _ := untar(t, body); len(files) == 0 {
		t.Fatal("empty archive")
	}
	bare := *link
	bare.RawQuery = ""
	for name, u := range map[string]string{
		"no token":          bare.String(),
		"tampered":          bare.String() + "?token=" + flip(tokn),
		"other format":      strings.Replace(bare.String(), "legacy.tar.gz", "legacy.zip", 1) + "?token=" + url.QueryEscape(tokn),
		"other ref":         strings.Replace(bare.String(), "/main", "/HEAD", 1) + "?token=" + url.QueryEscape(tokn),
		"other repository":  strings.Replace(bare.String(), "/secret/", "/other/", 1) + "?token=" + url.QueryEscape(tokn),
		"garbage":           bare.String() + "?token=not-a-token",
		"empty token value": bare.String() + "?token=",
	} {
		if r, _ := download(t, u); r.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", name, r.StatusCode)
		}
	}
	// The owner's credentials work without a token.
	if r := e.Must(200, "GET", bare.String(), tok, nil); len(r.Body) == 0 {
		t.Fatal("empty download")
	}
}

// TestArchiveOfABrokenTree: a commit whose tree git refuses to archive (it
// names "..", written straight into storage as a repository created
// before pushes were checked could hold) answers an error status and JSON,
// not a dropped connection; an archive larger than what is held back
// before the first byte still streams whole.
func TestArchiveOfABrokenTree(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	repo := newRepo(t, gh, "broken", false)
	created, _, err := gh.Repositories.CreateFile(ctx, "mona", "broken", "a.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("a"), Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	g := e.Deps.Git.Open(repo.GetID())
	blob, err := g.WriteObject(ctx, "blob", []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(blob)
	when := gitrepo.Signature{Name: "M", Email: "m@example.com", When: time.Unix(1700000000, 0).UTC()}
	for _, name := range []string{"..", ".git"} {
		tree, err := g.WriteObject(ctx, "tree", append([]byte("100644 "+name+"\x00"), raw...))
		if err != nil {
			t.Fatal(err)
		}
		commit, err := g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(&gitrepo.Commit{Tree: tree, Parents: []string{created.Commit.GetSHA()}, Author: when, Committer: when, Message: "bad\n"}))
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"legacy.tar.gz", "legacy.zip"} {
			t.Run(name+" "+format, func(t *testing.T) {
				r, body := download(t, e.URL+"/_codeload/mona/broken/"+format+"/"+commit)
				if r.StatusCode != http.StatusInternalServerError || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.Header.Get("Content-Disposition") != "" {
					t.Fatalf("%d %v %s", r.StatusCode, r.Header, body)
				}
				var m map[string]any
				if err := json.Unmarshal(body, &m); err != nil || m["message"] != "The archive of this commit could not be created." {
					t.Fatalf("body %s: %v", body, err)
				}
			})
		}
	}

	// Over a MiB of incompressible content: held back in part, then
	// streamed.
	big := make([]byte, 3<<20)
	rand.Read(big)
	bigBlob, err := g.WriteObject(ctx, "blob", big)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := gitrepo.EncodeTree([]gitrepo.TreeEntry{{Mode: "100644", Name: "big.bin", OID: bigBlob}})
	if err != nil {
		t.Fatal(err)
	}
	treeID, _ := g.WriteObject(ctx, "tree", tree)
	commit, _ := g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(&gitrepo.Commit{Tree: treeID, Author: when, Committer: when, Message: "big\n"}))
	r, body := download(t, e.URL+"/_codeload/mona/broken/legacy.zip/"+commit)
	if r.StatusCode != 200 {
		t.Fatalf("big zip: %d", r.StatusCode)
	}
	files, _ := unzip(t, body)
	if files["mona-broken-"+commit[:7]+"/big.bin"] != string(big) {
		t.Fatalf("big zip lost content: %d entries", len(files))
	}
	r, body = download(t, e.URL+"/_codeload/mona/broken/legacy.tar.gz/"+commit)
	if files, _ := untar(t, body); r.StatusCode != 200 || files["mona-broken-"+commit[:7]+"/big.bin"] != string(big) {
		t.Fatalf("big tarball: %d", r.StatusCode)
	}
}
