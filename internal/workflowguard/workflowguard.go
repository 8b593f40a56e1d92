// Package workflowguard is the one check every path that moves a ref
// makes before it does: a caller without the workflow scope (classic and
// OAuth tokens) or workflows: write (GitHub Apps' and fine-grained tokens;
// a job's GITHUB_TOKEN never has it) may not create, change or delete a
// file under .github/workflows, where the repository's workflows, which
// run with its secrets, live (authz.MayWriteWorkflows decides who).
//
// What counts as a change (GitHub's docs do not spell it out; the refusals
// clients report fit this): the workflow directory of the ref's old and
// new tips differ, or a commit the update brings that no branch or tag
// holds yet touches the directory, even if a later one undoes it. Commits
// already on a branch or tag were checked when they got there, so
// creating a branch from one, or renaming a branch, is not refused.
// Deleting a ref is never a workflow change.
//
// The cost when the directory is untouched: nothing for callers who may
// change workflows; otherwise the directory's tree id in both tips and
// the new commit's parents through the long-lived cat-file (cached), and
// one git log only when the update brings more than one commit.
package workflowguard

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// Dir is where GitHub Actions reads a repository's workflows.
const Dir = ".github/workflows"

// Change is one ref a write moves: Old is gitrepo.ZeroOID for a creation,
// New for a deletion.
type Change struct {
	Ref, Old, New string
}

// Refusal is a write that changes a workflow file the caller may not
// change: GitHub's words for it, and the ref and file.
type Refusal struct {
	Ref, Path string
	Message   string
	app       bool
}

func (r *Refusal) Error() string { return r.Message }

// Forbidden is the refusal as a 403 with GitHub's message (the git refs
// API, update-branch).
func (r *Refusal) Forbidden() error { return model.Forbidden(r.Message) }

// MergeError is the refusal of a pull request merge: GitHub's message to
// personal and OAuth tokens, its integration words to GitHub Apps (both
// 403).
func (r *Refusal) MergeError() error {
	if r.app {
		return model.Forbidden("Resource not accessible by integration")
	}
	return r.Forbidden()
}

// Check decides ref changes by c in g (nil: they may be made). env lets
// git see objects not yet in the repository (a push's quarantine), nil
// otherwise.
func Check(ctx context.Context, c *authz.Caller, g *gitrepo.Repo, env []string, changes ...Change) (*Refusal, error) {
	if authz.MayWriteWorkflows(c) {
		return nil, nil
	}
	for _, ch := range changes {
		path, err := touched(ctx, g, env, ch)
		if err != nil {
			return nil, err
		}
		if path != "" {
			return refuse(c, ch.Ref, path), nil
		}
	}
	return nil, nil
}

// CheckMerge decides moving ref from at to a merge of at with from (a
// pull request's update-branch) before the merge is made: the merge
// changes the workflow directory of at exactly when a commit of from not
// in at touches it.
func CheckMerge(ctx context.Context, c *authz.Caller, g *gitrepo.Repo, ref, at, from string) (*Refusal, error) {
	if authz.MayWriteWorkflows(c) {
		return nil, nil
	}
	path, err := g.TouchedPath(ctx, nil, Dir, []string{from}, []string{at}, false)
	if err != nil || path == "" {
		return nil, err
	}
	return refuse(c, ref, path), nil
}

func refuse(c *authz.Caller, ref, path string) *Refusal {
	return &Refusal{Ref: ref, Path: path, Message: authz.WorkflowRefusal(c, path), app: c.IsApp()}
}

// touched names a workflow file the change creates, changes or deletes
// ("" when none).
func touched(ctx context.Context, g *gitrepo.Repo, env []string, ch Change) (string, error) {
	switch {
	case ch.New == gitrepo.ZeroOID:
		return "", nil
	case ch.Old == gitrepo.ZeroOID:
		return g.TouchedPath(ctx, env, Dir, []string{ch.New}, nil, true)
	}
	oids, err := g.SubtreeOIDs(ctx, env, Dir, ch.Old, ch.New)
	if err != nil {
		return "", err
	}
	if oids[0] != oids[1] {
		path, err := g.DiffPath(ctx, env, Dir, ch.Old, ch.New)
		if err != nil || path != "" {
			return path, err
		}
	}
	if env == nil && childOf(ctx, g, ch.New, ch.Old) {
		return "", nil // one commit on top of old: the tips said it all
	}
	return g.TouchedPath(ctx, env, Dir, []string{ch.New}, []string{ch.Old}, true)
}

// childOf reports whether commit's only parent is parent.
func childOf(ctx context.Context, g *gitrepo.Repo, commit, parent string) bool {
	info, data, err := g.Read(ctx, commit, 1<<20)
	if err != nil || info.Type != "commit" {
		return false
	}
	c, err := gitrepo.ParseCommit(info.OID, data)
	return err == nil && len(c.Parents) == 1 && c.Parents[0] == parent
}
