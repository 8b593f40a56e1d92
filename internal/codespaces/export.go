package codespaces

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Export states (GitHub's).
const (
	ExportInProgress = "in_progress"
	ExportSucceeded  = "succeeded"
	ExportFailed     = "failed"
)

// ExportBranch is the branch an export pushes.
func ExportBranch(c *model.Codespace) string { return "codespace-" + c.Name }

// Export queues the export of the workspace's changes to a new branch.
func (s *Service) Export(ctx context.Context, c *model.Codespace) (*model.CodespaceExport, error) {
	switch c.State {
	case model.CodespaceQueued, model.CodespaceProvisioning, model.CodespaceDeleted, model.CodespaceFailed:
		return nil, model.Unprocessable("Codespace is not in a state that can be exported (" + c.State + ").")
	}
	e := &model.CodespaceExport{CodespaceID: c.ID, State: ExportInProgress, Branch: ExportBranch(c)}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateCodespaceExport(ctx, e); err != nil {
			return err
		}
		if err := jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindExport, Payload: payload{Name: c.Name, ExportID: e.ID}, MaxAttempts: 1}); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "codespace.exported", c.OwnerID, c.RepoID, 0, map[string]any{"name": c.Name, "export_id": e.ID})
	})
	if err != nil {
		return nil, err
	}
	s.Jobs.Notify()
	return e, nil
}

// export commits the workspace's uncommitted changes (without touching its
// index or checkout) and pushes the commit to the export branch: to the
// repository when the owner may push, else to their fork of it.
func (s *Service) export(ctx context.Context, c *model.Codespace, p payload) error {
	e, err := s.Store.R().CodespaceExport(ctx, c.ID, p.ExportID)
	if err != nil {
		return nil
	}
	sha, target, err := s.exportCommit(ctx, c, e.Branch)
	if oerr := s.own(s.Dir(c.Name)); err == nil {
		err = oerr // the export's objects are the workspace owner's too
	}
	if err != nil {
		e.State, e.Message = ExportFailed, err.Error()
	} else {
		e.State, e.SHA, e.RepoID = ExportSucceeded, sha, target
	}
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.FinishCodespaceExport(ctx, e) })
}

func (s *Service) exportCommit(ctx context.Context, c *model.Codespace, branch string) (string, int64, error) {
	w, err := s.load(ctx, c)
	if err != nil {
		return "", 0, err
	}
	sha, err := s.snapshot(ctx, c, "Export of codespace "+c.Name)
	if err != nil {
		return "", 0, err
	}
	target := w.repo
	if w.perm < authz.Write {
		fork, err := s.Store.R().RepoByName(ctx, w.user.Login, w.repo.Name, w.user.ID)
		if err != nil || fork.Repo.ParentID != w.repo.ID {
			return "", 0, fmt.Errorf("%s may not push to %s and has no fork of it to push to", w.user.Login, w.repo.FullName())
		}
		target = fork.Repo
	}
	return sha, target.ID, s.push(ctx, c, target, sha, "refs/heads/"+branch)
}

// snapshot commits the workspace's working tree on top of HEAD without
// touching its index or checkout (HEAD itself when nothing changed).
func (s *Service) snapshot(ctx context.Context, c *model.Codespace, message string) (string, error) {
	dir := s.Dir(c.Name)
	head, err := git(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	// A private index: the user's staging area stays as it is.
	tmp, err := os.CreateTemp(filepath.Join(dir, ".git"), "export-index-")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if data, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err == nil {
		if err := os.WriteFile(tmp.Name(), data, 0o600); err != nil {
			return "", err
		}
	}
	gi := "GIT_INDEX_FILE=" + tmp.Name()
	if _, err := gitEnv(ctx, dir, gi, "add", "-A"); err != nil {
		return "", err
	}
	tree, err := gitEnv(ctx, dir, gi, "write-tree")
	if err != nil {
		return "", err
	}
	if headTree, _ := git(ctx, dir, "rev-parse", "HEAD^{tree}"); tree == headTree {
		return head, nil
	}
	return git(ctx, dir, "commit-tree", tree, "-p", head, "-m", message)
}

// push pushes sha to ref of target over hubd's git transport with a token
// of its own, revoked after.
func (s *Service) push(ctx context.Context, c *model.Codespace, target *model.Repo, sha, ref string) error {
	token, id, err := s.Tokens.Mint(ctx, target, map[string]string{"contents": "write", "metadata": "read"})
	if err != nil {
		return err
	}
	defer s.Tokens.Revoke(context.WithoutCancel(ctx), id)
	u := strings.Replace(s.cloneURL(target), "://", "://x-access-token:"+token+"@", 1)
	if _, err := git(ctx, s.Dir(c.Name), "-c", "credential.helper=", "push", "-q", u, sha+":"+ref); err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), token, "***"))
	}
	return nil
}

// Publishable refuses a codespace that cannot be published: only one made
// from a template repository, and only once.
func (s *Service) Publishable(ctx context.Context, c *model.Codespace) error {
	if c.PublishedRepoID != 0 {
		return model.Unprocessable("This codespace is already published.")
	}
	v, err := s.Store.R().RepoByID(ctx, c.RepoID, c.OwnerID)
	if err != nil {
		return err
	}
	if !v.Repo.IsTemplate {
		return model.Unprocessable("Only a codespace created from a template repository can be published.")
	}
	switch c.State {
	case model.CodespaceQueued, model.CodespaceProvisioning, model.CodespaceDeleted, model.CodespaceFailed:
		return model.Unprocessable("Codespace is not in a state that can be published (" + c.State + ").")
	}
	return nil
}

// Publish makes target (a new, empty repository of the codespace's owner)
// the codespace's repository: the workspace's files become its first
// commit on its default branch, and the workspace tracks it.
func (s *Service) Publish(ctx context.Context, c *model.Codespace, target *model.Repo) error {
	defer s.lock(c.Name)()
	dir := s.Dir(c.Name)
	tree, err := s.snapshot(ctx, c, "Initial commit")
	if err != nil {
		return err
	}
	// The new repository starts its own history: one commit of the tree.
	root, err := git(ctx, dir, "commit-tree", tree+"^{tree}", "-m", "Initial commit")
	if err != nil {
		return err
	}
	if err := s.push(ctx, c, target, root, "refs/heads/"+target.DefaultBranch); err != nil {
		return err
	}
	// The workspace's branch becomes the new repository's default branch
	// at that commit, whose tree is the working tree: nothing to check out.
	b := target.DefaultBranch
	for _, args := range [][]string{
		{"remote", "set-url", "origin", s.cloneURL(target)},
		{"update-ref", "refs/remotes/origin/" + b, root},
		{"update-ref", "refs/heads/" + b, root},
		{"symbolic-ref", "HEAD", "refs/heads/" + b},
		{"reset", "-q"},
		{"config", "branch." + b + ".remote", "origin"},
		{"config", "branch." + b + ".merge", "refs/heads/" + b},
	} {
		if _, err := git(ctx, dir, args...); err != nil {
			return err
		}
	}
	c.RepoID, c.Ref, c.PublishedRepoID, c.PullNumber = target.ID, target.DefaultBranch, target.ID, 0
	if c.State == model.CodespaceAvailable {
		w, err := s.load(ctx, c)
		if err != nil {
			return err
		}
		token, err := s.mint(ctx, c, w)
		if err != nil {
			return err
		}
		if err := s.writeCredential(dir, target, token); err != nil {
			return err
		}
	}
	s.gitStatus(ctx, c)
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateCodespace(ctx, c); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "codespace.published", c.OwnerID, target.ID, 0, map[string]any{"name": c.Name})
	})
}

// gitEnv is git with one more environment variable.
func gitEnv(ctx context.Context, dir, kv string, args ...string) (string, error) {
	cmd := gitCmd(ctx, dir, args...)
	cmd.Env = append(cmd.Env, kv)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// LatestExport is a codespace's export by id ("latest": the last).
func (s *Service) LatestExport(ctx context.Context, c *model.Codespace, id string) (*model.CodespaceExport, error) {
	var n int64
	if id != "latest" {
		if _, err := fmt.Sscanf(id, "%d", &n); err != nil || n <= 0 {
			return nil, model.ErrNotFound
		}
	}
	return s.Store.R().CodespaceExport(ctx, c.ID, n)
}
