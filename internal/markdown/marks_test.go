package markdown

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// FuzzSanitize: sanitize, with or without marks, gives exactly what the
// sanitizer gives, on rendered documents and on any HTML.
func FuzzSanitize(f *testing.F) {
	for _, s := range seeds(f) {
		var b bytes.Buffer
		if err := comment.Convert([]byte(s), &b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.String())
		f.Add(s)
	}
	for _, s := range []string{
		"<p>a &amp<li>b</li>&#12</p>&#x<td>&#1<tr>&lt</tr>",
		"<a>x</a><li>y</li></a>", "<a href=\"javascript:x\"><p>y</p></a></p>",
		"<input><li>x</li></input>", "<script><p>x</p></script><p>y</p>", "<style><li>",
		"<object><p>x</p><td>y</td></object><p>z</p>", "<title><p>x</p></title>",
		"<!-- <p> --><p>x</p>", "<p>a\r<p>\nb</p>", "<p>\x00A</p>", "</<p>x</p>", "<<p>x",
		"<li class=\"task-list-item\"><input type=\"checkbox\" class=\"task-list-item-checkbox\" disabled=\"\"> a</li>",
		"<plaintext><p>x", "<textarea><p></textarea><p>", "<p>" + strings.Repeat("<td>&quot;'x\"", 50),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		want := string(sanitizer.SanitizeBytes([]byte(src)))
		if got := string(sanitizeMarked([]byte(src))); got != want {
			t.Fatalf("%q:\nmarked    %q\nsanitizer %q", src, got, want)
		}
		if got := string(sanitize([]byte(src))); got != want {
			t.Fatalf("%q:\nsanitize  %q\nsanitizer %q", src, got, want)
		}
	})
}

// TestSanitizeMarks: the marks spare the sanitizer the renderer's tags.
func TestSanitizeMarks(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"<h1>a</h1>\n<p>b &amp; c</p>", "<h1>a</h1>\n<p>b &amp; c</p>"},
		{"<p>&quot;'</p>", "<p>&#34;&#39;</p>"},
		{"<p><a href=\"javascript:x\">y</a></p>", "<p>y</p>"},
		{"<p><code class=\"language-go\">x</code></p>", "<p><code>x</code></p>"},
		{"<ul class=\"contains-task-list\">\n<li class=\"task-list-item\"><input type=\"checkbox\" class=\"task-list-item-checkbox\" disabled=\"\"> a</li>\n</ul>",
			"<ul class=\"contains-task-list\">\n<li class=\"task-list-item\"><input type=\"checkbox\" class=\"task-list-item-checkbox\" disabled=\"\"> a</li>\n</ul>"},
		{"<p>x<script>alert(1)</script></p>", "<p>x</p>"},
		{"<p>\x00A</p>", "<p>\x00A</p>"},
	} {
		if got := string(sanitizeMarked([]byte(c.src))); got != c.want {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
	}
}

// TestMarked: the renderer's own tags are marked, so that the sanitizer
// sees none of them; anything that makes the sanitizer's state matter is
// left to it whole.
func TestMarked(t *testing.T) {
	render := func(src string) []byte {
		var b bytes.Buffer
		if err := comment.Convert([]byte(src), &b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, src := range []string{
		"- [ ] a\n- [x] b\n",
		"# a\n\nb\n=\n\n> *c* **d** ~~e~~\n\n1. f\n2. `g`\n",
		"| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n|\n",
	} {
		m, _, ok := mark(render(src), nil)
		if !ok || bytes.IndexByte(m, '<') >= 0 {
			t.Errorf("%q: marked %q, %v", src, m, ok)
		}
	}
	for _, src := range []string{"a <!-- b --> *c*", "<object>*a*</object>", "*a* <x-y>b</x-y>", ""} {
		if m, _, ok := mark(render(src), nil); ok {
			t.Errorf("%q: marked %q", src, m)
		}
	}
	if m, _, ok := mark([]byte("<p>a\x00A</p>"), nil); ok {
		t.Errorf("NUL: marked %q", m)
	}
}

// TestHeadingAnchorSlugs: anchors are GitHub's slugs, numbered from the
// second use, for any text.
func TestHeadingAnchorSlugs(t *testing.T) {
	// slug is the definition: lower case, letters, numbers, marks, "-" and
	// "_" kept, spaces as hyphens, the rest dropped.
	slug := func(title string) string {
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	seen := map[string]int{}
	want := map[string]int{}
	for _, title := range []string{
		"Getting Started", "Getting Started", "  What's new in v2.0? ", "Ünïcode & Friends!", "ÀÉÎ ΣΑΣ İx",
		"a-1", "a", "a", "A", "x_y Z9", "!!!", "", "e\u0301\u0301 \u00a0x", "\xff\xfeab", "日本語 テキスト",
	} {
		s := slug(title)
		got := headingAnchor(seen, []byte(title))
		if s == "" {
			if got != "" {
				t.Errorf("%q: anchor %q, want none", title, got)
			}
			continue
		}
		if n := want[s]; n > 0 {
			want[s] = n + 1
			s += "-" + strconv.Itoa(n)
		} else {
			want[s] = 1
		}
		if w := `<a id="user-content-` + s + `" class="anchor" aria-hidden="true" tabindex="-1" href="#` + s + `"></a>`; got != w {
			t.Errorf("%q: anchor %q, want %q", title, got, w)
		}
	}
}

// TestSanitizeCopies: sanitize never gives back its input, whose buffer
// the renderer reuses.
func TestSanitizeCopies(t *testing.T) {
	for _, s := range []string{"\n", "  ", "<p>a</p>\n", "text"} {
		src := []byte(s)
		out := sanitize(src)
		want := string(out)
		for i := range src {
			src[i] = 'x'
		}
		if string(out) != want {
			t.Errorf("%q: sanitized %q shares the input", s, want)
		}
	}
}
