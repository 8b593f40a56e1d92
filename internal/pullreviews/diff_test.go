package pullreviews

import "testing"

const patch = `@@ -2,4 +2,4 @@ l1
 l2
-l3
+L3
 l4
 l5
@@ -20,3 +20,4 @@ l19
 l20
+l20b
 l21
 l22`

func TestParsePatch(t *testing.T) {
	fp := parsePatch(patch)
	for _, tc := range []struct {
		pos       int
		side      string
		line      int
		ok        bool
		hunkLines int
	}{
		{0, "", 0, false, 0}, // the first header
		{1, "RIGHT", 2, true, 2},
		{2, "LEFT", 3, true, 3},
		{3, "RIGHT", 3, true, 4},
		{6, "", 0, false, 0}, // the second header counts as a position
		{8, "RIGHT", 21, true, 3},
		{11, "", 0, false, 0},
	} {
		e := fp.at(tc.pos)
		if (e != nil) != tc.ok {
			t.Fatalf("position %d: found %v", tc.pos, e != nil)
		}
		if e == nil {
			continue
		}
		side, line := sideOf(e)
		if side != tc.side || line != tc.line {
			t.Errorf("position %d: %s %d, want %s %d", tc.pos, side, line, tc.side, tc.line)
		}
		if f := fp.find(side, line); f == nil || f.pos != tc.pos {
			t.Errorf("find %s %d: %+v", side, line, f)
		}
		if n := len(splitLines(fp.hunk(e))); n != tc.hunkLines {
			t.Errorf("position %d: hunk of %d lines, want %d", tc.pos, n, tc.hunkLines)
		}
	}
	if fp.find("RIGHT", 10) != nil || fp.find("LEFT", 21) == nil {
		t.Error("find outside/inside the hunks")
	}
	if fp.firstHunk() != patch[:len("@@ -2,4 +2,4 @@ l1\n l2\n-l3\n+L3\n l4\n l5")] {
		t.Errorf("first hunk %q", fp.firstHunk())
	}
}

func splitLines(s string) []string {
	out, start := []string{}, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out, start = append(out, s[start:i]), i+1
		}
	}
	return append(out, s[start:])
}

func TestCarry(t *testing.T) {
	for _, tc := range []struct {
		n, want int
		ok      bool
	}{
		{1, 1, true},   // before every hunk
		{2, 2, true},   // context
		{3, 0, false},  // removed
		{5, 5, true},   // context after the change
		{10, 10, true}, // between the hunks: the first kept the count
		{20, 20, true},
		{21, 22, true}, // after the insertion
		{30, 31, true}, // after every hunk
	} {
		got, ok := carry(patch, tc.n)
		if got != tc.want || ok != tc.ok {
			t.Errorf("carry %d = %d %v, want %d %v", tc.n, got, ok, tc.want, tc.ok)
		}
	}
}
