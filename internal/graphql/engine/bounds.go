package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// What a document may ask before it is validated, so that no document
// costs more than a bounded amount of work to refuse or to run. GitHub
// publishes none of these numbers but the depth (25, as clients observe);
// the messages are graphql-ruby's, which GitHub serves.
const (
	// MaxDocumentBytes and MaxTokens bound what the lexer and parser read.
	MaxDocumentBytes = 256 << 10
	MaxTokens        = 30_000
	// MaxDepth is the deepest field nesting, fragments spread.
	MaxDepth = 25
	// MaxSelections bounds the selections (fields, fragment spreads and
	// inline fragments) of the whole document once its fragments are
	// spread the way execution spreads them (each fragment once per
	// selection, wherever it is spread), all operations together: what
	// validation, cost and execution walk.
	MaxSelections = 25_000
	// mergeBudget bounds the work of the field-merging check (fields
	// gathered and compared); no document within MaxSelections that
	// clients send comes near it.
	mergeBudget = 8 * MaxSelections
	// fragmentBudget bounds the selections of the fragment definitions,
	// each with the fragments it spreads: the validator walks each
	// definition so, on its own, besides the operations (a chain of
	// fragments spreading one another costs the square of its length).
	fragmentBudget = 4 * MaxSelections
)

// tooLarge is graphql-ruby's answer to a document past its token limit or
// nesting the parser refuses; the engine gives it too to a document past a
// validation budget (fragmentBudget, mergeBudget).
const tooLarge = "This query is too large to execute."

// errCanceled stops validation when the request's context ends; errOver
// stops the measure of a document past MaxSelections; errTooLarge stops
// one past a validation budget.
var (
	errCanceled = fmt.Errorf("graphql: request canceled")
	errOver     = fmt.Errorf("graphql: too many selections")
	errTooLarge = fmt.Errorf("graphql: too large")
)

// ctxEvery is how many steps of a walk pass between two looks at the
// request's context.
const ctxEvery = 1024

// measure computes each operation's selections and depth with fragments spread
// as execution spreads them: a field's selection, with the inline
// fragments and fragment spreads it holds (each fragment once however
// often it is spread there), is one scope. The size and depth of a field's
// scope are computed once per field of the document, so a fragment spread
// in many places costs its own size once, and a fan-out of fragments
// (each spreading the next twice) is counted, not walked. It stops as soon
// as the document passes MaxSelections, so it walks at most about that
// many selections.
type measure struct {
	ctx   context.Context
	frags map[string]*ast.FragmentDefinition
	memo  map[*ast.Field]scopeSize
	steps int
}

type scopeSize struct {
	selections, depth int
	busy              bool // being measured: a field inside its own scope (a fragment cycle, which validation refuses) counts nothing
}

func newMeasure(ctx context.Context, doc *ast.QueryDocument) *measure {
	return &measure{ctx: ctx, frags: fragmentIndex(doc), memo: map[*ast.Field]scopeSize{}}
}

// document sums the selections of every operation and finds the deepest;
// errOver past MaxSelections. The fragment definitions, each measured on
// its own as the validator walks it, must stay within fragmentBudget
// (errTooLarge).
func (m *measure) document(doc *ast.QueryDocument) (selections, depth int, err error) {
	for _, op := range doc.Operations {
		n, d, err := m.scope(op.SelectionSet)
		if err != nil {
			return 0, 0, err
		}
		if selections += n; selections > MaxSelections {
			return 0, 0, errOver
		}
		depth = max(depth, d)
	}
	inFragments := 0
	for _, f := range doc.Fragments {
		n, _, err := m.scope(f.SelectionSet)
		if err == errOver {
			err = errTooLarge
		}
		if err != nil {
			return 0, 0, err
		}
		if inFragments += n; inFragments > fragmentBudget {
			return 0, 0, errTooLarge
		}
	}
	return selections, depth, nil
}

// scope measures one selection with the fragments it reaches without
// crossing a field; errOver as soon as it passes MaxSelections.
func (m *measure) scope(ss ast.SelectionSet) (selections, depth int, err error) {
	tick := func() error {
		if selections++; selections > MaxSelections {
			return errOver
		}
		if m.steps++; m.steps%ctxEvery == 0 && m.ctx.Err() != nil {
			return errCanceled
		}
		return nil
	}
	err = walkScope([]ast.SelectionSet{ss}, m.frags, tick, func(s *ast.Field) error {
		n, d, err := m.field(s)
		if selections += n; selections > MaxSelections {
			return errOver
		}
		depth = max(depth, 1+d)
		return err
	})
	return selections, depth, err
}

// walkScope calls field for each field of a scope: the selections sels
// with their inline fragments and the fragments they spread, each fragment
// once (as execution collects them). tick is called for every selection; an
// error of either stops the walk.
func walkScope(sels []ast.SelectionSet, frags map[string]*ast.FragmentDefinition, tick func() error, field func(*ast.Field) error) error {
	var visited map[string]bool
	var walk func(ss ast.SelectionSet) error
	walk = func(ss ast.SelectionSet) error {
		for _, sel := range ss {
			if err := tick(); err != nil {
				return err
			}
			var next ast.SelectionSet
			switch s := sel.(type) {
			case *ast.Field:
				if err := field(s); err != nil {
					return err
				}
				continue
			case *ast.InlineFragment:
				next = s.SelectionSet
			case *ast.FragmentSpread:
				def := frags[s.Name]
				if visited[s.Name] || def == nil {
					continue
				}
				if visited == nil {
					visited = map[string]bool{}
				}
				visited[s.Name] = true
				next = def.SelectionSet
			}
			if err := walk(next); err != nil {
				return err
			}
		}
		return nil
	}
	for _, ss := range sels {
		if err := walk(ss); err != nil {
			return err
		}
	}
	return nil
}

// field measures the scope of a field's selection, once per field.
func (m *measure) field(f *ast.Field) (selections, depth int, err error) {
	if len(f.SelectionSet) == 0 {
		return 0, 0, nil
	}
	if z, ok := m.memo[f]; ok {
		return z.selections, z.depth, nil // a busy one counts nothing
	}
	m.memo[f] = scopeSize{busy: true}
	selections, depth, err = m.scope(f.SelectionSet)
	m.memo[f] = scopeSize{selections: selections, depth: depth}
	return selections, depth, err
}

// checkBounds refuses a parsed document past MaxSelections or MaxDepth,
// with graphql-ruby's messages (its complexity counts a field 1, as this
// counts a selection); errCanceled when ctx ends first.
func checkBounds(ctx context.Context, doc *ast.QueryDocument) (*gqlerror.Error, error) {
	_, depth, err := newMeasure(ctx, doc).document(doc)
	switch {
	case err == errOver:
		return gqlerror.Errorf("Query has complexity of more than %d, which exceeds max complexity of %d", MaxSelections, MaxSelections), nil
	case err == errTooLarge:
		return gqlerror.Errorf(tooLarge), nil
	case err != nil:
		return nil, err
	case depth > MaxDepth:
		return gqlerror.Errorf("Query has depth of %d, which exceeds max depth of %d", depth, MaxDepth), nil
	}
	return nil, nil
}

// merger checks that fields of one response name can merge (the rule
// "overlapping fields can be merged"), in time linear in the fields it
// gathers: the fields of one name are compared with one representative
// rather than with each other, and the selections of the fields that merge
// are gathered into one scope and checked once, rather than pair by pair.
//
// Two fields of one name merge when they select the same field with the
// same arguments, unless they are selected on two different object types
// (they then never meet in one object). Selected on the same object type
// or where either parent is abstract, they are compared: equality of name
// and arguments is an equivalence, so comparing each with the first field
// of an abstract parent (or, lacking one, the first of its own object
// type) finds every conflict. Fields of one name may return different
// types on different object types, as GitHub allows (lenient), so no
// type is compared.
type merger struct {
	ctx   context.Context
	frags map[string]*ast.FragmentDefinition
	errs  gqlerror.List
	work  int
}

// check runs the rule on every operation of doc.
func (mg *merger) check(doc *ast.QueryDocument) error {
	for _, op := range doc.Operations {
		if err := mg.scope([]ast.SelectionSet{op.SelectionSet}); err != nil {
			return err
		}
	}
	return nil
}

// tick counts one unit of work, and stops the check past its budget or
// when the request ends.
func (mg *merger) tick() error {
	mg.work++
	if mg.work > mergeBudget {
		return errTooLarge
	}
	if mg.work%ctxEvery == 0 && mg.ctx.Err() != nil {
		return errCanceled
	}
	return nil
}

// group is the fields of one response name in a scope.
type group struct {
	key    string
	fields []*ast.Field
}

func (g group) responseKey() string { return g.key }

// scope gathers the fields of the selections sels (fragments spread once
// each), checks each response name, and goes on into the selections of
// the fields that merge.
func (mg *merger) scope(sels []ast.SelectionSet) error {
	var groups []group
	var index map[string]int // once there are many groups
	err := walkScope(sels, mg.frags, mg.tick, func(s *ast.Field) error {
		k := s.Alias
		if k == "" {
			k = s.Name
		}
		i := findKey(groups, index, k)
		if i < 0 {
			i = len(groups)
			groups = append(groups, group{key: k})
			index = indexKey(groups, index)
		}
		groups[i].fields = append(groups[i].fields, s)
		return nil
	})
	if err != nil {
		return err
	}
	for _, g := range groups {
		if err := mg.group(g); err != nil {
			return err
		}
	}
	return nil
}

// abstract reports whether a field's parent type may be more than one
// object type (an interface, a union, or unknown).
func abstract(f *ast.Field) bool {
	return f.ObjectDefinition == nil || f.ObjectDefinition.Kind != ast.Object
}

func (mg *merger) group(g group) error {
	if len(g.fields) == 1 {
		return mg.sub(g.fields)
	}
	var rep *ast.Field // the first field of an abstract parent
	for _, f := range g.fields {
		if abstract(f) {
			rep = f
			break
		}
	}
	// The fields that merge: with an abstract representative, all of them
	// for each object type (the abstract ones with each); otherwise those
	// of each object type.
	var shared []*ast.Field
	byType := map[string][]*ast.Field{}
	var order []string
	for _, f := range g.fields {
		if err := mg.tick(); err != nil {
			return err
		}
		r := rep
		if abstract(f) {
			shared = append(shared, f)
		} else {
			t := f.ObjectDefinition.Name
			if _, ok := byType[t]; !ok {
				order = append(order, t)
			}
			byType[t] = append(byType[t], f)
			if r == nil {
				r = byType[t][0]
			}
		}
		if r != f {
			mg.compare(g.key, r, f)
		}
	}
	if len(order) == 0 {
		return mg.sub(shared)
	}
	for _, t := range order {
		if err := mg.sub(append(shared[:len(shared):len(shared)], byType[t]...)); err != nil {
			return err
		}
	}
	return nil
}

// sub checks the selections of fields that merge, as one scope.
func (mg *merger) sub(fields []*ast.Field) error {
	var sels []ast.SelectionSet
	for _, f := range fields {
		if len(f.SelectionSet) > 0 {
			sels = append(sels, f.SelectionSet)
		}
	}
	if len(sels) == 0 {
		return nil
	}
	return mg.scope(sels)
}

// compare reports, as graphql-ruby does, two fields of one response name
// that select different fields or pass different arguments.
func (mg *merger) compare(key string, a, b *ast.Field) {
	if before(b, a) {
		a, b = b, a // named in the document's order, at the later field
	}
	if a.Name != b.Name {
		mg.errs = append(mg.errs, gqlerror.ErrorPosf(b.Position, "Field '%s' has a field conflict: %s or %s?", key, a.Name, b.Name))
		return
	}
	if !sameArgs(a.Arguments, b.Arguments) {
		mg.errs = append(mg.errs, gqlerror.ErrorPosf(b.Position, "Field '%s' has an argument conflict: %s or %s?", key, argsString(a.Arguments), argsString(b.Arguments)))
	}
}

func before(a, b *ast.Field) bool {
	return a.Position != nil && b.Position != nil && a.Position.Start < b.Position.Start
}

func sameArgs(a, b ast.ArgumentList) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		y := b.ForName(x.Name)
		if y == nil || x.Value.String() != y.Value.String() {
			return false
		}
	}
	return true
}

// argsString writes arguments as GraphQL input, {name: value, ...}.
func argsString(args ast.ArgumentList) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.Name)
		b.WriteString(": ")
		b.WriteString(a.Value.String())
	}
	b.WriteByte('}')
	return b.String()
}
