package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

const labelCols = `l.id, l.repo_id, l.name, l.color, l.description, l.is_default, l.created_at, l.updated_at`

func scanLabel(sc scanner) (*model.Label, error) {
	l := &model.Label{}
	var desc sql.NullString
	var created, updated int64
	if err := sc.Scan(&l.ID, &l.RepoID, &l.Name, &l.Color, &desc, &l.Default, &created, &updated); err != nil {
		return nil, err
	}
	l.Description = nullStr(desc)
	l.CreatedAt, l.UpdatedAt = fromUnix(created), fromUnix(updated)
	return l, nil
}

func (q Q) labels(ctx context.Context, query string, args ...any) ([]*model.Label, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Label{}
	for rows.Next() {
		l, err := scanLabel(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// DefaultLabels are the labels GitHub gives every new repository.
var DefaultLabels = []model.Label{
	{Name: "bug", Color: "d73a4a", Description: ptrStr("Something isn't working")},
	{Name: "documentation", Color: "0075ca", Description: ptrStr("Improvements or additions to documentation")},
	{Name: "duplicate", Color: "cfd3d7", Description: ptrStr("This issue or pull request already exists")},
	{Name: "enhancement", Color: "a2eeef", Description: ptrStr("New feature or request")},
	{Name: "good first issue", Color: "7057ff", Description: ptrStr("Good for newcomers")},
	{Name: "help wanted", Color: "008672", Description: ptrStr("Extra attention is needed")},
	{Name: "invalid", Color: "e4e669", Description: ptrStr("This doesn't seem right")},
	{Name: "question", Color: "d876e3", Description: ptrStr("Further information is requested")},
	{Name: "wontfix", Color: "ffffff", Description: ptrStr("This will not be worked on")},
}

func ptrStr(s string) *string { return &s }

// CreateDefaultLabels gives a new repository GitHub's default labels; the
// repository creation calls it in its transaction.
func (q Q) CreateDefaultLabels(ctx context.Context, repoID int64) error {
	for _, d := range DefaultLabels {
		l := d
		l.RepoID, l.Default = repoID, true
		if err := q.CreateLabel(ctx, &l); err != nil {
			return err
		}
	}
	return nil
}

// CreateLabel inserts a label; ErrDuplicate when the repository has one of
// that name, ignoring case.
func (q Q) CreateLabel(ctx context.Context, l *model.Label) error {
	now := q.Now()
	l.CreatedAt, l.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO labels (repo_id, name, lower_name, color, description, is_default, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?)`, l.RepoID, l.Name, strings.ToLower(l.Name), l.Color, strOrNil(l.Description), l.Default, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	l.ID = id
	return err
}

// UpdateLabel writes a label's name, colour and description; ErrDuplicate
// when the new name is taken.
func (q Q) UpdateLabel(ctx context.Context, l *model.Label) error {
	l.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE labels SET name = ?, lower_name = ?, color = ?, description = ?, updated_at = ? WHERE id = ?`,
		l.Name, strings.ToLower(l.Name), l.Color, strOrNil(l.Description), unix(l.UpdatedAt), l.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// DeleteLabel removes a label from the repository and from its issues.
func (q Q) DeleteLabel(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM labels WHERE id = ?`, id)
	return err
}

// LabelByName finds a repository's label by name, ignoring case.
func (q Q) LabelByName(ctx context.Context, repoID int64, name string) (*model.Label, error) {
	l, err := scanLabel(q.row(ctx, `SELECT `+labelCols+` FROM labels l WHERE l.repo_id = ? AND l.lower_name = ?`, repoID, strings.ToLower(name)))
	return l, notFound(err)
}

// LabelsByName finds a repository's labels by name, ignoring case; the
// result maps lowercased names to labels (unknown names are absent).
func (q Q) LabelsByName(ctx context.Context, repoID int64, names []string) (map[string]*model.Label, error) {
	out := map[string]*model.Label{}
	if len(names) == 0 {
		return out, nil
	}
	args := []any{repoID}
	for _, n := range names {
		args = append(args, strings.ToLower(n))
	}
	list, err := q.labels(ctx, `SELECT `+labelCols+` FROM labels l WHERE l.repo_id = ? AND l.lower_name IN (`+
		strings.TrimSuffix(strings.Repeat("?,", len(names)), ",")+`)`, args...)
	if err != nil {
		return nil, err
	}
	for _, l := range list {
		out[strings.ToLower(l.Name)] = l
	}
	return out, nil
}

// ListLabels returns one page of a repository's labels by name, and their
// count.
func (q Q) ListLabels(ctx context.Context, repoID int64, limit, offset int) ([]*model.Label, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM labels WHERE repo_id = ?`, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.labels(ctx, `SELECT `+labelCols+` FROM labels l WHERE l.repo_id = ? ORDER BY l.lower_name, l.id LIMIT ? OFFSET ?`,
		repoID, limit, offset)
	return list, total, err
}

// IssueLabels lists an issue's labels by name.
func (q Q) IssueLabels(ctx context.Context, issueID int64) ([]*model.Label, error) {
	return q.labels(ctx, `SELECT `+labelCols+` FROM issue_labels il JOIN labels l ON l.id = il.label_id
 WHERE il.issue_id = ? ORDER BY l.lower_name, l.id`, issueID)
}

// ListIssueLabels returns one page of an issue's labels and their count.
func (q Q) ListIssueLabels(ctx context.Context, issueID int64, limit, offset int) ([]*model.Label, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM issue_labels WHERE issue_id = ?`, issueID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.labels(ctx, `SELECT `+labelCols+` FROM issue_labels il JOIN labels l ON l.id = il.label_id
 WHERE il.issue_id = ? ORDER BY l.lower_name, l.id LIMIT ? OFFSET ?`, issueID, limit, offset)
	return list, total, err
}

// AddIssueLabel puts a label on an issue; it reports false when it was
// already there.
func (q Q) AddIssueLabel(ctx context.Context, issueID, labelID int64) (bool, error) {
	res, err := q.exec(ctx, `INSERT INTO issue_labels (issue_id, label_id, created_at) VALUES (?,?,?) ON CONFLICT DO NOTHING`,
		issueID, labelID, unix(q.Now()))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// RemoveIssueLabel takes a label off an issue; it reports false when it was
// not there.
func (q Q) RemoveIssueLabel(ctx context.Context, issueID, labelID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM issue_labels WHERE issue_id = ? AND label_id = ?`, issueID, labelID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ListMilestoneLabels returns one page of the labels of a milestone's
// issues, and their count.
func (q Q) ListMilestoneLabels(ctx context.Context, milestoneID int64, limit, offset int) ([]*model.Label, int, error) {
	const sub = `SELECT DISTINCT il.label_id FROM issues i JOIN issue_labels il ON il.issue_id = i.id WHERE i.milestone_id = ?`
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM (`+sub+`) x`, milestoneID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.labels(ctx, `SELECT `+labelCols+` FROM labels l WHERE l.id IN (`+sub+`) ORDER BY l.lower_name, l.id LIMIT ? OFFSET ?`,
		milestoneID, limit, offset)
	return list, total, err
}
