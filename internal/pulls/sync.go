package pulls

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// The background side: a "pulls.sync" job per pull request (deduplicated
// while pending) brings refs/pull/N/head up to the head branch, recounts
// the figures when head or base moved, computes the test merge
// (refs/pull/N/merge) with `git merge-tree --write-tree`, and stores the
// mergeability for exactly the commits it checked.

// maxRebaseCheck is the most commits whose rebase is tried to answer
// rebaseable (longer ranges answer false, as GitHub limits rebase merges).
const maxRebaseCheck = 100

// Pushed queues a sync of every open pull request whose head or base is a
// branch a push changed (push hook).
func (s *Service) Pushed(ctx context.Context, repo *model.Repo, actorID int64, updates []RefUpdate) {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		for _, u := range updates {
			branch, ok := strings.CutPrefix(u.Ref, "refs/heads/")
			if !ok {
				continue
			}
			list, err := tx.OpenPullsTouching(ctx, repo.ID, branch)
			if err != nil {
				return err
			}
			for _, p := range list {
				if err := jobs.Enqueue(ctx, tx, syncJobBy(p.IssueID, actorID)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		slog.Warn("pull requests of a push", "repo_id", repo.ID, "err", err)
		return
	}
	s.Jobs.Notify()
}

// RulesChanged queues, inside the transaction of a change to the rules
// of branch (its protection), a sync of every open pull request into it.
// Syncs of one pull request never run at once, so a sync that read the
// old rules is followed by one that reads the new.
func RulesChanged(ctx context.Context, tx store.Q, repoID int64, branch string) error {
	list, err := tx.OpenPullsTouching(ctx, repoID, branch)
	if err != nil {
		return err
	}
	for _, p := range list {
		if p.RepoID == repoID && p.BaseRef == branch {
			if err := jobs.Enqueue(ctx, tx, syncJob(p.IssueID)); err != nil {
				return err
			}
		}
	}
	return nil
}

// CommitStateChanged queues, inside a status's or check's transaction, a
// new look at the state of the pull requests whose head is sha.
func CommitStateChanged(ctx context.Context, tx store.Q, repoID int64, sha string) error {
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobCommitState, Key: "pull-state:" + itoa(repoID) + ":" + sha,
		Payload: map[string]any{"repo_id": repoID, "sha": sha}})
}

func (s *Service) runCommitState(ctx context.Context, payload []byte) error {
	var in struct {
		RepoID int64  `json:"repo_id"`
		SHA    string `json:"sha"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return jobs.Permanent(err)
	}
	list, err := s.Store.R().OpenPullsWithHeadSHA(ctx, in.RepoID, in.SHA)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return nil
	}
	repo, err := s.repo(ctx, in.RepoID)
	if err != nil {
		return ignoreGone(err)
	}
	for _, p := range list {
		if p.Mergeable == nil {
			// A sync computes the state too; one may be running with what
			// it read before this change, so queue another (joining a
			// pending one, waiting for a running one).
			if err := s.Store.Tx(ctx, func(tx store.Q) error { return jobs.Enqueue(ctx, tx, syncJob(p.IssueID)) }); err != nil {
				return err
			}
			s.Jobs.Notify()
			continue
		}
		st, err := s.mergeState(ctx, repo, p, *p.Mergeable)
		if err != nil {
			return err
		}
		if st != p.MergeableState {
			if err := s.Store.Tx(ctx, func(tx store.Q) error { return tx.SetMergeableState(ctx, p.IssueID, st) }); err != nil {
				return err
			}
		}
	}
	return s.autoMergeChanged(ctx, list)
}

func ignoreGone(err error) error {
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	return err
}

func (s *Service) repo(ctx context.Context, id int64) (*model.Repo, error) {
	v, err := s.Store.R().RepoByID(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	return v.Repo, nil
}

func (s *Service) runSync(ctx context.Context, payload []byte) error {
	var in struct {
		IssueID int64 `json:"issue_id"`
		ActorID int64 `json:"actor_id"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return jobs.Permanent(err)
	}
	return ignoreGone(s.Sync(ctx, in.IssueID, in.ActorID))
}

// Sync brings one pull request up to date (see the file comment); actorID
// is who pushed (the actor of the events it records).
func (s *Service) Sync(ctx context.Context, issueID, actorID int64) error {
	p, err := s.Store.R().PullByIssueID(ctx, issueID)
	if err != nil {
		return err
	}
	if p.Issue.State != "open" || p.Merged() {
		return nil
	}
	repo, err := s.repo(ctx, p.RepoID)
	if err != nil {
		return err
	}
	g := s.Git.Open(repo.ID)
	baseSHA, err := g.ResolveRef(ctx, "refs/heads/"+p.BaseRef)
	if errors.Is(err, gitrepo.ErrNotFound) {
		baseSHA, err = p.BaseSHA, nil // base branch deleted: keep what we had
	}
	if err != nil {
		return err
	}
	headSHA, err := s.refreshHead(ctx, repo, p)
	if err != nil {
		return err
	}
	if headSHA != p.HeadSHA || baseSHA != p.BaseSHA {
		counts, err := s.figures(ctx, g, baseSHA, headSHA)
		if err != nil {
			return err
		}
		headMoved := headSHA != p.HeadSHA
		before := p.HeadSHA
		// A head that no longer contains the old one was force-pushed.
		forced := false
		var gained []string
		if headMoved {
			ok, err := g.IsAncestor(ctx, before, headSHA)
			forced = err == nil && !ok
			if gained, err = s.newCommits(ctx, g, baseSHA, before, headSHA); err != nil {
				return err
			}
		}
		moved := false
		err = s.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			if moved, err = tx.SetPullHead(ctx, p.IssueID, p.HeadSHA, p.BaseSHA, headSHA, baseSHA, counts); err != nil || !moved {
				return err // !moved: another synchronisation recorded it
			}
			if !headMoved {
				return nil
			}
			if err := recordCommitted(ctx, tx, repo, p, actorID, gained); err != nil {
				return err
			}
			if forced {
				e := &model.IssueEvent{RepoID: repo.ID, IssueID: p.IssueID, ActorID: actorID, Event: "head_ref_force_pushed", CommitID: &headSHA}
				if err := tx.AddIssueEvent(ctx, e, orgID(repo), map[string]any{"number": p.Number, "before": before, "after": headSHA}); err != nil {
					return err
				}
			}
			pl := s.payload(p, "synchronize")
			pl["before"], pl["after"] = before, headSHA
			return tx.AppendEvent(ctx, "pull_request.synchronize", actorID, repo.ID, orgID(repo), pl)
		})
		if err != nil || !moved {
			return err
		}
		p.HeadSHA, p.BaseSHA = headSHA, baseSHA
		// Review comment positions follow the diff, which a moved base
		// (merge base) changes as much as a moved head.
		for _, h := range s.HeadMoved {
			if err := h(ctx, repo, p); err != nil {
				return err
			}
		}
	}
	m, err := s.Mergeability(ctx, repo, p)
	if err != nil {
		return err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		_, err := tx.SetMergeability(ctx, p.IssueID, *m)
		return err
	})
	if err != nil {
		return err
	}
	return s.autoMergeChanged(ctx, []*model.Pull{p})
}

// refreshHead writes refs/pull/N/head from the head branch (fetching it
// from a fork) and returns its commit; when the head branch or repository
// is gone the pull request keeps its last head.
func (s *Service) refreshHead(ctx context.Context, repo *model.Repo, p *model.Pull) (string, error) {
	g := s.Git.Open(repo.ID)
	ref := pullHead(p.Number)
	if p.HeadRepoID == 0 {
		return p.HeadSHA, nil
	}
	hg := s.Git.Open(p.HeadRepoID)
	sha, err := hg.ResolveRef(ctx, "refs/heads/"+p.HeadRef)
	if errors.Is(err, gitrepo.ErrNotFound) || !hg.Exists() {
		return p.HeadSHA, nil
	}
	if err != nil {
		return "", err
	}
	if cur, err := g.ResolveRef(ctx, ref); err == nil && cur == sha {
		return sha, nil
	}
	if p.HeadRepoID == repo.ID {
		return sha, g.SetRef(ctx, ref, sha)
	}
	if err := g.FetchCommit(ctx, s.Git.Path(p.HeadRepoID), p.HeadRef, ref); err != nil {
		return "", err
	}
	return g.ResolveRef(ctx, ref)
}

// Mergeability computes the test merge of p's head into its base:
// refs/pull/N/merge and the merge commit id when it merges cleanly,
// whether a rebase would apply, and the mergeable state.
func (s *Service) Mergeability(ctx context.Context, repo *model.Repo, p *model.Pull) (*store.Mergeability, error) {
	g := s.Git.Open(repo.ID)
	m := &store.Mergeability{BaseSHA: p.BaseSHA, HeadSHA: p.HeadSHA}
	no := false
	tree, err := g.MergeTree(ctx, p.BaseSHA, p.HeadSHA)
	switch {
	case errors.Is(err, gitrepo.ErrConflict), errors.Is(err, gitrepo.ErrNotFound):
		m.Mergeable, m.Rebaseable, m.State = &no, &no, model.StateDirty
		return m, g.RemoveRef(ctx, pullMerge(p.Number))
	case err != nil:
		return nil, err
	}
	sig := s.systemSignature()
	c := &gitrepo.Commit{Tree: tree, Parents: []string{p.BaseSHA, p.HeadSHA}, Author: sig, Committer: sig,
		Message: "Merge " + p.HeadSHA + " into " + p.BaseSHA + "\n"}
	oid, err := g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(c))
	if err != nil {
		return nil, err
	}
	if err := g.SetRef(ctx, pullMerge(p.Number), oid); err != nil {
		return nil, err
	}
	yes := true
	m.Mergeable, m.MergeCommitSHA = &yes, &oid
	rebase, err := s.canRebase(ctx, g, p)
	if err != nil {
		return nil, err
	}
	m.Rebaseable = &rebase
	if m.State, err = s.mergeState(ctx, repo, p, true); err != nil {
		return nil, err
	}
	return m, nil
}

// canRebase tries the rebase a "rebase" merge would make (nothing is kept:
// the commits it writes are unreachable and pruned by git's gc).
func (s *Service) canRebase(ctx context.Context, g *gitrepo.Repo, p *model.Pull) (bool, error) {
	commits, err := s.rangeCommits(ctx, g, p.BaseSHA, p.HeadSHA, maxRebaseCheck+1)
	if err != nil {
		return false, err
	}
	if len(commits) == 0 || len(commits) > maxRebaseCheck {
		return false, nil
	}
	_, err = g.Replay(ctx, p.BaseSHA, commits, s.systemSignature())
	if errors.Is(err, gitrepo.ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// rangeCommits are the commits of merge-base(base, head)..head, oldest
// first, at most max.
func (s *Service) rangeCommits(ctx context.Context, g *gitrepo.Repo, base, head string, max int) ([]*gitrepo.Commit, error) {
	mb, err := g.MergeBase(ctx, base, head)
	if err != nil {
		return nil, err
	}
	ids, _, err := g.RevList(ctx, gitrepo.LogOptions{Include: []string{head}, Exclude: []string{mb}, Reverse: true, Max: max})
	if err != nil {
		return nil, err
	}
	return g.Commits(ctx, ids)
}

// mergeState is GitHub's mergeable_state of a pull request that merges
// cleanly (or dirty when it does not): draft; then what branch protection
// says (blocked while required reviews or contexts are missing, behind
// when strict and the base moved on, unstable while another status or
// check is failing or pending, clean otherwise).
func (s *Service) mergeState(ctx context.Context, repo *model.Repo, p *model.Pull, mergeable bool) (string, error) {
	if !mergeable {
		return model.StateDirty, nil
	}
	if p.Draft {
		return model.StateDraft, nil
	}
	states, err := s.commitStates(ctx, repo.ID, p.HeadSHA)
	if err != nil {
		return "", err
	}
	return s.Protection.MergeState(ctx, repo, p, states)
}

// commitStates are the newest status of each context and the newest check
// run of each name on sha, as success, pending or failure.
func (s *Service) commitStates(ctx context.Context, repoID int64, sha string) (map[string]string, error) {
	out := map[string]string{}
	list, _, err := s.Store.R().LatestCommitStatuses(ctx, repoID, sha, 1000, 0)
	if err != nil {
		return nil, err
	}
	for _, st := range list {
		switch st.State {
		case model.StatusSuccess:
			out[st.Context] = "success"
		case model.StatusPending:
			out[st.Context] = "pending"
		default:
			out[st.Context] = "failure"
		}
	}
	if s.CheckStates != nil {
		checks, err := s.CheckStates(ctx, repoID, sha)
		if err != nil {
			return nil, err
		}
		for k, v := range checks {
			out[k] = v
		}
	}
	return out, nil
}

// systemSignature is the instance's identity (the committer of merges).
func (s *Service) systemSignature() gitrepo.Signature {
	now := s.Store.Now()
	if s.Identity != nil {
		return s.Identity(nil, now)
	}
	return gitrepo.Signature{Name: "GitHub", Email: "noreply@localhost", When: now}
}

// maxTimelineCommits bounds the "committed" entries one open or push adds
// (GitHub lists at most 250 commits of a pull request).
const maxTimelineCommits = 250

// newCommits are the commits head brings over the base and over old (""
// on open), oldest first: the "committed" entries of the timeline.
func (s *Service) newCommits(ctx context.Context, g *gitrepo.Repo, baseSHA, old, head string) ([]string, error) {
	mb, err := g.MergeBase(ctx, baseSHA, head)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	exclude := []string{mb}
	if old != "" && gitrepo.ValidOID(old) {
		exclude = append(exclude, old)
	}
	ids, _, err := g.RevList(ctx, gitrepo.LogOptions{Include: []string{head}, Exclude: exclude, Reverse: true, Max: maxTimelineCommits})
	return ids, err
}

// recordCommitted adds a timeline "committed" entry per commit.
func recordCommitted(ctx context.Context, tx store.Q, repo *model.Repo, p *model.Pull, actorID int64, ids []string) error {
	for _, id := range ids {
		e := &model.IssueEvent{RepoID: repo.ID, IssueID: p.IssueID, ActorID: actorID, Event: "committed", CommitID: &id}
		if err := tx.AddIssueEvent(ctx, e, orgID(repo), map[string]any{"number": p.Number}); err != nil {
			return err
		}
	}
	return nil
}
