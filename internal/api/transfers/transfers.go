// Package transfers is the REST adapter of repository transfers
// (POST /repos/{owner}/{repo}/transfer) and of hubd's stand-in for GitHub's
// transfer email: the offers of repositories to a user, which they accept
// or decline under /user/repository_transfers. The rules live in
// internal/transfers; the old name answers with redirects afterwards
// (api.Deps.Repo).
package transfers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	svc "github.com/hubd/hubd/internal/transfers"
	"github.com/hubd/hubd/internal/wire"
)

// API is the transfers package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Service is the transfer service GraphQL's transferIssue runs too.
func (a *API) Service() *svc.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/transfer", OperationID: "repos/transfer", Handler: a.transfer, Scopes: []string{"public_repo", "repo"}},
		// GitHub offers a repository to another user by email; hubd lists
		// the offers to the user, who accepts or declines them here.
		{Method: "GET", Pattern: "/user/repository_transfers", OperationID: "hubd/list-repository-transfers", Handler: a.offers, Scopes: []string{"repo"}, Extension: true},
		{Method: "PATCH", Pattern: "/user/repository_transfers/{transfer_id}", OperationID: "hubd/accept-repository-transfer", Handler: a.accept, Scopes: []string{"repo"}, Extension: true},
		{Method: "DELETE", Pattern: "/user/repository_transfers/{transfer_id}", OperationID: "hubd/decline-repository-transfer", Handler: a.decline, Scopes: []string{"repo"}, Extension: true},
	}
}

type transferBody struct {
	NewOwner rest.Opt[string]  `json:"new_owner"`
	NewName  rest.Opt[string]  `json:"new_name"`
	TeamIDs  rest.Opt[[]int64] `json:"team_ids"`
}

// POST /repos/{owner}/{repo}/transfer: 202 with the repository where it
// now is, or where it still is while another user has not accepted.
func (a *API) transfer(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	repo, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	var in transferBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	owner, _ := in.NewOwner.Get()
	name, _ := in.NewName.Get()
	teams, _ := in.TeamIDs.Get()
	moved, _, err := a.svc.TransferRepo(r.Context(), c, repo, perm, svc.RepoInput{NewOwner: owner, NewName: name, TeamIDs: teams})
	if err != nil {
		return err
	}
	return a.writeRepo(w, r, http.StatusAccepted, moved.ID)
}

// writeRepo answers a repository as minimal-repository, as the caller sees it.
func (a *API) writeRepo(w http.ResponseWriter, r *http.Request, status int, id int64) error {
	c := rest.Caller(r)
	v, err := a.d.Store.R().RepoByID(r.Context(), id, c.UserID())
	if err != nil {
		return err
	}
	out, err := repos.MinimalList(r.Context(), a.d, c, []*store.RepoView{v})
	if err != nil {
		return err
	}
	return rest.JSON(w, status, out[0])
}

// offer is a repository offered to the caller.
type offer struct {
	ID         int64                  `json:"id"`
	Repository wire.MinimalRepository `json:"repository"`
	From       wire.SimpleUser        `json:"from"`
	Requester  *wire.SimpleUser       `json:"requester"`
	NewName    string                 `json:"new_name"`
	CreatedAt  time.Time              `json:"created_at"`
	ExpiresAt  time.Time              `json:"expires_at"`
}

// GET /user/repository_transfers: the repositories offered to the caller.
func (a *API) offers(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	p := rest.ParsePage(r)
	list, total, err := a.svc.Offers(ctx, c, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	var repoIDs, accIDs []int64
	for _, t := range list {
		repoIDs = append(repoIDs, t.RepoID)
		accIDs = append(accIDs, t.FromID, t.RequesterID)
	}
	views, err := a.d.Store.R().ReposByID(ctx, repoIDs, c.UserID())
	if err != nil {
		return err
	}
	accs, err := a.d.Store.R().AccountsByID(ctx, accIDs)
	if err != nil {
		return err
	}
	ordered := make([]*store.RepoView, 0, len(list))
	for _, t := range list {
		ordered = append(ordered, views[t.RepoID])
	}
	// The repository as the user it is offered to sees it: a private one
	// is shown to them, as a repository invitation shows it.
	minimal, err := repos.MinimalList(ctx, a.d, c, ordered)
	if err != nil {
		return err
	}
	out := make([]offer, len(list))
	for i, t := range list {
		out[i] = offer{ID: t.ID, Repository: minimal[i], NewName: t.NewName, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt}
		if f := accs[t.FromID]; f != nil {
			out[i].From = a.d.URLs.ToSimpleUser(f)
		}
		if q := accs[t.RequesterID]; q != nil {
			u := a.d.URLs.ToSimpleUser(q)
			out[i].Requester = &u
		}
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// offerOf reads the signed-in caller and the {transfer_id} path value.
func offerOf(r *http.Request) (*authz.Caller, int64, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, 0, err
	}
	id, err := strconv.ParseInt(r.PathValue("transfer_id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, 0, model.ErrNotFound
	}
	return c, id, nil
}

// PATCH /user/repository_transfers/{transfer_id}: accept; the repository
// moves to the caller's account and is answered there.
func (a *API) accept(w http.ResponseWriter, r *http.Request) error {
	c, id, err := offerOf(r)
	if err != nil {
		return err
	}
	moved, err := a.svc.Accept(r.Context(), c, id)
	if err != nil {
		return err
	}
	return a.writeRepo(w, r, http.StatusOK, moved.ID)
}

// DELETE /user/repository_transfers/{transfer_id}: decline.
func (a *API) decline(w http.ResponseWriter, r *http.Request) error {
	c, id, err := offerOf(r)
	if err != nil {
		return err
	}
	if err := a.svc.Decline(r.Context(), c, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
