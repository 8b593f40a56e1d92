package releases

import "testing"

func TestAssetName(t *testing.T) {
	for in, want := range map[string]string{
		"app-linux.tar.gz":     "app-linux.tar.gz",
		"my notes (final).txt": "my.notes.final.txt",
		"a  b.zip":             "a.b.zip",
		".hidden":              "hidden",
		"trailing.":            "trailing",
		"café.txt":             "caf.txt",
		"x+y@1_2.bin":          "x+y@1_2.bin",
		"../../etc/passwd":     "etc.passwd",
		"a/b\\c":               "a.b.c",
		"   ":                  "",
		"..":                   "",
	} {
		if got := AssetName(in); got != want {
			t.Errorf("AssetName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"v1.0.0", "v1.0.0", 0},
		{"v1.0.0", "1.0.0", 0},
		{"v1.2.0", "v1.10.0", -1},
		{"v2", "v1.9.9", 1},
		{"v1.0.0-rc.1", "v1.0.0", -1},
		{"v1.0.0-rc.2", "v1.0.0-rc.10", -1},
		{"v1.0.0-alpha", "v1.0.0-1", 1},
		{"v1.0.0-rc.1", "v1.0.0-rc.1.1", -1},
		{"v1.0.0+build.5", "v1.0.0", 0},
		{"latest", "v0.0.1", -1},
		{"beta", "alpha", 1},
	} {
		if got := compareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := compareVersions(tc.b, tc.a); got != -tc.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}
