package engine

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Cost is GitHub's rate-limit arithmetic for a document: every connection
// is assumed to return as many items as its first or last asks for; a
// connection needs one request per item of the connections around it, and
// holds that many times its own page of nodes. Points are the requests
// divided by 100, rounded, at least 1.
type Cost struct {
	Requests int // requests to fulfil every connection
	Nodes    int // nodes the document may return
	Points   int
	// Over names the first connection that alone may return more than
	// MaxNodes nodes (its page times the pages of the connections around
	// it), with that number: GitHub names it so. A document past MaxNodes
	// only in its sum has no Over.
	Over      string
	OverNodes int
}

// MaxNodes is GitHub's node limit per document.
const MaxNodes = 500_000

// costCap bounds the counts of a cost (a document nests at most MaxDepth
// connections of up to maxPageCost items: the product would overflow).
const (
	costCap     = 1 << 40
	maxPageCost = 1 << 20
)

// Cost computes what p costs.
func (s *Schema) Cost(p *Prepared) Cost {
	c := &Cost{}
	root := s.AST.Query
	if p.Op.Operation == ast.Mutation {
		root = s.AST.Mutation
	}
	w := &costWalk{s: s, doc: p.Doc, vars: p.Vars, c: c}
	w.walk(root, p.Op.SelectionSet, 1, map[string]bool{})
	c.Points = (c.Requests + 50) / 100
	if c.Points < 1 {
		c.Points = 1
	}
	return *c
}

type costWalk struct {
	s    *Schema
	doc  *ast.QueryDocument
	vars map[string]any
	c    *Cost
}

// walk counts a selection with the fragments it spreads, each once, as
// execution spreads them (a fragment spread twice in one selection is
// walked once: a fan-out of fragments costs its size, not 2^n). Counts
// saturate at costCap, far past MaxNodes (no product overflows).
func (w *costWalk) walk(typ *ast.Definition, ss ast.SelectionSet, mult int, visited map[string]bool) {
	if typ == nil {
		return
	}
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			def := typ.Fields.ForName(s.Name)
			if def == nil {
				continue
			}
			child := w.s.AST.Types[def.Type.Name()]
			m := mult
			if isConnection(def) {
				size := pageSize(s.ArgumentMap(w.vars))
				w.c.Requests = min(w.c.Requests+mult, costCap)
				m = min(mult*size, costCap)
				w.c.Nodes = min(w.c.Nodes+m, costCap)
				if w.c.Over == "" && m > MaxNodes {
					w.c.Over, w.c.OverNodes = s.Name, m
				}
			}
			var scope map[string]bool
			if len(s.SelectionSet) > 0 {
				scope = map[string]bool{}
			}
			w.walk(child, s.SelectionSet, m, scope)
		case *ast.InlineFragment:
			t := typ
			if s.TypeCondition != "" {
				t = w.s.AST.Types[s.TypeCondition]
			}
			w.walk(t, s.SelectionSet, mult, visited)
		case *ast.FragmentSpread:
			f := w.doc.Fragments.ForName(s.Name)
			if f == nil || visited[s.Name] {
				continue
			}
			visited[s.Name] = true
			w.walk(w.s.AST.Types[f.TypeCondition], f.SelectionSet, mult, visited)
		}
	}
}

// isConnection: a field returning a *Connection type that pages with
// first/last.
func isConnection(def *ast.FieldDefinition) bool {
	return strings.HasSuffix(def.Type.Name(), "Connection") && def.Arguments.ForName("first") != nil
}

func pageSize(args map[string]any) int {
	n := 0
	for _, k := range []string{"first", "last"} {
		switch v := args[k].(type) {
		case int64:
			n = max(n, int(v))
		case int:
			n = max(n, v)
		case interface{ Int64() (int64, error) }:
			if i, err := v.Int64(); err == nil {
				n = max(n, int(i))
			}
		}
	}
	return min(max(n, 1), maxPageCost)
}
