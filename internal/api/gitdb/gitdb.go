// Package gitdb serves the Git database API: reading and writing blobs,
// trees, commits and annotated tags as raw git objects, and moving refs with
// compare-and-swap. Objects are written as loose objects; they become
// visible to clones only once a ref points at them, so only ref changes are
// recorded (as pushes).
package gitdb

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/bytecache"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/refs"
	"github.com/hubd/hubd/internal/rest"
)

// API is the gitdb package.
type API struct {
	d     *api.Deps
	refs  *refs.Service             // creates, moves and deletes refs
	trees *bytecache.Cache[treeKey] // rendered tree listings by tree id
}

// New makes the package; its ref changes run the ref service.
func New(d *api.Deps, refs *refs.Service) *API {
	return &API{d: d, refs: refs, trees: bytecache.New[treeKey](64<<20, 8<<20)}
}

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	write := []string{"public_repo", "repo"}
	return []rest.Route{
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/git/blobs", OperationID: "git/create-blob", Handler: a.createBlob, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/blobs/{file_sha}", OperationID: "git/get-blob", Handler: a.getBlob, Scopes: read, Stream: true},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/git/trees", OperationID: "git/create-tree", Handler: a.createTree, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/trees/{tree_sha...}", OperationID: "git/get-tree", Handler: a.getTree, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/git/commits", OperationID: "git/create-commit", Handler: a.createCommit, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/commits/{commit_sha}", OperationID: "git/get-commit", Handler: a.getCommit, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/matching-refs/{ref...}", OperationID: "git/list-matching-refs", Handler: a.listMatchingRefs, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/ref/{ref...}", OperationID: "git/get-ref", Handler: a.getRef, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/git/refs", OperationID: "git/create-ref", Handler: a.createRef, Scopes: write},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/git/refs/{ref...}", OperationID: "git/update-ref", Handler: a.updateRef, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/git/refs/{ref...}", OperationID: "git/delete-ref", Handler: a.deleteRef, Scopes: write},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/git/tags", OperationID: "git/create-tag", Handler: a.createTag, Scopes: write},

		// The list forms GitHub still answers for older clients (the
		// description now has matching-refs and ref for them).
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/refs", OperationID: "hubd/list-refs", Handler: a.listRefs, Scopes: read, Extension: true},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/refs/{ref...}", OperationID: "hubd/get-refs-legacy", Handler: a.listRefs, Scopes: read, Extension: true},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/tags/{tag_sha}", OperationID: "git/get-tag", Handler: a.getTag, Scopes: read},
	}
}

// repoFor is the check every operation starts with: the repository with
// read (or, to write, write) permission and a token allowed to touch its
// contents, not archived when writing, and its git storage, which must hold
// a branch (GitHub's 409 "Git Repository is empty." otherwise).
func (a *API) repoFor(r *http.Request, write bool) (*model.Repo, *gitrepo.Repo, error) {
	need := authz.Read
	if write {
		need = authz.Write
	}
	repo, _, err := a.d.Repo(r, need)
	if err != nil {
		return nil, nil, err
	}
	if err := contentsAllowed(rest.Caller(r), repo, write); err != nil {
		return nil, nil, err
	}
	if err := repo.WriteRefusal(); write && err != nil {
		return nil, nil, err
	}
	g := a.d.Git.Open(repo.ID)
	if err := notEmpty(r.Context(), g); err != nil {
		return nil, nil, err
	}
	return repo, g, nil
}

// contentsAllowed checks the "contents" permission of fine-grained and app
// tokens (classic scopes are part of the repository permission already).
// Every token reads public repositories.
func contentsAllowed(c *authz.Caller, repo *model.Repo, write bool) error {
	switch c.Kind {
	case authz.FineGrained, authz.UserToServer, authz.Installation:
	default:
		return nil
	}
	got := c.Permissions["contents"]
	ok := got == "write" || got == "admin"
	if !write {
		ok = ok || got == "read" || !repo.Private()
	}
	if ok {
		return nil
	}
	if c.Kind == authz.FineGrained {
		return model.Forbidden("Resource not accessible by personal access token")
	}
	return model.Forbidden("Resource not accessible by integration")
}

// notEmpty answers api.ErrEmptyRepo for a repository without branches. HEAD
// resolving (one round trip to the cat-file process) is the common case;
// only otherwise are the branches listed.
func notEmpty(ctx context.Context, g *gitrepo.Repo) error {
	if !g.Exists() {
		return api.ErrEmptyRepo
	}
	_, err := g.Info(ctx, "HEAD")
	if err == nil {
		return nil
	}
	if !errors.Is(err, gitrepo.ErrNotFound) {
		return err
	}
	empty, err := api.IsEmpty(ctx, g)
	if err != nil {
		return err
	}
	if empty {
		return api.ErrEmptyRepo
	}
	return nil
}

// isOID reports whether s is a full, lower-case object id.
func isOID(s string) bool {
	return gitrepo.ValidOID(s) && strings.ToLower(s) == s
}

// object looks up an object by full or abbreviated id, of the wanted type
// ("" for any): model.ErrNotFound when it does not exist, is ambiguous or is
// of another type.
func object(ctx context.Context, g *gitrepo.Repo, sha, typ string) (gitrepo.ObjectInfo, error) {
	if !isHexish(sha) {
		return gitrepo.ObjectInfo{}, model.ErrNotFound
	}
	info, err := g.Info(ctx, strings.ToLower(sha))
	if errors.Is(err, gitrepo.ErrNotFound) || (err == nil && typ != "" && info.Type != typ) {
		return gitrepo.ObjectInfo{}, model.ErrNotFound
	}
	return info, err
}

// required is GitHub's 422 for a required field that was not sent.
func required(field string) error {
	return model.Unprocessable("Invalid request.\n\n\"" + field + "\" wasn't supplied.")
}

// notString is GitHub's 422 for a field sent as null.
func notString(field string) error {
	return model.Unprocessable("Invalid request.\n\nFor 'properties/" + field + "', nil is not a string.")
}

// invalid is a Validation Failed naming one field.
func invalid(resource, field string, value any) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: field, Code: "invalid", Value: value}}}
}
