// Package markdown renders GitHub-flavoured Markdown to HTML for body_html,
// the .html media types and POST /markdown. Raw HTML in the source is
// escaped (goldmark's safe default), so the output needs no further
// sanitizing; the Meta/Markdown work extends this with references and an
// allowlist sanitizer for GitHub's subset of raw HTML.
package markdown

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

var gfm = goldmark.New(
	goldmark.WithExtensions(extension.GFM), // tables, strikethrough, autolinks, task lists
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// HTML renders src.
func HTML(src string) string {
	var b bytes.Buffer
	if err := gfm.Convert([]byte(src), &b); err != nil {
		// goldmark only fails on writer errors, which a bytes.Buffer has none of.
		return ""
	}
	return b.String()
}

// Text is the plain-text form GitHub sends as body_text: the rendered
// document without markup.
func Text(src string) string {
	return stripTags(HTML(src))
}

func stripTags(h string) string {
	var b bytes.Buffer
	in := false
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '<':
			in = true
		case c == '>':
			in = false
		case !in:
			b.WriteByte(c)
		}
	}
	return htmlUnescape(bytes.TrimSpace(b.Bytes()))
}
