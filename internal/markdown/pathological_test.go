package markdown

import (
	"fmt"
	"strings"
)

// pathological returns inputs of about n bytes, each built to hit one of
// the ways a Markdown renderer goes superlinear in time or output: nested
// containers, long runs of delimiters, brackets and backticks, unclosed
// link destinations and titles, tables with many columns or rows, large or
// many reference definitions, raw HTML and references.
func pathological(n int) []struct{ name, src string } {
	rep := func(f func(i int) string) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(f(i))
		}
		return b.String()
	}
	times := func(s string) string { return strings.Repeat(s, max(1, n/len(s))) }
	var refs strings.Builder
	for i := 0; refs.Len() < n/2; i++ {
		fmt.Fprintf(&refs, "[l%d]: http://x/%d\n", i, i)
	}
	defs := refs.String()
	for i := 0; refs.Len() < n; i++ {
		fmt.Fprintf(&refs, "[l%d] ", i)
	}
	return []struct{ name, src string }{
		{"nested-quotes", times("> ")},
		{"nested-quotes-tabs", times(">\t")},
		{"nested-quotes-lists", times("> - ")},
		{"nested-ordered-lists", times("1. ")},
		{"quote-lines", times("> a\n")},
		{"quote-stairs", rep(func(i int) string { return strings.Repeat(">", i%500) + " a\n" })},
		{"list-stairs", rep(func(i int) string { return strings.Repeat("  ", i%200) + "- x\n" })},
		{"list-lines", times("* a\n")},
		{"emphasis-run", times("*a")},
		{"emphasis-nested", times("*a **a ")},
		{"emphasis-mixed", times("_a *")},
		{"emphasis-triples", times("a***")},
		{"emphasis-closers", times("a_ ")},
		{"strong-under", times("**_")},
		{"stars", times("*")},
		{"strike-run", times("~a")},
		{"brackets-open", times("[")},
		{"brackets-nested", strings.Repeat("[", n/2) + strings.Repeat("]", n/2)},
		{"brackets-labels", times("[a]")},
		{"brackets-images", times("![")},
		{"brackets-refs", times("[a][")},
		{"brackets-links", times("[[a](b)")},
		{"brackets-paren", times("[ (](")},
		{"link-open", times("[a](")},
		{"link-open-pointy", times("[a](<")},
		{"link-open-paren-title", times("[a](x (")},
		{"link-open-quote-title", times("[a](x \"")},
		{"link-open-title-lines", times("[a](x (\n")},
		{"link-open-parens", times("[a](()")},
		{"link-unclosed", times("[a](b")},
		{"backticks", times("`")},
		{"backtick-runs", rep(func(i int) string { return strings.Repeat("`", i+1) + "a" })},
		{"backtick-run-lines", rep(func(i int) string { return strings.Repeat("`", i+1) + "a\n" })},
		{"backticks-mixed", times("`a``")},
		{"fences", times("```\n")},
		{"table-columns", "|" + strings.Repeat("a|", n/4) + "\n|" + strings.Repeat("-|", n/4) + "\n"},
		{"table-rows", "|" + strings.Repeat("a|", 100) + "\n|" + strings.Repeat("-|", 100) + "\n" + strings.Repeat("|\n", n/2)},
		{"table-columns-rows", "|" + strings.Repeat("a|", n/16) + "\n|" + strings.Repeat("-|", n/16) + "\n" + strings.Repeat("|\n", n/4)},
		{"link-definitions", defs},
		{"link-definitions-used", refs.String()},
		{"link-definition-huge", "[a]: http://x/" + strings.Repeat("a", n/2) + "\n\n" + times("[a] ")[:n/2]},
		{"references", times("@mona #1 octo/hello#4 a1b2c3d ")},
		{"html-blocks", times("<div>")},
		{"html-attributes", times("<a href=\"")},
		{"html-comments", times("<!--")},
		{"html-inline", times("<b>")},
		{"html-declarations", times("<!A ")},
		{"html-cdata", times("<![CDATA[")},
		{"html-processing", times("<?")},
		{"angle-brackets", times("<")},
		{"autolinks", times("<http://a")},
		{"linkify", times("www.a")},
		{"linkify-emails", times("a@b.")},
		{"entities", times("&#39;")},
		{"ampersands", times("&")},
		{"headings", times("# a\n")},
		{"setext", times("a\n=\n")},
		{"task-lists", times("- [ ] a\n")},
		{"tabs", times("\t") + "a"},
		{"spaces", times(" ") + "a"},
		{"backslashes", times("\\")},
		{"long-line", times("a")},
		{"newlines", times("a\n")},
		{"nul", times("a\x00")},
	}
}
