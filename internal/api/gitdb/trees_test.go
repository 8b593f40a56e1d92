package gitdb_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/api/gitdb"
	"github.com/hubd/hubd/internal/apitest"
)

func paths(t *github.Tree) string {
	var s []string
	for _, e := range t.Entries {
		s = append(s, e.GetPath())
	}
	return strings.Join(s, " ")
}

// Editing an existing tree: nested paths create and edit subtrees, a null
// sha deletes a file or a whole directory, directories left empty vanish,
// and a tree entry followed by paths inside it edits that tree.
func TestCreateTreeEdits(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "trees", false)
	c, _, _ := gh.Git.GetCommit(ctx, "mona", "trees", base)
	root := c.GetTree().GetSHA()
	blob := func(s string) *string {
		b, _, err := gh.Git.CreateBlob(ctx, "mona", "trees", github.Blob{Content: github.Ptr(s)})
		if err != nil {
			t.Fatal(err)
		}
		return b.SHA
	}
	entry := func(path string, sha *string) *github.TreeEntry {
		return &github.TreeEntry{Path: github.Ptr(path), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: sha}
	}

	t1, _, err := gh.Git.CreateTree(ctx, "mona", "trees", root, []*github.TreeEntry{
		entry("a/b/c.txt", blob("c")), entry("a/b/d.txt", blob("d")), entry("a/e.txt", blob("e")), entry("z.txt", blob("z")),
	})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ := gh.Git.GetTree(ctx, "mona", "trees", t1.GetSHA(), true)
	if got := paths(rec); got != "README.md a a/b a/b/c.txt a/b/d.txt a/e.txt z.txt" {
		t.Fatalf("after adding: %s", got)
	}
	// The same tree as git builds it: compare with git's own write-tree.
	work := t.TempDir()
	mustGit(t, work, "init", "-q")
	for p, s := range map[string]string{"README.md": "# trees\n", "a/b/c.txt": "c", "a/b/d.txt": "d", "a/e.txt": "e", "z.txt": "z"} {
		mustGit(t, work, "update-index", "--add", "--cacheinfo", "100644,"+hashObject(t, work, s)+","+p)
	}
	if want := strings.TrimSpace(mustGit(t, work, "write-tree")); want != t1.GetSHA() {
		t.Fatalf("tree %s, git builds %s", t1.GetSHA(), want)
	}

	// Delete one file of a/b and the whole of a: a/b/c.txt's directory stays
	// while d.txt is in it; deleting both empties and removes it.
	t2, _, err := gh.Git.CreateTree(ctx, "mona", "trees", t1.GetSHA(), []*github.TreeEntry{entry("a/b/c.txt", nil)})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ = gh.Git.GetTree(ctx, "mona", "trees", t2.GetSHA(), true)
	if got := paths(rec); got != "README.md a a/b a/b/d.txt a/e.txt z.txt" {
		t.Fatalf("after deleting c.txt: %s", got)
	}
	t3, _, err := gh.Git.CreateTree(ctx, "mona", "trees", t2.GetSHA(), []*github.TreeEntry{entry("a/b/d.txt", nil)})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ = gh.Git.GetTree(ctx, "mona", "trees", t3.GetSHA(), true)
	if got := paths(rec); got != "README.md a a/e.txt z.txt" {
		t.Fatalf("after emptying a/b: %s", got)
	}
	t4, _, err := gh.Git.CreateTree(ctx, "mona", "trees", t1.GetSHA(), []*github.TreeEntry{{Path: github.Ptr("a"), Mode: github.Ptr("040000"), Type: github.Ptr("tree")}})
	if err != nil || paths(t4) != "README.md z.txt" {
		t.Fatalf("deleting a directory: %s %v", paths(t4), err)
	}

	// Without base_tree only the entries make the tree; a directory entry
	// then a path inside it edits that directory.
	var sub string
	for _, en := range rec.Entries {
		if en.GetPath() == "a" {
			sub = en.GetSHA()
		}
	}
	t5, _, err := gh.Git.CreateTree(ctx, "mona", "trees", "", []*github.TreeEntry{
		{Path: github.Ptr("lib"), Mode: github.Ptr("040000"), Type: github.Ptr("tree"), SHA: &sub},
		{Path: github.Ptr("lib/new.txt"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), Content: github.Ptr("new")},
		{Path: github.Ptr("mod"), Mode: github.Ptr("160000"), Type: github.Ptr("commit"), SHA: github.Ptr("1234567890123456789012345678901234567890")},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ = gh.Git.GetTree(ctx, "mona", "trees", t5.GetSHA(), true)
	if got := paths(rec); got != "lib lib/e.txt lib/new.txt mod" {
		t.Fatalf("tree without base: %s", got)
	}
	for _, en := range rec.Entries {
		if en.GetPath() == "mod" && (en.GetType() != "commit" || en.URL != nil || en.Size != nil) {
			t.Fatalf("submodule entry %+v", en)
		}
		if en.GetPath() == "lib" && (en.GetType() != "tree" || en.GetURL() != e.API+"/repos/mona/trees/git/trees/"+en.GetSHA() || en.Size != nil) {
			t.Fatalf("tree entry %+v", en)
		}
	}
	// An empty tree is a tree too.
	empty, _, err := gh.Git.CreateTree(ctx, "mona", "trees", "", []*github.TreeEntry{})
	if err != nil || empty.GetSHA() != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" || len(empty.Entries) != 0 {
		t.Fatalf("empty tree: %+v %v", empty, err)
	}
	// An entry with only a sha takes its mode from the object.
	t6, _, err := gh.Git.CreateTree(ctx, "mona", "trees", "", []*github.TreeEntry{{Path: github.Ptr("x/y"), SHA: &sub}})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ = gh.Git.GetTree(ctx, "mona", "trees", t6.GetSHA(), true)
	if got := paths(rec); got != "x x/y x/y/e.txt" {
		t.Fatalf("mode from object: %s", got)
	}
}

// hashObject writes content as a blob of the repository in dir.
func hashObject(t *testing.T, dir, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(mustGit(t, dir, "hash-object", "-w", f))
}

// The listing stops at the entry and byte limits and says so.
func TestTreeTruncated(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "big", false)
	c, _, _ := gh.Git.GetCommit(ctx, "mona", "big", base)
	var entries []*github.TreeEntry
	for i := 0; i < 30; i++ {
		entries = append(entries, &github.TreeEntry{Path: github.Ptr(fmt.Sprintf("d%d/f%02d.txt", i%3, i)), Mode: github.Ptr("100644"), Content: github.Ptr(strconv.Itoa(i))})
	}
	tree, _, err := gh.Git.CreateTree(ctx, "mona", "big", c.GetTree().GetSHA(), entries)
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := gh.Git.GetTree(ctx, "mona", "big", tree.GetSHA(), true)
	if err != nil || full.GetTruncated() || len(full.Entries) != 34 {
		t.Fatalf("full listing: %d entries, truncated %v, %v", len(full.Entries), full.GetTruncated(), err)
	}

	restore := gitdb.SetTreeLimits(10, 7<<20)
	defer restore()
	got, _, err := gh.Git.GetTree(ctx, "mona", "big", tree.GetSHA(), true)
	if err != nil || !got.GetTruncated() || len(got.Entries) != 10 || paths(got) != paths(&github.Tree{Entries: full.Entries[:10]}) {
		t.Fatalf("entry limit: %d entries, truncated %v, %v", len(got.Entries), got.GetTruncated(), err)
	}
	// Any value of recursive turns it on, even 0 (as on GitHub).
	m := e.Must(200, "GET", "/repos/mona/big/git/trees/"+tree.GetSHA()+"?recursive=0", tok, nil).Map(t)
	if m["truncated"] != true || len(m["tree"].([]any)) != 10 {
		t.Fatalf("recursive=0: %v", m["truncated"])
	}
	// Four top-level entries fit.
	top, _, err := gh.Git.GetTree(ctx, "mona", "big", tree.GetSHA(), false)
	if err != nil || top.GetTruncated() || len(top.Entries) != 4 {
		t.Fatalf("top level: %d %v", len(top.Entries), err)
	}
	restore()

	restore = gitdb.SetTreeLimits(100_000, 1000)
	got, _, err = gh.Git.GetTree(ctx, "mona", "big", tree.GetSHA(), true)
	if err != nil || !got.GetTruncated() || len(got.Entries) == 0 || len(got.Entries) >= 10 {
		t.Fatalf("byte limit: %d entries, truncated %v, %v", len(got.Entries), got.GetTruncated(), err)
	}
}

// Blob bodies: GitHub's line-wrapped base64 at every length, the raw media
// type, HEAD, ETag revalidation, and a few megabytes streamed.
func TestBlobBodies(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	seeded(t, e, "mona", tok, "blobs", false)
	for _, n := range []int{0, 1, 44, 45, 46, 90, 1000} {
		data := make([]byte, n)
		rand.Read(data)
		b, _, err := gh.Git.CreateBlob(ctx, "mona", "blobs", github.Blob{Content: github.Ptr(base64.StdEncoding.EncodeToString(data)), Encoding: github.Ptr("base64")})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := gh.Git.GetBlob(ctx, "mona", "blobs", b.GetSHA())
		if err != nil {
			t.Fatal(err)
		}
		if want := wrap60(base64.StdEncoding.EncodeToString(data)); got.GetContent() != want || got.GetSize() != n {
			t.Fatalf("%d bytes: content %q, want %q", n, got.GetContent(), want)
		}
	}
	// Base64 sent wrapped, as GitHub sends it, is accepted back.
	data := []byte(strings.Repeat("wrapped content ", 10))
	b, _, err := gh.Git.CreateBlob(ctx, "mona", "blobs", github.Blob{Content: github.Ptr(wrap60(base64.StdEncoding.EncodeToString(data))), Encoding: github.Ptr("base64")})
	if err != nil {
		t.Fatal(err)
	}
	raw := e.Must(200, "GET", "/repos/mona/blobs/git/blobs/"+b.GetSHA(), tok, nil, "Accept: application/vnd.github.raw+json")
	if !bytes.Equal(raw.Body, data) || raw.Header.Get("Content-Type") != "application/vnd.github.raw" {
		t.Fatalf("raw: %q %s", raw.Body, raw.Header.Get("Content-Type"))
	}
	first := e.Must(200, "GET", "/repos/mona/blobs/git/blobs/"+b.GetSHA(), tok, nil)
	etag := first.Header.Get("ETag")
	if etag == "" || first.Header.Get("Content-Length") != strconv.Itoa(len(first.Body)) {
		t.Fatalf("etag %q length %s/%d", etag, first.Header.Get("Content-Length"), len(first.Body))
	}
	e.Must(304, "GET", "/repos/mona/blobs/git/blobs/"+b.GetSHA(), tok, nil, "If-None-Match: "+etag)
	if r := e.Do("GET", "/repos/mona/blobs/git/blobs/"+b.GetSHA(), tok, nil, "If-None-Match: "+etag, "Accept: application/vnd.github.raw"); r.StatusCode != 200 {
		t.Fatalf("etag reused across media types: %d", r.StatusCode)
	}
	head := e.Must(200, "HEAD", "/repos/mona/blobs/git/blobs/"+b.GetSHA(), tok, nil)
	if len(head.Body) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(first.Body)) {
		t.Fatalf("HEAD: %d bytes, length %s", len(head.Body), head.Header.Get("Content-Length"))
	}

	big := make([]byte, 3<<20)
	rand.Read(big)
	bb, _, err := gh.Git.CreateBlob(ctx, "mona", "blobs", github.Blob{Content: github.Ptr(base64.StdEncoding.EncodeToString(big)), Encoding: github.Ptr("base64")})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := gh.Git.GetBlobRaw(ctx, "mona", "blobs", bb.GetSHA())
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("big raw blob: %d bytes %v", len(got), err)
	}
	// The JSON form, read partially and dropped, leaves the server serving.
	req, _ := http.NewRequest("GET", e.API+"/repos/mona/blobs/git/blobs/"+bb.GetSHA(), nil)
	req.Header.Set("Authorization", "token "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.CopyN(io.Discard, resp.Body, 1000)
	resp.Body.Close()
	full, _, err := gh.Git.GetBlob(ctx, "mona", "blobs", bb.GetSHA())
	if err != nil || full.GetSize() != len(big) {
		t.Fatalf("big blob: %v", err)
	}
	if dec, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(full.GetContent(), "\n", "")); !bytes.Equal(dec, big) {
		t.Fatal("big blob content differs")
	}
}

// wrap60 is Ruby's Base64.encode64 layout.
func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		n := min(60, len(s))
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	return b.String()
}
