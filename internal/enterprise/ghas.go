package enterprise

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// ActiveWindow is how far back a push makes its committers active for
// GitHub Advanced Security billing (GitHub counts the last 90 days).
const ActiveWindow = 90 * 24 * time.Hour

const jobCommitters = "ghas.committers"

// maxCommitterCommits bounds the commits of one ref update read for
// committers (a push of a long imported history reads its newest ones).
const maxCommitterCommits = 1000

// Committers records, in the job queue, who committed what each push
// brought, and answers the Advanced Security active committers from it.
type Committers struct {
	st   *store.Store
	git  *gitrepo.Manager
	jobs *jobs.Queue
	// match maps commit addresses to users (deps.AccountsByCommitEmail).
	match func(ctx context.Context, emails []string) (map[string]*model.Account, error)
}

// NewCommitters makes the recorder and registers its job with q.
func NewCommitters(st *store.Store, git *gitrepo.Manager, q *jobs.Queue,
	match func(context.Context, []string) (map[string]*model.Account, error)) *Committers {
	c := &Committers{st: st, git: git, jobs: q, match: match}
	if q != nil {
		q.Handle(jobCommitters, c.run)
	}
	return c
}

type committersJob struct {
	RepoID   int64           `json:"repo_id"`
	PushedAt int64           `json:"pushed_at"`
	Updates  []committersRef `json:"updates"`
}

type committersRef struct {
	Ref string `json:"ref"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Pushed queues the reading of a push's committers (a push hook): the
// branch updates that brought commits. Reading them is git work, never
// done on the request path.
func (c *Committers) Pushed(ctx context.Context, repo *model.Repo, _ int64, updates []deps.RefUpdate) {
	var list []committersRef
	for _, u := range updates {
		if strings.HasPrefix(u.Ref, "refs/heads/") && u.New != gitrepo.ZeroOID {
			list = append(list, committersRef{Ref: u.Ref, Old: u.Old, New: u.New})
		}
	}
	if c.jobs == nil || len(list) == 0 {
		return
	}
	j := committersJob{RepoID: repo.ID, PushedAt: c.st.R().Now().Unix(), Updates: list}
	// A hook has no caller to fail: a push that could not queue its job
	// leaves its committers unrecorded, as a push with no commits would.
	_ = c.jobs.Enqueue(context.WithoutCancel(ctx), jobs.Job{Kind: jobCommitters, Payload: j})
}

func (c *Committers) run(ctx context.Context, payload []byte) error {
	var j committersJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return jobs.Permanent(err)
	}
	if _, err := c.st.R().RepoByID(ctx, j.RepoID, 0); errors.Is(err, model.ErrNotFound) {
		return nil // deleted meanwhile
	} else if err != nil {
		return err
	}
	g := c.git.Open(j.RepoID)
	var emails []string
	for _, u := range j.Updates {
		args := []string{"log", "--format=%ae%n%ce", "--max-count=" + strconv.Itoa(maxCommitterCommits), u.New}
		if u.Old != gitrepo.ZeroOID && u.Old != "" {
			args = append(args, "^"+u.Old)
		} else {
			// A new branch brings the commits no other branch has.
			args = append(args, "--not", "--exclude="+strings.TrimPrefix(u.Ref, "refs/heads/"), "--branches")
		}
		out, err := g.Git(ctx, nil, args...)
		if errors.Is(err, gitrepo.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		emails = append(emails, strings.Fields(string(out))...)
	}
	if len(emails) == 0 {
		return nil
	}
	users, err := c.match(ctx, emails)
	if err != nil {
		return err
	}
	// The newest commit's address of each user is the one reported.
	byUser := map[int64]string{}
	for _, e := range emails {
		if u := users[strings.ToLower(e)]; u != nil && u.Type == model.TypeUser {
			if _, seen := byUser[u.ID]; !seen {
				byUser[u.ID] = e
			}
		}
	}
	if len(byUser) == 0 {
		return nil
	}
	return c.st.Tx(ctx, func(tx store.Q) error {
		return tx.RecordPushCommitters(ctx, j.RepoID, time.Unix(j.PushedAt, 0), byUser)
	})
}

// CommittersRepo is one repository of the active committers report.
type CommittersRepo struct {
	Name       string
	Committers []model.ActiveCommitter
}

// CommittersReport is GitHub's Advanced Security active committers of an
// organization (orgID) or of the enterprise (orgID 0).
type CommittersReport struct {
	Total, Active, Maximum int
	Repos                  []CommittersRepo
}

// ActiveCommitters is one page of the report: the repositories with
// Advanced Security enabled, each with the users who pushed to it in the
// last 90 days, and the distinct users over all of them (active) and over
// every repository that could enable it (maximum).
func (c *Committers) ActiveCommitters(ctx context.Context, orgID int64, limit, offset int) (*CommittersReport, error) {
	q := c.st.R()
	since := q.Now().Add(-ActiveWindow)
	repos, total, err := q.GHASRepos(ctx, orgID, limit, offset)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(repos))
	for i, r := range repos {
		ids[i] = r.ID
	}
	by, err := q.ActiveCommitters(ctx, ids, since)
	if err != nil {
		return nil, err
	}
	out := &CommittersReport{Total: total, Repos: make([]CommittersRepo, len(repos))}
	for i, r := range repos {
		out.Repos[i] = CommittersRepo{Name: r.FullName, Committers: by[r.ID]}
	}
	out.Active, out.Maximum, err = q.GHASCommitterTotals(ctx, orgID, since)
	return out, err
}
