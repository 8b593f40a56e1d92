// Package markdown renders GitHub-flavoured Markdown to HTML the way GitHub
// builds user content: goldmark (CommonMark with tables, strikethrough,
// autolinks and task lists) turns the source into HTML, raw HTML included;
// an allowlist sanitizer then keeps only GitHub's subset of elements,
// attributes and URL schemes; a last pass over the sanitized HTML adds what
// GitHub's own filters add after sanitizing — heading anchors and, for
// comments, links for @mentions, issue references and commit SHAs.
//
// The same renderer serves POST /markdown, every body_html and the web
// pages. Its time and memory are linear in the source: guard.go bounds the
// places where goldmark is not (nesting, link syntax, table filling,
// reference expansion), as cmark-gfm bounds them. Rendered documents are
// kept in a bounded LRU cache (cache.go) keyed by a hash of the source and
// the options that shape it; references, which depend on the reader, are
// resolved and linked after the cache for each reader, so nothing one
// reader may see is ever served to another.
package markdown

import (
	"bytes"
	"context"
	"sync"

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

// Options say how to render a document.
type Options struct {
	// Comment renders as GitHub renders issues and comments (the API's gfm
	// mode): a newline is a line break, and references are linked.
	// Otherwise the source is a document, like a README.
	Comment bool
	// Context is the repository ("owner/repo") that #123 and bare commit
	// SHAs refer to; without it only @mentions and owner/repo#123 link.
	Context string
	// Web is the web base URL links point at (no trailing slash).
	Web string
	// Resolver says which referenced users, repositories, issues and
	// commits exist for the reader; nil links no references.
	Resolver Resolver
	// Autolinks are the context repository's autolink references, linked
	// in any mode (JIRA-123 to the tracker).
	Autolinks AutolinkSet
}

func newEngine(hardWraps bool) goldmark.Markdown {
	ropts := []renderer.Option{
		html.WithUnsafe(), // raw HTML goes to the sanitizer, which keeps GitHub's subset
		renderer.WithNodeRenderers(util.Prioritized(taskRenderer{}, 100), util.Prioritized(cellRenderer{}, 100)),
	}
	if hardWraps {
		ropts = append(ropts, html.WithHardWraps())
	}
	return goldmark.New(
		goldmark.WithExtensions(
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough,
			extension.Linkify,
		),
		goldmark.WithParser(parser.NewParser(
			parser.WithBlockParsers(blockParsers()...),
			parser.WithInlineParsers(inlineParsers()...),
			parser.WithInlineParsers(util.Prioritized(taskBoxes{extension.NewTaskCheckBoxParser()}, 0)), // as extension.TaskList
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
			parser.WithParagraphTransformers(util.Prioritized(tableBudget{}, 150)), // before the table's, at 200
		)),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(refBudget{}, 1000))),
		goldmark.WithRendererOptions(ropts...),
	)
}

var (
	document = newEngine(false)
	comment  = newEngine(true)
)

// Render renders src. Errors come from the Resolver and from ctx: a
// request that ends stops its rendering.
func Render(ctx context.Context, src string, o Options) (string, error) {
	k := keyOf(src, &o)
	p := cache.get(k)
	if p == nil {
		var err error
		if p, err = prepare(ctx, src, &o); err != nil {
			return "", err
		}
		cache.put(k, p)
	}
	return p.finish(ctx, &o)
}

// prepare renders src up to its references, checking ctx between stages.
func prepare(ctx context.Context, src string, o *Options) (*prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	md := document
	if o.Comment {
		md = comment
	}
	b := getBuffer()
	defer putBuffer(b)
	b.Grow(len(src) + len(src)/2)
	if err := md.Convert([]byte(src), b); err != nil {
		// goldmark only fails on writer errors, which a bytes.Buffer has none of.
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	clean := sanitize(b.Bytes()) // a copy: b goes back to the pool
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return scan(ctx, clean, o)
}

// buffers keeps the buffers of goldmark's output, which is dropped once
// sanitized, for the next document: its growing is much of the cost of a
// large one.
var buffers sync.Pool

// maxPooled bounds the buffers kept in the pool.
const maxPooled = 4 << 20

func getBuffer() *bytes.Buffer {
	if b, ok := buffers.Get().(*bytes.Buffer); ok {
		return b
	}
	return new(bytes.Buffer)
}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		b.Reset()
		buffers.Put(b)
	}
}

// HTML renders src as a document, without references.
func HTML(src string) string {
	s, _ := Render(context.Background(), src, Options{})
	return s
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

// taskBoxes is goldmark's task list checkbox parser, which also marks
// GitHub's task list classes on the list item and the list of each
// checkbox: the checkbox's parent is a text block or paragraph, the first
// of a list item (the parser makes sure), and nothing after inline parsing
// moves either. Marking them here spares a walk of the whole document.
type taskBoxes struct{ parser.InlineParser }

func (t taskBoxes) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	n := t.InlineParser.Parse(parent, block, pc)
	if n == nil {
		return nil
	}
	if item := parent.Parent(); item != nil && item.Kind() == ast.KindListItem {
		item.SetAttributeString("class", taskItemClass)
		if list := item.Parent(); list != nil && list.Kind() == ast.KindList {
			list.SetAttributeString("class", taskListClass)
		}
	}
	return n
}

// The classes' values, boxed once (the renderer only reads them).
var taskItemClass, taskListClass any = []byte("task-list-item"), []byte("contains-task-list")

// taskRenderer draws task list checkboxes as GitHub does.
type taskRenderer struct{}

func (taskRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(extast.KindTaskCheckBox, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		w.WriteString(`<input type="checkbox" class="task-list-item-checkbox" disabled=""`)
		if n.(*extast.TaskCheckBox).IsChecked {
			w.WriteString(` checked=""`)
		}
		w.WriteString("> ")
		return ast.WalkContinue, nil
	})
}

// cellRenderer draws table cells as goldmark's table extension does with
// TableCellAlignAttribute, without its fmt.Fprintf for each cell.
type cellRenderer struct{}

func (cellRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(extast.KindTableCell, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		n := node.(*extast.TableCell)
		header := n.Parent().Kind() == extast.KindTableHeader
		if !entering {
			if header {
				w.WriteString("</th>\n")
			} else {
				w.WriteString("</td>\n")
			}
			return ast.WalkContinue, nil
		}
		if header {
			w.WriteString("<th")
		} else {
			w.WriteString("<td")
		}
		if n.Alignment != extast.AlignNone {
			if _, ok := n.AttributeString("align"); !ok {
				w.WriteString(` align="`)
				w.WriteString(n.Alignment.String())
				w.WriteByte('"')
			}
		}
		if n.Attributes() != nil {
			if header {
				html.RenderAttributes(w, n, extension.TableThCellAttributeFilter)
			} else {
				html.RenderAttributes(w, n, extension.TableTdCellAttributeFilter)
			}
		}
		w.WriteByte('>')
		return ast.WalkContinue, nil
	})
}
