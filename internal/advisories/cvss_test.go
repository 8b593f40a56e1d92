package advisories

import (
	"regexp"
	"testing"
)

// CVSS v3.1 base scores of vectors whose scores FIRST's calculator gives.
func TestCVSS3Score(t *testing.T) {
	for _, c := range []struct {
		vector string
		score  float64
	}{
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10.0},
		{"CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H", 9.9},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", 6.1},
		{"CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", 7.8},
		{"CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N", 5.9},
		{"CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N", 1.6},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N", 0},
		{"CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8},
		{"CVSS:3.1/C:H/I:H/A:H/AV:N/AC:L/PR:N/UI:N/S:U", 9.8}, // any order
	} {
		got, ok := CVSS3Score(c.vector)
		if !ok || got != c.score {
			t.Errorf("%s: %v %v, want %v", c.vector, got, ok, c.score)
		}
	}
	for _, bad := range []string{
		"", "CVSS:3.1/", "CVSS:2.0/AV:N/AC:L/Au:N/C:P/I:P/A:P", "AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
		"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H",          // A missing
		"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/A:H",  // repeated
		"CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",      // bad value
		"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/",     // empty metric
		"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/ZZ:1", // unknown metric
	} {
		if _, ok := CVSS3Score(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
	if s := SeverityOf(9.8); s == nil || *s != "critical" {
		t.Errorf("9.8: %v", s)
	}
	for score, want := range map[float64]string{7: "high", 6.9: "medium", 4: "medium", 3.9: "low", 0.1: "low"} {
		if s := SeverityOf(score); s == nil || *s != want {
			t.Errorf("%v: %v, want %s", score, s, want)
		}
	}
	if SeverityOf(0) != nil {
		t.Error("0.0 has a severity")
	}
}

func TestCVSS4Vectors(t *testing.T) {
	for _, ok := range []string{
		"CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
		"CVSS:4.0/AV:L/AC:H/AT:P/PR:L/UI:A/VC:L/VI:N/VA:N/SC:H/SI:L/SA:N/E:P/MSI:S/U:Amber",
	} {
		if !ValidCVSS4(ok) {
			t.Errorf("%s refused", ok)
		}
	}
	for _, bad := range []string{
		"CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N",       // SA missing
		"CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:R/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",  // UI:R is v3's
		"CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/", // trailing slash
		"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
	} {
		if ValidCVSS4(bad) {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestGHSAIDs(t *testing.T) {
	re := regexp.MustCompile(`^GHSA-[23456789cfghjmpqrvwx]{4}-[23456789cfghjmpqrvwx]{4}-[23456789cfghjmpqrvwx]{4}$`)
	seen := map[string]bool{}
	for range 200 {
		id := NewGHSAID()
		if !re.MatchString(id) || !ValidGHSAID(id) {
			t.Fatalf("bad id %s", id)
		}
		seen[id] = true
	}
	if len(seen) < 199 {
		t.Errorf("ids repeat: %d distinct of 200", len(seen))
	}
	if ValidGHSAID("GHSA-aaaa-bbbb-cccc") || ValidGHSAID("GHSA-2345-6789") {
		t.Error("malformed ids accepted")
	}
}
