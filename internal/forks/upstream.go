package forks

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/workflowguard"
)

// Merge types of a sync with the upstream.
const (
	MergeNone        = "none"
	MergeFastForward = "fast-forward"
	MergeCommit      = "merge"
)

// SyncResult is the outcome of MergeUpstream (components/schemas/merged-upstream).
type SyncResult struct {
	MergeType  string
	BaseBranch string // owner:branch of the upstream
	Message    string
}

// errConflict is GitHub's 409 when the upstream does not merge cleanly.
var errConflict = model.Conflict("There are merge conflicts")

// MergeUpstream syncs branch of fork (which c may push to) with the
// same-named branch of its upstream, as GitHub's "Sync fork" does: nothing
// when the fork's branch holds the upstream's head already, a fast-forward
// when it is behind, a merge commit when both moved and merge cleanly, 409
// when they conflict. The ref moves like any API update (compare and swap)
// and is recorded as a push.
func (s *Service) MergeUpstream(ctx context.Context, c *authz.Caller, fork *model.Repo, perm authz.Permission, branch string) (*SyncResult, error) {
	if !authz.CanSee(perm) {
		return nil, model.ErrNotFound
	}
	if perm < authz.Write {
		return nil, model.Forbidden("Must have push access to repository")
	}
	if branch == "" {
		return nil, model.Invalid("MergeUpstream", "branch", "missing_field")
	}
	if fork.ParentID == 0 {
		return nil, model.Unprocessable("This repository is not a fork")
	}
	if err := gitrepo.Operand(branch); err != nil || !gitrepo.ValidRefName("refs/heads/"+branch) {
		return nil, model.Unprocessable("Branch not found")
	}
	pv, err := s.Store.R().RepoByID(ctx, fork.ParentID, c.UserID())
	if errors.Is(err, model.ErrNotFound) {
		return nil, model.Unprocessable("This repository is not a fork")
	} else if err != nil {
		return nil, err
	}
	upstream := pv.Repo
	if !authz.CanSee(authz.RepoPermission(c, upstream, pv.Facts)) {
		return nil, model.Unprocessable("The upstream repository is not accessible")
	}
	res := &SyncResult{BaseBranch: upstream.Owner.Login + ":" + branch}
	g, up := s.Git.Open(fork.ID), s.Git.Open(upstream.ID)
	ref := "refs/heads/" + branch
	ours, err := resolve(ctx, g, ref)
	if err != nil {
		return nil, err
	}
	if ours == "" {
		return nil, model.Unprocessable("Branch not found")
	}
	theirs, err := resolve(ctx, up, ref)
	if err != nil {
		return nil, err
	}
	if theirs == "" {
		return nil, model.Unprocessable("The upstream repository does not have a branch named " + branch)
	}
	if ours == theirs {
		return none(res), nil
	}
	// The upstream's commits come over by id (every repository serves any
	// object it holds).
	if _, err := g.Git(ctx, nil, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc",
		"--", s.Git.Path(upstream.ID), theirs); err != nil {
		return nil, err
	}
	if behind, err := g.IsAncestor(ctx, theirs, ours); err != nil {
		return nil, err
	} else if behind {
		return none(res), nil // the fork holds the upstream's head already
	}
	next := theirs
	res.MergeType, res.Message = MergeFastForward, "Successfully fetched and fast-forwarded from upstream "+res.BaseBranch
	if ff, err := g.IsAncestor(ctx, ours, theirs); err != nil {
		return nil, err
	} else if !ff {
		tree, err := g.MergeTree(ctx, ours, theirs)
		if errors.Is(err, gitrepo.ErrConflict) || errors.Is(err, gitrepo.ErrNotFound) {
			return nil, errConflict
		}
		if err != nil {
			return nil, err
		}
		now := s.Store.Now()
		author := s.signature(c.User, now)
		commit := &gitrepo.Commit{Tree: tree, Parents: []string{ours, theirs}, Author: author, Committer: s.signature(nil, now),
			Message: "Merge branch '" + branch + "' of " + upstream.FullName() + " into " + branch + "\n"}
		if next, err = g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(commit)); err != nil {
			return nil, err
		}
		res.MergeType, res.Message = MergeCommit, "Successfully fetched and merged from upstream "+res.BaseBranch
	}
	if err := s.mayMove(ctx, c, fork, g, ref, ours, next); err != nil {
		return nil, err
	}
	if err := g.UpdateRef(ctx, ref, next, ours); errors.Is(err, gitrepo.ErrRefConflict) {
		return nil, model.Conflict("The branch moved while it was being synced; try again")
	} else if err != nil {
		return nil, err
	}
	if s.RecordPush != nil {
		if err := s.RecordPush(context.WithoutCancel(ctx), fork, c.UserID(), []RefUpdate{{Ref: ref, Old: ours, New: next}}); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func none(res *SyncResult) *SyncResult {
	res.MergeType, res.Message = MergeNone, "This branch is not behind the upstream "+res.BaseBranch
	return res
}

// resolve is the commit a ref names, "" when there is no such ref (or no
// storage yet).
func resolve(ctx context.Context, g *gitrepo.Repo, ref string) (string, error) {
	if !g.Exists() {
		return "", nil
	}
	oid, err := g.ResolveRef(ctx, ref)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return "", nil
	}
	return oid, err
}

// mayMove refuses the sync as an API ref update would be refused, with
// GitHub's 422 of merge-upstream: upstream commits that change workflow
// files need the workflow scope or permission (gh recognises the
// message), and the fork's rulesets apply to the branch.
func (s *Service) mayMove(ctx context.Context, c *authz.Caller, fork *model.Repo, g *gitrepo.Repo, ref, old, new string) error {
	no, err := workflowguard.Check(ctx, c, g, nil, workflowguard.Change{Ref: ref, Old: old, New: new})
	if err != nil {
		return err
	}
	if no != nil {
		return model.Unprocessable(no.Message)
	}
	v, err := rulesets.New(s.Store, s.Git).CheckChanges(ctx, fork, rulesets.CallerActor(c),
		[]rulesets.RefChange{{Ref: ref, Old: old, New: new}}, nil)
	if err != nil || len(v) == 0 {
		return err
	}
	return rulesets.RESTError(v, 422)
}
