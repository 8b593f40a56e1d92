package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// Migrations: exports of repositories into GitHub's migration archive
// (internal/migrations) and the repositories they lock.

const migrationSelect = `SELECT id, owner_id, COALESCE(user_id, 0), guid, state, lock_repositories, exclude_metadata, exclude_git_data,
 exclude_attachments, exclude_releases, exclude_owner_projects, org_metadata_only, archive_size, archive_deleted, created_at, updated_at
 FROM export_migrations`

func scanMigration(r rowScanner) (*model.Migration, error) {
	m := &model.Migration{}
	var created, updated int64
	if err := r.Scan(&m.ID, &m.OwnerID, &m.UserID, &m.GUID, &m.State, &m.LockRepositories, &m.ExcludeMetadata, &m.ExcludeGitData,
		&m.ExcludeAttachments, &m.ExcludeReleases, &m.ExcludeOwnerProjects, &m.OrgMetadataOnly, &m.ArchiveSize, &m.ArchiveDeleted,
		&created, &updated); err != nil {
		return nil, err
	}
	m.CreatedAt, m.UpdatedAt = fromUnix(created), fromUnix(updated)
	return m, nil
}

// CreateMigration inserts m with its repositories (locked when m locks
// them).
func (q Q) CreateMigration(ctx context.Context, m *model.Migration, repoIDs []int64) error {
	now := q.Now()
	m.CreatedAt, m.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO export_migrations (owner_id, user_id, guid, state, lock_repositories, exclude_metadata,
 exclude_git_data, exclude_attachments, exclude_releases, exclude_owner_projects, org_metadata_only, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`, m.OwnerID, m.UserID, m.GUID, m.State, m.LockRepositories, m.ExcludeMetadata,
		m.ExcludeGitData, m.ExcludeAttachments, m.ExcludeReleases, m.ExcludeOwnerProjects, m.OrgMetadataOnly, unix(now), unix(now))
	if err != nil {
		return err
	}
	m.ID = id
	for _, r := range repoIDs {
		if _, err := q.exec(ctx, `INSERT INTO export_migration_repos (migration_id, repo_id, locked) VALUES (?,?,?)`,
			id, r, m.LockRepositories); err != nil {
			return err
		}
	}
	if m.LockRepositories && len(repoIDs) > 0 {
		in, args := inList(repoIDs)
		_, err = q.exec(ctx, `UPDATE repos SET migration_locked = TRUE WHERE id IN (`+in+`)`, args...)
	}
	return err
}

// MigrationByID finds a migration of an owner (a user's or an
// organization's).
func (q Q) MigrationByID(ctx context.Context, ownerID, id int64) (*model.Migration, error) {
	m, err := scanMigration(q.row(ctx, migrationSelect+` WHERE id = ? AND owner_id = ?`, id, ownerID))
	return m, notFound(err)
}

// ListMigrations returns one page of an owner's migrations, newest first,
// and their count.
func (q Q) ListMigrations(ctx context.Context, ownerID int64, limit, offset int) ([]*model.Migration, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM export_migrations WHERE owner_id = ?`, ownerID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, migrationSelect+` WHERE owner_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, ownerID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.Migration
	for rows.Next() {
		m, err := scanMigration(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, m)
	}
	return out, total, rows.Err()
}

// MigrationRepoIDs are the repositories of each migration, in id order.
func (q Q) MigrationRepoIDs(ctx context.Context, migrationIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(migrationIDs) == 0 {
		return out, nil
	}
	in, args := inList(migrationIDs)
	rows, err := q.query(ctx, `SELECT migration_id, repo_id FROM export_migration_repos WHERE migration_id IN (`+in+`)
 ORDER BY migration_id, repo_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var m, r int64
		if err := rows.Scan(&m, &r); err != nil {
			return nil, err
		}
		out[m] = append(out[m], r)
	}
	return out, rows.Err()
}

// ListMigrationRepoIDs returns one page of a migration's repositories and
// their count.
func (q Q) ListMigrationRepoIDs(ctx context.Context, migrationID int64, limit, offset int) ([]int64, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM export_migration_repos WHERE migration_id = ?`, migrationID).Scan(&total); err != nil {
		return nil, 0, err
	}
	ids, err := q.int64s(ctx, `SELECT repo_id FROM export_migration_repos WHERE migration_id = ? ORDER BY repo_id LIMIT ? OFFSET ?`,
		migrationID, limit, offset)
	return ids, total, err
}

// SetMigrationState moves a migration to state (with its archive's size
// once exported).
func (q Q) SetMigrationState(ctx context.Context, id int64, state string, size int64) error {
	_, err := q.exec(ctx, `UPDATE export_migrations SET state = ?, archive_size = ?, updated_at = ? WHERE id = ?`,
		state, size, unix(q.Now()), id)
	return err
}

// DeleteMigrationArchive marks a migration's archive deleted; false when
// it already was.
func (q Q) DeleteMigrationArchive(ctx context.Context, id int64) (bool, error) {
	res, err := q.exec(ctx, `UPDATE export_migrations SET archive_deleted = TRUE, updated_at = ? WHERE id = ? AND archive_deleted = FALSE`,
		unix(q.Now()), id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// UnlockMigrationRepo lifts a migration's lock of a repository; false when
// the migration does not hold it locked.
func (q Q) UnlockMigrationRepo(ctx context.Context, migrationID, repoID int64) (bool, error) {
	res, err := q.exec(ctx, `UPDATE export_migration_repos SET locked = FALSE WHERE migration_id = ? AND repo_id = ? AND locked = TRUE`,
		migrationID, repoID)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	// The repository stays locked while another migration locks it.
	_, err = q.exec(ctx, `UPDATE repos SET migration_locked = EXISTS (SELECT 1 FROM export_migration_repos l
 WHERE l.repo_id = repos.id AND l.locked = TRUE) WHERE id = ?`, repoID)
	return err == nil, err
}
