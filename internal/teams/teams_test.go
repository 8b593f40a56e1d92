package teams

import "testing"

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Core Devs!":  "core-devs",
		"  a__b  ":    "a__b",
		"Ops/Infra 2": "ops-infra-2",
		"!!!":         "",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseGrant(t *testing.T) {
	for _, ok := range []string{"", "pull", "triage", "push", "maintain", "admin"} {
		if _, err := ParseGrant(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"read", "write", "owner"} {
		if _, err := ParseGrant(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
