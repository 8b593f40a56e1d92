package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

// Commit statuses: one row per report; creators come in the same query
// through a join, so lists make one round trip.

const statusSelect = `SELECT s.id, s.repo_id, s.sha, s.state, s.context, s.description, s.target_url,
 s.creator_id, s.created_at, s.updated_at, ` + `u.id, u.login, u.type, u.site_admin
 FROM commit_statuses s LEFT JOIN accounts u ON u.id = s.creator_id`

func (q Q) statuses(ctx context.Context, query string, args ...any) ([]*model.CommitStatus, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.CommitStatus{}
	for rows.Next() {
		s := &model.CommitStatus{}
		var desc, target sql.NullString
		var creator sql.NullInt64
		var state string
		var created, updated int64
		var u slimAccount
		dest := append([]any{&s.ID, &s.RepoID, &s.SHA, &state, &s.Context, &desc, &target, &creator, &created, &updated}, u.dest()...)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		s.State, s.Description, s.TargetURL = model.StatusState(state), nullStr(desc), nullStr(target)
		s.CreatorID, s.Creator = creator.Int64, u.account()
		s.CreatedAt, s.UpdatedAt = fromUnix(created), fromUnix(updated)
		out = append(out, s)
	}
	return out, rows.Err()
}

// CreateCommitStatus inserts s, setting its id and times.
func (q Q) CreateCommitStatus(ctx context.Context, s *model.CommitStatus) error {
	now := q.Now()
	id, err := q.insert(ctx, `INSERT INTO commit_statuses (repo_id, sha, state, context, description, target_url, creator_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)`,
		s.RepoID, s.SHA, string(s.State), s.Context, strOrNil(s.Description), strOrNil(s.TargetURL), idOrNil(s.CreatorID), unix(now), unix(now))
	if err != nil {
		return err
	}
	s.ID, s.CreatedAt, s.UpdatedAt = id, fromUnix(unix(now)), fromUnix(unix(now))
	return nil
}

// CommitStatusByID is one status with its creator.
func (q Q) CommitStatusByID(ctx context.Context, id int64) (*model.CommitStatus, error) {
	list, err := q.statuses(ctx, statusSelect+` WHERE s.id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// CountCommitStatusesForContext counts the statuses of one sha and context
// (GitHub keeps at most 1000 of them).
func (q Q) CountCommitStatusesForContext(ctx context.Context, repoID int64, sha, name string) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM commit_statuses WHERE repo_id = ? AND sha = ? AND context = ?`, repoID, sha, name).Scan(&n)
	return n, err
}

// CommitStatuses is a page of the statuses of a commit, newest first, and
// how many there are in all.
func (q Q) CommitStatuses(ctx context.Context, repoID int64, sha string, limit, offset int) ([]*model.CommitStatus, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM commit_statuses WHERE repo_id = ? AND sha = ?`, repoID, sha).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 {
		return []*model.CommitStatus{}, 0, nil
	}
	list, err := q.statuses(ctx, statusSelect+` WHERE s.repo_id = ? AND s.sha = ? ORDER BY s.id DESC LIMIT ? OFFSET ?`,
		repoID, sha, limit, offset)
	return list, total, err
}

// latestWhere picks the newest status of each context of a commit.
const latestWhere = ` WHERE s.repo_id = ? AND s.sha = ? AND s.id = (SELECT MAX(x.id) FROM commit_statuses x
 WHERE x.repo_id = s.repo_id AND x.sha = s.sha AND x.context = s.context)`

// LatestCommitStatuses is a page of the newest status of each context of a
// commit (newest first) and the number of contexts.
func (q Q) LatestCommitStatuses(ctx context.Context, repoID int64, sha string, limit, offset int) ([]*model.CommitStatus, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(DISTINCT context) FROM commit_statuses WHERE repo_id = ? AND sha = ?`, repoID, sha).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 {
		return []*model.CommitStatus{}, 0, nil
	}
	list, err := q.statuses(ctx, statusSelect+latestWhere+` ORDER BY s.id DESC LIMIT ? OFFSET ?`, repoID, sha, limit, offset)
	return list, total, err
}

// LatestCommitStatusStates counts the newest status of each context of a
// commit by state: the combined state looks at every context, not only the
// page shown.
func (q Q) LatestCommitStatusStates(ctx context.Context, repoID int64, sha string) (map[model.StatusState]int, error) {
	rows, err := q.query(ctx, `SELECT s.state, COUNT(*) FROM commit_statuses s`+latestWhere+` GROUP BY s.state`, repoID, sha)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[model.StatusState]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[model.StatusState(st)] = n
	}
	return out, rows.Err()
}
