package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Organization issue fields: an organization defines fields (text, number,
// date, single_select with options); issues of its repositories carry at
// most one value per field. Dates are kept as YYYY-MM-DD text.

// CreateIssueField inserts an organization's field with its options;
// ErrDuplicate when the organization has a field of that name.
func (q Q) CreateIssueField(ctx context.Context, f *model.IssueField) error {
	now := q.Now()
	f.CreatedAt, f.UpdatedAt = now, now
	if f.Visibility == "" {
		f.Visibility = "organization_members_only"
	}
	id, err := q.insert(ctx, `INSERT INTO issue_fields (org_id, name, lower_name, description, data_type, visibility, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?)`, f.OrgID, f.Name, strings.ToLower(f.Name), strOrNil(f.Description), f.DataType, f.Visibility, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	f.ID = id
	for _, o := range f.Options {
		o.FieldID, o.CreatedAt, o.UpdatedAt = id, now, now
		if o.Color == "" {
			o.Color = "gray"
		}
		oid, err := q.insert(ctx, `INSERT INTO issue_field_options (field_id, name, description, color, priority, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?)`, id, o.Name, strOrNil(o.Description), o.Color, o.Priority, unix(now), unix(now))
		if isUnique(err) {
			return ErrDuplicate
		}
		if err != nil {
			return err
		}
		o.ID = oid
	}
	return nil
}

// IssueFields loads an organization's fields by id with their options
// (unknown ids are absent).
func (q Q) IssueFields(ctx context.Context, orgID int64, ids []int64) (map[int64]*model.IssueField, error) {
	out := map[int64]*model.IssueField{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT id, org_id, name, description, data_type, visibility, created_at, updated_at
 FROM issue_fields WHERE org_id = ? AND id IN (`+in+`)`, append([]any{orgID}, args...)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		f := &model.IssueField{}
		var desc sql.NullString
		var created, updated int64
		if err := rows.Scan(&f.ID, &f.OrgID, &f.Name, &desc, &f.DataType, &f.Visibility, &created, &updated); err != nil {
			rows.Close()
			return nil, err
		}
		f.Description, f.CreatedAt, f.UpdatedAt = nullStr(desc), fromUnix(created), fromUnix(updated)
		out[f.ID] = f
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.query(ctx, `SELECT id, field_id, name, description, color, priority, created_at, updated_at
 FROM issue_field_options WHERE field_id IN (`+in+`) ORDER BY field_id, priority, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		o := &model.IssueFieldOption{}
		var desc sql.NullString
		var created, updated int64
		if err := rows.Scan(&o.ID, &o.FieldID, &o.Name, &desc, &o.Color, &o.Priority, &created, &updated); err != nil {
			return nil, err
		}
		o.Description, o.CreatedAt, o.UpdatedAt = nullStr(desc), fromUnix(created), fromUnix(updated)
		if f := out[o.FieldID]; f != nil {
			f.Options = append(f.Options, o)
		}
	}
	return out, rows.Err()
}

// IssueFieldValues lists an issue's field values, by field id.
func (q Q) IssueFieldValues(ctx context.Context, orgID, issueID int64) ([]*model.IssueFieldValue, error) {
	rows, err := q.query(ctx, `SELECT field_id, text_value, number_value, option_id FROM issue_field_values
 WHERE issue_id = ? ORDER BY field_id`, issueID)
	if err != nil {
		return nil, err
	}
	type raw struct {
		field  int64
		text   sql.NullString
		number sql.NullFloat64
		option sql.NullInt64
	}
	var list []raw
	var ids []int64
	for rows.Next() {
		var r raw
		if err := rows.Scan(&r.field, &r.text, &r.number, &r.option); err != nil {
			rows.Close()
			return nil, err
		}
		list, ids = append(list, r), append(ids, r.field)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := []*model.IssueFieldValue{}
	for start := 0; start < len(ids); start += 100 {
		fields, err := q.IssueFields(ctx, orgID, ids[start:min(start+100, len(ids))])
		if err != nil {
			return nil, err
		}
		for _, r := range list[start:min(start+100, len(list))] {
			f := fields[r.field]
			if f == nil {
				continue
			}
			v := &model.IssueFieldValue{IssueID: issueID, Field: f, Text: nullStr(r.text)}
			if r.number.Valid {
				n := r.number.Float64
				v.Number = &n
			}
			for _, o := range f.Options {
				if r.option.Valid && o.ID == r.option.Int64 {
					v.Option = o
				}
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// SetIssueFieldValue sets (or replaces) an issue's value of one field.
func (q Q) SetIssueFieldValue(ctx context.Context, v *model.IssueFieldValue) error {
	var number any
	if v.Number != nil {
		number = *v.Number
	}
	var option any
	if v.Option != nil {
		option = v.Option.ID
	}
	_, err := q.exec(ctx, `INSERT INTO issue_field_values (issue_id, field_id, text_value, number_value, option_id, updated_at)
 VALUES (?,?,?,?,?,?) ON CONFLICT (issue_id, field_id) DO UPDATE SET text_value = excluded.text_value,
 number_value = excluded.number_value, option_id = excluded.option_id, updated_at = excluded.updated_at`,
		v.IssueID, v.Field.ID, strOrNil(v.Text), number, option, unix(q.Now()))
	return err
}

// DeleteIssueFieldValue removes an issue's value of one field; it reports
// false when there was none.
func (q Q) DeleteIssueFieldValue(ctx context.Context, issueID, fieldID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM issue_field_values WHERE issue_id = ? AND field_id = ?`, issueID, fieldID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ClearIssueFieldValues removes all of an issue's field values.
func (q Q) ClearIssueFieldValues(ctx context.Context, issueID int64) error {
	_, err := q.exec(ctx, `DELETE FROM issue_field_values WHERE issue_id = ?`, issueID)
	return err
}
