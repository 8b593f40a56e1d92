package names

import "testing"

func TestValidLogin(t *testing.T) {
	for _, tc := range []struct {
		in  string
		err error
	}{
		{"octocat", nil}, {"a", nil}, {"a-b-c", nil}, {"A1", nil},
		{"", ErrLoginEmpty}, {"-a", ErrLoginInvalid}, {"a-", ErrLoginInvalid}, {"a--b", ErrLoginInvalid},
		{"a_b", ErrLoginInvalid}, {"a.b", ErrLoginInvalid}, {"Settings", ErrLoginReserved},
		{"abcdefghijabcdefghijabcdefghijabcdefghi", nil}, {"abcdefghijabcdefghijabcdefghijabcdefghij", ErrLoginTooLong},
	} {
		if got := ValidLogin(tc.in); got != tc.err {
			t.Errorf("ValidLogin(%q) = %v, want %v", tc.in, got, tc.err)
		}
	}
}

func TestNormalizeRepo(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"hello", "hello", nil}, {"hello world", "hello-world", nil}, {"a!!b", "a-b", nil},
		{"dots.and_under-scores", "dots.and_under-scores", nil}, {".", "", ErrRepoInvalid},
		{"..", "", ErrRepoInvalid}, {"", "", ErrRepoInvalid}, {"x.git", "", ErrRepoInvalid},
		{"   ", "", ErrRepoInvalid}, {string(make([]byte, 0)) + "é", "", ErrRepoInvalid},
	} {
		got, err := NormalizeRepo(tc.in)
		if got != tc.want || err != tc.err {
			t.Errorf("NormalizeRepo(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzNormalizeRepo(f *testing.F) {
	for _, s := range []string{"hello", "a b", "..", ".git", "é", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NormalizeRepo(s)
		if err != nil {
			return
		}
		if n == "." || n == ".." || len(n) > 100 || repoInvalidRun.MatchString(n) {
			t.Fatalf("NormalizeRepo(%q) = %q: not a valid name", s, n)
		}
		if again, err := NormalizeRepo(n); err != nil || again != n {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", s, n, again, err)
		}
	})
}

func FuzzValidLogin(f *testing.F) {
	for _, s := range []string{"octocat", "-x", "a--b", "ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidLogin(s) != nil {
			return
		}
		if len(s) > 39 || s[0] == '-' || s[len(s)-1] == '-' {
			t.Fatalf("accepted %q", s)
		}
		for _, r := range s {
			if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				t.Fatalf("accepted %q", s)
			}
		}
	})
}
