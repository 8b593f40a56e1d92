// Package sshkeys is the REST adapter of SSH keys: the authenticated
// user's keys (users/keys), anyone's public keys, a site administrator's
// view of every key (enterprise-admin) and repositories' deploy keys
// (deploy-keys). The rules live in internal/sshkeys.
package sshkeys

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/sshkeys"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Service is the SSH key service (the SSH transport authenticates with it).
func (a *API) Service() *svc.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"read:public_key"}
	write := []string{"write:public_key"}
	admin := []string{"admin:public_key"}
	repo := []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: "/user/keys", OperationID: "users/list-public-ssh-keys-for-authenticated-user", Handler: a.listMine, Scopes: read},
		{Method: "POST", Pattern: "/user/keys", OperationID: "users/create-public-ssh-key-for-authenticated-user", Handler: a.createMine, Scopes: write},
		{Method: "GET", Pattern: "/user/keys/{key_id}", OperationID: "users/get-public-ssh-key-for-authenticated-user", Handler: a.getMine, Scopes: read},
		{Method: "DELETE", Pattern: "/user/keys/{key_id}", OperationID: "users/delete-public-ssh-key-for-authenticated-user", Handler: a.deleteMine, Scopes: admin},
		{Method: "GET", Pattern: "/users/{username}/keys", OperationID: "users/list-public-keys-for-user", Handler: a.listForUser},

		{Method: "GET", Pattern: "/admin/keys", OperationID: "enterprise-admin/list-public-keys", Handler: a.listAll, Scopes: []string{"site_admin"}},
		{Method: "DELETE", Pattern: "/admin/keys/{key_ids}", OperationID: "enterprise-admin/delete-public-key", Handler: a.deleteAny, Scopes: []string{"site_admin"}},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/keys", OperationID: "repos/list-deploy-keys", Handler: a.listDeploy, Scopes: repo},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/keys", OperationID: "repos/create-deploy-key", Handler: a.createDeploy, Scopes: repo},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/keys/{key_id}", OperationID: "repos/get-deploy-key", Handler: a.getDeploy, Scopes: repo},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/keys/{key_id}", OperationID: "repos/delete-deploy-key", Handler: a.deleteDeploy, Scopes: repo},
	}
}
