package markdown

import "html"

func htmlUnescape(b []byte) string { return html.UnescapeString(string(b)) }
