package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hubd/hubd/internal/model"
)

const codespaceCols = `id, name, display_name, environment_id, owner_id, repo_id, ref, pull_number, machine, devcontainer_path, location,
 state, token_id, idle_timeout_minutes, retention_period_minutes, recent_folders, notes, created_once, ahead, behind,
 has_uncommitted, has_unpushed, head_sha, published_repo_id, created_at, updated_at, last_used_at, stopped_at`

func scanCodespace(sc scanner) (*model.Codespace, error) {
	c := &model.Codespace{}
	var folders string
	var created, updated, used, stopped int64
	if err := sc.Scan(&c.ID, &c.Name, &c.DisplayName, &c.EnvironmentID, &c.OwnerID, &c.RepoID, &c.Ref, &c.PullNumber, &c.Machine,
		&c.DevcontainerPath, &c.Location, &c.State, &c.TokenID, &c.IdleTimeout, &c.Retention, &folders, &c.Notes, &c.CreatedOnce,
		&c.Ahead, &c.Behind, &c.Uncommitted, &c.Unpushed, &c.HeadSHA, &c.PublishedRepoID, &created, &updated, &used, &stopped); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(folders), &c.RecentFolders); err != nil || c.RecentFolders == nil {
		c.RecentFolders = []string{}
	}
	c.CreatedAt, c.UpdatedAt, c.LastUsedAt = fromUnix(created), fromUnix(updated), fromUnix(used)
	if stopped != 0 {
		c.StoppedAt = fromUnix(stopped)
	}
	return c, nil
}

func folderJSON(f []string) string {
	if f == nil {
		f = []string{}
	}
	b, _ := json.Marshal(f)
	return string(b)
}

// CreateCodespace inserts a codespace; ErrDuplicate when its name is taken.
func (q Q) CreateCodespace(ctx context.Context, c *model.Codespace) error {
	now := q.Now()
	c.CreatedAt, c.UpdatedAt, c.LastUsedAt = now, now, now
	id, err := q.insert(ctx, `INSERT INTO codespaces (name, display_name, environment_id, owner_id, repo_id, ref, pull_number, machine,
 devcontainer_path, location, state, idle_timeout_minutes, retention_period_minutes, recent_folders, notes, created_at, updated_at, last_used_at)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, c.Name, c.DisplayName, c.EnvironmentID, c.OwnerID, c.RepoID, c.Ref, c.PullNumber, c.Machine,
		c.DevcontainerPath, c.Location, c.State, c.IdleTimeout, c.Retention, folderJSON(c.RecentFolders), c.Notes, unix(now), unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	c.ID = id
	return err
}

// CodespaceByName finds a codespace by its name.
func (q Q) CodespaceByName(ctx context.Context, name string) (*model.Codespace, error) {
	c, err := scanCodespace(q.row(ctx, `SELECT `+codespaceCols+` FROM codespaces WHERE name = ?`, name))
	return c, notFound(err)
}

// CodespaceFilter selects the codespaces of a list: an owner's (OwnerID),
// optionally in one repository (RepoID), or those of repositories owned by
// an organization (OrgID), optionally one member's.
type CodespaceFilter struct {
	OwnerID, RepoID, OrgID int64
}

func (f CodespaceFilter) where() (string, []any) {
	w, args := ` WHERE 1 = 1`, []any{}
	if f.OwnerID != 0 {
		w += ` AND owner_id = ?`
		args = append(args, f.OwnerID)
	}
	if f.RepoID != 0 {
		w += ` AND repo_id = ?`
		args = append(args, f.RepoID)
	}
	if f.OrgID != 0 {
		w += ` AND repo_id IN (SELECT id FROM repos WHERE owner_id = ?)`
		args = append(args, f.OrgID)
	}
	return w, args
}

// Codespaces lists a page of codespaces, newest first, and how many match.
func (q Q) Codespaces(ctx context.Context, f CodespaceFilter, limit, offset int) ([]*model.Codespace, int, error) {
	w, args := f.where()
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM codespaces`+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+codespaceCols+` FROM codespaces`+w+` ORDER BY id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.Codespace{}
	for rows.Next() {
		c, err := scanCodespace(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

// UpdateCodespace writes a codespace's changeable fields but its state
// (SetCodespaceState moves that, from the states expected).
func (q Q) UpdateCodespace(ctx context.Context, c *model.Codespace) error {
	c.UpdatedAt = q.Now()
	var stopped int64
	if !c.StoppedAt.IsZero() {
		stopped = unix(c.StoppedAt)
	}
	res, err := q.exec(ctx, `UPDATE codespaces SET display_name = ?, machine = ?, token_id = ?, recent_folders = ?, notes = ?,
 created_once = ?, ahead = ?, behind = ?, has_uncommitted = ?, has_unpushed = ?, head_sha = ?, published_repo_id = ?, repo_id = ?, ref = ?, pull_number = ?,
 devcontainer_path = ?, updated_at = ?, last_used_at = ?, stopped_at = ? WHERE id = ?`,
		c.DisplayName, c.Machine, c.TokenID, folderJSON(c.RecentFolders), c.Notes, c.CreatedOnce, c.Ahead, c.Behind, c.Uncommitted,
		c.Unpushed, c.HeadSHA, c.PublishedRepoID, c.RepoID, c.Ref, c.PullNumber, c.DevcontainerPath, unix(c.UpdatedAt), unix(c.LastUsedAt), stopped, c.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// SetCodespaceState moves a codespace from one of states from to state to;
// false when it was in none of them (another operation moved it).
func (q Q) SetCodespaceState(ctx context.Context, id int64, to string, from ...string) (bool, error) {
	query, args := `UPDATE codespaces SET state = ?, updated_at = ? WHERE id = ?`, []any{to, unix(q.Now()), id}
	if len(from) > 0 {
		query += ` AND state IN (?` + repeatArgs(len(from)-1) + `)`
		for _, s := range from {
			args = append(args, s)
		}
	}
	res, err := q.exec(ctx, query, args...)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func repeatArgs(n int) string {
	s := ""
	for range n {
		s += ",?"
	}
	return s
}

// DeleteCodespace removes a codespace's row (and its exports).
func (q Q) DeleteCodespace(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM codespaces WHERE id = ?`, id)
	return err
}

// CodespacesIdleSince lists running codespaces whose idle timeout ran out
// by now, and stopped ones whose retention ran out.
func (q Q) CodespacesDue(ctx context.Context, now time.Time) (idle, expired []*model.Codespace, err error) {
	n := unix(now)
	load := func(query string, args ...any) ([]*model.Codespace, error) {
		rows, err := q.query(ctx, `SELECT `+codespaceCols+` FROM codespaces WHERE `+query+` ORDER BY id LIMIT 500`, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []*model.Codespace
		for rows.Next() {
			c, err := scanCodespace(rows)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, rows.Err()
	}
	if idle, err = load(`state = ? AND last_used_at + idle_timeout_minutes * 60 <= ?`, model.CodespaceAvailable, n); err != nil {
		return nil, nil, err
	}
	expired, err = load(`state = ? AND stopped_at > 0 AND stopped_at + retention_period_minutes * 60 <= ?`, model.CodespaceShutdown, n)
	return idle, expired, err
}

// CreateCodespaceExport inserts an export in progress.
func (q Q) CreateCodespaceExport(ctx context.Context, e *model.CodespaceExport) error {
	e.CreatedAt = q.Now()
	id, err := q.insert(ctx, `INSERT INTO codespace_exports (codespace_id, state, branch, created_at) VALUES (?,?,?,?)`,
		e.CodespaceID, e.State, e.Branch, unix(e.CreatedAt))
	e.ID = id
	return err
}

// FinishCodespaceExport records how an export ended.
func (q Q) FinishCodespaceExport(ctx context.Context, e *model.CodespaceExport) error {
	e.CompletedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE codespace_exports SET state = ?, branch = ?, sha = ?, repo_id = ?, message = ?, completed_at = ? WHERE id = ?`,
		e.State, e.Branch, e.SHA, e.RepoID, e.Message, unix(e.CompletedAt), e.ID)
	return err
}

// CodespaceExport finds a codespace's export by id, or its latest when id
// is 0.
func (q Q) CodespaceExport(ctx context.Context, codespaceID, id int64) (*model.CodespaceExport, error) {
	query, args := `SELECT id, codespace_id, state, branch, sha, repo_id, message, created_at, completed_at FROM codespace_exports WHERE codespace_id = ?`, []any{codespaceID}
	if id != 0 {
		query += ` AND id = ?`
		args = append(args, id)
	}
	query += ` ORDER BY id DESC LIMIT 1`
	e := &model.CodespaceExport{}
	var created, completed int64
	err := q.row(ctx, query, args...).Scan(&e.ID, &e.CodespaceID, &e.State, &e.Branch, &e.SHA, &e.RepoID, &e.Message, &created, &completed)
	if err != nil {
		return nil, notFound(err)
	}
	e.CreatedAt = fromUnix(created)
	if completed != 0 {
		e.CompletedAt = fromUnix(completed)
	}
	return e, nil
}
