package gitrepo

import "testing"

func TestValidBranchName(t *testing.T) {
	for _, b := range []string{"main", "feature/x", "v1.2", "a-b_c", "ünïcode"} {
		if !ValidBranchName(b) {
			t.Errorf("%q refused", b)
		}
	}
	for _, b := range []string{"", "HEAD", "-x", "/a", "a/", "a.", "a..b", "a@{1", "@", "a//b", ".hidden", "a/.b", "x.lock", "a/b.lock/c",
		"a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b", "a\x01b", "a\x7fb", string(make([]byte, 256))} {
		if ValidBranchName(b) {
			t.Errorf("%q accepted", b)
		}
	}
}
