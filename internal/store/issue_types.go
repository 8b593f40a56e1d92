package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Organizations' issue types, the type of each issue, and the issues
// pinned to their repositories.

const issueTypeSelect = `SELECT id, org_id, name, description, color, is_enabled, created_at, updated_at FROM issue_types`

func scanIssueType(r rowScanner) (*model.IssueType, error) {
	t := &model.IssueType{}
	var desc, color sql.NullString
	var created, updated int64
	if err := r.Scan(&t.ID, &t.OrgID, &t.Name, &desc, &color, &t.Enabled, &created, &updated); err != nil {
		return nil, err
	}
	t.Description, t.Color = nullStr(desc), nullStr(color)
	t.CreatedAt, t.UpdatedAt = fromUnix(created), fromUnix(updated)
	return t, nil
}

func (q Q) issueTypes(ctx context.Context, query string, args ...any) ([]*model.IssueType, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.IssueType
	for rows.Next() {
		t, err := scanIssueType(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// IssueTypes lists an organization's issue types in creation order
// (enabledOnly: those its repositories offer).
func (q Q) IssueTypes(ctx context.Context, orgID int64, enabledOnly bool) ([]*model.IssueType, error) {
	where := ` WHERE org_id = ?`
	if enabledOnly {
		where += ` AND is_enabled = TRUE`
	}
	return q.issueTypes(ctx, issueTypeSelect+where+` ORDER BY id`, orgID)
}

// IssueTypeByID finds an issue type.
func (q Q) IssueTypeByID(ctx context.Context, id int64) (*model.IssueType, error) {
	t, err := scanIssueType(q.row(ctx, issueTypeSelect+` WHERE id = ?`, id))
	return t, notFound(err)
}

// IssueTypeByName finds an organization's issue type by name, ignoring case.
func (q Q) IssueTypeByName(ctx context.Context, orgID int64, name string) (*model.IssueType, error) {
	t, err := scanIssueType(q.row(ctx, issueTypeSelect+` WHERE org_id = ? AND lower_name = ?`, orgID, strings.ToLower(name)))
	return t, notFound(err)
}

// CreateIssueType inserts t; ErrDuplicate when the organization has a type
// of that name.
func (q Q) CreateIssueType(ctx context.Context, t *model.IssueType) error {
	now := q.Now()
	t.CreatedAt, t.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO issue_types (org_id, name, lower_name, description, color, is_enabled, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?)`, t.OrgID, t.Name, strings.ToLower(t.Name), strOrNil(t.Description), strOrNil(t.Color), t.Enabled, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	t.ID = id
	return err
}

// UpdateIssueType stores t's fields; ErrDuplicate on a name taken.
func (q Q) UpdateIssueType(ctx context.Context, t *model.IssueType) error {
	t.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE issue_types SET name = ?, lower_name = ?, description = ?, color = ?, is_enabled = ?, updated_at = ? WHERE id = ?`,
		t.Name, strings.ToLower(t.Name), strOrNil(t.Description), strOrNil(t.Color), t.Enabled, unix(t.UpdatedAt), t.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// DeleteIssueType deletes an issue type; the issues of that type lose it.
func (q Q) DeleteIssueType(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM issue_type_of WHERE type_id = ?`, id); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM issue_types WHERE id = ?`, id)
	return err
}

// SetIssueType gives an issue type typeID (0: none) and touches the issue.
func (q Q) SetIssueType(ctx context.Context, issueID, typeID int64) error {
	if _, err := q.exec(ctx, `DELETE FROM issue_type_of WHERE issue_id = ?`, issueID); err != nil {
		return err
	}
	if typeID != 0 {
		if _, err := q.exec(ctx, `INSERT INTO issue_type_of (issue_id, type_id) VALUES (?, ?)`, issueID, typeID); err != nil {
			return err
		}
	}
	_, err := q.exec(ctx, `UPDATE issues SET updated_at = ? WHERE id = ?`, unix(q.Now()), issueID)
	return err
}

// IssueTypesOf is the type of each of the issues that has one, by issue id.
func (q Q) IssueTypesOf(ctx context.Context, issueIDs []int64) (map[int64]*model.IssueType, error) {
	out := map[int64]*model.IssueType{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	in, args := inList(issueIDs)
	rows, err := q.query(ctx, `SELECT o.issue_id, t.id, t.org_id, t.name, t.description, t.color, t.is_enabled, t.created_at, t.updated_at
 FROM issue_type_of o JOIN issue_types t ON t.id = o.type_id WHERE o.issue_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var issueID int64
		t := &model.IssueType{}
		var desc, color sql.NullString
		var created, updated int64
		if err := rows.Scan(&issueID, &t.ID, &t.OrgID, &t.Name, &desc, &color, &t.Enabled, &created, &updated); err != nil {
			return nil, err
		}
		t.Description, t.Color = nullStr(desc), nullStr(color)
		t.CreatedAt, t.UpdatedAt = fromUnix(created), fromUnix(updated)
		out[issueID] = t
	}
	return out, rows.Err()
}

// PinIssue pins an issue to its repository (no change when pinned).
func (q Q) PinIssue(ctx context.Context, is *model.Issue, by int64) error {
	_, err := q.exec(ctx, `INSERT INTO pinned_issues (issue_id, repo_id, pinned_by, created_at) VALUES (?,?,?,?) ON CONFLICT DO NOTHING`,
		is.ID, is.RepoID, idOrNil(by), unix(q.Now()))
	return err
}

// UnpinIssue unpins an issue; it reports whether it was pinned.
func (q Q) UnpinIssue(ctx context.Context, issueID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM pinned_issues WHERE issue_id = ?`, issueID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// PinnedIssues lists a repository's pinned issues, first pinned first.
func (q Q) PinnedIssues(ctx context.Context, repoID int64) ([]*model.PinnedIssue, error) {
	rows, err := q.query(ctx, `SELECT issue_id, repo_id, pinned_by, created_at FROM pinned_issues WHERE repo_id = ? ORDER BY created_at, issue_id`, repoID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.PinnedIssue
	for rows.Next() {
		p := &model.PinnedIssue{}
		var by sql.NullInt64
		var at int64
		if err := rows.Scan(&p.IssueID, &p.RepoID, &by, &at); err != nil {
			return nil, err
		}
		p.PinnedBy, p.CreatedAt = by.Int64, fromUnix(at)
		out = append(out, p)
	}
	return out, rows.Err()
}

// PinnedAmong is which of the issues are pinned.
func (q Q) PinnedAmong(ctx context.Context, issueIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	in, args := inList(issueIDs)
	return q.idSet(ctx, `SELECT issue_id FROM pinned_issues WHERE issue_id IN (`+in+`)`, args...)
}
