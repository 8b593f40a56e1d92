package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Rulesets (owned by internal/rulesets): a repository's own rulesets
// (repo_id set) and an organization's (org_id set). Bypass actors,
// conditions and rules are JSON columns in the store's own encoding
// (below): they are always read and written whole, with their ruleset.
// Every change stores a version: the ruleset's state after it.

// The store's JSON encoding of a ruleset's parts. Field names follow
// GitHub's, so stored states read naturally, but this is not the wire
// format (the REST adapter and GraphQL write their own).
type (
	jsonBypass struct {
		ActorID   int64  `json:"actor_id,omitempty"`
		ActorType string `json:"actor_type"`
		Mode      string `json:"bypass_mode"`
	}
	jsonPatterns struct {
		Include []string `json:"include"`
		Exclude []string `json:"exclude"`
	}
	jsonConditions struct {
		RefName             *jsonPatterns `json:"ref_name,omitempty"`
		RepositoryName      *jsonPatterns `json:"repository_name,omitempty"`
		RepositoryProtected bool          `json:"repository_protected,omitempty"`
		OrganizationName    *jsonPatterns `json:"organization_name,omitempty"`
		OrganizationIDs     []int64       `json:"organization_ids,omitempty"`
	}
	jsonCheck struct {
		Context       string `json:"context"`
		IntegrationID int64  `json:"integration_id,omitempty"`
	}
	jsonRule struct {
		Type string `json:"type"`
		// update
		UpdateAllowsFetchAndMerge bool              `json:"update_allows_fetch_and_merge,omitempty"`
		PullRequest               *jsonPullRequest  `json:"pull_request,omitempty"`
		StatusChecks              *jsonStatusChecks `json:"required_status_checks,omitempty"`
		Pattern                   *jsonPattern      `json:"pattern,omitempty"`
		// push rules
		Restricted []string `json:"restricted,omitempty"`
		Max        int      `json:"max,omitempty"`
	}
	jsonPullRequest struct {
		RequiredApprovals        int      `json:"required_approving_review_count"`
		DismissStale             bool     `json:"dismiss_stale_reviews_on_push"`
		CodeOwner                bool     `json:"require_code_owner_review"`
		LastPush                 bool     `json:"require_last_push_approval"`
		ThreadResolution         bool     `json:"required_review_thread_resolution"`
		AllowedMergeMethods      []string `json:"allowed_merge_methods,omitempty"`
		AllowedMergeMethodsGiven bool     `json:"allowed_merge_methods_given,omitempty"`
	}
	jsonStatusChecks struct {
		Checks               []jsonCheck `json:"required_status_checks"`
		Strict               bool        `json:"strict_required_status_checks_policy"`
		DoNotEnforceOnCreate bool        `json:"do_not_enforce_on_create,omitempty"`
	}
	jsonPattern struct {
		Name     string `json:"name,omitempty"`
		Negate   bool   `json:"negate,omitempty"`
		Operator string `json:"operator"`
		Pattern  string `json:"pattern"`
	}
	// jsonState is a whole ruleset (a version's state).
	jsonState struct {
		ID          int64           `json:"id"`
		SourceType  string          `json:"source_type"`
		RepoID      int64           `json:"repo_id,omitempty"`
		OrgID       int64           `json:"org_id,omitempty"`
		Source      string          `json:"source"`
		Name        string          `json:"name"`
		Target      string          `json:"target"`
		Enforcement string          `json:"enforcement"`
		Bypass      []jsonBypass    `json:"bypass_actors"`
		Conditions  *jsonConditions `json:"conditions"`
		Rules       []jsonRule      `json:"rules"`
		CreatedAt   int64           `json:"created_at"`
		UpdatedAt   int64           `json:"updated_at"`
	}
)

func encodeBypass(list []model.BypassActor) []jsonBypass {
	out := make([]jsonBypass, len(list))
	for i, b := range list {
		out[i] = jsonBypass{ActorID: b.ActorID, ActorType: b.ActorType, Mode: b.Mode}
	}
	return out
}

func decodeBypass(list []jsonBypass) []model.BypassActor {
	out := make([]model.BypassActor, len(list))
	for i, b := range list {
		out[i] = model.BypassActor{ActorID: b.ActorID, ActorType: b.ActorType, Mode: b.Mode}
	}
	return out
}

func encodePatterns(p *model.NamePatterns) *jsonPatterns {
	if p == nil {
		return nil
	}
	return &jsonPatterns{Include: nonNil(p.Include), Exclude: nonNil(p.Exclude)}
}

func decodePatterns(p *jsonPatterns) *model.NamePatterns {
	if p == nil {
		return nil
	}
	return &model.NamePatterns{Include: nonNil(p.Include), Exclude: nonNil(p.Exclude)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func encodeConditions(c *model.RulesetConditions) *jsonConditions {
	if c == nil {
		return nil
	}
	return &jsonConditions{RefName: encodePatterns(c.RefName), RepositoryName: encodePatterns(c.RepositoryName),
		RepositoryProtected: c.RepositoryProtected, OrganizationName: encodePatterns(c.OrganizationName), OrganizationIDs: c.OrganizationIDs}
}

func decodeConditions(c *jsonConditions) *model.RulesetConditions {
	if c == nil {
		return nil
	}
	return &model.RulesetConditions{RefName: decodePatterns(c.RefName), RepositoryName: decodePatterns(c.RepositoryName),
		RepositoryProtected: c.RepositoryProtected, OrganizationName: decodePatterns(c.OrganizationName), OrganizationIDs: c.OrganizationIDs}
}

func encodeRules(list []model.RulesetRule) []jsonRule {
	out := make([]jsonRule, len(list))
	for i, r := range list {
		j := jsonRule{Type: r.Type, UpdateAllowsFetchAndMerge: r.UpdateAllowsFetchAndMerge, Restricted: r.Restricted, Max: r.Max}
		if p := r.PullRequest; p != nil {
			j.PullRequest = &jsonPullRequest{p.RequiredApprovals, p.DismissStaleReviewsOnPush, p.RequireCodeOwnerReview, p.RequireLastPushApproval,
				p.RequiredReviewThreadResolution, p.AllowedMergeMethods, p.AllowedMergeMethods != nil}
		}
		if s := r.StatusChecks; s != nil {
			checks := make([]jsonCheck, len(s.Checks))
			for k, c := range s.Checks {
				checks[k] = jsonCheck{Context: c.Context, IntegrationID: c.IntegrationID}
			}
			j.StatusChecks = &jsonStatusChecks{checks, s.Strict, s.DoNotEnforceOnCreate}
		}
		if p := r.Pattern; p != nil {
			j.Pattern = &jsonPattern{p.Name, p.Negate, p.Operator, p.Pattern}
		}
		out[i] = j
	}
	return out
}

func decodeRules(list []jsonRule) []model.RulesetRule {
	out := make([]model.RulesetRule, len(list))
	for i, j := range list {
		r := model.RulesetRule{Type: j.Type, UpdateAllowsFetchAndMerge: j.UpdateAllowsFetchAndMerge, Max: j.Max}
		if j.Restricted != nil || j.Type == model.RuleFilePathRestriction || j.Type == model.RuleFileExtensionRestriction {
			r.Restricted = nonNil(j.Restricted)
		}
		if p := j.PullRequest; p != nil {
			r.PullRequest = &model.PullRequestRule{RequiredApprovals: p.RequiredApprovals, DismissStaleReviewsOnPush: p.DismissStale,
				RequireCodeOwnerReview: p.CodeOwner, RequireLastPushApproval: p.LastPush, RequiredReviewThreadResolution: p.ThreadResolution}
			if p.AllowedMergeMethodsGiven {
				r.PullRequest.AllowedMergeMethods = nonNil(p.AllowedMergeMethods)
			}
		}
		if s := j.StatusChecks; s != nil {
			r.StatusChecks = &model.StatusChecksRule{Strict: s.Strict, DoNotEnforceOnCreate: s.DoNotEnforceOnCreate,
				Checks: make([]model.RequiredCheck, len(s.Checks))}
			for k, c := range s.Checks {
				r.StatusChecks.Checks[k] = model.RequiredCheck{Context: c.Context, IntegrationID: c.IntegrationID}
			}
		}
		if p := j.Pattern; p != nil {
			r.Pattern = &model.PatternRule{Name: p.Name, Negate: p.Negate, Operator: p.Operator, Pattern: p.Pattern}
		}
		out[i] = r
	}
	return out
}

func encodeState(r *model.Ruleset) ([]byte, error) {
	return json.Marshal(jsonState{ID: r.ID, SourceType: r.SourceType, RepoID: r.RepoID, OrgID: r.OrgID, Source: r.Source,
		Name: r.Name, Target: r.Target, Enforcement: r.Enforcement, Bypass: encodeBypass(r.Bypass),
		Conditions: encodeConditions(r.Conditions), Rules: encodeRules(r.Rules),
		CreatedAt: unix(r.CreatedAt), UpdatedAt: unix(r.UpdatedAt)})
}

func decodeState(b []byte) (*model.Ruleset, error) {
	var j jsonState
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, err
	}
	return &model.Ruleset{ID: j.ID, SourceType: j.SourceType, RepoID: j.RepoID, OrgID: j.OrgID, Source: j.Source,
		Name: j.Name, Target: j.Target, Enforcement: j.Enforcement, Bypass: decodeBypass(j.Bypass),
		Conditions: decodeConditions(j.Conditions), Rules: decodeRules(j.Rules),
		CreatedAt: fromUnix(j.CreatedAt), UpdatedAt: fromUnix(j.UpdatedAt)}, nil
}

// rulesetColumns encodes a ruleset's JSON columns.
func rulesetColumns(r *model.Ruleset) (bypass, conditions, rules string, err error) {
	b, err := json.Marshal(encodeBypass(r.Bypass))
	if err != nil {
		return "", "", "", err
	}
	var c []byte
	if r.Conditions != nil {
		if c, err = json.Marshal(encodeConditions(r.Conditions)); err != nil {
			return "", "", "", err
		}
	}
	ru, err := json.Marshal(encodeRules(r.Rules))
	if err != nil {
		return "", "", "", err
	}
	return string(b), string(c), string(ru), nil
}

// The source is "owner/name" for a repository's ruleset, the login for
// an organization's and empty for the enterprise's (the transports name
// the enterprise).
const rulesetSelect = `SELECT x.id, x.repo_id, x.org_id, x.name, x.target, x.enforcement, x.bypass_actors, x.conditions, x.rules,
 x.created_at, x.updated_at, COALESCE(ra.login || '/' || r.name, o.login, ''), x.enterprise
 FROM rulesets x LEFT JOIN repos r ON r.id = x.repo_id LEFT JOIN accounts ra ON ra.id = r.owner_id
 LEFT JOIN accounts o ON o.id = x.org_id`

func scanRuleset(sc rowScanner) (*model.Ruleset, error) {
	r := &model.Ruleset{}
	var repoID, orgID sql.NullInt64
	var bypass, conditions, rules string
	var created, updated int64
	var enterprise bool
	if err := sc.Scan(&r.ID, &repoID, &orgID, &r.Name, &r.Target, &r.Enforcement, &bypass, &conditions, &rules,
		&created, &updated, &r.Source, &enterprise); err != nil {
		return nil, err
	}
	r.RepoID, r.OrgID = repoID.Int64, orgID.Int64
	switch {
	case enterprise:
		r.SourceType = model.RulesetSourceEnterprise
	case r.OrgID != 0:
		r.SourceType = model.RulesetSourceOrganization
	default:
		r.SourceType = model.RulesetSourceRepository
	}
	r.CreatedAt, r.UpdatedAt = fromUnix(created), fromUnix(updated)
	var jb []jsonBypass
	if err := json.Unmarshal([]byte(bypass), &jb); err != nil {
		return nil, err
	}
	r.Bypass = decodeBypass(jb)
	if conditions != "" {
		var jc jsonConditions
		if err := json.Unmarshal([]byte(conditions), &jc); err != nil {
			return nil, err
		}
		r.Conditions = decodeConditions(&jc)
	}
	var jr []jsonRule
	if err := json.Unmarshal([]byte(rules), &jr); err != nil {
		return nil, err
	}
	r.Rules = decodeRules(jr)
	return r, nil
}

func (q Q) rulesets(ctx context.Context, query string, args ...any) ([]*model.Ruleset, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Ruleset{}
	for rows.Next() {
		r, err := scanRuleset(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RulesetByID finds a ruleset of any source.
func (q Q) RulesetByID(ctx context.Context, id int64) (*model.Ruleset, error) {
	r, err := scanRuleset(q.row(ctx, rulesetSelect+` WHERE x.id = ?`, id))
	return r, notFound(err)
}

// targetFilter is the SQL condition of a targets filter (none: every
// target).
func targetFilter(targets []string) (string, []any) {
	if len(targets) == 0 {
		return "", nil
	}
	in, args := textList(targets)
	return ` AND x.target IN (` + in + `)`, args
}

// RepoRulesets is one page of a repository's own rulesets (by id), with
// the given targets only when targets is not empty, and their count.
func (q Q) RepoRulesets(ctx context.Context, repoID int64, targets []string, limit, offset int) ([]*model.Ruleset, int, error) {
	return q.pageRulesets(ctx, `x.repo_id = ?`, repoID, targets, limit, offset)
}

// EnterpriseRulesets is one page of the enterprise's rulesets, as
// RepoRulesets.
func (q Q) EnterpriseRulesets(ctx context.Context, targets []string, limit, offset int) ([]*model.Ruleset, int, error) {
	return q.pageRulesets(ctx, `x.enterprise = ?`, true, targets, limit, offset)
}

// OrgRulesets is one page of an organization's rulesets, as RepoRulesets.
func (q Q) OrgRulesets(ctx context.Context, orgID int64, targets []string, limit, offset int) ([]*model.Ruleset, int, error) {
	return q.pageRulesets(ctx, `x.org_id = ?`, orgID, targets, limit, offset)
}

func (q Q) pageRulesets(ctx context.Context, where string, id any, targets []string, limit, offset int) ([]*model.Ruleset, int, error) {
	filter, targs := targetFilter(targets)
	args := append([]any{id}, targs...)
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM rulesets x WHERE `+where+filter, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.rulesets(ctx, rulesetSelect+` WHERE `+where+filter+` ORDER BY x.id LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	return list, total, err
}

// RulesetsFor are every ruleset of a repository (repoID), of its
// organization (orgID; 0 for none) and, when it has an organization, of
// the enterprise, by id, in one query: the candidates of what applies to
// the repository (the organization's and the enterprise's are matched
// against their conditions by the caller). enforcedOnly leaves out
// disabled ones.
func (q Q) RulesetsFor(ctx context.Context, repoID, orgID int64, enforcedOnly bool) ([]*model.Ruleset, error) {
	where := ` WHERE (x.repo_id = ? OR x.org_id = ?)`
	if orgID != 0 {
		where = ` WHERE (x.repo_id = ? OR x.org_id = ? OR x.enterprise = TRUE)`
	}
	if enforcedOnly {
		where += ` AND x.enforcement <> 'disabled'`
	}
	return q.rulesets(ctx, rulesetSelect+where+` ORDER BY x.id`, repoID, orgID)
}

// CreateRuleset inserts r and sets its id and times; ErrDuplicate when its
// source already has a ruleset of that name.
func (q Q) CreateRuleset(ctx context.Context, r *model.Ruleset) error {
	bypass, conditions, rules, err := rulesetColumns(r)
	if err != nil {
		return err
	}
	now := q.Now()
	r.CreatedAt, r.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO rulesets (repo_id, org_id, name, lower_name, target, enforcement, bypass_actors, conditions, rules,
 created_at, updated_at, enterprise) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		idOrNil(r.RepoID), idOrNil(r.OrgID), r.Name, strings.ToLower(r.Name), r.Target, r.Enforcement, bypass, conditions, rules,
		unix(now), unix(now), r.SourceType == model.RulesetSourceEnterprise)
	if isUnique(err) {
		return ErrDuplicate
	}
	r.ID = id
	return err
}

// UpdateRuleset writes r's fields (not its source) and its update time;
// ErrDuplicate as CreateRuleset.
func (q Q) UpdateRuleset(ctx context.Context, r *model.Ruleset) error {
	bypass, conditions, rules, err := rulesetColumns(r)
	if err != nil {
		return err
	}
	r.UpdatedAt = q.Now()
	res, err := q.exec(ctx, `UPDATE rulesets SET name = ?, lower_name = ?, target = ?, enforcement = ?, bypass_actors = ?, conditions = ?,
 rules = ?, updated_at = ? WHERE id = ?`,
		r.Name, strings.ToLower(r.Name), r.Target, r.Enforcement, bypass, conditions, rules, unix(r.UpdatedAt), r.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// DeleteRuleset removes a ruleset with its versions.
func (q Q) DeleteRuleset(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM ruleset_versions WHERE ruleset_id = ?`, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `DELETE FROM rulesets WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// AddRulesetVersion stores r's current state as a new version by actorID.
func (q Q) AddRulesetVersion(ctx context.Context, r *model.Ruleset, actorID int64) error {
	state, err := encodeState(r)
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO ruleset_versions (ruleset_id, actor_id, state, created_at) VALUES (?,?,?,?)`,
		r.ID, idOrNil(actorID), string(state), unix(r.UpdatedAt))
	return err
}

// RulesetVersions is one page of a ruleset's versions, newest first,
// without their states, and their count.
func (q Q) RulesetVersions(ctx context.Context, rulesetID int64, limit, offset int) ([]*model.RulesetVersion, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM ruleset_versions WHERE ruleset_id = ?`, rulesetID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT id, actor_id, created_at FROM ruleset_versions WHERE ruleset_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`,
		rulesetID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.RulesetVersion{}
	for rows.Next() {
		v := &model.RulesetVersion{RulesetID: rulesetID}
		var actor sql.NullInt64
		var created int64
		if err := rows.Scan(&v.ID, &actor, &created); err != nil {
			return nil, 0, err
		}
		v.ActorID, v.CreatedAt = actor.Int64, fromUnix(created)
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// RulesetVersion is one version of a ruleset with its state.
func (q Q) RulesetVersion(ctx context.Context, rulesetID, id int64) (*model.RulesetVersion, error) {
	v := &model.RulesetVersion{ID: id, RulesetID: rulesetID}
	var actor sql.NullInt64
	var created int64
	var state string
	err := q.row(ctx, `SELECT actor_id, created_at, state FROM ruleset_versions WHERE ruleset_id = ? AND id = ?`, rulesetID, id).
		Scan(&actor, &created, &state)
	if err != nil {
		return nil, notFound(err)
	}
	v.ActorID, v.CreatedAt = actor.Int64, fromUnix(created)
	if v.State, err = decodeState([]byte(state)); err != nil {
		return nil, err
	}
	return v, nil
}
