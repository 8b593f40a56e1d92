package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Push rule bypass requests (owned by internal/rulesets): numbered per
// repository, with their reviewers' responses.

type jsonRuleData struct {
	RulesetID   int64  `json:"ruleset_id"`
	RulesetName string `json:"ruleset_name"`
	RuleType    string `json:"rule_type"`
	Total       int    `json:"total"`
}

const bypassRequestSelect = `SELECT b.id, b.number, b.repo_id, r.name, o.login, COALESCE(b.org_id, 0), b.requester_id, u.login,
 b.resource, b.ref, b.data, b.status, b.requester_comment, b.created_at, b.expires_at
 FROM push_bypass_requests b JOIN repos r ON r.id = b.repo_id JOIN accounts o ON o.id = r.owner_id
 JOIN accounts u ON u.id = b.requester_id`

func scanBypassRequest(sc rowScanner) (*model.PushBypassRequest, error) {
	x := &model.PushBypassRequest{Responses: []model.BypassResponse{}}
	var data string
	var comment sql.NullString
	var created, expires int64
	if err := sc.Scan(&x.ID, &x.Number, &x.RepoID, &x.RepoName, &x.RepoOwner, &x.OrgID, &x.RequesterID, &x.RequesterLogin,
		&x.Resource, &x.Ref, &data, &x.Status, &comment, &created, &expires); err != nil {
		return nil, notFound(err)
	}
	var list []jsonRuleData
	if err := json.Unmarshal([]byte(data), &list); err != nil {
		return nil, err
	}
	for _, d := range list {
		x.Data = append(x.Data, model.BypassRuleData{RulesetID: d.RulesetID, RulesetName: d.RulesetName, RuleType: d.RuleType, Total: d.Total})
	}
	if comment.Valid {
		x.Comment = &comment.String
	}
	x.CreatedAt, x.ExpiresAt = fromUnix(created), fromUnix(expires)
	return x, nil
}

// CreatePushBypassRequest inserts x with the repository's next number and
// sets its id, number and creation time.
func (q Q) CreatePushBypassRequest(ctx context.Context, x *model.PushBypassRequest) error {
	list := make([]jsonRuleData, len(x.Data))
	for i, d := range x.Data {
		list[i] = jsonRuleData{d.RulesetID, d.RulesetName, d.RuleType, d.Total}
	}
	data, err := json.Marshal(list)
	if err != nil {
		return err
	}
	if err := q.row(ctx, `SELECT COALESCE(MAX(number), 0) + 1 FROM push_bypass_requests WHERE repo_id = ?`, x.RepoID).Scan(&x.Number); err != nil {
		return err
	}
	now := q.Now()
	x.CreatedAt = now
	x.ID, err = q.insert(ctx, `INSERT INTO push_bypass_requests (repo_id, org_id, number, requester_id, resource, ref, data, status,
 requester_comment, created_at, expires_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		x.RepoID, idOrNil(x.OrgID), x.Number, x.RequesterID, x.Resource, x.Ref, string(data), x.Status, x.Comment,
		unix(now), unix(x.ExpiresAt), unix(now))
	return err
}

// PushBypassRequestByNumber is a repository's request by number, with its
// responses.
func (q Q) PushBypassRequestByNumber(ctx context.Context, repoID, number int64) (*model.PushBypassRequest, error) {
	x, err := scanBypassRequest(q.row(ctx, bypassRequestSelect+` WHERE b.repo_id = ? AND b.number = ?`, repoID, number))
	if err != nil {
		return nil, err
	}
	return x, q.loadBypassResponses(ctx, []*model.PushBypassRequest{x})
}

// PushBypassRequestsFor are a requester's requests on a repository for a
// pushed commit, newest first (without responses).
func (q Q) PushBypassRequestsFor(ctx context.Context, repoID, requesterID int64, resource string) ([]*model.PushBypassRequest, error) {
	rows, err := q.query(ctx, bypassRequestSelect+` WHERE b.repo_id = ? AND b.requester_id = ? AND b.resource = ? ORDER BY b.id DESC`,
		repoID, requesterID, resource)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.PushBypassRequest
	for rows.Next() {
		x, err := scanBypassRequest(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// SetPushBypassRequestStatus changes a request's status.
func (q Q) SetPushBypassRequestStatus(ctx context.Context, id int64, status string) error {
	_, err := q.exec(ctx, `UPDATE push_bypass_requests SET status = ?, updated_at = ? WHERE id = ?`, status, unix(q.Now()), id)
	return err
}

// AddPushBypassResponse records a reviewer's response.
func (q Q) AddPushBypassResponse(ctx context.Context, requestID int64, r *model.BypassResponse) error {
	r.CreatedAt = q.Now()
	id, err := q.insert(ctx, `INSERT INTO push_bypass_responses (request_id, reviewer_id, status, created_at) VALUES (?,?,?,?)`,
		requestID, r.ReviewerID, r.Status, unix(r.CreatedAt))
	r.ID = id
	return err
}

// PushBypassRequests is one page of the requests f selects, newest
// first, with their responses (one more query for the page), and their
// count.
func (q Q) PushBypassRequests(ctx context.Context, f model.BypassRequestFilter, limit, offset int) ([]*model.PushBypassRequest, int, error) {
	var where []string
	var args []any
	if f.OrgID != 0 {
		where, args = append(where, `b.org_id = ?`), append(args, f.OrgID)
	}
	if f.RepoID != 0 {
		where, args = append(where, `b.repo_id = ?`), append(args, f.RepoID)
	}
	if f.RepositoryName != "" {
		where, args = append(where, `r.lower_name = ?`), append(args, strings.ToLower(f.RepositoryName))
	}
	if f.Requester != "" {
		where, args = append(where, `u.lower_login = ?`), append(args, strings.ToLower(f.Requester))
	}
	if f.Reviewer != "" {
		where = append(where, `EXISTS (SELECT 1 FROM push_bypass_responses p JOIN accounts a ON a.id = p.reviewer_id
 WHERE p.request_id = b.id AND a.lower_login = ?)`)
		args = append(args, strings.ToLower(f.Reviewer))
	}
	if !f.Since.IsZero() {
		where, args = append(where, `b.created_at >= ?`), append(args, unix(f.Since))
	}
	now := unix(q.Now())
	switch f.Status {
	case "":
	case "open":
		where, args = append(where, `b.status IN ('pending', 'approved') AND b.expires_at >= ?`), append(args, now)
	case model.BypassRequestExpired:
		where, args = append(where, `b.status IN ('pending', 'approved') AND b.expires_at < ?`), append(args, now)
	case model.BypassRequestPending, model.BypassRequestApproved:
		where, args = append(where, `b.status = ? AND b.expires_at >= ?`), append(args, f.Status, now)
	default:
		where, args = append(where, `b.status = ?`), append(args, f.Status)
	}
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, ` AND `)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM push_bypass_requests b JOIN repos r ON r.id = b.repo_id
 JOIN accounts u ON u.id = b.requester_id`+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, bypassRequestSelect+cond+` ORDER BY b.created_at DESC, b.id DESC LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.PushBypassRequest{}
	for rows.Next() {
		x, err := scanBypassRequest(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return out, total, q.loadBypassResponses(ctx, out)
}

// loadBypassResponses fills the requests' responses in one query.
func (q Q) loadBypassResponses(ctx context.Context, list []*model.PushBypassRequest) error {
	if len(list) == 0 {
		return nil
	}
	byID := map[int64]*model.PushBypassRequest{}
	marks := make([]string, len(list))
	args := make([]any, len(list))
	for i, x := range list {
		byID[x.ID] = x
		marks[i], args[i] = "?", x.ID
	}
	rows, err := q.query(ctx, `SELECT p.request_id, p.id, p.reviewer_id, a.login, p.status, p.created_at FROM push_bypass_responses p
 JOIN accounts a ON a.id = p.reviewer_id WHERE p.request_id IN (`+strings.Join(marks, ",")+`) ORDER BY p.id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var reqID, created int64
		var r model.BypassResponse
		if err := rows.Scan(&reqID, &r.ID, &r.ReviewerID, &r.ReviewerLogin, &r.Status, &created); err != nil {
			return err
		}
		r.CreatedAt = fromUnix(created)
		byID[reqID].Responses = append(byID[reqID].Responses, r)
	}
	return rows.Err()
}
