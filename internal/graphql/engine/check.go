package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
)

// CheckResponse verifies that data (a response's decoded `data`) has
// exactly the shape the operation asks of the schema: every selected key
// and no other, values of the declared scalar and enum types, null only
// where the type allows it. Tests run it on every response.
func (s *Schema) CheckResponse(p *Prepared, data any) error {
	ex := &execution{s: s, vars: p.Vars, doc: p.Doc, ctx: context.Background()}
	root := s.AST.Query
	if p.Op.Operation == ast.Mutation {
		root = s.AST.Mutation
	}
	if data == nil {
		return nil // a null root: the errors say why
	}
	return ex.check(&ast.Type{NamedType: root.Name}, []ast.SelectionSet{p.Op.SelectionSet}, data, "data")
}

func (ex *execution) check(t *ast.Type, sels []ast.SelectionSet, v any, path string) error {
	if v == nil {
		if t.NonNull {
			return fmt.Errorf("%s: null for non-null %s", path, t.String())
		}
		return nil
	}
	if t.Elem != nil {
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: %T for list %s", path, v, t.String())
		}
		for i, item := range l {
			if err := ex.check(t.Elem, sels, item, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	d := ex.s.AST.Types[t.NamedType]
	switch d.Kind {
	case ast.Scalar:
		return checkScalar(d.Name, v, path)
	case ast.Enum:
		s, ok := v.(string)
		if !ok || d.EnumValues.ForName(s) == nil {
			return fmt.Errorf("%s: %v is not a %s", path, v, d.Name)
		}
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %T for object %s", path, v, d.Name)
	}
	candidates := []*ast.Definition{d}
	if d.Kind != ast.Object {
		candidates = ex.s.AST.GetPossibleTypes(d)
		if tn, ok := m["__typename"].(string); ok {
			candidates = []*ast.Definition{ex.s.AST.Types[tn]}
			if candidates[0] == nil {
				return fmt.Errorf("%s: unknown __typename %s", path, tn)
			}
		}
	}
	var firstErr error
	for _, c := range candidates {
		err := ex.checkObject(c, sels, m, path)
		if err == nil {
			return nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

func (ex *execution) checkObject(d *ast.Definition, sels []ast.SelectionSet, m map[string]any, path string) error {
	fields := ex.collect(d, sels)
	want := map[string]bool{}
	for _, cf := range fields {
		want[cf.key] = true
		v, ok := m[cf.key]
		if !ok {
			return fmt.Errorf("%s: %s has no key %q", path, d.Name, cf.key)
		}
		f := cf.fields[0]
		if f.Name == "__typename" {
			if v != d.Name {
				return fmt.Errorf("%s.__typename: %v, want %s", path, v, d.Name)
			}
			continue
		}
		def := d.Fields.ForName(f.Name)
		if def == nil && (f.Name == "__schema" || f.Name == "__type") {
			continue // introspection answers are the engine's own
		}
		if def == nil {
			return fmt.Errorf("%s: %s has no field %s", path, d.Name, f.Name)
		}
		var subs []ast.SelectionSet
		for _, fa := range cf.fields {
			if len(fa.SelectionSet) > 0 {
				subs = append(subs, fa.SelectionSet)
			}
		}
		if err := ex.check(def.Type, subs, v, path+"."+cf.key); err != nil {
			return err
		}
	}
	var extra []string
	for k := range m {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Errorf("%s: %s has keys nobody asked for: %s", path, d.Name, strings.Join(extra, ", "))
	}
	return nil
}

func checkScalar(name string, v any, path string) error {
	bad := func() error { return fmt.Errorf("%s: %#v is not a %s", path, v, name) }
	switch name {
	case "Int":
		n, ok := number(v)
		if !ok || n != math.Trunc(n) || n > math.MaxInt32 || n < math.MinInt32 {
			return bad()
		}
	case "Float":
		if _, ok := number(v); !ok {
			return bad()
		}
	case "Boolean":
		if _, ok := v.(bool); !ok {
			return bad()
		}
	case "DateTime":
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return bad()
		}
	default:
		if _, ok := v.(string); !ok {
			return bad()
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
