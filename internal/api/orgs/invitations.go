package orgs

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/orgmembers"
	"github.com/hubd/hubd/internal/rest"
)

// Note of the invitation routes: what differs from GitHub.
const (
	invitationsNote = "hubd sends no email: an invitation by email is kept and can be accepted (PATCH /user/memberships/orgs/{org}) " +
		"by the user whose account email matches it. The rate limit counts invitations created in the last 24 hours (50, 500 once " +
		"the organization is a month old), not attempts."
	createNote = invitationsNote + " billing_manager is refused (hubd has no billing managers); reinstate restores the former " +
		"role only (not teams, repository access or forks)."
	failedNote = "Invitations fail only by expiring (7 days unaccepted, failed_reason \"Invitation expired\"): hubd sends no " +
		"email that could bounce."
)

// invitationID reads the path's invitation id (anything else is not
// found).
func invitationID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("invitation_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// GET /orgs/{org}/invitations
func (a *API) listInvitations(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.tokenFor(r, "read", readOrg...)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := orgmembers.ListQuery{Role: q.Get("role"), Source: q.Get("invitation_source")}
	switch f.Role {
	case "", "all", "admin", "direct_member", "billing_manager", "hiring_manager":
	default:
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "OrganizationInvitation", Field: "role", Code: "invalid", Value: f.Role}}}
	}
	switch f.Source {
	case "", "all", "member", "scim":
	default:
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "OrganizationInvitation", Field: "invitation_source",
			Code: "invalid", Value: f.Source}}}
	}
	p := rest.ParsePage(r)
	list, total, err := a.members.List(r.Context(), org, c.User, f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToOrgInvitations(list, true))
}

// GET /orgs/{org}/failed_invitations
func (a *API) listFailedInvitations(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.tokenFor(r, "read", readOrg...)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.members.Failed(r.Context(), org, c.User, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToOrgInvitations(list, false))
}

type createInvitationBody struct {
	InviteeID rest.Opt[int64]  `json:"invitee_id"`
	Email     rest.Opt[string] `json:"email"`
	Role      rest.Opt[string] `json:"role"`
	TeamIDs   []int64          `json:"team_ids"`
}

// POST /orgs/{org}/invitations: 201 with the invitation (an open one of
// the same invitee is returned, with the new role and teams).
func (a *API) createInvitation(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.tokenFor(r, "write", adminOrg...)
	if err != nil {
		return err
	}
	if err := a.members.MayInvite(r.Context(), org, c.User); err != nil {
		return err
	}
	var in createInvitationBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	ci := orgmembers.CreateInput{Role: in.Role.Value, TeamIDs: in.TeamIDs}
	if v, ok := in.InviteeID.Get(); ok {
		ci.InviteeID = &v
	}
	if v, ok := in.Email.Get(); ok {
		ci.Email = &v
	}
	inv, _, err := a.members.Create(r.Context(), org, c.User, ci)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToOrgInvitation(inv, false))
}

// DELETE /orgs/{org}/invitations/{invitation_id}
func (a *API) cancelInvitation(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.tokenFor(r, "write", adminOrg...)
	if err != nil {
		return err
	}
	id, err := invitationID(r)
	if err != nil {
		return err
	}
	if err := a.members.Cancel(r.Context(), org, c.User, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/invitations/{invitation_id}/teams
func (a *API) listInvitationTeams(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.tokenFor(r, "read", readOrg...)
	if err != nil {
		return err
	}
	id, err := invitationID(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.members.Teams(r.Context(), org, c.User, id, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToTeams(list))
}
