package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// CreateOAuthApp stores an OAuth app; secretHash is the SHA-256 of its
// client secret. ErrDuplicate when the client id is taken.
func (q Q) CreateOAuthApp(ctx context.Context, c *model.OAuthClient, secretHash string) error {
	now := q.Now()
	c.CreatedAt, c.UpdatedAt = now, now
	var owner any
	if c.OwnerID != 0 {
		owner = c.OwnerID
	}
	id, err := q.insert(ctx, `INSERT INTO oauth_apps (owner_id, name, url, callback_url, client_id, client_secret_hash, device_flow, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?)`, owner, c.Name, c.URL, c.CallbackURL, c.ClientID, secretHash, c.DeviceFlow, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	c.OAuthAppID = id
	return err
}

// OAuthClient finds the OAuth app or GitHub App with a client id, and the
// hash of its client secret; model.ErrNotFound when there is none.
func (q Q) OAuthClient(ctx context.Context, clientID string) (*model.OAuthClient, string, error) {
	c := &model.OAuthClient{ClientID: clientID}
	var owner sql.NullInt64
	var hash string
	var created, updated int64
	err := q.row(ctx, `SELECT id, owner_id, name, url, callback_url, client_secret_hash, device_flow, created_at, updated_at
 FROM oauth_apps WHERE client_id = ?`, clientID).
		Scan(&c.OAuthAppID, &owner, &c.Name, &c.URL, &c.CallbackURL, &hash, &c.DeviceFlow, &created, &updated)
	if err == sql.ErrNoRows {
		var perms string
		err = q.row(ctx, `SELECT id, owner_id, name, external_url, callback_url, client_secret_hash, device_flow, permissions, created_at, updated_at
 FROM apps WHERE client_id = ?`, clientID).
			Scan(&c.AppID, &owner, &c.Name, &c.URL, &c.CallbackURL, &hash, &c.DeviceFlow, &perms, &created, &updated)
		if err == nil {
			err = unmarshalPerms(perms, &c.Permissions)
		}
	}
	if err != nil {
		return nil, "", notFound(err)
	}
	c.OwnerID = owner.Int64
	c.CreatedAt, c.UpdatedAt = fromUnix(created), fromUnix(updated)
	return c, hash, nil
}

// SetAppCallback sets a GitHub App's callback URL and whether its device
// flow is enabled (the user authorization flows of internal/oauth).
func (q Q) SetAppCallback(ctx context.Context, appID int64, callbackURL string, deviceFlow bool) error {
	_, err := q.exec(ctx, `UPDATE apps SET callback_url = ?, device_flow = ?, updated_at = ? WHERE id = ?`,
		callbackURL, deviceFlow, unix(q.Now()), appID)
	return err
}

// CreateOAuthCode stores a code by the hash of its secret (and, for a
// device code, of its user code).
func (q Q) CreateOAuthCode(ctx context.Context, c *model.OAuthCode, hash, userCodeHash string) error {
	c.CreatedAt = q.Now()
	var user, userCode, token any
	if c.UserID != 0 {
		user = c.UserID
	}
	if userCodeHash != "" {
		userCode = userCodeHash
	}
	if c.TokenID != 0 {
		token = c.TokenID
	}
	// Expired codes of the client go as new ones come (no sweep needed).
	if _, err := q.exec(ctx, `DELETE FROM oauth_codes WHERE client_id = ? AND expires_at <= ?`, c.ClientID, unix(c.CreatedAt)); err != nil {
		return err
	}
	id, err := q.insert(ctx, `INSERT INTO oauth_codes (kind, hash, user_code_hash, client_id, user_id, scopes, redirect_uri, code_challenge, state, interval_s, token_id, expires_at, created_at)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`, c.Kind, hash, userCode, c.ClientID, user, c.Scopes, c.RedirectURI, c.CodeChallenge, c.State, c.Interval, token,
		unix(c.ExpiresAt), unix(c.CreatedAt))
	c.ID = id
	return err
}

const codeCols = `id, kind, client_id, user_id, scopes, redirect_uri, code_challenge, state, interval_s, last_poll_at, token_id, expires_at, created_at`

func scanCode(sc scanner) (*model.OAuthCode, error) {
	c := &model.OAuthCode{}
	var user, token, poll sql.NullInt64
	var expires, created int64
	if err := sc.Scan(&c.ID, &c.Kind, &c.ClientID, &user, &c.Scopes, &c.RedirectURI, &c.CodeChallenge, &c.State, &c.Interval, &poll, &token, &expires, &created); err != nil {
		return nil, notFound(err)
	}
	c.UserID, c.TokenID, c.LastPollAt = user.Int64, token.Int64, fromNullUnix(poll)
	c.ExpiresAt, c.CreatedAt = fromUnix(expires), fromUnix(created)
	return c, nil
}

// OAuthCodeByHash finds a code of a kind by the hash of its secret,
// expired or not; model.ErrNotFound when there is none.
func (q Q) OAuthCodeByHash(ctx context.Context, kind, hash string) (*model.OAuthCode, error) {
	return scanCode(q.row(ctx, `SELECT `+codeCols+` FROM oauth_codes WHERE kind = ? AND hash = ?`, kind, hash))
}

// DeviceCodeByUserCode finds a device code by the hash of its user code.
func (q Q) DeviceCodeByUserCode(ctx context.Context, userCodeHash string) (*model.OAuthCode, error) {
	return scanCode(q.row(ctx, `SELECT `+codeCols+` FROM oauth_codes WHERE kind = ? AND user_code_hash = ?`, model.OAuthCodeDevice, userCodeHash))
}

// ConsumeOAuthCode deletes a code and reports whether this call deleted it
// (a code is used once even when two requests race for it).
func (q Q) ConsumeOAuthCode(ctx context.Context, id int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM oauth_codes WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// DecideDeviceCode records a user's answer to a pending device code.
func (q Q) DecideDeviceCode(ctx context.Context, id, userID int64, state, scopes string) (bool, error) {
	res, err := q.exec(ctx, `UPDATE oauth_codes SET state = ?, user_id = ?, scopes = ? WHERE id = ? AND state = ?`,
		state, userID, scopes, id, model.DevicePending)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PolledDeviceCode records a poll of a device code and its interval.
func (q Q) PolledDeviceCode(ctx context.Context, id int64, at time.Time, interval int) error {
	_, err := q.exec(ctx, `UPDATE oauth_codes SET last_poll_at = ?, interval_s = ? WHERE id = ?`, unix(at), interval, id)
	return err
}

// ClientToken is a token an OAuth app or a GitHub App obtained for a user.
type ClientToken struct {
	Token
	ClientID string
	AppID    int64
}

// CreateClientToken stores a token issued to a client for a user: an
// OAuth app's gho_ with scopes, or a GitHub App's ghu_ (appID set) that
// expires. The plaintext is returned once and never stored.
func (q Q) CreateClientToken(ctx context.Context, kind authz.TokenKind, userID int64, clientID string, appID int64, scopes authz.Scopes, expires *time.Time) (string, *ClientToken, error) {
	plain := NewTokenString(kind)
	t := &ClientToken{Token: Token{UserID: userID, Kind: kind, LastEight: plain[len(plain)-8:], Scopes: scopes, ExpiresAt: expires, CreatedAt: q.Now()},
		ClientID: clientID, AppID: appID}
	var app any
	if appID != 0 {
		app = appID
	}
	id, err := q.insert(ctx, `INSERT INTO tokens (user_id, kind, hash, last_eight, scopes, app_id, client_id, expires_at, created_at) VALUES (?,?,?,?,?,?,?,?,?)`,
		userID, string(kind), HashToken(plain), t.LastEight, scopesColumn(scopes), app, clientID, nullUnix(expires), unix(t.CreatedAt))
	if err != nil {
		return "", nil, err
	}
	t.ID = id
	return plain, t, nil
}

// ClientTokenByHash finds a live token a client was issued by its hash;
// model.ErrNotFound when there is none (or it expired).
func (q Q) ClientTokenByHash(ctx context.Context, clientID, hash string) (*ClientToken, error) {
	t := &ClientToken{ClientID: clientID}
	var kind, scopes string
	var app, expires sql.NullInt64
	var created int64
	err := q.row(ctx, `SELECT id, user_id, kind, last_eight, scopes, app_id, expires_at, created_at FROM tokens WHERE client_id = ? AND hash = ?`,
		clientID, hash).Scan(&t.ID, &t.UserID, &kind, &t.LastEight, &scopes, &app, &expires, &created)
	if err != nil {
		return nil, notFound(err)
	}
	t.Kind, t.Scopes, t.AppID = authz.TokenKind(kind), authz.ParseScopes(scopes), app.Int64
	t.ExpiresAt, t.CreatedAt = fromNullUnix(expires), fromUnix(created)
	if t.ExpiresAt != nil && !t.ExpiresAt.After(q.Now()) {
		return nil, model.ErrNotFound
	}
	return t, nil
}

// ReplaceTokenSecret gives a token a new secret (reset): the old one stops
// working at once.
func (q Q) ReplaceTokenSecret(ctx context.Context, id int64, plain string) error {
	_, err := q.exec(ctx, `UPDATE tokens SET hash = ?, last_eight = ? WHERE id = ?`, HashToken(plain), plain[len(plain)-8:], id)
	return err
}

// DeleteClientGrant revokes everything a client holds for a user: its
// tokens, refresh tokens and codes.
func (q Q) DeleteClientGrant(ctx context.Context, clientID string, userID int64) error {
	if _, err := q.exec(ctx, `DELETE FROM tokens WHERE client_id = ? AND user_id = ?`, clientID, userID); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM oauth_grants WHERE client_id = ? AND user_id = ?`, clientID, userID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM oauth_codes WHERE client_id = ? AND user_id = ?`, clientID, userID)
	return err
}

// DeleteRefreshTokensOf revokes the refresh tokens issued with a token.
func (q Q) DeleteRefreshTokensOf(ctx context.Context, tokenID int64) error {
	_, err := q.exec(ctx, `DELETE FROM oauth_codes WHERE kind = ? AND token_id = ?`, model.OAuthCodeRefresh, tokenID)
	return err
}

// SetPassword stores a user's password hash (internal/oauth makes it).
func (q Q) SetPassword(ctx context.Context, userID int64, hash string) error {
	now := unix(q.Now())
	res, err := q.exec(ctx, `UPDATE user_passwords SET hash = ?, updated_at = ? WHERE user_id = ?`, hash, now, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	_, err = q.exec(ctx, `INSERT INTO user_passwords (user_id, hash, updated_at) VALUES (?,?,?)`, userID, hash, now)
	return err
}

// PasswordHash is a user's stored password hash; model.ErrNotFound when
// they have none.
func (q Q) PasswordHash(ctx context.Context, userID int64) (string, error) {
	var h string
	err := q.row(ctx, `SELECT hash FROM user_passwords WHERE user_id = ?`, userID).Scan(&h)
	return h, notFound(err)
}

// CreateSession stores a web session by the hash of its cookie; the
// user's expired sessions go.
func (q Q) CreateSession(ctx context.Context, hash string, userID int64, expires time.Time) error {
	if _, err := q.exec(ctx, `DELETE FROM web_sessions WHERE user_id = ? AND expires_at <= ?`, userID, unix(q.Now())); err != nil {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO web_sessions (hash, user_id, expires_at, created_at) VALUES (?,?,?,?)`, hash, userID, unix(expires), unix(q.Now()))
	return err
}

// SessionUser is the user of a live, unsuspended session;
// model.ErrNotFound otherwise.
func (q Q) SessionUser(ctx context.Context, hash string) (*model.Account, error) {
	var userID int64
	if err := q.row(ctx, `SELECT user_id FROM web_sessions WHERE hash = ? AND expires_at > ?`, hash, unix(q.Now())).Scan(&userID); err != nil {
		return nil, notFound(err)
	}
	u, err := q.AccountByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.SuspendedAt != nil {
		return nil, model.ErrNotFound
	}
	return u, nil
}

// DeleteSession ends a web session.
func (q Q) DeleteSession(ctx context.Context, hash string) error {
	_, err := q.exec(ctx, `DELETE FROM web_sessions WHERE hash = ?`, hash)
	return err
}

// resolveUserApp completes the caller of a user access token from its
// GitHub App as it is now: the app's permissions and the repositories its
// installations reach (by account: nil for all of the account's, else the
// selected ones). ok is false when the app is gone.
func (q Q) resolveUserApp(ctx context.Context, c *authz.Caller) (ok bool, err error) {
	var perms string
	err = q.row(ctx, `SELECT permissions FROM apps WHERE id = ?`, c.AppID).Scan(&perms)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var appPerms map[string]string
	if err := unmarshalPerms(perms, &appPerms); err != nil {
		return false, err
	}
	if c.Permissions != nil {
		// A scoped token keeps only what the app still has.
		c.Permissions = authz.IntersectPermissions(c.Permissions, appPerms)
	} else {
		c.Permissions = appPerms
	}
	// A scoped token reaches through its one installation only.
	rows, err := q.query(ctx, `SELECT i.account_id, i.repository_selection, r.repo_id FROM app_installations i
 LEFT JOIN app_installation_repos r ON r.installation_id = i.id AND i.repository_selection <> ?
 WHERE i.app_id = ? AND i.suspended_at IS NULL AND (? = 0 OR i.id = ?)`, model.SelectAll, c.AppID, c.InstallationID, c.InstallationID)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	c.AppReach = map[int64]map[int64]bool{}
	for rows.Next() {
		var account int64
		var selection string
		var repo sql.NullInt64
		if err := rows.Scan(&account, &selection, &repo); err != nil {
			return false, err
		}
		if selection == model.SelectAll {
			c.AppReach[account] = nil
			continue
		}
		set, seen := c.AppReach[account]
		if seen && set == nil {
			continue // another installation reaches all of it
		}
		if set == nil {
			set = map[int64]bool{}
			c.AppReach[account] = set
		}
		if repo.Valid {
			set[repo.Int64] = true
		}
	}
	return true, rows.Err()
}

// CreateScopedUserToken stores a user access token narrowed to one
// installation of its app, perms and, when not nil, repoIDs (apps/scope-token).
func (q Q) CreateScopedUserToken(ctx context.Context, userID int64, clientID string, in *model.Installation, perms map[string]string, repoIDs []int64, expires time.Time) (string, *ClientToken, error) {
	plain := NewTokenString(authz.UserToServer)
	t := &ClientToken{Token: Token{UserID: userID, Kind: authz.UserToServer, LastEight: plain[len(plain)-8:], ExpiresAt: &expires, CreatedAt: q.Now()},
		ClientID: clientID, AppID: in.AppID}
	var repos any
	if repoIDs != nil {
		b, _ := json.Marshal(repoIDs)
		repos = string(b)
	}
	id, err := q.insert(ctx, `INSERT INTO tokens (user_id, kind, hash, last_eight, permissions, repo_ids, app_id, installation_id, client_id, expires_at, created_at)
 VALUES (?,?,?,?,?,?,?,?,?,?,?)`, userID, string(authz.UserToServer), HashToken(plain), t.LastEight, permsColumn(perms), repos, in.AppID, in.ID,
		clientID, unix(expires), unix(t.CreatedAt))
	if err != nil {
		return "", nil, err
	}
	t.ID = id
	return plain, t, nil
}

// OAuthGrant is the consent a user gave a client: the scopes granted so
// far; ok is false when the user never authorized it (or revoked it).
func (q Q) OAuthGrant(ctx context.Context, clientID string, userID int64) (scopes string, ok bool, err error) {
	err = q.row(ctx, `SELECT scopes FROM oauth_grants WHERE client_id = ? AND user_id = ?`, clientID, userID).Scan(&scopes)
	if err == sql.ErrNoRows {
		return "", false, nil
	}
	return scopes, err == nil, err
}

// SaveOAuthGrant records a user's consent to a client with the scopes
// granted now (the caller merges them with earlier ones).
func (q Q) SaveOAuthGrant(ctx context.Context, clientID string, userID int64, scopes string) error {
	now := unix(q.Now())
	_, err := q.exec(ctx, `INSERT INTO oauth_grants (client_id, user_id, scopes, created_at, updated_at) VALUES (?,?,?,?,?)
 ON CONFLICT (client_id, user_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at`, clientID, userID, scopes, now, now)
	return err
}

// OAuthApps lists the OAuth apps (not GitHub Apps), oldest first, a page
// at a time, with their total.
func (q Q) OAuthApps(ctx context.Context, limit, offset int) ([]*model.OAuthClient, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM oauth_apps`).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT id, client_id, owner_id, name, url, callback_url, device_flow, created_at, updated_at
 FROM oauth_apps ORDER BY id LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.OAuthClient
	for rows.Next() {
		c := &model.OAuthClient{}
		var owner sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&c.OAuthAppID, &c.ClientID, &owner, &c.Name, &c.URL, &c.CallbackURL, &c.DeviceFlow, &created, &updated); err != nil {
			return nil, 0, err
		}
		c.OwnerID, c.CreatedAt, c.UpdatedAt = owner.Int64, fromUnix(created), fromUnix(updated)
		out = append(out, c)
	}
	return out, total, rows.Err()
}

// DeleteOAuthApp removes an OAuth app with every token, refresh token,
// code and consent it holds; false when there is no such OAuth app.
func (q Q) DeleteOAuthApp(ctx context.Context, clientID string) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM oauth_apps WHERE client_id = ?`, clientID)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	for _, stmt := range []string{`DELETE FROM tokens WHERE client_id = ?`, `DELETE FROM oauth_codes WHERE client_id = ?`,
		`DELETE FROM oauth_grants WHERE client_id = ?`} {
		if _, err := q.exec(ctx, stmt, clientID); err != nil {
			return false, err
		}
	}
	return true, nil
}
