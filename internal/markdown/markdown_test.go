package markdown

import (
	"strings"
	"testing"
)

func TestHTML(t *testing.T) {
	for src, want := range map[string]string{
		"**bold**":            "<p><strong>bold</strong></p>",
		"~~gone~~":            "<del>gone</del>",
		"- [x] done":          `<input checked="" disabled="" type="checkbox"`,
		"| a |\n|---|\n| 1 |": "<table>",
		"see https://x.dev/a": `<a href="https://x.dev/a">`,
		"<script>x</script>":  "<!-- raw HTML omitted -->",
	} {
		if got := HTML(src); !strings.Contains(got, want) {
			t.Errorf("HTML(%q) = %q, want it to contain %q", src, got, want)
		}
	}
}

func TestText(t *testing.T) {
	if got := Text("# Title\n\nSome *text* &amp; more"); got != "Title\nSome text & more" {
		t.Fatalf("%q", got)
	}
}
