// Package refs is the ref service: creating, moving and deleting refs
// through the API (REST's git refs, GraphQL's createLinkedBranch) with the
// rules a push meets — a valid name, an object that exists, a branch at a
// commit, workflow files, branch protection and rulesets — recorded as a
// push (the push event, the create and delete webhooks). It also keeps the
// branches linked to issues (linked.go).
package refs

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/workflowguard"
)

// Service is the ref service.
type Service struct{ d *deps.Deps }

// New makes the service; links to a branch go when a push (or the API)
// deletes it.
func New(d *deps.Deps) *Service {
	s := &Service{d: d}
	d.PushHooks = append(d.PushHooks, s.pushed)
	return s
}

// attempts bounds the compare-and-swap retries of a ref change that lost a
// race (each retry re-reads the ref and re-checks the update).
const attempts = 16

// ErrExists is the refusal to create a ref that exists.
var ErrExists = model.Unprocessable("Reference already exists")

// ErrNoObject is the refusal of a ref to an object that does not exist.
var ErrNoObject = model.Unprocessable("Object does not exist")

// Target is the object a full ref name points to (not peeled):
// model.ErrNotFound when there is no such ref.
func Target(ctx context.Context, g *gitrepo.Repo, name string) (gitrepo.ObjectInfo, error) {
	if !gitrepo.ValidRefName(name) {
		return gitrepo.ObjectInfo{}, model.ErrNotFound
	}
	info, err := g.Info(ctx, name)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return info, model.ErrNotFound
	}
	return info, err
}

// Create creates the full ref name at sha (a full or abbreviated object
// id) for a caller with write access to repo, and answers the object it
// points to.
func (s *Service) Create(ctx context.Context, c *authz.Caller, repo *model.Repo, name, sha string) (gitrepo.ObjectInfo, error) {
	if !strings.HasPrefix(name, "refs/") || strings.Count(name, "/") < 2 {
		return gitrepo.ObjectInfo{}, model.Unprocessable("Reference name must start with 'refs/' and contain at least three slash-separated components.")
	}
	if !gitrepo.ValidRefName(name) {
		return gitrepo.ObjectInfo{}, model.Unprocessable(name + " is not a valid ref name.")
	}
	g := s.d.Git.Open(repo.ID)
	target, err := object(ctx, g, name, sha)
	if err != nil {
		return target, err
	}
	if err := s.allowed(ctx, c, repo, name, gitrepo.ZeroOID, target.OID); err != nil {
		return target, err
	}
	err = g.UpdateRef(ctx, name, target.OID, gitrepo.ZeroOID)
	if errors.Is(err, gitrepo.ErrRefConflict) {
		return target, ErrExists
	}
	if err != nil {
		return target, err
	}
	s.record(ctx, c, repo, name, gitrepo.ZeroOID, target.OID)
	return target, nil
}

// CreateFor is Create for a GraphQL mutation (named for its FORBIDDEN):
// the caller needs write access (perm) to a repository not archived, and
// oid is a full object id.
func (s *Service) CreateFor(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, mutation, name, oid string) (gitrepo.ObjectInfo, error) {
	if perm < authz.Write {
		return gitrepo.ObjectInfo{}, noPermission(c, mutation)
	}
	if repo.Archived {
		return gitrepo.ObjectInfo{}, deps.ErrArchived
	}
	if !gitrepo.ValidOID(oid) {
		return gitrepo.ObjectInfo{}, ErrNoObject
	}
	return s.Create(ctx, c, repo, name, oid)
}

// Update moves the full ref name to sha: a fast-forward unless force. The
// ref moves only if it still holds the value the check was made against,
// so of two concurrent updates one wins and the other is re-checked
// against the winner.
func (s *Service) Update(ctx context.Context, c *authz.Caller, repo *model.Repo, name, sha string, force bool) (gitrepo.ObjectInfo, error) {
	g := s.d.Git.Open(repo.ID)
	if _, err := Target(ctx, g, name); errors.Is(err, model.ErrNotFound) {
		return gitrepo.ObjectInfo{}, model.Unprocessable("Reference does not exist")
	} else if err != nil {
		return gitrepo.ObjectInfo{}, err
	}
	target, err := object(ctx, g, name, sha)
	if err != nil {
		return target, err
	}
	for attempt := 1; ; attempt++ {
		cur, err := Target(ctx, g, name)
		if errors.Is(err, model.ErrNotFound) {
			return target, model.Unprocessable("Reference does not exist")
		}
		if err != nil {
			return target, err
		}
		if cur.OID == target.OID {
			return target, nil // already there
		}
		if !force {
			ff, err := fastForward(ctx, g, cur.OID, target.OID)
			if err != nil {
				return target, err
			}
			if !ff {
				return target, model.Unprocessable("Update is not a fast forward")
			}
		}
		if err := s.allowed(ctx, c, repo, name, cur.OID, target.OID); err != nil {
			return target, err
		}
		err = g.UpdateRef(ctx, name, target.OID, cur.OID)
		if errors.Is(err, gitrepo.ErrRefConflict) && attempt < attempts {
			continue
		}
		if errors.Is(err, gitrepo.ErrRefConflict) {
			return target, model.Unprocessable("Reference cannot be updated")
		}
		if err != nil {
			return target, err
		}
		s.record(ctx, c, repo, name, cur.OID, target.OID)
		return target, nil
	}
}

// Delete deletes the full ref name; never the default branch.
func (s *Service) Delete(ctx context.Context, c *authz.Caller, repo *model.Repo, name string) error {
	g := s.d.Git.Open(repo.ID)
	for attempt := 1; ; attempt++ {
		cur, err := Target(ctx, g, name)
		if errors.Is(err, model.ErrNotFound) {
			return model.Unprocessable("Reference does not exist")
		}
		if err != nil {
			return err
		}
		if name == "refs/heads/"+repo.DefaultBranch {
			return model.Unprocessable("Cannot delete the default branch")
		}
		if err := s.allowed(ctx, c, repo, name, cur.OID, gitrepo.ZeroOID); err != nil {
			return err
		}
		err = g.DeleteRef(ctx, name, cur.OID)
		if errors.Is(err, gitrepo.ErrRefConflict) && attempt < attempts {
			continue
		}
		if errors.Is(err, gitrepo.ErrRefConflict) {
			return model.Unprocessable("Reference cannot be deleted")
		}
		if err != nil {
			return err
		}
		s.record(ctx, c, repo, name, cur.OID, gitrepo.ZeroOID)
		return nil
	}
}

// object finds the object a ref is to point to: ErrNoObject when it is not
// there; a branch must point to a commit.
func object(ctx context.Context, g *gitrepo.Repo, name, sha string) (gitrepo.ObjectInfo, error) {
	if len(sha) < 4 || len(sha) > 40 || strings.Trim(strings.ToLower(sha), "0123456789abcdef") != "" {
		return gitrepo.ObjectInfo{}, ErrNoObject
	}
	info, err := g.Info(ctx, strings.ToLower(sha))
	if errors.Is(err, gitrepo.ErrNotFound) {
		return info, ErrNoObject
	}
	if err != nil {
		return info, err
	}
	if strings.HasPrefix(name, "refs/heads/") && info.Type != "commit" {
		return info, model.Unprocessable("Object is not a commit: a branch must point to a commit")
	}
	return info, nil
}

// fastForward reports whether moving a ref from old to new keeps old's
// history: both lead to commits and old's commit is an ancestor of new's.
func fastForward(ctx context.Context, g *gitrepo.Repo, old, new string) (bool, error) {
	infos, err := g.InfoMany(ctx, []string{old + "^{commit}", new + "^{commit}"})
	if err != nil {
		return false, err
	}
	if infos[0].Type != "commit" || infos[1].Type != "commit" {
		return false, nil
	}
	return g.IsAncestor(ctx, infos[0].OID, infos[1].OID)
}

// allowed refuses a ref change the caller may not make: one that changes a
// workflow file without the workflow scope or permission (403 with
// GitHub's "refusing to allow ..."), one a protected branch's push
// restrictions keep from the caller, or one the repository's active
// rulesets forbid (GitHub's 422 "Repository rule violations found" with
// the reasons).
func (s *Service) allowed(ctx context.Context, c *authz.Caller, repo *model.Repo, name, old, new string) error {
	no, err := workflowguard.Check(ctx, c, s.d.Git.Open(repo.ID), nil, workflowguard.Change{Ref: name, Old: old, New: new})
	if err != nil {
		return err
	}
	if no != nil {
		return no.Forbidden()
	}
	if err := protection.New(s.d.Store, s.d.Git).CheckRefWrite(ctx, repo, c.UserID(), c.AppID, name, http.StatusUnprocessableEntity); err != nil {
		return err
	}
	v, err := rulesets.New(s.d.Store, s.d.Git).CheckChanges(ctx, repo, rulesets.CallerActor(c),
		[]rulesets.RefChange{{Ref: name, Old: old, New: new}}, nil)
	if err != nil || len(v) == 0 {
		return err
	}
	return rulesets.RESTError(v, http.StatusUnprocessableEntity)
}

// record records a ref change made through the API as a push. The ref has
// moved already, so a failure here is logged rather than reported: the
// client must not retry a change that happened.
func (s *Service) record(ctx context.Context, c *authz.Caller, repo *model.Repo, name, old, new string) {
	err := s.d.RecordPush(ctx, repo, c.UserID(), []deps.RefUpdate{{Ref: name, Old: old, New: new}}, false)
	if err != nil {
		slog.ErrorContext(ctx, "record ref update", "repo", repo.ID, "ref", name, "err", err)
	}
}
