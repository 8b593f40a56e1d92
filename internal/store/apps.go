package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// GitHub Apps (owned by internal/apps): apps with their bot account, the
// public halves of their keys, installations on accounts with their
// selected repositories, and installation access tokens (rows of tokens
// with kind installation, the bot as user, app_id and installation_id).

const appCols = `p.id, p.slug, p.name, p.owner_id, p.bot_id, p.description, p.external_url, p.client_id,
 p.permissions, p.events, p.created_at, p.updated_at`

func scanApp(sc scanner) (*model.App, error) {
	a := &model.App{}
	var desc sql.NullString
	var perms, events string
	var created, updated int64
	if err := sc.Scan(&a.ID, &a.Slug, &a.Name, &a.OwnerID, &a.BotID, &desc, &a.ExternalURL, &a.ClientID,
		&perms, &events, &created, &updated); err != nil {
		return nil, err
	}
	if desc.Valid {
		a.Description = &desc.String
	}
	if err := unmarshalPerms(perms, &a.Permissions); err != nil {
		return nil, err
	}
	if err := unmarshalEvents(events, &a.Events); err != nil {
		return nil, err
	}
	a.CreatedAt, a.UpdatedAt = fromUnix(created), fromUnix(updated)
	return a, nil
}

func unmarshalPerms(s string, out *map[string]string) error {
	*out = map[string]string{}
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), out)
}

func unmarshalEvents(s string, out *[]string) error {
	*out = []string{}
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), out)
}

func permsColumn(p map[string]string) string {
	if p == nil {
		p = map[string]string{}
	}
	b, _ := json.Marshal(p) // map keys are sorted: the column is stable
	return string(b)
}

func eventsColumn(e []string) string {
	if e == nil {
		e = []string{}
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// CreateApp stores an app whose bot account (a.BotID) already exists;
// secretHash is the SHA-256 of its client secret. ErrDuplicate when the
// slug, name or client id is taken.
func (q Q) CreateApp(ctx context.Context, a *model.App, secretHash string) error {
	now := q.Now()
	a.CreatedAt, a.UpdatedAt = now, now
	var desc any
	if a.Description != nil {
		desc = *a.Description
	}
	id, err := q.insert(ctx, `INSERT INTO apps (slug, name, lower_name, owner_id, bot_id, description, external_url, client_id,
 client_secret_hash, permissions, events, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		a.Slug, a.Name, strings.ToLower(a.Name), a.OwnerID, a.BotID, desc, a.ExternalURL, a.ClientID,
		secretHash, permsColumn(a.Permissions), eventsColumn(a.Events), unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	a.ID = id
	return err
}

// AddAppKey stores the public half of a new private key of an app.
func (q Q) AddAppKey(ctx context.Context, k *model.AppKey) error {
	k.CreatedAt = q.Now()
	id, err := q.insert(ctx, `INSERT INTO app_keys (app_id, public_key, fingerprint, created_at) VALUES (?,?,?,?)`,
		k.AppID, k.PublicPEM, k.Fingerprint, unix(k.CreatedAt))
	k.ID = id
	return err
}

// AppKeys lists an app's public keys, oldest first.
func (q Q) AppKeys(ctx context.Context, appID int64) ([]*model.AppKey, error) {
	rows, err := q.query(ctx, `SELECT id, public_key, fingerprint, created_at FROM app_keys WHERE app_id = ? ORDER BY id`, appID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.AppKey
	for rows.Next() {
		k := &model.AppKey{AppID: appID}
		var created int64
		if err := rows.Scan(&k.ID, &k.PublicPEM, &k.Fingerprint, &created); err != nil {
			return nil, err
		}
		k.CreatedAt = fromUnix(created)
		out = append(out, k)
	}
	return out, rows.Err()
}

// appWhere loads one app with its owner.
func (q Q) appWhere(ctx context.Context, cond string, arg any) (*model.App, error) {
	a, err := scanApp(q.row(ctx, `SELECT `+appCols+` FROM apps p WHERE `+cond, arg))
	if err != nil {
		return nil, notFound(err)
	}
	if a.Owner, err = q.AccountByID(ctx, a.OwnerID); err != nil {
		return nil, err
	}
	return a, nil
}

// AppByID finds an app with its owner.
func (q Q) AppByID(ctx context.Context, id int64) (*model.App, error) {
	return q.appWhere(ctx, `p.id = ?`, id)
}

// AppBySlug finds an app by slug, ignoring case.
func (q Q) AppBySlug(ctx context.Context, slug string) (*model.App, error) {
	return q.appWhere(ctx, `p.slug = ?`, strings.ToLower(slug))
}

// AppByClientID finds an app by client id.
func (q Q) AppByClientID(ctx context.Context, clientID string) (*model.App, error) {
	return q.appWhere(ctx, `p.client_id = ?`, clientID)
}

// AppsByID loads apps (without owners) by id, in one query.
func (q Q) AppsByID(ctx context.Context, ids []int64) (map[int64]*model.App, error) {
	out := make(map[int64]*model.App, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT `+appCols+` FROM apps p WHERE p.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, err
		}
		out[a.ID] = a
	}
	return out, rows.Err()
}

// CountInstallations counts an app's installations.
func (q Q) CountInstallations(ctx context.Context, appID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM app_installations WHERE app_id = ?`, appID).Scan(&n)
	return n, err
}

const installationCols = `i.id, i.app_id, i.account_id, i.repository_selection, i.permissions, i.events,
 i.suspended_at, COALESCE(i.suspended_by_id, 0), i.created_at, i.updated_at, i.target_type`

func scanInstallation(sc scanner) (*model.Installation, error) {
	in := &model.Installation{}
	var perms, events string
	var suspended sql.NullInt64
	var by, created, updated int64
	var target string
	if err := sc.Scan(&in.ID, &in.AppID, &in.AccountID, &in.Selection, &perms, &events, &suspended, &by, &created, &updated, &target); err != nil {
		return nil, err
	}
	in.Enterprise = target == TargetEnterprise
	if err := unmarshalPerms(perms, &in.Permissions); err != nil {
		return nil, err
	}
	if err := unmarshalEvents(events, &in.Events); err != nil {
		return nil, err
	}
	in.SuspendedAt = fromNullUnix(suspended)
	if by != 0 {
		in.SuspendedBy = &model.Account{ID: by}
	}
	in.CreatedAt, in.UpdatedAt = fromUnix(created), fromUnix(updated)
	return in, nil
}

// TargetEnterprise is the target_type of an installation on hubd's
// enterprise.
const TargetEnterprise = "Enterprise"

// CreateInstallation installs an app on an account with its repository
// selection (repoIDs for "selected"). ErrDuplicate when the app is already
// installed there.
func (q Q) CreateInstallation(ctx context.Context, in *model.Installation, repoIDs []int64) error {
	now := q.Now()
	in.CreatedAt, in.UpdatedAt = now, now
	target := ""
	if in.Enterprise {
		target = TargetEnterprise
	}
	id, err := q.insert(ctx, `INSERT INTO app_installations (app_id, account_id, repository_selection, permissions, events,
 created_at, updated_at, target_type) VALUES (?,?,?,?,?,?,?,?)`,
		in.AppID, in.AccountID, in.Selection, permsColumn(in.Permissions), eventsColumn(in.Events), unix(now), unix(now), target)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	in.ID = id
	for _, r := range repoIDs {
		if err := q.AddInstallationRepo(ctx, id, r); err != nil {
			return err
		}
	}
	return nil
}

// installations runs a query on installationCols and loads each one's app,
// account and suspender in batches.
func (q Q) installations(ctx context.Context, query string, args ...any) ([]*model.Installation, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var list []*model.Installation
	for rows.Next() {
		in, err := scanInstallation(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, in)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return list, q.loadInstallations(ctx, list)
}

func (q Q) loadInstallations(ctx context.Context, list []*model.Installation) error {
	if len(list) == 0 {
		return nil
	}
	var appIDs, accountIDs []int64
	for _, in := range list {
		appIDs = append(appIDs, in.AppID)
		accountIDs = append(accountIDs, in.AccountID)
		if in.SuspendedBy != nil {
			accountIDs = append(accountIDs, in.SuspendedBy.ID)
		}
	}
	apps, err := q.AppsByID(ctx, uniq(appIDs))
	if err != nil {
		return err
	}
	accounts, err := q.AccountsByID(ctx, uniq(accountIDs))
	if err != nil {
		return err
	}
	for _, in := range list {
		in.App, in.Account = apps[in.AppID], accounts[in.AccountID]
		if in.App == nil || in.Account == nil {
			return model.ErrNotFound
		}
		if in.SuspendedBy != nil {
			in.SuspendedBy = accounts[in.SuspendedBy.ID] // nil when the account is gone
		}
	}
	return nil
}

func uniq(ids []int64) []int64 {
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := ids[:0]
	for i, id := range ids {
		if i == 0 || id != ids[i-1] {
			out = append(out, id)
		}
	}
	return out
}

// InstallationByID finds an installation with its app and account.
func (q Q) InstallationByID(ctx context.Context, id int64) (*model.Installation, error) {
	list, err := q.installations(ctx, `SELECT `+installationCols+` FROM app_installations i WHERE i.id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// InstallationOn finds the installation of an app on an account.
func (q Q) InstallationOn(ctx context.Context, appID, accountID int64) (*model.Installation, error) {
	list, err := q.installations(ctx, `SELECT `+installationCols+` FROM app_installations i WHERE i.app_id = ? AND i.account_id = ?`, appID, accountID)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// InstallationCovers reports whether an installation reaches a repository
// of its account: every one with "all", the selected ones otherwise.
func (q Q) InstallationCovers(ctx context.Context, in *model.Installation, repoID int64) (bool, error) {
	if in.Selection == model.SelectAll {
		return true, nil
	}
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM app_installation_repos WHERE installation_id = ? AND repo_id = ?`, in.ID, repoID).Scan(&n)
	return n > 0, err
}

// ListAppInstallations is one page of an app's installations in id order,
// those updated at or after since when it is set, and their count.
func (q Q) ListAppInstallations(ctx context.Context, appID int64, since *time.Time, limit, offset int) ([]*model.Installation, int, error) {
	cond, args := `i.app_id = ?`, []any{appID}
	if since != nil {
		cond, args = cond+` AND i.updated_at >= ?`, append(args, unix(*since))
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM app_installations i WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.installations(ctx, `SELECT `+installationCols+` FROM app_installations i WHERE `+cond+` ORDER BY i.id LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	return list, total, err
}

// AccountInstallations is one page of the installations on an account, in
// id order, and their count.
func (q Q) AccountInstallations(ctx context.Context, accountID int64, limit, offset int) ([]*model.Installation, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM app_installations WHERE account_id = ?`, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.installations(ctx, `SELECT `+installationCols+` FROM app_installations i WHERE i.account_id = ? ORDER BY i.id LIMIT ? OFFSET ?`,
		accountID, limit, offset)
	return list, total, err
}

// userInstallations is the condition of the installations a user may see
// with a user token: those on their own account and on organizations they
// are an active member of. Its arguments are the user id twice.
const userInstallations = `(i.account_id = ? OR EXISTS (SELECT 1 FROM org_members m
 WHERE m.org_id = i.account_id AND m.user_id = ? AND m.state = 'active'))`

// ofApp limits installations to one app's when its argument (twice) is
// not 0: a user access token sees only its app's installations.
const ofApp = ` AND (? = 0 OR i.app_id = ?)`

// UserInstallations is one page of the installations a user may see (see
// userInstallations), of one app when appID is not 0, in id order, and
// their count.
func (q Q) UserInstallations(ctx context.Context, userID, appID int64, limit, offset int) ([]*model.Installation, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM app_installations i WHERE `+userInstallations+ofApp, userID, userID, appID, appID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.installations(ctx, `SELECT `+installationCols+` FROM app_installations i WHERE `+userInstallations+ofApp+` ORDER BY i.id LIMIT ? OFFSET ?`,
		userID, userID, appID, appID, limit, offset)
	return list, total, err
}

// UserInstallation finds one of the installations a user may see (of one
// app when appID is not 0).
func (q Q) UserInstallation(ctx context.Context, userID, appID, id int64) (*model.Installation, error) {
	list, err := q.installations(ctx, `SELECT `+installationCols+` FROM app_installations i WHERE i.id = ? AND `+userInstallations+ofApp, id, userID, userID, appID, appID)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// DeleteInstallation removes an installation, its repository selection and
// its tokens.
func (q Q) DeleteInstallation(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM tokens WHERE installation_id = ?`, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `DELETE FROM app_installations WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// SetInstallationSuspended suspends an installation (at set, by byID) or
// lifts its suspension (at nil).
func (q Q) SetInstallationSuspended(ctx context.Context, id int64, at *time.Time, byID int64) error {
	var by any
	if at != nil && byID != 0 {
		by = byID
	}
	_, err := q.exec(ctx, `UPDATE app_installations SET suspended_at = ?, suspended_by_id = ?, updated_at = ? WHERE id = ?`,
		nullUnix(at), by, unix(q.Now()), id)
	return err
}

// SetInstallationSelection changes an installation's repository selection
// (the selected repositories stay listed; "all" ignores them).
func (q Q) SetInstallationSelection(ctx context.Context, id int64, selection string) error {
	_, err := q.exec(ctx, `UPDATE app_installations SET repository_selection = ?, updated_at = ? WHERE id = ?`, selection, unix(q.Now()), id)
	return err
}

// AddInstallationRepo selects a repository for an installation; selecting
// it twice is not an error.
func (q Q) AddInstallationRepo(ctx context.Context, installationID, repoID int64) error {
	_, err := q.exec(ctx, `INSERT INTO app_installation_repos (installation_id, repo_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, installationID, repoID)
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `UPDATE app_installations SET updated_at = ? WHERE id = ?`, unix(q.Now()), installationID)
	return err
}

// RemoveInstallationRepo unselects a repository; false when it was not
// selected.
func (q Q) RemoveInstallationRepo(ctx context.Context, installationID, repoID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM app_installation_repos WHERE installation_id = ? AND repo_id = ?`, installationID, repoID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		_, err = q.exec(ctx, `UPDATE app_installations SET updated_at = ? WHERE id = ?`, unix(q.Now()), installationID)
	}
	return n > 0, err
}

// InstallationRepoIDs lists the selected repositories of an installation.
func (q Q) InstallationRepoIDs(ctx context.Context, installationID int64) ([]int64, error) {
	return q.int64s(ctx, `SELECT repo_id FROM app_installation_repos WHERE installation_id = ? ORDER BY repo_id`, installationID)
}

// InstallationReposQuery selects repositories reached by an installation.
type InstallationReposQuery struct {
	Installation *model.Installation
	// RepoIDs narrows the list further when non-nil (an installation token
	// scoped to some repositories).
	RepoIDs []int64
	// ViewerID loads the viewer's relation to each repository.
	ViewerID      int64
	Limit, Offset int
}

// InstallationRepos is one page of the repositories an installation reaches
// (all of its account's, or the selected ones), in full-name order, and
// their count.
func (q Q) InstallationRepos(ctx context.Context, f InstallationReposQuery) ([]*RepoView, int, error) {
	in := f.Installation
	cond, args := `r.owner_id = ?`, []any{in.AccountID}
	if in.Selection != model.SelectAll {
		cond += ` AND r.id IN (SELECT repo_id FROM app_installation_repos WHERE installation_id = ?)`
		args = append(args, in.ID)
	}
	if f.RepoIDs != nil {
		if len(f.RepoIDs) == 0 {
			return []*RepoView{}, 0, nil
		}
		list, largs := inList(f.RepoIDs)
		cond += ` AND r.id IN (` + list + `)`
		args = append(args, largs...)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM repos r WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	all := append([]any{f.ViewerID, f.ViewerID}, args...)
	all = append(all, f.Limit, f.Offset)
	list, err := q.repoViews(ctx, repoSelect+` WHERE `+cond+` ORDER BY r.lower_name, r.id LIMIT ? OFFSET ?`, all...)
	if list == nil && err == nil {
		list = []*RepoView{}
	}
	return list, total, err
}

// ReposOfAccountByName finds repositories of an account by name (ignoring
// case), in one query; names that match none are left out.
func (q Q) ReposOfAccountByName(ctx context.Context, ownerID int64, names []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(names) == 0 {
		return out, nil
	}
	args := []any{ownerID}
	for _, n := range names {
		args = append(args, strings.ToLower(n))
	}
	rows, err := q.query(ctx, `SELECT id, lower_name FROM repos WHERE owner_id = ? AND lower_name IN (`+
		strings.TrimSuffix(strings.Repeat("?,", len(names)), ",")+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		out[name] = id
	}
	return out, rows.Err()
}

// RepoOwners maps repository ids to their owners' ids (unknown ids are
// left out).
func (q Q) RepoOwners(ctx context.Context, ids []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT id, owner_id FROM repos WHERE id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, owner int64
		if err := rows.Scan(&id, &owner); err != nil {
			return nil, err
		}
		out[id] = owner
	}
	return out, rows.Err()
}

// CreateInstallationToken stores a new installation access token (ghs_)
// acting as the app's bot: perms and, when not nil, repoIDs are what it
// was narrowed to. The plaintext is returned once and never stored.
func (q Q) CreateInstallationToken(ctx context.Context, in *model.Installation, perms map[string]string, repoIDs []int64, expires time.Time) (string, *Token, error) {
	plain := NewTokenString(authz.Installation)
	t := &Token{UserID: in.App.BotID, Kind: authz.Installation, LastEight: plain[len(plain)-8:], ExpiresAt: &expires, CreatedAt: q.Now()}
	var repos any
	if repoIDs != nil {
		b, _ := json.Marshal(repoIDs)
		repos = string(b)
	}
	id, err := q.insert(ctx, `INSERT INTO tokens (user_id, kind, hash, last_eight, permissions, repo_ids, app_id, installation_id, expires_at, created_at)
 VALUES (?,?,?,?,?,?,?,?,?,?)`,
		in.App.BotID, string(authz.Installation), HashToken(plain), t.LastEight, permsColumn(perms), repos, in.AppID, in.ID,
		unix(expires), unix(t.CreatedAt))
	if err != nil {
		return "", nil, err
	}
	t.ID = id
	return plain, t, nil
}

// DeleteToken revokes one token.
func (q Q) DeleteToken(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM tokens WHERE id = ?`, id)
	return err
}

// resolveInstallation completes the caller of an installation token from
// its installation as it is now: the account it is installed on, whether
// it is suspended, the installation's permissions (the token keeps only
// those it still has) and its selected repositories (the token reaches
// only those, and only those it was narrowed to). ok is false when the
// installation is gone.
func (q Q) resolveInstallation(ctx context.Context, c *authz.Caller) (ok bool, err error) {
	var (
		account           int64
		selection, perms  string
		suspended         sql.NullInt64
		installationPerms map[string]string
	)
	err = q.row(ctx, `SELECT i.account_id, i.repository_selection, i.permissions, i.suspended_at,
 CASE WHEN i.repository_selection = 'all' THEN (SELECT COUNT(*) FROM repos r WHERE r.owner_id = i.account_id)
  ELSE (SELECT COUNT(*) FROM app_installation_repos ir WHERE ir.installation_id = i.id) END,
 (SELECT COUNT(*) FROM org_members m WHERE m.org_id = i.account_id AND m.state = 'active')
 FROM app_installations i WHERE i.id = ?`, c.InstallationID).
		Scan(&account, &selection, &perms, &suspended, &c.InstallationRepos, &c.InstallationUsers)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := unmarshalPerms(perms, &installationPerms); err != nil {
		return false, err
	}
	c.Permissions = authz.IntersectPermissions(c.Permissions, installationPerms)
	c.InstallationTargetID = account
	c.InstallationSuspended = suspended.Valid
	if selection != model.SelectAll {
		ids, err := q.InstallationRepoIDs(ctx, c.InstallationID)
		if err != nil {
			return false, err
		}
		selected := make(map[int64]bool, len(ids))
		for _, id := range ids {
			if c.RepoIDs == nil || c.RepoIDs[id] {
				selected[id] = true
			}
		}
		c.RepoIDs = selected
	}
	return true, nil
}

// EnterpriseInstallation finds an app's installation on the enterprise.
func (q Q) EnterpriseInstallation(ctx context.Context, appID int64) (*model.Installation, error) {
	list, err := q.installations(ctx, `SELECT `+installationCols+` FROM app_installations i WHERE i.app_id = ? AND i.target_type = ?`, appID, TargetEnterprise)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// ClearInstallationRepos empties an installation's repository selection.
func (q Q) ClearInstallationRepos(ctx context.Context, installationID int64) error {
	_, err := q.exec(ctx, `DELETE FROM app_installation_repos WHERE installation_id = ?`, installationID)
	return err
}

// OrgsPage is one page of the organizations in id order and their count.
func (q Q) OrgsPage(ctx context.Context, limit, offset int) ([]*model.Account, int, error) {
	n, err := q.CountAccounts(ctx, model.TypeOrganization)
	if err != nil {
		return nil, 0, err
	}
	list, err := q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.type = ? ORDER BY a.id LIMIT ? OFFSET ?`,
		string(model.TypeOrganization), limit, offset)
	return list, n, err
}
