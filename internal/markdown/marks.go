package markdown

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/net/html"
)

// The sanitizer's cost is per token, and most tokens of the renderer's
// output are the same few tags: <p>, <li class="task-list-item">, <td>,
// </h1>... On lists, tables and headings it is most of a document. sanitize
// gives what the sanitizer gives while showing it none of those tags: each
// one becomes a mark, a NUL byte and an index, which is text, merges with
// the text around it and goes through as it is; afterwards each mark
// becomes what the sanitizer makes of its tag, worked out once below.
//
// Why the output is the same. bluemonday reads the tokens of
// x/net/html's tokenizer one by one and writes each tag as a function of
// the tag alone, except for its state: content it skips inside script,
// style and other unwanted elements, end tags it skips because their start
// tag was dropped, and the text of script and style. sanitize reads the
// same tokens with the same tokenizer and keeps that state out of the
// picture: it leaves the sanitizer the whole document whenever there is a
// comment, a doctype or any element outside allowedElements (which has no
// script, style, skipped or raw-text element), or a NUL that could pass
// for a mark. What is left of the state is the stack of end tags to skip,
// which holds only elements that are dropped without attributes; a marked
// end tag is of an element kept without them (checked below), so it is
// never on that stack, and a marked start tag is kept (its sanitized form
// is not empty, checked below), so it never adds to it. A mark between two
// texts does not change how either is read: the tokenizer ends a text at
// the tag that the mark replaces, and NUL ends an entity as "<" does; the
// sanitizer, which then skips nothing, copies NUL and the index byte (a
// letter or digit) unchanged. This reading is of bluemonday v1.0.27's
// sanitize loop; FuzzSanitize checks the equivalence on any input (its
// seeds on every test run, so an upgrade that breaks it fails the tests).

// markTags are the tags marked: the constant tags the renderer writes.
var markTags = func() []string {
	var tags []string
	for _, n := range strings.Fields("p ul ol li blockquote h1 h2 h3 h4 h5 h6 table thead tbody tr th td em strong del code pre") {
		tags = append(tags, "<"+n+">", "</"+n+">")
	}
	for _, a := range []string{"left", "center", "right"} {
		tags = append(tags, `<th align="`+a+`">`, `<td align="`+a+`">`)
	}
	return append(tags, "<br>", "<hr>",
		`<ul class="contains-task-list">`, `<ol class="contains-task-list">`, `<li class="task-list-item">`,
		`<input type="checkbox" class="task-list-item-checkbox" disabled="">`,
		`<input type="checkbox" class="task-list-item-checkbox" disabled="" checked="">`)
}()

const markDigits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

var (
	marks      = map[string]byte{} // tag → its index byte
	markOut    [256]string         // index byte → the sanitized tag
	allowedSet = map[string]bool{}
)

func init() {
	for _, e := range allowedElements {
		allowedSet[e] = true
	}
	if len(markTags) > len(markDigits) {
		panic("markdown: too many marked tags")
	}
	for i, tag := range markTags {
		z := html.NewTokenizer(strings.NewReader(tag))
		tt := z.Next()
		name, _ := z.TagName()
		if string(z.Raw()) != tag || z.Next() != html.ErrorToken || !allowedSet[string(name)] {
			panic(fmt.Sprintf("markdown: marked tag %q is not one allowed tag", tag))
		}
		out := sanitizer.Sanitize(tag)
		switch tt {
		case html.StartTagToken:
		case html.EndTagToken:
			if open := "<" + string(name) + ">"; sanitizer.Sanitize(open) != open {
				panic(fmt.Sprintf("markdown: marked end tag %q of an element dropped without attributes", tag))
			}
		default:
			panic(fmt.Sprintf("markdown: marked tag %q is self-closing", tag))
		}
		if out == "" {
			panic(fmt.Sprintf("markdown: marked tag %q is dropped", tag))
		}
		marks[tag] = markDigits[i]
		markOut[markDigits[i]] = out
	}
}

// markBuffers keeps the buffers of marked documents, dropped once
// sanitized.
var markBuffers sync.Pool

// sanitize is sanitizer.SanitizeBytes(src), faster, and never src itself.
func sanitize(src []byte) []byte {
	if len(bytes.TrimSpace(src)) == 0 {
		// The sanitizer gives back src itself, and the caller reuses it.
		return bytes.Clone(src)
	}
	if bytes.Count(src, []byte("<")) < len(src)/64 {
		// Mostly text: marking would cost more than it spares.
		return sanitizer.SanitizeBytes(src)
	}
	return sanitizeMarked(src)
}

// sanitizeMarked is sanitizer.SanitizeBytes(src), with the marked tags
// kept from the sanitizer.
func sanitizeMarked(src []byte) []byte {
	bp, _ := markBuffers.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b, grow, ok := mark(src, (*bp)[:0])
	defer func() {
		if cap(b) <= maxPooled {
			*bp = b[:0]
			markBuffers.Put(bp)
		}
	}()
	if !ok {
		return sanitizer.SanitizeBytes(src)
	}
	clean := sanitizer.SanitizeBytes(b)
	out := make([]byte, 0, len(clean)+grow)
	for {
		i := bytes.IndexByte(clean, 0)
		if i < 0 {
			break
		}
		if i+1 >= len(clean) || markOut[clean[i+1]] == "" {
			// Cannot happen (see above); the sanitizer's own output is the
			// safe answer if it does.
			return sanitizer.SanitizeBytes(src)
		}
		out = append(out, clean[:i]...)
		out = append(out, markOut[clean[i+1]]...)
		clean = clean[i+2:]
	}
	return append(out, clean...)
}

// mark appends src to b with its marked tags replaced by marks, and says
// by how much the sanitized tags are longer than their marks. It reports
// false if src has nothing to mark or may not be marked (see above).
func mark(src, b []byte) (_ []byte, grow int, ok bool) {
	if bytes.IndexByte(src, 0) >= 0 {
		return b, 0, false // a NUL of the document could pass for a mark
	}
	z := html.NewTokenizer(bytes.NewReader(src))
	pos, from := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF || pos != len(src) {
				return b, 0, false
			}
			break
		}
		raw := z.Raw()
		start := pos
		pos += len(raw)
		switch tt {
		case html.TextToken:
			continue
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			if m, ok := marks[string(raw)]; ok {
				b = append(b, src[from:start]...)
				b = append(b, 0, m)
				from = pos
				grow += len(markOut[m]) - 2
				continue
			}
			if name, _ := z.TagName(); allowedSet[string(name)] {
				continue
			}
		}
		// A comment, a doctype or another element: the sanitizer's state
		// matters.
		return b, 0, false
	}
	if from == 0 {
		return b, 0, false // nothing marked
	}
	return append(b, src[from:]...), grow, true
}
