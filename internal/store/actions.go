package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// GitHub Actions' rows, owned by internal/actions: workflows, runs, jobs
// and job logs.

const workflowCols = `id, repo_id, path, name, state, created_at, updated_at`

func scanWorkflow(r rowScanner) (*model.Workflow, error) {
	w := &model.Workflow{}
	var c, u int64
	if err := r.Scan(&w.ID, &w.RepoID, &w.Path, &w.Name, &w.State, &c, &u); err != nil {
		return nil, err
	}
	w.CreatedAt, w.UpdatedAt = fromUnix(c), fromUnix(u)
	return w, nil
}

// SyncWorkflows records the workflow files found on a repository's default
// branch (path → name): new ones are added active, known ones take their
// name (a deleted one comes back active), and those no longer there are
// marked deleted.
func (q Q) SyncWorkflows(ctx context.Context, repoID int64, found map[string]string) error {
	now := unix(q.Now())
	for path, name := range found {
		if _, err := q.exec(ctx, `INSERT INTO actions_workflows (repo_id, path, name, state, created_at, updated_at) VALUES (?,?,?,?,?,?)
 ON CONFLICT (repo_id, path) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at,
 state = CASE WHEN actions_workflows.state = 'deleted' THEN 'active' ELSE actions_workflows.state END`,
			repoID, path, name, model.WorkflowActive, now, now); err != nil {
			return err
		}
	}
	list, _, err := q.Workflows(ctx, repoID, 1<<30, 0)
	if err != nil {
		return err
	}
	for _, w := range list {
		if _, ok := found[w.Path]; !ok && w.State != model.WorkflowDeleted {
			if err := q.SetWorkflowState(ctx, w.ID, model.WorkflowDeleted); err != nil {
				return err
			}
		}
	}
	return nil
}

// EnsureWorkflow finds or adds the workflow at path (a run on another
// branch than the default one makes its workflow known, as on GitHub).
func (q Q) EnsureWorkflow(ctx context.Context, repoID int64, path, name string) (*model.Workflow, error) {
	now := unix(q.Now())
	if _, err := q.exec(ctx, `INSERT INTO actions_workflows (repo_id, path, name, state, created_at, updated_at) VALUES (?,?,?,?,?,?)
 ON CONFLICT (repo_id, path) DO NOTHING`, repoID, path, name, model.WorkflowActive, now, now); err != nil {
		return nil, err
	}
	return q.WorkflowByPath(ctx, repoID, path)
}

// Workflows lists a repository's workflows by id, a page at a time.
func (q Q) Workflows(ctx context.Context, repoID int64, limit, offset int) ([]*model.Workflow, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM actions_workflows WHERE repo_id = ?`, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+workflowCols+` FROM actions_workflows WHERE repo_id = ? ORDER BY id LIMIT ? OFFSET ?`, repoID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.Workflow
	for rows.Next() {
		w, err := scanWorkflow(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, w)
	}
	return out, total, rows.Err()
}

// WorkflowByID finds a repository's workflow by id.
func (q Q) WorkflowByID(ctx context.Context, repoID, id int64) (*model.Workflow, error) {
	w, err := scanWorkflow(q.row(ctx, `SELECT `+workflowCols+` FROM actions_workflows WHERE repo_id = ? AND id = ?`, repoID, id))
	return w, notFound(err)
}

// WorkflowByPath finds a repository's workflow by its file's path.
func (q Q) WorkflowByPath(ctx context.Context, repoID int64, path string) (*model.Workflow, error) {
	w, err := scanWorkflow(q.row(ctx, `SELECT `+workflowCols+` FROM actions_workflows WHERE repo_id = ? AND path = ?`, repoID, path))
	return w, notFound(err)
}

// WorkflowsByIDs loads workflows by id in one query.
func (q Q) WorkflowsByIDs(ctx context.Context, ids []int64) (map[int64]*model.Workflow, error) {
	out := map[int64]*model.Workflow{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT `+workflowCols+` FROM actions_workflows WHERE id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		w, err := scanWorkflow(rows)
		if err != nil {
			return nil, err
		}
		out[w.ID] = w
	}
	return out, rows.Err()
}

// SetWorkflowState enables or disables a workflow.
func (q Q) SetWorkflowState(ctx context.Context, id int64, state string) error {
	_, err := q.exec(ctx, `UPDATE actions_workflows SET state = ?, updated_at = ? WHERE id = ?`, state, unix(q.Now()), id)
	return err
}

const runCols = `r.id, r.repo_id, r.workflow_id, w.path, r.name, r.display_title, r.run_number, r.run_attempt, r.event, r.status, r.conclusion,
 r.head_branch, r.ref, r.head_sha, r.actor_id, r.triggering_actor_id, r.inputs, r.source, r.check_suite_id, r.created_at, r.updated_at, r.run_started_at,
 r.concurrency_group, r.pull_numbers, r.sha, r.event_payload`

const runFrom = ` FROM actions_runs r JOIN actions_workflows w ON w.id = r.workflow_id`

func scanRun(r rowScanner) (*model.WorkflowRun, error) {
	run := &model.WorkflowRun{}
	var concl, branch sql.NullString
	var inputs, pulls, payload string
	var c, u, s int64
	if err := r.Scan(&run.ID, &run.RepoID, &run.WorkflowID, &run.WorkflowPath, &run.Name, &run.DisplayTitle, &run.RunNumber, &run.RunAttempt,
		&run.Event, &run.Status, &concl, &branch, &run.Ref, &run.HeadSHA, &run.ActorID, &run.TriggeringActorID, &inputs, &run.Source,
		&run.CheckSuiteID, &c, &u, &s, &run.ConcurrencyGroup, &pulls, &run.SHA, &payload); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(pulls), &run.PullNumbers)
	if payload != "" && payload != "{}" {
		_ = json.Unmarshal([]byte(payload), &run.EventPayload)
	}
	run.Conclusion, run.HeadBranch = nullStr(concl), nullStr(branch)
	if inputs != "" && inputs != "{}" {
		_ = json.Unmarshal([]byte(inputs), &run.Inputs)
	}
	run.CreatedAt, run.UpdatedAt, run.RunStartedAt = fromUnix(c), fromUnix(u), fromUnix(s)
	return run, nil
}

// CreateRun adds a run with the next run number of its workflow. On
// PostgreSQL it first locks the workflow's row, so two transactions making
// runs of one workflow at once (pushes handled by two workers) number them
// one after the other instead of both taking the same number and one failing
// on the unique key (SQLite runs one writer at a time).
func (q Q) CreateRun(ctx context.Context, run *model.WorkflowRun) error {
	now := q.Now()
	if q.s.pg && q.tx != nil {
		var id int64
		if err := q.row(ctx, `SELECT id FROM actions_workflows WHERE id = ? FOR UPDATE`, run.WorkflowID).Scan(&id); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	if err := q.row(ctx, `SELECT COALESCE(MAX(run_number), 0) + 1 FROM actions_runs WHERE workflow_id = ?`, run.WorkflowID).Scan(&run.RunNumber); err != nil {
		return err
	}
	inputs, err := json.Marshal(run.Inputs)
	if err != nil {
		return err
	}
	if run.Inputs == nil {
		inputs = []byte("{}")
	}
	pulls, _ := json.Marshal(append([]int64{}, run.PullNumbers...))
	payload, err := json.Marshal(run.EventPayload)
	if err != nil || run.EventPayload == nil {
		payload = []byte("{}")
	}
	run.RunAttempt = 1
	run.CreatedAt, run.UpdatedAt, run.RunStartedAt = fromUnix(unix(now)), fromUnix(unix(now)), fromUnix(unix(now))
	run.ID, err = q.insert(ctx, `INSERT INTO actions_runs (repo_id, workflow_id, name, display_title, run_number, run_attempt, event, status, conclusion,
 head_branch, ref, head_sha, actor_id, triggering_actor_id, inputs, source, check_suite_id, created_at, updated_at, run_started_at,
 concurrency_group, pull_numbers, sha, event_payload)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		run.RepoID, run.WorkflowID, run.Name, run.DisplayTitle, run.RunNumber, run.RunAttempt, run.Event, run.Status, strOrNil(run.Conclusion),
		strOrNil(run.HeadBranch), run.Ref, run.HeadSHA, run.ActorID, run.TriggeringActorID, string(inputs), run.Source, run.CheckSuiteID,
		unix(now), unix(now), unix(now), run.ConcurrencyGroup, string(pulls), run.SHA, string(payload))
	if err != nil {
		return err
	}
	return q.countRuns(ctx, run.RepoID, 1)
}

// Run finds a repository's run.
func (q Q) Run(ctx context.Context, repoID, id int64) (*model.WorkflowRun, error) {
	r, err := scanRun(q.row(ctx, `SELECT `+runCols+runFrom+` WHERE r.repo_id = ? AND r.id = ?`, repoID, id))
	return r, notFound(err)
}

// RunFilter selects runs of a repository (zero fields select all).
type RunFilter struct {
	RepoID       int64
	WorkflowID   int64
	ActorID      int64 // -1: no run (an unknown login)
	Branch       string
	Event        string
	Status       string // a status or a conclusion, as GitHub's filter
	HeadSHA      string
	CheckSuiteID int64
	CreatedFrom  *time.Time
	CreatedUntil *time.Time
}

// Runs lists runs newest first, a page at a time.
func (q Q) Runs(ctx context.Context, f RunFilter, limit, offset int) ([]*model.WorkflowRun, int, error) {
	where := []string{"r.repo_id = ?"}
	args := []any{f.RepoID}
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if f.WorkflowID != 0 {
		add("r.workflow_id = ?", f.WorkflowID)
	}
	if f.ActorID != 0 {
		add("r.actor_id = ?", f.ActorID)
	}
	if f.Branch != "" {
		add("r.head_branch = ?", f.Branch)
	}
	if f.Event != "" {
		add("r.event = ?", f.Event)
	}
	if f.HeadSHA != "" {
		add("r.head_sha = ?", f.HeadSHA)
	}
	if f.CheckSuiteID != 0 {
		add("r.check_suite_id = ?", f.CheckSuiteID)
	}
	if f.Status != "" {
		where = append(where, "(r.status = ? OR r.conclusion = ?)")
		args = append(args, f.Status, f.Status)
	}
	if f.CreatedFrom != nil {
		add("r.created_at >= ?", unix(*f.CreatedFrom))
	}
	if f.CreatedUntil != nil {
		add("r.created_at <= ?", unix(*f.CreatedUntil))
	}
	cond := " WHERE " + strings.Join(where, " AND ")
	var total int
	if len(where) == 1 {
		// The repository's runs: the counter knows.
		if err := q.row(ctx, `SELECT runs FROM actions_run_counters WHERE repo_id = ?`, f.RepoID).Scan(&total); err != nil && err != sql.ErrNoRows {
			return nil, 0, err
		}
	} else if err := q.row(ctx, `SELECT COUNT(*) FROM actions_runs r`+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total <= offset {
		return []*model.WorkflowRun{}, total, nil
	}
	out, err := q.runs(ctx, `SELECT `+runCols+runFrom+cond+` ORDER BY r.id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return out, total, err
}

// runs reads the runs a query selects.
func (q Q) runs(ctx context.Context, query string, args ...any) ([]*model.WorkflowRun, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.WorkflowRun
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SetRunState sets a run's status and conclusion; it reports whether the
// run moved (false when it was completed already and status is not a
// new attempt's).
func (q Q) SetRunState(ctx context.Context, id int64, status string, conclusion *string) error {
	_, err := q.exec(ctx, `UPDATE actions_runs SET status = ?, conclusion = ?, updated_at = ? WHERE id = ?`, status, strOrNil(conclusion), unix(q.Now()), id)
	return err
}

// NewRunAttempt starts attempt n of a run: queued again, by actor.
func (q Q) NewRunAttempt(ctx context.Context, id, attempt, actorID int64) error {
	now := unix(q.Now())
	// The attempt that ends is kept as it was (run attempts).
	if _, err := q.exec(ctx, `INSERT INTO actions_run_attempts (run_id, attempt, status, conclusion, triggering_actor_id, run_started_at, updated_at)
 SELECT id, run_attempt, status, conclusion, triggering_actor_id, run_started_at, updated_at FROM actions_runs WHERE id = ?
 ON CONFLICT (run_id, attempt) DO NOTHING`, id); err != nil {
		return err
	}
	_, err := q.exec(ctx, `UPDATE actions_runs SET run_attempt = ?, status = ?, conclusion = NULL, triggering_actor_id = ?, updated_at = ?, run_started_at = ? WHERE id = ?`,
		attempt, model.ActionsQueued, actorID, now, now, id)
	return err
}

// SetRunCheckSuite records the check suite of a run.
func (q Q) SetRunCheckSuite(ctx context.Context, id, suiteID int64) error {
	_, err := q.exec(ctx, `UPDATE actions_runs SET check_suite_id = ? WHERE id = ?`, suiteID, id)
	return err
}

// DeleteRun deletes a run, its jobs and their logs.
func (q Q) DeleteRun(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM actions_job_logs WHERE job_id IN (SELECT id FROM actions_jobs WHERE run_id = ?)`, id); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM actions_jobs WHERE run_id = ?`, id); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM actions_run_attempts WHERE run_id = ?`, id); err != nil {
		return err
	}
	var repoID int64
	if err := q.row(ctx, `SELECT repo_id FROM actions_runs WHERE id = ?`, id).Scan(&repoID); err != nil {
		return notFound(err)
	}
	if _, err := q.exec(ctx, `DELETE FROM actions_runs WHERE id = ?`, id); err != nil {
		return err
	}
	return q.countRuns(ctx, repoID, -1)
}

const jobCols = `j.id, j.run_id, j.repo_id, j.run_attempt, j.job_key, j.name, j.matrix, j.needs, j.status, j.conclusion, r.head_sha, r.head_branch,
 j.outputs, j.steps, j.runner_name, j.check_run_id, j.created_at, j.started_at, j.completed_at, j.concurrency_group`

const jobFrom = ` FROM actions_jobs j JOIN actions_runs r ON r.id = j.run_id`

func scanJob(r rowScanner) (*model.WorkflowJob, error) {
	j := &model.WorkflowJob{}
	var matrix, concl, branch, runner sql.NullString
	var needs, outputs, steps string
	var c int64
	var s, e sql.NullInt64
	if err := r.Scan(&j.ID, &j.RunID, &j.RepoID, &j.RunAttempt, &j.Key, &j.Name, &matrix, &needs, &j.Status, &concl, &j.HeadSHA, &branch,
		&outputs, &steps, &runner, &j.CheckRunID, &c, &s, &e, &j.ConcurrencyGroup); err != nil {
		return nil, err
	}
	j.Conclusion, j.HeadBranch, j.RunnerName = nullStr(concl), nullStr(branch), nullStr(runner)
	if matrix.Valid {
		_ = json.Unmarshal([]byte(matrix.String), &j.Matrix)
	}
	_ = json.Unmarshal([]byte(needs), &j.Needs)
	_ = json.Unmarshal([]byte(outputs), &j.Outputs)
	_ = json.Unmarshal([]byte(steps), &j.Steps)
	j.CreatedAt, j.StartedAt, j.CompletedAt = fromUnix(c), fromNullUnix(s), fromNullUnix(e)
	return j, nil
}

// CreateJob adds a queued job to a run attempt.
func (q Q) CreateJob(ctx context.Context, j *model.WorkflowJob) error {
	var matrix any
	if j.Matrix != nil {
		b, err := json.Marshal(j.Matrix)
		if err != nil {
			return err
		}
		matrix = string(b)
	}
	needs, _ := json.Marshal(append([]string{}, j.Needs...))
	now := q.Now()
	j.CreatedAt = fromUnix(unix(now))
	if j.ID != 0 {
		// The id of the job's check run (one id space for both).
		_, err := q.exec(ctx, `INSERT INTO actions_jobs (id, run_id, repo_id, run_attempt, job_key, name, matrix, needs, status, conclusion, created_at, completed_at,
 concurrency_group, check_run_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, j.ID, j.RunID, j.RepoID, j.RunAttempt, j.Key, j.Name, matrix, string(needs), j.Status,
			strOrNil(j.Conclusion), unix(now), nullUnix(j.CompletedAt), j.ConcurrencyGroup, j.CheckRunID)
		return err
	}
	var err error
	j.ID, err = q.insert(ctx, `INSERT INTO actions_jobs (run_id, repo_id, run_attempt, job_key, name, matrix, needs, status, conclusion, created_at, completed_at,
 concurrency_group) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, j.RunID, j.RepoID, j.RunAttempt, j.Key, j.Name, matrix, string(needs), j.Status, strOrNil(j.Conclusion),
		unix(now), nullUnix(j.CompletedAt), j.ConcurrencyGroup)
	return err
}

// Job finds a repository's job.
func (q Q) Job(ctx context.Context, repoID, id int64) (*model.WorkflowJob, error) {
	j, err := scanJob(q.row(ctx, `SELECT `+jobCols+jobFrom+` WHERE j.repo_id = ? AND j.id = ?`, repoID, id))
	return j, notFound(err)
}

// RunJobs lists the jobs of a run's attempt (attempt 0: every attempt) by
// id, a page at a time.
func (q Q) RunJobs(ctx context.Context, runID, attempt int64, limit, offset int) ([]*model.WorkflowJob, int, error) {
	cond, args := ` WHERE j.run_id = ?`, []any{runID}
	if attempt > 0 {
		cond += ` AND j.run_attempt = ?`
		args = append(args, attempt)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM actions_jobs j`+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := q.jobs(ctx, `SELECT `+jobCols+jobFrom+cond+` ORDER BY j.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return out, total, err
}

// JobsInProgressOn lists the jobs in progress on the runners named.
func (q Q) JobsInProgressOn(ctx context.Context, runners []string) ([]*model.WorkflowJob, error) {
	if len(runners) == 0 {
		return nil, nil
	}
	in, args := inList(runners)
	return q.jobs(ctx, `SELECT `+jobCols+jobFrom+` WHERE j.status = ? AND j.runner_name IN (`+in+`) ORDER BY j.id`, append([]any{model.ActionsInProgress}, args...)...)
}

// jobs reads the jobs a query selects.
func (q Q) jobs(ctx context.Context, query string, args ...any) ([]*model.WorkflowJob, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.WorkflowJob
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// StartJob moves a queued job to in_progress; false when it was not
// queued (cancelled meanwhile, or claimed by an earlier attempt).
func (q Q) StartJob(ctx context.Context, id int64, runner string, tokenID int64) (bool, error) {
	res, err := q.exec(ctx, `UPDATE actions_jobs SET status = ?, started_at = ?, runner_name = ?, token_id = ? WHERE id = ? AND status = ?`,
		model.ActionsInProgress, unix(q.Now()), runner, tokenID, id, model.ActionsQueued)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// JobTokenID is the id of the token minted for a running job (0: none).
func (q Q) JobTokenID(ctx context.Context, id int64) (int64, error) {
	var t int64
	err := q.row(ctx, `SELECT token_id FROM actions_jobs WHERE id = ?`, id).Scan(&t)
	return t, notFound(err)
}

// FinishJob completes a job that is not completed yet; false when it was.
func (q Q) FinishJob(ctx context.Context, j *model.WorkflowJob) (bool, error) {
	outputs, _ := json.Marshal(j.Outputs)
	if j.Outputs == nil {
		outputs = []byte("{}")
	}
	steps, _ := json.Marshal(append([]model.WorkflowStep{}, j.Steps...))
	now := q.Now()
	res, err := q.exec(ctx, `UPDATE actions_jobs SET status = ?, conclusion = ?, outputs = ?, steps = ?, completed_at = ?, token_id = 0,
 started_at = COALESCE(started_at, ?) WHERE id = ? AND status <> ?`,
		model.ActionsCompleted, strOrNil(j.Conclusion), string(outputs), string(steps), unix(now), unix(now), j.ID, model.ActionsCompleted)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// SetRunningJobSteps stores the steps of a job in progress (its runner
// reports them as they start and end).
func (q Q) SetRunningJobSteps(ctx context.Context, id int64, steps []model.WorkflowStep) error {
	b, _ := json.Marshal(append([]model.WorkflowStep{}, steps...))
	_, err := q.exec(ctx, `UPDATE actions_jobs SET steps = ? WHERE id = ? AND status = ?`, string(b), id, model.ActionsInProgress)
	return err
}

// SetJobLog stores a job's log.
func (q Q) SetJobLog(ctx context.Context, jobID int64, content string) error {
	_, err := q.exec(ctx, `INSERT INTO actions_job_logs (job_id, content) VALUES (?, ?) ON CONFLICT (job_id) DO UPDATE SET content = excluded.content`, jobID, content)
	return err
}

// JobLog is a job's log; not found when it has none (not run, or deleted).
func (q Q) JobLog(ctx context.Context, jobID int64) (string, error) {
	var s string
	err := q.row(ctx, `SELECT content FROM actions_job_logs WHERE job_id = ?`, jobID).Scan(&s)
	return s, notFound(err)
}

// DeleteRunLogs deletes the logs of a run's jobs.
func (q Q) DeleteRunLogs(ctx context.Context, runID int64) error {
	_, err := q.exec(ctx, `DELETE FROM actions_job_logs WHERE job_id IN (SELECT id FROM actions_jobs WHERE run_id = ?)`, runID)
	return err
}
