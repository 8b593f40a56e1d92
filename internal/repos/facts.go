package repos

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/licenses"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// detector finds a repository's license and top language after a push, in
// the background (a "repos.facts" job per repository, deduplicated while
// pending and run one at a time per repository): the classifier and
// `git ls-tree -r` take far longer than a request should, and repository
// objects (lists above all) then read two stored strings. Pushes that
// arrive while a detection runs queue one more run, so a burst costs at
// most two.
type detector struct {
	d          *deps.Deps
	backfilled sync.Once
	// filled is closed when the backfill has queued its jobs.
	filled chan struct{}
}

// detectTimeout bounds one detection (a huge tree on a slow disk).
const detectTimeout = 2 * time.Minute

const jobFacts = "repos.facts"

func newDetector(d *deps.Deps) *detector {
	t := &detector{d: d, filled: make(chan struct{})}
	if d.Jobs != nil {
		d.Jobs.Handle(jobFacts, t.runJob)
	}
	return t
}

func factsJob(id int64) jobs.Job {
	return jobs.Job{Kind: jobFacts, Key: "facts:" + strconv.FormatInt(id, 10), Payload: map[string]int64{"repo_id": id}}
}

// pushed is the push hook: it queues a detection and returns at once.
func (t *detector) pushed(ctx context.Context, repo *model.Repo, _ int64, _ []deps.RefUpdate) {
	if err := t.d.Jobs.Enqueue(context.WithoutCancel(ctx), factsJob(repo.ID)); err != nil {
		slog.Warn("queue license and language detection", "repo_id", repo.ID, "err", err)
	}
}

func (t *detector) runJob(ctx context.Context, payload []byte) error {
	var in struct {
		RepoID int64 `json:"repo_id"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return jobs.Permanent(err)
	}
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	if err := t.detect(ctx, in.RepoID); err != nil && !errors.Is(err, model.ErrNotFound) {
		return err
	}
	return nil
}

// backfill queues, once per process and in the background, the detection
// of repositories that have git storage but no facts yet (pushed before
// hubd detected them, or while a detection failed). It starts on the first
// repository read rather than at start-up, so that only a serving process
// pays for it.
func (t *detector) backfill() {
	t.backfilled.Do(func() {
		go func() {
			defer close(t.filled)
			ctx, cancel := context.WithTimeout(context.Background(), detectTimeout)
			defer cancel()
			ids, err := t.d.Store.R().ReposWithoutFacts(ctx)
			if err != nil {
				slog.Warn("license and language backfill failed", "err", err)
				return
			}
			for _, id := range ids {
				if !t.d.Git.Open(id).Exists() {
					continue // never pushed: nothing to detect
				}
				if err := t.d.Jobs.Enqueue(ctx, factsJob(id)); err != nil {
					slog.Warn("license and language backfill failed", "err", err)
					return
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
	case errors.Is(err, deps.ErrEmptyRepo), errors.Is(err, model.ErrNotFound):
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
