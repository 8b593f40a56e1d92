package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/hubd/hubd/internal/model"
)

// Secrets of every scope (internal/secrets): one table keyed by feature,
// level, owner (repository or organization id) and environment name, the
// value held as ciphertext; organization secrets with visibility
// "selected" list their repositories in secret_repositories.

const secretCols = `id, app, kind, owner_id, environment, name, value, visibility, created_at, updated_at`

func scanSecret(row rowScanner) (*model.Secret, error) {
	var s model.Secret
	var created, updated int64
	err := row.Scan(&s.ID, &s.Scope.App, &s.Scope.Kind, &s.Scope.OwnerID, &s.Scope.Env, &s.Name, &s.Value, &s.Visibility, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	s.CreatedAt, s.UpdatedAt = fromUnix(created), fromUnix(updated)
	return &s, nil
}

func (q Q) secrets(ctx context.Context, query string, args ...any) ([]*model.Secret, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.Secret
	for rows.Next() {
		s, err := scanSecret(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

const secretWhere = `app = ? AND kind = ? AND owner_id = ? AND environment = ?`

func scopeArgs(sc model.SecretScope) []any { return []any{sc.App, sc.Kind, sc.OwnerID, sc.Env} }

// Secrets lists a scope's secrets by name, a page at a time, with the
// scope's count.
func (q Q) Secrets(ctx context.Context, sc model.SecretScope, limit, offset int) ([]*model.Secret, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM secrets WHERE `+secretWhere, scopeArgs(sc)...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.secrets(ctx, `SELECT `+secretCols+` FROM secrets WHERE `+secretWhere+` ORDER BY name LIMIT ? OFFSET ?`,
		append(scopeArgs(sc), limit, offset)...)
	return list, total, err
}

// Secret is one secret of a scope by its (upper-case) name.
func (q Q) Secret(ctx context.Context, sc model.SecretScope, name string) (*model.Secret, error) {
	return scanSecret(q.row(ctx, `SELECT `+secretCols+` FROM secrets WHERE `+secretWhere+` AND name = ?`, append(scopeArgs(sc), name)...))
}

// CountSecrets counts a scope's secrets (for GitHub's limits).
func (q Q) CountSecrets(ctx context.Context, sc model.SecretScope) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM secrets WHERE `+secretWhere, scopeArgs(sc)...).Scan(&n)
	return n, err
}

// CreateSecret inserts s and returns its id.
func (q Q) CreateSecret(ctx context.Context, s *model.Secret) (int64, error) {
	now := unix(q.Now())
	var repoID, orgID, userID *int64
	switch s.Scope.Kind {
	case model.SecretOrganization:
		orgID = &s.Scope.OwnerID
	case model.SecretUser:
		userID = &s.Scope.OwnerID
	case model.SecretEnterprise:
		// The enterprise's own: no account or repository owns it.
	default:
		repoID = &s.Scope.OwnerID
	}
	return q.insert(ctx, `INSERT INTO secrets (app, kind, owner_id, repo_id, org_id, user_id, environment, name, value, visibility, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		s.Scope.App, s.Scope.Kind, s.Scope.OwnerID, repoID, orgID, userID, s.Scope.Env, s.Name, s.Value, s.Visibility, now, now)
}

// UpdateSecret replaces a secret's value and visibility.
func (q Q) UpdateSecret(ctx context.Context, id int64, value, visibility string) error {
	_, err := q.exec(ctx, `UPDATE secrets SET value = ?, visibility = ?, updated_at = ? WHERE id = ?`, value, visibility, unix(q.Now()), id)
	return err
}

// TouchSecret marks a secret updated (its repositories changed).
func (q Q) TouchSecret(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `UPDATE secrets SET updated_at = ? WHERE id = ?`, unix(q.Now()), id)
	return err
}

// DeleteSecret removes a secret (its repository list goes with it).
func (q Q) DeleteSecret(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM secrets WHERE id = ?`, id)
	return err
}

// DeleteSecretScope removes every secret of a scope (an environment that
// is deleted; repositories and organizations take theirs with them).
func (q Q) DeleteSecretScope(ctx context.Context, sc model.SecretScope) error {
	_, err := q.exec(ctx, `DELETE FROM secrets WHERE `+secretWhere, scopeArgs(sc)...)
	return err
}

// SecretRepoIDs lists the repositories selected for a secret (those that
// still exist), by id, a page at a time, with their count.
func (q Q) SecretRepoIDs(ctx context.Context, secretID int64, limit, offset int) ([]int64, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM secret_repositories s JOIN repos r ON r.id = s.repo_id WHERE s.secret_id = ?`, secretID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT s.repo_id FROM secret_repositories s JOIN repos r ON r.id = s.repo_id WHERE s.secret_id = ? ORDER BY s.repo_id LIMIT ? OFFSET ?`,
		secretID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, total, rows.Err()
}

// SetSecretRepos replaces the repositories selected for a secret.
func (q Q) SetSecretRepos(ctx context.Context, secretID int64, repoIDs []int64) error {
	if _, err := q.exec(ctx, `DELETE FROM secret_repositories WHERE secret_id = ?`, secretID); err != nil {
		return err
	}
	for _, id := range repoIDs {
		if err := q.AddSecretRepo(ctx, secretID, id); err != nil {
			return err
		}
	}
	return nil
}

// AddSecretRepo selects a repository for a secret (again is a no-op).
func (q Q) AddSecretRepo(ctx context.Context, secretID, repoID int64) error {
	_, err := q.exec(ctx, `INSERT INTO secret_repositories (secret_id, repo_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, secretID, repoID)
	return err
}

// RemoveSecretRepo unselects a repository.
func (q Q) RemoveSecretRepo(ctx context.Context, secretID, repoID int64) error {
	_, err := q.exec(ctx, `DELETE FROM secret_repositories WHERE secret_id = ? AND repo_id = ?`, secretID, repoID)
	return err
}

// OrgRepoIDs keeps the ids that are repositories owned by org.
func (q Q) OrgRepoIDs(ctx context.Context, orgID int64, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	return q.idSet(ctx, `SELECT id FROM repos WHERE owner_id = ? AND id IN (`+in+`)`, append([]any{orgID}, args...)...)
}

// orgSecretsFor is the condition on an organization's secrets of app that
// repository repoID (private or not) may use: visibility all, private for
// a private or internal repository, selected when it is selected.
const orgSecretsFor = `app = ? AND kind = 'organization' AND owner_id = ? AND environment = '' AND (visibility = 'all' OR (visibility = 'private' AND ?) OR
 (visibility = 'selected' AND EXISTS (SELECT 1 FROM secret_repositories x WHERE x.secret_id = secrets.id AND x.repo_id = ?)))`

// OrgSecretsForRepo lists, a page at a time, the organization secrets of
// app that a repository of the organization may use.
func (q Q) OrgSecretsForRepo(ctx context.Context, app string, orgID, repoID int64, private bool, limit, offset int) ([]*model.Secret, int, error) {
	args := []any{app, orgID, private, repoID}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM secrets WHERE `+orgSecretsFor, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.secrets(ctx, `SELECT `+secretCols+` FROM secrets WHERE `+orgSecretsFor+` ORDER BY name LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// SecretsForRepo is every secret of app a job of the repository may see:
// its own and, when orgID is not 0, the organization's it may use.
func (q Q) SecretsForRepo(ctx context.Context, app string, repoID, orgID int64, private bool) ([]*model.Secret, error) {
	return q.secrets(ctx, `SELECT `+secretCols+` FROM secrets WHERE (`+secretWhere+`) OR (`+orgSecretsFor+`) ORDER BY kind, name`,
		app, model.SecretRepository, repoID, "", app, orgID, private, repoID)
}

// UserSecretsForRepo is every secret of app of a user selected for a
// repository (Codespaces user secrets).
func (q Q) UserSecretsForRepo(ctx context.Context, app string, userID, repoID int64) ([]*model.Secret, error) {
	return q.secrets(ctx, `SELECT `+secretCols+` FROM secrets WHERE app = ? AND kind = ? AND owner_id = ? AND environment = ''
 AND EXISTS (SELECT 1 FROM secret_repositories x WHERE x.secret_id = secrets.id AND x.repo_id = ?) ORDER BY name`,
		app, model.SecretUser, userID, repoID)
}

// SecretsUnderKey lists up to limit secrets whose ciphertext does not
// start with prefix (rotation of the server key re-encrypts them).
func (q Q) SecretsUnderKey(ctx context.Context, prefix string, limit int) ([]*model.Secret, error) {
	return q.secrets(ctx, `SELECT `+secretCols+` FROM secrets WHERE substr(value, 1, ?) <> ? ORDER BY id LIMIT ?`, len(prefix), prefix, limit)
}

// ReplaceSecretValue swaps a ciphertext for another if it is unchanged
// (re-encryption under a new server key; not an update of the secret).
func (q Q) ReplaceSecretValue(ctx context.Context, id int64, old, value string) error {
	_, err := q.exec(ctx, `UPDATE secrets SET value = ? WHERE id = ? AND value = ?`, value, id, old)
	return err
}
