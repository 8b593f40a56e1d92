// Package codeowners reads a repository's CODEOWNERS file as GitHub does:
// the first of .github/CODEOWNERS, CODEOWNERS and docs/CODEOWNERS on a
// revision; each line a gitignore-like pattern and its owners (@user,
// @org/team or an email address); the last line matching a path decides
// its owners. It also says which lines are wrong (the codeowners/errors
// operation), and the services that request and enforce code owner
// reviews ask it who owns the files a pull request changes.
package codeowners

import (
	"regexp"
	"strconv"
	"strings"
)

// Paths are where GitHub looks for the file, in order.
var Paths = []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}

// Owner kinds.
const (
	KindUser  = "user"
	KindTeam  = "team"
	KindEmail = "email"
)

// Owner is one owner as written: a user's login, an organization's team
// (Org and Slug) or an email address.
type Owner struct {
	Kind      string
	Text      string // as written ("@mona", "@octo/docs", "a@b.c")
	Login     string
	Org, Slug string
	Email     string
	column    int
}

// Rule is one line with a pattern: the owners of the paths it matches
// (none: those paths have no owner).
type Rule struct {
	Line    int
	Pattern string
	Owners  []Owner
	re      *regexp.Regexp
}

// Error is one problem of a line, in GitHub's words: Kind is "Invalid
// pattern", "Invalid owner" or "Unknown owner"; Column is 1-based.
type Error struct {
	Line, Column int
	Kind         string
	Source       string
	Suggestion   string // "" for none
	Path         string
}

// Message lays the error out as GitHub does: what and where, then the
// line with a caret under the column.
func (e Error) Message() string {
	head := e.Kind + " on line " + strconv.Itoa(e.Line) + ":"
	if e.Suggestion != "" {
		head += " " + e.Suggestion
	}
	return head + "\n\n  " + e.Source + "\n  " + strings.Repeat(" ", max(e.Column-1, 0)) + "^"
}

// File is a parsed CODEOWNERS file: its rules in order and the syntax
// errors of the lines left out.
type File struct {
	Path   string
	Rules  []Rule
	Errors []Error
	lines  []string
}

var (
	loginRe = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9])*$`)
	slugRe  = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	emailRe = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
)

// Parse reads a CODEOWNERS file found at path. A line with a bad pattern
// is left out; a bad owner is left out of its line.
func Parse(path string, data []byte) *File {
	f := &File{Path: path}
	f.lines = strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i, raw := range f.lines {
		n := i + 1
		fields := split(raw)
		if len(fields) == 0 {
			continue
		}
		bad := func(col int, kind, suggestion string) {
			f.Errors = append(f.Errors, Error{Line: n, Column: col, Kind: kind, Source: raw, Suggestion: suggestion, Path: path})
		}
		pat := fields[0]
		re, suggestion := compile(pat.text)
		if re == nil {
			bad(pat.col, "Invalid pattern", suggestion)
			continue
		}
		rule := Rule{Line: n, Pattern: pat.text, re: re}
		for _, fl := range fields[1:] {
			o, ok := owner(fl.text)
			if !ok {
				bad(fl.col, "Invalid owner", "")
				continue
			}
			o.column = fl.col
			rule.Owners = append(rule.Owners, o)
		}
		f.Rules = append(f.Rules, rule)
	}
	return f
}

type field struct {
	text string
	col  int
}

// split cuts a line into its pattern and owners: fields are separated by
// blanks ("\ " keeps a blank in a pattern); "#" at the start of a field
// begins a comment ("\#" is a literal one).
func split(line string) []field {
	var out []field
	var cur strings.Builder
	start := -1
	flush := func() {
		if start >= 0 {
			out = append(out, field{cur.String(), start + 1})
			cur.Reset()
			start = -1
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '#'):
			if start < 0 {
				start = i
			}
			cur.WriteByte('\\')
			cur.WriteByte(line[i+1])
			i++
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && start < 0:
			return out
		default:
			if start < 0 {
				start = i
			}
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}

func owner(s string) (Owner, bool) {
	if name, ok := strings.CutPrefix(s, "@"); ok {
		if org, slug, team := strings.Cut(name, "/"); team {
			if loginRe.MatchString(org) && slugRe.MatchString(slug) {
				return Owner{Kind: KindTeam, Text: s, Org: org, Slug: slug}, true
			}
			return Owner{}, false
		}
		if loginRe.MatchString(name) {
			return Owner{Kind: KindUser, Text: s, Login: name}, true
		}
		return Owner{}, false
	}
	if emailRe.MatchString(s) {
		return Owner{Kind: KindEmail, Text: s, Email: s}, true
	}
	return Owner{}, false
}

// compile turns a pattern into a regular expression over slash-separated
// paths, with gitignore's rules less what GitHub leaves out (negation and
// character ranges): nil and a suggestion for a pattern GitHub refuses.
func compile(p string) (*regexp.Regexp, string) {
	switch {
	case strings.HasPrefix(p, "!"):
		return nil, "Negated patterns are not supported."
	case strings.ContainsAny(p, "[]"):
		return nil, "Character ranges are not supported."
	case p == "/":
		return nil, "The pattern `/` will never match anything, did you mean `*` instead?"
	}
	anchored := strings.HasPrefix(p, "/")
	p = strings.TrimPrefix(p, "/")
	dirOnly := strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if strings.Contains(p, "/") {
		anchored = true
	}
	if p == "" || strings.Contains(p, "//") {
		return nil, ""
	}
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg == "**" {
			if last {
				b.WriteString(".*")
			} else {
				b.WriteString("(?:.*/)?")
			}
			continue
		}
		for j := 0; j < len(seg); j++ {
			switch c := seg[j]; c {
			case '*':
				b.WriteString("[^/]*")
			case '?':
				b.WriteString("[^/]")
			case '\\':
				if j+1 < len(seg) {
					j++
					b.WriteString(regexp.QuoteMeta(seg[j : j+1]))
				}
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		if !last {
			b.WriteString("/")
		}
	}
	switch last := segs[len(segs)-1]; {
	case last == "**":
	case dirOnly:
		b.WriteString("/.*")
	case last == "*" && len(segs) > 1:
		// "docs/*" owns the files directly in docs, not deeper ones.
	default:
		// A name also owns everything beneath a directory of that name.
		b.WriteString("(?:/.*)?")
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, ""
	}
	return re, ""
}

// Match is the rule deciding path's owners (the last matching line), nil
// when none matches.
func (f *File) Match(path string) *Rule {
	path = strings.TrimPrefix(path, "/")
	for i := len(f.Rules) - 1; i >= 0; i-- {
		if f.Rules[i].re.MatchString(path) {
			return &f.Rules[i]
		}
	}
	return nil
}
