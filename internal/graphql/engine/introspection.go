package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Introspection answers from the loaded schema itself, so what clients
// learn (gh asks which fields Repository, Issue and PullRequest have) is
// exactly what the engine executes.

// iType is a __Type: a named definition, or a NON_NULL / LIST wrapper.
type iType struct {
	kind string // "" for a named type
	def  *ast.Definition
	of   *iType
}

type iField struct {
	def *ast.FieldDefinition
}

type iInput struct {
	def *ast.ArgumentDefinition // arguments; input fields come as FieldDefinition
	fld *ast.FieldDefinition
}

type iEnum struct{ def *ast.EnumValueDefinition }

type iDirective struct{ def *ast.DirectiveDefinition }

type iSchema struct{}

func (s *Schema) typeRef(t *ast.Type) *iType {
	if t.NonNull {
		c := *t
		c.NonNull = false
		return &iType{kind: "NON_NULL", of: s.typeRef(&c)}
	}
	if t.Elem != nil {
		return &iType{kind: "LIST", of: s.typeRef(t.Elem)}
	}
	return &iType{def: s.AST.Types[t.NamedType]}
}

func deprecation(l ast.DirectiveList) (bool, any) {
	d := l.ForName("deprecated")
	if d == nil {
		return false, nil
	}
	reason := "No longer supported"
	if a := d.Arguments.ForName("reason"); a != nil && a.Value != nil {
		reason = a.Value.Raw
	}
	return true, reason
}

func strOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Schema) registerIntrospection() {
	q := s.AST.Query.Name
	s.AST.Query.Fields = append(s.AST.Query.Fields,
		&ast.FieldDefinition{Name: "__schema", Type: ast.NonNullNamedType("__Schema", nil)},
		&ast.FieldDefinition{Name: "__type", Type: ast.NamedType("__Type", nil), Arguments: ast.ArgumentDefinitionList{
			{Name: "name", Type: ast.NonNullNamedType("String", nil)},
		}},
	)
	s.resolvers[q+".__schema"] = Each(func(ctx context.Context, p any, args map[string]any) (any, error) {
		return iSchema{}, nil
	})
	s.resolvers[q+".__type"] = Each(func(ctx context.Context, p any, args map[string]any) (any, error) {
		name, _ := args["name"].(string)
		d := s.AST.Types[name]
		if d == nil {
			return nil, nil
		}
		return &iType{def: d}, nil
	})
	r := func(typ, field string, f func(p any, args map[string]any) any) {
		s.resolvers[typ+"."+field] = Each(func(ctx context.Context, p any, args map[string]any) (any, error) {
			return f(p, args), nil
		})
	}
	// __Schema
	r("__Schema", "description", func(p any, _ map[string]any) any { return nil })
	r("__Schema", "types", func(p any, _ map[string]any) any {
		names := make([]string, 0, len(s.AST.Types))
		for n := range s.AST.Types {
			names = append(names, n)
		}
		sort.Strings(names)
		out := make([]*iType, len(names))
		for i, n := range names {
			out[i] = &iType{def: s.AST.Types[n]}
		}
		return out
	})
	r("__Schema", "queryType", func(p any, _ map[string]any) any { return &iType{def: s.AST.Query} })
	r("__Schema", "mutationType", func(p any, _ map[string]any) any {
		if s.AST.Mutation == nil {
			return nil
		}
		return &iType{def: s.AST.Mutation}
	})
	r("__Schema", "subscriptionType", func(p any, _ map[string]any) any { return nil })
	r("__Schema", "directives", func(p any, _ map[string]any) any {
		names := make([]string, 0, len(s.AST.Directives))
		for n := range s.AST.Directives {
			names = append(names, n)
		}
		sort.Strings(names)
		out := make([]iDirective, len(names))
		for i, n := range names {
			out[i] = iDirective{s.AST.Directives[n]}
		}
		return out
	})
	// __Type
	r("__Type", "kind", func(p any, _ map[string]any) any {
		t := p.(*iType)
		if t.kind != "" {
			return t.kind
		}
		switch t.def.Kind {
		case ast.InputObject:
			return "INPUT_OBJECT"
		}
		return string(t.def.Kind)
	})
	r("__Type", "name", func(p any, _ map[string]any) any {
		if t := p.(*iType); t.kind == "" {
			return t.def.Name
		}
		return nil
	})
	r("__Type", "description", func(p any, _ map[string]any) any {
		if t := p.(*iType); t.kind == "" {
			return strOrNil(t.def.Description)
		}
		return nil
	})
	r("__Type", "specifiedByURL", func(p any, _ map[string]any) any { return nil })
	r("__Type", "isOneOf", func(p any, _ map[string]any) any {
		if t := p.(*iType); t.kind == "" && t.def.Kind == ast.InputObject {
			return t.def.Directives.ForName("oneOf") != nil
		}
		return nil
	})
	r("__Type", "fields", func(p any, args map[string]any) any {
		t := p.(*iType)
		if t.kind != "" || (t.def.Kind != ast.Object && t.def.Kind != ast.Interface) {
			return nil
		}
		all, _ := args["includeDeprecated"].(bool)
		out := []iField{}
		for _, f := range t.def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if dep, _ := deprecation(f.Directives); dep && !all {
				continue
			}
			out = append(out, iField{f})
		}
		return out
	})
	r("__Type", "interfaces", func(p any, _ map[string]any) any {
		t := p.(*iType)
		if t.kind != "" || (t.def.Kind != ast.Object && t.def.Kind != ast.Interface) {
			return nil
		}
		out := []*iType{}
		for _, n := range t.def.Interfaces {
			out = append(out, &iType{def: s.AST.Types[n]})
		}
		return out
	})
	r("__Type", "possibleTypes", func(p any, _ map[string]any) any {
		t := p.(*iType)
		if t.kind != "" || (t.def.Kind != ast.Interface && t.def.Kind != ast.Union) {
			return nil
		}
		out := []*iType{}
		for _, d := range s.AST.GetPossibleTypes(t.def) {
			out = append(out, &iType{def: d})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].def.Name < out[j].def.Name })
		return out
	})
	r("__Type", "enumValues", func(p any, args map[string]any) any {
		t := p.(*iType)
		if t.kind != "" || t.def.Kind != ast.Enum {
			return nil
		}
		all, _ := args["includeDeprecated"].(bool)
		out := []iEnum{}
		for _, v := range t.def.EnumValues {
			if dep, _ := deprecation(v.Directives); dep && !all {
				continue
			}
			out = append(out, iEnum{v})
		}
		return out
	})
	r("__Type", "inputFields", func(p any, args map[string]any) any {
		t := p.(*iType)
		if t.kind != "" || t.def.Kind != ast.InputObject {
			return nil
		}
		out := []iInput{}
		for _, f := range t.def.Fields {
			out = append(out, iInput{fld: f})
		}
		return out
	})
	r("__Type", "ofType", func(p any, _ map[string]any) any {
		if t := p.(*iType); t.of != nil {
			return t.of
		}
		return nil
	})
	// __Field
	r("__Field", "name", func(p any, _ map[string]any) any { return p.(iField).def.Name })
	r("__Field", "description", func(p any, _ map[string]any) any { return strOrNil(p.(iField).def.Description) })
	r("__Field", "args", func(p any, _ map[string]any) any {
		out := []iInput{}
		for _, a := range p.(iField).def.Arguments {
			out = append(out, iInput{def: a})
		}
		return out
	})
	r("__Field", "type", func(p any, _ map[string]any) any { return s.typeRef(p.(iField).def.Type) })
	r("__Field", "isDeprecated", func(p any, _ map[string]any) any {
		dep, _ := deprecation(p.(iField).def.Directives)
		return dep
	})
	r("__Field", "deprecationReason", func(p any, _ map[string]any) any {
		_, why := deprecation(p.(iField).def.Directives)
		return why
	})
	// __InputValue
	r("__InputValue", "name", func(p any, _ map[string]any) any { return p.(iInput).name() })
	r("__InputValue", "description", func(p any, _ map[string]any) any { return strOrNil(p.(iInput).description()) })
	r("__InputValue", "type", func(p any, _ map[string]any) any { return s.typeRef(p.(iInput).typ()) })
	r("__InputValue", "defaultValue", func(p any, _ map[string]any) any {
		if v := p.(iInput).defaultValue(); v != nil {
			return v.String()
		}
		return nil
	})
	r("__InputValue", "isDeprecated", func(p any, _ map[string]any) any {
		dep, _ := deprecation(p.(iInput).directives())
		return dep
	})
	r("__InputValue", "deprecationReason", func(p any, _ map[string]any) any {
		_, why := deprecation(p.(iInput).directives())
		return why
	})
	// __EnumValue
	r("__EnumValue", "name", func(p any, _ map[string]any) any { return p.(iEnum).def.Name })
	r("__EnumValue", "description", func(p any, _ map[string]any) any { return strOrNil(p.(iEnum).def.Description) })
	r("__EnumValue", "isDeprecated", func(p any, _ map[string]any) any {
		dep, _ := deprecation(p.(iEnum).def.Directives)
		return dep
	})
	r("__EnumValue", "deprecationReason", func(p any, _ map[string]any) any {
		_, why := deprecation(p.(iEnum).def.Directives)
		return why
	})
	// __Directive
	r("__Directive", "name", func(p any, _ map[string]any) any { return p.(iDirective).def.Name })
	r("__Directive", "description", func(p any, _ map[string]any) any { return strOrNil(p.(iDirective).def.Description) })
	r("__Directive", "isRepeatable", func(p any, _ map[string]any) any { return p.(iDirective).def.IsRepeatable })
	r("__Directive", "locations", func(p any, _ map[string]any) any {
		out := []string{}
		for _, l := range p.(iDirective).def.Locations {
			out = append(out, string(l))
		}
		return out
	})
	r("__Directive", "args", func(p any, _ map[string]any) any {
		out := []iInput{}
		for _, a := range p.(iDirective).def.Arguments {
			out = append(out, iInput{def: a})
		}
		return out
	})
}

func (i iInput) name() string {
	if i.def != nil {
		return i.def.Name
	}
	return i.fld.Name
}

func (i iInput) description() string {
	if i.def != nil {
		return i.def.Description
	}
	return i.fld.Description
}

func (i iInput) typ() *ast.Type {
	if i.def != nil {
		return i.def.Type
	}
	return i.fld.Type
}

func (i iInput) defaultValue() *ast.Value {
	if i.def != nil {
		return i.def.DefaultValue
	}
	return i.fld.DefaultValue
}

func (i iInput) directives() ast.DirectiveList {
	if i.def != nil {
		return i.def.Directives
	}
	return i.fld.Directives
}
