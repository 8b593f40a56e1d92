package scim

import (
	"strings"
)

// GroupAttrs are the attributes of a SCIM group a client writes; Members
// are SCIM user ids.
type GroupAttrs struct {
	DisplayName string
	ExternalID  string
	Members     []string
}

// ParseGroup reads a full group resource (POST, PUT).
func ParseGroup(obj map[string]any) (GroupAttrs, error) {
	g := GroupAttrs{Members: []string{}}
	for k, v := range obj {
		if err := g.set("replace", strings.ToLower(k), v, false); err != nil {
			return g, err
		}
	}
	return g, g.validate()
}

func (g *GroupAttrs) validate() error {
	if strings.TrimSpace(g.DisplayName) == "" {
		return badRequest(InvalidValue, "displayName is required.")
	}
	return nil
}

func (g *GroupAttrs) set(op, attr string, v any, strict bool) error {
	var err error
	switch attr {
	case "schemas", "id", "meta":
	case "displayname":
		if op == "remove" {
			return badRequest(Mutability, "displayName is required and cannot be removed.")
		}
		g.DisplayName, err = str(v, "displayName")
	case "externalid":
		g.ExternalID, err = str(v, "externalId")
	case "members":
		var ids []string
		if ids, err = memberIDs(v); err != nil {
			return err
		}
		switch op {
		case "replace":
			g.Members = ids
		case "add":
			for _, id := range ids {
				if !contains(g.Members, id) {
					g.Members = append(g.Members, id)
				}
			}
		case "remove":
			if v == nil {
				g.Members = []string{} // remove with path "members" and no value: all
				return nil
			}
			g.Members = without(g.Members, ids)
		}
	default:
		if strict {
			return badRequest(InvalidPath, "The attribute %q is not supported.", attr)
		}
	}
	return err
}

func without(list, drop []string) []string {
	out := []string{}
	for _, x := range list {
		if !contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

// memberIDs reads members' values: [{"value": id}, ...] or one object.
func memberIDs(v any) ([]string, error) {
	out := []string{}
	if v == nil {
		return out, nil
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, badRequest(InvalidValue, "Each member must be an object with a value.")
		}
		val, _ := field(m, "value")
		s, ok := val.(string)
		if !ok || s == "" {
			return nil, badRequest(InvalidValue, "Each member must have a value (a user's id).")
		}
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// PatchGroup applies PATCH operations to a group: displayName and
// externalId, members added, replaced or removed (also by a path such as
// members[value eq "id"]), operation names in any case, path-less value
// maps.
func PatchGroup(g GroupAttrs, ops []Op) (GroupAttrs, error) {
	g.Members = append([]string{}, g.Members...)
	if len(ops) == 0 {
		return g, badRequest(InvalidSyntax, "Operations must not be empty.")
	}
	for _, o := range ops {
		op, err := normOp(o.Op)
		if err != nil {
			return g, err
		}
		if strings.TrimSpace(o.Path) == "" {
			if op == "remove" {
				return g, badRequest(NoTarget, "A remove operation needs a path.")
			}
			m, ok := o.Value.(map[string]any)
			if !ok {
				return g, badRequest(InvalidValue, "An operation without a path needs an object value.")
			}
			for k, v := range m {
				if err := g.set(op, strings.ToLower(k), v, false); err != nil {
					return g, err
				}
			}
			continue
		}
		p, err := parsePath(o.Path)
		if err != nil {
			return g, err
		}
		attr := strings.ToLower(p.AttributePath.AttributeName)
		if p.ValueExpression == nil {
			if err := g.set(op, attr, o.Value, true); err != nil {
				return g, err
			}
			continue
		}
		if attr != "members" || op != "remove" || p.SubAttribute != nil {
			return g, badRequest(InvalidPath, "The path %q is not supported.", o.Path)
		}
		var kept []string
		for _, id := range g.Members {
			ok, err := matches(p.ValueExpression, func(s string) (string, bool) { return id, s == "value" })
			if err != nil {
				return g, err
			}
			if !ok {
				kept = append(kept, id)
			}
		}
		g.Members = append([]string{}, kept...)
	}
	return g, g.validate()
}
