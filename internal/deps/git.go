package deps

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// GitRepo is the repository's git storage. Storage is created on first use
// (repositories are rows first, so a failed init leaves no half-made row);
// it is keyed by the immutable id, so renames never move it.
func (d *Deps) GitRepo(ctx context.Context, r *model.Repo) (*gitrepo.Repo, error) {
	return d.Git.Init(ctx, r.ID, r.DefaultBranch)
}

// ErrEmptyRepo is GitHub's 409 for git operations on a repository with no
// commits.
var ErrEmptyRepo = model.Conflict("Git Repository is empty.")

// RefUpdate is one ref a push or an API call changed (Old or New is
// gitrepo.ZeroOID for a created or deleted ref).
type RefUpdate struct {
	Ref      string
	Old, New string
}

// RecordPush records ref updates made by a git push or by the API: a push
// domain event per ref (activity, webhooks and traffic read them), pushed_at,
// and — when the repository had no branch before — its default branch.
// It runs after git accepted the updates, in one transaction.
func (d *Deps) RecordPush(ctx context.Context, repo *model.Repo, actorID int64, updates []RefUpdate, viaGit bool) error {
	if len(updates) == 0 {
		return nil
	}
	g, err := d.GitRepo(ctx, repo)
	if err != nil {
		return err
	}
	newDefault := ""
	heads, err := g.Refs(ctx, "refs/heads/")
	if err != nil {
		return err
	}
	hasDefault := false
	for _, h := range heads {
		if h.Name == "refs/heads/"+repo.DefaultBranch {
			hasDefault = true
		}
	}
	if !hasDefault && len(heads) > 0 {
		// The first branch pushed to an empty repository becomes its default,
		// as on GitHub (the configured default when it was among them).
		names := make([]string, 0, len(heads))
		for _, h := range heads {
			names = append(names, strings.TrimPrefix(h.Name, "refs/heads/"))
		}
		sort.Strings(names)
		newDefault = names[0]
		for _, u := range updates {
			if b, ok := strings.CutPrefix(u.Ref, "refs/heads/"); ok && u.New != gitrepo.ZeroOID {
				newDefault = b
				break
			}
		}
		if err := g.SetHead(ctx, newDefault); err != nil {
			return err
		}
	}
	if d.Metrics != nil {
		d.Metrics.Pushed(repo.ID)
	}
	err = d.Store.Tx(ctx, func(tx store.Q) error {
		for _, u := range updates {
			payload := map[string]any{"ref": u.Ref, "before": u.Old, "after": u.New,
				"created": u.Old == gitrepo.ZeroOID, "deleted": u.New == gitrepo.ZeroOID, "via_git": viaGit}
			if err := tx.AppendEvent(ctx, "push", actorID, repo.ID, orgID(repo), payload); err != nil {
				return err
			}
		}
		return tx.MarkPushed(ctx, repo.ID, newDefault)
	})
	if err != nil {
		return err
	}
	for _, hook := range d.PushHooks {
		hook(ctx, repo, actorID, updates)
	}
	return nil
}

func orgID(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

// IsEmpty reports whether a repository has no commits yet.
func IsEmpty(ctx context.Context, g *gitrepo.Repo) (bool, error) {
	if _, err := g.Info(ctx, "HEAD"); err == nil {
		return false, nil // the default branch exists: no process needed
	}
	refs, err := g.Refs(ctx, "refs/heads/")
	if err != nil {
		if errors.Is(err, gitrepo.ErrNotFound) {
			return true, nil
		}
		return false, err
	}
	return len(refs) == 0, nil
}

// ResolveCommit resolves what GitHub accepts as a commit-ish — a branch or
// tag name, a full ref, a full or abbreviated sha, "" for the default branch
// — to a commit id, through the repository's long-lived cat-file process.
// Unknown names answer model.ErrNotFound; an empty repository ErrEmptyRepo.
func (d *Deps) ResolveCommit(ctx context.Context, g *gitrepo.Repo, repo *model.Repo, ref string) (string, error) {
	if ref == "" {
		ref = repo.DefaultBranch
	}
	if empty, err := IsEmpty(ctx, g); err != nil {
		return "", err
	} else if empty {
		return "", ErrEmptyRepo
	}
	if strings.HasPrefix(ref, "-") || strings.Contains(ref, "..") || strings.ContainsAny(ref, " ~^:?*[\\\x00\n") {
		return "", model.ErrNotFound
	}
	candidates := []string{ref}
	if !strings.HasPrefix(ref, "refs/") {
		candidates = []string{"refs/heads/" + ref, "refs/tags/" + ref, ref}
	}
	for _, c := range candidates {
		info, err := g.Info(ctx, c+"^{commit}")
		if errors.Is(err, gitrepo.ErrNotFound) {
			continue
		}
		if err != nil {
			return "", err
		}
		return info.OID, nil
	}
	return "", model.ErrNotFound
}

// SimpleCommits reads commits of a repository as simple-commit objects
// (check suites, workflow runs); a commit that cannot be read is absent.
func (d *Deps) SimpleCommits(ctx context.Context, repo *model.Repo, shas []string) map[string]*model.SimpleCommit {
	out := map[string]*model.SimpleCommit{}
	r := d.Git.Open(repo.ID)
	if !r.Exists() {
		return out
	}
	for _, sha := range shas {
		if _, ok := out[sha]; ok {
			continue
		}
		_, data, err := r.Read(ctx, sha, 1<<20)
		if err != nil {
			continue
		}
		c, err := gitrepo.ParseCommit(sha, data)
		if err != nil {
			continue
		}
		out[sha] = &model.SimpleCommit{ID: sha, TreeID: c.Tree, Message: strings.TrimRight(c.Message, "\n"), Timestamp: c.Committer.When,
			AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, CommitterName: c.Committer.Name, CommitterEmail: c.Committer.Email}
	}
	return out
}
