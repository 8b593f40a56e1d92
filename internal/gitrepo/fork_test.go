package gitrepo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// history fills repository id of m with n commits on main (one file
// changed each), a branch dev and a tag v1, by fast-import; loose unpacks
// the objects as small pushes leave them.
func history(t testing.TB, m *Manager, id int64, n int, loose bool) *Repo {
	t.Helper()
	ctx := context.Background()
	r, err := m.Init(ctx, id, "main")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		content := fmt.Sprintf("file %d\n%s", i, strings.Repeat(fmt.Sprintf("line %d\n", i), 50))
		fmt.Fprintf(&b, "commit refs/heads/main\nmark :%d\ncommitter A <a@example.com> %d +0000\ndata 6\ncommit", i, 1700000000+i)
		if i > 1 {
			fmt.Fprintf(&b, "\nfrom :%d", i-1)
		}
		fmt.Fprintf(&b, "\nM 644 inline f%d.txt\ndata %d\n%s\n", i%300, len(content), content)
	}
	fmt.Fprintf(&b, "reset refs/heads/dev\nfrom :%d\n\nreset refs/tags/v1\nfrom :1\n\n", n)
	if _, err := r.Git(ctx, []byte(b.String()), "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	if loose {
		packs, _ := filepath.Glob(filepath.Join(r.Path, "objects", "pack", "*.pack"))
		for _, p := range packs {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "-C", r.Path, "unpack-objects", "-q")
			cmd.Stdin = f
			// unpack-objects skips objects the repository has: move the pack away first.
			if err := os.Rename(p, p+".old"); err != nil {
				t.Fatal(err)
			}
			os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("unpack: %v %s", err, out)
			}
			f.Close()
			os.Remove(p + ".old")
		}
	}
	return r
}

func refList(t *testing.T, r *Repo) string {
	t.Helper()
	out, err := r.Git(context.Background(), nil, "for-each-ref", "--format=%(refname) %(objectname)")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func TestFork(t *testing.T) {
	ctx := context.Background()
	m, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	parent := history(t, m, 1, 50, true)
	want := refList(t, parent)

	// A plain fork: every branch and tag, HEAD on main, no remote, and a
	// store of its own (the parent's removal leaves it whole).
	if err := m.Fork(ctx, 1, 2, "main", false); err != nil {
		t.Fatal(err)
	}
	f := m.Open(2)
	if got := refList(t, f); got != want {
		t.Errorf("refs %q, want %q", got, want)
	}
	if out, _ := f.Git(ctx, nil, "config", "--get-regexp", "^remote\\."); len(out) > 0 {
		t.Errorf("remote left: %s", out)
	}
	if out, err := f.Git(ctx, nil, "config", "gc.auto"); err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Errorf("serving settings: %q %v", out, err)
	}

	// Only the default branch.
	if err := m.Fork(ctx, 1, 3, "main", true); err != nil {
		t.Fatal(err)
	}
	if got := refList(t, m.Open(3)); strings.Count(got, "\n") != 0 || !strings.HasPrefix(got, "refs/heads/main ") {
		t.Errorf("default branch only: %q", got)
	}

	// Storage a read created empty is replaced, a reader open on it
	// included.
	if _, err := m.Init(ctx, 4, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open(4).Info(ctx, "HEAD"); err == nil {
		t.Fatal("empty repository has a HEAD commit")
	}
	if err := m.Fork(ctx, 1, 4, "main", false); err != nil {
		t.Fatal(err)
	}
	if got := refList(t, m.Open(4)); got != want {
		t.Errorf("after replacing empty storage: %q", got)
	}
	if _, err := m.Open(4).Info(ctx, "HEAD"); err != nil {
		t.Errorf("reader after the copy: %v", err)
	}

	// A fork of a parent never pushed to is empty.
	if err := m.Fork(ctx, 99, 5, "main", false); err != nil {
		t.Fatal(err)
	}
	if !m.Open(5).Exists() || refList(t, m.Open(5)) != "" {
		t.Error("fork of an empty parent")
	}

	// Only a default branch the parent lacks: empty too.
	if err := m.Fork(ctx, 1, 6, "nope", true); err != nil {
		t.Fatal(err)
	}
	if !m.Open(6).Exists() || refList(t, m.Open(6)) != "" {
		t.Error("fork of a missing default branch")
	}

	// Removing the parent leaves the forks whole (hard links, not
	// alternates).
	if err := m.Remove(1); err != nil {
		t.Fatal(err)
	}
	if out, err := f.Git(ctx, nil, "fsck", "--full", "--no-dangling"); err != nil {
		t.Errorf("fsck after the parent went: %v %s", err, out)
	}
}

// BenchmarkFork copies a repository of 5,000 commits (15,000 objects),
// packed and loose, as forks do (see Fork for the numbers and the choice).
func BenchmarkFork(b *testing.B) {
	for _, loose := range []bool{false, true} {
		b.Run(fmt.Sprintf("loose=%v", loose), func(b *testing.B) {
			m, err := New(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(m.Close)
			history(b, m, 1, 5000, loose)
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				if err := m.Fork(ctx, 1, int64(i+2), "main", false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
