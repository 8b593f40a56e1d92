package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// goldmark is linear on ordinary text but not on every input: it measures
// a line's indentation from the line's start each time a container opens
// (quadratic in nesting), scans every "](" to the end of the line or block
// for a link destination or title, re-walks the content of nested link
// labels at each "]", fills short table rows with empty cells (rows × columns
// from two bytes a row) and expands a long reference definition at each
// use. The guards below wrap its parsers to bound each of these the way
// cmark-gfm, GitHub's renderer, bounds them.
const (
	// maxNesting bounds nested block quotes and lists; deeper markers stay
	// text. Browsers and GitHub's HTML pipeline cap tree depth too.
	maxNesting = 32
	// maxOpenLabels bounds the unclosed "[" of one paragraph that may
	// still become links; later ones are text.
	maxOpenLabels = 64
	// maxLinkParens is cmark's bound on nested parentheses in a link
	// destination.
	maxLinkParens = 32
	// maxFilledCells bounds the empty cells added to short table rows in
	// one document, and so does its length in bytes (at least
	// minFilledCells): the table ends at the row that would pass the bound,
	// as in cmark-gfm (whose bound is larger, and so is its output).
	maxFilledCells = 1 << 14
	minFilledCells = 1 << 10
	// minRefBudget is the least number of bytes reference links may expand
	// to (cmark: the larger of this and the document's size).
	minRefBudget = 100000
)

// blockParsers are goldmark's, with containers bounded in depth.
func blockParsers() []util.PrioritizedValue {
	return []util.PrioritizedValue{
		util.Prioritized(parser.NewSetextHeadingParser(), 100),
		util.Prioritized(parser.NewThematicBreakParser(), 200),
		util.Prioritized(shallow{parser.NewListParser()}, 300),
		util.Prioritized(parser.NewListItemParser(), 400),
		util.Prioritized(parser.NewCodeBlockParser(), 500),
		util.Prioritized(parser.NewATXHeadingParser(), 600),
		util.Prioritized(parser.NewFencedCodeBlockParser(), 700),
		util.Prioritized(shallow{parser.NewBlockquoteParser()}, 800),
		util.Prioritized(parser.NewHTMLBlockParser(), 900),
		util.Prioritized(parser.NewParagraphParser(), 1000),
	}
}

// inlineParsers are goldmark's, with links and code spans guarded.
func inlineParsers() []util.PrioritizedValue {
	return []util.PrioritizedValue{
		util.Prioritized(&codeSpans{inner: parser.NewCodeSpanParser()}, 100),
		util.Prioritized(links{parser.NewLinkParser()}, 200),
		util.Prioritized(parser.NewAutoLinkParser(), 300),
		util.Prioritized(parser.NewRawHTMLParser(), 400),
		util.Prioritized(parser.NewEmphasisParser(), 500),
	}
}

// shallow is a container parser that opens no container deeper than
// maxNesting; the rest of the BlockParser is the wrapped one's.
type shallow struct{ parser.BlockParser }

func (s shallow) Open(parent ast.Node, r text.Reader, pc parser.Context) (ast.Node, parser.State) {
	depth := 0
	for n := parent; n != nil; n = n.Parent() {
		if k := n.Kind(); k == ast.KindBlockquote || k == ast.KindList {
			if depth++; depth >= maxNesting {
				return nil, parser.NoChildren
			}
		}
	}
	return s.BlockParser.Open(parent, r, pc)
}

var openLabelsKey = parser.NewContextKey()

// links guards goldmark's link parser: it bounds the open "[" of a block
// and lets "](" start an inline link only when what follows is one, read
// once with cmark's rules, so that a failed attempt costs no more than the
// text it reads.
type links struct{ inner parser.InlineParser }

func (links) Trigger() []byte { return []byte{'!', '[', ']'} }

func (l links) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	open, _ := pc.Get(openLabelsKey).(int)
	switch {
	case line[0] == '[' || line[0] == '!' && len(line) > 1 && line[1] == '[':
		if open >= maxOpenLabels {
			return nil // a plain "[" (or "!")
		}
		n := l.inner.Parse(parent, block, pc)
		if n != nil {
			pc.Set(openLabelsKey, open+1)
		}
		return n
	case line[0] == ']':
		if open > 0 {
			pc.Set(openLabelsKey, open-1) // the inner parser closes the last label
		}
		r := labelReader{Reader: block}
		// With no label open the inner parser reads nothing further.
		r.noParen = open > 0 && len(line) > 1 && line[1] == '(' && !inlineLinkTail(block)
		return l.inner.Parse(parent, r, pc)
	}
	return l.inner.Parse(parent, block, pc)
}

func (l links) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if pc.Get(openLabelsKey) != nil {
		pc.Set(openLabelsKey, nil)
	}
	if cb, ok := l.inner.(parser.CloseBlocker); ok {
		cb.CloseBlock(parent, block, pc)
	}
}

// labelReader is the block as the link parser sees it at a "]".
type labelReader struct {
	text.Reader
	// noParen hides the "(" after the "]", and the link parser then tries
	// only a reference link, as for any "]" not followed by "(".
	noParen bool
}

func (r labelReader) Peek() byte {
	if c := r.Reader.Peek(); c != '(' || !r.noParen {
		return c
	}
	return 0
}

// Value is the text of a label. goldmark's block reader looks for the
// label's first line from the block's last, which made each "]" cost the
// block's length; a label within one line is simply that part of the
// source.
func (r labelReader) Value(seg text.Segment) []byte {
	src := r.Source()
	if seg.Start >= 0 && seg.Start <= seg.Stop && seg.Stop <= len(src) && seg.Padding == 0 {
		if v := src[seg.Start:seg.Stop]; bytes.IndexByte(v, '\n') < 0 {
			return v
		}
	}
	return r.Reader.Value(seg)
}

// cursor reads a block onwards from the reader's position, across lines,
// and puts the reader back when done.
type cursor struct {
	r    text.Reader
	line []byte
	i    int
	l    int
	pos  text.Segment
}

func newCursor(r text.Reader) *cursor {
	c := &cursor{r: r}
	c.l, c.pos = r.Position()
	c.line, _ = r.PeekLine()
	return c
}

func (c *cursor) done() { c.r.SetPosition(c.l, c.pos) }

// peek returns the next byte, or false at the end of the block.
func (c *cursor) peek() (byte, bool) {
	if c.i < len(c.line) {
		return c.line[c.i], true
	}
	return c.nextLine()
}

func (c *cursor) nextLine() (byte, bool) {
	for c.i >= len(c.line) {
		if c.line == nil {
			return 0, false
		}
		c.r.AdvanceLine()
		c.line, _ = c.r.PeekLine()
		c.i = 0
	}
	return c.line[c.i], true
}

func (c *cursor) next() { c.i++ }

func (c *cursor) spaces() {
	for b, ok := c.peek(); ok && (b == ' ' || b == '\t' || b == '\n' || b == '\r'); b, ok = c.peek() {
		c.next()
	}
}

func isPunct(b byte) bool {
	return b >= '!' && b <= '/' || b >= ':' && b <= '@' || b >= '[' && b <= '`' || b >= '{' && b <= '~'
}

// escaped consumes a backslash escape if one is next.
func (c *cursor) escaped() bool {
	b, _ := c.peek()
	if b != '\\' {
		return false
	}
	c.next()
	if b, ok := c.peek(); ok && isPunct(b) {
		c.next()
	}
	return true
}

// inlineLinkTail says whether "](" at the reader's position starts an
// inline link: "(", an optional destination, an optional title after
// whitespace, ")" — CommonMark's syntax with cmark's bound on nested
// parentheses. It reads at most up to the first byte that decides.
func inlineLinkTail(r text.Reader) bool {
	c := newCursor(r)
	defer c.done()
	c.next() // ]
	c.next() // (
	c.spaces()
	b, ok := c.peek()
	if !ok {
		return false
	}
	switch {
	case b == ')':
		return true
	case b == '<':
		c.next()
		for {
			if c.escaped() {
				continue
			}
			b, ok := c.peek()
			if !ok || b == '\n' || b == '<' {
				return false
			}
			c.next()
			if b == '>' {
				break
			}
		}
	default:
		depth := 0
	dest:
		for {
			if c.escaped() {
				continue
			}
			b, ok := c.peek()
			switch {
			case !ok:
				return false
			case b <= ' ' || b == 0x7f:
				break dest
			case b == '(':
				if depth++; depth > maxLinkParens {
					return false
				}
			case b == ')':
				if depth == 0 {
					break dest
				}
				depth--
			}
			c.next()
		}
		if depth > 0 {
			return false
		}
	}
	white := false
	if b, _ := c.peek(); b == ' ' || b == '\t' || b == '\n' || b == '\r' {
		white = true
		c.spaces()
	}
	b, ok = c.peek()
	if !ok {
		return false
	}
	if white && (b == '"' || b == '\'' || b == '(') {
		closer := b
		if b == '(' {
			closer = ')'
		}
		c.next()
		for {
			if c.escaped() {
				continue
			}
			t, ok := c.peek()
			if !ok || b == '(' && t == '(' {
				return false
			}
			c.next()
			if t == closer {
				break
			}
		}
		c.spaces()
		b, ok = c.peek()
	}
	return ok && b == ')'
}
