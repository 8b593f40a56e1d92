package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Keyset is a cursor page over rows ordered by id: After or Before an id
// (0: from the start), at most Limit rows.
type Keyset struct {
	After, Before int64
	Limit         int
}

// keyset adds the page's condition and order to a query selecting rows by
// "id": it reads one row more than Limit, so that callers know whether
// another page follows.
func (k Keyset) clause(col string) (string, []any) {
	switch {
	case k.After > 0:
		return " AND " + col + " > ? ORDER BY " + col + " LIMIT ?", []any{k.After, k.Limit + 1}
	case k.Before > 0:
		return " AND " + col + " < ? ORDER BY " + col + " DESC LIMIT ?", []any{k.Before, k.Limit + 1}
	}
	return " ORDER BY " + col + " LIMIT ?", []any{k.Limit + 1}
}

// trim cuts a page read by clause to Limit rows in ascending order and
// says whether rows remain beyond it (after the page when paging forward,
// before it when paging back).
func keysetTrim[T any](k Keyset, list []T) ([]T, bool) {
	more := len(list) > k.Limit
	if more {
		list = list[:k.Limit]
	}
	if k.Before > 0 {
		slices.Reverse(list)
	}
	return list, more
}

const projectCols = `id, owner_id, number, creator_id, title, short_description, readme, public, closed_at, base_role, created_at, updated_at`

func (q Q) projects(ctx context.Context, query string, args ...any) ([]*model.Project, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.Project
	for rows.Next() {
		p := &model.Project{}
		var closed sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&p.ID, &p.OwnerID, &p.Number, &p.CreatorID, &p.Title, &p.ShortDescription, &p.Readme, &p.Public, &closed, &p.BaseRole, &created, &updated); err != nil {
			return nil, err
		}
		p.ClosedAt, p.CreatedAt, p.UpdatedAt = fromNullUnix(closed), fromUnix(created), fromUnix(updated)
		out = append(out, p)
	}
	return out, rows.Err()
}

func one[T any](list []T, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	if len(list) == 0 {
		return zero, model.ErrNotFound
	}
	return list[0], nil
}

// ProjectByNumber is project number of an owner.
func (q Q) ProjectByNumber(ctx context.Context, ownerID, number int64) (*model.Project, error) {
	return one(q.projects(ctx, `SELECT `+projectCols+` FROM projects_v2 WHERE owner_id = ? AND number = ?`, ownerID, number))
}

// ProjectByID is a project by id.
func (q Q) ProjectByID(ctx context.Context, id int64) (*model.Project, error) {
	return one(q.projects(ctx, `SELECT `+projectCols+` FROM projects_v2 WHERE id = ?`, id))
}

// ProjectsByID loads projects by id.
func (q Q) ProjectsByID(ctx context.Context, ids []int64) (map[int64]*model.Project, error) {
	out := map[int64]*model.Project{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.projects(ctx, `SELECT `+projectCols+` FROM projects_v2 WHERE id IN (`+in+`)`, args...)
	for _, p := range list {
		out[p.ID] = p
	}
	return out, err
}

// ProjectQuery selects an owner's projects.
type ProjectQuery struct {
	OwnerID int64
	Title   string // substring of the title, case-insensitive
	Closed  *bool  // nil: open and closed
	// PublicOnly keeps public projects (callers who may not see private ones).
	PublicOnly bool
	Page       Keyset
}

// ListProjects pages through an owner's projects by id; more reports
// whether rows remain past the page.
func (q Q) ListProjects(ctx context.Context, f ProjectQuery) ([]*model.Project, bool, error) {
	where := ` WHERE owner_id = ?`
	args := []any{f.OwnerID}
	if f.Title != "" {
		where += ` AND LOWER(title) LIKE ?`
		args = append(args, "%"+likeEscape(strings.ToLower(f.Title))+"%")
	}
	if f.Closed != nil {
		if *f.Closed {
			where += ` AND closed_at IS NOT NULL`
		} else {
			where += ` AND closed_at IS NULL`
		}
	}
	if f.PublicOnly {
		where += ` AND public = ?`
		args = append(args, true)
	}
	page, pargs := f.Page.clause("id")
	list, err := q.projects(ctx, `SELECT `+projectCols+` FROM projects_v2`+where+page, append(args, pargs...)...)
	if err != nil {
		return nil, false, err
	}
	list, more := keysetTrim(f.Page, list)
	return list, more, nil
}

// CountProjects counts an owner's projects as ListProjects selects them.
func (q Q) CountProjects(ctx context.Context, ownerID int64, publicOnly bool) (int, error) {
	return q.CountProjectsOf(ctx, ProjectsFilter{OwnerID: ownerID, PublicOnly: publicOnly})
}

// ProjectsFilter selects an owner's projects for GraphQL's projectsV2:
// by title words and open or closed, in an order.
type ProjectsFilter struct {
	OwnerID    int64
	PublicOnly bool
	Title      string // substring of the title, case-insensitive
	Closed     *bool
	OrderBy    string // number (default), title, created_at, updated_at
	Desc       bool
}

func (f ProjectsFilter) where() (string, []any) {
	where := ` WHERE owner_id = ?`
	args := []any{f.OwnerID}
	if f.PublicOnly {
		where += ` AND public = ?`
		args = append(args, true)
	}
	if f.Title != "" {
		where += ` AND LOWER(title) LIKE ?`
		args = append(args, "%"+likeEscape(strings.ToLower(f.Title))+"%")
	}
	if f.Closed != nil {
		if *f.Closed {
			where += ` AND closed_at IS NOT NULL`
		} else {
			where += ` AND closed_at IS NULL`
		}
	}
	return where, args
}

// CountProjectsOf counts the projects f selects.
func (q Q) CountProjectsOf(ctx context.Context, f ProjectsFilter) (int, error) {
	var n int
	where, args := f.where()
	err := q.row(ctx, `SELECT COUNT(*) FROM projects_v2`+where, args...).Scan(&n)
	return n, err
}

// ProjectsPageOf is a page of the projects f selects, in its order.
func (q Q) ProjectsPageOf(ctx context.Context, f ProjectsFilter, limit, offset int) ([]*model.Project, error) {
	where, args := f.where()
	col := map[string]string{"title": "LOWER(title)", "created_at": "created_at", "updated_at": "updated_at"}[f.OrderBy]
	if col == "" {
		col = "number"
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	return q.projects(ctx, `SELECT `+projectCols+` FROM projects_v2`+where+` ORDER BY `+col+dir+`, number`+dir+` LIMIT ? OFFSET ?`, append(args, limit, offset)...)
}

// ProjectIDsOfRepo is the ids of the projects linked to a repository.
func (q Q) ProjectIDsOfRepo(ctx context.Context, repoID int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT project_id FROM projects_v2_repos WHERE repo_id = ? ORDER BY project_id`, repoID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// CreateProject inserts a project with its owner's next number.
func (q Q) CreateProject(ctx context.Context, p *model.Project) error {
	var n sql.NullInt64
	if err := q.row(ctx, `SELECT MAX(number) FROM projects_v2 WHERE owner_id = ?`, p.OwnerID).Scan(&n); err != nil {
		return err
	}
	p.Number = n.Int64 + 1
	now := q.Now()
	p.CreatedAt, p.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO projects_v2 (owner_id, number, creator_id, title, short_description, readme, public, closed_at, base_role, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		p.OwnerID, p.Number, p.CreatorID, p.Title, p.ShortDescription, p.Readme, p.Public, nullUnix(p.ClosedAt), p.BaseRole, unix(now), unix(now))
	p.ID = id
	return err
}

// UpdateProject writes a project's editable columns.
func (q Q) UpdateProject(ctx context.Context, p *model.Project) error {
	p.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE projects_v2 SET title = ?, short_description = ?, readme = ?, public = ?, closed_at = ?, base_role = ?, updated_at = ? WHERE id = ?`,
		p.Title, p.ShortDescription, p.Readme, p.Public, nullUnix(p.ClosedAt), p.BaseRole, unix(p.UpdatedAt), p.ID)
	return err
}

// TouchProject moves a project's updated_at.
func (q Q) TouchProject(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `UPDATE projects_v2 SET updated_at = ? WHERE id = ?`, unix(q.Now()), id)
	return err
}

// DeleteProject deletes a project with its fields, items, values and views.
func (q Q) DeleteProject(ctx context.Context, id int64) error {
	for _, stmt := range []string{
		`DELETE FROM projects_v2_values WHERE item_id IN (SELECT id FROM projects_v2_items WHERE project_id = ?)`,
		`DELETE FROM projects_v2_items WHERE project_id = ?`,
		`DELETE FROM projects_v2_fields WHERE project_id = ?`,
		`DELETE FROM projects_v2_views WHERE project_id = ?`,
		`DELETE FROM projects_v2_repos WHERE project_id = ?`,
		`DELETE FROM projects_v2 WHERE id = ?`,
	} {
		if _, err := q.exec(ctx, stmt, id); err != nil {
			return err
		}
	}
	return nil
}

// fieldConfig is the JSON of a field's options or iterations.
type fieldConfig struct {
	Options    []optionJSON    `json:"options,omitempty"`
	StartDay   int             `json:"start_day,omitempty"`
	Duration   int             `json:"duration,omitempty"`
	Iterations []iterationJSON `json:"iterations,omitempty"`
	Iteration  bool            `json:"iteration,omitempty"`
}

type optionJSON struct {
	ID, Name, Color, Description string
}

type iterationJSON struct {
	ID, Title, StartDate string
	Duration             int
}

func encodeFieldConfig(f *model.ProjectField) (string, error) {
	var c fieldConfig
	for _, o := range f.Options {
		c.Options = append(c.Options, optionJSON(o))
	}
	if it := f.Iteration; it != nil {
		c.Iteration, c.StartDay, c.Duration = true, it.StartDay, it.Duration
		for _, i := range it.Iterations {
			c.Iterations = append(c.Iterations, iterationJSON(i))
		}
	}
	if len(c.Options) == 0 && !c.Iteration {
		return "", nil
	}
	b, err := json.Marshal(c)
	return string(b), err
}

func decodeFieldConfig(f *model.ProjectField, s string) error {
	if s == "" {
		return nil
	}
	var c fieldConfig
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return err
	}
	for _, o := range c.Options {
		f.Options = append(f.Options, model.ProjectOption(o))
	}
	if c.Iteration {
		f.Iteration = &model.ProjectIterations{StartDay: c.StartDay, Duration: c.Duration}
		for _, i := range c.Iterations {
			f.Iteration.Iterations = append(f.Iteration.Iterations, model.ProjectIteration(i))
		}
	}
	return nil
}

const fieldCols = `id, project_id, name, data_type, position, config, created_at, updated_at`

func (q Q) projectFields(ctx context.Context, query string, args ...any) ([]*model.ProjectField, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.ProjectField
	for rows.Next() {
		f := &model.ProjectField{}
		var cfg string
		var created, updated int64
		if err := rows.Scan(&f.ID, &f.ProjectID, &f.Name, &f.DataType, &f.Position, &cfg, &created, &updated); err != nil {
			return nil, err
		}
		if err := decodeFieldConfig(f, cfg); err != nil {
			return nil, err
		}
		f.CreatedAt, f.UpdatedAt = fromUnix(created), fromUnix(updated)
		out = append(out, f)
	}
	return out, rows.Err()
}

// ProjectFields lists a project's fields in order.
func (q Q) ProjectFields(ctx context.Context, projectID int64) ([]*model.ProjectField, error) {
	return q.projectFields(ctx, `SELECT `+fieldCols+` FROM projects_v2_fields WHERE project_id = ? ORDER BY position, id`, projectID)
}

// ProjectFieldsOf lists the fields of several projects in one query.
func (q Q) ProjectFieldsOf(ctx context.Context, projectIDs []int64) (map[int64][]*model.ProjectField, error) {
	out := map[int64][]*model.ProjectField{}
	if len(projectIDs) == 0 {
		return out, nil
	}
	in, args := inList(projectIDs)
	list, err := q.projectFields(ctx, `SELECT `+fieldCols+` FROM projects_v2_fields WHERE project_id IN (`+in+`) ORDER BY position, id`, args...)
	for _, f := range list {
		out[f.ProjectID] = append(out[f.ProjectID], f)
	}
	return out, err
}

// ListProjectFields pages through a project's fields by id.
func (q Q) ListProjectFields(ctx context.Context, projectID int64, k Keyset) ([]*model.ProjectField, bool, error) {
	page, pargs := k.clause("id")
	list, err := q.projectFields(ctx, `SELECT `+fieldCols+` FROM projects_v2_fields WHERE project_id = ?`+page, append([]any{projectID}, pargs...)...)
	if err != nil {
		return nil, false, err
	}
	list, more := keysetTrim(k, list)
	return list, more, nil
}

// ProjectFieldByID is field id of a project.
func (q Q) ProjectFieldByID(ctx context.Context, projectID, id int64) (*model.ProjectField, error) {
	return one(q.projectFields(ctx, `SELECT `+fieldCols+` FROM projects_v2_fields WHERE project_id = ? AND id = ?`, projectID, id))
}

// ProjectFieldAnyProject is field id of whichever project holds it (the
// caller checks it may see that project).
func (q Q) ProjectFieldAnyProject(ctx context.Context, id int64) (*model.ProjectField, error) {
	return one(q.projectFields(ctx, `SELECT `+fieldCols+` FROM projects_v2_fields WHERE id = ?`, id))
}

// CreateProjectField appends a field to a project.
func (q Q) CreateProjectField(ctx context.Context, f *model.ProjectField) error {
	cfg, err := encodeFieldConfig(f)
	if err != nil {
		return err
	}
	var n sql.NullInt64
	if err := q.row(ctx, `SELECT MAX(position) FROM projects_v2_fields WHERE project_id = ?`, f.ProjectID).Scan(&n); err != nil {
		return err
	}
	f.Position = n.Int64 + 1
	now := q.Now()
	f.CreatedAt, f.UpdatedAt = now, now
	f.ID, err = q.insert(ctx, `INSERT INTO projects_v2_fields (project_id, name, data_type, position, config, created_at, updated_at) VALUES (?,?,?,?,?,?,?)`,
		f.ProjectID, f.Name, f.DataType, f.Position, cfg, unix(now), unix(now))
	return err
}

// UpdateProjectField writes a field's name and configuration.
func (q Q) UpdateProjectField(ctx context.Context, f *model.ProjectField) error {
	cfg, err := encodeFieldConfig(f)
	if err != nil {
		return err
	}
	f.UpdatedAt = q.Now()
	_, err = q.exec(ctx, `UPDATE projects_v2_fields SET name = ?, config = ?, updated_at = ? WHERE id = ?`, f.Name, cfg, unix(f.UpdatedAt), f.ID)
	return err
}

// DeleteProjectField deletes a field with its values.
func (q Q) DeleteProjectField(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM projects_v2_values WHERE field_id = ?`, id); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM projects_v2_fields WHERE id = ?`, id)
	return err
}

const itemCols = `id, project_id, content_type, issue_id, draft_title, draft_body, creator_id, archived_at, created_at, updated_at`

func (q Q) projectItems(ctx context.Context, query string, args ...any) ([]*model.ProjectItem, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.ProjectItem
	for rows.Next() {
		it := &model.ProjectItem{}
		var issue, archived sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&it.ID, &it.ProjectID, &it.ContentType, &issue, &it.DraftTitle, &it.DraftBody, &it.CreatorID, &archived, &created, &updated); err != nil {
			return nil, err
		}
		it.IssueID, it.ArchivedAt, it.CreatedAt, it.UpdatedAt = issue.Int64, fromNullUnix(archived), fromUnix(created), fromUnix(updated)
		out = append(out, it)
	}
	return out, rows.Err()
}

// ProjectItemByID is item id of a project.
func (q Q) ProjectItemByID(ctx context.Context, projectID, id int64) (*model.ProjectItem, error) {
	return one(q.projectItems(ctx, `SELECT `+itemCols+` FROM projects_v2_items WHERE project_id = ? AND id = ?`, projectID, id))
}

// ProjectItemsByID loads items by id (any project).
func (q Q) ProjectItemsByID(ctx context.Context, ids []int64) (map[int64]*model.ProjectItem, error) {
	out := map[int64]*model.ProjectItem{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.projectItems(ctx, `SELECT `+itemCols+` FROM projects_v2_items WHERE id IN (`+in+`)`, args...)
	for _, it := range list {
		out[it.ID] = it
	}
	return out, err
}

// ProjectItemOfIssue is the item of an issue (or pull request) in a
// project.
func (q Q) ProjectItemOfIssue(ctx context.Context, projectID, issueID int64) (*model.ProjectItem, error) {
	return one(q.projectItems(ctx, `SELECT `+itemCols+` FROM projects_v2_items WHERE project_id = ? AND issue_id = ?`, projectID, issueID))
}

// ItemsOfIssues lists the project items of issues, by issue, in one query.
func (q Q) ItemsOfIssues(ctx context.Context, issueIDs []int64) (map[int64][]*model.ProjectItem, error) {
	out := map[int64][]*model.ProjectItem{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	in, args := inList(issueIDs)
	list, err := q.projectItems(ctx, `SELECT `+itemCols+` FROM projects_v2_items WHERE issue_id IN (`+in+`) ORDER BY id`, args...)
	for _, it := range list {
		out[it.IssueID] = append(out[it.IssueID], it)
	}
	return out, err
}

// ItemQuery selects a project's items.
type ItemQuery struct {
	ProjectID int64
	Archived  *bool // nil: both
	Page      Keyset
}

// ListProjectItems pages through a project's items by id.
func (q Q) ListProjectItems(ctx context.Context, f ItemQuery) ([]*model.ProjectItem, bool, error) {
	where := ` WHERE project_id = ?`
	if f.Archived != nil {
		if *f.Archived {
			where += ` AND archived_at IS NOT NULL`
		} else {
			where += ` AND archived_at IS NULL`
		}
	}
	page, pargs := f.Page.clause("id")
	list, err := q.projectItems(ctx, `SELECT `+itemCols+` FROM projects_v2_items`+where+page, append([]any{f.ProjectID}, pargs...)...)
	if err != nil {
		return nil, false, err
	}
	list, more := keysetTrim(f.Page, list)
	return list, more, nil
}

// CountProjectItems counts a project's items.
func (q Q) CountProjectItems(ctx context.Context, projectID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM projects_v2_items WHERE project_id = ?`, projectID).Scan(&n)
	return n, err
}

// AddProjectItem inserts an item; an issue already in the project gives
// ErrDuplicate.
func (q Q) AddProjectItem(ctx context.Context, it *model.ProjectItem) error {
	now := q.Now()
	it.CreatedAt, it.UpdatedAt = now, now
	var issue any
	if it.IssueID != 0 {
		issue = it.IssueID
	}
	id, err := q.insert(ctx, `INSERT INTO projects_v2_items (project_id, content_type, issue_id, draft_title, draft_body, creator_id, archived_at, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)`,
		it.ProjectID, it.ContentType, issue, it.DraftTitle, it.DraftBody, it.CreatorID, nullUnix(it.ArchivedAt), unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	it.ID = id
	return err
}

// UpdateProjectItem writes an item's content and archived state.
func (q Q) UpdateProjectItem(ctx context.Context, it *model.ProjectItem) error {
	it.UpdatedAt = q.Now()
	var issue any
	if it.IssueID != 0 {
		issue = it.IssueID
	}
	_, err := q.exec(ctx, `UPDATE projects_v2_items SET content_type = ?, issue_id = ?, draft_title = ?, draft_body = ?, archived_at = ?, updated_at = ? WHERE id = ?`,
		it.ContentType, issue, it.DraftTitle, it.DraftBody, nullUnix(it.ArchivedAt), unix(it.UpdatedAt), it.ID)
	return err
}

// DeleteProjectItem deletes an item with its values.
func (q Q) DeleteProjectItem(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM projects_v2_values WHERE item_id = ?`, id); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM projects_v2_items WHERE id = ?`, id)
	return err
}

// ProjectValues loads the values of items, by item, in one query.
func (q Q) ProjectValues(ctx context.Context, itemIDs []int64) (map[int64][]*model.ProjectValue, error) {
	out := map[int64][]*model.ProjectValue{}
	if len(itemIDs) == 0 {
		return out, nil
	}
	var query string
	var args []any
	if len(itemIDs) <= 100 {
		in, a := inList(itemIDs)
		query, args = `SELECT item_id, field_id, text_value, number_value, updated_at FROM projects_v2_values WHERE item_id IN (`+in+`) ORDER BY item_id, field_id`, a
	} else {
		return nil, errors.New("store: ProjectValues: more than 100 items")
	}
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		v := &model.ProjectValue{}
		var num sql.NullFloat64
		var updated int64
		if err := rows.Scan(&v.ItemID, &v.FieldID, &v.Text, &num, &updated); err != nil {
			return nil, err
		}
		if num.Valid {
			v.Number = &num.Float64
		}
		v.UpdatedAt = fromUnix(updated)
		out[v.ItemID] = append(out[v.ItemID], v)
	}
	return out, rows.Err()
}

// SetProjectValue writes (or replaces) an item's value of a field.
func (q Q) SetProjectValue(ctx context.Context, v *model.ProjectValue) error {
	v.UpdatedAt = q.Now()
	var num any
	if v.Number != nil {
		num = *v.Number
	}
	_, err := q.exec(ctx, `INSERT INTO projects_v2_values (item_id, field_id, text_value, number_value, updated_at) VALUES (?,?,?,?,?)
ON CONFLICT (item_id, field_id) DO UPDATE SET text_value = excluded.text_value, number_value = excluded.number_value, updated_at = excluded.updated_at`,
		v.ItemID, v.FieldID, v.Text, num, unix(v.UpdatedAt))
	return err
}

// ClearProjectValue removes an item's value of a field.
func (q Q) ClearProjectValue(ctx context.Context, itemID, fieldID int64) error {
	_, err := q.exec(ctx, `DELETE FROM projects_v2_values WHERE item_id = ? AND field_id = ?`, itemID, fieldID)
	return err
}

// ClearProjectOption removes the values naming options (or iterations) a
// field no longer has.
func (q Q) ClearProjectOption(ctx context.Context, fieldID int64, keep []string) error {
	if len(keep) == 0 {
		_, err := q.exec(ctx, `DELETE FROM projects_v2_values WHERE field_id = ?`, fieldID)
		return err
	}
	in, args := inList(keep)
	_, err := q.execRaw(ctx, `DELETE FROM projects_v2_values WHERE field_id = ? AND text_value NOT IN (`+in+`)`, append([]any{fieldID}, args...)...)
	return err
}

const viewCols = `id, project_id, number, name, layout, filter, visible_fields, sort_by, group_by, vertical_group_by, creator_id, created_at, updated_at`

func (q Q) projectViews(ctx context.Context, query string, args ...any) ([]*model.ProjectView, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.ProjectView
	for rows.Next() {
		v := &model.ProjectView{}
		var filter sql.NullString
		var visible, sortBy, group, vgroup string
		var created, updated int64
		if err := rows.Scan(&v.ID, &v.ProjectID, &v.Number, &v.Name, &v.Layout, &filter, &visible, &sortBy, &group, &vgroup, &v.CreatorID, &created, &updated); err != nil {
			return nil, err
		}
		if filter.Valid {
			v.Filter = &filter.String
		}
		for _, p := range []struct {
			s string
			v any
		}{{visible, &v.VisibleFields}, {sortBy, &v.SortBy}, {group, &v.GroupBy}, {vgroup, &v.VerticalGroupBy}} {
			if err := json.Unmarshal([]byte(p.s), p.v); err != nil {
				return nil, err
			}
		}
		v.CreatedAt, v.UpdatedAt = fromUnix(created), fromUnix(updated)
		out = append(out, v)
	}
	return out, rows.Err()
}

// ProjectViews lists a project's views by number.
func (q Q) ProjectViews(ctx context.Context, projectID int64) ([]*model.ProjectView, error) {
	return q.projectViews(ctx, `SELECT `+viewCols+` FROM projects_v2_views WHERE project_id = ? ORDER BY number`, projectID)
}

// ProjectViewByNumber is view number of a project.
func (q Q) ProjectViewByNumber(ctx context.Context, projectID, number int64) (*model.ProjectView, error) {
	return one(q.projectViews(ctx, `SELECT `+viewCols+` FROM projects_v2_views WHERE project_id = ? AND number = ?`, projectID, number))
}

// CreateProjectView inserts a view with the project's next view number.
func (q Q) CreateProjectView(ctx context.Context, v *model.ProjectView) error {
	var n sql.NullInt64
	if err := q.row(ctx, `SELECT MAX(number) FROM projects_v2_views WHERE project_id = ?`, v.ProjectID).Scan(&n); err != nil {
		return err
	}
	v.Number = n.Int64 + 1
	now := q.Now()
	v.CreatedAt, v.UpdatedAt = now, now
	enc := func(x any) string {
		b, _ := json.Marshal(x)
		if string(b) == "null" {
			return "[]"
		}
		return string(b)
	}
	id, err := q.insert(ctx, `INSERT INTO projects_v2_views (project_id, number, name, layout, filter, visible_fields, sort_by, group_by, vertical_group_by, creator_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		v.ProjectID, v.Number, v.Name, v.Layout, v.Filter, enc(v.VisibleFields), enc(v.SortBy), enc(v.GroupBy), enc(v.VerticalGroupBy), v.CreatorID, unix(now), unix(now))
	v.ID = id
	return err
}

// LinkProjectRepo links a repository to a project (again: no change).
func (q Q) LinkProjectRepo(ctx context.Context, projectID, repoID int64) error {
	_, err := q.exec(ctx, `INSERT INTO projects_v2_repos (project_id, repo_id, created_at) VALUES (?,?,?) ON CONFLICT DO NOTHING`, projectID, repoID, unix(q.Now()))
	return err
}

// UnlinkProjectRepo removes the link.
func (q Q) UnlinkProjectRepo(ctx context.Context, projectID, repoID int64) error {
	_, err := q.exec(ctx, `DELETE FROM projects_v2_repos WHERE project_id = ? AND repo_id = ?`, projectID, repoID)
	return err
}

// ProjectRepoIDs lists the repositories linked to a project.
func (q Q) ProjectRepoIDs(ctx context.Context, projectID int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT repo_id FROM projects_v2_repos WHERE project_id = ? ORDER BY repo_id`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// ProjectItemsPage is items [offset, offset+limit) of a project by id
// (GraphQL's offset cursors).
func (q Q) ProjectItemsPage(ctx context.Context, projectID int64, limit, offset int) ([]*model.ProjectItem, error) {
	return q.projectItems(ctx, `SELECT `+itemCols+` FROM projects_v2_items WHERE project_id = ? ORDER BY id LIMIT ? OFFSET ?`, projectID, limit, offset)
}

// ProjectsPage is projects [offset, offset+limit) of an owner by number,
// public ones only when publicOnly, with their count.
func (q Q) ProjectsPage(ctx context.Context, ownerID int64, publicOnly bool, limit, offset int) ([]*model.Project, error) {
	return q.ProjectsPageOf(ctx, ProjectsFilter{OwnerID: ownerID, PublicOnly: publicOnly}, limit, offset)
}
