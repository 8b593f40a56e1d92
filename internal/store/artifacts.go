package store

import (
	"context"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Actions artifacts and the runtime tokens of jobs, owned by
// internal/actions (artifacts.go).

// SaveRuntimeToken records the hash of a job's ACTIONS_RUNTIME_TOKEN.
func (q Q) SaveRuntimeToken(ctx context.Context, hash string, t model.RuntimeToken) error {
	_, err := q.exec(ctx, `INSERT INTO actions_runtime_tokens (token_hash, job_id, run_id, repo_id, ref, created_at) VALUES (?,?,?,?,?,?)`,
		hash, t.JobID, t.RunID, t.RepoID, t.Ref, unix(q.Now()))
	return err
}

// RuntimeToken finds the job of a runtime token's hash while the job is in
// progress (a finished job's token answers not found).
func (q Q) RuntimeToken(ctx context.Context, hash string) (*model.RuntimeToken, error) {
	t := &model.RuntimeToken{}
	err := q.row(ctx, `SELECT t.job_id, t.run_id, t.repo_id, t.ref FROM actions_runtime_tokens t
 JOIN actions_jobs j ON j.id = t.job_id WHERE t.token_hash = ? AND j.status = ?`, hash, model.ActionsInProgress).
		Scan(&t.JobID, &t.RunID, &t.RepoID, &t.Ref)
	return t, notFound(err)
}

// DeleteFinishedRuntimeTokens forgets the tokens of jobs no longer in
// progress (or deleted).
func (q Q) DeleteFinishedRuntimeTokens(ctx context.Context) error {
	_, err := q.exec(ctx, `DELETE FROM actions_runtime_tokens WHERE NOT EXISTS
 (SELECT 1 FROM actions_jobs j WHERE j.id = actions_runtime_tokens.job_id AND j.status = ?)`, model.ActionsInProgress)
	return err
}

// liveRun keeps the artifacts of deleted runs out of sight until the
// retention sweep deletes them.
const liveRun = ` AND EXISTS (SELECT 1 FROM actions_runs r WHERE r.id = actions_artifacts.run_id)`

const artifactCols = `id, repo_id, run_id, job_id, name, size, digest, finalized, head_branch, head_sha, created_at, updated_at, expires_at`

func scanArtifact(r rowScanner) (*model.Artifact, error) {
	a := &model.Artifact{}
	var c, u, e int64
	if err := r.Scan(&a.ID, &a.RepoID, &a.RunID, &a.JobID, &a.Name, &a.Size, &a.Digest, &a.Finalized, &a.HeadBranch, &a.HeadSHA, &c, &u, &e); err != nil {
		return nil, err
	}
	a.CreatedAt, a.UpdatedAt, a.ExpiresAt = fromUnix(c), fromUnix(u), fromUnix(e)
	return a, nil
}

// CreateArtifact adds an artifact being uploaded; ErrDuplicate when its run
// has one of that name.
func (q Q) CreateArtifact(ctx context.Context, a *model.Artifact) error {
	now := q.Now()
	id, err := q.insert(ctx, `INSERT INTO actions_artifacts (repo_id, run_id, job_id, name, size, digest, finalized, head_branch, head_sha, created_at, updated_at, expires_at)
 VALUES (?,?,?,?,0,'',FALSE,?,?,?,?,?)`, a.RepoID, a.RunID, a.JobID, a.Name, a.HeadBranch, a.HeadSHA, unix(now), unix(now), unix(a.ExpiresAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	a.ID, a.CreatedAt, a.UpdatedAt = id, fromUnix(unix(now)), fromUnix(unix(now))
	return nil
}

// FinalizeArtifact records an artifact's uploaded zip.
func (q Q) FinalizeArtifact(ctx context.Context, id, size int64, digest string) error {
	_, err := q.exec(ctx, `UPDATE actions_artifacts SET size = ?, digest = ?, finalized = TRUE, updated_at = ? WHERE id = ?`, size, digest, unix(q.Now()), id)
	return err
}

// Artifact finds an uploaded artifact of a repository.
func (q Q) Artifact(ctx context.Context, repoID, id int64) (*model.Artifact, error) {
	a, err := scanArtifact(q.row(ctx, `SELECT `+artifactCols+` FROM actions_artifacts WHERE repo_id = ? AND id = ? AND finalized`+liveRun, repoID, id))
	return a, notFound(err)
}

// ArtifactByName finds a run's artifact by name, uploaded or not.
func (q Q) ArtifactByName(ctx context.Context, runID int64, name string) (*model.Artifact, error) {
	a, err := scanArtifact(q.row(ctx, `SELECT `+artifactCols+` FROM actions_artifacts WHERE run_id = ? AND name = ?`, runID, name))
	return a, notFound(err)
}

// ArtifactFilter selects uploaded artifacts: of a repository, of one run
// (RunID), of one name (Name).
type ArtifactFilter struct {
	RepoID, RunID int64
	Name          string
}

// Artifacts lists uploaded artifacts newest first, a page at a time.
func (q Q) Artifacts(ctx context.Context, f ArtifactFilter, limit, offset int) ([]*model.Artifact, int, error) {
	cond, args := ` WHERE repo_id = ? AND finalized`+liveRun, []any{f.RepoID}
	if f.RunID != 0 {
		cond, args = cond+` AND run_id = ?`, append(args, f.RunID)
	}
	if f.Name != "" {
		cond, args = cond+` AND name = ?`, append(args, f.Name)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM actions_artifacts`+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+artifactCols+` FROM actions_artifacts`+cond+` ORDER BY id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.Artifact
	for rows.Next() {
		a, err := scanArtifact(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// DeleteArtifact deletes an artifact's row.
func (q Q) DeleteArtifact(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM actions_artifacts WHERE id = ?`, id)
	return err
}

// ExpiredArtifacts lists up to limit artifacts whose retention ran out at
// now, uploads never finalized a day after they began, and those of
// deleted runs.
func (q Q) ExpiredArtifacts(ctx context.Context, now time.Time, limit int) ([]*model.Artifact, error) {
	rows, err := q.query(ctx, `SELECT `+artifactCols+` FROM actions_artifacts WHERE expires_at <= ? OR (NOT finalized AND created_at <= ?)
 OR NOT EXISTS (SELECT 1 FROM actions_runs r WHERE r.id = actions_artifacts.run_id) ORDER BY id LIMIT ?`,
		unix(now), unix(now.Add(-24*time.Hour)), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.Artifact
	for rows.Next() {
		a, err := scanArtifact(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
