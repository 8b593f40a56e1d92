package interactions

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/interactions"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

type capBody struct {
	Enabled             bool `json:"enabled"`
	MaxOpenPullRequests *int `json:"max_open_pull_requests"`
}

type usersBody struct {
	Users []string `json:"users"`
}

// GET /repos/{owner}/{repo}/interaction-limits/pulls/creation-cap
func (a *API) getRepoCap(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	c, err := a.svc.RepoCap(r.Context(), repo, perm)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToPullCreationCap(c))
}

// PATCH /repos/{owner}/{repo}/interaction-limits/pulls/creation-cap
func (a *API) updateRepoCap(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	var in capBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	c, err := a.svc.UpdateRepoCap(r.Context(), repo, perm, rest.Caller(r).UserID(), svc.CapInput{Enabled: in.Enabled, MaxOpen: in.MaxOpenPullRequests})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToPullCreationCap(c))
}

// GET /orgs/{org}/interaction-limits/pulls/creation-cap
func (a *API) getOrgCap(w http.ResponseWriter, r *http.Request) error {
	org, actor, err := a.org(r, "read")
	if err != nil {
		return err
	}
	c, err := a.svc.OrgCap(r.Context(), org, actor)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToPullCreationCap(c))
}

// PATCH /orgs/{org}/interaction-limits/pulls/creation-cap
func (a *API) updateOrgCap(w http.ResponseWriter, r *http.Request) error {
	org, actor, err := a.org(r, "write")
	if err != nil {
		return err
	}
	var in capBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	c, err := a.svc.UpdateOrgCap(r.Context(), org, actor, svc.CapInput{Enabled: in.Enabled, MaxOpen: in.MaxOpenPullRequests})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToPullCreationCap(c))
}

// GET /repos/{owner}/{repo}/interaction-limits/pulls/bypass-list
func (a *API) getBypass(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Maintain)
	if err != nil {
		return err
	}
	list, err := a.svc.BypassList(r.Context(), repo, perm)
	if err != nil {
		return err
	}
	out := make([]wire.SimpleUser, len(list))
	for i, u := range list {
		out[i] = a.d.URLs.ToSimpleUser(u)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// PUT /repos/{owner}/{repo}/interaction-limits/pulls/bypass-list
func (a *API) addBypass(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Maintain)
	if err != nil {
		return err
	}
	var in usersBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if err := a.svc.AddBypass(r.Context(), repo, perm, rest.Caller(r).UserID(), in.Users); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /repos/{owner}/{repo}/interaction-limits/pulls/bypass-list
func (a *API) removeBypass(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Maintain)
	if err != nil {
		return err
	}
	var in usersBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if err := a.svc.RemoveBypass(r.Context(), repo, perm, rest.Caller(r).UserID(), in.Users); err != nil {
		return err
	}
	return rest.NoContent(w)
}
