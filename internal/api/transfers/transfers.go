// Package transfers is the REST adapter of repository transfers
// (POST /repos/{owner}/{repo}/transfer). The rules live in
// internal/transfers; the old name answers with redirects afterwards
// (api.Deps.Repo).
package transfers

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/api/repos"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	svc "github.com/hubd/hubd/internal/transfers"
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
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/transfer", OperationID: "repos/transfer", Handler: a.transfer, Scopes: []string{"public_repo", "repo"},
			Note: "Immediate to your own account or to an organization where you may create repositories; a transfer to another user's account is refused (403): GitHub completes it when that user accepts by email, which hubd cannot send."},
	}
}

type transferBody struct {
	NewOwner rest.Opt[string]  `json:"new_owner"`
	NewName  rest.Opt[string]  `json:"new_name"`
	TeamIDs  rest.Opt[[]int64] `json:"team_ids"`
}

// POST /repos/{owner}/{repo}/transfer: 202 with the repository where it
// now is.
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
	ctx := r.Context()
	moved, err := a.svc.TransferRepo(ctx, c, repo, perm, svc.RepoInput{NewOwner: owner, NewName: name, TeamIDs: teams})
	if err != nil {
		return err
	}
	v, err := a.d.Store.R().RepoByID(ctx, moved.ID, c.UserID())
	if err != nil {
		return err
	}
	out, err := repos.MinimalList(ctx, a.d, c, []*store.RepoView{v})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, out[0])
}
