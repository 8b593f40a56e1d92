package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// commitOn writes a commit with one file of the given content.
func commitOn(t *testing.T, r *Repo, content string) string {
	t.Helper()
	ctx := context.Background()
	blob, err := r.WriteObject(ctx, "blob", []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := EncodeTree([]TreeEntry{{Mode: "100644", Name: "f", OID: blob}})
	if err != nil {
		t.Fatal(err)
	}
	treeID, _ := r.WriteObject(ctx, "tree", tree)
	sig := Signature{"M", "m@example.com", time.Unix(1700000000, 0).UTC()}
	c, err := r.WriteObject(ctx, "commit", EncodeCommit(&Commit{Tree: treeID, Author: sig, Committer: sig, Message: content}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRefReadsSeeEveryChange: refs read from their files (loose, packed,
// symbolic) follow every change git makes, by hubd or by git itself.
func TestRefReadsSeeEveryChange(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	a, b, c := commitOn(t, r, "a\n"), commitOn(t, r, "b\n"), commitOn(t, r, "c\n")
	want := func(rev, oid string) {
		t.Helper()
		info, err := r.Info(ctx, rev)
		if oid == "" {
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("%s: %+v %v, want not found", rev, info, err)
			}
			return
		}
		if err != nil || info.OID != oid {
			t.Fatalf("%s: %+v %v, want %s", rev, info, err, oid)
		}
	}
	want("HEAD", "")
	want("refs/heads/main", "")
	if err := r.UpdateRef(ctx, "refs/heads/main", a, ZeroOID); err != nil {
		t.Fatal(err)
	}
	want("HEAD", a)
	want("refs/heads/main^{commit}", a)
	if err := r.UpdateRef(ctx, "refs/heads/main", b, a); err != nil {
		t.Fatal(err)
	}
	want("refs/heads/main", b)
	want("HEAD", b)
	// git itself moves the ref (as a push does).
	if _, err := r.Git(ctx, nil, "update-ref", "refs/heads/main", c); err != nil {
		t.Fatal(err)
	}
	want("refs/heads/main", c)
	// Packed refs: the loose file goes, packed-refs answers.
	if _, err := r.Git(ctx, nil, "pack-refs", "--all", "--prune"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Path, "refs/heads/main")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("loose ref still there: %v", err)
	}
	want("refs/heads/main", c)
	want("HEAD", c)
	// A loose ref written over a packed one wins, as in git.
	if err := r.UpdateRef(ctx, "refs/heads/main", a, c); err != nil {
		t.Fatal(err)
	}
	want("refs/heads/main", a)
	if _, err := r.Git(ctx, nil, "pack-refs", "--all", "--prune"); err != nil {
		t.Fatal(err)
	}
	want("refs/heads/main", a)
	// Deleted from packed-refs too.
	if err := r.DeleteRef(ctx, "refs/heads/main", a); err != nil {
		t.Fatal(err)
	}
	want("refs/heads/main", "")
	want("HEAD", "")
	// HEAD follows its branch when pointed elsewhere.
	if err := r.UpdateRef(ctx, "refs/heads/other", b, ZeroOID); err != nil {
		t.Fatal(err)
	}
	if err := r.SetHead(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	want("HEAD", b)
	// Names with revision syntax still go to git.
	want("refs/heads/other~0", b)
	want(b+"^{commit}", b)
}

// TestObjectCache: cached contents are copies, and the size limit of Read
// is answered from what is cached.
func TestObjectCache(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	blob, err := r.WriteObject(ctx, "blob", []byte("hello world\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		_, data, err := r.Read(ctx, blob, 0)
		if err != nil || string(data) != "hello world\n" {
			t.Fatalf("read %d: %q %v", i, data, err)
		}
		data[0] = 'X' // a caller that changes its copy changes nothing else
	}
	if info, _, err := r.Read(ctx, blob, 4); !errors.Is(err, ErrTooLarge) || info.Size != 12 {
		t.Fatalf("over the limit: %+v %v", info, err)
	}
	if _, err := r.Info(ctx, ZeroOID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing object: %v", err)
	}
	c := newObjCache(1000)
	for i := 0; i < 50; i++ {
		c.put(objKey{1, string(rune('a' + i))}, ObjectInfo{}, make([]byte, 100))
	}
	if c.size > 1000 || c.order.Len() != len(c.m) {
		t.Fatalf("cache over its bound: %d bytes, %d/%d entries", c.size, c.order.Len(), len(c.m))
	}
}

// A ref file changed in place within one clock tick keeps its inode, size
// and (on coarse filesystems) mtime: a file that recent is never remembered,
// so the second version is read.
func TestLooseRefsRacilyClean(t *testing.T) {
	path := filepath.Join(t.TempDir(), "main")
	tick := time.Now().Truncate(time.Second)
	write := func(content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, tick, tick); err != nil {
			t.Fatal(err)
		}
	}
	var l looseRefs
	write(strings.Repeat("a", 40) + "\n")
	if got, err := l.read(path); err != nil || got[0] != 'a' {
		t.Fatalf("first read %q %v", got, err)
	}
	write(strings.Repeat("b", 40) + "\n") // same inode, size and mtime
	if got, err := l.read(path); err != nil || got[0] != 'b' {
		t.Fatalf("second read %q %v: a racily clean file was remembered", got, err)
	}
	// An old file is remembered (one stat per read).
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := l.read(path); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.m[path]; !ok {
		t.Fatal("a settled file was not remembered")
	}
}
