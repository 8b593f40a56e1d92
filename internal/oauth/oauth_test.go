package oauth

import "testing"

func TestRedirectAllowed(t *testing.T) {
	for _, c := range []struct {
		callback, redirect string
		ok                 bool
	}{
		// GitHub's examples for the callback http://example.com/path.
		{"http://example.com/path", "http://example.com/path", true},
		{"http://example.com/path", "http://example.com/path/subdir/other", true},
		{"http://example.com/path", "http://oauth.example.com/path", true},
		{"http://example.com/path", "http://oauth.example.com/path/subdir/other", true},
		{"http://example.com/path", "http://example.com/bar", false},
		{"http://example.com/path", "http://example.com/", false},
		{"http://example.com/path", "http://example.com:8080/path", false},
		{"http://example.com/path", "http://oauth.example.com:8080/path", false},
		{"http://example.com/path", "http://example.org", false},
		// And what an open redirect would need.
		{"http://example.com/path", "http://example.com/pathology", false},
		{"http://example.com/path", "http://evilexample.com/path", false},
		{"http://example.com/path", "http://example.com.evil.org/path", false},
		{"http://example.com/path", "http://user@example.com/path", false},
		{"http://example.com/path", "http://example.com/path/../bar", false},
		{"http://example.com/path", "http://example.com/path/%2e%2e/bar", false},
		{"http://example.com/path", "https://example.com/path", false},
		{"http://example.com/path", "//example.com/path", false},
		// Loopback callbacks take any loopback host and port.
		{"http://localhost/", "http://127.0.0.1:49152/callback", true},
		{"http://127.0.0.1/callback", "http://[::1]:3000/callback", true},
		{"http://localhost/", "http://localhost.evil.org:3000/", false},
	} {
		if got := RedirectAllowed(c.callback, c.redirect); got != c.ok {
			t.Errorf("RedirectAllowed(%q, %q) = %v, want %v", c.callback, c.redirect, got, c.ok)
		}
	}
}

func TestPKCE(t *testing.T) {
	// RFC 7636, appendix B.
	if got := PKCEChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"); got != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
		t.Errorf("challenge %q", got)
	}
	if !ValidChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "S256") || ValidChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "plain") {
		t.Error("only S256 challenges are valid")
	}
}

func TestClientIDsAndScopes(t *testing.T) {
	for id, ok := range map[string]bool{"178c6fc778ccc68e1d6a": true, "Ov23liABCDEFGHIJKLMN": true, "Iv23liABCDEFGHIJKLMN": true,
		"Iv1.0123456789abcdef": true, "mona": false, "ghp_0123456789abcdef": false} {
		if LooksLikeClientID(id) != ok {
			t.Errorf("LooksLikeClientID(%q) != %v", id, ok)
		}
	}
	if got := NormalizeScopes("repo read:org,gist repo bogus"); got != "repo,read:org,gist" {
		t.Errorf("scopes %q", got)
	}
}
