package store

import (
	"context"
	"database/sql"
	"slices"

	"github.com/hubd/hubd/internal/model"
)

const attestationCols = `t.id, t.repo_id, t.predicate_type, t.predicate_kind, t.bundle, t.initiator, COALESCE(t.creator_id, 0), t.verified, t.created_at`

func scanAttestation(sc scanner) (*model.Attestation, error) {
	a := &model.Attestation{}
	var created int64
	if err := sc.Scan(&a.ID, &a.RepoID, &a.PredicateType, &a.PredicateKind, &a.Bundle, &a.Initiator, &a.CreatorID, &a.Verified, &created); err != nil {
		return nil, err
	}
	a.CreatedAt = fromUnix(created)
	return a, nil
}

// CreateAttestation stores an attestation and its subject digests.
func (q Q) CreateAttestation(ctx context.Context, a *model.Attestation) error {
	a.CreatedAt = q.Now()
	id, err := q.insert(ctx, `INSERT INTO attestations (repo_id, predicate_type, predicate_kind, bundle, initiator, creator_id, verified, created_at)
 VALUES (?,?,?,?,?,?,?,?)`, a.RepoID, a.PredicateType, a.PredicateKind, a.Bundle, a.Initiator, nullID(a.CreatorID), a.Verified, unix(a.CreatedAt))
	if err != nil {
		return err
	}
	a.ID = id
	for _, d := range slices.Compact(slices.Sorted(slices.Values(a.Digests))) {
		if _, err := q.exec(ctx, `INSERT INTO attestation_subjects (attestation_id, digest) VALUES (?, ?)`, id, d); err != nil {
			return err
		}
	}
	return nil
}

// AttestationQuery selects a page of attestations, newest first.
type AttestationQuery struct {
	RepoID  int64 // or
	OwnerID int64 // the repositories this account owns
	// Viewer, when set, keeps the attestations of repositories it may see.
	Viewer *Viewer
	// Reach, when not nil (and Viewer nil), keeps public repositories and
	// these (an installation on the owner for selected repositories).
	Reach []int64
	// Digests keeps attestations with one of these subjects (none: any).
	Digests []string
	// PredicateType keeps those of this type or short kind.
	PredicateType string
	// After and Before are attestation ids (0: none).
	After, Before int64
	Limit         int
}

// reachWhere starts the WHERE of a query over repositories r (with
// viewerJoins) that v may see or, v nil, that are public or in reach (nil
// reach: all): its arguments come first, and it ends with " AND ".
func reachWhere(v *Viewer, reach []int64) *sqlb {
	if v != nil {
		return visibleTo(*v)
	}
	s := &sqlb{}
	s.arg(int64(0), int64(0)) // viewerJoins
	s.w(" WHERE ")
	if reach != nil {
		s.w("(r.visibility = 'public'")
		if len(reach) > 0 {
			in, args := inList(reach)
			s.w(" OR r.id IN (", in, ")")
			s.arg(args...)
		}
		s.w(") AND ")
	}
	return s
}

// attestationWhere is the WHERE of f.
func attestationWhere(f AttestationQuery) *sqlb {
	s := reachWhere(f.Viewer, f.Reach)
	if f.RepoID != 0 {
		s.w("t.repo_id = ?")
		s.arg(f.RepoID)
	} else {
		s.w("r.owner_id = ?")
		s.arg(f.OwnerID)
	}
	if len(f.Digests) > 0 {
		in, args := inList(f.Digests)
		s.w(" AND t.id IN (SELECT x.attestation_id FROM attestation_subjects x WHERE x.digest IN (", in, "))")
		s.arg(args...)
	}
	if f.PredicateType != "" {
		s.w(" AND (t.predicate_type = ? OR t.predicate_kind = ?)")
		s.arg(f.PredicateType, f.PredicateType)
	}
	return s
}

const attestationFrom = ` FROM attestations t JOIN repos r ON r.id = t.repo_id JOIN accounts a ON a.id = r.owner_id` + viewerJoins

// Attestations is a page of attestations, newest first, and whether more
// follow in the direction read (older after the page for After or no
// cursor, newer before it for Before). Their digests are loaded.
func (q Q) Attestations(ctx context.Context, f AttestationQuery) ([]*model.Attestation, bool, error) {
	s := attestationWhere(f)
	order := " ORDER BY t.id DESC"
	if f.Before != 0 {
		s.w(" AND t.id > ?")
		s.arg(f.Before)
		order = " ORDER BY t.id ASC"
	} else if f.After != 0 {
		s.w(" AND t.id < ?")
		s.arg(f.After)
	}
	limit := limitOr30(f.Limit)
	args := append(s.args, limit+1)
	rows, err := q.query(ctx, `SELECT `+attestationCols+attestationFrom+s.b.String()+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	list := []*model.Attestation{}
	for rows.Next() {
		a, err := scanAttestation(rows)
		if err != nil {
			return nil, false, err
		}
		list = append(list, a)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(list) > limit
	if more {
		list = list[:limit]
	}
	if f.Before != 0 {
		slices.Reverse(list)
	}
	return list, more, q.loadAttestationDigests(ctx, list)
}

// loadAttestationDigests fills the subject digests of list in one query.
func (q Q) loadAttestationDigests(ctx context.Context, list []*model.Attestation) error {
	if len(list) == 0 {
		return nil
	}
	byID := make(map[int64]*model.Attestation, len(list))
	ids := make([]int64, len(list))
	for i, a := range list {
		byID[a.ID], ids[i] = a, a.ID
		a.Digests = []string{}
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT attestation_id, digest FROM attestation_subjects WHERE attestation_id IN (`+in+`) ORDER BY attestation_id, digest`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var d string
		if err := rows.Scan(&id, &d); err != nil {
			return err
		}
		if a := byID[id]; a != nil {
			a.Digests = append(a.Digests, d)
		}
	}
	return rows.Err()
}

// AttestationByID is one attestation with its digests.
func (q Q) AttestationByID(ctx context.Context, id int64) (*model.Attestation, error) {
	a, err := scanAttestation(q.row(ctx, `SELECT `+attestationCols+` FROM attestations t WHERE t.id = ?`, id))
	if err != nil {
		return nil, notFound(err)
	}
	return a, q.loadAttestationDigests(ctx, []*model.Attestation{a})
}

// AttestationRefs are the ids and repositories of the attestations of
// ownerID's repositories that have one of digests as a subject or one of
// ids as id.
func (q Q) AttestationRefs(ctx context.Context, ownerID int64, digests []string, ids []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	var rows *sql.Rows
	var err error
	switch {
	case len(digests) > 0:
		in, args := inList(digests)
		rows, err = q.query(ctx, `SELECT DISTINCT t.id, t.repo_id FROM attestations t JOIN repos r ON r.id = t.repo_id
 JOIN attestation_subjects x ON x.attestation_id = t.id WHERE r.owner_id = ? AND x.digest IN (`+in+`)`, append([]any{ownerID}, args...)...)
	case len(ids) > 0:
		in, args := inList(ids)
		rows, err = q.query(ctx, `SELECT t.id, t.repo_id FROM attestations t JOIN repos r ON r.id = t.repo_id
 WHERE r.owner_id = ? AND t.id IN (`+in+`)`, append([]any{ownerID}, args...)...)
	default:
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, repo int64
		if err := rows.Scan(&id, &repo); err != nil {
			return nil, err
		}
		out[id] = repo
	}
	return out, rows.Err()
}

// DeleteAttestations deletes attestations by id (their subjects go with
// them).
func (q Q) DeleteAttestations(ctx context.Context, ids []int64) error {
	for _, id := range ids {
		if _, err := q.exec(ctx, `DELETE FROM attestation_subjects WHERE attestation_id = ?`, id); err != nil {
			return err
		}
		if _, err := q.exec(ctx, `DELETE FROM attestations WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// AttestedRepo is a repository with attestations.
type AttestedRepo struct {
	ID   int64
	Name string
}

// AttestedRepos is a page of the repositories of f.OwnerID that have
// attestations (of f's predicate type), by id descending, with the
// After/Before cursors being repository ids.
func (q Q) AttestedRepos(ctx context.Context, f AttestationQuery) ([]AttestedRepo, bool, error) {
	f.Digests = nil
	s := attestationWhere(f)
	order := " ORDER BY r.id DESC"
	if f.Before != 0 {
		s.w(" AND r.id > ?")
		s.arg(f.Before)
		order = " ORDER BY r.id ASC"
	} else if f.After != 0 {
		s.w(" AND r.id < ?")
		s.arg(f.After)
	}
	limit := limitOr30(f.Limit)
	args := append(s.args, limit+1)
	rows, err := q.query(ctx, `SELECT DISTINCT r.id, r.name`+attestationFrom+s.b.String()+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := []AttestedRepo{}
	for rows.Next() {
		var a AttestedRepo
		if err := rows.Scan(&a.ID, &a.Name); err != nil {
			return nil, false, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	if f.Before != 0 {
		slices.Reverse(out)
	}
	return out, more, nil
}
