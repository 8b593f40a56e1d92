package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

const advisoryCols = `a.id, a.repo_id, a.ghsa_id, a.state, a.summary, a.description, a.severity, a.cvss_v3, a.cvss_v4, a.cve_id,
 a.cwe_ids, a.vulnerabilities, COALESCE(a.author_id, 0), COALESCE(a.publisher_id, 0), a.reported, a.accepted,
 COALESCE(a.private_fork_id, 0), a.cve_requested_at, a.created_at, a.updated_at, a.published_at, a.closed_at, a.withdrawn_at`

// advisoryVuln is the stored JSON of one affected package.
type advisoryVuln struct {
	Ecosystem string   `json:"ecosystem"`
	Name      *string  `json:"name"`
	Range     *string  `json:"vulnerable_version_range"`
	Patched   *string  `json:"patched_versions"`
	Functions []string `json:"vulnerable_functions"`
}

func scanAdvisory(sc scanner) (*model.Advisory, error) {
	a := &model.Advisory{}
	var cwes, vulns string
	var cveReq, published, closed, withdrawn sql.NullInt64
	var created, updated int64
	if err := sc.Scan(&a.ID, &a.RepoID, &a.GHSAID, &a.State, &a.Summary, &a.Description, &a.Severity, &a.CVSSv3, &a.CVSSv4, &a.CVEID,
		&cwes, &vulns, &a.AuthorID, &a.PublisherID, &a.Reported, &a.Accepted, &a.PrivateForkID, &cveReq,
		&created, &updated, &published, &closed, &withdrawn); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(cwes), &a.CWEIDs); err != nil {
		return nil, err
	}
	var vs []advisoryVuln
	if err := json.Unmarshal([]byte(vulns), &vs); err != nil {
		return nil, err
	}
	a.Vulnerabilities = make([]model.AdvisoryVulnerability, len(vs))
	for i, v := range vs {
		a.Vulnerabilities[i] = model.AdvisoryVulnerability{Ecosystem: v.Ecosystem, Name: v.Name, VulnerableRange: v.Range, Patched: v.Patched, Functions: v.Functions}
	}
	a.CreatedAt, a.UpdatedAt = fromUnix(created), fromUnix(updated)
	a.CVERequestedAt, a.PublishedAt, a.ClosedAt, a.WithdrawnAt = fromNullUnix(cveReq), fromNullUnix(published), fromNullUnix(closed), fromNullUnix(withdrawn)
	return a, nil
}

func advisoryJSON(a *model.Advisory) (string, string, error) {
	cwes := a.CWEIDs
	if cwes == nil {
		cwes = []string{}
	}
	c, err := json.Marshal(cwes)
	if err != nil {
		return "", "", err
	}
	vs := make([]advisoryVuln, len(a.Vulnerabilities))
	for i, v := range a.Vulnerabilities {
		vs[i] = advisoryVuln{Ecosystem: v.Ecosystem, Name: v.Name, Range: v.VulnerableRange, Patched: v.Patched, Functions: v.Functions}
	}
	b, err := json.Marshal(vs)
	return string(c), string(b), err
}

// CreateAdvisory inserts an advisory; ErrDuplicate when its GHSA id is
// taken.
func (q Q) CreateAdvisory(ctx context.Context, a *model.Advisory) error {
	now := q.Now()
	a.CreatedAt, a.UpdatedAt = now, now
	cwes, vulns, err := advisoryJSON(a)
	if err != nil {
		return err
	}
	id, err := q.insert(ctx, `INSERT INTO repository_advisories (repo_id, ghsa_id, state, summary, description, severity, cvss_v3, cvss_v4, cve_id,
 cwe_ids, vulnerabilities, author_id, reported, accepted, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		a.RepoID, a.GHSAID, a.State, a.Summary, a.Description, a.Severity, a.CVSSv3, a.CVSSv4, a.CVEID, cwes, vulns, nullID(a.AuthorID),
		a.Reported, a.Accepted, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	a.ID = id
	return err
}

// UpdateAdvisory writes an advisory's fields back (updated_at is now).
func (q Q) UpdateAdvisory(ctx context.Context, a *model.Advisory) error {
	a.UpdatedAt = q.Now()
	cwes, vulns, err := advisoryJSON(a)
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `UPDATE repository_advisories SET state = ?, summary = ?, description = ?, severity = ?, cvss_v3 = ?, cvss_v4 = ?,
 cve_id = ?, cwe_ids = ?, vulnerabilities = ?, publisher_id = ?, accepted = ?, private_fork_id = ?, cve_requested_at = ?, updated_at = ?,
 published_at = ?, closed_at = ?, withdrawn_at = ? WHERE id = ?`,
		a.State, a.Summary, a.Description, a.Severity, a.CVSSv3, a.CVSSv4, a.CVEID, cwes, vulns, nullID(a.PublisherID), a.Accepted,
		nullID(a.PrivateForkID), nullUnix(a.CVERequestedAt), unix(a.UpdatedAt), nullUnix(a.PublishedAt), nullUnix(a.ClosedAt),
		nullUnix(a.WithdrawnAt), a.ID)
	return err
}

// AdvisoryByGHSA finds one of a repository's advisories by its GHSA id
// (any case).
func (q Q) AdvisoryByGHSA(ctx context.Context, repoID int64, ghsa string) (*model.Advisory, error) {
	a, err := scanAdvisory(q.row(ctx, `SELECT `+advisoryCols+` FROM repository_advisories a WHERE a.repo_id = ? AND a.ghsa_id = ?`,
		repoID, "GHSA-"+strings.ToLower(strings.TrimPrefix(strings.ToUpper(ghsa), "GHSA-"))))
	return a, notFound(err)
}

// AdvisoryByID finds an advisory by its row id.
func (q Q) AdvisoryByID(ctx context.Context, id int64) (*model.Advisory, error) {
	a, err := scanAdvisory(q.row(ctx, `SELECT `+advisoryCols+` FROM repository_advisories a WHERE a.id = ?`, id))
	return a, notFound(err)
}

// AdvisoryCursor is a position in an advisory list: the sort key's value
// and the id.
type AdvisoryCursor struct{ Key, ID int64 }

// AdvisoryQuery selects a page of advisories.
type AdvisoryQuery struct {
	RepoID int64 // or
	OrgID  int64 // every repository the organization owns
	State  string
	Sort   string // created (default), updated, published
	Asc    bool
	// ViewerID, when not 0, keeps the advisories a reader who does not
	// manage the repository sees: published ones, and those they wrote or
	// collaborate on (directly or through a team).
	ViewerID      int64
	After, Before *AdvisoryCursor
	Limit         int
}

// Advisories is one page of advisories in the query's order, and whether
// more follow in the direction read (after the last for After or no
// cursor, before the first for Before).
func (q Q) Advisories(ctx context.Context, f AdvisoryQuery) ([]*model.Advisory, bool, error) {
	key := map[string]string{"updated": "a.updated_at", "published": "COALESCE(a.published_at, 0)"}[f.Sort]
	if key == "" {
		key = "a.created_at"
	}
	var where []string
	var args []any
	if f.OrgID != 0 {
		where = append(where, `a.repo_id IN (SELECT id FROM repos WHERE owner_id = ?)`)
		args = append(args, f.OrgID)
	} else {
		where = append(where, `a.repo_id = ?`)
		args = append(args, f.RepoID)
	}
	if f.State != "" {
		where = append(where, `a.state = ?`)
		args = append(args, f.State)
	}
	if f.ViewerID != 0 {
		where = append(where, `(a.state = 'published' OR a.author_id = ?
 OR EXISTS (SELECT 1 FROM advisory_collaborators c WHERE c.advisory_id = a.id AND c.user_id = ?)
 OR EXISTS (SELECT 1 FROM advisory_collaborating_teams t JOIN team_members m ON m.team_id = t.team_id WHERE t.advisory_id = a.id AND m.user_id = ?))`)
		args = append(args, f.ViewerID, f.ViewerID, f.ViewerID)
	}
	// Reading before a cursor walks the order backwards and turns the page
	// round afterwards.
	asc := f.Asc
	cur := f.After
	if f.Before != nil {
		asc, cur = !asc, f.Before
	}
	cmp, dir := "<", "DESC"
	if asc {
		cmp, dir = ">", "ASC"
	}
	if cur != nil {
		where = append(where, `(`+key+` `+cmp+` ? OR (`+key+` = ? AND a.id `+cmp+` ?))`)
		args = append(args, cur.Key, cur.Key, cur.ID)
	}
	args = append(args, f.Limit+1)
	rows, err := q.query(ctx, `SELECT `+advisoryCols+` FROM repository_advisories a WHERE `+strings.Join(where, " AND ")+
		` ORDER BY `+key+` `+dir+`, a.id `+dir+` LIMIT ?`, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := []*model.Advisory{}
	for rows.Next() {
		a, err := scanAdvisory(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	if f.Before != nil {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, more, nil
}

// AdvisorySortKey is the value an advisory list sorted by sort orders by.
func AdvisorySortKey(a *model.Advisory, sort string) int64 {
	switch sort {
	case "updated":
		return unix(a.UpdatedAt)
	case "published":
		if a.PublishedAt == nil {
			return 0
		}
		return unix(*a.PublishedAt)
	}
	return unix(a.CreatedAt)
}

// SetAdvisoryPeople replaces an advisory's collaborators and credits.
func (q Q) SetAdvisoryPeople(ctx context.Context, advisoryID int64, p model.AdvisoryPeople) error {
	for _, t := range []string{"advisory_collaborators", "advisory_collaborating_teams", "advisory_credits"} {
		if _, err := q.exec(ctx, `DELETE FROM `+t+` WHERE advisory_id = ?`, advisoryID); err != nil {
			return err
		}
	}
	for _, u := range p.Users {
		if _, err := q.exec(ctx, `INSERT INTO advisory_collaborators (advisory_id, user_id) VALUES (?, ?)`, advisoryID, u); err != nil {
			return err
		}
	}
	for _, t := range p.Teams {
		if _, err := q.exec(ctx, `INSERT INTO advisory_collaborating_teams (advisory_id, team_id) VALUES (?, ?)`, advisoryID, t); err != nil {
			return err
		}
	}
	for _, c := range p.Credits {
		if _, err := q.exec(ctx, `INSERT INTO advisory_credits (advisory_id, user_id, type, state) VALUES (?, ?, ?, ?)`, advisoryID, c.UserID, c.Type, c.State); err != nil {
			return err
		}
	}
	return nil
}

// AdvisoryPeopleOf loads the collaborators and credits of advisories, by
// advisory id, in three queries.
func (q Q) AdvisoryPeopleOf(ctx context.Context, ids []int64) (map[int64]*model.AdvisoryPeople, error) {
	out := make(map[int64]*model.AdvisoryPeople, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	for _, id := range ids {
		out[id] = &model.AdvisoryPeople{}
	}
	in, args := inList(ids)
	for _, part := range []struct {
		query string
		add   func(p *model.AdvisoryPeople, id int64, typ, state string)
	}{
		{`SELECT advisory_id, user_id, '', '' FROM advisory_collaborators WHERE advisory_id IN (` + in + `) ORDER BY advisory_id, user_id`,
			func(p *model.AdvisoryPeople, id int64, _, _ string) { p.Users = append(p.Users, id) }},
		{`SELECT advisory_id, team_id, '', '' FROM advisory_collaborating_teams WHERE advisory_id IN (` + in + `) ORDER BY advisory_id, team_id`,
			func(p *model.AdvisoryPeople, id int64, _, _ string) { p.Teams = append(p.Teams, id) }},
		{`SELECT advisory_id, user_id, type, state FROM advisory_credits WHERE advisory_id IN (` + in + `) ORDER BY advisory_id, user_id`,
			func(p *model.AdvisoryPeople, id int64, typ, state string) {
				p.Credits = append(p.Credits, model.AdvisoryCredit{UserID: id, Type: typ, State: state})
			}},
	} {
		rows, err := q.query(ctx, part.query, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var aid, id int64
			var typ, state string
			if err := rows.Scan(&aid, &id, &typ, &state); err != nil {
				rows.Close()
				return nil, err
			}
			if p := out[aid]; p != nil {
				part.add(p, id, typ, state)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AdvisoryCollaborator reports whether a user collaborates on an advisory,
// directly or through a team.
func (q Q) AdvisoryCollaborator(ctx context.Context, advisoryID, userID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT
 (SELECT COUNT(*) FROM advisory_collaborators WHERE advisory_id = ? AND user_id = ?) +
 (SELECT COUNT(*) FROM advisory_collaborating_teams t JOIN team_members m ON m.team_id = t.team_id WHERE t.advisory_id = ? AND m.user_id = ?)`,
		advisoryID, userID, advisoryID, userID).Scan(&n)
	return n > 0, err
}

// PrivateReporting reports whether a repository accepts private
// vulnerability reports.
func (q Q) PrivateReporting(ctx context.Context, repoID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM private_vulnerability_reporting WHERE repo_id = ?`, repoID).Scan(&n)
	return n > 0, err
}

// SetPrivateReporting turns a repository's private vulnerability reporting
// on or off.
func (q Q) SetPrivateReporting(ctx context.Context, repoID, actorID int64, on bool) error {
	if _, err := q.exec(ctx, `DELETE FROM private_vulnerability_reporting WHERE repo_id = ?`, repoID); err != nil || !on {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO private_vulnerability_reporting (repo_id, enabled_by, enabled_at) VALUES (?, ?, ?)`, repoID, nullID(actorID), unix(q.Now()))
	return err
}
