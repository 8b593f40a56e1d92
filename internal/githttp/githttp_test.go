package githttp

import (
	"testing"
)

func TestMatch(t *testing.T) {
	for path, want := range map[string][3]string{
		"/mona/hello.git/info/refs":         {"mona", "hello", "info/refs"},
		"/mona/hello/info/refs":             {"mona", "hello", "info/refs"},
		"/mona/hello.git/git-upload-pack":   {"mona", "hello", "git-upload-pack"},
		"/mona/hello/git-receive-pack":      {"mona", "hello", "git-receive-pack"},
		"/mona/a.b-c_d.git/git-upload-pack": {"mona", "a.b-c_d", "git-upload-pack"},
	} {
		o, n, a, ok := Match(path)
		if !ok || o != want[0] || n != want[1] || a != want[2] {
			t.Errorf("%s: %q %q %q %v", path, o, n, a, ok)
		}
	}
	for _, path := range []string{"/info/refs", "/mona/info/refs", "/a/b/c/info/refs", "/repos/x/y", "/mona/hello.git"} {
		if _, _, _, ok := Match(path); ok {
			t.Errorf("%s matched", path)
		}
	}
}
