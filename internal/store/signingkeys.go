package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Signing keys: gpg_keys holds a row per OpenPGP key (subkeys point at
// their primary key, which holds the armored key and the user ids' emails),
// ssh_signing_keys a row per SSH signing key.

const gpgKeyCols = `id, user_id, primary_key_id, name, key_id, public_key, raw_key, emails, can_sign, can_certify,
 can_encrypt_comms, can_encrypt_storage, revoked, created_at, expires_at`

func scanGPGKey(sc rowScanner) (*model.GPGKey, error) {
	k := &model.GPGKey{}
	var primary, expires sql.NullInt64
	var emails string
	var created int64
	if err := sc.Scan(&k.ID, &k.UserID, &primary, &k.Name, &k.KeyID, &k.PublicKey, &k.RawKey, &emails, &k.CanSign, &k.CanCertify,
		&k.CanEncComms, &k.CanEncStore, &k.Revoked, &created, &expires); err != nil {
		return nil, err
	}
	if primary.Valid {
		k.PrimaryKeyID = &primary.Int64
	}
	for _, e := range strings.Split(emails, "\n") {
		if e != "" {
			k.Emails = append(k.Emails, model.GPGKeyEmail{Email: e})
		}
	}
	k.CreatedAt, k.ExpiresAt = fromUnix(created), fromNullUnix(expires)
	return k, nil
}

// CreateGPGKey stores a primary key and its subkeys (their ids and
// PrimaryKeyID are set); ErrDuplicate when a key id is already stored.
func (q Q) CreateGPGKey(ctx context.Context, k *model.GPGKey) error {
	k.CreatedAt = fromUnix(unix(q.Now()))
	insert := func(k *model.GPGKey, primary any) error {
		emails := make([]string, len(k.Emails))
		for i, e := range k.Emails {
			emails[i] = e.Email
		}
		id, err := q.insert(ctx, `INSERT INTO gpg_keys (user_id, primary_key_id, name, key_id, public_key, raw_key, emails, can_sign,
 can_certify, can_encrypt_comms, can_encrypt_storage, revoked, created_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			k.UserID, primary, k.Name, k.KeyID, k.PublicKey, k.RawKey, strings.Join(emails, "\n"), k.CanSign, k.CanCertify,
			k.CanEncComms, k.CanEncStore, k.Revoked, unix(k.CreatedAt), nullUnix(k.ExpiresAt))
		if isUnique(err) {
			return ErrDuplicate
		}
		k.ID = id
		return err
	}
	if err := insert(k, nil); err != nil {
		return err
	}
	for _, sk := range k.Subkeys {
		sk.UserID, sk.CreatedAt, sk.PrimaryKeyID = k.UserID, k.CreatedAt, &k.ID
		if err := insert(sk, k.ID); err != nil {
			return err
		}
	}
	return nil
}

// GPGKeyIDsTaken is which of the key ids (upper-case hex) are stored.
func (q Q) GPGKeyIDsTaken(ctx context.Context, keyIDs []string) ([]string, error) {
	if len(keyIDs) == 0 {
		return nil, nil
	}
	ph, args := inList(keyIDs)
	rows, err := q.query(ctx, `SELECT key_id FROM gpg_keys WHERE key_id IN (`+ph+`) ORDER BY key_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// GPGKeys is a page of a user's primary keys, oldest first, each with its
// subkeys (loaded in one more query), and how many there are.
func (q Q) GPGKeys(ctx context.Context, userID int64, limit, offset int) ([]*model.GPGKey, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM gpg_keys WHERE user_id = ? AND primary_key_id IS NULL`, userID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.gpgKeys(ctx, `SELECT `+gpgKeyCols+` FROM gpg_keys WHERE user_id = ? AND primary_key_id IS NULL
 ORDER BY id LIMIT ? OFFSET ?`, userID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return list, total, q.withSubkeys(ctx, list)
}

// GPGKey is one of a user's primary keys with its subkeys.
func (q Q) GPGKey(ctx context.Context, userID, id int64) (*model.GPGKey, error) {
	list, err := q.gpgKeys(ctx, `SELECT `+gpgKeyCols+` FROM gpg_keys WHERE user_id = ? AND id = ? AND primary_key_id IS NULL`, userID, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], q.withSubkeys(ctx, list)
}

// GPGKeysByKeyID maps key ids (primary or subkey, upper-case hex) to the
// primary key that holds them, with its subkeys; unknown ids are absent.
func (q Q) GPGKeysByKeyID(ctx context.Context, keyIDs []string) (map[string]*model.GPGKey, error) {
	out := map[string]*model.GPGKey{}
	if len(keyIDs) == 0 {
		return out, nil
	}
	ph, args := inList(keyIDs)
	list, err := q.gpgKeys(ctx, `SELECT `+gpgKeyCols+` FROM gpg_keys WHERE id IN (
 SELECT COALESCE(primary_key_id, id) FROM gpg_keys WHERE key_id IN (`+ph+`)) ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	if err := q.withSubkeys(ctx, list); err != nil {
		return nil, err
	}
	for _, k := range list {
		out[k.KeyID] = k
		for _, sk := range k.Subkeys {
			out[sk.KeyID] = k
		}
	}
	return out, nil
}

// DeleteGPGKey removes a user's primary key and its subkeys; false when the
// user has no such key.
func (q Q) DeleteGPGKey(ctx context.Context, userID, id int64) (bool, error) {
	if _, err := q.exec(ctx, `DELETE FROM gpg_keys WHERE primary_key_id = ? AND user_id = ?`, id, userID); err != nil {
		return false, err
	}
	res, err := q.exec(ctx, `DELETE FROM gpg_keys WHERE id = ? AND user_id = ? AND primary_key_id IS NULL`, id, userID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (q Q) gpgKeys(ctx context.Context, query string, args ...any) ([]*model.GPGKey, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.GPGKey{}
	for rows.Next() {
		k, err := scanGPGKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// withSubkeys loads the subkeys of primary keys in one query.
func (q Q) withSubkeys(ctx context.Context, list []*model.GPGKey) error {
	if len(list) == 0 {
		return nil
	}
	byID := map[int64]*model.GPGKey{}
	ids := make([]int64, len(list))
	for i, k := range list {
		ids[i], byID[k.ID] = k.ID, k
		k.Subkeys = []*model.GPGKey{}
	}
	ph, args := inList(ids)
	subs, err := q.gpgKeys(ctx, `SELECT `+gpgKeyCols+` FROM gpg_keys WHERE primary_key_id IN (`+ph+`) ORDER BY id`, args...)
	if err != nil {
		return err
	}
	for _, sk := range subs {
		if p := byID[*sk.PrimaryKeyID]; p != nil {
			p.Subkeys = append(p.Subkeys, sk)
		}
	}
	return nil
}

const sshSigningKeyCols = `id, user_id, title, key, fingerprint, created_at`

func scanSSHSigningKey(sc rowScanner) (*model.SSHSigningKey, error) {
	k := &model.SSHSigningKey{}
	var created int64
	if err := sc.Scan(&k.ID, &k.UserID, &k.Title, &k.Key, &k.Fingerprint, &created); err != nil {
		return nil, err
	}
	k.CreatedAt = fromUnix(created)
	return k, nil
}

// CreateSSHSigningKey stores a signing key (its id and creation time are
// set); ErrDuplicate when its fingerprint is stored.
func (q Q) CreateSSHSigningKey(ctx context.Context, k *model.SSHSigningKey) error {
	k.CreatedAt = fromUnix(unix(q.Now()))
	id, err := q.insert(ctx, `INSERT INTO ssh_signing_keys (user_id, title, key, fingerprint, created_at) VALUES (?,?,?,?,?)`,
		k.UserID, k.Title, k.Key, k.Fingerprint, unix(k.CreatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	k.ID = id
	return err
}

// SSHSigningKeys is a page of a user's signing keys, oldest first, and how
// many there are.
func (q Q) SSHSigningKeys(ctx context.Context, userID int64, limit, offset int) ([]*model.SSHSigningKey, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM ssh_signing_keys WHERE user_id = ?`, userID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.sshSigningKeys(ctx, `SELECT `+sshSigningKeyCols+` FROM ssh_signing_keys WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?`,
		userID, limit, offset)
	return list, total, err
}

// SSHSigningKey is one of a user's signing keys.
func (q Q) SSHSigningKey(ctx context.Context, userID, id int64) (*model.SSHSigningKey, error) {
	k, err := scanSSHSigningKey(q.row(ctx, `SELECT `+sshSigningKeyCols+` FROM ssh_signing_keys WHERE user_id = ? AND id = ?`, userID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.ErrNotFound
	}
	return k, err
}

// SSHSigningKeysByFingerprint maps fingerprints to the stored keys.
func (q Q) SSHSigningKeysByFingerprint(ctx context.Context, fps []string) (map[string]*model.SSHSigningKey, error) {
	out := map[string]*model.SSHSigningKey{}
	if len(fps) == 0 {
		return out, nil
	}
	ph, args := inList(fps)
	list, err := q.sshSigningKeys(ctx, `SELECT `+sshSigningKeyCols+` FROM ssh_signing_keys WHERE fingerprint IN (`+ph+`)`, args...)
	for _, k := range list {
		out[k.Fingerprint] = k
	}
	return out, err
}

// DeleteSSHSigningKey removes a user's signing key; false when there is
// none.
func (q Q) DeleteSSHSigningKey(ctx context.Context, userID, id int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM ssh_signing_keys WHERE id = ? AND user_id = ?`, id, userID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (q Q) sshSigningKeys(ctx context.Context, query string, args ...any) ([]*model.SSHSigningKey, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.SSHSigningKey{}
	for rows.Next() {
		k, err := scanSSHSigningKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
