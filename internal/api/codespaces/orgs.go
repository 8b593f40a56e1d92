package codespaces

import (
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// owner is the path's organization for one of its owners (an installation
// on it too); members get a 403, others a 404.
func (a *API) owner(r *http.Request) (*model.Account, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		org, oerr := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
		if oerr != nil {
			return nil, oerr
		}
		if done, terr := rCaller(r).OrgToken(org.ID, "admin:org"); done {
			return org, terr
		}
		return nil, err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, err
	}
	if done, err := c.OrgToken(org.ID, "admin:org"); done {
		return org, err
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.UserID())
	if errors.Is(err, model.ErrNotFound) || (err == nil && m.State != "active") {
		return nil, model.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if m.Role != model.RoleAdmin {
		return nil, model.Forbidden("Must be an organization owner.")
	}
	return org, nil
}

// member is the path's member of org.
func (a *API) member(r *http.Request, org *model.Account) (*model.Account, error) {
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return nil, err
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, u.ID)
	if err != nil || m.State != "active" {
		return nil, model.ErrNotFound
	}
	return u, nil
}

// GET /orgs/{org}/codespaces
func (a *API) listInOrg(w http.ResponseWriter, r *http.Request) error {
	org, err := a.owner(r)
	if err != nil {
		return err
	}
	return a.list(w, r, store.CodespaceFilter{OrgID: org.ID})
}

// GET /orgs/{org}/members/{username}/codespaces
func (a *API) listForMember(w http.ResponseWriter, r *http.Request) error {
	org, err := a.owner(r)
	if err != nil {
		return err
	}
	u, err := a.member(r, org)
	if err != nil {
		return err
	}
	return a.list(w, r, store.CodespaceFilter{OrgID: org.ID, OwnerID: u.ID})
}

// memberCodespace is the path's codespace of a member in the
// organization's repositories.
func (a *API) memberCodespace(r *http.Request) (*model.Codespace, int64, error) {
	org, err := a.owner(r)
	if err != nil {
		return nil, 0, err
	}
	u, err := a.member(r, org)
	if err != nil {
		return nil, 0, err
	}
	cs, err := a.svc.Get(r.Context(), u.ID, r.PathValue("codespace_name"))
	if err != nil {
		return nil, 0, err
	}
	v, err := a.d.Store.R().RepoByID(r.Context(), cs.RepoID, 0)
	if err != nil || v.Repo.OwnerID != org.ID {
		return nil, 0, model.ErrNotFound
	}
	return cs, rCaller(r).UserID(), nil
}

// DELETE /orgs/{org}/members/{username}/codespaces/{codespace_name}
func (a *API) deleteForMember(w http.ResponseWriter, r *http.Request) error {
	cs, actor, err := a.memberCodespace(r)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), cs, actor); err != nil {
		return err
	}
	return writeAccepted(w)
}

// POST /orgs/{org}/members/{username}/codespaces/{codespace_name}/stop
func (a *API) stopForMember(w http.ResponseWriter, r *http.Request) error {
	cs, actor, err := a.memberCodespace(r)
	if err != nil {
		return err
	}
	if err := a.svc.Stop(r.Context(), cs, actor); err != nil {
		return err
	}
	return a.one(w, r, http.StatusOK, cs)
}
