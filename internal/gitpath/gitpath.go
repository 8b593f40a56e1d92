// Package gitpath holds git's rules for the paths and names of tree entries:
// the paths git refuses to check out (verify_path with core.protectNTFS and
// core.protectHFS on, as git sets them on every platform that needs them)
// and the tree entry names `git fsck` reports as errors (hasDot, hasDotdot,
// hasDotgit, fullPathname, emptyName, gitmodulesSymlink). Every path hubd
// writes into a tree passes here first: a tree that names `.git` under any
// alias a filesystem folds to it makes every clone fail.
package gitpath

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Errors. Each is a path git would refuse; callers answer them as GitHub's
// 422 "malformed path component".
var (
	ErrEmpty   = errors.New("gitpath: empty path or path component")
	ErrDot     = errors.New("gitpath: path component is . or ..")
	ErrDotGit  = errors.New("gitpath: path component names .git")
	ErrSlash   = errors.New("gitpath: name contains a slash")
	ErrNUL     = errors.New("gitpath: path contains a NUL byte")
	ErrModules = errors.New("gitpath: symbolic link named .gitmodules")
	ErrTooLong = errors.New("gitpath: path is too long")
)

// MaxPath bounds a path hubd writes (git has no limit, but 4096 is PATH_MAX
// on Linux: a longer path could not be checked out).
const MaxPath = 4096

// Verify checks a slash-separated path of a tree entry; symlink tells
// whether the entry is a symbolic link (mode 120000), which may not be
// named .gitmodules.
func Verify(p string, symlink bool) error {
	if p == "" {
		return ErrEmpty
	}
	if len(p) > MaxPath {
		return ErrTooLong
	}
	if strings.IndexByte(p, 0) >= 0 {
		return ErrNUL
	}
	for {
		name, rest, more := strings.Cut(p, "/")
		if err := component(name, symlink); err != nil {
			return err
		}
		if !more {
			return nil
		}
		p = rest
	}
}

// VerifyName checks one tree entry name, as git fsck does.
func VerifyName(name string, symlink bool) error {
	if strings.IndexByte(name, '/') >= 0 {
		return ErrSlash
	}
	if strings.IndexByte(name, 0) >= 0 {
		return ErrNUL
	}
	return component(name, symlink)
}

// component checks one name between slashes.
func component(name string, symlink bool) error {
	switch name {
	case "":
		return ErrEmpty
	case ".", "..":
		return ErrDot
	}
	if isHFSDotGit(name) || isNTFSDotGit(name) {
		return ErrDotGit
	}
	// NTFS also splits names at backslashes: every part after one is
	// checked as a name of its own.
	for s := name; ; {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			break
		}
		s = s[i+1:]
		if isNTFSDotGit(s) {
			return ErrDotGit
		}
		if symlink && isNTFSDotGeneric(s, "gitmodules", "gi7eba") {
			return ErrModules
		}
	}
	if symlink && (isHFSDotGeneric(name, "gitmodules") || isNTFSDotGeneric(name, "gitmodules", "gi7eba")) {
		return ErrModules
	}
	return nil
}

// IsDotGit reports whether a single name is one that some filesystem git
// supports folds to ".git".
func IsDotGit(name string) bool { return isHFSDotGit(name) || isNTFSDotGit(name) }

// isNTFSDotGit: ".git" or its 8.3 short name "git~1" (any case), followed
// only by dots and spaces (which NTFS drops) up to the end, a backslash or
// a colon (an alternate data stream such as "::$INDEX_ALLOCATION").
func isNTFSDotGit(s string) bool {
	var rest string
	switch {
	case len(s) >= 4 && s[0] == '.' && strings.EqualFold(s[1:4], "git"):
		rest = s[4:]
	case len(s) >= 5 && strings.EqualFold(s[:3], "git") && s[3:5] == "~1":
		rest = s[5:]
	default:
		return false
	}
	return onlyDotsSpacesTill(rest, true)
}

// onlyDotsSpacesTill reports whether s is dots and spaces up to its end or
// a colon (or a backslash when backslash is true).
func onlyDotsSpacesTill(s string, backslash bool) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ':' || (backslash && c == '\\'):
			return true
		case c != '.' && c != ' ':
			return false
		}
	}
	return true
}

// isNTFSDotGeneric is ".<name>" (any case) or one of the short names NTFS
// may give it — the first six letters and ~1..~4, or the fallback form
// made of the first letters of prefix, a tilde and digits — followed only
// by dots and spaces up to the end or a colon.
func isNTFSDotGeneric(s, name, prefix string) bool {
	if len(s) > len(name) && s[0] == '.' && strings.EqualFold(s[1:1+len(name)], name) {
		return onlyDotsSpacesTill(s[1+len(name):], false)
	}
	if len(s) >= 8 && strings.EqualFold(s[:6], name[:6]) && s[6] == '~' && s[7] >= '1' && s[7] <= '4' {
		return onlyDotsSpacesTill(s[8:], false)
	}
	// Fallback short names: up to six characters of prefix, "~" and a
	// digit 1-9, then digits, eight characters in all.
	if len(s) < 8 {
		return false
	}
	sawTilde := false
	for i := 0; i < 8; i++ {
		c := s[i]
		switch {
		case sawTilde:
			if c < '0' || c > '9' {
				return false
			}
		case c == '~':
			i++
			if i >= len(s) || s[i] < '1' || s[i] > '9' {
				return false
			}
			sawTilde = true
		case i >= 6 || c >= 0x80:
			return false
		case lower(c) != prefix[i]:
			return false
		}
	}
	return onlyDotsSpacesTill(s[8:], false)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hfsIgnored are the code points HFS+ drops when it compares names, so
// that ".g\u200cit" is ".git" there.
func hfsIgnored(r rune) bool {
	switch r {
	case 0x200c, 0x200d, 0x200e, 0x200f,
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f,
		0xfeff:
		return true
	}
	return false
}

// nextHFS reads the next code point HFS+ does not ignore from s[i:]; ok is
// false at the end of s or at malformed UTF-8 (which HFS+ would not fold to
// ".git" either).
func nextHFS(s string, i int) (r rune, next int, ok bool) {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return 0, i, false
		}
		i += n
		if !hfsIgnored(r) {
			return r, i, true
		}
	}
	return 0, i, false
}

// isHFSDotGeneric is ".<name>" compared as HFS+ compares names: ignorable
// code points dropped, ASCII case folded.
func isHFSDotGeneric(s, name string) bool {
	r, i, ok := nextHFS(s, 0)
	if !ok || r != '.' {
		return false
	}
	for k := 0; k < len(name); k++ {
		r, i, ok = nextHFS(s, i)
		if !ok || r > 127 || rune(lower(byte(r))) != rune(name[k]) {
			return false
		}
	}
	// Nothing but ignorable code points may follow; git stops at
	// malformed UTF-8 there too, and so counts ".git\xff" as ".git".
	_, _, ok = nextHFS(s, i)
	return !ok
}

func isHFSDotGit(s string) bool { return isHFSDotGeneric(s, "git") }
