package gitrepo

import (
	"context"
	"errors"
	"os"
	"strings"
)

// Merges without a work tree: `git merge-tree --write-tree` computes a
// three-way merge straight into objects; a rebase replays each commit's
// patch onto a temporary index with `git apply --cached --3way`.

// ErrConflict is a merge or rebase that does not apply cleanly.
var ErrConflict = errors.New("gitrepo: merge conflict")

// MergeTree merges commits ours and theirs (from their merge base) and
// returns the resulting tree; ErrConflict when they conflict (no tree), and
// ErrNotFound when their histories are unrelated.
func (r *Repo) MergeTree(ctx context.Context, ours, theirs string) (string, error) {
	if !ValidOID(ours) || !ValidOID(theirs) {
		return "", ErrNotFound
	}
	out, err := r.Git(ctx, nil, "merge-tree", "--write-tree", "--no-messages", "--name-only", ours, theirs)
	var ge *GitError
	if errors.As(err, &ge) {
		if strings.Contains(ge.Stderr, "refusing to merge unrelated histories") {
			return "", ErrNotFound
		}
		if ge.Stderr == "" {
			return "", ErrConflict // exit 1: conflicts, listed on stdout
		}
	}
	if err != nil {
		return "", err
	}
	tree, _, _ := strings.Cut(string(out), "\n")
	if !ValidOID(tree) {
		return "", errors.New("gitrepo: merge-tree said " + string(out))
	}
	return tree, nil
}

// Replay applies each commit of commits (oldest first, none a merge) onto
// onto, as `git rebase` does: every new commit keeps its author and message
// and gets committer. It returns the id of the last new commit; ErrConflict
// when a patch does not apply.
func (r *Repo) Replay(ctx context.Context, onto string, commits []*Commit, committer Signature) (string, error) {
	idx, err := os.CreateTemp("", "hubd-index-")
	if err != nil {
		return "", err
	}
	idx.Close()
	os.Remove(idx.Name()) // read-tree creates it
	defer os.Remove(idx.Name())
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	run := func(stdin []byte, args ...string) ([]byte, error) {
		cmd := r.Cmd(ctx, env, args...)
		if stdin != nil {
			cmd.Stdin = strings.NewReader(string(stdin))
		}
		var errb strings.Builder
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			return out, &GitError{Args: args, Stderr: errb.String(), Err: err}
		}
		return out, nil
	}
	if _, err := run(nil, "read-tree", onto); err != nil {
		return "", err
	}
	parent := onto
	for _, c := range commits {
		if len(c.Parents) != 1 {
			return "", ErrConflict
		}
		patch, err := run(nil, "diff-tree", "-p", "--binary", "--full-index", c.Parents[0], c.OID)
		if err != nil {
			return "", err
		}
		if len(patch) > 0 {
			if _, err := run(patch, "apply", "--cached", "--3way", "--allow-empty"); err != nil {
				var ge *GitError
				if errors.As(err, &ge) {
					return "", ErrConflict
				}
				return "", err
			}
		}
		out, err := run(nil, "write-tree")
		if err != nil {
			return "", err
		}
		n := &Commit{Tree: strings.TrimSpace(string(out)), Parents: []string{parent}, Author: c.Author,
			Committer: committer, Message: c.Message}
		if parent, err = r.WriteObject(ctx, "commit", EncodeCommit(n)); err != nil {
			return "", err
		}
	}
	return parent, nil
}

// FetchCommit copies commit oid and its history from the repository at
// path (another hubd repository: a fork) into this one under ref.
func (r *Repo) FetchCommit(ctx context.Context, path, branch, ref string) error {
	if !strings.HasPrefix(ref, "refs/") {
		return errors.New("gitrepo: fetch into " + ref)
	}
	_, err := r.Git(ctx, nil, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc",
		"--", path, "+refs/heads/"+branch+":"+ref)
	return err
}

// CountRange counts the commits of base..head.
func (r *Repo) CountRange(ctx context.Context, base, head string) (int, error) {
	if !ValidOID(base) || !ValidOID(head) {
		return 0, ErrNotFound
	}
	out, err := r.Git(ctx, nil, "rev-list", "--count", base+".."+head, "--")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range strings.TrimSpace(string(out)) {
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// SetRef points name at newOID whatever it held (refs hubd alone writes,
// such as refs/pull/N/head).
func (r *Repo) SetRef(ctx context.Context, name, newOID string) error {
	if err := refOperands(name, newOID); err != nil {
		return err
	}
	_, err := r.Git(ctx, nil, "update-ref", "--no-deref", name, newOID)
	return refErr(err)
}

// RemoveRef deletes name whatever it held; a missing ref is no error.
func (r *Repo) RemoveRef(ctx context.Context, name string) error {
	if err := refOperands(name); err != nil {
		return err
	}
	if _, err := r.ResolveRef(ctx, name); errors.Is(err, ErrNotFound) {
		return nil
	}
	_, err := r.Git(ctx, nil, "update-ref", "--no-deref", "-d", name)
	return refErr(err)
}
