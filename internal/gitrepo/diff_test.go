package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// commitFiles writes a commit of the given files (path → content) on top of
// parent ("" for a root commit).
func commitFiles(t *testing.T, r *Repo, parent string, files map[string]string) string {
	t.Helper()
	ctx := context.Background()
	// Build nested trees from the flat paths.
	type dir struct {
		files map[string]string
		dirs  map[string]*dir
	}
	root := &dir{files: map[string]string{}, dirs: map[string]*dir{}}
	for p, content := range files {
		d := root
		parts := strings.Split(p, "/")
		for _, seg := range parts[:len(parts)-1] {
			if d.dirs[seg] == nil {
				d.dirs[seg] = &dir{files: map[string]string{}, dirs: map[string]*dir{}}
			}
			d = d.dirs[seg]
		}
		d.files[parts[len(parts)-1]] = content
	}
	var write func(d *dir) string
	write = func(d *dir) string {
		var entries []TreeEntry
		for name, content := range d.files {
			oid, err := r.WriteObject(ctx, "blob", []byte(content))
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, TreeEntry{Mode: "100644", Name: name, OID: oid})
		}
		for name, sub := range d.dirs {
			entries = append(entries, TreeEntry{Mode: "040000", Name: name, OID: write(sub)})
		}
		data, err := EncodeTree(entries)
		if err != nil {
			t.Fatal(err)
		}
		oid, err := r.WriteObject(ctx, "tree", data)
		if err != nil {
			t.Fatal(err)
		}
		return oid
	}
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &Commit{Tree: write(root), Author: Signature{"A", "a@example.com", when}, Committer: Signature{"A", "a@example.com", when}, Message: "m\n"}
	if parent != "" {
		c.Parents = []string{parent}
	}
	oid, err := r.WriteObject(ctx, "commit", EncodeCommit(c))
	if err != nil {
		t.Fatal(err)
	}
	return oid
}

func TestDiff(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	odd := "we ird\tname \"q\".txt"
	base := map[string]string{
		"a.txt":     "one\ntwo\nthree\n",
		odd:         "x\n",
		"gone.txt":  "bye\n",
		"keep.txt":  "same\n",
		"big.txt":   strings.Repeat("line\n", 10),
		"bin.dat":   "\x00\x01\x02",
		"d/move.go": "package d\n\nfunc F() int { return 1 }\n\n// padding so that rename detection has content\n",
	}
	c1 := commitFiles(t, r, "", base)
	next := map[string]string{
		"a.txt":      "one\n2\nthree\nfour\n",
		odd:          "y\n",
		"keep.txt":   "same\n",
		"big.txt":    strings.Repeat("LINE\n", 10),
		"bin.dat":    "\x00\x03",
		"d/moved.go": base["d/move.go"],
		"new.txt":    "new\n",
	}
	c2 := commitFiles(t, r, c1, next)

	files, err := r.Diff(ctx, c1, c2, DiffOptions{MaxPatch: 100})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]FileChange{}
	for _, f := range files {
		by[f.Path] = f
	}
	if len(files) != 7 {
		t.Fatalf("%d files: %+v", len(files), files)
	}
	if f := by["a.txt"]; f.Status != "modified" || f.Additions != 2 || f.Deletions != 1 || !f.HasPatch ||
		!strings.HasPrefix(f.Patch, "@@ -1,3 +1,4 @@") || strings.HasSuffix(f.Patch, "\n") {
		t.Errorf("a.txt: %+v", f)
	}
	if f := by[odd]; f.Status != "modified" || f.Patch != "@@ -1 +1 @@\n-x\n+y" {
		t.Errorf("odd name: %+v", f)
	}
	if f := by["gone.txt"]; f.Status != "removed" || f.Deletions != 1 || f.NewOID != ZeroOID {
		t.Errorf("removed: %+v", f)
	}
	if f := by["new.txt"]; f.Status != "added" || f.Additions != 1 || f.OldOID != ZeroOID {
		t.Errorf("added: %+v", f)
	}
	if f := by["d/moved.go"]; f.Status != "renamed" || f.OldPath != "d/move.go" || f.HasPatch {
		t.Errorf("renamed: %+v", f)
	}
	if f := by["bin.dat"]; !f.Binary || f.HasPatch {
		t.Errorf("binary: %+v", f)
	}
	if f := by["big.txt"]; !f.PatchTooLarge || f.HasPatch || f.Additions != 10 {
		t.Errorf("too large: %+v", f)
	}

	// A window reads only some patches; stats come for every file.
	win, err := r.Diff(ctx, c1, c2, DiffOptions{Skip: 1, Max: 2})
	if err != nil || len(win) != 7 {
		t.Fatalf("window: %d %v", len(win), err)
	}
	for i, f := range win {
		inside := i >= 1 && i < 3
		if !inside && f.HasPatch {
			t.Errorf("file %d (%s) outside the window has a patch", i, f.Path)
		}
		if f.Path == "a.txt" && f.Additions != 2 {
			t.Errorf("stats outside the window: %+v", f)
		}
	}

	// A root commit against the empty tree.
	root, err := r.Diff(ctx, EmptyTree, c1, DiffOptions{})
	if err != nil || len(root) != len(base) {
		t.Fatalf("root: %d %v", len(root), err)
	}
	for _, f := range root {
		if f.Status != "added" {
			t.Errorf("root file %+v", f)
		}
	}
	if none, err := r.Diff(ctx, c1, c1, DiffOptions{}); err != nil || len(none) != 0 {
		t.Errorf("no change: %v %v", none, err)
	}

	var b bytes.Buffer
	if err := r.DiffText(ctx, &b, c1, c2); err != nil || !strings.Contains(b.String(), "diff --git a/a.txt b/a.txt") {
		t.Errorf("diff text: %v %s", err, b.String())
	}
}

func TestRevList(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	var ids []string
	parent := ""
	for i := 0; i < 7; i++ {
		parent = commitFiles(t, r, parent, map[string]string{"f": fmt.Sprint(i)})
		ids = append([]string{parent}, ids...)
	}
	page, total, err := r.RevList(ctx, LogOptions{Include: []string{ids[0]}, Skip: 2, Max: 3})
	if err != nil || total != 7 || strings.Join(page, ",") != strings.Join(ids[2:5], ",") {
		t.Errorf("page %v total %d %v", page, total, err)
	}
	page, total, err = r.RevList(ctx, LogOptions{Include: []string{ids[0]}, Exclude: []string{ids[4]}, Reverse: true})
	if err != nil || total != 4 || page[0] != ids[3] || page[3] != ids[0] {
		t.Errorf("reverse range %v total %d %v", page, total, err)
	}
	ahead, behind, err := r.AheadBehind(ctx, ids[4], ids[0])
	if err != nil || ahead != 4 || behind != 0 {
		t.Errorf("ahead %d behind %d %v", ahead, behind, err)
	}
	mb, err := r.MergeBase(ctx, ids[4], ids[0])
	if err != nil || mb != ids[4] {
		t.Errorf("merge base %s %v", mb, err)
	}
	other := commitFiles(t, r, "", map[string]string{"g": "x"})
	if _, err := r.MergeBase(ctx, other, ids[0]); err != ErrNotFound {
		t.Errorf("unrelated: %v", err)
	}
	if _, _, err := r.RevList(ctx, LogOptions{Include: []string{"--all"}}); err != ErrNotFound {
		t.Errorf("an option as a commit: %v", err)
	}
}

func TestLanguageOf(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"main.go", "Go"},
		{"cmd/tool/main.go", "Go"},
		{"src/App.tsx", "TSX"},
		{"lib/x.ts", "TypeScript"},
		{"a.R", "R"},
		{"a.r", "R"},
		{"Makefile", "Makefile"},
		{"build/Makefile.am", "Makefile"},
		{"Dockerfile", "Dockerfile"},
		{"Dockerfile.dev", "Dockerfile"},
		{"CMakeLists.txt", "CMake"},
		{"Gemfile", "Ruby"},
		{"BUILD.bazel", "Starlark"},
		{"styles/site.scss", "SCSS"},
		{"README.md", ""},
		{"data.json", ""},
		{"config.yaml", ""},
		{"notes.txt", ""},
		{"LICENSE", ""},
		{"vendor/github.com/x/y.go", ""},
		{"web/node_modules/react/index.js", ""},
		{"third_party/lib.c", ""},
		{"static/app.min.js", ""},
		{"static/jquery-3.7.1.js", ""},
		{"docs/conf.py", ""},
		{"api/service.pb.go", ""},
		{"gradlew", ""},
		{"dist/bundle.js", ""},
	} {
		if got := LanguageOf(tc.path); got != tc.want {
			t.Errorf("LanguageOf(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if n := len(languageExtensions); n < 100 {
		t.Errorf("only %d extensions", n)
	}
}
