package store

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
)

// RepoTeamGrant is one team's own grant on a repository.
type RepoTeamGrant struct {
	TeamID int64
	TeamGrant
}

// RepoTeamQuery selects a page of the teams granted access to a repository:
// every team when All (an organization owner), else the closed teams and
// the secret teams ViewerID belongs to.
type RepoTeamQuery struct {
	RepoID, ViewerID int64
	All              bool
	Limit, Offset    int
}

// RepoTeamGrants is up to limit of the teams granted access to repoID (in
// team id order), with the total.
func (q Q) RepoTeamGrants(ctx context.Context, repoID int64, limit int) ([]RepoTeamGrant, int, error) {
	return q.repoTeamGrants(ctx, RepoTeamQuery{RepoID: repoID, All: true, Limit: limit}, `tr.team_id`)
}

// RepoTeamGrantsPage is a page of the teams granted access to a repository
// that the query's viewer may see (in team name order), with the total.
func (q Q) RepoTeamGrantsPage(ctx context.Context, f RepoTeamQuery) ([]RepoTeamGrant, int, error) {
	return q.repoTeamGrants(ctx, f, `t.name, t.id`)
}

func (q Q) repoTeamGrants(ctx context.Context, f RepoTeamQuery, order string) ([]RepoTeamGrant, int, error) {
	w := `tr.repo_id = ?`
	args := []any{f.RepoID}
	if !f.All {
		w += ` AND (t.privacy = 'closed' OR EXISTS (SELECT 1 FROM team_members v WHERE v.team_id = t.id AND v.user_id = ?))`
		args = append(args, f.ViewerID)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM team_repos tr JOIN teams t ON t.id = tr.team_id WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT tr.team_id, tr.repo_id, tr.permission, COALESCE(tr.role_id, 0), COALESCE(cr.name, '')
 FROM team_repos tr JOIN teams t ON t.id = tr.team_id LEFT JOIN custom_repo_roles cr ON cr.id = tr.role_id
 WHERE `+w+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []RepoTeamGrant
	for rows.Next() {
		var g RepoTeamGrant
		var p int
		if err := rows.Scan(&g.TeamID, &g.RepoID, &p, &g.RoleID, &g.RoleName); err != nil {
			return nil, 0, err
		}
		g.Perm = authz.Permission(p)
		out = append(out, g)
	}
	return out, total, rows.Err()
}
