// Package blocks is the REST adapter of blocking (users/blocking and
// orgs/blocking): it parses requests, calls the blocks service and writes
// GitHub's shapes.
package blocks

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/blocks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// API is the blocking package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API {
	a := &API{d: d, svc: svc.New(d.Store)}
	d.Guards = append(d.Guards, func(ctx context.Context, repo *model.Repo, userID int64, kind string) error {
		err := a.svc.Refuse(ctx, repo, userID, resources[kind])
		if err != nil && kind == "review" {
			// Review operations answer 422 with reasons as strings.
			var ve *model.ValidationError
			if errors.As(err, &ve) {
				return model.UnprocessableReasons("User is blocked")
			}
		}
		return err
	})
	return a
}

// resources name what a guarded kind creates, for the refusal.
var resources = map[string]string{"issue": "Issue", "comment": "IssueComment", "reaction": "Reaction",
	"pull": "PullRequest", "draft_pull": "PullRequest", "review": "PullRequestReview"}

// Service is the blocking service, for the packages that enforce blocks
// (issues, comments, reactions, pull requests).
func (a *API) Service() *svc.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	user := []string{"user"}
	org := []string{"admin:org"}
	return []rest.Route{
		{Method: "GET", Pattern: "/user/blocks", OperationID: "users/list-blocked-by-authenticated-user", Handler: a.listMine, Scopes: user},
		{Method: "GET", Pattern: "/user/blocks/{username}", OperationID: "users/check-blocked", Handler: a.checkMine, Scopes: user},
		{Method: "PUT", Pattern: "/user/blocks/{username}", OperationID: "users/block", Handler: a.blockMine, Scopes: user,
			Note: "The block removes the user as collaborator and cancels their repository invitations; hubd keeps no stars, watches or follows to undo."},
		{Method: "DELETE", Pattern: "/user/blocks/{username}", OperationID: "users/unblock", Handler: a.unblockMine, Scopes: user},

		{Method: "GET", Pattern: "/orgs/{org}/blocks", OperationID: "orgs/list-blocked-users", Handler: a.listOrg, Scopes: org},
		{Method: "GET", Pattern: "/orgs/{org}/blocks/{username}", OperationID: "orgs/check-blocked-user", Handler: a.checkOrg, Scopes: org},
		{Method: "PUT", Pattern: "/orgs/{org}/blocks/{username}", OperationID: "orgs/block-user", Handler: a.blockOrg, Scopes: org,
			Note: "The block cancels a pending membership invitation and repository invitations, and removes outside collaborator access; hubd keeps no stars, watches or follows to undo."},
		{Method: "DELETE", Pattern: "/orgs/{org}/blocks/{username}", OperationID: "orgs/unblock-user", Handler: a.unblockOrg, Scopes: org},
	}
}
