package markdown

import (
	"regexp"

	"github.com/microcosm-cc/bluemonday"
)

// sanitizer keeps the HTML GitHub allows in user content: its element and
// attribute allowlist, http(s)/mailto and relative links, http(s) and
// relative images. Everything else goes — script and style with their
// content, event handler attributes, javascript: and data: URLs, forms,
// frames, inline styles — while the text of removed elements stays.
var sanitizer = newSanitizer()

// allowedElements are the elements the sanitizer keeps. None is script,
// style or an element whose content the tokenizer reads as raw text, which
// sanitize relies on.
var allowedElements = []string{
	"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a", "pre", "code",
	"img", "tt", "div", "ins", "del", "sup", "sub", "p", "picture", "ol", "ul", "table", "thead",
	"tbody", "tfoot", "blockquote", "dl", "dt", "dd", "kbd", "q", "samp", "var", "hr", "ruby", "rt",
	"rp", "li", "tr", "td", "th", "s", "strike", "summary", "details", "caption", "figure",
	"figcaption", "abbr", "bdo", "cite", "dfn", "mark", "small", "source", "span", "time", "wbr", "input",
}

func newSanitizer() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements(allowedElements...)
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("src", "longdesc").OnElements("img")
	p.AllowAttrs("srcset", "media", "type").OnElements("source")
	p.AllowAttrs("itemscope", "itemtype").OnElements("div")
	p.AllowAttrs("cite").OnElements("blockquote", "del", "ins", "q")
	p.AllowAttrs(
		"abbr", "accept", "accept-charset", "accesskey", "align", "alt", "aria-describedby",
		"aria-hidden", "aria-label", "aria-labelledby", "axis", "border", "cellpadding", "cellspacing",
		"char", "charoff", "charset", "clear", "cols", "colspan", "color", "compact", "coords",
		"datetime", "dir", "frame", "headers", "height", "hreflang", "hspace", "ismap", "label", "lang",
		"maxlength", "media", "multiple", "name", "nohref", "noshade", "nowrap", "open", "prompt",
		"readonly", "rel", "rev", "role", "rows", "rowspan", "rules", "scope", "selected", "shape",
		"size", "span", "start", "summary", "tabindex", "title", "usemap", "valign", "value", "vspace",
		"width", "itemprop",
	).Globally()
	// Inputs survive only as the disabled checkboxes of task lists.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").OnElements("input")
	// Classes are dropped except the task list ones the renderer sets.
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^contains-task-list$`)).OnElements("ul", "ol")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^task-list-item$`)).OnElements("li")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^task-list-item-checkbox$`)).OnElements("input")
	// Ids (and names) are kept plain here; the last pass namespaces them.
	p.AllowAttrs("id").Matching(regexp.MustCompile(`^[\p{L}\p{N}_.:-]+$`)).Globally()
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	p.RequireParseableURLs(true)
	p.RequireNoFollowOnFullyQualifiedLinks(true)
	return p
}
