package codeowners

import (
	"reflect"
	"strconv"
	"testing"
)

func TestMatch(t *testing.T) {
	f := Parse("CODEOWNERS", []byte(`# comment
*       @global
*.js    @js-owner #inline
/build/logs/ @doctocat
docs/*  docs@example.com
apps/   @octo/apps
/docs/  @doctocat
**/logs @octo/logs
/scripts/ @s1 @s2
/apps/github
\#hash @hash
`))
	if len(f.Errors) != 0 {
		t.Fatalf("errors: %+v", f.Errors)
	}
	for path, want := range map[string]string{
		"README.md":               "@global",
		"src/a.js":                "@js-owner",
		"build/logs/x.txt":        "@octo/logs",
		"build/logs2/x.txt":       "@global",
		"docs/getting-started.md": "@doctocat",
		"src/docs/a.md":           "@global",
		"docs/x/a.md":             "@doctocat",
		"src/docs/deep/a.md":      "@global",
		"x/apps/y.go":             "@octo/apps",
		"deep/logs/a":             "@octo/logs",
		"scripts/a/b.sh":          "@s1 @s2",
		"apps/github/x":           "",
		"#hash":                   "@hash",
	} {
		r := f.Match(path)
		got := ""
		if r != nil {
			for i, o := range r.Owners {
				if i > 0 {
					got += " "
				}
				got += o.Text
			}
		}
		if got != want {
			t.Errorf("%s: owners %q, want %q", path, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	f := Parse(".github/CODEOWNERS", []byte("* user\n!x @a\n/ @b\n[ab] @c\n*.go @ok @@bad\n"))
	var got []string
	for _, e := range f.Errors {
		got = append(got, e.Kind+"@"+itoa(e.Line)+":"+itoa(e.Column))
	}
	want := []string{"Invalid owner@1:3", "Invalid pattern@2:1", "Invalid pattern@3:1", "Invalid pattern@4:1", "Invalid owner@5:10"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("errors %v, want %v", got, want)
	}
	if m := f.Errors[0].Message(); m != "Invalid owner on line 1:\n\n  * user\n    ^" {
		t.Errorf("message %q", m)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
