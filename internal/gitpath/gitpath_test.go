package gitpath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// cases are paths and what Verify answers (nil: accepted).
var cases = []struct {
	path    string
	symlink bool
	want    error
}{
	{"README.md", false, nil},
	{"a/b/c.txt", false, nil},
	{".github/workflows/ci.yml", false, nil},
	{".gitignore", false, nil},
	{".gitmodules", false, nil},
	{".git-blame-ignore-revs", false, nil},
	{"git", false, nil},
	{"git~2/x", false, nil},
	{"a.git/x", false, nil},
	{".gitx/y", false, nil},
	{"x/.git.d", false, nil},
	{"dir\\file", false, nil},
	{"ünïcødé/文件", false, nil},
	{"gitmodules", true, nil},
	{"link", true, nil},
	{".gitattributes", true, nil},
	{"a:b", false, nil},

	{"", false, ErrEmpty},
	{"/a", false, ErrEmpty},
	{"a/", false, ErrEmpty},
	{"a//b", false, ErrEmpty},
	{".", false, ErrDot},
	{"..", false, ErrDot},
	{"a/./b", false, ErrDot},
	{"a/../b", false, ErrDot},
	{"a\x00b", false, ErrNUL},
	{strings.Repeat("a/", MaxPath), false, ErrTooLong},

	{".git", false, ErrDotGit},
	{".git/config", false, ErrDotGit},
	{"a/.git/hooks/post-checkout", false, ErrDotGit},
	{".GIT/x", false, ErrDotGit},
	{".Git", false, ErrDotGit},
	{".git./config", false, ErrDotGit},
	{".git /x", false, ErrDotGit},
	{".git. . ./x", false, ErrDotGit},
	{"git~1/x", false, ErrDotGit},
	{"GIT~1/x", false, ErrDotGit},
	{"Git~1.../x", false, ErrDotGit},
	{".g\u200cit/x", false, ErrDotGit},
	{"\ufeff.git/x", false, ErrDotGit},
	{".git\u200d/x", false, ErrDotGit},
	{"\u202e.\u206fG\u200ei\u200fT/x", false, ErrDotGit},
	{".git::$INDEX_ALLOCATION/x", false, ErrDotGit},
	{"git~1::$INDEX_ALLOCATION/x", false, ErrDotGit},
	{".git:stream", false, ErrDotGit},
	{".git\\x", false, ErrDotGit},
	{"a\\.git", false, ErrDotGit},
	{"a\\git~1\\b", false, ErrDotGit},
	{"a/b\\.GIT.\\c", false, ErrDotGit},

	{".gitmodules", true, ErrModules},
	{"sub/.GITMODULES", true, ErrModules},
	{".gitmodules .", true, ErrModules},
	{".gitmodules::$DATA", true, ErrModules},
	{"gitmod~1", true, ErrModules},
	{"GITMOD~4", true, ErrModules},
	{"gi7eba~1", true, ErrModules},
	{"GI7EB~12", true, ErrModules},
	{".g\u200citmodules", true, ErrModules},
	{"a\\.gitmodules", true, ErrModules},
}

func TestVerify(t *testing.T) {
	for _, c := range cases {
		if got := Verify(c.path, c.symlink); !errors.Is(got, c.want) {
			t.Errorf("Verify(%q, symlink=%v) = %v, want %v", c.path, c.symlink, got, c.want)
		}
	}
}

func TestVerifyName(t *testing.T) {
	for _, c := range []struct {
		name    string
		symlink bool
		want    error
	}{
		{"file.txt", false, nil},
		{".gitignore", false, nil},
		{"a/b", false, ErrSlash},
		{"", false, ErrEmpty},
		{".", false, ErrDot},
		{"..", false, ErrDot},
		{".git", false, ErrDotGit},
		{".GIT. ", false, ErrDotGit},
		{"git~1", false, ErrDotGit},
		{"x\\.git", false, ErrDotGit},
		{"nul\x00", false, ErrNUL},
		{".gitmodules", true, ErrModules},
		{".gitmodules", false, nil},
	} {
		if got := VerifyName(c.name, c.symlink); !errors.Is(got, c.want) {
			t.Errorf("VerifyName(%q, %v) = %v, want %v", c.name, c.symlink, got, c.want)
		}
	}
}

// TestAgreesWithGit asks git itself (update-index runs verify_path, with
// core.protectNTFS and core.protectHFS on) about every case without NUL
// or excess length: it must refuse exactly the paths Verify refuses.
func TestAgreesWithGit(t *testing.T) {
	dir := t.TempDir()
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-c", "core.protectNTFS=true", "-c", "core.protectHFS=true"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := git("init", "-q"); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	blob := "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" // the empty blob
	checked := 0
	for _, c := range cases {
		if strings.ContainsRune(c.path, 0) || len(c.path) > MaxPath || c.path == "" {
			continue
		}
		mode := "100644"
		if c.symlink {
			mode = "120000"
		}
		os.Remove(filepath.Join(dir, ".git", "index"))
		out, err := git("update-index", "--add", "--cacheinfo", mode+","+blob+","+c.path)
		gitOK := err == nil
		if gitOK != (c.want == nil) {
			t.Errorf("path %q (symlink=%v): git accepts=%v (%s), Verify says %v", c.path, c.symlink, gitOK, strings.TrimSpace(out), c.want)
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d cases checked against git", checked)
	}
}

// FuzzVerifyPath checks properties any accepted path must have, whatever
// the implementation: no empty, "." or ".." component, no NUL, and no
// component that a case-insensitive filesystem, NTFS (trailing dots and
// spaces dropped, streams after a colon, 8.3 names, backslashes) or HFS+
// (ignorable code points dropped) would fold to ".git".
func FuzzVerifyPath(f *testing.F) {
	for _, c := range cases {
		f.Add(c.path, c.symlink)
	}
	for _, s := range []string{".git./config", ".git /x", "git~1/x", "GIT~1/x", ".g\u200cit/x", "\ufeff.git/x", ".git::$INDEX_ALLOCATION/x"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, p string, symlink bool) {
		err := Verify(p, symlink)
		if err != nil {
			return
		}
		if strings.ContainsRune(p, 0) || len(p) > MaxPath {
			t.Fatalf("accepted %q", p)
		}
		for _, name := range strings.Split(p, "/") {
			if name == "" || name == "." || name == ".." {
				t.Fatalf("accepted %q with component %q", p, name)
			}
			if err := VerifyName(name, symlink); err != nil {
				t.Fatalf("accepted %q but not its component %q: %v", p, name, err)
			}
			for _, part := range strings.Split(name, "\\") {
				if k := folded(part); k == ".git" || k == "git~1" {
					t.Fatalf("accepted %q whose component %q folds to %q", p, name, k)
				}
			}
		}
	})
}

// folded is a name as NTFS or HFS+ might see it: ignorable code points
// dropped, a stream suffix and trailing dots and spaces cut, ASCII lower
// case.
func folded(s string) string {
	if !utf8.ValidString(s) {
		return ""
	}
	s = strings.Map(func(r rune) rune {
		if hfsIgnoredSet[r] {
			return -1
		}
		return r
	}, s)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(strings.TrimRight(s, ". "))
}

// hfsIgnoredSet is the list of ignorable code points, written out again
// independently of the implementation.
var hfsIgnoredSet = map[rune]bool{
	0x200c: true, 0x200d: true, 0x200e: true, 0x200f: true, 0x202a: true, 0x202b: true, 0x202c: true,
	0x202d: true, 0x202e: true, 0x206a: true, 0x206b: true, 0x206c: true, 0x206d: true, 0x206e: true,
	0x206f: true, 0xfeff: true,
}
