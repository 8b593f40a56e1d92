package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/hubd/hubd/internal/model"
)

// The enterprise's innersource vulnerabilities (owned by
// internal/enterprise) and the sync operations that write them.

// VulnSync is one sync operation: its status ("queued", "processing",
// "done", "error"), the vulnerabilities it was given (JSON) and its
// result (JSON, once finished).
type VulnSync struct {
	ID, Status, Payload, Result string
	ActorID                     int64
}

// InnersourceVuln is one stored innersource vulnerability.
type InnersourceVuln struct {
	ExternalID, GHISID, OSV string
	Withdrawn               bool
}

// CreateVulnSync stores a queued sync operation.
func (q Q) CreateVulnSync(ctx context.Context, s *VulnSync) error {
	_, err := q.exec(ctx, `INSERT INTO enterprise_vuln_syncs (id, status, payload, actor_id, created_at) VALUES (?, ?, ?, ?, ?)`,
		s.ID, s.Status, s.Payload, s.ActorID, q.Now().Unix())
	return err
}

// VulnSyncByID is a sync operation (ErrNotFound when there is none).
func (q Q) VulnSyncByID(ctx context.Context, id string) (*VulnSync, error) {
	s := &VulnSync{ID: id}
	err := q.row(ctx, `SELECT status, payload, result, actor_id FROM enterprise_vuln_syncs WHERE id = ?`, id).
		Scan(&s.Status, &s.Payload, &s.Result, &s.ActorID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.ErrNotFound
	}
	return s, err
}

// SetVulnSyncStatus moves a sync operation to status with its result
// (finished when status is "done" or "error").
func (q Q) SetVulnSyncStatus(ctx context.Context, id, status, result string) error {
	var finished any
	if status == "done" || status == "error" {
		finished = q.Now().Unix()
	}
	_, err := q.exec(ctx, `UPDATE enterprise_vuln_syncs SET status = ?, result = ?, finished_at = ? WHERE id = ?`, status, result, finished, id)
	return err
}

// InnersourceVulns are the stored vulnerabilities of these external ids,
// by external id (one query).
func (q Q) InnersourceVulns(ctx context.Context, externalIDs []string) (map[string]*InnersourceVuln, error) {
	out := map[string]*InnersourceVuln{}
	if len(externalIDs) == 0 {
		return out, nil
	}
	in, args := inList(externalIDs)
	rows, err := q.query(ctx, `SELECT external_id, ghis_id, osv, withdrawn_at FROM enterprise_innersource_vulns WHERE external_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		v := &InnersourceVuln{}
		var w sql.NullInt64
		if err := rows.Scan(&v.ExternalID, &v.GHISID, &v.OSV, &w); err != nil {
			return nil, err
		}
		v.Withdrawn = w.Valid
		out[v.ExternalID] = v
	}
	return out, rows.Err()
}

// PutInnersourceVuln creates or replaces a vulnerability by external id
// (withdrawn or not).
func (q Q) PutInnersourceVuln(ctx context.Context, v *InnersourceVuln) error {
	now := q.Now().Unix()
	var withdrawn any
	if v.Withdrawn {
		withdrawn = now
	}
	_, err := q.exec(ctx, `INSERT INTO enterprise_innersource_vulns (external_id, ghis_id, osv, withdrawn_at, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (external_id) DO UPDATE SET osv = excluded.osv, withdrawn_at = excluded.withdrawn_at,
 updated_at = excluded.updated_at`, v.ExternalID, v.GHISID, v.OSV, withdrawn, now, now)
	return err
}
