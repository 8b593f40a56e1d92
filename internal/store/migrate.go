package store

import (
	"context"
	"fmt"
	"strings"
)

// migrations are applied in order, each once, recorded in schema_migrations.
// {{id}} becomes the dialect's auto-increment primary key. Timestamps are
// unix seconds (UTC); strings are NOT NULL DEFAULT ” unless GitHub
// distinguishes null.
var migrations = []string{
	// 1: accounts, organizations, tokens, repositories, events.
	`
CREATE TABLE accounts (
  id {{id}},
  login TEXT NOT NULL,
  lower_login TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  company TEXT NOT NULL DEFAULT '',
  blog TEXT NOT NULL DEFAULT '',
  location TEXT NOT NULL DEFAULT '',
  bio TEXT NOT NULL DEFAULT '',
  twitter_username TEXT NOT NULL DEFAULT '',
  hireable BOOLEAN,
  site_admin BOOLEAN NOT NULL DEFAULT FALSE,
  suspended_at BIGINT,
  description TEXT NOT NULL DEFAULT '',
  billing_email TEXT NOT NULL DEFAULT '',
  default_repo_permission TEXT NOT NULL DEFAULT 'read',
  members_can_create_repos BOOLEAN NOT NULL DEFAULT TRUE,
  members_can_create_public_repos BOOLEAN NOT NULL DEFAULT TRUE,
  members_can_create_private_repos BOOLEAN NOT NULL DEFAULT TRUE,
  members_can_create_internal_repos BOOLEAN NOT NULL DEFAULT TRUE,
  has_org_projects BOOLEAN NOT NULL DEFAULT TRUE,
  has_repo_projects BOOLEAN NOT NULL DEFAULT TRUE,
  web_commit_signoff_required BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX accounts_type_id ON accounts (type, id);

CREATE TABLE org_members (
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  state TEXT NOT NULL,
  public BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX org_members_user ON org_members (user_id, org_id);

CREATE TABLE tokens (
  id {{id}},
  user_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  last_eight TEXT NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  scopes TEXT NOT NULL DEFAULT '',
  permissions TEXT NOT NULL DEFAULT '',
  repo_ids TEXT,
  app_id BIGINT,
  installation_id BIGINT,
  expires_at BIGINT,
  created_at BIGINT NOT NULL
);
CREATE INDEX tokens_user ON tokens (user_id);

CREATE TABLE repos (
  id {{id}},
  owner_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  homepage TEXT NOT NULL DEFAULT '',
  visibility TEXT NOT NULL,
  default_branch TEXT NOT NULL DEFAULT 'main',
  topics TEXT NOT NULL DEFAULT '',
  has_issues BOOLEAN NOT NULL DEFAULT TRUE,
  has_projects BOOLEAN NOT NULL DEFAULT TRUE,
  has_wiki BOOLEAN NOT NULL DEFAULT TRUE,
  has_discussions BOOLEAN NOT NULL DEFAULT FALSE,
  has_downloads BOOLEAN NOT NULL DEFAULT TRUE,
  is_template BOOLEAN NOT NULL DEFAULT FALSE,
  archived BOOLEAN NOT NULL DEFAULT FALSE,
  disabled BOOLEAN NOT NULL DEFAULT FALSE,
  allow_squash_merge BOOLEAN NOT NULL DEFAULT TRUE,
  allow_merge_commit BOOLEAN NOT NULL DEFAULT TRUE,
  allow_rebase_merge BOOLEAN NOT NULL DEFAULT TRUE,
  allow_auto_merge BOOLEAN NOT NULL DEFAULT FALSE,
  delete_branch_on_merge BOOLEAN NOT NULL DEFAULT FALSE,
  allow_update_branch BOOLEAN NOT NULL DEFAULT FALSE,
  allow_forking BOOLEAN NOT NULL DEFAULT TRUE,
  web_commit_signoff_required BOOLEAN NOT NULL DEFAULT FALSE,
  squash_merge_commit_title TEXT NOT NULL DEFAULT 'COMMIT_OR_PR_TITLE',
  squash_merge_commit_message TEXT NOT NULL DEFAULT 'COMMIT_MESSAGES',
  merge_commit_title TEXT NOT NULL DEFAULT 'MERGE_MESSAGE',
  merge_commit_message TEXT NOT NULL DEFAULT 'PR_TITLE',
  size BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  pushed_at BIGINT,
  UNIQUE (owner_id, lower_name)
);
CREATE INDEX repos_visibility ON repos (visibility, id);

CREATE TABLE repo_redirects (
  owner_id BIGINT NOT NULL,
  lower_name TEXT NOT NULL,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  PRIMARY KEY (owner_id, lower_name)
);

CREATE TABLE repo_collaborators (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  permission TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (repo_id, user_id)
);
CREATE INDEX repo_collaborators_user ON repo_collaborators (user_id, repo_id);

CREATE TABLE events (
  id {{id}},
  type TEXT NOT NULL,
  actor_id BIGINT NOT NULL DEFAULT 0,
  repo_id BIGINT NOT NULL DEFAULT 0,
  org_id BIGINT NOT NULL DEFAULT 0,
  payload TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL
);
CREATE INDEX events_repo ON events (repo_id, id);
`,
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	id := "INTEGER PRIMARY KEY AUTOINCREMENT"
	if s.pg {
		id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
	}
	for i, m := range migrations {
		v := i + 1
		err := s.Tx(ctx, func(tx Q) error {
			var n int
			if err := tx.row(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			for _, stmt := range strings.Split(strings.ReplaceAll(m, "{{id}}", id), ";\n") {
				if strings.TrimSpace(stmt) == "" {
					continue
				}
				if _, err := tx.execRaw(ctx, stmt); err != nil {
					return fmt.Errorf("%w in %.80q", err, strings.TrimSpace(stmt))
				}
			}
			_, err := tx.exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, v, s.now().Unix())
			return err
		})
		if err != nil {
			return fmt.Errorf("store: migration %d: %w", v, err)
		}
	}
	return nil
}
