package collaborators

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/collaborators"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// access finds the repository for a signed-in caller: every operation here
// needs one (the service decides between push and admin).
func (a *API) access(r *http.Request) (svc.Access, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return svc.Access{}, rest.ErrRequiresAuth
	}
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return svc.Access{}, err
	}
	// What the credential allows of a repository the user could administer.
	tokenWrites := authz.RepoPermission(c, repo, authz.RepoFacts{Collab: authz.Admin}) > authz.Read
	return svc.Access{Repo: repo, Perm: perm, UserID: c.UserID(), TokenWrites: tokenWrites}, nil
}

// invitationID reads {invitation_id}; anything but a positive number names
// no invitation.
func invitationID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("invitation_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// GET /repos/{owner}/{repo}/collaborators
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r)
	if err != nil {
		return err
	}
	aff, err := svc.ParseAffiliation(r.URL.Query().Get("affiliation"))
	if err != nil {
		return err
	}
	level, err := svc.ParseLevelFilter(r.URL.Query().Get("permission"))
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.List(r.Context(), acc, aff, level, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.Collaborator, len(list))
	for i, c := range list {
		out[i] = a.d.URLs.ToCollaborator(c.User, c.Perm, c.RoleName)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/collaborators/{username}
func (a *API) check(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r)
	if err != nil {
		return err
	}
	if err := a.svc.Check(r.Context(), acc, r.PathValue("username")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type addBody struct {
	Permission *string `json:"permission"`
}

// PUT /repos/{owner}/{repo}/collaborators/{username}
func (a *API) add(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r)
	if err != nil {
		return err
	}
	if err := mayAdminister(rest.Caller(r)); err != nil {
		return err
	}
	var in addBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	res, err := a.svc.Add(r.Context(), acc, r.PathValue("username"), in.Permission)
	if err != nil {
		return err
	}
	if res.Invitation == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	out, err := a.repoInvitations(r, acc, []*model.RepoInvitation{res.Invitation})
	if err != nil {
		return err
	}
	w.Header().Set("Location", out[0].URL) // the invitation, as GitHub answers
	return rest.JSON(w, http.StatusCreated, out[0])
}

// DELETE /repos/{owner}/{repo}/collaborators/{username}
func (a *API) remove(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r)
	if err != nil {
		return err
	}
	if err := mayAdminister(rest.Caller(r)); err != nil {
		return err
	}
	if err := a.svc.Remove(r.Context(), acc, r.PathValue("username")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET /repos/{owner}/{repo}/collaborators/{username}/permission
func (a *API) permission(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r)
	if err != nil {
		return err
	}
	c, err := a.svc.Permission(r.Context(), acc, r.PathValue("username"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCollaboratorPermission(c.User, c.Perm, c.RoleName))
}

// repoInvitations converts invitations of acc's repository as its admin
// sees them.
func (a *API) repoInvitations(r *http.Request, acc svc.Access, list []*model.RepoInvitation) ([]wire.RepositoryInvitation, error) {
	facts, err := a.d.Store.R().RepoFacts(r.Context(), []int64{acc.Repo.ID})
	if err != nil {
		return nil, err
	}
	repo := a.d.URLs.ToMinimalRepository(acc.Repo, repos.Counts(a.d, acc.Repo, facts[acc.Repo.ID]),
		wire.Access{Perm: acc.Perm, Authenticated: true})
	out := make([]wire.RepositoryInvitation, len(list))
	for i, inv := range list {
		out[i] = a.d.URLs.ToRepositoryInvitation(inv, acc.Repo, repo)
	}
	return out, nil
}

// GET /repos/{owner}/{repo}/invitations
func (a *API) listInvitations(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r)
	if err != nil {
		return err
	}
	if err := mayAdminister(rest.Caller(r)); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Invitations(r.Context(), acc, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out, err := a.repoInvitations(r, acc, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

type updateBody struct {
	Permissions *string `json:"permissions"`
}

// PATCH /repos/{owner}/{repo}/invitations/{invitation_id}
func (a *API) updateInvitation(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r)
	if err != nil {
		return err
	}
	if err := mayAdminister(rest.Caller(r)); err != nil {
		return err
	}
	id, err := invitationID(r)
	if err != nil {
		return err
	}
	var in updateBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	inv, err := a.svc.UpdateInvitation(r.Context(), acc, id, in.Permissions)
	if err != nil {
		return err
	}
	out, err := a.repoInvitations(r, acc, []*model.RepoInvitation{inv})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

// DELETE /repos/{owner}/{repo}/invitations/{invitation_id}
func (a *API) deleteInvitation(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r)
	if err != nil {
		return err
	}
	if err := mayAdminister(rest.Caller(r)); err != nil {
		return err
	}
	id, err := invitationID(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteInvitation(r.Context(), acc, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// me is the signed-in user acting on their own invitations: a classic
// token needs repo:invite (or repo, which holds it), GitHub's scope for
// exactly this.
func me(r *http.Request) (int64, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return 0, err
	}
	if err := api.RequireScope(c, "repo:invite"); err != nil {
		return 0, err
	}
	return c.UserID(), nil
}

// mayAdminister refuses fine-grained and app tokens without the
// administration permission at write for the writes here (classic tokens
// are limited by the repository lookup's scope rules).
func mayAdminister(c *authz.Caller) error {
	switch c.Kind {
	case authz.FineGrained, authz.UserToServer, authz.Installation:
		if got := c.Permissions["administration"]; got != "write" && got != "admin" {
			if c.Kind == authz.FineGrained {
				return model.Forbidden("Resource not accessible by personal access token")
			}
			return model.Forbidden("Resource not accessible by integration")
		}
	}
	return nil
}

// GET /user/repository_invitations
func (a *API) myInvitations(w http.ResponseWriter, r *http.Request) error {
	uid, err := me(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.MyInvitations(r.Context(), uid, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	ids := make([]int64, len(list))
	for i, inv := range list {
		ids[i] = inv.Repo.ID
	}
	facts, err := a.d.Store.R().RepoFacts(r.Context(), ids)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	out := make([]wire.RepositoryInvitation, len(list))
	for i, inv := range list {
		// The repository as the invitee sees it: a private one they were
		// invited to is shown, with the permissions they have so far.
		perm := authz.RepoPermission(c, inv.Repo, inv.Facts)
		repo := a.d.URLs.ToMinimalRepository(inv.Repo, repos.Counts(a.d, inv.Repo, facts[inv.Repo.ID]),
			wire.Access{Perm: perm, Authenticated: true})
		out[i] = a.d.URLs.ToRepositoryInvitation(inv.RepoInvitation, inv.Repo, repo)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// PATCH /user/repository_invitations/{invitation_id}
func (a *API) accept(w http.ResponseWriter, r *http.Request) error {
	uid, err := me(r)
	if err != nil {
		return err
	}
	id, err := invitationID(r)
	if err != nil {
		return err
	}
	if err := a.svc.Accept(r.Context(), uid, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// DELETE /user/repository_invitations/{invitation_id}
func (a *API) decline(w http.ResponseWriter, r *http.Request) error {
	uid, err := me(r)
	if err != nil {
		return err
	}
	id, err := invitationID(r)
	if err != nil {
		return err
	}
	if err := a.svc.Decline(r.Context(), uid, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
