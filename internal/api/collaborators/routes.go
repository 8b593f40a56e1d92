// Package collaborators is the REST adapter of repository collaborators and
// invitations: it parses requests, calls the collaborators service and
// writes GitHub's shapes.
package collaborators

import (
	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/collaborators"
	"github.com/hubd/hubd/internal/rest"
)

// API is the collaborators package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	repo := []string{"repo"}
	invite := []string{"repo", "repo:invite"}
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/collaborators", OperationID: "repos/list-collaborators", Handler: a.list, Scopes: repo},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/collaborators/{username}", OperationID: "repos/check-collaborator", Handler: a.check, Scopes: repo},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/collaborators/{username}", OperationID: "repos/add-collaborator", Handler: a.add, Scopes: repo,
			Note: "A custom repository role (organization repositories) acts as its base role in every check; its additional permissions are recorded, not enforced. A user-owned repository takes pull, push and admin; triage and maintain are refused there with 422, as GitHub does."},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/collaborators/{username}", OperationID: "repos/remove-collaborator", Handler: a.remove, Scopes: repo,
			Note: "Removes the grant, the user's open invitation and the invitations they sent; it does not unassign them from issues or touch their forks yet."},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/collaborators/{username}/permission", OperationID: "repos/get-collaborator-permission-level", Handler: a.permission, Scopes: repo},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/invitations", OperationID: "repos/list-invitations", Handler: a.listInvitations, Scopes: repo},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/invitations/{invitation_id}", OperationID: "repos/update-invitation", Handler: a.updateInvitation, Scopes: repo},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/invitations/{invitation_id}", OperationID: "repos/delete-invitation", Handler: a.deleteInvitation, Scopes: repo},
		{Method: "GET", Pattern: "/user/repository_invitations", OperationID: "repos/list-invitations-for-authenticated-user", Handler: a.myInvitations, Scopes: invite},
		{Method: "PATCH", Pattern: "/user/repository_invitations/{invitation_id}", OperationID: "repos/accept-invitation-for-authenticated-user", Handler: a.accept, Scopes: invite},
		{Method: "DELETE", Pattern: "/user/repository_invitations/{invitation_id}", OperationID: "repos/decline-invitation-for-authenticated-user", Handler: a.decline, Scopes: invite},
	}
}
