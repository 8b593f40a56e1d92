package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// An organization's hosted runners (internal/runners): pools of hubd's
// workers. The jobs one ran carry its name as their runner name.

const hostedCols = `h.id, h.org_id, h.name, h.gid, h.image_id, h.image_source, h.image_version, h.size_id, h.platform, h.maximum_runners, h.image_gen, h.created_at,
 (SELECT MAX(j.started_at) FROM actions_jobs j WHERE j.runner_name = h.name)`

func scanHosted(sc rowScanner) (*model.HostedRunner, error) {
	h := &model.HostedRunner{}
	var created int64
	var last sql.NullInt64
	if err := sc.Scan(&h.ID, &h.OrgID, &h.Name, &h.GroupID, &h.ImageID, &h.ImageSource, &h.ImageVersion, &h.SizeID, &h.Platform,
		&h.MaximumRunners, &h.ImageGen, &created, &last); err != nil {
		return nil, err
	}
	h.CreatedAt = fromUnix(created)
	if last.Valid && last.Int64 > 0 {
		t := fromUnix(last.Int64)
		h.LastActive = &t
	}
	return h, nil
}

// HostedRunners lists an organization's hosted runners (those of group
// gid when it is not 0).
func (q Q) HostedRunners(ctx context.Context, orgID, gid int64, limit, offset int) ([]*model.HostedRunner, int, error) {
	where := `h.org_id = ? AND (? = 0 OR h.gid = ?)`
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM hosted_runners h WHERE `+where, orgID, gid, gid).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+hostedCols+` FROM hosted_runners h WHERE `+where+` ORDER BY h.id LIMIT ? OFFSET ?`, orgID, gid, gid, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.HostedRunner
	for rows.Next() {
		h, err := scanHosted(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, h)
	}
	return out, total, rows.Err()
}

// HostedRunner finds one of an organization's hosted runners by id, or
// by name when id is 0.
func (q Q) HostedRunner(ctx context.Context, orgID, id int64, name string) (*model.HostedRunner, error) {
	h, err := scanHosted(q.row(ctx, `SELECT `+hostedCols+` FROM hosted_runners h WHERE h.org_id = ? AND (h.id = ? OR (? = 0 AND LOWER(h.name) = LOWER(?)))`,
		orgID, id, id, name))
	return h, notFound(err)
}

// SaveHostedRunner creates (ID 0) or updates a hosted runner.
func (q Q) SaveHostedRunner(ctx context.Context, h *model.HostedRunner) error {
	var err error
	if h.ID == 0 {
		h.ID, err = q.insert(ctx, `INSERT INTO hosted_runners (org_id, name, gid, image_id, image_source, image_version, size_id, platform, maximum_runners, image_gen, created_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, h.OrgID, h.Name, h.GroupID, h.ImageID, h.ImageSource, h.ImageVersion, h.SizeID, h.Platform, h.MaximumRunners, h.ImageGen, unix(q.Now()))
	} else {
		_, err = q.exec(ctx, `UPDATE hosted_runners SET name = ?, gid = ?, image_id = ?, image_source = ?, image_version = ?, size_id = ?, maximum_runners = ?, image_gen = ?
 WHERE id = ? AND org_id = ?`, h.Name, h.GroupID, h.ImageID, h.ImageSource, h.ImageVersion, h.SizeID, h.MaximumRunners, h.ImageGen, h.ID, h.OrgID)
	}
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// DeleteHostedRunner removes a hosted runner.
func (q Q) DeleteHostedRunner(ctx context.Context, orgID, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM hosted_runners WHERE org_id = ? AND id = ?`, orgID, id)
	return err
}

// JobsRunningOn counts the jobs in progress on a runner name.
func (q Q) JobsRunningOn(ctx context.Context, name string) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM actions_jobs WHERE runner_name = ? AND status = ?`, name, model.ActionsInProgress).Scan(&n)
	return n, err
}

// WorkersOnline counts hubd's worker runners heard of since.
func (q Q) WorkersOnline(ctx context.Context, since time.Time) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM runners WHERE worker AND last_seen >= ?`, since.Unix()).Scan(&n)
	return n, err
}
