package scim

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/scim"
)

// User is components/schemas/scim-enterprise-user-response.
type User struct {
	Schemas     []string `json:"schemas"`
	ID          string   `json:"id"`
	ExternalID  *string  `json:"externalId"`
	UserName    string   `json:"userName"`
	DisplayName *string  `json:"displayName"`
	Name        UserName `json:"name"`
	Emails      []Email  `json:"emails"`
	Roles       []Role   `json:"roles"`
	Active      bool     `json:"active"`
	Groups      []Ref    `json:"groups"`
	Meta        Meta     `json:"meta"`
}

// UserName is a user's name parts.
type UserName struct {
	Formatted  string `json:"formatted,omitempty"`
	FamilyName string `json:"familyName,omitempty"`
	GivenName  string `json:"givenName,omitempty"`
	MiddleName string `json:"middleName,omitempty"`
}

// Email is one of a user's emails.
type Email struct {
	Value   string `json:"value"`
	Type    string `json:"type"`
	Primary bool   `json:"primary"`
}

// Role is one of a user's roles.
type Role struct {
	Value   string `json:"value"`
	Primary bool   `json:"primary"`
}

// Ref points at another resource (a group's member, a user's group).
type Ref struct {
	Value   string `json:"value"`
	Ref     string `json:"$ref"`
	Display string `json:"display,omitempty"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toUser(u *svc.User, base string) User {
	out := User{Schemas: []string{"urn:ietf:params:scim:schemas:core:2.0:User"}, ID: u.UUID, ExternalID: nullable(u.ExternalID),
		UserName: u.UserName, DisplayName: nullable(u.DisplayName),
		Name:   UserName{Formatted: u.Formatted, FamilyName: u.FamilyName, GivenName: u.GivenName, MiddleName: u.MiddleName},
		Emails: []Email{}, Roles: []Role{}, Active: u.Active, Groups: []Ref{},
		Meta: Meta{ResourceType: "User", Created: stamp(u.CreatedAt), LastModified: stamp(u.UpdatedAt),
			Location: base + "/Users/" + u.UUID, Version: `W/"` + itoa(u.Version) + `"`}}
	for _, e := range u.Emails {
		out.Emails = append(out.Emails, Email(e))
	}
	for _, r := range u.Roles {
		out.Roles = append(out.Roles, Role{Value: r})
	}
	for _, g := range u.Groups {
		out.Groups = append(out.Groups, Ref{Value: g.GroupID, Ref: base + "/Groups/" + g.GroupID, Display: g.Name})
	}
	return out
}

// GET .../Users
func (a *API) listUsers(base string) rest.Handler {
	return a.serve(func(w http.ResponseWriter, r *http.Request, _ *authz.Caller, base string) error {
		start, count := paging(r)
		users, total, err := a.svc.Users(r.Context(), r.URL.Query().Get("filter"), start, count)
		if err != nil {
			return err
		}
		out := make([]User, len(users))
		for i, u := range users {
			out[i] = toUser(u, base)
		}
		return list(w, out, total, start)
	}, base)
}

// POST .../Users
func (a *API) createUser(base string) rest.Handler {
	return one(a, base, http.StatusCreated, toUser, func(r *http.Request, c *authz.Caller) (*svc.User, error) {
		attrs, err := userBody(r)
		if err != nil {
			return nil, err
		}
		return a.svc.Provision(r.Context(), c.UserID(), attrs)
	})
}

func userBody(r *http.Request) (svc.UserAttrs, error) {
	m, err := decode(r)
	if err != nil {
		return svc.UserAttrs{}, err
	}
	return svc.ParseUser(m)
}

// GET .../Users/{scim_user_id}
func (a *API) getUser(base string) rest.Handler {
	return one(a, base, http.StatusOK, toUser, func(r *http.Request, _ *authz.Caller) (*svc.User, error) {
		return a.svc.GetUser(r.Context(), r.PathValue("scim_user_id"))
	})
}

// PUT .../Users/{scim_user_id}
func (a *API) putUser(base string) rest.Handler {
	return one(a, base, http.StatusOK, toUser, func(r *http.Request, c *authz.Caller) (*svc.User, error) {
		attrs, err := userBody(r)
		if err != nil {
			return nil, err
		}
		return a.svc.Replace(r.Context(), c.UserID(), r.PathValue("scim_user_id"), attrs)
	})
}

// PATCH .../Users/{scim_user_id}
func (a *API) patchUser(base string) rest.Handler {
	return one(a, base, http.StatusOK, toUser, func(r *http.Request, c *authz.Caller) (*svc.User, error) {
		ops, err := decodeOps(r)
		if err != nil {
			return nil, err
		}
		return a.svc.Patch(r.Context(), c.UserID(), r.PathValue("scim_user_id"), ops)
	})
}

// DELETE .../Users/{scim_user_id}
func (a *API) deleteUser(base string) rest.Handler {
	return a.serve(func(w http.ResponseWriter, r *http.Request, c *authz.Caller, _ string) error {
		if err := a.svc.DeleteUser(r.Context(), c.UserID(), r.PathValue("scim_user_id")); err != nil {
			return err
		}
		return rest.NoContent(w)
	}, base)
}

func (v User) location() string { return v.Meta.Location }
