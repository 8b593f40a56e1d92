package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gists"
	"github.com/hubd/hubd/internal/githttp"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// gistGit is git's smart HTTP on gists, for the git transport.
type gistGit struct {
	d   *deps.Deps
	svc *gists.Service
}

// GitAccess authorizes git's smart HTTP on a gist's repository
// (/gist/{id}.git): anyone may clone a gist, secret ones included (they
// are unlisted, not private); only its owner pushes, with a token that may
// write gists. A push becomes the gist's current revision.
func (a gistGit) GitAccess(r *http.Request, id string, push bool) (*githttp.Access, error) {
	g, err := a.svc.Get(r.Context(), id)
	if errors.Is(err, model.ErrNotFound) {
		return nil, githttp.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	c := rest.Caller(r)
	if push {
		if !c.Authenticated() || c.Kind == authz.AppJWT {
			return nil, githttp.ErrUnauthorized
		}
		if c.UserID() != g.OwnerID || !c.HasScope("gist") ||
			(c.Kind == authz.FineGrained || c.Kind == authz.UserToServer) && c.Permissions["gists"] != "write" {
			return nil, githttp.ErrForbidden
		}
	}
	repo := a.d.Git.Open(gitrepo.GistStorage(g.ID))
	actor := c.UserID()
	return &githttp.Access{Repo: repo, ActorID: actor, DefaultBranch: "main", Caller: c,
		OnPush: func(ctx context.Context, _ []githttp.RefUpdate) error { return a.svc.Pushed(ctx, g.ID, actor) }}, nil
}
