package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// FineGrainedToken is a fine-grained personal access token (github_pat_):
// a user's token reaching one resource owner's repositories (all, a
// subset or none) with fine-grained permissions.
type FineGrainedToken struct {
	Token
	Name, Description string
	ResourceOwnerID   int64
	Selection         string  // authz.SelectionNone, SelectionAll, SelectionSubset
	RepoIDs           []int64 // the subset
	Permissions       map[string]string
}

// NewFineGrainedTokenString makes a token in GitHub's format: github_pat_,
// 22 base62 characters, an underscore and 59 more (93 characters).
func NewFineGrainedTokenString() string {
	return authz.Prefixes[authz.FineGrained] + randomAlnum(22) + "_" + randomAlnum(59)
}

// CreateFineGrainedToken stores t and returns its plaintext, which is
// never stored.
func (q Q) CreateFineGrainedToken(ctx context.Context, t *FineGrainedToken) (string, error) {
	plain := NewFineGrainedTokenString()
	t.Kind, t.LastEight, t.CreatedAt = authz.FineGrained, plain[len(plain)-8:], q.Now()
	var repos any
	if t.Selection == authz.SelectionSubset {
		b, _ := json.Marshal(t.RepoIDs)
		repos = string(b)
	} else if t.Selection == authz.SelectionNone {
		repos = "[]"
	}
	id, err := q.insert(ctx, `INSERT INTO tokens (user_id, kind, hash, last_eight, note, permissions, repo_ids, expires_at, created_at,
 name, description, resource_owner_id, repository_selection) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		t.UserID, string(authz.FineGrained), HashToken(plain), t.LastEight, t.Name, permsColumn(t.Permissions), repos,
		nullUnix(t.ExpiresAt), unix(t.CreatedAt), t.Name, t.Description, t.ResourceOwnerID, t.Selection)
	if err != nil {
		return "", err
	}
	t.ID = id
	return plain, nil
}

// FineGrainedTokenNameTaken reports whether the user has a token of that
// name (GitHub's names are unique per user).
func (q Q) FineGrainedTokenNameTaken(ctx context.Context, userID int64, name string) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM tokens WHERE user_id = ? AND kind = ? AND LOWER(name) = ?`,
		userID, string(authz.FineGrained), strings.ToLower(name)).Scan(&n)
	return n > 0, err
}

// resolveFineGrained completes the caller of a fine-grained token: its
// resource owner and whether the token may reach the owner's private
// resources now (always for a user; for an organization, when its policy
// allows such tokens and its grant is approved, or approval is not
// required).
func (q Q) resolveFineGrained(ctx context.Context, c *authz.Caller) error {
	var (
		owner            sql.NullInt64
		ownerType, login sql.NullString
		status           sql.NullString
		allowed, needsOK sql.NullBool
	)
	err := q.row(ctx, `SELECT t.resource_owner_id, a.type, a.login, g.status, p.fine_grained_allowed, p.approval_required
 FROM tokens t LEFT JOIN accounts a ON a.id = t.resource_owner_id
 LEFT JOIN pat_grants g ON g.token_id = t.id AND g.org_id = t.resource_owner_id
 LEFT JOIN org_pat_policies p ON p.org_id = t.resource_owner_id
 WHERE t.id = ?`, c.TokenID).Scan(&owner, &ownerType, &login, &status, &allowed, &needsOK)
	if err != nil {
		return err
	}
	c.ResourceOwnerID, c.ResourceOwnerLogin = owner.Int64, login.String
	switch {
	case !owner.Valid:
	case ownerType.String != string(model.TypeOrganization):
		c.OwnerAccess = true
	default:
		c.OwnerAccess = (!allowed.Valid || allowed.Bool) &&
			(status.String == PATApproved || status.String == PATPending && needsOK.Valid && !needsOK.Bool)
	}
	return nil
}

// States of an organization's grant to a fine-grained token.
const (
	PATPending  = "pending"
	PATApproved = "approved"
	PATDenied   = "denied"
	PATRevoked  = "revoked"
)

// PATPolicy is an organization's policy for fine-grained tokens.
type PATPolicy struct {
	Allowed          bool // fine-grained tokens may reach its resources
	ApprovalRequired bool // an owner approves each before it may
}

// OrgPATPolicy is an organization's policy; GitHub's defaults (allowed,
// approval required) when it never set one.
func (q Q) OrgPATPolicy(ctx context.Context, orgID int64) (PATPolicy, error) {
	p := PATPolicy{Allowed: true, ApprovalRequired: true}
	err := q.row(ctx, `SELECT fine_grained_allowed, approval_required FROM org_pat_policies WHERE org_id = ?`, orgID).
		Scan(&p.Allowed, &p.ApprovalRequired)
	if err == sql.ErrNoRows {
		err = nil
	}
	return p, err
}

// SetOrgPATPolicy stores an organization's policy.
func (q Q) SetOrgPATPolicy(ctx context.Context, orgID int64, p PATPolicy) error {
	res, err := q.exec(ctx, `UPDATE org_pat_policies SET fine_grained_allowed = ?, approval_required = ? WHERE org_id = ?`,
		p.Allowed, p.ApprovalRequired, orgID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	_, err = q.exec(ctx, `INSERT INTO org_pat_policies (org_id, fine_grained_allowed, approval_required) VALUES (?,?,?)`,
		orgID, p.Allowed, p.ApprovalRequired)
	return err
}

// PATGrant is an organization's grant to a fine-grained token: a request
// while pending, a grant once approved; with the token it is for.
type PATGrant struct {
	ID, OrgID, UserID int64
	Status            string
	Reason            *string // the user's reason for the request
	CreatedAt         time.Time
	GrantedAt         *time.Time
	Token             FineGrainedToken
	Owner             *model.Account // the token's user
}

// CreatePATGrant stores g (its token and organization set).
func (q Q) CreatePATGrant(ctx context.Context, g *PATGrant) error {
	g.CreatedAt = q.Now()
	id, err := q.insert(ctx, `INSERT INTO pat_grants (token_id, org_id, user_id, status, reason, created_at, granted_at) VALUES (?,?,?,?,?,?,?)`,
		g.Token.ID, g.OrgID, g.UserID, g.Status, g.Reason, unix(g.CreatedAt), nullUnix(g.GrantedAt))
	g.ID = id
	return err
}

// PATGrantQuery selects an organization's grants in one state.
type PATGrantQuery struct {
	OrgID      int64
	Status     string
	Owners     []string // token users' logins
	RepoID     int64    // tokens reaching this repository (0: any)
	Permission string   // "issues" or "issues_read" / "issues_write" / "issues_admin"
	TokenIDs   []int64
	Asc        bool
	// Tokens used before or after a time: hubd does not record when a
	// token was last used (no write on the read path), so these match no
	// token.
	LastUsed      bool
	IDs           []int64 // these grants only
	Limit, Offset int
}

const patGrantCols = `g.id, g.org_id, g.user_id, g.status, g.reason, g.created_at, g.granted_at,
 t.id, t.name, t.description, t.repository_selection, t.repo_ids, t.permissions, t.expires_at, t.created_at`

func (f PATGrantQuery) where() (string, []any) {
	cond := []string{`g.org_id = ?`, `g.status = ?`}
	args := []any{f.OrgID, f.Status}
	if len(f.Owners) > 0 {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(f.Owners)), ",")
		cond = append(cond, `g.user_id IN (SELECT id FROM accounts WHERE lower_login IN (`+ph+`))`)
		for _, o := range f.Owners {
			args = append(args, strings.ToLower(o))
		}
	}
	if f.RepoID != 0 {
		cond = append(cond, `(t.repository_selection = 'all' OR (',' || REPLACE(REPLACE(t.repo_ids, '[', ''), ']', '') || ',') LIKE ?)`)
		args = append(args, "%,"+strconv.FormatInt(f.RepoID, 10)+",%")
	}
	if f.Permission != "" {
		name, level := f.Permission, ""
		for _, l := range []string{"read", "write", "admin"} {
			if n, ok := strings.CutSuffix(f.Permission, "_"+l); ok && len(authz.PermissionLevels[n]) > 0 {
				name, level = n, l
			}
		}
		if level == "" {
			cond = append(cond, `t.permissions LIKE ?`)
			args = append(args, `%"`+name+`":%`)
		} else {
			cond = append(cond, `t.permissions LIKE ?`)
			args = append(args, `%"`+name+`":"`+level+`"%`)
		}
	}
	if len(f.TokenIDs) > 0 {
		in, a := inList(f.TokenIDs)
		cond = append(cond, `t.id IN (`+in+`)`)
		args = append(args, a...)
	}
	if len(f.IDs) > 0 {
		in, a := inList(f.IDs)
		cond = append(cond, `g.id IN (`+in+`)`)
		args = append(args, a...)
	}
	if f.LastUsed {
		cond = append(cond, `1 = 0`)
	}
	return strings.Join(cond, " AND "), args
}

// PATGrants is one page of an organization's grants in a state, by
// creation time, with their tokens and users, and their count.
func (q Q) PATGrants(ctx context.Context, f PATGrantQuery) ([]*PATGrant, int, error) {
	cond, args := f.where()
	from := ` FROM pat_grants g JOIN tokens t ON t.id = g.token_id WHERE ` + cond
	var total int
	if err := q.row(ctx, `SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	dir := "DESC"
	if f.Asc {
		dir = "ASC"
	}
	limit := ""
	if f.Limit > 0 {
		limit = ` LIMIT ? OFFSET ?`
		args = append(args, f.Limit, f.Offset)
	}
	rows, err := q.query(ctx, `SELECT `+patGrantCols+from+` ORDER BY g.created_at `+dir+`, g.id `+dir+limit, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	list := []*PATGrant{}
	var users []int64
	for rows.Next() {
		g := &PATGrant{}
		var reason, repoIDs sql.NullString
		var perms string
		var created, tokCreated int64
		var granted, expires sql.NullInt64
		t := &g.Token
		if err := rows.Scan(&g.ID, &g.OrgID, &g.UserID, &g.Status, &reason, &created, &granted,
			&t.ID, &t.Name, &t.Description, &t.Selection, &repoIDs, &perms, &expires, &tokCreated); err != nil {
			return nil, 0, err
		}
		if reason.Valid {
			g.Reason = &reason.String
		}
		g.CreatedAt, g.GrantedAt = fromUnix(created), fromNullUnix(granted)
		t.Kind, t.UserID, t.ResourceOwnerID, t.ExpiresAt, t.CreatedAt = authz.FineGrained, g.UserID, g.OrgID, fromNullUnix(expires), fromUnix(tokCreated)
		if err := unmarshalPerms(perms, &t.Permissions); err != nil {
			return nil, 0, err
		}
		if repoIDs.Valid {
			if err := json.Unmarshal([]byte(repoIDs.String), &t.RepoIDs); err != nil {
				return nil, 0, err
			}
		}
		list = append(list, g)
		users = append(users, g.UserID)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	accounts, err := q.AccountsByID(ctx, uniq(users))
	if err != nil {
		return nil, 0, err
	}
	for _, g := range list {
		g.Owner = accounts[g.UserID]
	}
	return list, total, nil
}

// PATGrant finds one grant of an organization in a state
// (model.ErrNotFound when there is none).
func (q Q) PATGrant(ctx context.Context, orgID, id int64, status string) (*PATGrant, error) {
	list, _, err := q.PATGrants(ctx, PATGrantQuery{OrgID: orgID, Status: status, IDs: []int64{id}})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// SetPATGrantStatus moves grants of an organization from one state to
// another, recording the reviewer and, on approval, when access was
// granted. It reports how many moved.
func (q Q) SetPATGrantStatus(ctx context.Context, orgID int64, ids []int64, from, to string, reviewerID int64, reason *string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	in, args := inList(ids)
	var granted any
	if to == PATApproved {
		granted = unix(q.Now())
	}
	var reviewer any
	if reviewerID != 0 {
		reviewer = reviewerID
	}
	all := append([]any{to, reviewer, reason, granted}, orgID, from)
	all = append(all, args...)
	res, err := q.exec(ctx, `UPDATE pat_grants SET status = ?, reviewer_id = ?, review_reason = ?, granted_at = COALESCE(?, granted_at)
 WHERE org_id = ? AND status = ? AND id IN (`+in+`)`, all...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
