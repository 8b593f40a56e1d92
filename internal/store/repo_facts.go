package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/hubd/hubd/internal/model"
)

// RepoFacts is what hubd learned about a repository's default branch at its
// last push: the key of its license ("" none, "other" a license file no
// license matches) and its top language ("" none), as of Commit.
type RepoFacts struct {
	Commit   string
	License  string
	Language string
}

type repoFactsKey int64

// RepoFacts loads the detected facts of repositories by id (absent ids have
// none yet). The values go through the read cache like accounts and labels
// do, so a page of repositories costs nothing once they are cached.
func (q Q) RepoFacts(ctx context.Context, ids []int64) (map[int64]RepoFacts, error) {
	keys := make([]repoFactsKey, len(ids))
	for i, id := range ids {
		keys[i] = repoFactsKey(id)
	}
	got, err := cachedBatch(q, keys, func(missing []repoFactsKey) (map[repoFactsKey]RepoFacts, error) {
		in, args := inList(keyIDs(missing))
		rows, err := q.query(ctx, `SELECT repo_id, commit_id, license_key, language FROM repo_facts WHERE repo_id IN (`+in+`)`, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		// Repositories without a row are cached as "no facts" too.
		out := make(map[repoFactsKey]RepoFacts, len(missing))
		for _, k := range missing {
			out[k] = RepoFacts{}
		}
		for rows.Next() {
			var id int64
			var f RepoFacts
			if err := rows.Scan(&id, &f.Commit, &f.License, &f.Language); err != nil {
				return nil, err
			}
			out[repoFactsKey(id)] = f
		}
		return out, rows.Err()
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]RepoFacts, len(got))
	for k, v := range got {
		out[int64(k)] = v
	}
	return out, nil
}

// SetRepoFacts records the facts detected at a commit (nothing when the
// repository was deleted meanwhile) and moves the repository's updated_at:
// the detection ends after the push that led to it answered.
func (q Q) SetRepoFacts(ctx context.Context, repoID int64, f RepoFacts) error {
	_, err := q.exec(ctx, `INSERT INTO repo_facts (repo_id, commit_id, license_key, language)
 SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM repos WHERE id = ?)
 ON CONFLICT (repo_id) DO UPDATE SET commit_id = excluded.commit_id, license_key = excluded.license_key, language = excluded.language`,
		repoID, f.Commit, f.License, f.Language, repoID)
	if err != nil {
		return err
	}
	// The repository object shows them: its updated_at (Last-Modified)
	// moves, so a client revalidating by date sees the new facts.
	_, err = q.exec(ctx, `UPDATE repos SET updated_at = ? WHERE id = ?`, unix(q.Now()), repoID)
	return err
}

// DefaultOrgSettings are GitHub's settings of a new organization.
func DefaultOrgSettings() model.OrgSettings {
	return model.OrgSettings{MembersCanCreatePages: true, MembersCanCreatePublicPages: true,
		MembersCanCreatePrivatePages: true, DeployKeysEnabled: true}
}

const orgSettingsCols = `members_can_create_pages, members_can_create_public_pages, members_can_create_private_pages,
 members_can_fork_private_repositories, advanced_security_enabled_for_new_repositories,
 dependabot_alerts_enabled_for_new_repositories, dependabot_security_updates_enabled_for_new_repositories,
 dependency_graph_enabled_for_new_repositories, secret_scanning_enabled_for_new_repositories,
 secret_scanning_push_protection_enabled_for_new_repositories, secret_scanning_validity_checks_enabled,
 secret_scanning_push_protection_custom_link_enabled, secret_scanning_push_protection_custom_link,
 deploy_keys_enabled_for_repositories`

func orgSettingFields(s *model.OrgSettings) []any {
	return []any{&s.MembersCanCreatePages, &s.MembersCanCreatePublicPages, &s.MembersCanCreatePrivatePages,
		&s.MembersCanForkPrivateRepos, &s.AdvancedSecurityForNew, &s.DependabotAlertsForNew,
		&s.DependabotSecurityUpdatesForNew, &s.DependencyGraphForNew, &s.SecretScanningForNew,
		&s.SecretScanningPushProtectionForNew, &s.SecretScanningValidityChecks,
		&s.PushProtectionCustomLinkEnabled, &s.PushProtectionCustomLink, &s.DeployKeysEnabled}
}

// OrgSettings loads an organization's settings (GitHub's defaults when it
// never changed them).
func (q Q) OrgSettings(ctx context.Context, orgID int64) (model.OrgSettings, error) {
	s := DefaultOrgSettings()
	var link sql.NullString
	dest := orgSettingFields(&s)
	dest[12] = &link
	err := q.row(ctx, `SELECT `+orgSettingsCols+` FROM org_settings WHERE org_id = ?`, orgID).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return DefaultOrgSettings(), nil
	}
	if err != nil {
		return s, err
	}
	if link.Valid {
		s.PushProtectionCustomLink = &link.String
	}
	return s, nil
}

// SaveOrgSettings writes an organization's settings.
func (q Q) SaveOrgSettings(ctx context.Context, orgID int64, s model.OrgSettings) error {
	args := []any{orgID}
	for _, f := range orgSettingFields(&s) {
		switch v := f.(type) {
		case *bool:
			args = append(args, *v)
		case **string:
			if *v == nil {
				args = append(args, nil)
			} else {
				args = append(args, **v)
			}
		}
	}
	_, err := q.exec(ctx, `INSERT INTO org_settings (org_id, `+orgSettingsCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
 ON CONFLICT (org_id) DO UPDATE SET
 members_can_create_pages = excluded.members_can_create_pages,
 members_can_create_public_pages = excluded.members_can_create_public_pages,
 members_can_create_private_pages = excluded.members_can_create_private_pages,
 members_can_fork_private_repositories = excluded.members_can_fork_private_repositories,
 advanced_security_enabled_for_new_repositories = excluded.advanced_security_enabled_for_new_repositories,
 dependabot_alerts_enabled_for_new_repositories = excluded.dependabot_alerts_enabled_for_new_repositories,
 dependabot_security_updates_enabled_for_new_repositories = excluded.dependabot_security_updates_enabled_for_new_repositories,
 dependency_graph_enabled_for_new_repositories = excluded.dependency_graph_enabled_for_new_repositories,
 secret_scanning_enabled_for_new_repositories = excluded.secret_scanning_enabled_for_new_repositories,
 secret_scanning_push_protection_enabled_for_new_repositories = excluded.secret_scanning_push_protection_enabled_for_new_repositories,
 secret_scanning_validity_checks_enabled = excluded.secret_scanning_validity_checks_enabled,
 secret_scanning_push_protection_custom_link_enabled = excluded.secret_scanning_push_protection_custom_link_enabled,
 secret_scanning_push_protection_custom_link = excluded.secret_scanning_push_protection_custom_link,
 deploy_keys_enabled_for_repositories = excluded.deploy_keys_enabled_for_repositories`, args...)
	return err
}

// ActiveMemberCount counts an organization's active members (its plan's
// filled seats).
func (q Q) ActiveMemberCount(ctx context.Context, orgID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM org_members WHERE org_id = ? AND state = 'active'`, orgID).Scan(&n)
	return n, err
}

// ReposWithoutFacts lists the ids of repositories no detection has recorded
// facts for yet (those pushed before hubd detected them), in id order.
func (q Q) ReposWithoutFacts(ctx context.Context) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT r.id FROM repos r LEFT JOIN repo_facts f ON f.repo_id = r.id WHERE f.repo_id IS NULL ORDER BY r.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
