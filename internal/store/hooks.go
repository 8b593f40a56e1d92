package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Webhooks (owned by internal/hooks): hooks of repositories, organizations
// and apps; the payloads built from the events outbox; one delivery row per
// attempt to send a payload to a hook. The dispatcher's place in the
// outbox is an outbox cursor (outbox.go).

const hookCols = `id, repo_id, org_id, app_id, name, active, events, url, content_type, secret, insecure_ssl, since_event, last_code, last_status, last_message, creator_id, created_at, updated_at`

func scanHook(sc scanner) (*model.Hook, error) {
	h := &model.Hook{}
	var repo, org, app, code, creator sql.NullInt64
	var events string
	var created, updated int64
	err := sc.Scan(&h.ID, &repo, &org, &app, &h.Name, &h.Active, &events, &h.URL, &h.ContentType, &h.Secret, &h.InsecureSSL,
		&h.SinceEvent, &code, &h.LastStatus, &h.LastMessage, &creator, &created, &updated)
	if err != nil {
		return nil, err
	}
	h.RepoID, h.OrgID, h.AppID, h.CreatorID = repo.Int64, org.Int64, app.Int64, creator.Int64
	if code.Valid {
		c := int(code.Int64)
		h.LastCode = &c
	}
	if err := json.Unmarshal([]byte(events), &h.Events); err != nil {
		return nil, err
	}
	h.CreatedAt, h.UpdatedAt = fromUnix(created), fromUnix(updated)
	return h, nil
}

func (q Q) hooks(ctx context.Context, query string, args ...any) ([]*model.Hook, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Hook{}
	for rows.Next() {
		h, err := scanHook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// HookTarget names what hooks are installed on: one of its ids is set.
type HookTarget struct{ RepoID, OrgID, AppID int64 }

func (t HookTarget) where() (string, any) {
	switch {
	case t.RepoID != 0:
		return "repo_id = ?", t.RepoID
	case t.OrgID != 0:
		return "org_id = ?", t.OrgID
	}
	return "app_id = ?", t.AppID
}

// CreateHook inserts h (its events sorted by the caller) and sets its id.
// SinceEvent is taken here: the newest event id, so that the hook gets
// only what happens after it exists.
func (q Q) CreateHook(ctx context.Context, h *model.Hook) error {
	now := q.Now()
	h.CreatedAt, h.UpdatedAt = now, now
	if err := q.row(ctx, `SELECT COALESCE(MAX(id), 0) FROM events`).Scan(&h.SinceEvent); err != nil {
		return err
	}
	ev, err := json.Marshal(h.Events)
	if err != nil {
		return err
	}
	h.ID, err = q.insert(ctx, `INSERT INTO hooks (repo_id, org_id, app_id, name, active, events, url, content_type, secret, insecure_ssl,
 since_event, last_status, last_message, creator_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,'','',?,?,?)`,
		idOrNil(h.RepoID), idOrNil(h.OrgID), idOrNil(h.AppID), h.Name, h.Active, string(ev), h.URL, h.ContentType, h.Secret,
		h.InsecureSSL, h.SinceEvent, idOrNil(h.CreatorID), unix(now), unix(now))
	return err
}

// UpdateHook writes h's settings.
func (q Q) UpdateHook(ctx context.Context, h *model.Hook) error {
	h.UpdatedAt = q.Now()
	ev, err := json.Marshal(h.Events)
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `UPDATE hooks SET active = ?, events = ?, url = ?, content_type = ?, secret = ?, insecure_ssl = ?, updated_at = ? WHERE id = ?`,
		h.Active, string(ev), h.URL, h.ContentType, h.Secret, h.InsecureSSL, unix(h.UpdatedAt), h.ID)
	return err
}

// DeleteHook removes a hook with its deliveries and the payloads no other
// hook's delivery shares.
func (q Q) DeleteHook(ctx context.Context, id int64) error {
	rows, err := q.query(ctx, `SELECT DISTINCT payload_id FROM hook_deliveries WHERE hook_id = ?`, id)
	if err != nil {
		return err
	}
	var payloads []int64
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return err
		}
		payloads = append(payloads, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM hook_deliveries WHERE hook_id = ?`, id); err != nil {
		return err
	}
	if err := q.dropUnusedPayloads(ctx, payloads); err != nil {
		return err
	}
	_, err = q.exec(ctx, `DELETE FROM hooks WHERE id = ?`, id)
	return err
}

// dropUnusedPayloads deletes those of the payloads no delivery uses.
func (q Q) dropUnusedPayloads(ctx context.Context, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), 100)
		in, args := inList(ids[:n])
		ids = ids[n:]
		if _, err := q.exec(ctx, `DELETE FROM hook_payloads WHERE id IN (`+in+`)
 AND NOT EXISTS (SELECT 1 FROM hook_deliveries d WHERE d.payload_id = hook_payloads.id)`, args...); err != nil {
			return err
		}
	}
	return nil
}

// ExpireHookDeliveries deletes delivered deliveries made before before,
// at most limit of them, with the payloads left unused; it reports how
// many it deleted.
func (q Q) ExpireHookDeliveries(ctx context.Context, before time.Time, limit int) (int, error) {
	rows, err := q.query(ctx, `SELECT id, payload_id FROM hook_deliveries WHERE delivered = TRUE AND created_at < ? ORDER BY id LIMIT ?`, unix(before), limit)
	if err != nil {
		return 0, err
	}
	var ids, payloads []int64
	seen := map[int64]bool{}
	for rows.Next() {
		var id, p int64
		if err := rows.Scan(&id, &p); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
		if !seen[p] {
			seen[p] = true
			payloads = append(payloads, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if err := q.deleteIDs(ctx, "hook_deliveries", ids); err != nil {
		return 0, err
	}
	return len(ids), q.dropUnusedPayloads(ctx, payloads)
}

// deleteIDs deletes the rows of table with these ids, 100 a statement.
func (q Q) deleteIDs(ctx context.Context, table string, ids []int64) error {
	for rest := ids; len(rest) > 0; {
		n := min(len(rest), 100)
		in, args := inList(rest[:n])
		rest = rest[n:]
		if _, err := q.exec(ctx, `DELETE FROM `+table+` WHERE id IN (`+in+`)`, args...); err != nil {
			return err
		}
	}
	return nil
}

// HookOf finds hook id of a target (model.ErrNotFound when it is another's).
func (q Q) HookOf(ctx context.Context, t HookTarget, id int64) (*model.Hook, error) {
	w, arg := t.where()
	h, err := scanHook(q.row(ctx, `SELECT `+hookCols+` FROM hooks WHERE id = ? AND `+w, id, arg))
	return h, notFound(err)
}

// HookByID finds a hook by id alone (the delivery worker).
func (q Q) HookByID(ctx context.Context, id int64) (*model.Hook, error) {
	h, err := scanHook(q.row(ctx, `SELECT `+hookCols+` FROM hooks WHERE id = ?`, id))
	return h, notFound(err)
}

// ListHooks is one page of a target's hooks, oldest first, and their count.
func (q Q) ListHooks(ctx context.Context, t HookTarget, limit, offset int) ([]*model.Hook, int, error) {
	w, arg := t.where()
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM hooks WHERE `+w, arg).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.hooks(ctx, `SELECT `+hookCols+` FROM hooks WHERE `+w+` ORDER BY id LIMIT ? OFFSET ?`, arg, limit, offset)
	return list, total, err
}

// HooksWithURL lists the hooks of a target that deliver to url (creation
// refuses a second hook with the same URL and overlapping events).
func (q Q) HooksWithURL(ctx context.Context, t HookTarget, url string) ([]*model.Hook, error) {
	w, arg := t.where()
	return q.hooks(ctx, `SELECT `+hookCols+` FROM hooks WHERE `+w+` AND url = ? ORDER BY id`, arg, url)
}

// ActiveHooks lists the active hooks of the given repositories,
// organizations and apps (the dispatcher, for one batch of events).
func (q Q) ActiveHooks(ctx context.Context, repoIDs, orgIDs, appIDs []int64) ([]*model.Hook, error) {
	var out []*model.Hook
	for _, part := range []struct {
		col string
		ids []int64
	}{{"repo_id", repoIDs}, {"org_id", orgIDs}, {"app_id", appIDs}} {
		for len(part.ids) > 0 {
			n := min(len(part.ids), 100)
			in, args := inList(part.ids[:n])
			part.ids = part.ids[n:]
			list, err := q.hooks(ctx, `SELECT `+hookCols+` FROM hooks WHERE active = TRUE AND `+part.col+` IN (`+in+`) ORDER BY id`, args...)
			if err != nil {
				return nil, err
			}
			out = append(out, list...)
		}
	}
	return out, nil
}

// HookFloor is the smallest since_event of the active hooks: events up to
// it concern none of them. ok is false when no hook is active.
func (q Q) HookFloor(ctx context.Context) (floor int64, ok bool, err error) {
	var v sql.NullInt64
	if err := q.row(ctx, `SELECT MIN(since_event) FROM hooks WHERE active = TRUE`).Scan(&v); err != nil {
		return 0, false, err
	}
	return v.Int64, v.Valid, nil
}

// InsertHookPayload stores a payload and sets its id.
func (q Q) InsertHookPayload(ctx context.Context, p *model.HookPayload) error {
	p.CreatedAt = q.Now()
	var err error
	p.ID, err = q.insert(ctx, `INSERT INTO hook_payloads (event, action, body, created_at) VALUES (?,?,?,?)`,
		p.Event, nullText(p.Action), string(p.Body), unix(p.CreatedAt))
	return err
}

// InsertHookDelivery queues a delivery (Delivered false) and sets its id.
func (q Q) InsertHookDelivery(ctx context.Context, d *model.HookDelivery) error {
	d.CreatedAt = q.Now()
	var err error
	if d.Attempt < 1 {
		d.Attempt = 1
	}
	var retryAt any
	if !d.RetryAt.IsZero() {
		retryAt = unix(d.RetryAt)
	}
	d.ID, err = q.insert(ctx, `INSERT INTO hook_deliveries (hook_id, payload_id, guid, event, action, repo_id, installation_id, redelivery,
 delivered, status, status_code, duration_us, request_headers, response_headers, created_at, attempt, retry_at)
 VALUES (?,?,?,?,?,?,?,?,FALSE,'',0,0,'{}','{}',?,?,?)`,
		d.HookID, d.PayloadID, d.GUID, d.Event, nullText(d.Action), idOrNil(d.RepoID), idOrNil(d.InstallationID), d.Redelivery, unix(d.CreatedAt),
		d.Attempt, retryAt)
	return err
}

// CancelHookRetries drops the waiting retries of deliveries of a hook by
// GUID (one of their attempts got through).
func (q Q) CancelHookRetries(ctx context.Context, hookID int64, guids []string) error {
	if len(guids) == 0 {
		return nil
	}
	args := []any{hookID}
	for _, g := range guids {
		args = append(args, g)
	}
	_, err := q.exec(ctx, `DELETE FROM hook_deliveries WHERE hook_id = ? AND delivered = FALSE AND retry_at IS NOT NULL AND guid IN (`+
		strings.TrimSuffix(strings.Repeat("?,", len(guids)), ",")+`)`, args...)
	return err
}

// NextHookRetry is when the earliest retry of a hook that is not due yet
// may be sent (false: none waits).
func (q Q) NextHookRetry(ctx context.Context, hookID int64) (time.Time, bool, error) {
	var at sql.NullInt64
	err := q.row(ctx, `SELECT MIN(retry_at) FROM hook_deliveries WHERE hook_id = ? AND delivered = FALSE AND retry_at > ?`,
		hookID, unix(q.Now())).Scan(&at)
	if err != nil || !at.Valid {
		return time.Time{}, false, err
	}
	return fromUnix(at.Int64), true, nil
}

const deliveryCols = `d.id, d.hook_id, d.payload_id, d.guid, d.event, d.action, d.repo_id, d.installation_id, d.redelivery, d.delivered,
 d.status, d.status_code, d.duration_us, d.delivered_at, d.request_headers, d.response_headers, d.response_body, d.created_at, d.attempt, d.retry_at,
 d.started_at`

func scanDelivery(sc scanner, extra ...any) (*model.HookDelivery, error) {
	d := &model.HookDelivery{}
	var action, respBody sql.NullString
	var repo, inst, delivered, retryAt, started sql.NullInt64
	var dur, created int64
	var reqH, respH string
	dest := append([]any{&d.ID, &d.HookID, &d.PayloadID, &d.GUID, &d.Event, &action, &repo, &inst, &d.Redelivery, &d.Delivered,
		&d.Status, &d.StatusCode, &dur, &delivered, &reqH, &respH, &respBody, &created, &d.Attempt, &retryAt, &started}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	d.Action, d.RepoID, d.InstallationID = action.String, repo.Int64, inst.Int64
	d.Duration = time.Duration(dur) * time.Microsecond
	if delivered.Valid {
		d.DeliveredAt = fromUnix(delivered.Int64)
	}
	if retryAt.Valid {
		d.RetryAt = fromUnix(retryAt.Int64)
	}
	if started.Valid {
		d.StartedAt = fromUnix(started.Int64)
	}
	d.ResponseBody = nullStr(respBody)
	d.CreatedAt = fromUnix(created)
	if err := json.Unmarshal([]byte(reqH), &d.RequestHeaders); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(respH), &d.ResponseHeaders); err != nil {
		return nil, err
	}
	return d, nil
}

// PendingHookDeliveries are the oldest deliveries of a hook that wait for
// the worker and are due (a retry waits for its retry_at), with their
// payloads.
func (q Q) PendingHookDeliveries(ctx context.Context, hookID int64, limit int) ([]*model.HookDelivery, error) {
	rows, err := q.query(ctx, `SELECT `+deliveryCols+`, p.body FROM hook_deliveries d JOIN hook_payloads p ON p.id = d.payload_id
 WHERE d.hook_id = ? AND d.delivered = FALSE AND (d.retry_at IS NULL OR d.retry_at <= ?) ORDER BY d.id LIMIT ?`, hookID, unix(q.Now()), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.HookDelivery
	for rows.Next() {
		var body string
		d, err := scanDelivery(rows, &body)
		if err != nil {
			return nil, err
		}
		d.Payload = []byte(body)
		out = append(out, d)
	}
	return out, rows.Err()
}

// StartHookDeliveries marks waiting deliveries as being sent and returns
// the ids it marked: one begun or recorded already is left out. Commit it
// before sending: a delivery found begun and not recorded is one whose
// sender stopped, and is not sent again.
func (q Q) StartHookDeliveries(ctx context.Context, ids []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(ids))
	for start := 0; start < len(ids); start += 100 {
		in, args := inList(ids[start:min(start+100, len(ids))])
		rows, err := q.query(ctx, `UPDATE hook_deliveries SET started_at = ? WHERE id IN (`+in+`)
 AND delivered = FALSE AND started_at IS NULL RETURNING id`, append([]any{unix(q.Now())}, args...)...)
		if err := addIDs(rows, err, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UnstartHookDelivery takes back the mark of a delivery begun and then not
// sent after all (its sender is alive and knows): it waits to be sent again.
func (q Q) UnstartHookDelivery(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `UPDATE hook_deliveries SET started_at = NULL WHERE id = ? AND delivered = FALSE`, id)
	return err
}

// RecordHookDeliveries writes what sending each delivery gave and the
// hook's last response (the last of them; lastMessage "" leaves the hook's
// last response as it is). A delivery already recorded (by a worker whose
// lease ran out) is left as it is.
func (q Q) RecordHookDeliveries(ctx context.Context, hookID int64, list []*model.HookDelivery, lastMessage string) error {
	if len(list) == 0 {
		return nil
	}
	for _, d := range list {
		reqH, err := json.Marshal(d.RequestHeaders)
		if err != nil {
			return err
		}
		respH, err := json.Marshal(d.ResponseHeaders)
		if err != nil {
			return err
		}
		_, err = q.exec(ctx, `UPDATE hook_deliveries SET delivered = TRUE, status = ?, status_code = ?, duration_us = ?, delivered_at = ?,
 request_headers = ?, response_headers = ?, response_body = ? WHERE id = ? AND delivered = FALSE`,
			d.Status, d.StatusCode, d.Duration.Microseconds(), unix(d.DeliveredAt), string(reqH), string(respH), strOrNil(d.ResponseBody), d.ID)
		if err != nil {
			return err
		}
	}
	if lastMessage == "" {
		return nil
	}
	last := list[len(list)-1]
	code := last.StatusCode
	status := "active"
	if last.StatusCode < 200 || last.StatusCode >= 300 {
		status = "misconfigured"
	}
	_, err := q.exec(ctx, `UPDATE hooks SET last_code = ?, last_status = ?, last_message = ? WHERE id = ?`, code, status, lastMessage, hookID)
	return err
}

// HookDeliveryQuery selects a page of a hook's delivered deliveries, newest
// first: those with ids below Before (0: from the newest), with Status
// "success" or "failure" ("": both).
type HookDeliveryQuery struct {
	HookID int64
	Before int64
	Status string
	Limit  int
}

// ListHookDeliveries returns one page and whether more follow.
func (q Q) ListHookDeliveries(ctx context.Context, f HookDeliveryQuery) ([]*model.HookDelivery, bool, error) {
	where, args := `d.hook_id = ? AND d.delivered = TRUE`, []any{f.HookID}
	if f.Before > 0 {
		where += ` AND d.id < ?`
		args = append(args, f.Before)
	}
	switch f.Status {
	case "success":
		where += ` AND d.status_code >= 200 AND d.status_code < 300`
	case "failure":
		where += ` AND (d.status_code < 200 OR d.status_code >= 300)`
	}
	rows, err := q.query(ctx, `SELECT `+deliveryCols+` FROM hook_deliveries d WHERE `+where+` ORDER BY d.id DESC LIMIT ?`, append(args, f.Limit+1)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := []*model.HookDelivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	return out, more, nil
}

// HookDeliveryByID finds a delivered delivery of a hook with its payload.
func (q Q) HookDeliveryByID(ctx context.Context, hookID, id int64) (*model.HookDelivery, error) {
	var body string
	d, err := scanDelivery(q.row(ctx, `SELECT `+deliveryCols+`, p.body FROM hook_deliveries d JOIN hook_payloads p ON p.id = d.payload_id
 WHERE d.id = ? AND d.hook_id = ? AND d.delivered = TRUE`, id, hookID), &body)
	if err != nil {
		return nil, notFound(err)
	}
	d.Payload = []byte(body)
	return d, nil
}

// LatestPushEvent is the newest push domain event of a repository that
// updated a branch (model.ErrNotFound when there is none).
func (q Q) LatestPushEvent(ctx context.Context, repoID int64) (*model.Event, error) {
	rows, err := q.query(ctx, `SELECT id, type, actor_id, repo_id, org_id, payload, created_at FROM events
 WHERE repo_id = ? AND type = 'push' ORDER BY id DESC LIMIT 1`, repoID)
	if err != nil {
		return nil, err
	}
	list, err := scanEvents(rows)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return &list[0], nil
}

// HookDeliveryCounts counts deliveries waiting for the worker and those
// made (operators, tests).
func (q Q) HookDeliveryCounts(ctx context.Context) (pending, delivered int, err error) {
	err = q.row(ctx, `SELECT COALESCE(SUM(CASE WHEN delivered THEN 0 ELSE 1 END), 0), COALESCE(SUM(CASE WHEN delivered THEN 1 ELSE 0 END), 0)
 FROM hook_deliveries`).Scan(&pending, &delivered)
	return pending, delivered, err
}

// AppHookTarget is an app's active hook that gets a repository's events
// through one of the app's installations, with the events the
// installation subscribed to.
type AppHookTarget struct {
	Hook           *model.Hook
	RepoID         int64
	OrgID          int64 // AppOrgHookTargets
	InstallationID int64
	Events         []string
}

// AppHookTargets lists, for repositories, the active hooks of the apps
// installed on them (all of the owner's repositories or these selected),
// leaving out suspended installations.
func (q Q) AppHookTargets(ctx context.Context, repoIDs []int64) ([]AppHookTarget, error) {
	return q.appHookTargets(ctx, repoIDs, false, `SELECT h.`+hookColsH+`, r.id, i.id, i.events FROM hooks h
 JOIN app_installations i ON i.app_id = h.app_id AND i.suspended_at IS NULL
 JOIN repos r ON r.owner_id = i.account_id
 WHERE h.active = TRUE AND r.id IN (%s)
 AND (i.repository_selection = 'all' OR EXISTS (SELECT 1 FROM app_installation_repos x WHERE x.installation_id = i.id AND x.repo_id = r.id))
 ORDER BY h.id, r.id`)
}

// AppOrgHookTargets lists, for organizations, the active hooks of the
// apps installed on them (not suspended), for the organization's own
// events (RepoID is 0 in the targets; OrgID is the organization).
func (q Q) AppOrgHookTargets(ctx context.Context, orgIDs []int64) ([]AppHookTarget, error) {
	return q.appHookTargets(ctx, orgIDs, true, `SELECT h.`+hookColsH+`, i.account_id, i.id, i.events FROM hooks h
 JOIN app_installations i ON i.app_id = h.app_id AND i.suspended_at IS NULL
 WHERE h.active = TRUE AND i.account_id IN (%s)
 ORDER BY h.id, i.id`)
}

// appHookTargets runs query (its %s the list of ids) 100 ids at a time;
// the first extra column is a repository id, or an organization's (org).
func (q Q) appHookTargets(ctx context.Context, ids []int64, org bool, query string) ([]AppHookTarget, error) {
	var out []AppHookTarget
	for len(ids) > 0 {
		n := min(len(ids), 100)
		in, args := inList(ids[:n])
		ids = ids[n:]
		rows, err := q.query(ctx, fmt.Sprintf(query, in), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var t AppHookTarget
			var events string
			owner := &t.RepoID
			if org {
				owner = &t.OrgID
			}
			h, err := scanHook(rowsWith(rows, owner, &t.InstallationID, &events))
			if err != nil {
				rows.Close()
				return nil, err
			}
			t.Hook = h
			if err := json.Unmarshal([]byte(events), &t.Events); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// hookColsH are hookCols qualified with the alias h.
var hookColsH = strings.ReplaceAll(hookCols, ", ", ", h.")

// rowsWith scans the hook columns and then extra destinations.
type extraScanner struct {
	sc    scanner
	extra []any
}

func (e extraScanner) Scan(dest ...any) error { return e.sc.Scan(append(dest, e.extra...)...) }

func rowsWith(sc scanner, extra ...any) scanner { return extraScanner{sc, extra} }
