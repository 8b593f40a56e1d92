package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Self-hosted runners and runner groups (owned by internal/runners). A
// runner group is keyed by its owner (an organization, or 0 for the
// enterprise) and its gid, the id the API shows: the default group is gid
// 1 and exists without a row until it is first changed (reads never
// write); other groups get their row id + 1. A runner's busy flag is read
// from the workflow jobs in progress on it (hubd's worker runners run
// them under their name).

// DefaultRunnerGroup is an owner's default group as it is before any
// change: visible to every repository, public ones included (hubd's
// workers run every repository's workflows unless told otherwise).
func DefaultRunnerGroup(ownerID int64) *model.RunnerGroup {
	return &model.RunnerGroup{ID: model.DefaultRunnerGroupID, OwnerID: ownerID, Name: "Default", Visibility: "all",
		Default: true, AllowsPublic: true, SelectedWorkflows: []string{}}
}

const groupCols = `gid, owner_id, name, visibility, is_default, allows_public, restricted_to_workflows, selected_workflows`

func scanGroup(sc rowScanner) (*model.RunnerGroup, error) {
	g := &model.RunnerGroup{}
	var wf string
	if err := sc.Scan(&g.ID, &g.OwnerID, &g.Name, &g.Visibility, &g.Default, &g.AllowsPublic, &g.RestrictedToWorkflows, &wf); err != nil {
		return nil, err
	}
	g.SelectedWorkflows = []string{}
	_ = json.Unmarshal([]byte(wf), &g.SelectedWorkflows)
	return g, nil
}

// RunnerGroups lists an owner's groups, the default first.
func (q Q) RunnerGroups(ctx context.Context, ownerID int64, limit, offset int) ([]*model.RunnerGroup, int, error) {
	var total, stored int
	if err := q.row(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN is_default THEN 1 ELSE 0 END), 0) FROM runner_groups WHERE owner_id = ?`, ownerID).
		Scan(&total, &stored); err != nil {
		return nil, 0, err
	}
	var out []*model.RunnerGroup
	if stored == 0 {
		// The default group has no row yet: it is the first item.
		total++
		if offset == 0 {
			out = append(out, DefaultRunnerGroup(ownerID))
			limit--
		} else {
			offset--
		}
	}
	if limit <= 0 {
		return out, total, nil
	}
	rows, err := q.query(ctx, `SELECT `+groupCols+` FROM runner_groups WHERE owner_id = ? ORDER BY gid LIMIT ? OFFSET ?`, ownerID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		g, err := scanGroup(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, g)
	}
	return out, total, rows.Err()
}

// RunnerGroup finds an owner's group gid.
func (q Q) RunnerGroup(ctx context.Context, ownerID, gid int64) (*model.RunnerGroup, error) {
	g, err := scanGroup(q.row(ctx, `SELECT `+groupCols+` FROM runner_groups WHERE owner_id = ? AND gid = ?`, ownerID, gid))
	if errors.Is(err, sql.ErrNoRows) && gid == model.DefaultRunnerGroupID {
		return DefaultRunnerGroup(ownerID), nil
	}
	return g, notFound(err)
}

// RunnerGroupsByID loads groups of owners by gid (admission): owner →
// gid → group, defaults filled in.
func (q Q) RunnerGroupsByID(ctx context.Context, ownerIDs []int64) (map[int64]map[int64]*model.RunnerGroup, error) {
	out := map[int64]map[int64]*model.RunnerGroup{}
	for _, o := range ownerIDs {
		out[o] = map[int64]*model.RunnerGroup{model.DefaultRunnerGroupID: DefaultRunnerGroup(o)}
	}
	if len(ownerIDs) == 0 {
		return out, nil
	}
	in, args := inList(ownerIDs)
	rows, err := q.query(ctx, `SELECT `+groupCols+` FROM runner_groups WHERE owner_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		g, err := scanGroup(rows)
		if err != nil {
			return nil, err
		}
		out[g.OwnerID][g.ID] = g
	}
	return out, rows.Err()
}

func workflowsJSON(g *model.RunnerGroup) string {
	b, _ := json.Marshal(append([]string{}, g.SelectedWorkflows...))
	return string(b)
}

// CreateRunnerGroup stores a new group (not the default) and sets its id.
func (q Q) CreateRunnerGroup(ctx context.Context, g *model.RunnerGroup) error {
	id, err := q.insert(ctx, `INSERT INTO runner_groups (owner_id, gid, name, visibility, is_default, allows_public, restricted_to_workflows, selected_workflows, created_at)
 VALUES (?, 0, ?, ?, FALSE, ?, ?, ?, ?)`, g.OwnerID, g.Name, g.Visibility, g.AllowsPublic, g.RestrictedToWorkflows, workflowsJSON(g), unix(q.Now()))
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	g.ID = id + 1
	_, err = q.exec(ctx, `UPDATE runner_groups SET gid = ? WHERE id = ?`, g.ID, id)
	return err
}

// SaveRunnerGroup writes a group's settings (the default group's row is
// created on its first change).
func (q Q) SaveRunnerGroup(ctx context.Context, g *model.RunnerGroup) error {
	res, err := q.exec(ctx, `UPDATE runner_groups SET name = ?, visibility = ?, allows_public = ?, restricted_to_workflows = ?, selected_workflows = ?
 WHERE owner_id = ? AND gid = ?`, g.Name, g.Visibility, g.AllowsPublic, g.RestrictedToWorkflows, workflowsJSON(g), g.OwnerID, g.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 || !g.Default {
		return nil
	}
	_, err = q.exec(ctx, `INSERT INTO runner_groups (owner_id, gid, name, visibility, is_default, allows_public, restricted_to_workflows, selected_workflows, created_at)
 VALUES (?, ?, ?, ?, TRUE, ?, ?, ?, ?)`, g.OwnerID, g.ID, g.Name, g.Visibility, g.AllowsPublic, g.RestrictedToWorkflows, workflowsJSON(g), unix(q.Now()))
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// DeleteRunnerGroup removes a group; its runners move to the default.
func (q Q) DeleteRunnerGroup(ctx context.Context, ownerID, gid int64) error {
	for _, s := range []string{
		`DELETE FROM runner_groups WHERE owner_id = ? AND gid = ?`,
		`DELETE FROM runner_group_targets WHERE owner_id = ? AND gid = ?`,
		`DELETE FROM runner_org_groups WHERE org_id = ? AND gid = ?`,
		`UPDATE hosted_runners SET gid = 1 WHERE org_id = ? AND gid = ?`,
	} {
		if _, err := q.exec(ctx, s, ownerID, gid); err != nil {
			return err
		}
	}
	_, err := q.exec(ctx, `UPDATE runners SET gid = 1 WHERE scope <> 'repo' AND owner_id = ? AND gid = ?`, ownerID, gid)
	return err
}

// RunnerGroupTargets lists the repositories or organizations a selected
// group admits (ids, in order).
func (q Q) RunnerGroupTargets(ctx context.Context, ownerID, gid int64, limit, offset int) ([]int64, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM runner_group_targets WHERE owner_id = ? AND gid = ?`, ownerID, gid).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT target_id FROM runner_group_targets WHERE owner_id = ? AND gid = ? ORDER BY target_id LIMIT ? OFFSET ?`,
		ownerID, gid, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		out = append(out, id)
	}
	return out, total, rows.Err()
}

// RunnerGroupAdmits reports, for each (owner, gid) key, whether target is
// among its selected targets.
func (q Q) RunnerGroupAdmits(ctx context.Context, ownerID, targetID int64) (map[int64]bool, error) {
	rows, err := q.query(ctx, `SELECT gid FROM runner_group_targets WHERE owner_id = ? AND target_id = ?`, ownerID, targetID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var gid int64
		if err := rows.Scan(&gid); err != nil {
			return nil, err
		}
		out[gid] = true
	}
	return out, rows.Err()
}

// SetRunnerGroupTargets replaces (replace) or extends a group's targets.
func (q Q) SetRunnerGroupTargets(ctx context.Context, ownerID, gid int64, ids []int64, replace bool) error {
	if replace {
		if _, err := q.exec(ctx, `DELETE FROM runner_group_targets WHERE owner_id = ? AND gid = ?`, ownerID, gid); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if _, err := q.exec(ctx, `INSERT INTO runner_group_targets (owner_id, gid, target_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			ownerID, gid, id); err != nil {
			return err
		}
	}
	return nil
}

// RemoveRunnerGroupTarget removes one target of a group.
func (q Q) RemoveRunnerGroupTarget(ctx context.Context, ownerID, gid, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM runner_group_targets WHERE owner_id = ? AND gid = ? AND target_id = ?`, ownerID, gid, id)
	return err
}

// RunnerFilter selects runners: those registered at Scope by OwnerID
// and, with Workers (an organization's view), hubd's worker runners too,
// whose group there is the one the organization placed them in (its
// default otherwise). GroupID and Name narrow the list.
type RunnerFilter struct {
	Scope   string
	OwnerID int64
	Workers bool
	GroupID int64
	Name    string
	IDs     []int64
	// AnyScope lists runners of every scope (with IDs: the runners of a
	// dispatch, wherever they were registered).
	AnyScope bool
}

func (f RunnerFilter) where() (from, gid string, args []any) {
	gid = "r.gid"
	from = `runners r LEFT JOIN runner_org_groups og ON og.runner_id = r.id AND og.org_id = ?`
	args = []any{f.OwnerID}
	if f.Workers {
		gid = "CASE WHEN r.worker THEN COALESCE(og.gid, 1) ELSE r.gid END"
	}
	conds := []string{"((r.scope = ? AND r.owner_id = ?) OR (? AND r.worker AND r.scope = ?))"}
	args = append(args, f.Scope, f.OwnerID, f.Workers, model.RunnerEnterprise)
	if f.AnyScope {
		conds = []string{"1 = 1"}
		args = args[:1]
	}
	if len(f.IDs) > 0 {
		in, a := inList(f.IDs)
		conds = append(conds, "r.id IN ("+in+")")
		args = append(args, a...)
	}
	if f.GroupID != 0 {
		conds = append(conds, gid+" = ?")
		args = append(args, f.GroupID)
	}
	if f.Name != "" {
		conds = append(conds, "r.name = ?")
		args = append(args, f.Name)
	}
	return from + " WHERE " + strings.Join(conds, " AND "), gid, args
}

// Runners lists runners (by id) with their labels and busy flags.
func (q Q) Runners(ctx context.Context, f RunnerFilter, limit, offset int) ([]*model.Runner, int, error) {
	from, gid, args := f.where()
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM `+from, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT r.id, r.scope, r.owner_id, `+gid+`, r.name, r.os, r.arch, r.worker, r.ephemeral, r.last_seen, r.created_at,
 EXISTS (SELECT 1 FROM actions_jobs j WHERE j.runner_name = r.name AND j.status = ?)
 FROM `+from+` ORDER BY r.id LIMIT ? OFFSET ?`, append(append([]any{model.ActionsInProgress}, args...), limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.Runner
	byID := map[int64]*model.Runner{}
	var ids []int64
	for rows.Next() {
		r := &model.Runner{}
		var seen, created int64
		if err := rows.Scan(&r.ID, &r.Scope, &r.OwnerID, &r.GroupID, &r.Name, &r.OS, &r.Arch, &r.Worker, &r.Ephemeral, &seen, &created, &r.Busy); err != nil {
			return nil, 0, err
		}
		if seen > 0 {
			r.LastSeen = fromUnix(seen)
		}
		r.CreatedAt = fromUnix(created)
		r.Labels = []model.RunnerLabel{}
		out = append(out, r)
		byID[r.ID] = r
		ids = append(ids, r.ID)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	if len(ids) == 0 {
		return out, total, nil
	}
	in, largs := inList(ids)
	lrows, err := q.query(ctx, `SELECT runner_id, id, name, read_only FROM runner_labels WHERE runner_id IN (`+in+`) ORDER BY read_only DESC, id`, largs...)
	if err != nil {
		return nil, 0, err
	}
	defer lrows.Close()
	for lrows.Next() {
		var rid int64
		var l model.RunnerLabel
		if err := lrows.Scan(&rid, &l.ID, &l.Name, &l.ReadOnly); err != nil {
			return nil, 0, err
		}
		byID[rid].Labels = append(byID[rid].Labels, l)
	}
	return out, total, lrows.Err()
}

// Runner finds one runner of a filter's view.
func (q Q) Runner(ctx context.Context, f RunnerFilter, id int64) (*model.Runner, error) {
	f.IDs = []int64{id}
	list, _, err := q.Runners(ctx, f, 1, 0)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// CreateRunner stores a runner and its labels.
func (q Q) CreateRunner(ctx context.Context, r *model.Runner) error {
	id, err := q.insert(ctx, `INSERT INTO runners (scope, owner_id, gid, name, os, arch, worker, ephemeral, last_seen, created_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.Scope, r.OwnerID, r.GroupID, r.Name, r.OS, r.Arch, r.Worker, r.Ephemeral, unixOrZero(r.LastSeen), unix(q.Now()))
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	r.ID = id
	return q.AddRunnerLabels(ctx, r.ID, r.Labels)
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// AddRunnerLabels adds labels to a runner (their ids are set).
func (q Q) AddRunnerLabels(ctx context.Context, runnerID int64, labels []model.RunnerLabel) error {
	for i := range labels {
		id, err := q.insert(ctx, `INSERT INTO runner_labels (runner_id, name, read_only) VALUES (?, ?, ?)`, runnerID, labels[i].Name, labels[i].ReadOnly)
		if err != nil {
			return err
		}
		labels[i].ID = id
	}
	return nil
}

// RemoveRunnerLabels removes a runner's custom labels: all of them, or
// the one named (false when it has none of that name).
func (q Q) RemoveRunnerLabels(ctx context.Context, runnerID int64, name string) (bool, error) {
	query, args := `DELETE FROM runner_labels WHERE runner_id = ? AND NOT read_only`, []any{runnerID}
	if name != "" {
		query += ` AND LOWER(name) = LOWER(?)`
		args = append(args, name)
	}
	res, err := q.exec(ctx, query, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// DeleteRunner removes a runner, its labels and placements.
func (q Q) DeleteRunner(ctx context.Context, id int64) error {
	for _, s := range []string{`DELETE FROM runner_labels WHERE runner_id = ?`, `DELETE FROM runner_org_groups WHERE runner_id = ?`, `DELETE FROM runners WHERE id = ?`} {
		if _, err := q.exec(ctx, s, id); err != nil {
			return err
		}
	}
	return nil
}

// SetRunnerGroup moves a runner into group gid of its owner; for a worker
// runner seen from an organization (orgID set) it places the worker in
// that organization's group instead.
func (q Q) SetRunnerGroup(ctx context.Context, id, orgID, gid int64) error {
	if orgID == 0 {
		_, err := q.exec(ctx, `UPDATE runners SET gid = ? WHERE id = ?`, gid, id)
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM runner_org_groups WHERE runner_id = ? AND org_id = ?`, id, orgID); err != nil || gid == model.DefaultRunnerGroupID {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO runner_org_groups (runner_id, org_id, gid) VALUES (?, ?, ?)`, id, orgID, gid)
	return err
}

// WorkerOrgGroups are the groups an organization placed worker runners
// in (runner id → gid; absent: its default group).
func (q Q) WorkerOrgGroups(ctx context.Context, orgID int64, ids []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT runner_id, gid FROM runner_org_groups WHERE org_id = ? AND runner_id IN (`+in+`)`, append([]any{orgID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, gid int64
		if err := rows.Scan(&id, &gid); err != nil {
			return nil, err
		}
		out[id] = gid
	}
	return out, rows.Err()
}

// RegisterWorkerRunner finds or creates hubd's worker runner name (with
// labels when created) and marks it seen now.
func (q Q) RegisterWorkerRunner(ctx context.Context, r *model.Runner) error {
	err := q.row(ctx, `SELECT id FROM runners WHERE scope = ? AND owner_id = 0 AND name = ?`, model.RunnerEnterprise, r.Name).Scan(&r.ID)
	if errors.Is(err, sql.ErrNoRows) {
		r.Scope, r.OwnerID, r.Worker, r.LastSeen = model.RunnerEnterprise, 0, true, q.Now()
		if r.GroupID == 0 {
			r.GroupID = model.DefaultRunnerGroupID
		}
		return q.CreateRunner(ctx, r)
	}
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `UPDATE runners SET worker = TRUE, last_seen = ? WHERE id = ?`, unix(q.Now()), r.ID)
	return err
}

// SeenRunners sets the runners' last heartbeat (zero: gone offline).
func (q Q) SeenRunners(ctx context.Context, ids []int64, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	in, args := inList(ids)
	_, err := q.exec(ctx, `UPDATE runners SET last_seen = ? WHERE id IN (`+in+`)`, append([]any{unixOrZero(at)}, args...)...)
	return err
}

// CreateRunnerToken stores the hash of a registration or remove token.
func (q Q) CreateRunnerToken(ctx context.Context, kind, scope string, ownerID int64, hash string, expires time.Time) error {
	_, err := q.exec(ctx, `INSERT INTO runner_tokens (kind, scope, owner_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		kind, scope, ownerID, hash, expires.Unix(), unix(q.Now()))
	return err
}

// SetRunnerCredential stores the hash of a runner's credential.
func (q Q) SetRunnerCredential(ctx context.Context, id int64, hash string) error {
	_, err := q.exec(ctx, `UPDATE runners SET credential_hash = ? WHERE id = ?`, hash, id)
	return err
}

// RunnerByCredential finds the runner whose credential hashes to hash.
func (q Q) RunnerByCredential(ctx context.Context, hash string) (*model.Runner, error) {
	var id int64
	if hash == "" {
		return nil, model.ErrNotFound
	}
	if err := q.row(ctx, `SELECT id FROM runners WHERE credential_hash = ?`, hash).Scan(&id); err != nil {
		return nil, notFound(err)
	}
	return q.Runner(ctx, RunnerFilter{AnyScope: true}, id)
}

// RunnerToken finds an unexpired registration-style token of kind by its
// hash: its scope and owner.
func (q Q) RunnerToken(ctx context.Context, kind, hash string) (scope string, ownerID int64, err error) {
	err = q.row(ctx, `SELECT scope, owner_id FROM runner_tokens WHERE kind = ? AND token_hash = ? AND expires_at > ?`, kind, hash, unix(q.Now())).Scan(&scope, &ownerID)
	return scope, ownerID, notFound(err)
}
