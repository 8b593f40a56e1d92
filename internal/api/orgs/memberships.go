package orgs

import (
	"fmt"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// GET /orgs/{org}/memberships/{username}: members see active memberships,
// owners pending ones too; anyone sees their own.
func (a *API) getMembership(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	org, err := a.org(r)
	if err != nil {
		return err
	}
	if err := requireToken(c, "members", "read", readOrg...); err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	mine, err := a.role(r, c, org)
	if err != nil {
		return err
	}
	self := u.ID == c.User.ID
	if mine == "" && !self {
		return model.Forbidden(fmt.Sprintf("You must be a member of %s to see membership information for %s.", org.Login, u.Login))
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, u.ID)
	if err != nil {
		return err
	}
	if m.State != store.StateActive && mine != model.RoleAdmin && !self {
		return rest.ErrNotFound
	}
	return rest.JSON(w, 200, a.d.URLs.ToOrgMembership(org, u, m, false))
}

type setMembershipBody struct {
	Role rest.Opt[string] `json:"role"`
}

// PUT /orgs/{org}/memberships/{username}: invites a new member (pending
// until they accept: an organization invitation), changes an invitation's
// role or a member's role.
func (a *API) setMembership(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.tokenFor(r, "write", adminOrg...)
	if err != nil {
		return err
	}
	// Organizations are found here so the service can refuse them (422).
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	if err := a.members.MaySetMembership(r.Context(), org, c.User); err != nil {
		return err
	}
	var in setMembershipBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	m, err := a.members.SetMembership(r.Context(), org, c.User, u, in.Role.Value)
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, a.d.URLs.ToOrgMembership(org, u, m, false))
}

// DELETE /orgs/{org}/memberships/{username}: cancels an invitation or
// removes a member (not the last owner).
func (a *API) removeMembership(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.tokenFor(r, "write", adminOrg...)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	if err := a.members.Remove(r.Context(), org, c.User, u); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /user/memberships/orgs
func (a *API) listOwnMemberships(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := requireToken(c, "members", "read", readOrg...); err != nil {
		return err
	}
	state := r.URL.Query().Get("state")
	if state != "" && state != store.StateActive && state != store.StatePending {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Membership", Field: "state", Code: "invalid", Value: state}}}
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().MembershipsOfUser(r.Context(), c.User.ID, state, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.OrgMembership, 0, len(list))
	for i := range list {
		out = append(out, a.d.URLs.ToOrgMembership(list[i].Org, c.User, &list[i].Membership, true))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, 200, out)
}

// GET /user/memberships/orgs/{org}
func (a *API) getOwnMembership(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	org, err := a.org(r)
	if err != nil {
		return err
	}
	if err := requireToken(c, "members", "read", readOrg...); err != nil {
		return err
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.User.ID)
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, a.d.URLs.ToOrgMembership(org, c.User, m, true))
}

type updateOwnMembershipBody struct {
	State rest.Opt[string] `json:"state"`
}

// PATCH /user/memberships/orgs/{org}: state "active" accepts the caller's
// invitation (they join its teams too).
func (a *API) updateOwnMembership(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	org, err := a.org(r)
	if err != nil {
		return err
	}
	if err := requireToken(c, "members", "write", "admin:org", "write:org"); err != nil {
		return err
	}
	var in updateOwnMembershipBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if !in.State.Set {
		return model.Unprocessable("Invalid request.\n\n\"state\" wasn't supplied.")
	}
	if err := oneOf("Membership", "state", in.State, store.StateActive); err != nil {
		return err
	}
	m, err := a.members.Accept(r.Context(), org, c.User)
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, a.d.URLs.ToOrgMembership(org, c.User, m, true))
}
