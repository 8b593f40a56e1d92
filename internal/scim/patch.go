package scim

import (
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// PatchUser applies PATCH operations (RFC 7644 section 3.5.2) to a user's
// attributes: operation names in any case, operations without a path
// whose value maps attributes (or "name.givenName"-style paths) to
// values, and emails[type eq "work"].value style paths.
func PatchUser(u UserAttrs, ops []Op) (UserAttrs, error) {
	u.Emails = append([]model.SCIMEmail(nil), u.Emails...)
	u.Roles = append([]string(nil), u.Roles...)
	if len(ops) == 0 {
		return u, badRequest(InvalidSyntax, "Operations must not be empty.")
	}
	for _, o := range ops {
		op, err := normOp(o.Op)
		if err != nil {
			return u, err
		}
		if strings.TrimSpace(o.Path) == "" {
			if op == "remove" {
				return u, badRequest(NoTarget, "A remove operation needs a path.")
			}
			m, ok := o.Value.(map[string]any)
			if !ok {
				return u, badRequest(InvalidValue, "An operation without a path needs an object value.")
			}
			for k, v := range m {
				if strings.Contains(k, ":") {
					continue // extension schemas' attributes
				}
				if err := u.patchPath(op, k, v); err != nil {
					return u, err
				}
			}
			continue
		}
		if err := u.patchPath(op, o.Path, o.Value); err != nil {
			return u, err
		}
	}
	return u, u.validate()
}

func (u *UserAttrs) patchPath(op, rawPath string, v any) error {
	p, err := parsePath(rawPath)
	if err != nil {
		return err
	}
	attr := strings.ToLower(p.AttributePath.AttributeName)
	sub := p.AttributePath.SubAttributeName()
	if p.ValueExpression != nil {
		return u.patchFiltered(op, attr, p, v)
	}
	if op == "remove" {
		switch attr {
		case "username":
			return badRequest(Mutability, "userName is required and cannot be removed.")
		case "active":
			return badRequest(Mutability, "active cannot be removed.")
		}
		return u.set(attr, sub, nil, true)
	}
	if op == "add" {
		// add to a multi-valued attribute appends (RFC 7644 3.5.2.1).
		switch attr {
		case "emails":
			more, err := parseEmails(asList(v))
			if err != nil {
				return err
			}
			u.Emails = mergeEmails(u.Emails, more)
			return nil
		case "roles":
			more, err := parseRoles(asList(v))
			if err != nil {
				return err
			}
			for _, r := range more {
				if !contains(u.Roles, r) {
					u.Roles = append(u.Roles, r)
				}
			}
			return nil
		}
	}
	return u.set(attr, sub, v, true)
}

func asList(v any) any {
	if _, ok := v.([]any); ok || v == nil {
		return v
	}
	return []any{v}
}

// mergeEmails adds emails, replacing one of the same value.
func mergeEmails(have, more []model.SCIMEmail) []model.SCIMEmail {
	for _, m := range more {
		found := false
		for i := range have {
			if strings.EqualFold(have[i].Value, m.Value) {
				have[i], found = m, true
			}
		}
		if !found {
			have = append(have, m)
		}
	}
	return have
}

// patchFiltered handles emails[...] and roles[...] paths.
func (u *UserAttrs) patchFiltered(op, attr string, p filterPath, v any) error {
	sub := strings.ToLower(p.SubAttributeName())
	switch attr {
	case "emails":
		get := func(e *model.SCIMEmail) func(string) (string, bool) {
			return func(s string) (string, bool) {
				switch s {
				case "value":
					return e.Value, true
				case "type":
					return e.Type, true
				case "primary":
					return toString(e.Primary), true
				}
				return "", false
			}
		}
		var kept []model.SCIMEmail
		hit := false
		for i := range u.Emails {
			ok, err := matches(p.ValueExpression, get(&u.Emails[i]))
			if err != nil {
				return err
			}
			if !ok {
				kept = append(kept, u.Emails[i])
				continue
			}
			hit = true
			if op == "remove" && sub == "" {
				continue
			}
			if err := setEmailSub(&u.Emails[i], sub, v, op == "remove"); err != nil {
				return err
			}
			kept = append(kept, u.Emails[i])
		}
		if !hit {
			if op == "remove" {
				return badRequest(NoTarget, "No email matches %q.", p.String())
			}
			// Entra ID adds an address with emails[type eq "work"].value
			// when the user has none of that type.
			e := model.SCIMEmail{}
			if ae, ok := p.ValueExpression.(*filterAttrExp); ok && strings.EqualFold(string(ae.Operator), "eq") {
				switch strings.ToLower(ae.AttributePath.AttributeName) {
				case "type":
					e.Type = toString(ae.CompareValue)
				case "value":
					e.Value = toString(ae.CompareValue)
				}
			}
			if err := setEmailSub(&e, sub, v, false); err != nil {
				return err
			}
			kept = append(kept, e)
		}
		u.Emails = kept
		if u.Emails == nil {
			u.Emails = []model.SCIMEmail{}
		}
		return nil
	case "roles":
		if op != "remove" || sub != "" {
			return badRequest(InvalidPath, "Only remove takes a filtered roles path.")
		}
		var kept []string
		for _, r := range u.Roles {
			ok, err := matches(p.ValueExpression, func(s string) (string, bool) { return r, s == "value" })
			if err != nil {
				return err
			}
			if !ok {
				kept = append(kept, r)
			}
		}
		u.Roles = append([]string{}, kept...)
		return nil
	}
	return badRequest(InvalidPath, "The path %q is not supported.", p.String())
}

func setEmailSub(e *model.SCIMEmail, sub string, v any, remove bool) error {
	var err error
	switch sub {
	case "value":
		if remove {
			v = ""
		}
		e.Value, err = str(v, "emails.value")
	case "type":
		if remove {
			v = ""
		}
		e.Type, err = str(v, "emails.type")
	case "primary":
		if remove {
			v = false
		}
		e.Primary, err = boolean(v, "emails.primary")
	case "":
		m, ok := v.(map[string]any)
		if !ok {
			return badRequest(InvalidValue, "An email must be an object.")
		}
		list, err := parseEmails([]any{m})
		if err != nil {
			return err
		}
		*e = list[0]
	default:
		return badRequest(InvalidPath, "Emails have no attribute %q.", sub)
	}
	return err
}
