package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

const scimUserCols = `id, uuid, user_id, external_id, user_name, display_name, given_name, family_name, middle_name, formatted,
 emails, roles, active, login, email, version, created_at, updated_at`

func scanSCIMUser(sc scanner) (*model.SCIMUser, error) {
	u := &model.SCIMUser{}
	var emails, roles string
	var created, updated int64
	if err := sc.Scan(&u.ID, &u.UUID, &u.UserID, &u.ExternalID, &u.UserName, &u.DisplayName, &u.GivenName, &u.FamilyName,
		&u.MiddleName, &u.Formatted, &emails, &roles, &u.Active, &u.Login, &u.Email, &u.Version, &created, &updated); err != nil {
		return nil, err
	}
	var es []scimEmailRow
	if err := json.Unmarshal([]byte(emails), &es); err != nil {
		return nil, err
	}
	u.Emails = make([]model.SCIMEmail, len(es))
	for i, e := range es {
		u.Emails[i] = model.SCIMEmail{Value: e.Value, Type: e.Type, Primary: e.Primary}
	}
	u.Roles = []string{}
	if roles != "" {
		u.Roles = strings.Split(roles, ",")
	}
	u.CreatedAt, u.UpdatedAt = fromUnix(created), fromUnix(updated)
	return u, nil
}

// scimEmailRow is how a SCIM user's emails are kept (a JSON array).
type scimEmailRow struct {
	Value   string `json:"value"`
	Type    string `json:"type"`
	Primary bool   `json:"primary"`
}

func scimEmailsJSON(es []model.SCIMEmail) string {
	rows := make([]scimEmailRow, len(es))
	for i, e := range es {
		rows[i] = scimEmailRow{e.Value, e.Type, e.Primary}
	}
	b, _ := json.Marshal(rows)
	return string(b)
}

// CreateSCIMUser inserts a SCIM identity; ErrDuplicate when its userName
// (ignoring case), its uuid or its user already has one.
func (q Q) CreateSCIMUser(ctx context.Context, u *model.SCIMUser) error {
	now := q.Now()
	u.CreatedAt, u.UpdatedAt, u.Version = now, now, 1
	id, err := q.insert(ctx, `INSERT INTO scim_users (uuid, user_id, external_id, user_name, lower_user_name, display_name, given_name,
 family_name, middle_name, formatted, emails, roles, active, login, email, version, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		u.UUID, u.UserID, u.ExternalID, u.UserName, strings.ToLower(u.UserName), u.DisplayName, u.GivenName, u.FamilyName,
		u.MiddleName, u.Formatted, scimEmailsJSON(u.Emails), strings.Join(u.Roles, ","), u.Active, u.Login, u.Email,
		u.Version, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	u.ID = id
	return err
}

// UpdateSCIMUser writes every mutable column and moves the version on;
// ErrDuplicate when the new userName is another identity's.
func (q Q) UpdateSCIMUser(ctx context.Context, u *model.SCIMUser) error {
	u.UpdatedAt = q.Now()
	u.Version++
	res, err := q.exec(ctx, `UPDATE scim_users SET external_id=?, user_name=?, lower_user_name=?, display_name=?, given_name=?,
 family_name=?, middle_name=?, formatted=?, emails=?, roles=?, active=?, login=?, email=?, version=?, updated_at=? WHERE id=?`,
		u.ExternalID, u.UserName, strings.ToLower(u.UserName), u.DisplayName, u.GivenName, u.FamilyName, u.MiddleName,
		u.Formatted, scimEmailsJSON(u.Emails), strings.Join(u.Roles, ","), u.Active, u.Login, u.Email, u.Version,
		unix(u.UpdatedAt), u.ID)
	return updatedOne(res, err)
}

// updatedOne reads the result of an UPDATE of one row by id: ErrDuplicate
// on a unique violation, not found when no row had the id.
func updatedOne(res sql.Result, err error) error {
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// DeleteSCIMUser removes a SCIM identity (the user stays).
func (q Q) DeleteSCIMUser(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM scim_users WHERE id = ?`, id)
	return err
}

// SCIMUserByUUID finds a SCIM identity by its SCIM id.
func (q Q) SCIMUserByUUID(ctx context.Context, uuid string) (*model.SCIMUser, error) {
	u, err := scanSCIMUser(q.row(ctx, `SELECT `+scimUserCols+` FROM scim_users WHERE uuid = ?`, uuid))
	return u, notFound(err)
}

// SCIMUsersByUUID loads the SCIM identities of a set of SCIM ids (those
// that exist).
func (q Q) SCIMUsersByUUID(ctx context.Context, uuids []string) (map[string]*model.SCIMUser, error) {
	out := map[string]*model.SCIMUser{}
	list, err := scimUsersIn(ctx, q, "uuid", uuids)
	for _, u := range list {
		out[u.UUID] = u
	}
	return out, err
}

// SCIMUsersByUserID loads the SCIM identities of a set of hubd users.
func (q Q) SCIMUsersByUserID(ctx context.Context, ids []int64) (map[int64]*model.SCIMUser, error) {
	out := map[int64]*model.SCIMUser{}
	list, err := scimUsersIn(ctx, q, "user_id", ids)
	for _, u := range list {
		out[u.UserID] = u
	}
	return out, err
}

// scimUsersIn loads the identities whose col is one of keys.
func scimUsersIn[T any](ctx context.Context, q Q, col string, keys []T) ([]*model.SCIMUser, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	in, args := inList(keys)
	rows, err := q.query(ctx, `SELECT `+scimUserCols+` FROM scim_users WHERE `+col+` IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.SCIMUser
	for rows.Next() {
		u, err := scanSCIMUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// SCIMFilter narrows a list of SCIM resources to one attribute equal to a
// value (SCIM's "eq" is case-insensitive for userName, exact otherwise).
type SCIMFilter struct {
	Attr  string // "", "userName", "externalId", "id", "displayName"
	Value string
}

func (f SCIMFilter) userWhere() (string, []any) {
	switch f.Attr {
	case "userName":
		return ` WHERE lower_user_name = ?`, []any{strings.ToLower(f.Value)}
	case "externalId":
		return ` WHERE external_id = ?`, []any{f.Value}
	case "id":
		return ` WHERE uuid = ?`, []any{f.Value}
	case "displayName":
		return ` WHERE display_name = ?`, []any{f.Value}
	}
	return "", nil
}

// SCIMUsers lists SCIM identities oldest first, with how many match.
func (q Q) SCIMUsers(ctx context.Context, f SCIMFilter, limit, offset int) ([]*model.SCIMUser, int, error) {
	where, args := f.userWhere()
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM scim_users`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	// A deep page seeks: the id it starts at is found on the primary key
	// alone (an index-only skip), and only the page's rows are read, where
	// OFFSET over the rows would fetch every skipped one.
	seek := ` WHERE id >= (SELECT id FROM scim_users` + where + ` ORDER BY id LIMIT 1 OFFSET ?)`
	if where != "" {
		seek += ` AND` + strings.TrimPrefix(where, " WHERE")
	}
	rows, err := q.query(ctx, `SELECT `+scimUserCols+` FROM scim_users`+seek+` ORDER BY id LIMIT ?`, append(append(append([]any{}, args...), offset), append(args, limit)...)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.SCIMUser{}
	for rows.Next() {
		u, err := scanSCIMUser(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, u)
	}
	return out, total, rows.Err()
}
