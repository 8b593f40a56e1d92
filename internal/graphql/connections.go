package graphql

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
)

// connection is one page of a connection: its nodes, where they start in
// the whole list, and the list's size.
type connection struct {
	nodes  []any
	offset int
	total  int
	extra  any // a connection type's own field (LanguageConnection.totalSize)
}

// edge is a node with its cursor.
type edge struct {
	node   any
	cursor string
}

// pageInfo is a connection's PageInfo.
type pageInfo struct{ c *connection }

// maxPage is GitHub's cap on first and last.
const maxPage = 100

// window is what the pagination arguments ask for, as offsets into the
// whole list.
type window struct {
	first, last   int  // -1 when absent
	after, before int  // offsets; after -1 and before -1 when absent
	needTotal     bool // last or before need the list's size first
}

// pageWindow reads first/after/last/before as GitHub does: one of first and
// last is required, neither above 100, cursors must be ones hubd made.
// GitHub lets a selection of totalCount alone go without them (gh asks
// `commits { totalCount }`): items is whether the selection asks for more.
func pageWindow(args map[string]any, conn string, items bool) (window, error) {
	w := window{first: -1, last: -1, after: -1, before: -1}
	if n, ok := intArg(args, "first"); ok {
		if n < 0 {
			return w, engine.Errorf("INVALID_PAGINATION", "`first` on the `%s` connection cannot be less than zero.", conn)
		}
		if n > maxPage {
			return w, engine.Errorf("EXCESSIVE_PAGINATION", "Requesting %d records on the `%s` connection exceeds the `first` limit of %d records.", n, conn, maxPage)
		}
		w.first = n
	}
	if n, ok := intArg(args, "last"); ok {
		if n < 0 {
			return w, engine.Errorf("INVALID_PAGINATION", "`last` on the `%s` connection cannot be less than zero.", conn)
		}
		if n > maxPage {
			return w, engine.Errorf("EXCESSIVE_PAGINATION", "Requesting %d records on the `%s` connection exceeds the `last` limit of %d records.", n, conn, maxPage)
		}
		w.last = n
	}
	if w.first < 0 && w.last < 0 && !items {
		w.first = 0
	}
	if w.first < 0 && w.last < 0 {
		return w, engine.Errorf("MISSING_PAGINATION_BOUNDARIES", "You must provide a `first` or `last` value to properly paginate the `%s` connection.", conn)
	}
	for _, name := range []string{"after", "before"} {
		s, _ := args[name].(string)
		if s == "" {
			continue
		}
		off, ok := decodeCursor(s)
		if !ok {
			return w, engine.Errorf("INVALID_CURSOR_ARGUMENTS", "`%s` does not appear to be a valid cursor.", s)
		}
		if name == "after" {
			w.after = off
		} else {
			w.before = off
		}
	}
	w.needTotal = w.last >= 0 || w.before >= 0
	return w, nil
}

// bounds is the [start, end) range of the page in a list of total items
// (total may be -1 when the window does not need it).
func (w window) bounds(total int) (int, int) {
	start := 0
	if w.after >= 0 {
		start = w.after + 1
	}
	end := total
	if w.before >= 0 && (end < 0 || w.before < end) {
		end = w.before
	}
	if w.first >= 0 && (end < 0 || start+w.first < end) {
		end = start + w.first
	}
	if w.last >= 0 && end-w.last > start {
		start = end - w.last
	}
	if end < start {
		end = start
	}
	return start, end
}

// sqlPage reads a batched connection's pagination arguments as the page
// function the store's per-parent SQL paging takes: a parent's total in,
// the [start, end) offsets of its page out.
func sqlPage(b *engine.Batch, conn string) (func(total int) (int, int), error) {
	w, err := pageWindow(b.Args, conn, engine.SelectsItems(b.Field.SelectionSet))
	if err != nil {
		return nil, err
	}
	return func(total int) (int, int) {
		start, end := w.bounds(total)
		return min(start, total), min(end, total)
	}, nil
}

// slicePage pages a list already in memory.
func slicePage[T any](list []T, b *engine.Batch, conn string) (*connection, error) {
	w, err := pageWindow(b.Args, conn, engine.SelectsItems(b.Field.SelectionSet))
	if err != nil {
		return nil, err
	}
	start, end := w.bounds(len(list))
	start, end = min(start, len(list)), min(end, len(list))
	c := &connection{offset: start, total: len(list)}
	if end > start {
		c.nodes = make([]any, 0, end-start)
	}
	for _, v := range list[start:end] {
		c.nodes = append(c.nodes, v)
	}
	return c, nil
}

func encodeCursor(off int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:v2:" + strconv.Itoa(off)))
}

func decodeCursor(s string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	n, ok := strings.CutPrefix(string(b), "cursor:v2:")
	if !ok {
		return 0, false
	}
	off, err := strconv.Atoi(n)
	return off, err == nil && off >= 0
}

// connectionTypes registers the fields of a connection type and its edge.
func (a *API) connectionTypes(conn, edgeType string) {
	a.field(conn, "totalCount", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*connection).total, nil })
	a.field(conn, "nodes", func(_ context.Context, p any, _ map[string]any) (any, error) {
		if n := p.(*connection).nodes; n != nil {
			return n, nil
		}
		return []any{}, nil
	})
	a.field(conn, "pageInfo", func(_ context.Context, p any, _ map[string]any) (any, error) { return pageInfo{p.(*connection)}, nil })
	a.field(conn, "edges", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(*connection)
		out := make([]*edge, len(c.nodes))
		for i, n := range c.nodes {
			out[i] = &edge{node: n, cursor: encodeCursor(c.offset + i)}
		}
		return out, nil
	})
	a.field(edgeType, "node", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*edge).node, nil })
	a.field(edgeType, "cursor", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*edge).cursor, nil })
}

func (a *API) registerPageInfo() {
	a.field("PageInfo", "hasNextPage", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(pageInfo).c
		return c.offset+len(c.nodes) < c.total, nil
	})
	a.field("PageInfo", "hasPreviousPage", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(pageInfo).c.offset > 0, nil
	})
	a.field("PageInfo", "startCursor", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(pageInfo).c
		if len(c.nodes) == 0 {
			return nil, nil
		}
		return encodeCursor(c.offset), nil
	})
	a.field("PageInfo", "endCursor", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(pageInfo).c
		if len(c.nodes) == 0 {
			return nil, nil
		}
		return encodeCursor(c.offset + len(c.nodes) - 1), nil
	})
}
