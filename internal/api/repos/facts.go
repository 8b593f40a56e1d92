package repos

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/api/licenses"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// detector finds a repository's license and top language after a push, in
// the background: the classifier and `git ls-tree -r` take far longer than
// a request should, and repository objects (lists above all) then read two
// stored strings. Pushes to one repository that arrive while its detection
// runs are folded into one more run, so a burst costs at most two.
type detector struct {
	d *api.Deps

	mu      sync.Mutex
	running map[int64]bool // a goroutine is detecting this repository
	again   map[int64]bool // a push came meanwhile: detect once more

	backfilled sync.Once
}

// detectTimeout bounds one detection (a huge tree on a slow disk).
const detectTimeout = 2 * time.Minute

func newDetector(d *api.Deps) *detector {
	return &detector{d: d, running: map[int64]bool{}, again: map[int64]bool{}}
}

// pushed is the push hook: it schedules a detection and returns at once.
func (t *detector) pushed(_ context.Context, repo *model.Repo, _ int64, _ []api.RefUpdate) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running[repo.ID] {
		t.again[repo.ID] = true
		return
	}
	t.running[repo.ID] = true
	go t.run(repo.ID)
}

func (t *detector) run(id int64) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), detectTimeout)
		if err := t.detect(ctx, id); err != nil && !errors.Is(err, model.ErrNotFound) {
			slog.Warn("license and language detection failed", "repo_id", id, "err", err)
		}
		cancel()
		t.mu.Lock()
		if !t.again[id] {
			delete(t.running, id)
			t.mu.Unlock()
			return
		}
		delete(t.again, id)
		t.mu.Unlock()
	}
}

// backfill detects, once per process and in the background, the facts of
// repositories that have git storage but no facts yet (pushed before hubd
// detected them, or while a detection failed). It starts on the first
// repository read rather than at start-up, so that only a serving process
// pays for it; repositories are done one at a time.
func (t *detector) backfill() {
	t.backfilled.Do(func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), detectTimeout)
			ids, err := t.d.Store.R().ReposWithoutFacts(ctx)
			cancel()
			if err != nil {
				slog.Warn("license and language backfill failed", "err", err)
				return
			}
			for _, id := range ids {
				if !t.d.Git.Open(id).Exists() {
					continue // never pushed: nothing to detect
				}
				t.mu.Lock()
				busy := t.running[id]
				t.running[id] = true
				t.mu.Unlock()
				if !busy {
					t.run(id)
				}
			}
		}()
	})
}

// detect reads the default branch's head (the repository's default branch
// may have just been set by the push) and stores its facts, unless they are
// already those of that commit.
func (t *detector) detect(ctx context.Context, id int64) error {
	st := t.d.Store
	v, err := st.R().RepoByID(ctx, id, 0)
	if err != nil {
		return err
	}
	g := t.d.Git.Open(id)
	if !g.Exists() {
		return nil
	}
	var f store.RepoFacts
	commit, err := t.d.ResolveCommit(ctx, g, v.Repo, "")
	switch {
	case errors.Is(err, api.ErrEmptyRepo), errors.Is(err, model.ErrNotFound):
		// No default branch (left): no facts.
	case err != nil:
		return err
	default:
		f.Commit = commit
	}
	old, err := st.R().RepoFacts(ctx, []int64{id})
	if err != nil {
		return err
	}
	if old[id] == f || f.Commit != "" && old[id].Commit == f.Commit {
		return nil
	}
	if f.Commit != "" {
		if f.License, err = licenses.DetectCommit(ctx, g, commit); err != nil {
			return err
		}
		sizes, err := g.Languages(ctx, commit)
		if err != nil {
			return err
		}
		f.Language = topLanguage(sizes)
	}
	return st.Tx(ctx, func(tx store.Q) error { return tx.SetRepoFacts(ctx, id, f) })
}

// topLanguage is the language with the most bytes (ties: the first name).
func topLanguage(sizes map[string]int64) string {
	top, best := "", int64(-1)
	for name, n := range sizes {
		if n > best || n == best && name < top {
			top, best = name, n
		}
	}
	return top
}
