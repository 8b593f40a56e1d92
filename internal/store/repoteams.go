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

// RepoTeamGrants is up to limit of the teams granted access to repoID (in
// team id order), with the total.
func (q Q) RepoTeamGrants(ctx context.Context, repoID int64, limit int) ([]RepoTeamGrant, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM team_repos WHERE repo_id = ?`, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT tr.team_id, tr.repo_id, tr.permission, COALESCE(tr.role_id, 0), COALESCE(cr.name, '')
 FROM team_repos tr LEFT JOIN custom_repo_roles cr ON cr.id = tr.role_id WHERE tr.repo_id = ? ORDER BY tr.team_id LIMIT ?`, repoID, limit)
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
