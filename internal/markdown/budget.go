package markdown

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// The guards on what goldmark repeats or multiplies: code span openers
// that find no closer, empty cells filling short table rows, and reference
// links expanding a long definition. The bounds are in guard.go.

var codeRunsKey = parser.NewContextKey()

// codeRuns is where backtick runs end in the rest of a block: for each
// run length, the start of the last run of that length. A code span's
// opener without a later run of its length is text, known without
// scanning the block once more for each opener.
type codeRuns struct {
	last map[int]int
}

// codeSpans guards goldmark's code span parser.
type codeSpans struct{ inner parser.InlineParser }

func (s *codeSpans) Trigger() []byte { return []byte{'`'} }

func (s *codeSpans) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	n := 0
	for n < len(line) && line[n] == '`' {
		n++
	}
	runs, _ := pc.Get(codeRunsKey).(*codeRuns)
	if runs == nil {
		runs = scanRuns(block)
		pc.Set(codeRunsKey, runs)
	}
	if last, ok := runs.last[n]; !ok || last <= seg.Start {
		block.Advance(n)
		return ast.NewTextSegment(seg.WithStop(seg.Start + n))
	}
	return s.inner.Parse(parent, block, pc)
}

func (s *codeSpans) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if pc.Get(codeRunsKey) != nil {
		pc.Set(codeRunsKey, nil)
	}
}

// scanRuns reads the rest of the block once for its backtick runs, as the
// code span parser sees them: maximal, and not across line ends.
func scanRuns(r text.Reader) *codeRuns {
	runs := &codeRuns{last: map[int]int{}}
	l, pos := r.Position()
	defer r.SetPosition(l, pos)
	for {
		line, seg := r.PeekLine()
		if line == nil {
			return runs
		}
		for i := 0; i < len(line); {
			if line[i] != '`' {
				i++
				continue
			}
			j := i
			for j < len(line) && line[j] == '`' {
				j++
			}
			runs.last[j-i] = seg.Start + i
			i = j
		}
		r.AdvanceLine()
	}
}

var filledCellsKey = parser.NewContextKey()

// tableBudget runs before goldmark's table transformer: it ends a table
// at the row where the document's empty cells added to short rows would
// pass its bound, leaving the rest of the paragraph as text.
type tableBudget struct{}

func (tableBudget) Transform(node *ast.Paragraph, r text.Reader, pc parser.Context) {
	lines := node.Lines()
	if lines.Len() < 3 {
		return
	}
	src := r.Source()
	cols := 0
	at := 1
	for ; at < lines.Len(); at++ {
		seg := lines.At(at)
		if cols = delimiterCells(seg.Value(src)); cols > 0 {
			break
		}
	}
	if cols == 0 {
		return
	}
	budget := min(maxFilledCells, max(minFilledCells, len(src)))
	filled, _ := pc.Get(filledCellsKey).(int)
	for j := at + 1; j < lines.Len(); j++ {
		seg := lines.At(j)
		if missing := cols - rowCells(seg.Value(src)); missing > 0 {
			filled += missing
		}
		if filled > budget {
			rest := ast.NewParagraph()
			for k := j; k < lines.Len(); k++ {
				rest.Lines().Append(lines.At(k))
			}
			lines.SetSliced(0, j)
			last := lines.At(j - 1)
			if last.Stop > last.Start && src[last.Stop-1] == '\n' {
				last.Stop-- // as goldmark leaves a paragraph's last line
			}
			lines.Set(j-1, last)
			node.Parent().InsertAfter(node.Parent(), node, rest)
			filled = budget
			break
		}
	}
	pc.Set(filledCellsKey, filled)
}

// delimiterCells counts the cells of a table's delimiter row ("| --- | :-: |"),
// or 0 if line is not one.
func delimiterCells(line []byte) int {
	dash := false
	for _, b := range line {
		switch b {
		case '-':
			dash = true
		case '|', ':', ' ', '\t', '\n', '\r':
		default:
			return 0
		}
	}
	if !dash {
		return 0
	}
	return rowCells(line)
}

// rowCells counts the cells of a table row: its unescaped pipes, less a
// leading and a trailing one.
func rowCells(line []byte) int {
	s, e := 0, len(line)
	for s < e && (line[s] == ' ' || line[s] == '\t') {
		s++
	}
	for e > s && (line[e-1] == ' ' || line[e-1] == '\t' || line[e-1] == '\n' || line[e-1] == '\r') {
		e--
	}
	if s == e {
		return 0
	}
	if line[s] == '|' {
		s++
	}
	if e > s && line[e-1] == '|' && (e-2 < s || line[e-2] != '\\') {
		e--
	}
	n := 1
	for i := s; i < e; i++ {
		if line[i] == '\\' {
			i++
		} else if line[i] == '|' {
			n++
		}
	}
	return n
}

// refBudget turns reference links into text once the destinations and
// titles they expand to pass the larger of the document's size and
// minRefBudget: a long definition used many times cannot multiply the
// output.
type refBudget struct{}

func (refBudget) Transform(doc *ast.Document, r text.Reader, pc parser.Context) {
	if len(pc.References()) == 0 {
		return // no reference links either
	}
	budget := max(len(r.Source()), minRefBudget)
	var over []ast.Node
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var l *ast.Link
		switch v := n.(type) {
		case *ast.Link:
			l = v
		case *ast.Image:
			if v.Reference != nil {
				budget -= len(v.Destination) + len(v.Title)
				if budget < 0 {
					over = append(over, n)
				}
			}
			return ast.WalkContinue, nil
		default:
			return ast.WalkContinue, nil
		}
		if l.Reference != nil {
			budget -= len(l.Destination) + len(l.Title)
			if budget < 0 {
				over = append(over, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range over {
		unlink(n)
	}
}

// unlink replaces a reference link by its text, brackets included.
func unlink(n ast.Node) {
	parent := n.Parent()
	open, ref := "[", (*ast.ReferenceLink)(nil)
	switch v := n.(type) {
	case *ast.Link:
		ref = v.Reference
	case *ast.Image:
		open, ref = "![", v.Reference
	}
	parent.InsertBefore(parent, n, ast.NewString([]byte(open)))
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	closing := "]"
	switch ref.Type {
	case ast.ReferenceLinkFull:
		closing += "[" + string(ref.Value) + "]"
	case ast.ReferenceLinkCollapsed:
		closing += "[]"
	}
	parent.InsertBefore(parent, n, ast.NewString([]byte(closing)))
	parent.RemoveChild(parent, n)
}
