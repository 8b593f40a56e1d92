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
// until they accept) or changes a member's role.
func (a *API) setMembership(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.requireOwner(r, "members", adminOrg...)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	var in setMembershipBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	role := model.RoleMember
	if in.Role.Set {
		if err := oneOf("Membership", "role", in.Role, "admin", "member"); err != nil {
			return err
		}
		role = model.OrgRole(in.Role.Value)
	}
	var m *model.Membership
	err = a.d.Store.Tx(r.Context(), func(tx store.Q) error {
		old, err := tx.Membership(r.Context(), org.ID, u.ID)
		switch {
		case err == model.ErrNotFound:
			m = &model.Membership{OrgID: org.ID, UserID: u.ID, Role: role, State: store.StatePending}
			if err := tx.SetMembership(r.Context(), m); err != nil {
				return err
			}
			return tx.AppendEvent(r.Context(), "organization.member_invited", c.User.ID, 0, org.ID,
				map[string]any{"user_id": u.ID, "role": role})
		case err != nil:
			return err
		}
		m = old
		if old.Role == role {
			return nil
		}
		if err := lastOwnerGuard(r, tx, org, old); err == errLastOwner {
			return model.Forbidden("Cannot demote the last owner of an organization.")
		} else if err != nil {
			return err
		}
		m.Role = role
		if err := tx.SetMembership(r.Context(), m); err != nil {
			return err
		}
		m.CreatedAt = old.CreatedAt
		return tx.AppendEvent(r.Context(), "organization.member_role_changed", c.User.ID, 0, org.ID,
			map[string]any{"user_id": u.ID, "role": role})
	})
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, a.d.URLs.ToOrgMembership(org, u, m, false))
}

// DELETE /orgs/{org}/memberships/{username}: removes a member or cancels an
// invitation.
func (a *API) removeMembership(w http.ResponseWriter, r *http.Request) error {
	return a.remove(w, r)
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

// PATCH /user/memberships/orgs/{org}: state "active" accepts an invitation.
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
	var m *model.Membership
	err = a.d.Store.Tx(r.Context(), func(tx store.Q) error {
		var err error
		if m, err = tx.Membership(r.Context(), org.ID, c.User.ID); err != nil {
			return err
		}
		if m.State == store.StateActive {
			return nil
		}
		created := m.CreatedAt
		m.State = store.StateActive
		if err := tx.SetMembership(r.Context(), m); err != nil {
			return err
		}
		m.CreatedAt = created
		return tx.AppendEvent(r.Context(), "organization.member_added", c.User.ID, 0, org.ID,
			map[string]any{"user_id": c.User.ID, "role": m.Role})
	})
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, a.d.URLs.ToOrgMembership(org, c.User, m, true))
}
