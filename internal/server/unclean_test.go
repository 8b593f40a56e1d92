package server

import "testing"

func TestUnclean(t *testing.T) {
	for p, want := range map[string]bool{
		"/": false, "/user": false, "/repos/a/b/contents/": false, "/repos/a/b/contents/x.txt": false,
		"/repos/a/b/contents/x/../y": true, "/repos/a/b/contents/./y": true, "/repos//b": true,
		"/repos/a/b/contents/..": true, "/a/.../b": false,
	} {
		if got := unclean(p); got != want {
			t.Errorf("unclean(%q) = %v, want %v", p, got, want)
		}
	}
}
