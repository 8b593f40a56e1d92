// Package commitcomments is the REST adapter of comments on commits
// (docs: repos/comments) over the commitcomments service: it resolves the
// repository and the caller, decodes, calls the service and converts.
package commitcomments

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/commitcomments"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// API serves the commit comment routes.
type API struct {
	d   *api.Deps
	svc *commitcomments.Service
}

// New makes the package.
func New(d *api.Deps) *API {
	a := &API{d: d}
	a.svc = commitcomments.New(d.Store, a.resolve)
	return a
}

// Classic scopes of the route table.
var (
	read  = []string{"repo"}
	write = []string{"public_repo", "repo"}
)

// positionNote says what hubd does not check.
const positionNote = "path, position and line are stored as given, not checked against the commit's diff."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/comments", OperationID: "repos/list-commit-comments-for-repo", Handler: a.listForRepo, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/comments/{comment_id}", OperationID: "repos/get-commit-comment", Handler: a.get, Scopes: read},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/comments/{comment_id}", OperationID: "repos/update-commit-comment", Handler: a.update, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/comments/{comment_id}", OperationID: "repos/delete-commit-comment", Handler: a.delete, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/commits/{commit_sha}/comments", OperationID: "repos/list-comments-for-commit", Handler: a.listForCommit, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/commits/{commit_sha}/comments", OperationID: "repos/create-commit-comment", Handler: a.create, Scopes: write, Note: positionNote},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/comments/{comment_id}/reactions", OperationID: "reactions/list-for-commit-comment", Handler: a.reactions().List, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/comments/{comment_id}/reactions", OperationID: "reactions/create-for-commit-comment", Handler: a.reactions().Create, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/comments/{comment_id}/reactions/{reaction_id}", OperationID: "reactions/delete-for-commit-comment", Handler: a.reactions().Delete, Scopes: write},
	}
}

// resolve finds a commit in the repository's git storage; a repository
// without storage or commits has none.
func (a *API) resolve(ctx context.Context, repo *model.Repo, sha string) (string, error) {
	g := a.d.Git.Open(repo.ID)
	if !g.Exists() {
		return "", model.ErrNotFound
	}
	full, err := a.d.ResolveCommit(ctx, g, repo, sha)
	if errors.Is(err, api.ErrEmptyRepo) {
		return "", model.ErrNotFound
	}
	return full, err
}
