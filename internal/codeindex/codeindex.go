// Package codeindex keeps the code and commit search index current: after
// each push a "codeindex.repo" job (deduplicated while pending, one at a
// time per repository) brings a repository's index to the head of its
// default branch. Like GitHub's, the index holds the default branch only,
// text files under 384 KB, and the commits of the default branch.
//
// Work is incremental: the paths that changed between the indexed commit
// and the new head (one `git diff-tree`) are rewritten, and the commits
// new since the indexed one are added. A history rewritten (the indexed
// commit is no longer an ancestor), a new default branch or a first index
// rebuild the repository's index. A deleted repository's index goes with
// its rows; visibility is checked when searching, so a repository made
// private leaves every search of those who may no longer see it at once.
package codeindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// MaxFileSize is the largest file indexed (GitHub: "smaller than 384 KB").
const MaxFileSize = 384 * 1024

// JobIndex is the kind of the job that indexes one repository.
const JobIndex = "codeindex.repo"

// batch is how many files or commits one transaction writes.
const batch = 500

// Indexer indexes repositories.
type Indexer struct {
	Store *store.Store
	Git   *gitrepo.Manager
	Jobs  *jobs.Queue
	// Attribute maps commit addresses (lower case) to the accounts they
	// belong to (api.Deps.AccountsByCommitEmail); nil attributes none.
	Attribute func(ctx context.Context, emails []string) (map[string]*model.Account, error)
}

// New makes the indexer and registers its job with q (when set).
func New(st *store.Store, git *gitrepo.Manager, q *jobs.Queue) *Indexer {
	x := &Indexer{Store: st, Git: git, Jobs: q}
	if q != nil {
		q.Handle(JobIndex, x.run)
		q.Handle(JobBackfill, x.backfill)
	}
	return x
}

// Job is the job that brings a repository's index up to date.
func Job(repoID int64) jobs.Job {
	return jobs.Job{Kind: JobIndex, Key: "codeindex:" + strconv.FormatInt(repoID, 10), Payload: map[string]int64{"repo_id": repoID}}
}

// Pushed queues the index of a repository a push changed.
func (x *Indexer) Pushed(ctx context.Context, repoID int64) {
	if x.Jobs == nil {
		return
	}
	if err := x.Jobs.Enqueue(context.WithoutCancel(ctx), Job(repoID)); err != nil {
		slog.Warn("queue code index", "repo_id", repoID, "err", err)
	}
}

func (x *Indexer) run(ctx context.Context, payload []byte) error {
	var in struct {
		RepoID int64 `json:"repo_id"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return jobs.Permanent(err)
	}
	return x.Index(ctx, in.RepoID)
}

// Index brings repository id's index to the head of its default branch.
func (x *Indexer) Index(ctx context.Context, id int64) error {
	st := x.Store
	v, err := st.R().RepoByID(ctx, id, 0)
	if errors.Is(err, model.ErrNotFound) {
		return nil // deleted: its index went with it
	}
	if err != nil {
		return err
	}
	branch := v.Repo.DefaultBranch
	g := x.Git.Open(id)
	head := ""
	if g.Exists() {
		// Through the repository's cat-file process: no process of its own.
		info, err := g.Info(ctx, "refs/heads/"+branch)
		switch {
		case errors.Is(err, gitrepo.ErrNotFound):
		case err != nil:
			return err
		case info.Type == "commit":
			head = info.OID
		}
	}
	oldBranch, old, err := st.R().CodeIndexState(ctx, id)
	if err != nil {
		return err
	}
	if head == "" {
		if old == "" {
			return nil
		}
		// The default branch is gone: nothing is searchable.
		return st.Tx(ctx, func(tx store.Q) error {
			return tx.ApplyCodeIndex(ctx, store.CodeIndexUpdate{RepoID: id, Reset: true})
		})
	}
	if old == head && oldBranch == branch {
		return nil
	}
	var changes []gitrepo.PathChange
	var ids []string
	reset := old == "" || oldBranch != branch
	if !reset {
		// Oldest first: commits of one date keep their order in the index.
		if ids, _, err = g.RevList(ctx, gitrepo.LogOptions{Include: []string{head}, Exclude: []string{old}, Reverse: true}); err != nil {
			return err
		}
		// old is an ancestor of head exactly when one of the new commits
		// has it as a parent; else the history was rewritten.
		if reset, err = x.rewritten(ctx, g, ids, old); err != nil {
			return err
		}
	}
	if !reset {
		if changes, err = g.ChangedPaths(ctx, old, head); err != nil {
			reset = true
		}
	}
	if reset {
		changes = nil
		err := g.LsTree(ctx, head, true, func(e gitrepo.LsTreeEntry) bool {
			if e.Type == "blob" {
				changes = append(changes, gitrepo.PathChange{Path: e.Path, Mode: e.Mode, OID: e.OID})
			}
			return true
		})
		if err != nil {
			return err
		}
		if ids, _, err = g.RevList(ctx, gitrepo.LogOptions{Include: []string{head}, Reverse: true}); err != nil {
			return err
		}
	}
	w := &writer{x: x, g: g, id: id, branch: branch, head: head, reset: reset}
	return w.write(ctx, changes, ids)
}

// rewritten reports whether none of commits has old as a parent.
func (x *Indexer) rewritten(ctx context.Context, g *gitrepo.Repo, commits []string, old string) (bool, error) {
	for start := 0; start < len(commits); start += batch {
		list, err := g.Commits(ctx, commits[start:min(start+batch, len(commits))])
		if err != nil {
			return false, err
		}
		for _, c := range list {
			for _, p := range c.Parents {
				if p == old {
					return false, nil
				}
			}
		}
	}
	return true, nil
}

// writer writes one index run in batches: the first (when rebuilding)
// empties the repository's index and forgets its commit, the last records
// the new head, so a run cut short leaves an index that the next run
// rebuilds or completes.
type writer struct {
	x      *Indexer
	g      *gitrepo.Repo
	id     int64
	branch string
	head   string
	reset  bool
	u      store.CodeIndexUpdate
	n      int
}

func (w *writer) write(ctx context.Context, changes []gitrepo.PathChange, commits []string) error {
	w.u = store.CodeIndexUpdate{RepoID: w.id, Reset: w.reset, Partial: true}
	for _, c := range changes {
		f, ok, err := w.file(ctx, c)
		if err != nil {
			return err
		}
		switch {
		case ok:
			w.u.Files = append(w.u.Files, f)
		case !w.reset:
			w.u.Removed = append(w.u.Removed, c.Path)
		}
		if w.n++; w.n%batch == 0 {
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
	}
	for start := 0; start < len(commits); start += batch {
		list, err := w.g.Commits(ctx, commits[start:min(start+batch, len(commits))])
		if err != nil {
			return err
		}
		if err := w.commits(ctx, list); err != nil {
			return err
		}
		if start+batch < len(commits) { // the last batch goes with the head
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
	}
	w.u.Partial, w.u.Branch, w.u.Commit = false, w.branch, w.head
	return w.flush(ctx)
}

func (w *writer) flush(ctx context.Context) error {
	u := w.u
	if u.Partial && len(u.Files) == 0 && len(u.Removed) == 0 && len(u.Commits) == 0 && !u.Reset {
		return nil
	}
	if err := w.x.Store.Tx(ctx, func(tx store.Q) error { return tx.ApplyCodeIndex(ctx, u) }); err != nil {
		return err
	}
	w.u = store.CodeIndexUpdate{RepoID: w.id, Partial: true}
	return nil
}

// file reads a changed path: ok is false when it is not indexed (removed,
// not a regular file, too large, binary).
func (w *writer) file(ctx context.Context, c gitrepo.PathChange) (store.CodeFile, bool, error) {
	if c.Removed || c.Mode != "100644" && c.Mode != "100755" {
		return store.CodeFile{}, false, nil
	}
	info, data, err := w.g.Read(ctx, c.OID, MaxFileSize)
	if errors.Is(err, gitrepo.ErrTooLarge) || errors.Is(err, gitrepo.ErrNotFound) {
		return store.CodeFile{}, false, nil
	}
	if err != nil {
		return store.CodeFile{}, false, err
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return store.CodeFile{}, false, nil // binary (git looks for a NUL too)
	}
	name := path.Base(c.Path)
	return store.CodeFile{
		RepoID: w.id, Path: c.Path, Name: name, SHA: c.OID, Size: info.Size,
		Extension: strings.TrimPrefix(strings.ToLower(path.Ext(name)), "."),
		Language:  gitrepo.LanguageOf(name),
		Content:   text(string(data)),
	}, true, nil
}

// commits adds a batch of commits, attributed to accounts by address.
func (w *writer) commits(ctx context.Context, list []*gitrepo.Commit) error {
	var who map[string]*model.Account
	if w.x.Attribute != nil {
		var emails []string
		for _, c := range list {
			emails = append(emails, c.Author.Email, c.Committer.Email)
		}
		var err error
		if who, err = w.x.Attribute(ctx, emails); err != nil {
			return err
		}
	}
	idOf := func(email string) int64 {
		if a := who[strings.ToLower(email)]; a != nil {
			return a.ID
		}
		return 0
	}
	for _, c := range list {
		_, aoff := c.Author.When.Zone()
		_, coff := c.Committer.When.Zone()
		w.u.Commits = append(w.u.Commits, store.CodeCommit{
			RepoID: w.id, SHA: c.OID, Tree: c.Tree, Parents: c.Parents, Message: text(c.Message),
			AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, AuthorDate: c.Author.When.Unix(), AuthorTZ: aoff / 60,
			CommitterName: c.Committer.Name, CommitterEmail: c.Committer.Email, CommitterDate: c.Committer.When.Unix(), CommitterTZ: coff / 60,
			AuthorID: idOf(c.Author.Email), CommitterID: idOf(c.Committer.Email),
		})
	}
	return nil
}

// text is s as the databases store text: valid UTF-8 without NUL.
func text(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// JobBackfill is the kind of the job that indexes the repositories the
// index holds nothing of: those pushed before hubd indexed code (an
// upgrade) or while their index jobs failed for good.
const JobBackfill = "codeindex.backfill"

// backfillPage is how many repositories one backfill step reads.
const backfillPage = 200

// Backfill queues the backfill (hubd serve calls it at start-up; one
// pending at a time): it walks the repositories in id order, page of them
// a step (0: 200), queueing each unindexed repository's index job, and
// queues its next step with the id it stopped at, so that a process
// stopped midway resumes from there.
func Backfill(ctx context.Context, q *jobs.Queue, page int) error {
	if page <= 0 {
		page = backfillPage
	}
	return q.Enqueue(ctx, backfillJob(0, page))
}

func backfillJob(after int64, page int) jobs.Job {
	return jobs.Job{Kind: JobBackfill, Key: "codeindex:backfill", Payload: map[string]int64{"after": after, "page": int64(page)}}
}

func (x *Indexer) backfill(ctx context.Context, payload []byte) error {
	var in struct {
		After int64 `json:"after"`
		Page  int   `json:"page"`
	}
	if err := json.Unmarshal(payload, &in); err != nil || in.Page <= 0 {
		return jobs.Permanent(fmt.Errorf("codeindex: backfill payload %s: %v", payload, err))
	}
	ids, err := x.Store.R().ReposUnindexed(ctx, in.After, in.Page)
	if err != nil {
		return err
	}
	list := make([]jobs.Job, 0, len(ids)+1)
	for _, id := range ids {
		if x.Git.Open(id).Exists() { // never pushed: nothing to index
			list = append(list, Job(id))
		}
	}
	if len(ids) == in.Page {
		list = append(list, backfillJob(ids[len(ids)-1], in.Page))
	}
	// One transaction: the next step is queued with the index jobs of
	// this one, or neither is (and this step runs again).
	err = x.Store.Tx(ctx, func(tx store.Q) error {
		for _, j := range list {
			if err := jobs.Enqueue(ctx, tx, j); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		x.Jobs.Notify()
	}
	return err
}
