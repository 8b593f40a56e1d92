package markdown

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"
)

// allowed are the elements the sanitizer keeps.
var allowed = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`h1 h2 h3 h4 h5 h6 h7 h8 br b i strong em a pre code img tt div ins del sup sub p
		picture ol ul table thead tbody tfoot blockquote dl dt dd kbd q samp var hr ruby rt rp li tr td th s strike
		summary details caption figure figcaption abbr bdo cite dfn mark small source span time wbr input`) {
		allowed[e] = true
	}
}

// checkSafe parses rendered HTML and fails on anything the sanitizer
// promises never to let through: other elements, event handlers, styles,
// scripting URLs.
func checkSafe(t *testing.T, src, out string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		if !allowed[tok.Data] {
			t.Fatalf("%q rendered element %q: %q", src, tok.Data, out)
		}
		for _, a := range tok.Attr {
			k := strings.ToLower(a.Key)
			if strings.HasPrefix(k, "on") || k == "style" {
				t.Fatalf("%q rendered attribute %q: %q", src, a.Key, out)
			}
			if k == "href" || k == "src" || k == "cite" || k == "longdesc" {
				v := strings.ToLower(strings.Map(func(r rune) rune {
					if r <= ' ' {
						return -1
					}
					return r
				}, a.Val))
				for _, bad := range []string{"javascript:", "vbscript:", "data:"} {
					if strings.HasPrefix(v, bad) {
						t.Fatalf("%q rendered %s=%q: %q", src, a.Key, a.Val, out)
					}
				}
			}
		}
	}
}

// seeds are the fuzzers' corpus: ordinary documents, the golden files and
// every pathological input, small.
func seeds(f *testing.F) []string {
	docs := append([]string{}, ordinary...)
	files, _ := filepath.Glob("testdata/*.md")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	for _, p := range pathological(2 << 10) {
		docs = append(docs, p.src)
	}
	return docs
}

// FuzzRender renders anything in both modes: no panic, no error, nothing
// unsafe, and the cache gives what rendering gives.
func FuzzRender(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, gfm bool) {
		o := Options{Web: "https://hub.example"}
		if gfm {
			o.Comment, o.Context, o.Resolver = true, "octo/hello", &fakeResolver{}
		}
		out, err := renderUncached(context.Background(), src, o)
		if err != nil {
			t.Fatal(err)
		}
		checkSafe(t, src, out)
		for range 2 {
			if cached, err := Render(context.Background(), src, o); err != nil || cached != out {
				t.Fatalf("%q: cached %q, %v; want %q", src, cached, err, out)
			}
		}
		_ = Text(src)
	})
}

// FuzzScanRefs: references found in any text lie within it, in order,
// without overlapping, and read as what they are.
func FuzzScanRefs(f *testing.F) {
	for _, s := range []string{"@mona #1 o/r#2 o/r@abcdef1 abcdef1", "a@b.c @-x @x- #0 &#35;1 x/o/r#1", "@" + strings.Repeat("a", 50)} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, ctx bool) {
		end := 0
		for _, r := range scanRefs(s, ctx) {
			if r.start < end || r.end <= r.start || r.end > len(s) {
				t.Fatalf("%q: ref %+v after %d", s, r, end)
			}
			end = r.end
			text := s[r.start:r.end]
			switch r.kind {
			case refUser:
				if text != "@"+r.login {
					t.Fatalf("%q: user %+v", s, r)
				}
			case refIssue:
				_, digits, _ := strings.Cut(text, "#")
				if n, err := strconv.ParseInt(digits, 10, 64); err != nil || n != r.number || !ctx && r.repo == "" {
					t.Fatalf("%q: issue %+v", s, r)
				}
			case refCommit:
				if !strings.HasSuffix(text, r.sha) || !ctx && r.repo == "" {
					t.Fatalf("%q: commit %+v", s, r)
				}
			}
		}
	})
}

// FuzzLinkTail: the link guard reads any block without panicking and puts
// the reader back where it found it.
func FuzzLinkTail(f *testing.F) {
	for _, s := range []string{"[a](b)", "[a](<b>)", "[a](b \"t\")", "[a](b (t))", "[a](\nb\n'x\ny')", "[a](" + strings.Repeat("(", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at := strings.Index(s, "](")
		if at < 0 {
			return
		}
		src := []byte(s)
		var lines text.Segments
		for start := 0; start < len(src); {
			end := bytes.IndexByte(src[start:], '\n')
			if end < 0 {
				end = len(src)
			} else {
				end += start + 1
			}
			lines.Append(text.NewSegment(start, end))
			start = end
		}
		r := text.NewBlockReader(src, &lines)
		for {
			_, seg := r.PeekLine()
			if seg.Stop > at {
				r.Advance(at - seg.Start)
				break
			}
			r.AdvanceLine()
		}
		l, pos := r.Position()
		inlineLinkTail(r)
		if l2, pos2 := r.Position(); l2 != l || pos2 != pos {
			t.Fatalf("%q: reader moved from %d %+v to %d %+v", s, l, pos, l2, pos2)
		}
	})
}
