package migrations

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/teams"
)

// writeTeams adds the organization's teams, each with its members and its
// permissions on the repositories of the archive (repoURLs by id).
func (s *Service) writeTeams(ctx context.Context, a *archive, org *model.Account, repoURLs map[int64]string) error {
	q := s.Store.R()
	return pages(func(off int) (int, int, error) {
		list, total, err := q.Teams(ctx, store.TeamQuery{OrgID: org.ID, All: true, Limit: perFile, Offset: off})
		for _, t := range list {
			members := []any{}
			for _, role := range []string{"maintainer", "member"} {
				if err := pages(func(off int) (int, int, error) {
					list, total, err := q.TeamMembers(ctx, t.ID, role, perFile, off)
					for _, u := range list {
						members = append(members, map[string]any{"user": a.account(u), "role": role})
					}
					return len(list), total, err
				}); err != nil {
					return 0, 0, err
				}
			}
			perms := []any{}
			if err := pages(func(off int) (int, int, error) {
				grants, total, err := q.TeamRepos(ctx, t.ID, perFile, off)
				for _, g := range grants {
					if url, ok := repoURLs[g.RepoID]; ok {
						perms = append(perms, map[string]any{"repository": url, "access": teams.GrantName(g.Perm)})
					}
				}
				return len(grants), total, err
			}); err != nil {
				return 0, 0, err
			}
			if err := a.add("teams", map[string]any{
				"type": "team", "url": a.web + "/orgs/" + org.Login + "/teams/" + t.Slug, "organization": a.web + "/" + org.Login,
				"name": t.Name, "description": t.Description, "privacy": t.Privacy, "permissions": perms, "members": members,
				"created_at": stamp(t.CreatedAt),
			}); err != nil {
				return 0, 0, err
			}
		}
		return len(list), total, err
	})
}
