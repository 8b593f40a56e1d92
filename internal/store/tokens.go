package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// Token is a stored credential; only its SHA-256 is kept.
type Token struct {
	ID        int64
	UserID    int64
	Kind      authz.TokenKind
	LastEight string
	Note      string
	Scopes    authz.Scopes
	ExpiresAt *time.Time
	CreatedAt time.Time
}

// HashToken is the stored form of a token. Tokens are long random strings,
// so a fast hash is enough (no password stretching needed).
func HashToken(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewTokenString makes a token with GitHub's prefix for kind and 36 random
// base62 characters (classic PATs are 40 characters in all).
func NewTokenString(kind authz.TokenKind) string {
	return authz.Prefixes[kind] + randomAlnum(36)
}

// randomAlnum is n random base62 characters.
func randomAlnum(n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(alnum)))
	for i := range b {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err)
		}
		b[i] = alnum[n.Int64()]
	}
	return string(b)
}

// CreateToken stores a new token for a user and returns its plaintext, which
// is never stored.
func (q Q) CreateToken(ctx context.Context, userID int64, kind authz.TokenKind, scopes authz.Scopes, note string, expires *time.Time) (string, *Token, error) {
	plain := NewTokenString(kind)
	t := &Token{UserID: userID, Kind: kind, LastEight: plain[len(plain)-8:], Note: note, Scopes: scopes, ExpiresAt: expires, CreatedAt: q.Now()}
	id, err := q.insert(ctx, `INSERT INTO tokens (user_id, kind, hash, last_eight, note, scopes, expires_at, created_at) VALUES (?,?,?,?,?,?,?,?)`,
		userID, string(kind), HashToken(plain), t.LastEight, note, scopesColumn(scopes), nullUnix(expires), unix(t.CreatedAt))
	if err != nil {
		return "", nil, err
	}
	t.ID = id
	return plain, t, nil
}

func scopesColumn(s authz.Scopes) string {
	str := ""
	for k := range s {
		if str != "" {
			str += ","
		}
		str += k
	}
	return str
}

// DeleteUserTokens removes every token of a user (admin "delete an
// impersonation OAuth token" and suspension).
func (q Q) DeleteUserTokens(ctx context.Context, userID int64, kind authz.TokenKind) (int64, error) {
	res, err := q.exec(ctx, `DELETE FROM tokens WHERE user_id = ? AND kind = ?`, userID, string(kind))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Authenticate resolves a presented token to a caller. It only reads.
// ok is false when no live token matches.
func (q Q) Authenticate(ctx context.Context, presented string) (c *authz.Caller, ok bool, err error) {
	var (
		tokID                 int64
		kind, scopes, perms   string
		repoIDs               sql.NullString
		expires               sql.NullInt64
		appID, installationID sql.NullInt64
		userID                sql.NullInt64
	)
	err = q.row(ctx, `SELECT t.id, t.kind, t.scopes, t.permissions, t.repo_ids, t.expires_at, t.app_id, t.installation_id, t.user_id
 FROM tokens t WHERE t.hash = ?`, HashToken(presented)).
		Scan(&tokID, &kind, &scopes, &perms, &repoIDs, &expires, &appID, &installationID, &userID)
	if err == sql.ErrNoRows {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if expires.Valid && expires.Int64 <= q.Now().Unix() {
		return nil, false, nil
	}
	c = &authz.Caller{Kind: authz.TokenKind(kind), TokenID: tokID, Scopes: authz.ParseScopes(scopes),
		AppID: appID.Int64, InstallationID: installationID.Int64}
	if expires.Valid {
		c.ExpiresAt = time.Unix(expires.Int64, 0)
	}
	if perms != "" {
		if err := json.Unmarshal([]byte(perms), &c.Permissions); err != nil {
			return nil, false, err
		}
	}
	if repoIDs.Valid {
		var ids []int64
		if err := json.Unmarshal([]byte(repoIDs.String), &ids); err != nil {
			return nil, false, err
		}
		c.RepoIDs = make(map[int64]bool, len(ids))
		for _, id := range ids {
			c.RepoIDs[id] = true
		}
	}
	if userID.Valid {
		u, err := q.AccountByID(ctx, userID.Int64)
		if err == model.ErrNotFound {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if u.SuspendedAt != nil {
			return nil, false, nil
		}
		c.User = u
	}
	if c.Kind == authz.FineGrained {
		// Its resource owner's policy and approval (store/patokens.go).
		if err := q.resolveFineGrained(ctx, c); err != nil {
			return nil, false, err
		}
	}
	if c.Kind == authz.Installation {
		// The installation as it is now limits the token (store/apps.go).
		if ok, err := q.resolveInstallation(ctx, c); !ok || err != nil {
			return nil, false, err
		}
	}
	if c.Kind == authz.UserToServer && c.AppID != 0 {
		// The app as it is now narrows the user (store/oauth.go).
		if ok, err := q.resolveUserApp(ctx, c); !ok || err != nil {
			return nil, false, err
		}
	}
	return c, true, nil
}

// DeleteImpersonationTokens revokes the impersonation tokens a site
// administrator minted for a user: OAuth tokens that belong to no OAuth app
// row (the built-in "GitHub Site Administrator" app). It reports how many
// were removed.
func (q Q) DeleteImpersonationTokens(ctx context.Context, userID int64) (int64, error) {
	res, err := q.exec(ctx, `DELETE FROM tokens WHERE user_id = ? AND kind = ? AND app_id IS NULL AND client_id IS NULL`, userID, string(authz.OAuthApp))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ImpersonationToken finds a live impersonation token of a user with
// exactly these scopes (the oldest when there are several), and its stored
// hash; model.ErrNotFound when there is none.
func (q Q) ImpersonationToken(ctx context.Context, userID int64, scopes authz.Scopes) (*Token, string, error) {
	rows, err := q.query(ctx, `SELECT id, hash, last_eight, note, scopes, expires_at, created_at FROM tokens
 WHERE user_id = ? AND kind = ? AND app_id IS NULL AND client_id IS NULL ORDER BY id`, userID, string(authz.OAuthApp))
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	now := q.Now().Unix()
	for rows.Next() {
		t := &Token{UserID: userID, Kind: authz.OAuthApp}
		var hash, sc string
		var expires sql.NullInt64
		var created int64
		if err := rows.Scan(&t.ID, &hash, &t.LastEight, &t.Note, &sc, &expires, &created); err != nil {
			return nil, "", err
		}
		if expires.Valid && expires.Int64 <= now {
			continue
		}
		t.Scopes, t.ExpiresAt, t.CreatedAt = authz.ParseScopes(sc), fromNullUnix(expires), fromUnix(created)
		if sameScopes(t.Scopes, scopes) {
			return t, hash, nil
		}
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	return nil, "", model.ErrNotFound
}

func sameScopes(a, b authz.Scopes) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
