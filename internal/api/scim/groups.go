package scim

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/scim"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Group is components/schemas/scim-enterprise-group-response.
type Group struct {
	Schemas     []string `json:"schemas"`
	ID          string   `json:"id"`
	ExternalID  *string  `json:"externalId"`
	DisplayName *string  `json:"displayName"`
	Members     []Ref    `json:"members"`
	Meta        Meta     `json:"meta"`
}

// withoutMembers honours excludedAttributes=members (Okta sends it when
// it only needs a group's name): the members key is left out.
func withoutMembers(r *http.Request, g Group) any {
	for _, a := range strings.Split(r.URL.Query().Get("excludedAttributes"), ",") {
		if strings.EqualFold(strings.TrimSpace(a), "members") {
			return groupNoMembers{Schemas: g.Schemas, ID: g.ID, ExternalID: g.ExternalID, DisplayName: g.DisplayName, Meta: g.Meta}
		}
	}
	return g
}

type groupNoMembers struct {
	Schemas     []string `json:"schemas"`
	ID          string   `json:"id"`
	ExternalID  *string  `json:"externalId"`
	DisplayName *string  `json:"displayName"`
	Meta        Meta     `json:"meta"`
}

func toGroup(g *svc.Group, base string) Group {
	out := Group{Schemas: []string{"urn:ietf:params:scim:schemas:core:2.0:Group"}, ID: g.GroupID, ExternalID: nullable(g.ExternalID),
		DisplayName: nullable(g.Name), Members: []Ref{},
		Meta: Meta{ResourceType: "Group", Created: stamp(g.CreatedAt), LastModified: stamp(g.UpdatedAt), Location: base + "/Groups/" + g.GroupID}}
	for _, m := range g.Members {
		out.Members = append(out.Members, Ref{Value: m.UUID, Ref: base + "/Users/" + m.UUID, Display: m.DisplayName})
	}
	return out
}

// GET .../Groups
func (a *API) listGroups(base string) rest.Handler {
	return a.serve(func(w http.ResponseWriter, r *http.Request, _ *authz.Caller, base string) error {
		start, count := paging(r)
		groups, total, err := a.svc.Groups(r.Context(), r.URL.Query().Get("filter"), start, count)
		if err != nil {
			return err
		}
		out := make([]any, len(groups))
		for i, g := range groups {
			out[i] = withoutMembers(r, toGroup(g, base))
		}
		return list(w, out, total, start)
	}, base)
}

// POST .../Groups
func (a *API) createGroup(base string) rest.Handler {
	return one(a, base, http.StatusCreated, toGroup, func(r *http.Request, c *authz.Caller) (*svc.Group, error) {
		attrs, err := groupBody(r)
		if err != nil {
			return nil, err
		}
		return a.svc.CreateGroup(r.Context(), c.UserID(), attrs)
	})
}

func groupBody(r *http.Request) (svc.GroupAttrs, error) {
	m, err := decode(r)
	if err != nil {
		return svc.GroupAttrs{}, err
	}
	return svc.ParseGroup(m)
}

// GET .../Groups/{scim_group_id}
func (a *API) getGroup(base string) rest.Handler {
	return a.serve(func(w http.ResponseWriter, r *http.Request, _ *authz.Caller, base string) error {
		g, err := a.svc.GetGroup(r.Context(), r.PathValue("scim_group_id"))
		if err != nil {
			return err
		}
		return writeSCIM(w, http.StatusOK, withoutMembers(r, toGroup(g, base)))
	}, base)
}

// PUT .../Groups/{scim_group_id}
func (a *API) putGroup(base string) rest.Handler {
	return one(a, base, http.StatusOK, toGroup, func(r *http.Request, c *authz.Caller) (*svc.Group, error) {
		attrs, err := groupBody(r)
		if err != nil {
			return nil, err
		}
		return a.svc.ReplaceGroup(r.Context(), c.UserID(), r.PathValue("scim_group_id"), attrs)
	})
}

// PATCH .../Groups/{scim_group_id}
func (a *API) patchGroup(base string) rest.Handler {
	return one(a, base, http.StatusOK, toGroup, func(r *http.Request, c *authz.Caller) (*svc.Group, error) {
		ops, err := decodeOps(r)
		if err != nil {
			return nil, err
		}
		return a.svc.PatchGroup(r.Context(), c.UserID(), r.PathValue("scim_group_id"), ops)
	})
}

// DELETE .../Groups/{scim_group_id}
func (a *API) deleteGroup(base string) rest.Handler {
	return a.serve(func(w http.ResponseWriter, r *http.Request, c *authz.Caller, _ string) error {
		if err := a.svc.DeleteGroup(r.Context(), c.UserID(), r.PathValue("scim_group_id")); err != nil {
			return err
		}
		return rest.NoContent(w)
	}, base)
}

func (v Group) location() string { return v.Meta.Location }
