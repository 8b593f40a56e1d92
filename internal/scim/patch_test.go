package scim

import (
	"errors"
	"reflect"
	"testing"

	"github.com/hubd/hubd/internal/model"
)

func base() UserAttrs {
	return UserAttrs{UserName: "mona@example.com", Active: true, Roles: []string{"user", "billing_manager"},
		Emails: []model.SCIMEmail{{Value: "mona@work.example", Type: "work", Primary: true}, {Value: "mona@home.example", Type: "home"}}}
}

// RFC 7644 section 3.5.2 cases, and the forms identity providers send.
func TestPatchUser(t *testing.T) {
	cases := []struct {
		name  string
		ops   []Op
		check func(UserAttrs) bool
	}{
		{"add to a multi-valued attribute appends", []Op{{Op: "add", Path: "emails", Value: []any{map[string]any{"value": "m@x.example", "type": "other"}}}},
			func(u UserAttrs) bool { return len(u.Emails) == 3 && u.Emails[2].Value == "m@x.example" }},
		{"replace a multi-valued attribute replaces it", []Op{{Op: "replace", Path: "emails", Value: []any{map[string]any{"value": "only@x.example"}}}},
			func(u UserAttrs) bool { return len(u.Emails) == 1 && u.Emails[0].Value == "only@x.example" }},
		{"remove with a value filter drops the matches", []Op{{Op: "remove", Path: `emails[type eq "home"]`}},
			func(u UserAttrs) bool { return len(u.Emails) == 1 && u.Emails[0].Type == "work" }},
		{"a filtered sub-attribute path replaces in place", []Op{{Op: "Replace", Path: `emails[type eq "work"].value`, Value: "new@work.example"}},
			func(u UserAttrs) bool { return u.Emails[0].Value == "new@work.example" && u.Emails[0].Primary }},
		{"a filtered path with no match adds an entry (Entra ID)", []Op{{Op: "Add", Path: `emails[type eq "other"].value`, Value: "o@x.example"}},
			func(u UserAttrs) bool {
				return len(u.Emails) == 3 && u.Emails[2].Type == "other" && u.Emails[2].Value == "o@x.example"
			}},
		{"apostrophes quote a filter too", []Op{{Op: "replace", Path: `emails[type eq 'work'].value`, Value: "q@work.example"}},
			func(u UserAttrs) bool { return u.Emails[0].Value == "q@work.example" }},
		{"remove a role by value", []Op{{Op: "remove", Path: `roles[value eq "billing_manager"]`}},
			func(u UserAttrs) bool { return reflect.DeepEqual(u.Roles, []string{"user"}) }},
		{"role ids map to names", []Op{{Op: "add", Path: "roles", Value: []any{map[string]any{"value": "981df190-8801-4618-a08a-d91f6206c954"}}}},
			func(u UserAttrs) bool { return len(u.Roles) == 3 && u.Roles[2] == "enterprise_owner" }},
		{"a path-less map with dotted names and an extension", []Op{{Op: "replace", Value: map[string]any{"name.givenName": "Mona", "DISPLAYNAME": "M",
			"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department": "x"}}},
			func(u UserAttrs) bool { return u.Name.GivenName == "Mona" && u.DisplayName == "M" }},
		{"string booleans", []Op{{Op: "replace", Path: "active", Value: "FALSE"}}, func(u UserAttrs) bool { return !u.Active }},
		{"remove clears a simple attribute", []Op{{Op: "remove", Path: "name.familyName"}, {Op: "remove", Path: "externalId"}},
			func(u UserAttrs) bool { return u.Name.FamilyName == "" && u.ExternalID == "" }},
		{"attribute names ignore case", []Op{{Op: "REPLACE", Path: "USERNAME", Value: "lisa@example.com"}},
			func(u UserAttrs) bool { return u.UserName == "lisa@example.com" }},
	}
	for _, c := range cases {
		got, err := PatchUser(base(), c.ops)
		if err != nil || !c.check(got) {
			t.Errorf("%s: %+v %v", c.name, got, err)
		}
	}
	// The input is not changed by a failed or successful patch.
	b := base()
	if _, err := PatchUser(b, []Op{{Op: "remove", Path: `emails[type eq "home"]`}, {Op: "bogus"}}); err == nil || len(b.Emails) != 2 {
		t.Fatalf("failed patch: %v %+v", err, b)
	}

	bad := []struct {
		ops []Op
		typ string
	}{
		{nil, InvalidSyntax},
		{[]Op{{Op: "move", Path: "userName"}}, InvalidSyntax},
		{[]Op{{Op: "remove"}}, NoTarget},
		{[]Op{{Op: "remove", Path: `emails[type eq "none"]`}}, NoTarget},
		{[]Op{{Op: "replace", Value: "x"}}, InvalidValue},
		{[]Op{{Op: "replace", Path: "emails[type eq"}}, InvalidPath},
		{[]Op{{Op: "replace", Path: `emails[type co "w"].value`, Value: "x"}}, InvalidFilter},
		{[]Op{{Op: "replace", Path: "name.nickName", Value: "x"}}, InvalidPath},
		{[]Op{{Op: "replace", Path: "userName", Value: 7}}, InvalidValue},
		{[]Op{{Op: "replace", Path: "userName", Value: ""}}, InvalidValue},
	}
	for _, c := range bad {
		_, err := PatchUser(base(), c.ops)
		var se *Error
		if !errors.As(err, &se) || se.Status != 400 || se.Type != c.typ {
			t.Errorf("%+v: %v, want %s", c.ops, err, c.typ)
		}
	}
}

func TestPatchGroup(t *testing.T) {
	g := GroupAttrs{DisplayName: "Eng", Members: []string{"a", "b", "c"}}
	cases := []struct {
		ops  []Op
		want []string
	}{
		{[]Op{{Op: "add", Path: "members", Value: []any{map[string]any{"value": "d"}, map[string]any{"value": "a"}}}}, []string{"a", "b", "c", "d"}},
		{[]Op{{Op: "Remove", Path: `members[value eq "b"]`}}, []string{"a", "c"}},
		{[]Op{{Op: "Remove", Path: "members", Value: []any{map[string]any{"value": "a"}, map[string]any{"value": "c"}}}}, []string{"b"}},
		{[]Op{{Op: "remove", Path: "members"}}, []string{}},
		{[]Op{{Op: "replace", Path: "members", Value: []any{map[string]any{"value": "z"}}}}, []string{"z"}},
		{[]Op{{Op: "Add", Value: map[string]any{"members": []any{map[string]any{"value": "e"}}}}}, []string{"a", "b", "c", "e"}},
	}
	for _, c := range cases {
		got, err := PatchGroup(g, c.ops)
		if err != nil || !reflect.DeepEqual(got.Members, c.want) {
			t.Errorf("%+v = %v %v, want %v", c.ops, got.Members, err, c.want)
		}
	}
	if got, err := PatchGroup(g, []Op{{Op: "replace", Value: map[string]any{"displayName": "Platform", "id": "ignored"}}}); err != nil || got.DisplayName != "Platform" {
		t.Errorf("path-less rename = %+v %v", got, err)
	}
	for _, ops := range [][]Op{{{Op: "remove", Path: "displayName"}}, {{Op: "add", Path: `members[value eq "a"]`}}, {{Op: "add", Path: "members", Value: []any{"a"}}}} {
		if _, err := PatchGroup(g, ops); err == nil {
			t.Errorf("%+v: no error", ops)
		}
	}
}

func TestParseFilter(t *testing.T) {
	for raw, want := range map[string]string{`userName eq "Mona"`: "userName=Mona", `USERNAME EQ "x"`: "userName=x", `externalId eq 'e1'`: "externalId=e1", ``: "="} {
		f, err := ParseFilter(raw, "userName", "externalId")
		if err != nil || f.Attr+"="+f.Value != want {
			t.Errorf("%q = %+v %v", raw, f, err)
		}
	}
	for _, raw := range []string{`userName eq 1`, `name.givenName eq "x"`, `userName pr`, `not (userName eq "x")`, `userName eq "x" or userName eq "y"`} {
		if _, err := ParseFilter(raw, "userName"); err == nil {
			t.Errorf("%q: no error", raw)
		}
	}
}
