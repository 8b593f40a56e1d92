package gitrepo

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// Merge bases, rev-list pages and diff stats of object ids are answered from
// the object cache the second time (git is no longer needed), and what git
// could not find is not kept: the commit may arrive with a later push.
func TestDerivedResultsCached(t *testing.T) {
	m, r := newRepo(t)
	ctx := context.Background()
	base := commitFiles(t, r, "", map[string]string{"a": "1", "b": "1"})
	head := commitFiles(t, r, base, map[string]string{"a": "2", "c": "new"})
	head = commitFiles(t, r, head, map[string]string{"a": "3", "c": "new", "d/e": "x"})

	// A commit whose id is known before its object is written.
	when := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	c := &Commit{Tree: mustTree(t, r), Parents: []string{head}, Message: "later\n",
		Author: Signature{"A", "a@example.com", when}, Committer: Signature{"A", "a@example.com", when}}
	data := EncodeCommit(c)
	sum := sha1.Sum(append([]byte(fmt.Sprintf("commit %d\x00", len(data))), data...))
	later := hex.EncodeToString(sum[:])
	if _, err := r.MergeBase(ctx, base, later); err == nil {
		t.Fatal("merge base with a commit not yet written")
	}
	if _, err := r.DiffStats(ctx, base, later); err == nil {
		t.Fatal("diff with a commit not yet written")
	}

	mb, err := r.MergeBase(ctx, head, base)
	if err != nil || mb != base {
		t.Fatalf("merge base %s %v", mb, err)
	}
	ids, total, err := r.RevList(ctx, LogOptions{Include: []string{head}, Exclude: []string{base}, Reverse: true})
	if err != nil || total != 2 {
		t.Fatalf("rev-list %v %d %v", ids, total, err)
	}
	stats, err := r.DiffStats(ctx, base, head)
	if err != nil || len(stats) != 4 { // a modified, b removed, c and d/e added
		t.Fatalf("diff stats %v %v", stats, err)
	}
	stats[0].Path = "changed by the caller"

	// Without git, the same questions are answered from the cache.
	git := m.Git
	m.Git = "/nonexistent/git"
	if again, err := r.MergeBase(ctx, head, base); err != nil || again != mb {
		t.Errorf("cached merge base %s %v", again, err)
	}
	if again, n, err := r.RevList(ctx, LogOptions{Include: []string{head}, Exclude: []string{base}, Reverse: true}); err != nil || n != total || !reflect.DeepEqual(again, ids) {
		t.Errorf("cached rev-list %v %d %v", again, n, err)
	}
	again, err := r.DiffStats(ctx, base, head)
	if err != nil || len(again) != 4 || again[0].Path == "changed by the caller" {
		t.Errorf("cached diff stats %v %v (a caller's change must not reach the cache)", again, err)
	}
	// Another page is another question.
	if _, _, err := r.RevList(ctx, LogOptions{Include: []string{head}, Exclude: []string{base}, Skip: 1, Max: 1}); err == nil {
		t.Error("an uncached page was answered without git")
	}
	m.Git = git

	// The commit arrives: it is found now.
	if oid, err := r.WriteObject(ctx, "commit", data); err != nil || oid != later {
		t.Fatalf("write %s (want %s) %v", oid, later, err)
	}
	if mb, err := r.MergeBase(ctx, base, later); err != nil || mb != base {
		t.Errorf("merge base once the commit exists: %s %v", mb, err)
	}
	if s, err := r.DiffStats(ctx, base, later); err != nil || len(s) != 2 { // a and b removed
		t.Errorf("diff once the commit exists: %v %v", s, err)
	}
}

func mustTree(t *testing.T, r *Repo) string {
	t.Helper()
	data, err := EncodeTree(nil)
	if err != nil {
		t.Fatal(err)
	}
	oid, err := r.WriteObject(context.Background(), "tree", data)
	if err != nil {
		t.Fatal(err)
	}
	return oid
}
