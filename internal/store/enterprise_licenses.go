package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

// Licensing of the enterprise (owned by internal/enterprise): the seats
// its users consume and its Visual Studio subscriptions.

// seatHolders are the users who consume a seat: active (not suspended)
// users who are active members of an organization or collaborators on an
// organization's repository.
const seatHolders = `SELECT a.id FROM accounts a WHERE a.type = 'User' AND a.suspended_at IS NULL AND (
 EXISTS (SELECT 1 FROM org_members m WHERE m.user_id = a.id AND m.state = 'active')
 OR EXISTS (SELECT 1 FROM repo_collaborators c JOIN repos r ON r.id = c.repo_id JOIN accounts o ON o.id = r.owner_id
  WHERE c.user_id = a.id AND o.type = 'Organization'))`

// SeatHolder is one user who consumes a seat, with the organizations and
// their roles there, and their Visual Studio subscription if matched.
type SeatHolder struct {
	User  *model.Account
	Roles []string // "Owner" or "Member" of each organization, "Outside collaborator" for the others
	Orgs  []string
	VSS   *VSSubscription
}

// SeatHolders is one page of the users consuming seats (by login) and
// their count, in four queries.
func (q Q) SeatHolders(ctx context.Context, limit, offset int) ([]SeatHolder, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM (`+seatHolders+`) s`).Scan(&total); err != nil {
		return nil, 0, err
	}
	users, err := q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.id IN (`+seatHolders+`)
 ORDER BY a.lower_login LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out := make([]SeatHolder, len(users))
	if len(users) == 0 {
		return out, total, nil
	}
	ids := make([]int64, len(users))
	at := map[int64]int{}
	for i, u := range users {
		out[i].User, ids[i], at[u.ID] = u, u.ID, i
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT m.user_id, m.role, o.login FROM org_members m JOIN accounts o ON o.id = m.org_id
 WHERE m.state = 'active' AND m.user_id IN (`+in+`) ORDER BY o.lower_login`, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var uid int64
		var role, org string
		if err := rows.Scan(&uid, &role, &org); err != nil {
			return nil, 0, err
		}
		label := "Member"
		if role == string(model.RoleAdmin) {
			label = "Owner"
		}
		h := &out[at[uid]]
		h.Orgs = append(h.Orgs, org)
		h.Roles = append(h.Roles, org+":"+label)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	subs, err := q.vsSubscriptions(ctx, ` WHERE v.user_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, 0, err
	}
	for _, v := range subs {
		out[at[v.UserID]].VSS = v
	}
	return out, total, nil
}

// VSSubscription is a Visual Studio subscription of the enterprise.
type VSSubscription struct {
	ID          string
	UserID      int64 // 0: not matched
	Login       string
	Email       string
	ManualMatch bool
}

func (q Q) vsSubscriptions(ctx context.Context, where string, args ...any) ([]*VSSubscription, error) {
	rows, err := q.query(ctx, `SELECT v.subscription_id, v.user_id, COALESCE(a.login, ''), v.email, v.manual_match
 FROM enterprise_vs_subscriptions v LEFT JOIN accounts a ON a.id = v.user_id`+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*VSSubscription{}
	for rows.Next() {
		v := &VSSubscription{}
		var uid sql.NullInt64
		if err := rows.Scan(&v.ID, &uid, &v.Login, &v.Email, &v.ManualMatch); err != nil {
			return nil, err
		}
		v.UserID = uid.Int64
		out = append(out, v)
	}
	return out, rows.Err()
}

// VSSubscriptions is one page of the subscriptions (unmatched ones only
// with unmatchedOnly), by id, and their count.
func (q Q) VSSubscriptions(ctx context.Context, unmatchedOnly bool, limit, offset int) ([]*VSSubscription, int, error) {
	where := ``
	if unmatchedOnly {
		where = ` WHERE v.user_id IS NULL`
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM enterprise_vs_subscriptions v`+where).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.vsSubscriptions(ctx, where+` ORDER BY v.subscription_id LIMIT ? OFFSET ?`, limit, offset)
	return list, total, err
}

// VSSubscription finds one subscription.
func (q Q) VSSubscription(ctx context.Context, id string) (*VSSubscription, error) {
	list, err := q.vsSubscriptions(ctx, ` WHERE v.subscription_id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// MatchVSSubscription records a manual match of a subscription to a user
// (userID 0 removes the match and keeps the subscription).
func (q Q) MatchVSSubscription(ctx context.Context, id string, userID int64, email string) error {
	now := unix(q.Now())
	_, err := q.exec(ctx, `INSERT INTO enterprise_vs_subscriptions (subscription_id, user_id, email, manual_match, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (subscription_id) DO UPDATE SET user_id = excluded.user_id, email = excluded.email,
 manual_match = excluded.manual_match, updated_at = excluded.updated_at`, id, idOrNil(userID), email, userID != 0, now, now)
	return err
}
