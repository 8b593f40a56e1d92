package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/githttp"
	"github.com/hubd/hubd/internal/gitserve"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/workflowguard"
)

// gitResolver authorizes git transport requests with the same repository
// lookup as the API (api.Deps.Repo), translated to what git clients expect:
// 401 (so git asks for credentials) for anonymous callers who cannot read or
// who push, 403 for signed-in callers without write access, 404 otherwise.
type gitResolver struct {
	d *api.Deps
	// gist resolves /gist/{id}.git, GitHub Enterprise Server's path of a
	// gist's repository (set by Build).
	gist func(r *http.Request, id string, push bool) (*githttp.Access, error)
}

func (g gitResolver) Resolve(r *http.Request, owner, name string, push bool) (*githttp.Access, error) {
	if owner == "gist" && g.gist != nil {
		return g.gist(r, name, push)
	}
	r.SetPathValue("owner", owner)
	r.SetPathValue("repo", name)
	need := authz.Read
	if push {
		need = authz.Write
	}
	c := rest.Caller(r)
	if c.Kind == authz.AppJWT {
		// An app's JWT reaches only the /app... operations.
		return nil, githttp.ErrUnauthorized
	}
	repo, _, err := g.d.Repo(r, need)
	var mv *model.Moved
	if errors.As(err, &mv) {
		// A renamed or transferred repository answers git at its old
		// name too (GitHub redirects git as well).
		repo, err = g.moved(r, owner, name, need)
	}
	switch {
	case err == nil:
	case errors.Is(err, rest.ErrRequiresAuth):
		return nil, githttp.ErrUnauthorized
	case errors.Is(err, model.ErrNotFound), errors.As(err, &mv):
		if !c.Authenticated() {
			return nil, githttp.ErrUnauthorized
		}
		return nil, githttp.ErrNotFound
	default:
		var he *model.HTTPError
		if errors.As(err, &he) && he.Status == http.StatusForbidden {
			return nil, githttp.ErrForbidden
		}
		return nil, err
	}
	if push && repo.WriteRefusal() != nil {
		return nil, githttp.ErrForbidden
	}
	if c.Kind == authz.Installation && (push || repo.Private()) {
		// An installation fetches a private repository with contents:
		// read and pushes with contents: write.
		level := "read"
		if push {
			level = "write"
		}
		if !authz.Covers(c.Permissions, "contents", level) {
			return nil, githttp.ErrForbidden
		}
	}
	gr, err := g.d.GitRepo(r.Context(), repo)
	if err != nil {
		return nil, err
	}
	return &githttp.Access{Repo: gr, RepoID: repo.ID, ActorID: c.UserID(), DefaultBranch: repo.DefaultBranch, Model: repo, Caller: c}, nil
}

// gitObserver records what a push changed.
type gitObserver struct{ d *api.Deps }

func (g gitObserver) Pushed(ctx context.Context, a *githttp.Access, updates []githttp.RefUpdate) error {
	if a.OnPush != nil {
		return a.OnPush(ctx, updates)
	}
	list := make([]api.RefUpdate, len(updates))
	for i, u := range updates {
		list[i] = api.RefUpdate{Ref: u.Name, Old: u.Old, New: u.New}
	}
	return g.d.RecordPush(ctx, a.Model, a.ActorID, list, true)
}

// workflowPushCheck refuses a push that creates, changes or deletes a
// workflow file the pusher's token may not change, before any ref moves
// (git shows "! [remote rejected] ref -> ref (refusing to allow ...)" as
// GitHub's does); next decides the pushes it lets through.
func workflowPushCheck(next gitserve.PushCheck) gitserve.PushCheck {
	return func(ctx context.Context, a *gitserve.Access, updates []gitserve.RefUpdate, env []string) (string, error) {
		if a.OnPush == nil { // a gist runs no workflows
			changes := make([]workflowguard.Change, len(updates))
			for i, u := range updates {
				changes[i] = workflowguard.Change{Ref: u.Name, Old: u.Old, New: u.New}
			}
			no, err := workflowguard.Check(ctx, a.Caller, a.Repo, env, changes...)
			if err != nil {
				return "", err
			}
			if no != nil {
				// GitHub gives the reason in the ref's rejection.
				return "", &gitserve.Declined{Reason: no.Message}
			}
		}
		return next(ctx, a, updates, env)
	}
}

// moved resolves the repository that used to be owner/name under its
// current name, with the same checks as a request there.
func (g gitResolver) moved(r *http.Request, owner, name string, need authz.Permission) (*model.Repo, error) {
	id, err := g.d.Store.R().RepoRedirect(r.Context(), owner, name)
	if err != nil {
		return nil, err
	}
	v, err := g.d.Store.R().RepoByID(r.Context(), id, 0)
	if err != nil {
		return nil, err
	}
	r.SetPathValue("owner", v.Repo.Owner.Login)
	r.SetPathValue("repo", v.Repo.Name)
	repo, _, err := g.d.Repo(r, need)
	return repo, err
}
