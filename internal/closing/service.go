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
// with closing keywords.
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
}

// New makes the service and registers its job with q.
func New(s *store.Store, git *gitrepo.Manager, q *jobs.Queue, web string) *Service {
	svc := &Service{Store: s, Git: git, Jobs: q, Web: web}
	if q != nil {
		q.Handle(jobPush, svc.runPush)
	}
	return svc
}

// Pushed queues the closing of the issues named by the commits a ref
// update brought to repo's default branch (a git push, a merge, a commit
// made through the API). Walking the commits runs in the job queue, never
// on the request path. Updates of other refs close nothing.
func (s *Service) Pushed(ctx context.Context, repo *model.Repo, actorID int64, ref, old, new string) error {
	if s.Jobs == nil || ref != "refs/heads/"+repo.DefaultBranch || new == gitrepo.ZeroOID {
		return nil
	}
	return s.Jobs.Enqueue(context.WithoutCancel(ctx), jobs.Job{Kind: jobPush,
		Payload: pushJob{RepoID: repo.ID, ActorID: actorID, Old: old, New: new}})
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
		_, data, err := g.Read(ctx, shas[i], 1<<20)
		if err != nil {
			continue
		}
		c, err := gitrepo.ParseCommit(shas[i], data)
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
		if authz.RepoPermission(&authz.Caller{User: &model.Account{ID: c.actorID}}, v.Repo, v.Facts) < authz.Write || v.Repo.Archived {
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
