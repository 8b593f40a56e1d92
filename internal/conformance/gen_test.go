package conformance

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// long is past every length limit GitHub has on a string field (the
// largest, an issue or comment body, is 65,536 characters).
var long = strings.Repeat("a", 70000)

// types is every JSON type a schema permits, looking through oneOf/anyOf
// (GitHub's description gives a milestone as oneOf string, integer).
func types(s *openapi3.Schema) map[string]bool {
	out := map[string]bool{}
	if s == nil {
		return out
	}
	if s.Type != nil {
		for _, t := range s.Type.Slice() {
			out[t] = true
		}
	}
	for _, refs := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf, s.AllOf} {
		for _, r := range refs {
			for t := range types(r.Value) {
				out[t] = true
			}
		}
	}
	if out["integer"] {
		out["number"] = true
	}
	if s.Nullable {
		out["null"] = true
	}
	return out
}

// props are a schema's properties, with those of its allOf/oneOf/anyOf
// branches.
func props(s *openapi3.Schema) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	if s == nil {
		return out
	}
	for n, r := range s.Properties {
		if r != nil && r.Value != nil {
			out[n] = r.Value
		}
	}
	for _, refs := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf, s.AnyOf} {
		for _, r := range refs {
			for n, v := range props(r.Value) {
				if _, ok := out[n]; !ok {
					out[n] = v
				}
			}
		}
	}
	return out
}

func required(s *openapi3.Schema) []string {
	if s == nil {
		return nil
	}
	out := append([]string(nil), s.Required...)
	for _, refs := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf} {
		if len(refs) > 0 && refs[0].Value != nil {
			// oneOf: the first branch's requirements make one valid body.
			out = append(out, required(refs[0].Value)...)
		}
	}
	return out
}

// wrongType is a value of a JSON type the schema does not permit.
func wrongType(s *openapi3.Schema) (any, bool) {
	ts := types(s)
	if len(ts) == 0 {
		return nil, false // any type is fine
	}
	switch {
	case !ts["number"]:
		return 12345, true
	case !ts["string"]:
		return "zq", true
	case !ts["object"]:
		return map[string]any{"zq": []any{1}}, true
	case !ts["boolean"]:
		return true, true
	}
	return nil, false
}

// plausible is a value a GitHub client would send for a property, drawn
// from the fixtures where the name says what it refers to, otherwise from
// the schema (enum, example, default, type).
func (w *world) plausible(name string, s *openapi3.Schema, tg target, depth int) any {
	f := tg.repo
	w.seq++
	uniq := fmt.Sprintf("fz-%d", w.seq)
	switch name {
	case "sha", "object", "commit_id", "base_tree", "after", "before":
		return f.commit
	case "tree":
		if types(s)["array"] {
			return []any{map[string]any{"path": "fz.txt", "mode": "100644", "type": "blob", "content": "fz"}}
		}
		return f.tree
	case "parents":
		return []any{f.commit}
	case "ref":
		return "refs/heads/" + uniq
	case "content":
		if len(s.Enum) == 0 {
			return "aGVsbG8K"
		}
	case "name", "login", "tag", "new_name", "title", "key":
		return uniq
	case "color":
		return "ededed"
	case "labels":
		return []any{f.label}
	case "assignees", "assignee":
		if types(s)["array"] {
			return []any{"alice"}
		}
		return "alice"
	case "sub_issue_id", "issue_id":
		return f.issue3ID
	case "field_id":
		return w.fieldID
	case "admin":
		return "alice"
	case "email":
		return uniq + "@example.com"
	case "path":
		return "fz.txt"
	case "mode":
		return "100644"
	case "scopes":
		return []any{"repo"}
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if s.Example != nil {
		return s.Example
	}
	if s.Default != nil {
		return s.Default
	}
	ts := types(s)
	switch {
	case ts["object"] || len(props(s)) > 0:
		if depth > 3 {
			return map[string]any{}
		}
		return w.object(s, tg, depth+1)
	case ts["string"]:
		if s.Format == "date-time" {
			return "2030-01-01T00:00:00Z"
		}
		return "fuzz"
	case ts["integer"], ts["number"]:
		return 1
	case ts["boolean"]:
		return true
	case ts["array"]:
		if s.Items != nil && s.Items.Value != nil && depth <= 3 {
			return []any{w.plausible(strings.TrimSuffix(name, "s"), s.Items.Value, tg, depth+1)}
		}
		return []any{}
	}
	return "fuzz"
}

// object is a body with the schema's required properties.
func (w *world) object(s *openapi3.Schema, tg target, depth int) map[string]any {
	out := map[string]any{}
	ps := props(s)
	for _, n := range required(s) {
		if p, ok := ps[n]; ok {
			out[n] = w.plausible(n, p, tg, depth)
		}
	}
	return out
}

// mutation is one bad value for a property, named by its kind.
type mutation struct {
	kind  string
	value any
}

// mutations are the bad values for a value of schema s: a wrong type; for
// strings an oversized one, a NUL byte and other control characters; for
// arrays and objects the same one level down.
func (w *world) mutations(s *openapi3.Schema, tg target, depth int) []mutation {
	var out []mutation
	if v, ok := wrongType(s); ok {
		out = append(out, mutation{"wrong-type", v})
	}
	ts := types(s)
	if ts["string"] {
		out = append(out, mutation{"oversized", long}, mutation{"nul", "a\x00b"}, mutation{"control", "a\x01\x1b\x7f\u2028b"})
	}
	if depth >= 2 {
		return out
	}
	if ts["array"] && s.Items != nil && s.Items.Value != nil {
		for _, m := range w.mutations(s.Items.Value, tg, depth+1) {
			out = append(out, mutation{"[]" + m.kind, []any{m.value}})
		}
	}
	if ps := props(s); len(ps) > 0 && (ts["object"] || len(ts) == 0) {
		base := w.object(s, tg, depth+1)
		for _, n := range sortedKeys(ps) {
			for _, m := range w.mutations(ps[n], tg, depth+1) {
				obj := map[string]any{}
				for k, v := range base {
					obj[k] = v
				}
				obj[n] = m.value
				out = append(out, mutation{"." + n + ":" + m.kind, obj})
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
