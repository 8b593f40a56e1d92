package markdown

import (
	"html"
	"strings"
)

// Autolink is a repository's autolink reference: Prefix (matched in any
// case) followed by a number links to Template with <num> replaced by it.
// Alphanumeric numbers are letters, digits and hyphens; others digits.
// Only the first <num> is replaced, as GitHub does.
type Autolink struct {
	Prefix, Template string
	Alphanumeric     bool
}

// AutolinkSet is a list of autolinks in one comparable string, so that
// options and response formats holding one stay usable as cache keys.
type AutolinkSet string

// EncodeAutolinks makes the set of list.
func EncodeAutolinks(list []Autolink) AutolinkSet {
	var b strings.Builder
	for _, a := range list {
		kind := "0"
		if a.Alphanumeric {
			kind = "1"
		}
		b.WriteString(kind + a.Prefix + "\x00" + a.Template + "\x01")
	}
	return AutolinkSet(b.String())
}

func (s AutolinkSet) list() []Autolink {
	var out []Autolink
	for _, part := range strings.Split(string(s), "\x01") {
		if len(part) < 2 {
			continue
		}
		prefix, template, _ := strings.Cut(part[1:], "\x00")
		out = append(out, Autolink{Prefix: prefix, Template: template, Alphanumeric: part[0] == '1'})
	}
	return out
}

// scanAutolinks finds the autolink references in one (HTML-escaped) text
// run: a prefix that starts a word, then its number up to the word's end.
// The longest prefix wins where several match.
func scanAutolinks[T chars](s T, links []Autolink) []ref {
	var out []ref
	for i := 0; i < len(s); i++ {
		if i > 0 && (isWord(s[i-1]) || s[i-1] == '-' || s[i-1] == '/') {
			continue
		}
		best, bestEnd := -1, -1
		for k, a := range links {
			p := len(a.Prefix)
			if p == 0 || i+p > len(s) || !strings.EqualFold(string(s[i:i+p]), a.Prefix) {
				continue
			}
			j := i + p
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || a.Alphanumeric && (isAlnum(s[j]) || s[j] == '-')) {
				j++
			}
			for a.Alphanumeric && j > i+p && s[j-1] == '-' {
				j--
			}
			if j == i+p || (j < len(s) && isWord(s[j])) {
				continue
			}
			if best < 0 || p > len(links[best].Prefix) {
				best, bestEnd = k, j
			}
		}
		if best < 0 {
			continue
		}
		a := links[best]
		num := string(s[i+len(a.Prefix) : bestEnd])
		out = append(out, ref{start: i, end: bestEnd, kind: refAutolink, url: strings.Replace(a.Template, "<num>", num, 1)})
		i = bestEnd - 1
	}
	return out
}

// mergeRefs merges two lists of references ordered by offset, dropping
// those of b that overlap one of a.
func mergeRefs(a, b []ref) []ref {
	if len(b) == 0 {
		return a
	}
	out := make([]ref, 0, len(a)+len(b))
	i := 0
	for _, r := range b {
		for i < len(a) && a[i].start < r.start {
			out = append(out, a[i])
			i++
		}
		if (len(out) > 0 && out[len(out)-1].end > r.start) || (i < len(a) && a[i].start < r.end) {
			continue
		}
		out = append(out, r)
	}
	return append(out, a[i:]...)
}

// autolinkHTML links an autolink reference.
func autolinkHTML(text string, r ref) string {
	return `<a href="` + html.EscapeString(r.url) + `">` + text + "</a>"
}
