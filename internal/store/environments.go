package store

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Deployment environments (owned by internal/environments): one row per
// environment of a repository, names unique without regard to case, the
// required reviewers a JSON column read and written whole.

type jsonReviewer struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
}

const environmentSelect = `SELECT id, repo_id, name, wait_timer, prevent_self_review, reviewers, branch_policy, created_at, updated_at
 FROM environments`

func scanEnvironment(sc rowScanner) (*model.Environment, error) {
	var e model.Environment
	var reviewers string
	var created, updated int64
	if err := sc.Scan(&e.ID, &e.RepoID, &e.Name, &e.WaitTimer, &e.PreventSelfReview, &reviewers, &e.BranchPolicy, &created, &updated); err != nil {
		return nil, err
	}
	var list []jsonReviewer
	if err := json.Unmarshal([]byte(reviewers), &list); err != nil {
		return nil, err
	}
	e.Reviewers = make([]model.EnvironmentReviewer, len(list))
	for i, r := range list {
		e.Reviewers[i] = model.EnvironmentReviewer{Type: r.Type, ID: r.ID}
	}
	e.CreatedAt, e.UpdatedAt = fromUnix(created), fromUnix(updated)
	return &e, nil
}

func reviewersColumn(list []model.EnvironmentReviewer) string {
	out := make([]jsonReviewer, len(list))
	for i, r := range list {
		out[i] = jsonReviewer{Type: r.Type, ID: r.ID}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// Environment is a repository's environment by name (any case).
func (q Q) Environment(ctx context.Context, repoID int64, name string) (*model.Environment, error) {
	return orNotFound(scanEnvironment(q.row(ctx, environmentSelect+` WHERE repo_id = ? AND lower_name = ?`, repoID, strings.ToLower(name))))
}

// Environments is one page of a repository's environments (by name) and
// their count.
func (q Q) Environments(ctx context.Context, repoID int64, limit, offset int) ([]*model.Environment, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM environments WHERE repo_id = ?`, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, environmentSelect+` WHERE repo_id = ? ORDER BY lower_name LIMIT ? OFFSET ?`, repoID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.Environment
	for rows.Next() {
		e, err := scanEnvironment(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// CreateEnvironment inserts e and sets its id and times; ErrDuplicate when
// the repository has an environment of that name.
func (q Q) CreateEnvironment(ctx context.Context, e *model.Environment) error {
	now := q.Now()
	e.CreatedAt, e.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO environments (repo_id, name, lower_name, wait_timer, prevent_self_review, reviewers, branch_policy,
 created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)`, e.RepoID, e.Name, strings.ToLower(e.Name), e.WaitTimer, e.PreventSelfReview,
		reviewersColumn(e.Reviewers), e.BranchPolicy, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	e.ID = id
	return err
}

// UpdateEnvironment writes e's protection rules and its update time.
func (q Q) UpdateEnvironment(ctx context.Context, e *model.Environment) error {
	e.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE environments SET wait_timer = ?, prevent_self_review = ?, reviewers = ?, branch_policy = ?, updated_at = ?
 WHERE id = ?`, e.WaitTimer, e.PreventSelfReview, reviewersColumn(e.Reviewers), e.BranchPolicy, unix(e.UpdatedAt), e.ID)
	return err
}

// DeleteEnvironment removes an environment with its branch policies and
// variables (foreign keys cascade).
func (q Q) DeleteEnvironment(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM environments WHERE id = ?`, id)
	return err
}

// TouchEnvironment sets an environment's update time.
func (q Q) TouchEnvironment(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `UPDATE environments SET updated_at = ? WHERE id = ?`, unix(q.Now()), id)
	return err
}

const branchPolicySelect = `SELECT id, environment_id, name, type FROM deployment_branch_policies`

func scanBranchPolicy(sc rowScanner) (*model.DeploymentBranchPolicy, error) {
	var p model.DeploymentBranchPolicy
	if err := sc.Scan(&p.ID, &p.EnvironmentID, &p.Name, &p.Type); err != nil {
		return nil, err
	}
	return &p, nil
}

// BranchPolicies is one page of an environment's branch policies (by id)
// and their count; limit < 0 lists them all.
func (q Q) BranchPolicies(ctx context.Context, envID int64, limit, offset int) ([]*model.DeploymentBranchPolicy, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM deployment_branch_policies WHERE environment_id = ?`, envID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, branchPolicySelect+` WHERE environment_id = ? ORDER BY id LIMIT ? OFFSET ?`, envID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.DeploymentBranchPolicy
	for rows.Next() {
		p, err := scanBranchPolicy(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	return out, total, rows.Err()
}

// BranchPolicy is one of an environment's branch policies.
func (q Q) BranchPolicy(ctx context.Context, envID, id int64) (*model.DeploymentBranchPolicy, error) {
	return orNotFound(scanBranchPolicy(q.row(ctx, branchPolicySelect+` WHERE environment_id = ? AND id = ?`, envID, id)))
}

// CreateBranchPolicy inserts p and sets its id; ErrDuplicate when the
// environment has the same pattern for the same type.
func (q Q) CreateBranchPolicy(ctx context.Context, p *model.DeploymentBranchPolicy) error {
	id, err := q.insert(ctx, `INSERT INTO deployment_branch_policies (environment_id, name, type) VALUES (?,?,?)`, p.EnvironmentID, p.Name, p.Type)
	if isUnique(err) {
		return ErrDuplicate
	}
	p.ID = id
	return err
}

// UpdateBranchPolicy writes p's name pattern; ErrDuplicate as
// CreateBranchPolicy.
func (q Q) UpdateBranchPolicy(ctx context.Context, p *model.DeploymentBranchPolicy) error {
	_, err := q.exec(ctx, `UPDATE deployment_branch_policies SET name = ? WHERE id = ?`, p.Name, p.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// DeleteBranchPolicy removes a branch policy.
func (q Q) DeleteBranchPolicy(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM deployment_branch_policies WHERE id = ?`, id)
	return err
}

// DeleteBranchPolicies removes every branch policy of an environment.
func (q Q) DeleteBranchPolicies(ctx context.Context, envID int64) error {
	_, err := q.exec(ctx, `DELETE FROM deployment_branch_policies WHERE environment_id = ?`, envID)
	return err
}

// orNotFound is a scanned row, or model.ErrNotFound when there was none.
func orNotFound[T any](v T, err error) (T, error) {
	return v, notFound(err)
}
