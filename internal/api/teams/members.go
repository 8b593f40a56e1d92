package teams

import (
	"net/http"

	"github.com/hubd/hubd/internal/rest"
)

// GET /orgs/{org}/teams/{team_slug}/invitations: the pending invitations
// to the organization that include the team.
func (a *API) invitations(w http.ResponseWriter, r *http.Request) error {
	t, act, err := a.team(r, "read", readOrg)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Invitations(r.Context(), t, act, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToOrgInvitations(list, false))
}

// GET /teams/{team_id}/members/{username}: 204 for an active member, 404
// otherwise.
func (a *API) getMemberLegacy(w http.ResponseWriter, r *http.Request) error {
	t, _, err := a.team(r, "read", readOrg)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	if err := a.svc.IsMember(r.Context(), t, u); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// PUT /teams/{team_id}/members/{username}: adds an organization member
// (422 for anyone else).
func (a *API) addMemberLegacy(w http.ResponseWriter, r *http.Request) error {
	t, act, err := a.team(r, "write", repoOrg)
	if err != nil {
		return err
	}
	// Organizations are found here so the service can refuse them (422).
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	if err := a.svc.AddMember(r.Context(), t, act, u); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /teams/{team_id}/members/{username}: 204 whether or not they were
// a member.
func (a *API) removeMemberLegacy(w http.ResponseWriter, r *http.Request) error {
	t, act, err := a.team(r, "write", repoOrg)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveMember(r.Context(), t, act, u); err != nil {
		return err
	}
	return rest.NoContent(w)
}
