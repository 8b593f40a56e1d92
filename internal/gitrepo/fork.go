package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Fork makes repository id's storage a copy of parentID's: its branches and
// tags (only branch when onlyBranch), HEAD on branch.
//
// Objects are shared by hard links (`git clone --bare --local`), not through
// objects/info/alternates. Measured on a repository of 5,000 commits
// (15,000 objects): with one pack, hard links 7-9 ms, a full copy
// (--no-hardlinks) 9-10 ms, alternates 7-8 ms; with the objects loose (as
// small pushes and API writes leave them), hard links ~200 ms, a full copy
// ~520 ms and +79 MB, alternates ~9 ms. Alternates are cheapest to make but
// tie the fork to its parent's object store: deleting (or ever pruning) the
// parent would break every fork unless each were repacked first (1.6 s for
// that loose repository, per fork, inside a delete). Hard links cost little
// more, take no extra space until one side repacks, and leave a fork that
// owes its parent nothing (git never rewrites an object file in place).
// (Raw `git clone` timings on an idle machine; BenchmarkFork measures Fork
// itself.)
//
// The fork may already exist: reads of a fork not yet copied create its
// storage empty. Empty storage is replaced by the copy; storage that
// received a push meanwhile keeps its refs and gets the parent's others.
func (m *Manager) Fork(ctx context.Context, parentID, id int64, branch string, onlyBranch bool) error {
	parent := m.Open(parentID)
	if !parent.Exists() {
		// The parent was never pushed to (or is gone): an empty fork.
		_, err := m.Init(ctx, id, branch)
		return err
	}
	if onlyBranch {
		_, err := parent.Git(ctx, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			// No such branch: of nothing, an empty copy.
			_, err := m.Init(ctx, id, branch)
			return err
		} else if err != nil {
			return err
		}
	}
	target := m.Path(id)
	tmp := target + ".fork"
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	args := []string{"clone", "--bare", "--local", "--quiet"}
	if onlyBranch {
		args = append(args, "--single-branch", "--no-tags", "--branch", branch)
	}
	args = append(args, "--", parent.Path, tmp)
	if _, err := m.run(ctx, "", nil, args...); err != nil {
		return err
	}
	// The parent's configuration is Init's serving settings: copying the
	// file costs nothing, where setting them one `git config` at a time
	// took ~200 ms. It also drops the clone's remote, the parent's path,
	// which is nothing to a fork.
	cfg, err := os.ReadFile(filepath.Join(parent.Path, "config"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "config"), cfg, 0o644); err != nil {
		return err
	}
	if _, err := m.run(ctx, tmp, nil, "symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
		return err
	}
	return m.placeFork(ctx, id, tmp, target)
}

// placeFork moves the copy in tmp to target.
func (m *Manager) placeFork(ctx context.Context, id int64, tmp, target string) error {
	if _, err := os.Stat(filepath.Join(target, "HEAD")); errors.Is(err, os.ErrNotExist) {
		os.RemoveAll(target) // an interrupted earlier attempt
		if err := os.Rename(tmp, target); err == nil {
			m.inited.Store(id, true)
			return nil
		}
		// Created meanwhile by a read: go on as if it had been there.
	}
	existing := m.Open(id)
	refs, err := existing.Git(ctx, nil, "for-each-ref", "--format=%(refname)")
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(refs)) == "" {
		// Empty storage made by a read: swap the copy in. Readers holding
		// the old directory are closed so that they reopen the new one.
		old := target + ".old" + strconv.FormatInt(time.Now().UnixNano(), 36)
		if err := os.Rename(target, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, target); err != nil {
			os.Rename(old, target)
			return err
		}
		m.forgetReaders(id)
		return os.RemoveAll(old)
	}
	// Pushed to before the copy was made: take the parent's refs the fork
	// does not have, keep the ones it has.
	have := map[string]bool{}
	for _, r := range strings.Fields(string(refs)) {
		have[r] = true
	}
	theirs, err := m.run(ctx, tmp, nil, "for-each-ref", "--format=%(refname)", "refs/heads/", "refs/tags/")
	if err != nil {
		return err
	}
	args := []string{"fetch", "--quiet", "--no-tags", "--", tmp}
	n := len(args)
	for _, r := range strings.Fields(string(theirs)) {
		if !have[r] {
			args = append(args, r+":"+r)
		}
	}
	if len(args) == n {
		return nil
	}
	_, err = existing.Git(ctx, nil, args...)
	m.forgetReaders(id)
	return err
}

// forgetReaders closes the cat-file processes and cached objects of id.
func (m *Manager) forgetReaders(id int64) {
	m.mu.Lock()
	if p := m.pools[id]; p != nil {
		p.closeAll()
		delete(m.pools, id)
	}
	m.mu.Unlock()
	m.objects.forget(id)
}
