package server

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitserve"
	"github.com/hubd/hubd/internal/gitssh"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// SSH is the SSH transport on this server's services: the same resolver
// and git service as smart HTTP.
func (s *Server) SSH() *gitssh.Server {
	return &gitssh.Server{Keys: s.sshKeys, Resolve: s.resolveSSH, Git: s.gitsvc, Greeting: s.sshGreeting, Fetched: s.fetchedSSH}
}

// sshGrant is what GitHub grants a user's SSH key: their whole access to
// repositories, workflow files included, as a classic token with repo and
// workflow would.
var sshGrant = authz.ParseScopes("repo,workflow")

// sshCaller is the caller a user's key acts as.
func (s *Server) sshCaller(ctx context.Context, key *model.PublicKey) (*authz.Caller, error) {
	u, err := s.deps.Store.R().AccountByID(ctx, key.UserID)
	if err != nil {
		return nil, err
	}
	if u.SuspendedAt != nil {
		return nil, gitserve.ErrNotFound
	}
	return &authz.Caller{Kind: authz.ClassicPAT, User: u, Scopes: sshGrant}, nil
}

// callerRequest carries a caller as a request does, for the resolvers and
// counters written for requests.
func callerRequest(ctx context.Context, c *authz.Caller, remote string) *http.Request {
	r, _ := http.NewRequestWithContext(rest.WithInfo(ctx, &rest.Info{Caller: c}), http.MethodGet, "/", nil)
	r.RemoteAddr = remote
	return r
}

// resolveSSH decides what a key reaches: a user's key what the user may
// (the smart HTTP resolver, with sshGrant), a deploy key its repository
// only, and pushes only when it is not read-only.
func (s *Server) resolveSSH(ctx context.Context, key *model.PublicKey, owner, name string, push bool) (*gitserve.Access, error) {
	if key.RepoID != 0 {
		return s.resolveDeployKey(ctx, key, owner, name, push)
	}
	c, err := s.sshCaller(ctx, key)
	if err != nil {
		return nil, err
	}
	a, err := gitResolver{d: &s.deps}.Resolve(callerRequest(ctx, c, ""), owner, name, push)
	if errors.Is(err, gitserve.ErrForbidden) {
		return nil, &gitssh.Refusal{Message: "Permission to " + owner + "/" + name + ".git denied to " + c.User.Login + "."}
	}
	return a, err
}

func (s *Server) resolveDeployKey(ctx context.Context, key *model.PublicKey, owner, name string, push bool) (*gitserve.Access, error) {
	q := s.deps.Store.R()
	v, err := q.RepoByName(ctx, owner, name, 0)
	if errors.Is(err, model.ErrNotFound) || err == nil && v.Repo.ID != key.RepoID {
		return nil, gitserve.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	repo := v.Repo
	if on, err := s.sshKeys.DeployKeysEnabled(ctx, repo); err != nil {
		return nil, err
	} else if !on {
		return nil, &gitssh.Refusal{Message: "Deploy keys are disabled for this repository."}
	}
	if push && key.ReadOnly {
		return nil, &gitssh.Refusal{Message: "The key you are authenticating with has been marked as read only."}
	}
	if push && repo.Archived {
		return nil, &gitssh.Refusal{Message: "This repository was archived so it is read-only."}
	}
	if push && repo.LockedForMigration {
		return nil, &gitssh.Refusal{Message: "Repository was locked for migration."}
	}
	gr, err := s.deps.GitRepo(ctx, repo)
	if err != nil {
		return nil, err
	}
	// The key acts for no user: the pushes are recorded as its adder's
	// (the owner's once the adder is gone); it bypasses the rulesets that
	// name DeployKey among their bypass actors, and no other rule.
	actor := repo.OwnerID
	if key.AddedBy != "" {
		if u, err := q.AccountByLogin(ctx, key.AddedBy); err == nil {
			actor = u.ID
		}
	}
	return &gitserve.Access{Repo: gr, RepoID: repo.ID, ActorID: actor, DefaultBranch: repo.DefaultBranch, Model: repo,
		Caller: &authz.Caller{DeployKeyID: key.ID}}, nil
}

// sshGreeting names who a key signs in as: the user, or the deploy key's
// repository.
func (s *Server) sshGreeting(ctx context.Context, key *model.PublicKey) string {
	q := s.deps.Store.R()
	if key.RepoID != 0 {
		if v, err := q.RepoByID(ctx, key.RepoID, 0); err == nil {
			return v.Repo.FullName()
		}
		return "there"
	}
	if u, err := q.AccountByID(ctx, key.UserID); err == nil {
		return u.Login
	}
	return "there"
}

// fetchedSSH counts a clone or fetch over SSH for the repository's
// traffic.
func (s *Server) fetchedSSH(ctx context.Context, key *model.PublicKey, a *gitserve.Access, remote net.Addr) {
	if s.deps.Metrics == nil || a.Model == nil {
		return
	}
	c := a.Caller
	if c == nil {
		c = &authz.Caller{}
	}
	s.deps.Metrics.Fetched(callerRequest(ctx, c, remote.String()), a.RepoID)
}
