package closing

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service closes the issues that changes landing on a default branch name
// with closing keywords, and records a "referenced" event on the issues
// that newly pushed commits of any branch mention.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
	Jobs  *jobs.Queue
	Web   string // hubd's web address: issue URLs under it count
}

const jobPush = "closing.push"

// maxCommits bounds the commits of one push read for keywords (a push of
// a long new history closes nothing with its old commits).
const maxCommits = 100

type pushJob struct {
	RepoID  int64  `json:"repo_id"`
	ActorID int64  `json:"actor_id"`
	Old     string `json:"old"`
	New     string `json:"new"`
	// Ref is the branch updated; jobs queued before it was recorded only
	// closed (they were all of the default branch).
	Ref   string `json:"ref,omitempty"`
	Close bool   `json:"close,omitempty"`
	// Not are the other branches' tips when a new branch was pushed: its
	// commits already on them reference nothing again.
	Not []string `json:"not,omitempty"`
}

// New makes the service and registers its job with q.
func New(s *store.Store, git *gitrepo.Manager, q *jobs.Queue, web string) *Service {
	svc := &Service{Store: s, Git: git, Jobs: q, Web: web}
	if q != nil {
		q.Handle(jobPush, svc.runPush)
	}
	return svc
}

// Pushed queues the work a ref update of a branch brings (a git push, a
// merge, a commit made through the API): the referenced events of its new
// commits, and on repo's default branch the closing of the issues they
// name. Walking the commits runs in the job queue, never on the request
// path; a new branch's job remembers the other branches' tips (one
// for-each-ref), so commits pushed elsewhere meanwhile do not change it.
func (s *Service) Pushed(ctx context.Context, repo *model.Repo, actorID int64, ref, old, new string) error {
	branch, ok := strings.CutPrefix(ref, "refs/heads/")
	if s.Jobs == nil || !ok || new == gitrepo.ZeroOID {
		return nil
	}
	j := pushJob{RepoID: repo.ID, ActorID: actorID, Ref: ref, Old: old, New: new, Close: branch == repo.DefaultBranch}
	if old == gitrepo.ZeroOID || old == "" {
		tips, err := s.Git.Open(repo.ID).Refs(ctx, "refs/heads/")
		if err != nil {
			return err
		}
		for _, t := range tips {
			if t.Name != ref {
				j.Not = append(j.Not, t.OID)
			}
		}
	}
	return s.Jobs.Enqueue(context.WithoutCancel(ctx), jobs.Job{Kind: jobPush, Payload: j})
}

// closing is one issue to close: by whom and with which commit.
type closing struct {
	ref     Ref
	actorID int64
	commit  string
}

func (s *Service) runPush(ctx context.Context, payload []byte) error {
	var j pushJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return jobs.Permanent(err)
	}
	v, err := s.Store.R().RepoByID(ctx, j.RepoID, 0)
	if errors.Is(err, model.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	repo := v.Repo
	g := s.Git.Open(repo.ID)
	if j.Ref == "" {
		j.Close = true // queued before branches other than the default one were
	}
	if j.Close {
		if err := s.closeNamed(ctx, g, repo, j); err != nil {
			return err
		}
	}
	if j.Ref == "" {
		return nil // its push recorded its references itself
	}
	// Last, in one transaction: closing is idempotent, so a retry after
	// a failure here records nothing twice.
	return s.reference(ctx, g, repo, j)
}

// closeNamed closes the issues the update's commits, and the pull
// requests they merged, name with closing keywords.
func (s *Service) closeNamed(ctx context.Context, g *gitrepo.Repo, repo *model.Repo, j pushJob) error {
	args := []string{"rev-list", "--max-count=" + strconv.Itoa(maxCommits), j.New}
	if j.Old != gitrepo.ZeroOID && j.Old != "" {
		args = append(args, "^"+j.Old)
	}
	out, err := g.Git(ctx, nil, args...)
	if err != nil {
		return err
	}
	shas := strings.Fields(string(out))
	var list []closing
	// Pull requests merged by these commits close what their bodies name,
	// with the merge commit, by their merger.
	merged, err := s.Store.R().PullsMergedAs(ctx, repo.ID, shas)
	if err != nil {
		return err
	}
	for _, p := range merged {
		if p.Issue.Body == nil || p.MergeCommitSHA == nil {
			continue
		}
		by := p.MergedByID
		if by == 0 {
			by = j.ActorID
		}
		for _, r := range Parse(*p.Issue.Body, s.Web) {
			list = append(list, closing{r, by, *p.MergeCommitSHA})
		}
	}
	// Then every commit's message, oldest first, by the pusher.
	for i := len(shas) - 1; i >= 0; i-- {
		c, err := readCommit(ctx, g, shas[i])
		if err != nil {
			continue
		}
		for _, r := range Parse(c.Message, s.Web) {
			list = append(list, closing{r, j.ActorID, shas[i]})
		}
	}
	for _, c := range list {
		if err := s.close(ctx, repo, c); err != nil {
			return err
		}
	}
	return nil
}

// close closes one named issue if it is open, as if its closer had closed
// it by hand: state_reason completed, a closed event with the commit, the
// issues webhook. An issue of another repository closes only when the
// actor may write to it; pull requests and unknown issues are left alone.
func (s *Service) close(ctx context.Context, repo *model.Repo, c closing) error {
	target := repo
	if !c.ref.Same(repo.Owner.Login, repo.Name) {
		v, err := s.Store.R().RepoByName(ctx, c.ref.Owner, c.ref.Repo, c.actorID)
		if errors.Is(err, model.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if authz.RepoPermission(&authz.Caller{User: &model.Account{ID: c.actorID}}, v.Repo, v.Facts) < authz.Write || v.Repo.WriteRefusal() != nil {
			return nil
		}
		target = v.Repo
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		before, err := tx.IssueByNumber(ctx, target.ID, c.ref.Number)
		if errors.Is(err, model.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if before.IsPull || before.State != "open" {
			return nil
		}
		now, reason, commit := tx.Now(), "completed", c.commit
		after := *before
		after.State, after.StateReason, after.ClosedAt, after.ClosedByID = "closed", &reason, &now, c.actorID
		if err := tx.UpdateIssue(ctx, before, &after); err != nil {
			return err
		}
		e := &model.IssueEvent{RepoID: target.ID, IssueID: after.ID, ActorID: c.actorID, Event: "closed", CommitID: &commit, StateReason: &reason}
		return tx.AddIssueEvent(ctx, e, orgOf(target), map[string]any{"number": after.Number, "state_reason": reason, "commit_id": commit})
	})
}

func orgOf(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

// readCommit reads and parses one commit.
func readCommit(ctx context.Context, g *gitrepo.Repo, sha string) (*gitrepo.Commit, error) {
	_, data, err := g.Read(ctx, sha, 1<<20)
	if err != nil {
		return nil, err
	}
	return gitrepo.ParseCommit(sha, data)
}

// reference records a "referenced" event, with the commit, on every issue
// of repo that a commit the update brought mentions (#N, or owner/repo#N
// naming repo), as GitHub does: old..new, or for a new branch the commits
// on no other branch when it was pushed.
func (s *Service) reference(ctx context.Context, g *gitrepo.Repo, repo *model.Repo, j pushJob) error {
	args := []string{"rev-list", "--max-count=" + strconv.Itoa(maxCommits), j.New}
	if j.Old != gitrepo.ZeroOID && j.Old != "" {
		args = append(args, "^"+j.Old)
	} else {
		for _, t := range j.Not {
			args = append(args, "^"+t)
		}
	}
	out, err := g.Git(ctx, nil, args...)
	if err != nil {
		return err
	}
	type ref struct {
		commit string
		number int64
	}
	var refs []ref
	for _, sha := range strings.Fields(string(out)) {
		c, err := readCommit(ctx, g, sha)
		if err != nil {
			continue
		}
		for _, r := range Mentioned(c.Message) {
			if r.Same(repo.Owner.Login, repo.Name) {
				refs = append(refs, ref{sha, r.Number})
			}
		}
	}
	if len(refs) == 0 {
		return nil
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		for _, r := range refs {
			target, err := tx.IssueByNumber(ctx, repo.ID, r.number)
			if errors.Is(err, model.ErrNotFound) {
				continue // no such issue: nothing to reference
			}
			if err != nil {
				return err
			}
			commit := r.commit
			e := &model.IssueEvent{RepoID: repo.ID, IssueID: target.ID, ActorID: j.ActorID, Event: "referenced", CommitID: &commit}
			if err := tx.AddIssueEvent(ctx, e, orgOf(repo), map[string]any{"number": target.Number, "commit_id": commit}); err != nil {
				return err
			}
		}
		return nil
	})
}
