package markdown

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// plain is goldmark as it comes, with the extensions the renderer uses and
// none of the guards.
var plain = goldmark.New(
	goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough, extension.Linkify, extension.TaskList,
	),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(taskLists{}, 100))),
	goldmark.WithRendererOptions(html.WithUnsafe(), renderer.WithNodeRenderers(util.Prioritized(taskRenderer{}, 100))),
)

// taskLists marks GitHub's task list classes as the renderer's taskBoxes
// does, by walking the document after parsing.
type taskLists struct{}

func (taskLists) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Kind() != extast.KindTaskCheckBox {
			return ast.WalkContinue, nil
		}
		// checkbox → paragraph or text block → list item → list
		if block := n.Parent(); block != nil {
			if item := block.Parent(); item != nil && item.Kind() == ast.KindListItem {
				item.SetAttributeString("class", []byte("task-list-item"))
				if list := item.Parent(); list != nil && list.Kind() == ast.KindList {
					list.SetAttributeString("class", []byte("contains-task-list"))
				}
			}
		}
		return ast.WalkSkipChildren, nil
	})
}

// ordinary are documents within every guard's bounds: the guards must not
// change how they render.
var ordinary = []string{
	"[a](b) [a](<b c>) [a](b \"t\") [a](b 't') [a](b (t)) [a]( b ) [a]() [a](<>)",
	"[a](b(c(d)e)f) [a](b\\)c) [a](\\(b) [a](b\n\"t\") [a](\nb\n'multi\nline')",
	"[a](b \"t\" ) x [a](b \"t\"x) [a](b (t(u))) [a](b c)",
	"[a] [b][] [c][a] [d]\n\n[a]: /u \"t\"\n[b]: /v\n[c]: </w x>",
	"![i](/p.png) ![i][a] [![i](/p.png)](/q) [a [b](c) d](e)",
	"[[a]] [[a](b)] [a]b] ]] [[[x]]] \\[a](b) [a\\](b)",
	strings.Repeat("[", 20) + "x" + strings.Repeat("](y)", 20),
	"`a` ``a`b`` ``` a `` ``` `unclosed ``also`` ` `` ` x",
	"```\ncode\n```\n\n`a\nb` and ``c\n``",
	"> a\n> > b\n> > > c\n>\n> d",
	strings.Repeat("> ", 20) + "deep",
	"- a\n  - b\n    - c\n      1. d\n         > e\n- f",
	strings.Repeat("- ", 15) + "x",
	"| a | b | c |\n|---|:-:|--:|\n| 1 |\n| 1 | 2 | 3 | 4 |\n| \\| | `x|y` | z |",
	"a | b\n-- | --\nc | d\n\n|x|\n|-|\n",
	"*a **b** c* _d_ ***e*** ~~f~~ ~g~ **unclosed *x",
	"<div>\n*raw*\n</div>\n\n<b>inline</b> <a href=\"x\">y</a>",
	"- [ ] task\n- [x] done\n\n# H1\n## H2 ##\nSetext\n---",
	"www.example.com http://x.y/z?a=b mail@example.com <http://auto.link>",
	"line\\\nbreak  \nhard\nsoft",
}

func TestGuardsKeepOrdinaryDocuments(t *testing.T) {
	docs := append([]string{}, ordinary...)
	files, _ := filepath.Glob("testdata/*.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	docs = append(docs, doc20k())
	for _, src := range docs {
		var want, got bytes.Buffer
		if err := plain.Convert([]byte(src), &want); err != nil {
			t.Fatal(err)
		}
		if err := document.Convert([]byte(src), &got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%.80q:\nguarded %q\nplain   %q", src, got.String(), want.String())
		}
	}
}

// TestGuardsBound: past each bound, the guards render text where goldmark
// would nest, link or fill without end.
func TestGuardsBound(t *testing.T) {
	parens := func(n int) string {
		return "[a](" + strings.Repeat("(", n) + "x" + strings.Repeat(")", n) + ")"
	}
	var def strings.Builder
	def.WriteString("[a]: /" + strings.Repeat("x", 50000) + "\n\n")
	for range 10 {
		def.WriteString("[a] [b][a] ")
	}
	table := func(rows int) string {
		return "|" + strings.Repeat(" h |", 100) + "\n|" + strings.Repeat("---|", 100) + "\n" + strings.Repeat("|\n", rows)
	}
	small, large := table(1000), table(20000)
	for _, c := range []struct {
		name, src, substr string
		count             int
	}{
		{"quotes nest 32 deep", strings.Repeat("> ", 100) + "x", "<blockquote>", maxNesting},
		{"lists nest 32 deep", strings.Repeat("1. ", 100) + "x", "<ol>", maxNesting},
		{"quotes and lists share the bound", strings.Repeat("> - ", 50) + "x", "<li>", maxNesting / 2},
		{"32 nested parentheses make a link", parens(31), "<a href", 1},
		{"33 do not", parens(33), "<a href", 0},
		{"a pointy destination ends at <", "[a](<b<c>)", "<a href", 0},
		{"a title in parentheses ends at (", "[a](b (c(d)))", "<a href", 0},
		{"labels open up to the bound", strings.Repeat("[", maxOpenLabels-1) + "[a](b)", `<a href="b">a</a>`, 1},
		{"and no more: the last open one links", strings.Repeat("[", maxOpenLabels) + "[a](b)", `<a href="b">[a</a>`, 1},
		{"short rows are filled up to the document's size", small, "<tr>", 1 + len(small)/99},
		{"and no more than the bound", large, "<tr>", 1 + maxFilledCells/99},
		{"references expand up to the budget", def.String(), "<a href", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := document.Convert([]byte(c.src), &b); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(b.String(), c.substr); n != c.count {
				t.Errorf("%d × %q, want %d in %.300q", n, c.substr, c.count, b.String())
			}
		})
	}
}
