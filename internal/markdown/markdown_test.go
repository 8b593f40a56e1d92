package markdown

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fakeResolver knows a few accounts, repositories, issues and commits.
type fakeResolver struct{ calls int }

var (
	fakeAccounts = map[string]struct {
		name string
		org  bool
	}{"mona": {"mona", false}, "octo-org": {"octo-org", true}}
	fakeRepos   = map[string]string{"octo/hello": "octo/hello", "octo/other": "octo/other"} // octo/secret is hidden
	fakeIssues  = map[string]bool{"octo/hello#1": false, "octo/other#3": false, "octo/hello#4": true}
	fakeCommits = map[string]string{
		"octo/hello@a1b2c3d4e5f60718293a4b5c6d7e8f9012345678": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
		"octo/hello@a1b2c3d": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
		"octo/other@b2c3d4e": "b2c3d4e5f60718293a4b5c6d7e8f901234567890",
	}
)

func (f *fakeResolver) Account(_ context.Context, login string) (string, bool, bool, error) {
	f.calls++
	a, ok := fakeAccounts[strings.ToLower(login)]
	return a.name, a.org, ok, nil
}

func (f *fakeResolver) Repo(_ context.Context, full string) (string, bool, error) {
	f.calls++
	n, ok := fakeRepos[strings.ToLower(full)]
	return n, ok, nil
}

func (f *fakeResolver) Issue(_ context.Context, full string, n int64) (bool, bool, error) {
	f.calls++
	pull, ok := fakeIssues[full+"#"+itoa(n)]
	return pull, ok, nil
}

func (f *fakeResolver) Commit(_ context.Context, full, sha string) (string, bool, error) {
	f.calls++
	c, ok := fakeCommits[full+"@"+sha]
	return c, ok, nil
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestGolden renders testdata/*.md and compares with the .html next to
// them (go test -update rewrites them). Files named *.gfm.md are comments
// in the context of octo/hello.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	if err != nil || len(files) == 0 {
		t.Fatal("no golden files", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			o := Options{Web: "https://hub.example"}
			if strings.HasSuffix(f, ".gfm.md") {
				o.Comment, o.Context, o.Resolver = true, "octo/hello", &fakeResolver{}
			}
			got, err := Render(context.Background(), string(src), o)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".md") + ".html"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", f, golden, got, want)
			}
		})
	}
}

// TestSanitized checks the promises of the sanitizer on every golden file
// and on hostile inputs: no script, no event handler, no javascript: URL.
func TestSanitized(t *testing.T) {
	inputs := []string{
		`<scr<script>ipt>alert(1)</script>`,
		`<a href="JaVaScRiPt:alert(1)">x</a>`,
		`<a href="java&#x09;script:alert(1)">x</a>`,
		`<img src=x onerror=alert(1)//>`,
		`<svg onload=alert(1)></svg>`,
		`<math><mi xlink:href="javascript:alert(1)">x</mi></math>`,
		`[x](javascript&#58;alert(1))`,
		`<a href="&#106;avascript:alert(1)">x</a>`,
		"<div onclick\n=alert(1)>x</div>",
		`<object data="x.swf"></object><embed src="x.swf"><base href="https://evil">`,
		`<meta http-equiv="refresh" content="0;url=https://evil">`,
	}
	files, _ := filepath.Glob("testdata/*.md")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		out, err := Render(context.Background(), in, Options{Comment: true, Context: "octo/hello", Resolver: &fakeResolver{}})
		if err != nil {
			t.Fatal(err)
		}
		low := strings.ToLower(out)
		for _, bad := range []string{"<script", "javascript:", "onerror", "onclick", "onload", "onmouseover", "<iframe", "<style", "<object", "<embed", "<base", "<meta", "<svg", "<form", `style="`} {
			if strings.Contains(low, bad) {
				t.Errorf("%q rendered %q, which contains %q", in, out, bad)
			}
		}
	}
}

func TestScan(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // the references' texts
	}{
		{"hi @mona!", []string{"@mona"}},
		{"a@mona.dev", nil},
		{"@mona/team", nil},
		{"@-bad @ok- @a--b", []string{"@ok"}},
		{"#12, (#3) #0 #x1 a#4 &#35;5", []string{"#12", "#3"}},
		{"o/r#9 o/r.js#10. o/r@abcdef1 x/o/r#1", []string{"o/r#9", "o/r.js#10", "o/r@abcdef1"}},
		{"abcdef1 abcdef 0123456789abcdef0123456789abcdef01234567 abcdefg1 deadbeef.", []string{"abcdef1", "0123456789abcdef0123456789abcdef01234567", "deadbeef"}},
		{"and/or", nil},
	} {
		var got []string
		for _, r := range scanRefs(c.in, true) {
			got = append(got, c.in[r.start:r.end])
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("scan(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Without a context repository, #N and bare SHAs mean nothing.
	if refs := scanRefs("#1 abcdef1 @mona o/r#2", false); len(refs) != 2 {
		t.Errorf("without context: %v", refs)
	}
}

func TestLookupsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		b.WriteString("@user" + itoa(int64(i)) + " #" + itoa(int64(i+1)) + " ")
	}
	f := &fakeResolver{}
	if _, err := Render(context.Background(), b.String(), Options{Comment: true, Context: "octo/hello", Resolver: f}); err != nil {
		t.Fatal(err)
	}
	if f.calls > maxLookups {
		t.Fatalf("%d lookups", f.calls)
	}
}

type failingResolver struct{ fakeResolver }

func (*failingResolver) Account(context.Context, string) (string, bool, bool, error) {
	return "", false, false, errors.New("database down")
}

func TestResolverErrors(t *testing.T) {
	if _, err := Render(context.Background(), "@mona", Options{Comment: true, Resolver: &failingResolver{}}); err == nil {
		t.Fatal("no error")
	}
	// Documents do not look references up at all.
	if _, err := Render(context.Background(), "@mona", Options{Resolver: &failingResolver{}}); err != nil {
		t.Fatal(err)
	}
}

func TestHTML(t *testing.T) {
	for src, want := range map[string]string{
		"**bold**":                "<p><strong>bold</strong></p>",
		"~~gone~~":                "<del>gone</del>",
		"- [x] done":              `<input type="checkbox" class="task-list-item-checkbox" disabled="" checked="">`,
		"| a |\n|---|\n| 1 |":     "<table>",
		"see https://x.dev/a":     `<a href="https://x.dev/a" rel="nofollow">`,
		"<script>x</script>\n\ny": "<p>y</p>",
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

// doc20k is a 20 KB document mixing what issues and READMEs contain.
func doc20k() string {
	block := `## Section heading

Some **bold**, some _emphasis_, ` + "`code`" + ` and a [link](https://example.com/page).
Thanks @mona for #1 and a1b2c3d; see octo/other#3 and https://example.org/x.

- [x] done item
- [ ] open item with ~~strike~~

| Column | Other |
|--------|------:|
| cell   | 12    |

` + "```go\nfunc main() { println(\"hi\") }\n```" + `

> A quote with <kbd>Ctrl</kbd> and <b onclick="x()">raw html</b>.

`
	var b strings.Builder
	for b.Len() < 20<<10 {
		b.WriteString(block)
	}
	return b.String()
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
