package gitrepo

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

func newRepo(t *testing.T) (*Manager, *Repo) {
	t.Helper()
	m, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	r, err := m.Init(context.Background(), 42, "main")
	if err != nil {
		t.Fatal(err)
	}
	return m, r
}

func TestObjectsRoundTrip(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	blob, err := r.WriteObject(ctx, "blob", []byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	if blob != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Fatalf("blob id %s", blob)
	}
	tree, err := EncodeTree([]TreeEntry{{Mode: "100644", Name: "hello.txt", OID: blob}, {Mode: "100755", Name: "a.sh", OID: blob}})
	if err != nil {
		t.Fatal(err)
	}
	treeID, err := r.WriteObject(ctx, "tree", tree)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("", 2*3600))
	c := &Commit{Tree: treeID, Author: Signature{"Mona", "mona@example.com", when}, Committer: Signature{"Mona", "mona@example.com", when}, Message: "first\n"}
	commitID, err := r.WriteObject(ctx, "commit", EncodeCommit(c))
	if err != nil {
		t.Fatal(err)
	}
	// git itself agrees with what we wrote.
	if out, err := r.Git(ctx, nil, "fsck", "--strict"); err != nil {
		t.Fatalf("fsck: %v %s", err, out)
	}
	out, err := r.Git(ctx, nil, "log", "--format=%an %ae %ad %s", "--date=iso", commitID)
	if err != nil || strings.TrimSpace(string(out)) != "Mona mona@example.com 2024-05-06 07:08:09 +0200 first" {
		t.Fatalf("git log: %q %v", out, err)
	}

	info, data, err := r.Read(ctx, commitID, 0)
	if err != nil || info.Type != "commit" {
		t.Fatal(info, err)
	}
	pc, err := ParseCommit(commitID, data)
	if err != nil || pc.Tree != treeID || pc.Message != "first\n" || !pc.Author.When.Equal(when) {
		t.Fatalf("%+v %v", pc, err)
	}
	_, tdata, err := r.Read(ctx, treeID, 0)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ParseTree(tdata)
	if err != nil || len(entries) != 2 || entries[0].Name != "a.sh" || entries[1].Mode != "100644" {
		t.Fatalf("%+v %v", entries, err)
	}
	if _, _, err := r.Read(ctx, strings.Repeat("1", 40), 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing object: %v", err)
	}
	if _, _, err := r.Read(ctx, blob, 3); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("size limit: %v", err)
	}
	if info, err := r.Info(ctx, commitID+":hello.txt"); err != nil || info.OID != blob {
		t.Fatalf("rev:path: %+v %v", info, err)
	}
	if _, err := r.Info(ctx, "bad\nname"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("newline in name: %v", err)
	}
}

func TestRefsCompareAndSwap(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	mk := func(msg string, parents ...string) string {
		tree, _ := r.WriteObject(ctx, "tree", nil)
		sig := Signature{"a", "a@b", time.Unix(1_700_000_000, 0).UTC()}
		id, err := r.WriteObject(ctx, "commit", EncodeCommit(&Commit{Tree: tree, Parents: parents, Author: sig, Committer: sig, Message: msg}))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	c1 := mk("one")
	if err := r.UpdateRef(ctx, "refs/heads/main", c1, ZeroOID); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(ctx, "refs/heads/main", c1, ZeroOID); !errors.Is(err, ErrRefConflict) {
		t.Fatalf("create over existing: %v", err)
	}
	// Many writers race from the same old value: exactly one wins.
	var wg sync.WaitGroup
	wins := make(chan string, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := mk("racer "+string(rune('a'+i)), c1)
			if err := r.UpdateRef(ctx, "refs/heads/main", c, c1); err == nil {
				wins <- c
			} else if !errors.Is(err, ErrRefConflict) {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	close(wins)
	var won []string
	for w := range wins {
		won = append(won, w)
	}
	if len(won) != 1 {
		t.Fatalf("%d writers won", len(won))
	}
	if got, _ := r.ResolveRef(ctx, "refs/heads/main"); got != won[0] {
		t.Fatalf("main = %s, winner %s", got, won[0])
	}
	refs, err := r.Refs(ctx, "refs/heads/")
	if err != nil || len(refs) != 1 || refs[0].OID != won[0] || refs[0].Type != "commit" {
		t.Fatalf("%+v %v", refs, err)
	}
	if ok, _ := r.IsAncestor(ctx, c1, won[0]); !ok {
		t.Fatal("c1 should be an ancestor")
	}
	if ok, _ := r.IsAncestor(ctx, won[0], c1); ok {
		t.Fatal("not a fast-forward")
	}
	if err := r.DeleteRef(ctx, "refs/heads/main", c1); !errors.Is(err, ErrRefConflict) {
		t.Fatalf("delete with stale old value: %v", err)
	}
	if err := r.DeleteRef(ctx, "refs/heads/main", won[0]); err != nil {
		t.Fatal(err)
	}
	if head, err := r.Head(ctx); err != nil || head != "main" {
		t.Fatalf("HEAD %q %v", head, err)
	}
}

// The pool reuses processes: many reads start at most maxBatchPerRepo.
func TestBatchPoolReuse(t *testing.T) {
	m, r := newRepo(t)
	ctx := context.Background()
	blob, _ := r.WriteObject(ctx, "blob", []byte("x"))
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				if _, d, err := r.Read(ctx, blob, 0); err != nil || string(d) != "x" {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	p := m.poolFor(r.ID)
	p.mu.Lock()
	total := p.total
	p.mu.Unlock()
	if total < 1 || total > maxBatchPerRepo {
		t.Fatalf("%d cat-file processes", total)
	}
	out, _ := exec.Command("pgrep", "-fc", "cat-file --batch-command").Output()
	t.Logf("cat-file processes on the machine: %s", strings.TrimSpace(string(out)))
}

func TestTagRoundTrip(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	blob, _ := r.WriteObject(ctx, "blob", []byte("x"))
	sig := Signature{"T", "t@x", time.Unix(1_700_000_000, 0).UTC()}
	id, err := r.WriteObject(ctx, "tag", EncodeTag(&Tag{Object: blob, Type: "blob", Name: "v1", Tagger: &sig, Message: "release\n"}))
	if err != nil {
		t.Fatal(err)
	}
	_, data, err := r.Read(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := ParseTag(id, data)
	if err != nil || tag.Name != "v1" || tag.Object != blob || tag.Message != "release\n" || tag.Tagger.Email != "t@x" {
		t.Fatalf("%+v %v", tag, err)
	}
	if out, err := r.Git(ctx, nil, "cat-file", "-t", id); err != nil || strings.TrimSpace(string(out)) != "tag" {
		t.Fatalf("%s %v", out, err)
	}
}

func FuzzParseTree(f *testing.F) {
	f.Add([]byte("100644 a\x00aaaaaaaaaaaaaaaaaaaa"))
	f.Add([]byte("40000 dir\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseTree(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if len(e.OID) != 40 {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}

func FuzzParseCommit(f *testing.F) {
	f.Add([]byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <b> 1 +0000\ncommitter a <b> 1 +0000\n\nmsg"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseCommit("x", data)
	})
}
