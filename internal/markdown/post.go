package markdown

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// edit changes one token of the sanitized HTML; the tokens between edits
// are copied as they are.
type edit struct {
	start, end int    // the token's bytes
	text       string // what replaces them
	refs       []ref  // references in text, linked once resolved
	anchor     string // written after the token (a heading's anchor)
	ownID      bool   // a heading that has an id of its own (and no anchor)
}

// prepared is a document rendered up to its references: the sanitized
// HTML and the edits that the last pass makes to it. It holds nothing that
// depends on the reader, so the cache may share it between readers; the
// references are resolved and linked for each reader by assemble.
type prepared struct {
	html   []byte
	edits  []edit
	refs   []ref  // every reference of every edit, in order
	static string // the finished HTML when there are no references
}

// size is roughly the memory a prepared document holds.
func (p *prepared) size() int {
	n := len(p.html) + len(p.static) + 64
	for _, e := range p.edits {
		n += 96 + len(e.text) + len(e.anchor)
	}
	return n + len(p.refs)*96
}

// scan is the pass over sanitized HTML that finds what GitHub adds after
// sanitizing: anchors on headings, user-content- ids, and references in
// comments. Text inside links, code and pre is left alone.
func scan(ctx context.Context, src []byte, o *Options) (*prepared, error) {
	p := &prepared{html: src}
	linkRefs := o.Comment && o.Resolver != nil
	autolinks := o.Autolinks.list()
	if !linkRefs && len(autolinks) == 0 && !bytes.Contains(src, []byte("<h")) && !bytes.Contains(src, []byte("<input")) &&
		!bytes.Contains(src, []byte("id=")) && !bytes.Contains(src, []byte("name=")) && !bytes.Contains(src, []byte("&#3")) {
		p.static = string(src) // nothing to add or change
		return p, nil
	}
	// A heading makes an edit (its anchor): on a document of headings,
	// growing the edits one at a time would cost more than counting.
	p.edits = make([]edit, 0, bytes.Count(src, []byte("<h")))
	z := html.NewTokenizer(bytes.NewReader(src))
	pos := 0
	skip := 0     // depth inside a, code and pre
	heading := -1 // the edit of the open heading's start tag
	level := ""   // its tag name
	var title []byte
	slugs := map[string]int{}
	for n := 0; ; n++ {
		if n%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		start, end := pos, pos+len(raw)
		pos = end
		switch tt {
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			if checkboxTags[string(raw)] {
				continue // as the renderer draws them
			}
			name, hasAttr := z.TagName()
			n, ok := tagNames[string(name)]
			if !ok {
				n = string(name)
			}
			switch {
			case n == "input":
				// Only the task list checkboxes the renderer draws survive.
				if !hasAttr || !taskCheckbox(z) {
					p.edits = append(p.edits, edit{start: start, end: end})
				}
				continue
			case n == "a" || n == "code" || n == "pre":
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			}
			heads := len(n) == 2 && n[0] == 'h' && n[1] >= '1' && n[1] <= '6'
			ids := hasAttr && (bytes.Contains(raw, []byte("id=")) || bytes.Contains(raw, []byte("name=")))
			switch {
			case heads && tt == html.StartTagToken && heading < 0:
				heading, level, title = len(p.edits), n, title[:0]
				// The anchor goes after the tag, which stays as it is
				// unless it has ids.
				e := edit{start: end, end: end, ownID: bytes.Contains(raw, []byte(" id="))}
				if ids {
					e.start, e.text = start, namespaceIDs(z, tt, n)
				}
				p.edits = append(p.edits, e)
			case heads && tt == html.EndTagToken && heading >= 0 && n == level:
				// A heading written in HTML with an id of its own keeps it,
				// without an anchor.
				if !p.edits[heading].ownID {
					p.edits[heading].anchor = headingAnchor(slugs, title)
				}
				heading = -1
			case ids:
				p.edits = append(p.edits, edit{start: start, end: end, text: namespaceIDs(z, tt, n)})
			}
		case html.TextToken:
			var refs []ref
			if linkRefs && skip == 0 {
				refs = scanRefs(raw, o.Context != "")
			}
			if len(autolinks) > 0 && skip == 0 {
				refs = mergeRefs(refs, scanAutolinks(raw, autolinks))
			}
			if len(refs) > 0 || bytes.Contains(raw, []byte("&#3")) {
				// Text with references is tidied piecewise when it is
				// written, so that the references' offsets stay right.
				text := string(raw)
				if len(refs) == 0 {
					text = tidyText(text)
				}
				p.refs = append(p.refs, refs...)
				p.edits = append(p.edits, edit{start: start, end: end, text: text, refs: refs})
			}
			if heading >= 0 {
				title = append(title, z.Text()...) // unescapes raw in place: last
			}
		}
	}
	if len(p.refs) == 0 {
		p.static = p.assemble(nil, o)
		p.edits = nil
	}
	return p, nil
}

// finish links a prepared document's references for the reader o
// describes.
func (p *prepared) finish(ctx context.Context, o *Options) (string, error) {
	if len(p.refs) == 0 {
		return p.static, nil
	}
	rs, err := resolve(ctx, o, p.refs)
	if err != nil {
		return "", err
	}
	return p.assemble(rs, o), nil
}

// assemble writes the HTML with the edits made.
func (p *prepared) assemble(rs *resolved, o *Options) string {
	src := p.html
	size := len(src) + len(src)/8
	if rs == nil {
		size = len(src)
		for _, e := range p.edits {
			size += len(e.text) + len(e.anchor) - (e.end - e.start)
		}
	}
	var b strings.Builder
	b.Grow(size)
	at := 0
	for _, e := range p.edits {
		b.Write(src[at:e.start])
		at = e.end
		if len(e.refs) == 0 {
			b.WriteString(e.text)
			b.WriteString(e.anchor)
			continue
		}
		from := 0
		for _, r := range e.refs {
			l := rs.link(o, e.text[r.start:r.end], r)
			if l == "" {
				continue
			}
			b.WriteString(tidyText(e.text[from:r.start]))
			b.WriteString(l)
			from = r.end
		}
		b.WriteString(tidyText(e.text[from:]))
	}
	b.Write(src[at:])
	return b.String()
}

// namespaceIDs rewrites the tag being read with its id and name values
// prefixed by user-content-, as GitHub keeps user ids from clobbering the
// page's own.
func namespaceIDs(z *html.Tokenizer, tt html.TokenType, name string) string {
	var b strings.Builder
	b.WriteString("<" + name)
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		val := string(v)
		if (string(k) == "id" || string(k) == "name") && !strings.HasPrefix(val, userContent) {
			val = userContent + val
		}
		b.WriteString(" " + string(k) + `="` + html.EscapeString(val) + `"`)
	}
	if tt == html.SelfClosingTagToken {
		b.WriteString("/")
	}
	b.WriteString(">")
	return b.String()
}

const userContent = "user-content-"

// checkboxTags are the task list checkboxes exactly as the renderer draws
// them and the sanitizer keeps them.
var checkboxTags = map[string]bool{
	`<input type="checkbox" class="task-list-item-checkbox" disabled="">`:            true,
	`<input type="checkbox" class="task-list-item-checkbox" disabled="" checked="">`: true,
}

// tagNames spares scan a string for each tag's name.
var tagNames = func() map[string]string {
	m := map[string]string{}
	for _, e := range allowedElements {
		m[e] = e
	}
	return m
}()

// taskCheckbox reports whether the input tag being read is a task list
// checkbox.
func taskCheckbox(z *html.Tokenizer) bool {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "class" && string(v) == "task-list-item-checkbox" {
			return true
		}
		if !more {
			return false
		}
	}
}

// tidyText undoes the sanitizer's escaping of quotes in text, where HTML
// needs none.
func tidyText(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	return quotes.Replace(s)
}

var quotes = strings.NewReplacer("&#39;", "'", "&#34;", "&quot;")

// headingAnchor is GitHub's permalink anchor for a heading: its text in
// lower case, without punctuation, spaces as hyphens, numbered when the
// document already has it; ids carry GitHub's user-content- prefix.
func headingAnchor(seen map[string]int, title []byte) string {
	var buf [64]byte
	b := buf[:0]
	for _, r := range string(bytes.TrimSpace(title)) {
		switch {
		case r < utf8.RuneSelf:
			switch c := byte(r); {
			case 'A' <= c && c <= 'Z':
				b = append(b, c+'a'-'A')
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_':
				b = append(b, c)
			case c == ' ':
				b = append(b, '-')
			}
		default:
			r = unicode.ToLower(r)
			if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) {
				b = utf8.AppendRune(b, r)
			}
		}
	}
	if len(b) == 0 {
		return ""
	}
	var slug string
	if n := seen[string(b)]; n > 0 {
		seen[string(b)] = n + 1
		slug = string(strconv.AppendInt(append(b, '-'), int64(n), 10))
	} else {
		slug = string(b)
		seen[slug] = 1
	}
	// Letters, digits, "-" and "_" need no escaping.
	return `<a id="user-content-` + slug + `" class="anchor" aria-hidden="true" tabindex="-1" href="#` + slug + `"></a>`
}
