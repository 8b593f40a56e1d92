package web

import (
	"bytes"
	"embed"
	"html/template"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

//go:embed tmpl/*.html
var tmplFS embed.FS

// now is the clock of relative dates (a variable for tests).
var now = time.Now

var funcs = template.FuncMap{
	"ago":     ago,
	"plural":  plural,
	"size":    size,
	"short":   func(s string) string { return s[:min(7, len(s))] },
	"summary": summary,
	"details": details,
	"esc":     wire.EscapeContentPath,
	"seg":     url.PathEscape,
	"join":    strings.Join,
	"strs":    func(s ...string) []string { return s },
	"qesc":    url.QueryEscape,
	"icon":    icon,
	"add":     func(a, b int) int { return a + b },
	"list1":   func(l *model.Label) []*model.Label { return []*model.Label{l} },
	"list2":   func(a, b any) []any { return []any{a, b} },
	"pct": func(part, total int) int {
		if total == 0 {
			return 0
		}
		return part * 100 / total
	},
	"color": labelStyle,
	"assoc": func(a string) string {
		// OWNER → Owner, as GitHub labels a comment's author.
		if a == "" || a == "NONE" {
			return ""
		}
		return a[:1] + strings.ToLower(strings.ReplaceAll(a[1:], "_", " "))
	},
}

// pages are the page templates, each the layout plus its "content".
var pages = func() map[string]*template.Template {
	layout := template.Must(template.New("").Funcs(funcs).ParseFS(tmplFS, "tmpl/layout.html"))
	entries, err := tmplFS.ReadDir("tmpl")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".html")
		if name == "layout" {
			continue
		}
		out[name] = template.Must(template.Must(layout.Clone()).ParseFS(tmplFS, "tmpl/"+e.Name()))
	}
	return out
}()

// labelStyle draws a label in its colour, with dark or light text as the
// colour needs. Colours are six hex digits (the API validates them);
// anything else is drawn grey rather than written into a style.
func labelStyle(c string) template.CSS {
	v, err := strconv.ParseUint(c, 16, 32)
	if len(c) != 6 || err != nil {
		c, v = "d1d9e0", 0xd1d9e0
	}
	r, g, b := v>>16, v>>8&0xff, v&0xff
	text := "#1f2328"
	if (r*299+g*587+b*114)/1000 < 140 {
		text = "#ffffff"
	}
	return template.CSS("background:#" + c + ";color:" + text)
}

// ago is a date as people read it ("3 days ago"), with the exact UTC time
// in its title.
func ago(t time.Time) template.HTML {
	if t.IsZero() {
		return ""
	}
	d := now().Sub(t)
	var s string
	switch {
	case d < -24*time.Hour:
		// The future (a milestone's due date): the day it falls on.
		s = "on " + t.UTC().Format("Jan 2, 2006")
	case d < -time.Hour:
		s = "in " + plural(int(-d/time.Hour), "hour")
	case d < 0:
		s = "in " + plural(max(1, int(-d/time.Minute)), "minute")
	case d < time.Minute:
		s = "just now"
	case d < time.Hour:
		s = plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		s = plural(int(d/time.Hour), "hour") + " ago"
	case d < 48*time.Hour:
		s = "yesterday"
	case d < 30*24*time.Hour:
		s = plural(int(d/(24*time.Hour)), "day") + " ago"
	case t.Year() == now().Year():
		s = "on " + t.UTC().Format("Jan 2")
	default:
		s = "on " + t.UTC().Format("Jan 2, 2006")
	}
	u := t.UTC()
	return template.HTML(`<time datetime="` + u.Format(time.RFC3339) + `" title="` + u.Format("2006-01-02 15:04:05") + ` UTC">` + s + `</time>`)
}

// irregular plurals of the words the pages count.
var irregular = map[string]string{"repository": "repositories", "branch": "branches", "entry": "entries"}

// plural is "1 comment", "2 comments".
func plural(n int, word string) string {
	if n != 1 {
		if p, ok := irregular[word]; ok {
			word = p
		} else {
			word += "s"
		}
	}
	return strconv.Itoa(n) + " " + word
}

// size is a byte count as people read it.
func size(n int64) string {
	switch {
	case n < 1024:
		return plural(int(n), "byte")
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KB"
	case n < 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GB"
}

// summary is a commit message's first line.
func summary(msg string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return first
}

// details is a commit message after its first line.
func details(msg string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return strings.TrimSpace(rest)
}

// icons are small inline SVGs (no icon font, no symbol a default font may
// lack); each is decorative, so hidden from screen readers.
var icons = map[string]string{
	"dir":    `<path d="M1 3.5C1 2.7 1.7 2 2.5 2h3.6l1.5 1.5h5.9c.8 0 1.5.7 1.5 1.5v7.5c0 .8-.7 1.5-1.5 1.5h-11C1.7 14 1 13.3 1 12.5z" fill="#54aeff"/>`,
	"file":   `<path d="M3.5 1.5h6l3 3v10h-9z" fill="none" stroke="#59636e" stroke-width="1.2"/><path d="M9.5 1.5v3h3" fill="none" stroke="#59636e" stroke-width="1.2"/>`,
	"module": `<rect x="1.5" y="3.5" width="13" height="10" rx="1.5" fill="none" stroke="#59636e" stroke-width="1.2"/><path d="M1.5 6.5h13" stroke="#59636e" stroke-width="1.2"/>`,
	"link":   `<path d="M3.5 1.5h6l3 3v10h-9z" fill="none" stroke="#59636e" stroke-width="1.2"/><path d="M5.5 10.5l4-4M6.5 6.5h3v3" fill="none" stroke="#59636e" stroke-width="1.2"/>`,
	"open":   `<circle cx="8" cy="8" r="6.2" fill="none" stroke="#1a7f37" stroke-width="1.5"/><circle cx="8" cy="8" r="1.5" fill="#1a7f37"/>`,
	"closed": `<circle cx="8" cy="8" r="6.2" fill="none" stroke="#8250df" stroke-width="1.5"/><path d="M5.2 8.2l2 2 3.6-4" fill="none" stroke="#8250df" stroke-width="1.5"/>`,
	"pull":   `<circle cx="4" cy="3.5" r="1.7" fill="none" stroke="#1a7f37" stroke-width="1.3"/><circle cx="4" cy="12.5" r="1.7" fill="none" stroke="#1a7f37" stroke-width="1.3"/><circle cx="12" cy="12.5" r="1.7" fill="none" stroke="#1a7f37" stroke-width="1.3"/><path d="M4 5.2v5.6M12 10.8V6c0-1-.6-1.5-1.5-1.5H8" fill="none" stroke="#1a7f37" stroke-width="1.3"/>`,
	"commit": `<circle cx="8" cy="8" r="2.6" fill="none" stroke="#59636e" stroke-width="1.4"/><path d="M1 8h4.4M10.6 8H15" stroke="#59636e" stroke-width="1.4"/>`,
}

func icon(name string) template.HTML {
	return template.HTML(`<svg class="icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">` + icons[name] + `</svg>`)
}

// relink points the relative links and images of Markdown rendered from a
// file in dir (of a repository at ref) at hubd's pages, as GitHub does:
// links at the file pages (base/blob/ref/...), images at the raw bytes
// (rawBase/ref/...). Absolute URLs, fragments and queries are kept.
func relink(src, dir, base, ref, rawBase string) string {
	if !strings.Contains(src, "href=") && !strings.Contains(src, "src=") {
		return src
	}
	var out bytes.Buffer
	out.Grow(len(src))
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			out.Write(raw)
			continue
		}
		name, hasAttr := z.TagName()
		attr := ""
		switch string(name) {
		case "a":
			attr = "href"
		case "img":
			attr = "src"
		}
		if attr == "" || !hasAttr {
			out.Write(raw)
			continue
		}
		tag := string(name)
		var b strings.Builder
		b.WriteString("<" + tag)
		changed := false
		for {
			k, v, more := z.TagAttr()
			val := string(v)
			if string(k) == attr && tag == "a" && strings.HasPrefix(val, "#") && !strings.HasPrefix(val, "#user-content-") &&
				strings.Contains(src, `id="user-content-`+val[1:]+`"`) {
				// Headings carry namespaced ids (as on GitHub, whose script
				// maps #usage to them); a page without script needs the link
				// itself to name the id.
				val = "#user-content-" + val[1:]
				changed = true
			} else if string(k) == attr {
				if to, ok := relative(val, dir); ok {
					if tag == "img" {
						val = rawBase + "/" + wire.EscapeContentPath(ref) + "/" + to
					} else {
						val = base + "/blob/" + wire.EscapeContentPath(ref) + "/" + to
					}
					changed = true
				}
			}
			b.WriteString(" " + string(k) + `="` + html.EscapeString(val) + `"`)
			if !more {
				break
			}
		}
		if !changed {
			out.Write(raw)
			continue
		}
		if tt == html.SelfClosingTagToken {
			b.WriteString(" /")
		}
		b.WriteString(">")
		out.WriteString(b.String())
	}
	return out.String()
}

// relative resolves a link relative to dir within the repository: the
// escaped path with its query and fragment, or false for absolute URLs,
// fragments and links that leave the repository.
func relative(link, dir string) (string, bool) {
	if link == "" || link[0] == '#' || link[0] == '/' || link[0] == '?' {
		return "", false
	}
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
		return "", false
	}
	p := path.Clean(path.Join("/", dir, u.Path))
	if p == "/" {
		return "", false
	}
	s := wire.EscapeContentPath(strings.TrimPrefix(p, "/"))
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		s += "#" + url.PathEscape(u.Fragment)
	}
	return s, true
}
