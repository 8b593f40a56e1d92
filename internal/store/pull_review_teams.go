package store

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Team review requests of pull requests (table pull_review_team_requests,
// owned by internal/pullreviews). A team's request goes with the team (ON
// DELETE CASCADE); the review_requested and review_request_removed issue
// events of a team keep its id in subject_id.

// teamSeenBy holds when the viewer (its one argument) may see team t, as
// internal/teams rules: an active member of t's organization who owns it,
// or for whom t is closed, or who belongs to t.
const teamSeenBy = `EXISTS (SELECT 1 FROM org_members vo WHERE vo.org_id = t.org_id AND vo.user_id = ? AND vo.state = 'active'
 AND (vo.role = 'admin' OR t.privacy = 'closed' OR EXISTS (SELECT 1 FROM team_members vm WHERE vm.team_id = t.id AND vm.user_id = vo.user_id)))`

// teamShownTo holds when a requested team t is shown to the viewer (its one
// argument): closed teams to everyone who sees the pull request, secret
// ones to those who may see them.
const teamShownTo = `(t.privacy = 'closed' OR ` + teamSeenBy + `)`

// teamOnRepo holds when team t or one of its ancestors (grants flow down,
// up to TeamMaxDepth levels as in teamGrant) has a grant on the repository
// (its one argument).
const teamOnRepo = `EXISTS (SELECT 1 FROM teams g0
 LEFT JOIN teams g1 ON g1.id = g0.parent_id
 LEFT JOIN teams g2 ON g2.id = g1.parent_id
 LEFT JOIN teams g3 ON g3.id = g2.parent_id
 LEFT JOIN teams g4 ON g4.id = g3.parent_id
 JOIN team_repos gr ON gr.repo_id = ? AND gr.team_id IN (g0.id, g1.id, g2.id, g3.id, g4.id)
 WHERE g0.id = t.id)`

// ReviewTeam is a team named in a review request with what the request
// rules ask of it.
type ReviewTeam struct {
	Team    *model.Team
	Visible bool // the requester may see it
	Access  bool // it has (or inherits) a grant on the repository
}

// ReviewTeamsBySlug finds an organization's teams by slug (ignoring case),
// keyed by lower-cased slug, with whether viewerID may see each and
// whether each may reach repository repoID.
func (q Q) ReviewTeamsBySlug(ctx context.Context, orgID, repoID, viewerID int64, slugs []string) (map[string]*ReviewTeam, error) {
	out := map[string]*ReviewTeam{}
	seen := map[string]bool{}
	args := []any{viewerID, repoID, orgID}
	for _, s := range slugs {
		s = strings.ToLower(s)
		if !seen[s] {
			seen[s] = true
			args = append(args, s)
		}
	}
	if len(seen) == 0 {
		return out, nil
	}
	rows, err := q.query(ctx, `SELECT CASE WHEN `+teamSeenBy+` THEN 1 ELSE 0 END, CASE WHEN `+teamOnRepo+` THEN 1 ELSE 0 END, `+
		strings.TrimPrefix(teamSelect, "SELECT ")+` WHERE t.org_id = ? AND t.slug IN (`+
		strings.TrimSuffix(strings.Repeat("?,", len(seen)), ",")+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var visible, access int
		t, err := scanTeam(expand{sc: rows, pre: []any{&visible, &access}})
		if err != nil {
			return nil, err
		}
		out[t.Slug] = &ReviewTeam{Team: t, Visible: visible == 1, Access: access == 1}
	}
	return out, rows.Err()
}

// RequestedTeams are the teams whose review is requested on pull requests
// (by issue id) that viewerID is shown, in the order they were requested;
// one query per hundred pull requests.
func (q Q) RequestedTeams(ctx context.Context, issueIDs []int64, viewerID int64) (map[int64][]*model.Team, error) {
	out := map[int64][]*model.Team{}
	for start := 0; start < len(issueIDs); start += 100 {
		in, args := inList(issueIDs[start:min(start+100, len(issueIDs))])
		rows, err := q.query(ctx, `SELECT rt.pull_id, `+strings.TrimPrefix(teamSelect, "SELECT ")+`
 JOIN pull_review_team_requests rt ON rt.team_id = t.id
 WHERE rt.pull_id IN (`+in+`) AND `+teamShownTo+` ORDER BY rt.pull_id, rt.id`, append(args, viewerID)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var pid int64
			t, err := scanTeam(expand{sc: rows, pre: []any{&pid}})
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[pid] = append(out[pid], t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AddTeamReviewRequest requests a team's review; added is false when it
// was already requested.
func (q Q) AddTeamReviewRequest(ctx context.Context, pullID, teamID int64) (added bool, err error) {
	res, err := q.exec(ctx, `INSERT INTO pull_review_team_requests (pull_id, team_id, created_at) VALUES (?,?,?) ON CONFLICT DO NOTHING`,
		pullID, teamID, unix(q.Now()))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// RemoveTeamReviewRequest withdraws a team's review request; removed is
// false when there was none.
func (q Q) RemoveTeamReviewRequest(ctx context.Context, pullID, teamID int64) (removed bool, err error) {
	res, err := q.exec(ctx, `DELETE FROM pull_review_team_requests WHERE pull_id = ? AND team_id = ?`, pullID, teamID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// AnswerTeamReviewRequests drops the review requests of a pull request's
// teams that userID belongs to (as an active member of their
// organization): their review answers for the team. It returns how many
// went.
func (q Q) AnswerTeamReviewRequests(ctx context.Context, pullID, userID int64) (int64, error) {
	res, err := q.exec(ctx, `DELETE FROM pull_review_team_requests WHERE pull_id = ? AND team_id IN (
 SELECT tm.team_id FROM team_members tm JOIN teams t ON t.id = tm.team_id
 JOIN org_members om ON om.org_id = t.org_id AND om.user_id = tm.user_id AND om.state = 'active'
 WHERE tm.user_id = ?)`, pullID, userID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// LoadEventTeams sets the team of the team review request events among
// events (review_requested and review_request_removed without a user,
// whose subject_id is the team) that viewerID is shown; a deleted team or
// one the viewer may not see stays nil. One query per hundred teams.
func (q Q) LoadEventTeams(ctx context.Context, events []*model.IssueEvent, viewerID int64) error {
	var ids []int64
	seen := map[int64]bool{}
	for _, e := range events {
		if isTeamRequestEvent(e) && !seen[e.SubjectID] {
			seen[e.SubjectID] = true
			ids = append(ids, e.SubjectID)
		}
	}
	teams := map[int64]*model.Team{}
	for start := 0; start < len(ids); start += 100 {
		in, args := inList(ids[start:min(start+100, len(ids))])
		list, err := q.teams(ctx, teamSelect+` WHERE t.id IN (`+in+`) AND `+teamShownTo, append(args, viewerID)...)
		if err != nil {
			return err
		}
		for _, t := range list {
			teams[t.ID] = t
		}
	}
	for _, e := range events {
		if isTeamRequestEvent(e) {
			e.Team = teams[e.SubjectID]
		}
	}
	return nil
}

func isTeamRequestEvent(e *model.IssueEvent) bool {
	return (e.Event == "review_requested" || e.Event == "review_request_removed") && e.AssigneeID == 0 && e.SubjectID != 0
}
