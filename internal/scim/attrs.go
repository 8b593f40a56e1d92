package scim

import (
	"fmt"
	"strings"

	filter "github.com/scim2/filter-parser/v2"

	"github.com/hubd/hubd/internal/model"
)

// Name is a user's name parts.
type Name struct{ Formatted, FamilyName, GivenName, MiddleName string }

// UserAttrs are the attributes of a SCIM user a client writes.
type UserAttrs struct {
	ExternalID  string
	UserName    string
	DisplayName string
	Name        Name
	Emails      []model.SCIMEmail
	Roles       []string
	Active      bool
}

// Op is one operation of a PATCH request.
type Op struct {
	Op    string
	Path  string
	Value any
}

// roleNames maps the role values GitHub takes to hubd's names: the
// documented names, and the ids the description lists beside each (the
// identity providers' app role ids), in its order.
var roleNames = map[string]string{
	"user":                                 "user",
	"27d9891d-2c17-4f45-a262-781a0e55c80a": "user",
	"guest_collaborator":                   "guest_collaborator",
	"1ebc4a02-e56c-43a6-92a5-02ee09b90824": "guest_collaborator",
	"enterprise_owner":                     "enterprise_owner",
	"981df190-8801-4618-a08a-d91f6206c954": "enterprise_owner",
	"ba4987ab-a1c3-412a-b58c-360fc407cb10": "enterprise_owner",
	"billing_manager":                      "billing_manager",
	"0e338b8c-cc7f-498a-928d-ea3470d7e7e3": "billing_manager",
	"e6be2762-e4ad-4108-b72d-1bbe884a0f91": "billing_manager",
}

// field finds a key of a JSON object ignoring case (RFC 7643 section 2.1).
func field(obj map[string]any, name string) (any, bool) {
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

func str(v any, attr string) (string, error) {
	switch s := v.(type) {
	case nil:
		return "", nil
	case string:
		return s, nil
	}
	return "", badRequest(InvalidValue, "%s must be a string.", attr)
}

// boolean reads a boolean; Entra ID sends "True" and "False" as strings.
func boolean(v any, attr string) (bool, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(b)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, badRequest(InvalidValue, "%s must be a boolean.", attr)
}

// ParseUser reads a full user resource (POST, PUT). Attributes it does not
// know (extension schemas, addresses, ...) are ignored.
func ParseUser(obj map[string]any) (UserAttrs, error) {
	u := UserAttrs{Active: true}
	for k, v := range obj {
		if strings.Contains(k, ":") {
			continue // an extension schema's attributes
		}
		if err := u.set(strings.ToLower(k), "", v, false); err != nil {
			return u, err
		}
	}
	return u, u.validate()
}

func (u *UserAttrs) validate() error {
	if strings.TrimSpace(u.UserName) == "" {
		return badRequest(InvalidValue, "userName is required.")
	}
	return nil
}

// set writes attribute attr (lower case), or its sub-attribute sub, from v.
// strict reports unknown attributes (a PATCH path names them) instead of
// ignoring them.
func (u *UserAttrs) set(attr, sub string, v any, strict bool) error {
	var err error
	switch attr {
	case "schemas", "id", "meta", "groups":
	case "externalid":
		u.ExternalID, err = str(v, "externalId")
	case "username":
		u.UserName, err = str(v, "userName")
	case "displayname":
		u.DisplayName, err = str(v, "displayName")
	case "active":
		u.Active, err = boolean(v, "active")
	case "name":
		if sub != "" {
			return u.setName(sub, v)
		}
		if v == nil {
			u.Name = Name{}
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return badRequest(InvalidValue, "name must be an object.")
		}
		for k, x := range m {
			if err := u.setName(k, x); err != nil {
				return err
			}
		}
	case "emails":
		u.Emails, err = parseEmails(v)
	case "roles":
		u.Roles, err = parseRoles(v)
	default:
		if name, s, ok := strings.Cut(attr, "."); ok && sub == "" {
			return u.set(name, s, v, strict)
		}
		if strict {
			return badRequest(InvalidPath, "The attribute %q is not supported.", attr)
		}
	}
	return err
}

func (u *UserAttrs) setName(sub string, v any) error {
	s, err := str(v, "name."+sub)
	if err != nil {
		return err
	}
	switch strings.ToLower(sub) {
	case "formatted":
		u.Name.Formatted = s
	case "familyname":
		u.Name.FamilyName = s
	case "givenname":
		u.Name.GivenName = s
	case "middlename":
		u.Name.MiddleName = s
	default:
		return badRequest(InvalidPath, "The attribute name.%s is not supported.", sub)
	}
	return nil
}

func parseEmails(v any) ([]model.SCIMEmail, error) {
	list, ok := v.([]any)
	if v == nil {
		return []model.SCIMEmail{}, nil
	}
	if !ok {
		return nil, badRequest(InvalidValue, "emails must be an array.")
	}
	out := make([]model.SCIMEmail, 0, len(list))
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, badRequest(InvalidValue, "Each email must be an object.")
		}
		var e model.SCIMEmail
		var err error
		if fv, ok := field(m, "value"); ok {
			if e.Value, err = str(fv, "emails.value"); err != nil {
				return nil, err
			}
		}
		if fv, ok := field(m, "type"); ok {
			if e.Type, err = str(fv, "emails.type"); err != nil {
				return nil, err
			}
		}
		if fv, ok := field(m, "primary"); ok {
			if e.Primary, err = boolean(fv, "emails.primary"); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}

func parseRoles(v any) ([]string, error) {
	if v == nil {
		return []string{}, nil
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	out := []string{}
	for _, x := range list {
		val := x
		if m, ok := x.(map[string]any); ok {
			val, _ = field(m, "value")
		}
		s, ok := val.(string)
		name := roleNames[strings.ToLower(strings.TrimSpace(s))]
		if !ok || name == "" {
			return nil, badRequest(InvalidValue, "The role %v is not one of GitHub's roles (user, guest_collaborator, enterprise_owner, billing_manager).", val)
		}
		if !contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// PrimaryEmail is the primary email, else the first.
func (u UserAttrs) PrimaryEmail() string {
	for _, e := range u.Emails {
		if e.Primary {
			return e.Value
		}
	}
	if len(u.Emails) > 0 {
		return u.Emails[0].Value
	}
	return ""
}

// normOp reads an operation's name; identity providers send "Replace",
// "Add" (Entra ID) as well as RFC 7644's lower case.
func normOp(op string) (string, error) {
	switch o := strings.ToLower(strings.TrimSpace(op)); o {
	case "add", "replace", "remove":
		return o, nil
	}
	return "", badRequest(InvalidSyntax, "The operation %q is not add, replace or remove.", op)
}

// parsePath reads a PATCH path with the maintained SCIM parser.
func parsePath(p string) (filter.Path, error) {
	path, err := filter.ParsePath([]byte(strings.ReplaceAll(p, "'", `"`)))
	if err != nil {
		return path, badRequest(InvalidPath, "The path %q is not a valid SCIM path.", p)
	}
	return path, nil
}

// matches reports whether a multi-valued attribute's entry (its
// sub-attributes as strings) satisfies a value filter: eq (or ne) on one
// sub-attribute, joined by and/or.
func matches(expr filter.Expression, get func(sub string) (string, bool)) (bool, error) {
	switch e := expr.(type) {
	case *filter.AttributeExpression:
		v, ok := get(strings.ToLower(e.AttributePath.AttributeName))
		if !ok {
			return false, badRequest(InvalidFilter, "The attribute %q cannot be filtered.", e.AttributePath.AttributeName)
		}
		want := strings.ToLower(strings.TrimSpace(toString(e.CompareValue)))
		switch strings.ToLower(string(e.Operator)) {
		case "eq":
			return strings.EqualFold(v, want), nil
		case "ne":
			return !strings.EqualFold(v, want), nil
		}
		return false, badRequest(InvalidFilter, "Only eq and ne are supported in a path's filter.")
	case *filter.LogicalExpression:
		l, err := matches(e.Left, get)
		if err != nil {
			return false, err
		}
		r, err := matches(e.Right, get)
		if err != nil {
			return false, err
		}
		if e.Operator == filter.AND {
			return l && r, nil
		}
		return l || r, nil
	}
	return false, badRequest(InvalidFilter, "The path's filter is not supported.")
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

type (
	filterPath    = filter.Path
	filterAttrExp = filter.AttributeExpression
)
