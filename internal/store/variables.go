package store

import (
	"context"
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Configuration variables (owned by internal/variables) of organizations,
// repositories and environments, for Actions and for coding agents. Names
// are stored upper case; the scope column makes (kind, scope, name)
// unique whatever the level.

// variableScope is the scope column of a variable's owner: its
// environment, else its repository, else its organization.
func variableScope(orgID, repoID, envID int64) string {
	switch {
	case envID != 0:
		return "e:" + strconv.FormatInt(envID, 10)
	case repoID != 0:
		return "r:" + strconv.FormatInt(repoID, 10)
	}
	return "o:" + strconv.FormatInt(orgID, 10)
}

const variableSelect = `SELECT v.id, v.kind, COALESCE(v.org_id, 0), COALESCE(v.repo_id, 0), COALESCE(v.environment_id, 0), v.name, v.value,
 v.visibility, v.created_at, v.updated_at FROM variables v`

func scanVariable(sc rowScanner) (*model.Variable, error) {
	var v model.Variable
	var created, updated int64
	if err := sc.Scan(&v.ID, &v.Kind, &v.OrgID, &v.RepoID, &v.EnvironmentID, &v.Name, &v.Value, &v.Visibility, &created, &updated); err != nil {
		return nil, err
	}
	v.CreatedAt, v.UpdatedAt = fromUnix(created), fromUnix(updated)
	return &v, nil
}

func (q Q) variables(ctx context.Context, query string, args ...any) ([]*model.Variable, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.Variable
	for rows.Next() {
		v, err := scanVariable(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Variable is a variable of a scope (orgID, repoID, envID as the
// model's) by its upper-case name.
func (q Q) Variable(ctx context.Context, kind string, orgID, repoID, envID int64, name string) (*model.Variable, error) {
	return orNotFound(scanVariable(q.row(ctx, variableSelect+` WHERE v.kind = ? AND v.scope = ? AND v.name = ?`,
		kind, variableScope(orgID, repoID, envID), name)))
}

// Variables is one page of a scope's variables (by name) and their count.
func (q Q) Variables(ctx context.Context, kind string, orgID, repoID, envID int64, limit, offset int) ([]*model.Variable, int, error) {
	scope := variableScope(orgID, repoID, envID)
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM variables WHERE kind = ? AND scope = ?`, kind, scope).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.variables(ctx, variableSelect+` WHERE v.kind = ? AND v.scope = ? ORDER BY v.name LIMIT ? OFFSET ?`, kind, scope, limit, offset)
	return list, total, err
}

// orgVariablesFor is the condition of an organization's variables that
// a repository (private or not) may use: visibility all, private for a
// private repository, selected when the repository is selected.
const orgVariablesFor = `v.kind = ? AND v.scope = ? AND (v.visibility = 'all' OR (v.visibility = 'private' AND ?)
 OR (v.visibility = 'selected' AND EXISTS (SELECT 1 FROM variable_repos s WHERE s.variable_id = v.id AND s.repo_id = ?)))`

// OrgVariablesFor is one page of the organization variables shared with a
// repository (by name) and their count.
func (q Q) OrgVariablesFor(ctx context.Context, kind string, orgID, repoID int64, private bool, limit, offset int) ([]*model.Variable, int, error) {
	args := []any{kind, variableScope(orgID, 0, 0), private, repoID}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM variables v WHERE `+orgVariablesFor, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.variables(ctx, variableSelect+` WHERE `+orgVariablesFor+` ORDER BY v.name LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// RunVariables are every variable a job of a repository may see, in one
// query: its organization's shared with it (orgID 0: none), its own, and
// its environment's (envID 0: none).
func (q Q) RunVariables(ctx context.Context, kind string, orgID, repoID int64, private bool, envID int64) ([]*model.Variable, error) {
	return q.variables(ctx, variableSelect+` WHERE (`+orgVariablesFor+`) OR (v.kind = ? AND v.scope IN (?, ?)) ORDER BY v.name`,
		kind, variableScope(orgID, 0, 0), private, repoID, kind, variableScope(0, repoID, 0), variableScope(0, 0, envID))
}

// CreateVariable inserts v and sets its id and times; ErrDuplicate when
// its scope has a variable of that name.
func (q Q) CreateVariable(ctx context.Context, v *model.Variable) error {
	now := q.Now()
	v.CreatedAt, v.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO variables (kind, scope, org_id, repo_id, environment_id, name, value, visibility, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?,?)`, v.Kind, variableScope(v.OrgID, v.RepoID, v.EnvironmentID), idOrNil(v.OrgID), idOrNil(v.RepoID),
		idOrNil(v.EnvironmentID), v.Name, v.Value, v.Visibility, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	v.ID = id
	return err
}

// UpdateVariable writes v's name, value and visibility; ErrDuplicate as
// CreateVariable.
func (q Q) UpdateVariable(ctx context.Context, v *model.Variable) error {
	v.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE variables SET name = ?, value = ?, visibility = ?, updated_at = ? WHERE id = ?`,
		v.Name, v.Value, v.Visibility, unix(v.UpdatedAt), v.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// DeleteVariable removes a variable with its selected repositories.
func (q Q) DeleteVariable(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM variables WHERE id = ?`, id)
	return err
}

// VariableRepoIDs is one page of the repositories selected for an
// organization variable (by id) and their count.
func (q Q) VariableRepoIDs(ctx context.Context, variableID int64, limit, offset int) ([]int64, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM variable_repos WHERE variable_id = ?`, variableID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT repo_id FROM variable_repos WHERE variable_id = ? ORDER BY repo_id LIMIT ? OFFSET ?`, variableID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		out = append(out, id)
	}
	return out, total, rows.Err()
}

// SetVariableRepos replaces the repositories selected for a variable.
func (q Q) SetVariableRepos(ctx context.Context, variableID int64, repoIDs []int64) error {
	if _, err := q.exec(ctx, `DELETE FROM variable_repos WHERE variable_id = ?`, variableID); err != nil {
		return err
	}
	for _, id := range repoIDs {
		if err := q.AddVariableRepo(ctx, variableID, id); err != nil {
			return err
		}
	}
	return nil
}

// AddVariableRepo selects a repository for a variable (again: no change).
func (q Q) AddVariableRepo(ctx context.Context, variableID, repoID int64) error {
	_, err := q.exec(ctx, `INSERT INTO variable_repos (variable_id, repo_id) VALUES (?,?) ON CONFLICT DO NOTHING`, variableID, repoID)
	return err
}

// RemoveVariableRepo unselects a repository (not selected: no change).
func (q Q) RemoveVariableRepo(ctx context.Context, variableID, repoID int64) error {
	_, err := q.exec(ctx, `DELETE FROM variable_repos WHERE variable_id = ? AND repo_id = ?`, variableID, repoID)
	return err
}
