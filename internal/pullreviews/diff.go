package pullreviews

import (
	"strconv"
	"strings"
)

// The geometry of one file's patch: every line after the first hunk header
// has a position (1, 2, ...; later hunk headers count too, as GitHub's
// position does), a kind and its line numbers on each side.

type diffLine struct {
	pos      int
	kind     byte // '+', '-', ' ', '@' (hunk header), '\\' (no newline marker)
	old, new int  // line numbers on the LEFT / RIGHT side, 0 when absent
	header   int  // index in lines of this line's hunk header
}

type filePatch struct {
	lines   []string
	entries []diffLine // entries[i] describes lines[i]
}

// parsePatch reads a file's hunks ("@@ ..." on).
func parsePatch(patch string) *filePatch {
	fp := &filePatch{}
	if patch == "" {
		return fp
	}
	fp.lines = strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	var old, nw, header int
	for i, l := range fp.lines {
		e := diffLine{pos: i, header: header}
		switch {
		case strings.HasPrefix(l, "@@"):
			e.kind, e.header, header = '@', i, i
			old, nw = hunkStarts(l)
		case strings.HasPrefix(l, "+"):
			e.kind, e.new = '+', nw
			nw++
		case strings.HasPrefix(l, "-"):
			e.kind, e.old = '-', old
			old++
		case strings.HasPrefix(l, "\\"):
			e.kind = '\\'
		default:
			e.kind, e.old, e.new = ' ', old, nw
			old++
			nw++
		}
		fp.entries = append(fp.entries, e)
	}
	return fp
}

// hunkStarts reads "@@ -a,b +c,d @@".
func hunkStarts(h string) (old, nw int) {
	f := strings.Fields(h)
	if len(f) < 3 {
		return 0, 0
	}
	num := func(s string) int {
		s = strings.TrimLeft(s, "-+")
		s, _, _ = strings.Cut(s, ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	return num(f[1]), num(f[2])
}

// at is the line at position pos (nil for a header or a position outside
// the patch).
func (fp *filePatch) at(pos int) *diffLine {
	if pos <= 0 || pos >= len(fp.entries) {
		return nil
	}
	e := &fp.entries[pos]
	if e.kind == '@' || e.kind == '\\' {
		return nil
	}
	return e
}

// find is the diff line showing line n of side (LEFT: removed or context
// lines by old number; RIGHT: added or context lines by new number).
func (fp *filePatch) find(side string, n int) *diffLine {
	for i := range fp.entries {
		e := &fp.entries[i]
		switch {
		case side == "LEFT" && (e.kind == '-' || e.kind == ' ') && e.old == n:
			return e
		case side != "LEFT" && (e.kind == '+' || e.kind == ' ') && e.new == n:
			return e
		}
	}
	return nil
}

// hunk is GitHub's diff_hunk: the hunk header and the lines up to and
// including e.
func (fp *filePatch) hunk(e *diffLine) string {
	return strings.Join(fp.lines[e.header:e.pos+1], "\n")
}

// firstHunk is the whole first hunk (the diff_hunk of a file comment).
func (fp *filePatch) firstHunk() string {
	end := len(fp.lines)
	for i := 1; i < len(fp.entries); i++ {
		if fp.entries[i].kind == '@' {
			end = i
			break
		}
	}
	return strings.Join(fp.lines[:end], "\n")
}

// sideOf is the side and line number a diff line is commented on when
// only its position is given (context lines count as RIGHT).
func sideOf(e *diffLine) (string, int) {
	if e.kind == '-' {
		return "LEFT", e.old
	}
	return "RIGHT", e.new
}

// lineOn is e's number on side.
func lineOn(e *diffLine, side string) int {
	if side == "LEFT" {
		return e.old
	}
	return e.new
}

// carry follows line n of a file's old version through a patch from old to
// new: its number in the new version, or false when the patch changed it.
func carry(patch string, n int) (int, bool) {
	fp := parsePatch(patch)
	delta := 0
	for i := 0; i < len(fp.entries); i++ {
		e := fp.entries[i]
		if e.kind != '@' {
			continue
		}
		old, nw := hunkStarts(fp.lines[i])
		if n < old {
			return n + delta, true
		}
		// Walk the hunk.
		j := i + 1
		for ; j < len(fp.entries) && fp.entries[j].kind != '@'; j++ {
			x := fp.entries[j]
			if x.kind == ' ' && x.old == n {
				return x.new, true
			}
			if x.kind == '-' && x.old == n {
				return 0, false
			}
			if x.kind == ' ' || x.kind == '-' {
				old = x.old + 1
			}
			if x.kind == ' ' || x.kind == '+' {
				nw = x.new + 1
			}
		}
		delta = nw - old
		i = j - 1
	}
	return n + delta, true
}
