package store

import (
	"context"
	"encoding/json"

	"github.com/hubd/hubd/internal/model"
)

// Deployments, the gates of environment protection rules holding jobs
// back, and reviews of pending deployments (owned by internal/environments).

const deploymentSelect = `SELECT id, repo_id, sha, ref, task, environment, description, creator_id, run_id, created_at, updated_at FROM deployments`

func scanDeployment(sc rowScanner) (*model.Deployment, error) {
	var d model.Deployment
	var created, updated int64
	if err := sc.Scan(&d.ID, &d.RepoID, &d.SHA, &d.Ref, &d.Task, &d.Environment, &d.Description, &d.CreatorID, &d.RunID, &created, &updated); err != nil {
		return nil, err
	}
	d.CreatedAt, d.UpdatedAt = fromUnix(created), fromUnix(updated)
	return &d, nil
}

// CreateDeployment inserts d and sets its id and times.
func (q Q) CreateDeployment(ctx context.Context, d *model.Deployment) error {
	now := q.Now()
	d.CreatedAt, d.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO deployments (repo_id, sha, ref, task, environment, description, creator_id, run_id, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?,?)`, d.RepoID, d.SHA, d.Ref, d.Task, d.Environment, strOrNil(d.Description), d.CreatorID, d.RunID, unix(now), unix(now))
	d.ID = id
	return err
}

// DeploymentsByID loads a repository's deployments by id.
func (q Q) DeploymentsByID(ctx context.Context, repoID int64, ids []int64) (map[int64]*model.Deployment, error) {
	out := map[int64]*model.Deployment{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, deploymentSelect+` WHERE repo_id = ? AND id IN (`+in+`)`, append([]any{repoID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		d, err := scanDeployment(rows)
		if err != nil {
			return nil, err
		}
		out[d.ID] = d
	}
	return out, rows.Err()
}

const gateSelect = `SELECT job_id, run_id, repo_id, environment_id, deployment_id, state, needs_review, approved, wait_timer, timer_done,
 wait_started_at FROM deployment_gates`

func scanGate(sc rowScanner) (*model.DeploymentGate, error) {
	var g model.DeploymentGate
	var started int64
	if err := sc.Scan(&g.JobID, &g.RunID, &g.RepoID, &g.EnvironmentID, &g.DeploymentID, &g.State, &g.NeedsReview, &g.Approved, &g.WaitTimer,
		&g.TimerDone, &started); err != nil {
		return nil, err
	}
	g.WaitStartedAt = fromUnix(started)
	return &g, nil
}

// CreateDeploymentGate inserts a job's gate.
func (q Q) CreateDeploymentGate(ctx context.Context, g *model.DeploymentGate) error {
	_, err := q.exec(ctx, `INSERT INTO deployment_gates (job_id, run_id, repo_id, environment_id, deployment_id, state, needs_review, approved,
 wait_timer, timer_done, wait_started_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`, g.JobID, g.RunID, g.RepoID, g.EnvironmentID, g.DeploymentID, g.State,
		g.NeedsReview, g.Approved, g.WaitTimer, g.TimerDone, unix(g.WaitStartedAt))
	return err
}

// DeploymentGate is a job's gate.
func (q Q) DeploymentGate(ctx context.Context, jobID int64) (*model.DeploymentGate, error) {
	g, err := scanGate(q.row(ctx, gateSelect+` WHERE job_id = ?`, jobID))
	return g, notFound(err)
}

// UpdateDeploymentGate writes a gate's state, approval and timer.
func (q Q) UpdateDeploymentGate(ctx context.Context, g *model.DeploymentGate) error {
	_, err := q.exec(ctx, `UPDATE deployment_gates SET state = ?, approved = ?, timer_done = ? WHERE job_id = ?`, g.State, g.Approved, g.TimerDone, g.JobID)
	return err
}

// WaitingGates are a run's gates still holding jobs back (by job).
func (q Q) WaitingGates(ctx context.Context, runID int64) ([]*model.DeploymentGate, error) {
	rows, err := q.query(ctx, gateSelect+` WHERE run_id = ? AND state = ? AND job_id IN (SELECT id FROM actions_jobs WHERE run_id = ? AND status = ?)
 ORDER BY job_id`, runID, model.GateWaiting, runID, model.ActionsWaiting)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.DeploymentGate
	for rows.Next() {
		g, err := scanGate(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// CreateDeploymentReview inserts a review and sets its id and time.
func (q Q) CreateDeploymentReview(ctx context.Context, r *model.DeploymentReview) error {
	r.CreatedAt = q.Now()
	envs, _ := json.Marshal(append([]int64{}, r.EnvironmentIDs...))
	id, err := q.insert(ctx, `INSERT INTO deployment_reviews (run_id, repo_id, user_id, state, comment, environment_ids, created_at)
 VALUES (?,?,?,?,?,?,?)`, r.RunID, r.RepoID, r.UserID, r.State, r.Comment, string(envs), unix(r.CreatedAt))
	r.ID = id
	return err
}

// DeploymentReviews are a run's reviews, oldest first.
func (q Q) DeploymentReviews(ctx context.Context, runID int64) ([]*model.DeploymentReview, error) {
	rows, err := q.query(ctx, `SELECT id, run_id, repo_id, user_id, state, comment, environment_ids, created_at FROM deployment_reviews
 WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.DeploymentReview
	for rows.Next() {
		var r model.DeploymentReview
		var envs string
		var created int64
		if err := rows.Scan(&r.ID, &r.RunID, &r.RepoID, &r.UserID, &r.State, &r.Comment, &envs, &created); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(envs), &r.EnvironmentIDs); err != nil {
			return nil, err
		}
		r.CreatedAt = fromUnix(created)
		out = append(out, &r)
	}
	return out, rows.Err()
}

// EnvironmentsByID loads a repository's environments by id.
func (q Q) EnvironmentsByID(ctx context.Context, repoID int64, ids []int64) (map[int64]*model.Environment, error) {
	out := map[int64]*model.Environment{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, environmentSelect+` WHERE repo_id = ? AND id IN (`+in+`)`, append([]any{repoID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEnvironment(rows)
		if err != nil {
			return nil, err
		}
		out[e.ID] = e
	}
	return out, rows.Err()
}

// SetJobWaiting moves a job that has not completed from one status to
// another (queued to waiting and back); false when it was not in from.
func (q Q) SetJobWaiting(ctx context.Context, id int64, from, to string) (bool, error) {
	res, err := q.exec(ctx, `UPDATE actions_jobs SET status = ? WHERE id = ? AND status = ?`, to, id, from)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
