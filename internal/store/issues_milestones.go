package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

var milestoneSelect = `SELECT m.id, m.repo_id, m.number, m.title, m.description, m.state, m.due_on, m.creator_id,
 m.open_issues, m.closed_issues, m.created_at, m.updated_at, m.closed_at, ` + slim("a") + `
 FROM milestones m LEFT JOIN accounts a ON a.id = m.creator_id`

func scanMilestone(sc scanner) (*model.Milestone, error) {
	m := &model.Milestone{}
	var desc sql.NullString
	var due, creator, closed sql.NullInt64
	var created, updated int64
	var a slimAccount
	dest := append([]any{&m.ID, &m.RepoID, &m.Number, &m.Title, &desc, &m.State, &due, &creator,
		&m.OpenIssues, &m.ClosedIssues, &created, &updated, &closed}, a.dest()...)
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	m.Description, m.DueOn, m.CreatorID = nullStr(desc), fromNullUnix(due), creator.Int64
	m.CreatedAt, m.UpdatedAt, m.ClosedAt = fromUnix(created), fromUnix(updated), fromNullUnix(closed)
	m.Creator = a.account()
	return m, nil
}

func (q Q) milestones(ctx context.Context, query string, args ...any) ([]*model.Milestone, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Milestone{}
	for rows.Next() {
		m, err := scanMilestone(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (q Q) milestonesByID(ctx context.Context, ids []int64) (map[int64]*model.Milestone, error) {
	in, args := inList(ids)
	list, err := q.milestones(ctx, milestoneSelect+` WHERE m.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*model.Milestone, len(list))
	for _, m := range list {
		out[m.ID] = m
	}
	return out, nil
}

// MilestoneByNumber finds a repository's milestone.
func (q Q) MilestoneByNumber(ctx context.Context, repoID, number int64) (*model.Milestone, error) {
	m, err := scanMilestone(q.row(ctx, milestoneSelect+` WHERE m.repo_id = ? AND m.number = ?`, repoID, number))
	return m, notFound(err)
}

// CreateMilestone inserts a milestone with the repository's next milestone
// number; ErrDuplicate when the title is taken (ignoring case).
func (q Q) CreateMilestone(ctx context.Context, m *model.Milestone) error {
	err := q.row(ctx, `INSERT INTO issue_counters (repo_id, last_milestone) VALUES (?, 1)
 ON CONFLICT (repo_id) DO UPDATE SET last_milestone = issue_counters.last_milestone + 1 RETURNING last_milestone`, m.RepoID).Scan(&m.Number)
	if err != nil {
		return err
	}
	now := q.Now()
	m.CreatedAt, m.UpdatedAt = now, now
	if m.State == "closed" {
		m.ClosedAt = &now
	}
	id, err := q.insert(ctx, `INSERT INTO milestones (repo_id, number, title, lower_title, description, state, due_on, creator_id,
 created_at, updated_at, closed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		m.RepoID, m.Number, m.Title, strings.ToLower(m.Title), strOrNil(m.Description), m.State, nullUnix(m.DueOn),
		idOrNil(m.CreatorID), unix(now), unix(now), nullUnix(m.ClosedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	m.ID = id
	return err
}

// UpdateMilestone writes a milestone's title, description, state and due
// date; ErrDuplicate when the title is taken.
func (q Q) UpdateMilestone(ctx context.Context, m *model.Milestone) error {
	m.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE milestones SET title = ?, lower_title = ?, description = ?, state = ?, due_on = ?,
 closed_at = ?, updated_at = ? WHERE id = ?`, m.Title, strings.ToLower(m.Title), strOrNil(m.Description), m.State,
		nullUnix(m.DueOn), nullUnix(m.ClosedAt), unix(m.UpdatedAt), m.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// DeleteMilestone removes a milestone; its issues lose it.
func (q Q) DeleteMilestone(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM milestones WHERE id = ?`, id)
	return err
}

// MilestoneQuery selects milestones for a list.
type MilestoneQuery struct {
	RepoID        int64
	State         string // open (default), closed, all
	Sort          string // due_on (default), completeness
	Desc          bool
	Limit, Offset int
}

// ListMilestones returns one page of a repository's milestones and their
// count.
func (q Q) ListMilestones(ctx context.Context, f MilestoneQuery) ([]*model.Milestone, int, error) {
	where := ` WHERE m.repo_id = ?`
	args := []any{f.RepoID}
	switch f.State {
	case "closed", "open":
		where, args = where+` AND m.state = ?`, append(args, f.State)
	case "all":
	default:
		where += ` AND m.state = 'open'`
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM milestones m`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	// Milestones without a due date come last, as on GitHub.
	order := ` ORDER BY CASE WHEN m.due_on IS NULL THEN 1 ELSE 0 END, m.due_on` + dir + `, m.number` + dir
	if f.Sort == "completeness" {
		order = ` ORDER BY CASE WHEN m.open_issues + m.closed_issues = 0 THEN 0.0
 ELSE CAST(m.closed_issues AS DOUBLE PRECISION) / (m.open_issues + m.closed_issues) END` + dir + `, m.number` + dir
	}
	list, err := q.milestones(ctx, milestoneSelect+where+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return list, total, err
}

// MilestoneByID finds a milestone by id.
func (q Q) MilestoneByID(ctx context.Context, id int64) (*model.Milestone, error) {
	m, err := scanMilestone(q.row(ctx, milestoneSelect+` WHERE m.id = ?`, id))
	return m, notFound(err)
}
