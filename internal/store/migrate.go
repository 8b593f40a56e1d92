package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
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
	// 2: issues (pull requests share their numbers and rows), labels,
	// milestones, assignees, mentions, comments, reactions, issue events,
	// sub-issues, dependencies and organization issue fields.
	//
	// issue_counters hands out numbers (one row per repository, locked by
	// the upsert that takes the next number, so numbers stay dense and
	// unique under concurrent creation) and counts open and closed issues.
	// issue_blocks counts issues per state in blocks of issueBlock numbers:
	// a deep page of the default list (sort by creation = by number) starts
	// from the block that holds its first row instead of skipping every row
	// before it.
	`
CREATE TABLE issue_counters (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  last_number BIGINT NOT NULL DEFAULT 0,
  last_milestone BIGINT NOT NULL DEFAULT 0,
  open_issues BIGINT NOT NULL DEFAULT 0,
  closed_issues BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE issue_blocks (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  state TEXT NOT NULL,
  block BIGINT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (repo_id, state, block)
);

CREATE TABLE milestones (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  title TEXT NOT NULL,
  lower_title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL DEFAULT 'open',
  due_on BIGINT,
  creator_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  open_issues BIGINT NOT NULL DEFAULT 0,
  closed_issues BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  closed_at BIGINT,
  UNIQUE (repo_id, number),
  UNIQUE (repo_id, lower_title)
);
CREATE INDEX milestones_list ON milestones (repo_id, state, due_on);

CREATE TABLE labels (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  color TEXT NOT NULL,
  description TEXT,
  is_default BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, lower_name)
);

CREATE TABLE issues (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  is_pull BOOLEAN NOT NULL DEFAULT FALSE,
  title TEXT NOT NULL,
  body TEXT,
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  state TEXT NOT NULL DEFAULT 'open',
  state_reason TEXT,
  duplicate_of_id BIGINT,
  locked BOOLEAN NOT NULL DEFAULT FALSE,
  lock_reason TEXT,
  milestone_id BIGINT REFERENCES milestones(id) ON DELETE SET NULL,
  comments BIGINT NOT NULL DEFAULT 0,
  reactions BIGINT NOT NULL DEFAULT 0,
  closed_by_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  closed_at BIGINT,
  pinned_comment_id BIGINT,
  parent_id BIGINT REFERENCES issues(id) ON DELETE SET NULL,
  sub_priority BIGINT NOT NULL DEFAULT 0,
  sub_issues BIGINT NOT NULL DEFAULT 0,
  dependencies BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, number)
);
CREATE INDEX issues_state_number ON issues (repo_id, state, number);
CREATE INDEX issues_state_updated ON issues (repo_id, state, updated_at, number);
CREATE INDEX issues_updated ON issues (repo_id, updated_at, number);
CREATE INDEX issues_user ON issues (user_id, created_at);
CREATE INDEX issues_milestone ON issues (milestone_id, state);
CREATE INDEX issues_parent ON issues (parent_id, sub_priority);

CREATE TABLE issue_labels (
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  label_id BIGINT NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (issue_id, label_id)
);
CREATE INDEX issue_labels_label ON issue_labels (label_id, issue_id);

CREATE TABLE issue_assignees (
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (issue_id, user_id)
);
CREATE INDEX issue_assignees_user ON issue_assignees (user_id, issue_id);

CREATE TABLE issue_mentions (
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  PRIMARY KEY (issue_id, user_id)
);
CREATE INDEX issue_mentions_user ON issue_mentions (user_id, issue_id);

CREATE TABLE issue_comments (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  body TEXT NOT NULL,
  reactions BIGINT NOT NULL DEFAULT 0,
  pinned_at BIGINT,
  pinned_by_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX issue_comments_issue ON issue_comments (issue_id, id);
CREATE INDEX issue_comments_repo ON issue_comments (repo_id, id);
CREATE INDEX issue_comments_repo_updated ON issue_comments (repo_id, updated_at, id);
CREATE INDEX issue_comments_user ON issue_comments (user_id, issue_id);

CREATE TABLE reactions (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  subject_type TEXT NOT NULL,
  subject_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  content TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (subject_type, subject_id, user_id, content)
);
CREATE INDEX reactions_subject ON reactions (subject_type, subject_id, id);

CREATE TABLE issue_events (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  actor_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  event TEXT NOT NULL,
  commit_id TEXT,
  label_name TEXT,
  label_color TEXT,
  assignee_id BIGINT,
  assigner_id BIGINT,
  milestone_title TEXT,
  rename_from TEXT,
  rename_to TEXT,
  lock_reason TEXT,
  state_reason TEXT,
  subject_id BIGINT,
  created_at BIGINT NOT NULL
);
CREATE INDEX issue_events_issue ON issue_events (issue_id, id);
CREATE INDEX issue_events_repo ON issue_events (repo_id, id);

CREATE TABLE issue_dependencies (
  blocked_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  blocking_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (blocked_id, blocking_id)
);
CREATE INDEX issue_dependencies_blocking ON issue_dependencies (blocking_id, blocked_id);

CREATE TABLE issue_fields (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  description TEXT,
  data_type TEXT NOT NULL,
  visibility TEXT NOT NULL DEFAULT 'organization_members_only',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (org_id, lower_name)
);

CREATE TABLE issue_field_options (
  id {{id}},
  field_id BIGINT NOT NULL REFERENCES issue_fields(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  color TEXT NOT NULL DEFAULT 'gray',
  priority BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (field_id, name)
);

CREATE TABLE issue_field_values (
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  field_id BIGINT NOT NULL REFERENCES issue_fields(id) ON DELETE CASCADE,
  text_value TEXT,
  number_value DOUBLE PRECISION,
  option_id BIGINT REFERENCES issue_field_options(id) ON DELETE CASCADE,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (issue_id, field_id)
);
CREATE INDEX issue_field_values_field ON issue_field_values (field_id, issue_id);
`,
	// 3: repository traffic: counters per repository, kind (clone, view),
	// UTC day and visitor (a user id or a hashed address), and for views
	// per page and referrer, so that daily, weekly and 14-day uniques are
	// exact. Rows older than GitHub's 14-day window are pruned.
	`
CREATE TABLE traffic (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  day BIGINT NOT NULL,
  visitor TEXT NOT NULL,
  path TEXT NOT NULL DEFAULT '',
  referrer TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL DEFAULT '',
  count BIGINT NOT NULL,
  PRIMARY KEY (repo_id, kind, day, visitor, path, referrer)
);
CREATE INDEX traffic_day ON traffic (day);
`,
	// 4: where renamed branches went (GET of an old name answers 301), and an
	// index for mapping commit emails to accounts.
	`
CREATE TABLE branch_redirects (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  old_name TEXT NOT NULL,
  new_name TEXT NOT NULL,
  PRIMARY KEY (repo_id, old_name)
);
CREATE INDEX accounts_lower_email ON accounts (LOWER(email));
`,
	// 5: what a push revealed about a repository (its license and top
	// language, detected off the request path), and the organization
	// settings that PATCH /orgs/{org} records (absent row: GitHub's defaults).
	`
CREATE TABLE repo_facts (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  commit_id TEXT NOT NULL DEFAULT '',
  license_key TEXT NOT NULL DEFAULT '',
  language TEXT NOT NULL DEFAULT ''
);
CREATE TABLE org_settings (
  org_id BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  members_can_create_pages BOOLEAN NOT NULL DEFAULT TRUE,
  members_can_create_public_pages BOOLEAN NOT NULL DEFAULT TRUE,
  members_can_create_private_pages BOOLEAN NOT NULL DEFAULT TRUE,
  members_can_fork_private_repositories BOOLEAN NOT NULL DEFAULT FALSE,
  advanced_security_enabled_for_new_repositories BOOLEAN NOT NULL DEFAULT FALSE,
  dependabot_alerts_enabled_for_new_repositories BOOLEAN NOT NULL DEFAULT FALSE,
  dependabot_security_updates_enabled_for_new_repositories BOOLEAN NOT NULL DEFAULT FALSE,
  dependency_graph_enabled_for_new_repositories BOOLEAN NOT NULL DEFAULT FALSE,
  secret_scanning_enabled_for_new_repositories BOOLEAN NOT NULL DEFAULT FALSE,
  secret_scanning_push_protection_enabled_for_new_repositories BOOLEAN NOT NULL DEFAULT FALSE,
  secret_scanning_validity_checks_enabled BOOLEAN NOT NULL DEFAULT FALSE,
  secret_scanning_push_protection_custom_link_enabled BOOLEAN NOT NULL DEFAULT FALSE,
  secret_scanning_push_protection_custom_link TEXT,
  deploy_keys_enabled_for_repositories BOOLEAN NOT NULL DEFAULT TRUE
);
`,
	// 6: commit statuses, per repository and commit; the newest of each
	// context makes the combined status. description and target_url are
	// null when not given, as GitHub answers them.
	`
CREATE TABLE commit_statuses (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  sha TEXT NOT NULL,
  state TEXT NOT NULL,
  context TEXT NOT NULL,
  description TEXT,
  target_url TEXT,
  creator_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX commit_statuses_sha ON commit_statuses (repo_id, sha, id);
CREATE INDEX commit_statuses_context ON commit_statuses (repo_id, sha, context, id);
`,
	// 7: commit comments, on a commit or on a line of its diff (path with
	// position, the diff line, and line, the file line); reactions counts
	// the rows of reactions with subject_type 'commit_comment'.
	`
CREATE TABLE commit_comments (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  commit_id TEXT NOT NULL,
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  body TEXT NOT NULL,
  path TEXT,
  position BIGINT,
  line BIGINT,
  reactions BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX commit_comments_repo ON commit_comments (repo_id, id);
CREATE INDEX commit_comments_commit ON commit_comments (repo_id, commit_id, id);
`,
	// 8: the durable job queue (internal/jobs): background work of every
	// kind (mergeability, forks, deliveries, ...). A pending job with a
	// dedup_key is unique, so queueing the same work twice before it runs
	// queues it once; a running job whose lease ran out is claimed again.
	`
CREATE TABLE jobs (
  id {{id}},
  kind TEXT NOT NULL,
  dedup_key TEXT,
  payload TEXT NOT NULL DEFAULT '{}',
  state TEXT NOT NULL DEFAULT 'pending',
  attempts BIGINT NOT NULL DEFAULT 0,
  max_attempts BIGINT NOT NULL DEFAULT 5,
  run_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL DEFAULT 0,
  worker TEXT NOT NULL DEFAULT '',
  last_error TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX jobs_ready ON jobs (state, run_at, id);
CREATE UNIQUE INDEX jobs_dedup ON jobs (dedup_key) WHERE state = 'pending';
`,
	// 9: pull requests: the pull half of an issue row (is_pull), with its
	// head and base, the mergeability the background check found for the
	// head and base it names, and the merge; required_contexts lists the
	// status contexts (and check names) a base branch needs to be green
	// before a merge.
	`
CREATE TABLE pulls (
  issue_id BIGINT PRIMARY KEY REFERENCES issues(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  base_ref TEXT NOT NULL,
  base_sha TEXT NOT NULL,
  head_repo_id BIGINT REFERENCES repos(id) ON DELETE SET NULL,
  head_owner_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  head_ref TEXT NOT NULL,
  head_sha TEXT NOT NULL,
  draft BOOLEAN NOT NULL DEFAULT FALSE,
  maintainer_can_modify BOOLEAN NOT NULL DEFAULT FALSE,
  merged_at BIGINT,
  merged_by_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  merge_commit_sha TEXT,
  mergeable BOOLEAN,
  rebaseable BOOLEAN,
  mergeable_state TEXT NOT NULL DEFAULT 'unknown',
  checked_base_sha TEXT NOT NULL DEFAULT '',
  checked_head_sha TEXT NOT NULL DEFAULT '',
  commits BIGINT NOT NULL DEFAULT 0,
  additions BIGINT NOT NULL DEFAULT 0,
  deletions BIGINT NOT NULL DEFAULT 0,
  changed_files BIGINT NOT NULL DEFAULT 0,
  review_comments BIGINT NOT NULL DEFAULT 0,
  UNIQUE (repo_id, number)
);
CREATE INDEX pulls_head ON pulls (head_repo_id, head_ref);
CREATE INDEX pulls_base ON pulls (repo_id, base_ref);

CREATE TABLE required_contexts (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  branch TEXT NOT NULL,
  context TEXT NOT NULL,
  PRIMARY KEY (repo_id, branch, context)
);
`,
	// 10: pull request reviews, review comments and requested reviewers.
	`
CREATE TABLE pull_reviews (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  pull_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  body TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL,
  commit_id TEXT NOT NULL,
  dismissal_message TEXT,
  submitted_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX pull_reviews_pull ON pull_reviews (pull_id, id);
CREATE UNIQUE INDEX pull_reviews_one_pending ON pull_reviews (pull_id, user_id) WHERE state = 'PENDING';

CREATE TABLE pull_review_comments (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  pull_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  review_id BIGINT NOT NULL REFERENCES pull_reviews(id) ON DELETE CASCADE,
  in_reply_to_id BIGINT,
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  body TEXT NOT NULL,
  path TEXT NOT NULL,
  commit_id TEXT NOT NULL,
  original_commit_id TEXT NOT NULL,
  diff_hunk TEXT NOT NULL DEFAULT '',
  position BIGINT,
  original_position BIGINT,
  line BIGINT,
  original_line BIGINT,
  side TEXT,
  start_line BIGINT,
  original_start_line BIGINT,
  start_side TEXT,
  subject_type TEXT NOT NULL DEFAULT 'line',
  reactions BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX pull_review_comments_pull ON pull_review_comments (pull_id, id);
CREATE INDEX pull_review_comments_repo ON pull_review_comments (repo_id, id);
CREATE INDEX pull_review_comments_review ON pull_review_comments (review_id, id);

CREATE TABLE pull_review_requests (
  id {{id}},
  pull_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  reviewer_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  UNIQUE (pull_id, reviewer_id)
);
`,
	// 11: checks: suites per pushed head and app, runs with output, and
	// annotations (owned by the checks service; see internal/checks).
	// app_id is 0 until hubd has GitHub Apps. A suite's status and
	// conclusion are derived from its runs when they change and reset by a
	// rerequest; images and actions are small JSON arrays shown whole.
	`
CREATE TABLE check_suites (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  head_sha TEXT NOT NULL,
  head_branch TEXT,
  app_id BIGINT NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'queued',
  conclusion TEXT,
  before_sha TEXT,
  after_sha TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, head_sha, app_id)
);

CREATE TABLE check_runs (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  suite_id BIGINT NOT NULL REFERENCES check_suites(id) ON DELETE CASCADE,
  head_sha TEXT NOT NULL,
  app_id BIGINT NOT NULL DEFAULT 0,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  conclusion TEXT,
  external_id TEXT,
  details_url TEXT,
  started_at BIGINT,
  completed_at BIGINT,
  output_title TEXT,
  output_summary TEXT,
  output_text TEXT,
  annotations_count BIGINT NOT NULL DEFAULT 0,
  images TEXT NOT NULL DEFAULT '[]',
  actions TEXT NOT NULL DEFAULT '[]',
  creator_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX check_runs_sha ON check_runs (repo_id, head_sha, name, id);
CREATE INDEX check_runs_suite ON check_runs (suite_id, name, id);

CREATE TABLE check_annotations (
  id {{id}},
  run_id BIGINT NOT NULL REFERENCES check_runs(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  start_line BIGINT NOT NULL,
  end_line BIGINT NOT NULL,
  start_column BIGINT,
  end_column BIGINT,
  annotation_level TEXT NOT NULL,
  title TEXT,
  message TEXT NOT NULL,
  raw_details TEXT
);
CREATE INDEX check_annotations_run ON check_annotations (run_id, id);

CREATE TABLE check_suite_preferences (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  app_id BIGINT NOT NULL,
  auto_trigger BOOLEAN NOT NULL,
  PRIMARY KEY (repo_id, app_id)
);
`,
	// 12: forks: a repository's parent (the repository it was forked from)
	// and source (the root of its network) (owned by the forks service).
	// Forks are listed by parent and found by network (source) and owner;
	// forks_count is counted through repos_parent rather than kept in a
	// column, so deletes of any kind (accounts cascade) never leave it wrong.
	`
ALTER TABLE repos ADD COLUMN parent_id BIGINT REFERENCES repos(id) ON DELETE SET NULL;
ALTER TABLE repos ADD COLUMN source_id BIGINT REFERENCES repos(id) ON DELETE SET NULL;
CREATE INDEX repos_parent ON repos (parent_id, created_at);
CREATE INDEX repos_source ON repos (source_id, owner_id);
`,
	// 13: asynchronous merge requests (PUT .../merge-async): what was asked,
	// and the outcome the background merge recorded, read by uuid.
	`
CREATE TABLE pull_merge_requests (
  uuid TEXT PRIMARY KEY,
  pull_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  actor_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  merge_method TEXT NOT NULL,
  merge_action TEXT NOT NULL,
  expected_head_sha TEXT NOT NULL,
  commit_title TEXT,
  commit_message TEXT,
  status TEXT NOT NULL,
  message TEXT NOT NULL DEFAULT '',
  sha TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX pull_merge_requests_pull ON pull_merge_requests (pull_id, status);
`,
	// 14: pull request stacks (owned by the stacks service,
	// internal/pullstacks).
	`
CREATE TABLE pull_stacks (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  version BIGINT NOT NULL DEFAULT 1,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, number)
);

CREATE TABLE pull_stack_members (
  issue_id BIGINT PRIMARY KEY REFERENCES pulls(issue_id) ON DELETE CASCADE,
  stack_id BIGINT NOT NULL REFERENCES pull_stacks(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL
);
CREATE INDEX pull_stack_members_stack ON pull_stack_members (stack_id, pos);

CREATE TABLE pull_stack_counters (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  last_number BIGINT NOT NULL
);
`,
	// 15: a pull request's state, copied from its issue row (UpdateIssue
	// keeps it), so that the pull request list walks one index in number
	// order instead of sorting every open pull request through a join on
	// each page; and the repository's open and closed pull requests counted
	// beside its issues, so that the list's total costs no scan.
	`
ALTER TABLE pulls ADD COLUMN state TEXT NOT NULL DEFAULT 'open';
UPDATE pulls SET state = (SELECT i.state FROM issues i WHERE i.id = pulls.issue_id);
CREATE INDEX pulls_state_number ON pulls (repo_id, state, number);
ALTER TABLE issue_counters ADD COLUMN open_pulls BIGINT NOT NULL DEFAULT 0;
ALTER TABLE issue_counters ADD COLUMN closed_pulls BIGINT NOT NULL DEFAULT 0;
UPDATE issue_counters SET open_pulls = (SELECT COUNT(*) FROM pulls p WHERE p.repo_id = issue_counters.repo_id AND p.state = 'open'),
 closed_pulls = (SELECT COUNT(*) FROM pulls p WHERE p.repo_id = issue_counters.repo_id AND p.state = 'closed');
`,
	// 16: branch protection (owned by internal/protection): one row per
	// protected branch (exact name); its required contexts stay in
	// required_contexts, which merges read.
	`
CREATE TABLE branch_protections (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  branch TEXT NOT NULL,
  status_checks BOOLEAN NOT NULL DEFAULT FALSE,
  strict BOOLEAN NOT NULL DEFAULT FALSE,
  enforce_admins BOOLEAN NOT NULL DEFAULT FALSE,
  reviews BOOLEAN NOT NULL DEFAULT FALSE,
  required_approvals INTEGER NOT NULL DEFAULT 0,
  dismiss_stale_reviews BOOLEAN NOT NULL DEFAULT FALSE,
  allow_force_pushes BOOLEAN NOT NULL DEFAULT FALSE,
  allow_deletions BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (repo_id, branch)
);
`,
	// 17: repository invitations (owned by internal/collaborators): one
	// open invitation per repository and invitee; accepting turns it into a
	// repo_collaborators row. An invitation expires 7 days after
	// created_at (computed when read, nothing sweeps them).
	`
CREATE TABLE repo_invitations (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  invitee_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  inviter_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  permission TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (repo_id, invitee_id)
);
CREATE INDEX repo_invitations_invitee ON repo_invitations (invitee_id, id);
`,
	// 18: interaction limits (owned by internal/interactions): one row per
	// repository (repo_id) or owning account (account_id); rows outlive
	// their expires_at and readers compare it with the clock. Pull request
	// creation caps per repository or organization, and the users a
	// repository lets past its cap.
	`
CREATE TABLE interaction_limits (
  id {{id}},
  origin TEXT NOT NULL,
  repo_id BIGINT REFERENCES repos(id) ON DELETE CASCADE,
  account_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  limit_kind TEXT NOT NULL,
  expiry TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  creator_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX interaction_limits_repo ON interaction_limits (repo_id);
CREATE UNIQUE INDEX interaction_limits_account ON interaction_limits (account_id);

CREATE TABLE pull_creation_caps (
  id {{id}},
  repo_id BIGINT REFERENCES repos(id) ON DELETE CASCADE,
  account_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  enabled BOOLEAN NOT NULL,
  max_open BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX pull_creation_caps_repo ON pull_creation_caps (repo_id);
CREATE UNIQUE INDEX pull_creation_caps_account ON pull_creation_caps (account_id);

CREATE TABLE pull_cap_bypass (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (repo_id, user_id)
);
`,
	// 19: blocked users (owned by internal/blocks).
	`
CREATE TABLE user_blocks (
  blocker_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  blocked_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (blocker_id, blocked_id)
);
`,
	// 20: teams (owned by internal/teams).
	`
CREATE TABLE teams (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  slug TEXT NOT NULL,
  description TEXT,
  privacy TEXT NOT NULL,
  notification_setting TEXT NOT NULL,
  parent_id BIGINT REFERENCES teams(id) ON DELETE CASCADE,
  permission TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX teams_org_slug ON teams (org_id, slug);
CREATE INDEX teams_parent ON teams (parent_id);

CREATE TABLE team_members (
  team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (user_id);

CREATE TABLE team_repos (
  team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  permission INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (team_id, repo_id)
);
CREATE INDEX team_repos_repo ON team_repos (repo_id);
`,
	// 21: organization roles and custom repository roles (owned by
	// internal/roles), and the log of sent repository invitations (owned by
	// internal/collaborators). Predefined organization roles live in Go
	// (roles.Predefined), so assignments carry no foreign key to org_roles;
	// an assignment's permission is its role's base level (an
	// authz.Permission, 0 for none), kept in step when a role changes, as
	// team_repos.permission and repo_collaborators.permission are for a
	// custom repository role's grants (role_id).
	`
CREATE TABLE org_roles (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  description TEXT,
  base_role TEXT NOT NULL DEFAULT '',
  permissions TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX org_roles_org_name ON org_roles (org_id, lower_name);

CREATE TABLE org_role_assignments (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  role_id BIGINT NOT NULL,
  user_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  team_id BIGINT REFERENCES teams(id) ON DELETE CASCADE,
  permission INTEGER NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX org_role_assignments_user ON org_role_assignments (org_id, role_id, user_id);
CREATE UNIQUE INDEX org_role_assignments_team ON org_role_assignments (org_id, role_id, team_id);
CREATE INDEX org_role_assignments_holder ON org_role_assignments (org_id, user_id);
CREATE INDEX org_role_assignments_team_id ON org_role_assignments (team_id);

CREATE TABLE custom_repo_roles (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  description TEXT,
  base_role TEXT NOT NULL,
  permissions TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX custom_repo_roles_org_name ON custom_repo_roles (org_id, lower_name);

ALTER TABLE repo_collaborators ADD COLUMN role_id BIGINT REFERENCES custom_repo_roles(id) ON DELETE SET NULL;
ALTER TABLE team_repos ADD COLUMN role_id BIGINT REFERENCES custom_repo_roles(id) ON DELETE SET NULL;
ALTER TABLE repo_invitations ADD COLUMN role_id BIGINT REFERENCES custom_repo_roles(id) ON DELETE SET NULL;

CREATE TABLE repo_invitation_sends (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL
);
CREATE INDEX repo_invitation_sends_repo ON repo_invitation_sends (repo_id, created_at);
`,
	// 22: organization invitations (owned by internal/orgmembers): a
	// pending membership is an open invitation (by account, or by email
	// for someone who may have no account yet), with the teams the invitee
	// joins on accepting. Rows stay after they are accepted or cancelled
	// (the invitation rate limit counts them, cancelling an accepted one is
	// refused); one is expired 7 days after created_at (computed when read).
	// org_former_members keeps the role of removed members for "reinstate".
	// Pending org_members rows and the team memberships of their users
	// become invitations.
	`
CREATE TABLE org_invitations (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  invitee_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  email TEXT,
  role TEXT NOT NULL,
  reinstate_role TEXT,
  inviter_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  source TEXT NOT NULL DEFAULT 'member',
  created_at BIGINT NOT NULL,
  accepted_at BIGINT,
  cancelled_at BIGINT
);
CREATE INDEX org_invitations_org ON org_invitations (org_id, id);
CREATE INDEX org_invitations_invitee ON org_invitations (invitee_id, org_id);
CREATE INDEX org_invitations_email ON org_invitations (LOWER(email));

CREATE TABLE org_invitation_teams (
  invitation_id BIGINT NOT NULL REFERENCES org_invitations(id) ON DELETE CASCADE,
  team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (invitation_id, team_id)
);
CREATE INDEX org_invitation_teams_team ON org_invitation_teams (team_id, invitation_id);

CREATE TABLE org_former_members (
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  removed_at BIGINT NOT NULL,
  PRIMARY KEY (org_id, user_id)
);

INSERT INTO org_invitations (org_id, invitee_id, role, source, created_at)
 SELECT org_id, user_id, CASE WHEN role = 'admin' THEN 'admin' ELSE 'direct_member' END, 'member', created_at
 FROM org_members WHERE state = 'pending';
INSERT INTO org_invitation_teams (invitation_id, team_id, role, created_at)
 SELECT i.id, tm.team_id, tm.role, tm.created_at FROM team_members tm
 JOIN teams t ON t.id = tm.team_id
 JOIN org_members m ON m.org_id = t.org_id AND m.user_id = tm.user_id AND m.state = 'pending'
 JOIN org_invitations i ON i.org_id = t.org_id AND i.invitee_id = tm.user_id;
DELETE FROM team_members WHERE EXISTS (SELECT 1 FROM teams t JOIN org_members m ON m.org_id = t.org_id
 AND m.state = 'pending' WHERE t.id = team_members.team_id AND m.user_id = team_members.user_id);
DELETE FROM org_members WHERE state = 'pending';
`,
	// 23: team review requests of pull requests (owned by
	// internal/pullreviews): a team asked to review; deleting the team or
	// the pull request drops its requests.
	`
CREATE TABLE pull_review_team_requests (
  id {{id}},
  pull_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  UNIQUE (pull_id, team_id)
);
CREATE INDEX pull_review_team_requests_team ON pull_review_team_requests (team_id);
`,
	// 24: releases and release assets (owned by internal/releases). Only
	// published releases name distinct tags (drafts may share one);
	// release_latest is the release a repository marked latest (none: the
	// legacy rule chooses); asset bytes live under the data directory by
	// storage_key.
	`
CREATE TABLE releases (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  tag_name TEXT NOT NULL,
  target_commitish TEXT NOT NULL,
  name TEXT,
  body TEXT,
  draft BOOLEAN NOT NULL DEFAULT FALSE,
  prerelease BOOLEAN NOT NULL DEFAULT FALSE,
  not_latest BOOLEAN NOT NULL DEFAULT FALSE,
  draft_key TEXT NOT NULL,
  author_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  reactions BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  published_at BIGINT,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX releases_published_tag ON releases (repo_id, tag_name) WHERE draft = FALSE;
CREATE INDEX releases_repo ON releases (repo_id, created_at, id);
CREATE INDEX releases_draft_key ON releases (repo_id, draft_key);

CREATE TABLE release_latest (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  release_id BIGINT NOT NULL REFERENCES releases(id) ON DELETE CASCADE
);

CREATE TABLE release_assets (
  id {{id}},
  release_id BIGINT NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  label TEXT,
  state TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size BIGINT NOT NULL,
  digest TEXT,
  download_count BIGINT NOT NULL DEFAULT 0,
  uploader_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  storage_key TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (release_id, name)
);
CREATE INDEX release_assets_repo ON release_assets (repo_id, id);
`,
	// 25: deleted issues (GraphQL's deleteIssue): the number stays taken
	// and GET .../issues/{number} answers 410 Gone, as GitHub does.
	`
CREATE TABLE deleted_issues (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  deleted_by_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  deleted_at BIGINT NOT NULL,
  PRIMARY KEY (repo_id, number)
);
`,
	// 26: GitHub Apps (owned by internal/apps): an app with its bot account
	// (accounts.type 'Bot'), the SHA-256 of its client secret and the
	// public halves of its private keys; installations on a user or an
	// organization with all or selected repositories. Installation tokens
	// are rows of tokens (kind installation, user_id the bot, app_id and
	// installation_id). callback_url and device_flow are for the app's
	// user authorization (user access tokens), which a later migration
	// completes.
	`
CREATE TABLE apps (
  id {{id}},
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL UNIQUE,
  owner_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  bot_id BIGINT NOT NULL REFERENCES accounts(id),
  description TEXT,
  external_url TEXT NOT NULL DEFAULT '',
  callback_url TEXT NOT NULL DEFAULT '',
  device_flow BOOLEAN NOT NULL DEFAULT TRUE,
  client_id TEXT NOT NULL UNIQUE,
  client_secret_hash TEXT NOT NULL DEFAULT '',
  permissions TEXT NOT NULL DEFAULT '{}',
  events TEXT NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX apps_owner ON apps (owner_id, id);

CREATE TABLE app_keys (
  id {{id}},
  app_id BIGINT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  public_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX app_keys_app ON app_keys (app_id, id);

CREATE TABLE app_installations (
  id {{id}},
  app_id BIGINT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  repository_selection TEXT NOT NULL,
  permissions TEXT NOT NULL DEFAULT '{}',
  events TEXT NOT NULL DEFAULT '[]',
  suspended_at BIGINT,
  suspended_by_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (app_id, account_id)
);
CREATE INDEX app_installations_account ON app_installations (account_id, id);

CREATE TABLE app_installation_repos (
  installation_id BIGINT NOT NULL REFERENCES app_installations(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  PRIMARY KEY (installation_id, repo_id)
);
CREATE INDEX app_installation_repos_repo ON app_installation_repos (repo_id);
CREATE INDEX tokens_installation ON tokens (installation_id);
`,
	// 27: stars and repository subscriptions (owned by internal/stars),
	// with their counters on repos. A subscription watches (subscribed) or
	// ignores a repository. The creator of every existing repository
	// watches it, as GitHub subscribes the creator of a new one: the actor
	// of its repository.created event, or its owner when that is a user and
	// no event names a creator.
	`
CREATE TABLE repo_stars (
  id {{id}},
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  UNIQUE (user_id, repo_id)
);
CREATE INDEX repo_stars_repo ON repo_stars (repo_id, id);
CREATE INDEX repo_stars_user ON repo_stars (user_id, id);

CREATE TABLE repo_subscriptions (
  id {{id}},
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  subscribed BOOLEAN NOT NULL,
  ignored BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (user_id, repo_id)
);
CREATE INDEX repo_subscriptions_repo ON repo_subscriptions (repo_id, subscribed, id);
CREATE INDEX repo_subscriptions_user ON repo_subscriptions (user_id, id);

ALTER TABLE repos ADD COLUMN stargazers_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE repos ADD COLUMN subscribers_count BIGINT NOT NULL DEFAULT 0;

INSERT INTO repo_subscriptions (user_id, repo_id, subscribed, ignored, created_at)
 SELECT x.user_id, x.repo_id, TRUE, FALSE, x.created_at FROM (
  SELECT COALESCE((SELECT e.actor_id FROM events e JOIN accounts u ON u.id = e.actor_id AND u.type = 'User'
   WHERE e.repo_id = r.id AND e.type = 'repository.created' ORDER BY e.id LIMIT 1),
   CASE WHEN o.type = 'User' THEN o.id END) AS user_id, r.id AS repo_id, r.created_at AS created_at
  FROM repos r JOIN accounts o ON o.id = r.owner_id) x
 WHERE x.user_id IS NOT NULL;
UPDATE repos SET subscribers_count = (SELECT COUNT(*) FROM repo_subscriptions s WHERE s.repo_id = repos.id AND s.subscribed = TRUE);
`,
	// 28: rulesets (owned by internal/rulesets): a repository's own
	// (repo_id) or an organization's (org_id), names unique per source
	// whatever their case; bypass actors, conditions and rules are JSON
	// (store/rulesets.go). Each change stores a version with the state it
	// left (GET .../history).
	`
CREATE TABLE rulesets (
  id {{id}},
  repo_id BIGINT REFERENCES repos(id) ON DELETE CASCADE,
  org_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  target TEXT NOT NULL,
  enforcement TEXT NOT NULL,
  bypass_actors TEXT NOT NULL DEFAULT '[]',
  conditions TEXT NOT NULL DEFAULT '',
  rules TEXT NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, lower_name),
  UNIQUE (org_id, lower_name)
);

CREATE TABLE ruleset_versions (
  id {{id}},
  ruleset_id BIGINT NOT NULL REFERENCES rulesets(id) ON DELETE CASCADE,
  actor_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  state TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX ruleset_versions_ruleset ON ruleset_versions (ruleset_id, id);
`,
	// 29: a repository's issues without its pull requests (GraphQL's
	// Repository.issues) in number order from the index alone: the
	// (repo_id, state, number) index has to read each row for is_pull,
	// which deep pages pay once per row they skip. id makes it covering on
	// PostgreSQL too (SQLite's rowid is in every index already).
	`
CREATE INDEX issues_kind_state_number ON issues (repo_id, is_pull, state, number, id);
`,
	// 30: webhooks (owned by internal/hooks): hooks of a repository, an
	// organization or an app; payloads built once per event and shared by
	// the deliveries of every hook that gets them; one delivery row per
	// attempt (a redelivery is a row of its own with the same guid). The
	// dispatcher's cursor in the events outbox starts at its end, and
	// hook_event_gaps holds the ids it passed before their transactions
	// committed (PostgreSQL hands out ids before commit).
	`
CREATE TABLE hooks (
  id {{id}},
  repo_id BIGINT REFERENCES repos(id) ON DELETE CASCADE,
  org_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  app_id BIGINT REFERENCES apps(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  active BOOLEAN NOT NULL,
  events TEXT NOT NULL,
  url TEXT NOT NULL,
  content_type TEXT NOT NULL,
  secret TEXT NOT NULL DEFAULT '',
  insecure_ssl TEXT NOT NULL DEFAULT '0',
  since_event BIGINT NOT NULL DEFAULT 0,
  last_code BIGINT,
  last_status TEXT NOT NULL DEFAULT '',
  last_message TEXT NOT NULL DEFAULT '',
  creator_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX hooks_repo ON hooks (repo_id, id);
CREATE INDEX hooks_org ON hooks (org_id, id);
CREATE INDEX hooks_app ON hooks (app_id, id);

CREATE TABLE hook_payloads (
  id {{id}},
  event TEXT NOT NULL,
  action TEXT,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE TABLE hook_deliveries (
  id {{id}},
  hook_id BIGINT NOT NULL REFERENCES hooks(id) ON DELETE CASCADE,
  payload_id BIGINT NOT NULL REFERENCES hook_payloads(id),
  guid TEXT NOT NULL,
  event TEXT NOT NULL,
  action TEXT,
  repo_id BIGINT,
  installation_id BIGINT,
  redelivery BOOLEAN NOT NULL,
  delivered BOOLEAN NOT NULL,
  status TEXT NOT NULL DEFAULT '',
  status_code BIGINT NOT NULL DEFAULT 0,
  duration_us BIGINT NOT NULL DEFAULT 0,
  delivered_at BIGINT,
  request_headers TEXT NOT NULL DEFAULT '{}',
  response_headers TEXT NOT NULL DEFAULT '{}',
  response_body TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX hook_deliveries_hook ON hook_deliveries (hook_id, delivered, id);
CREATE INDEX hook_deliveries_payload ON hook_deliveries (payload_id);
CREATE INDEX hook_deliveries_waiting ON hook_deliveries (created_at) WHERE delivered = FALSE;

CREATE TABLE hook_cursor (
  id BIGINT PRIMARY KEY,
  last_event_id BIGINT NOT NULL
);
INSERT INTO hook_cursor (id, last_event_id) SELECT 1, COALESCE(MAX(id), 0) FROM events;

CREATE TABLE hook_event_gaps (
  event_id BIGINT PRIMARY KEY,
  seen_at BIGINT NOT NULL
);
`,
	// Gists: each a git repository on disk under its immutable id (see
	// gitrepo.GistStorage); the row caches the current files for lists.
	`
CREATE TABLE gists (
  id {{id}},
  name TEXT NOT NULL UNIQUE,
  owner_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  public BOOLEAN NOT NULL,
  description TEXT,
  files TEXT NOT NULL DEFAULT '[]',
  head TEXT NOT NULL DEFAULT '',
  fork_of BIGINT,
  comments_count BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX gists_owner ON gists (owner_id, id);
CREATE INDEX gists_public ON gists (public, id);
CREATE INDEX gists_fork_of ON gists (fork_of, id);

CREATE TABLE gist_stars (
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  gist_id BIGINT NOT NULL REFERENCES gists(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (user_id, gist_id)
);
CREATE INDEX gist_stars_gist ON gist_stars (gist_id);

CREATE TABLE gist_comments (
  id {{id}},
  gist_id BIGINT NOT NULL REFERENCES gists(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX gist_comments_gist ON gist_comments (gist_id, id);
`,
	// OAuth apps, the web and device authorization flows, user access
	// tokens' refresh tokens, passwords and web sessions (internal/oauth).
	// The GitHub CLI's OAuth app ships with hubd, as with GitHub Enterprise
	// Server, so an unmodified `gh auth login` works; its secret is public.
	`
CREATE TABLE oauth_apps (
  id {{id}},
  owner_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  url TEXT NOT NULL DEFAULT '',
  callback_url TEXT NOT NULL DEFAULT '',
  client_id TEXT NOT NULL UNIQUE,
  client_secret_hash TEXT NOT NULL,
  device_flow BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
INSERT INTO oauth_apps (owner_id, name, url, callback_url, client_id, client_secret_hash, device_flow, created_at, updated_at)
 VALUES (NULL, 'GitHub CLI', 'https://cli.github.com/', 'http://localhost/', '178c6fc778ccc68e1d6a',
 'd1b3190dacfb6af1479bed2866455c0b2deee119104dd70b09ff8a991d73355c', TRUE, 0, 0);
ALTER TABLE tokens ADD COLUMN client_id TEXT;
CREATE INDEX tokens_client ON tokens (client_id, user_id);

CREATE TABLE oauth_codes (
  id {{id}},
  kind TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  user_code_hash TEXT UNIQUE,
  client_id TEXT NOT NULL,
  user_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  scopes TEXT NOT NULL DEFAULT '',
  redirect_uri TEXT NOT NULL DEFAULT '',
  code_challenge TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL DEFAULT 'pending',
  interval_s BIGINT NOT NULL DEFAULT 0,
  last_poll_at BIGINT,
  token_id BIGINT,
  expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX oauth_codes_client_user ON oauth_codes (client_id, user_id);

CREATE TABLE user_passwords (
  user_id BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  hash TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE web_sessions (
  id {{id}},
  hash TEXT NOT NULL UNIQUE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions (user_id, expires_at);
`,
	// Fine-grained personal access tokens (owned by internal/patokens):
	// rows of tokens (kind fine_grained) with a name, a description, the
	// resource owner (the user or one organization) and the repository
	// selection (none, all, subset; repo_ids holds the subset). A token
	// whose resource owner is an organization has a grant there: pending
	// until an owner approves it when the organization requires approval,
	// then approved, denied or revoked. Each organization's policy for
	// such tokens (GitHub's defaults when it has no row: allowed, approval
	// required).
	`
ALTER TABLE tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN resource_owner_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE;
ALTER TABLE tokens ADD COLUMN repository_selection TEXT NOT NULL DEFAULT '';

CREATE TABLE pat_grants (
  id {{id}},
  token_id BIGINT NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  reason TEXT,
  review_reason TEXT,
  reviewer_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL,
  granted_at BIGINT,
  UNIQUE (token_id, org_id)
);
CREATE INDEX pat_grants_org ON pat_grants (org_id, status, created_at);

CREATE TABLE org_pat_policies (
  org_id BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  fine_grained_allowed BOOLEAN NOT NULL,
  approval_required BOOLEAN NOT NULL
);
`,
	// Webhook retries: a failed delivery's next attempt waits until
	// retry_at; attempt counts the automatic attempts of one delivery.
	`
ALTER TABLE hook_deliveries ADD COLUMN attempt BIGINT NOT NULL DEFAULT 1;
ALTER TABLE hook_deliveries ADD COLUMN retry_at BIGINT;
`,
	// outbox consumers (internal/outbox): one cursor per consumer of
	// the events log and the ids each passed before they committed; the
	// webhook dispatcher's cursor and gaps move here as consumer "hooks".
	`
CREATE TABLE outbox_cursors (
  name TEXT PRIMARY KEY,
  last_event_id BIGINT NOT NULL
);
INSERT INTO outbox_cursors (name, last_event_id) SELECT 'hooks', last_event_id FROM hook_cursor WHERE id = 1;

CREATE TABLE outbox_gaps (
  consumer TEXT NOT NULL,
  event_id BIGINT NOT NULL,
  seen_at BIGINT NOT NULL,
  PRIMARY KEY (consumer, event_id)
);
INSERT INTO outbox_gaps (consumer, event_id, seen_at) SELECT 'hooks', event_id, seen_at FROM hook_event_gaps;
DROP TABLE hook_event_gaps;
DROP TABLE hook_cursor;
`,
	// 32: activity events (internal/activity): GitHub's events rendered
	// from the domain events log by an outbox consumer, with the actor and
	// repository of the time; the id is the event's id on the API.
	`
CREATE TABLE activity_events (
  id {{id}},
  event_id BIGINT NOT NULL,
  type TEXT NOT NULL,
  actor_id BIGINT NOT NULL,
  repo_id BIGINT NOT NULL,
  org_id BIGINT NOT NULL,
  public BOOLEAN NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX activity_events_repo ON activity_events (repo_id, id);
CREATE INDEX activity_events_actor ON activity_events (actor_id, id);
CREATE INDEX activity_events_org ON activity_events (org_id, id);
CREATE INDEX activity_events_public ON activity_events (public, id);
`,
	// GitHub Actions (internal/actions): workflows of a repository, runs
	// with the workflow file at their commit, jobs (one per matrix
	// combination) and their logs.
	`
CREATE TABLE actions_workflows (
  id {{id}},
  repo_id BIGINT NOT NULL,
  path TEXT NOT NULL,
  name TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, path)
);

CREATE TABLE actions_runs (
  id {{id}},
  repo_id BIGINT NOT NULL,
  workflow_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  display_title TEXT NOT NULL,
  run_number BIGINT NOT NULL,
  run_attempt BIGINT NOT NULL,
  event TEXT NOT NULL,
  status TEXT NOT NULL,
  conclusion TEXT,
  head_branch TEXT,
  ref TEXT NOT NULL DEFAULT '',
  head_sha TEXT NOT NULL,
  actor_id BIGINT NOT NULL,
  triggering_actor_id BIGINT NOT NULL,
  inputs TEXT NOT NULL DEFAULT '{}',
  source TEXT NOT NULL,
  check_suite_id BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  run_started_at BIGINT NOT NULL,
  UNIQUE (workflow_id, run_number)
);
CREATE INDEX actions_runs_repo ON actions_runs (repo_id, id);

CREATE TABLE actions_jobs (
  id {{id}},
  run_id BIGINT NOT NULL,
  repo_id BIGINT NOT NULL,
  run_attempt BIGINT NOT NULL,
  job_key TEXT NOT NULL,
  name TEXT NOT NULL,
  matrix TEXT,
  needs TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL,
  conclusion TEXT,
  outputs TEXT NOT NULL DEFAULT '{}',
  steps TEXT NOT NULL DEFAULT '[]',
  runner_name TEXT,
  check_run_id BIGINT NOT NULL DEFAULT 0,
  token_id BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  started_at BIGINT,
  completed_at BIGINT
);
CREATE INDEX actions_jobs_run ON actions_jobs (run_id, run_attempt, id);

CREATE TABLE actions_job_logs (
  job_id BIGINT PRIMARY KEY,
  content TEXT NOT NULL
);
`,
	// hubd's enterprise (internal/apps): an app installed on the enterprise
	// is an installation with target_type 'Enterprise' whose account_id is
	// the app's own bot (one enterprise installation per app; the bot owns
	// no repositories, so its tokens reach none). '' is an installation on
	// its account.
	`
ALTER TABLE app_installations ADD COLUMN target_type TEXT NOT NULL DEFAULT '';
`,
	// Notification threads (internal/notifications): one per user and
	// subject, with the user's thread subscription (sub: '', subscribed,
	// ignored). Written by the "notifications" outbox consumer.
	`CREATE TABLE notification_threads (
  id {{id}},
  user_id BIGINT NOT NULL,
  repo_id BIGINT NOT NULL,
  subject_type TEXT NOT NULL,
  subject_key BIGINT NOT NULL,
  title TEXT NOT NULL,
  subject_url TEXT NOT NULL,
  latest_comment_url TEXT NOT NULL,
  reason TEXT NOT NULL,
  unread BOOLEAN NOT NULL,
  done BOOLEAN NOT NULL,
  updated_at BIGINT NOT NULL,
  last_read_at BIGINT,
  sub TEXT NOT NULL,
  sub_at BIGINT,
  UNIQUE (user_id, repo_id, subject_type, subject_key)
);
CREATE INDEX notification_threads_user ON notification_threads (user_id, updated_at);
CREATE INDEX notification_threads_subject ON notification_threads (repo_id, subject_type, subject_key);
`,
	// Keys the server makes once and keeps (internal/activity's feed
	// tokens are HMACs under the "feeds" key).
	`
CREATE TABLE server_keys (
  name TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
`,
	// Consent remembered per user and OAuth client (internal/oauth): the
	// scopes granted so far, merged at each consent; a request asking no
	// more skips the consent page, as GitHub.
	`
CREATE TABLE oauth_grants (
  client_id TEXT NOT NULL,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  scopes TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (client_id, user_id)
);
`,
	// The GitHub App a user access token (ghu_) wrote with: issues,
	// comments and issue events show it as performed_via_github_app
	// (installation tokens write as the app's bot, which names the app).
	`
ALTER TABLE issues ADD COLUMN via_app_id BIGINT;
ALTER TABLE issue_comments ADD COLUMN via_app_id BIGINT;
ALTER TABLE issue_events ADD COLUMN via_app_id BIGINT;
`,
	// Actions artifacts and caches (internal/actions/artifacts.go,
	// caches.go): the per-job runtime tokens the runner protocols take,
	// artifacts of runs, caches of refs, and the cache limits of
	// repositories, organizations and the enterprise.
	`
CREATE TABLE actions_runtime_tokens (
  token_hash TEXT PRIMARY KEY,
  job_id BIGINT NOT NULL,
  run_id BIGINT NOT NULL,
  repo_id BIGINT NOT NULL,
  ref TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX actions_runtime_tokens_job ON actions_runtime_tokens (job_id);
CREATE TABLE actions_artifacts (
  id {{id}},
  repo_id BIGINT NOT NULL,
  run_id BIGINT NOT NULL,
  job_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  size BIGINT NOT NULL DEFAULT 0,
  digest TEXT NOT NULL DEFAULT '',
  finalized BOOLEAN NOT NULL DEFAULT FALSE,
  head_branch TEXT NOT NULL,
  head_sha TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX actions_artifacts_run_name ON actions_artifacts (run_id, name);
CREATE INDEX actions_artifacts_repo ON actions_artifacts (repo_id, id);
CREATE INDEX actions_artifacts_expiry ON actions_artifacts (expires_at);
CREATE TABLE actions_caches (
  id {{id}},
  repo_id BIGINT NOT NULL,
  cache_key TEXT NOT NULL,
  version TEXT NOT NULL,
  ref TEXT NOT NULL,
  size BIGINT NOT NULL DEFAULT 0,
  committed BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  last_accessed_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX actions_caches_key ON actions_caches (repo_id, ref, cache_key, version);
CREATE INDEX actions_caches_access ON actions_caches (last_accessed_at);
CREATE TABLE actions_cache_limits (
  scope TEXT NOT NULL,
  scope_id BIGINT NOT NULL,
  retention_days BIGINT,
  size_gb BIGINT,
  default_size_gb BIGINT,
  PRIMARY KEY (scope, scope_id)
);
`,
	// Actions triggers, concurrency and attempts (internal/actions): a
	// run's concurrency group (its status is 'pending' while it waits for
	// the group), the pull requests it is for, the commit it checks out
	// when not its head (a pull request's merge) and its event's payload;
	// the earlier attempts of
	// runs as they ended; the cron schedules of default branches'
	// workflows with their next firing; a job's concurrency group.
	`
ALTER TABLE actions_runs ADD COLUMN concurrency_group TEXT NOT NULL DEFAULT '';
ALTER TABLE actions_runs ADD COLUMN group_acquired_at BIGINT;
ALTER TABLE actions_runs ADD COLUMN pull_numbers TEXT NOT NULL DEFAULT '[]';
ALTER TABLE actions_runs ADD COLUMN sha TEXT NOT NULL DEFAULT '';
ALTER TABLE actions_runs ADD COLUMN event_payload TEXT NOT NULL DEFAULT '{}';
ALTER TABLE actions_jobs ADD COLUMN concurrency_group TEXT NOT NULL DEFAULT '';
CREATE INDEX actions_runs_group ON actions_runs (repo_id, concurrency_group, status);
CREATE INDEX actions_jobs_group ON actions_jobs (repo_id, concurrency_group, status);
CREATE TABLE actions_run_attempts (
  run_id BIGINT NOT NULL,
  attempt BIGINT NOT NULL,
  status TEXT NOT NULL,
  conclusion TEXT,
  triggering_actor_id BIGINT NOT NULL,
  run_started_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (run_id, attempt)
);
CREATE TABLE actions_schedules (
  id {{id}},
  repo_id BIGINT NOT NULL,
  path TEXT NOT NULL,
  cron TEXT NOT NULL,
  next_at BIGINT NOT NULL,
  UNIQUE (repo_id, path, cron)
);
CREATE INDEX actions_schedules_due ON actions_schedules (next_at);
`,
	// The number of workflow runs of each repository (internal/actions),
	// kept by CreateRun and DeleteRun: the unfiltered run list's
	// total_count without counting the runs.
	`
CREATE TABLE actions_run_counters (
  repo_id BIGINT PRIMARY KEY,
  runs BIGINT NOT NULL
);
INSERT INTO actions_run_counters (repo_id, runs) SELECT repo_id, COUNT(*) FROM actions_runs GROUP BY repo_id;
`,
	// Actions policies (internal/actionspolicy): each scope's settings and
	// its selected organizations or repositories; jobs by their token (the
	// OIDC token endpoint finds the job of its caller).
	`
CREATE TABLE actions_policies (
  scope TEXT NOT NULL,
  scope_id BIGINT NOT NULL,
  settings TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (scope, scope_id)
);
CREATE TABLE actions_policy_targets (
  scope TEXT NOT NULL,
  scope_id BIGINT NOT NULL,
  kind TEXT NOT NULL,
  target_id BIGINT NOT NULL,
  PRIMARY KEY (scope, scope_id, kind, target_id)
);
CREATE INDEX actions_jobs_token ON actions_jobs (token_id);
`,
	// Deployment environments, their branch policies, and configuration
	// variables (internal/environments, internal/variables). A variable's
	// scope is "o:ORG", "r:REPO" or "e:ENVIRONMENT" (unique with its kind
	// and upper-case name); the id columns cascade deletions.
	`
CREATE TABLE environments (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  wait_timer INTEGER NOT NULL,
  prevent_self_review BOOLEAN NOT NULL,
  reviewers TEXT NOT NULL,
  branch_policy TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, lower_name)
);
CREATE TABLE deployment_branch_policies (
  id {{id}},
  environment_id BIGINT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  UNIQUE (environment_id, type, name)
);
CREATE TABLE variables (
  id {{id}},
  kind TEXT NOT NULL,
  scope TEXT NOT NULL,
  org_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  repo_id BIGINT REFERENCES repos(id) ON DELETE CASCADE,
  environment_id BIGINT REFERENCES environments(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  visibility TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (kind, scope, name)
);
CREATE TABLE variable_repos (
  variable_id BIGINT NOT NULL REFERENCES variables(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  PRIMARY KEY (variable_id, repo_id)
);
CREATE INDEX variable_repos_repo ON variable_repos (repo_id);
`,
	// Self-hosted runners and runner groups (internal/runners). A group's
	// gid is its API id: 1 for an owner's default group, else its row id
	// + 1. Worker runners are hubd's own job workers; runner_org_groups
	// places one in an organization's group.
	`
CREATE TABLE runner_groups (
  id {{id}},
  owner_id BIGINT NOT NULL,
  gid BIGINT NOT NULL DEFAULT 0,
  name TEXT NOT NULL,
  visibility TEXT NOT NULL,
  is_default BOOLEAN NOT NULL DEFAULT FALSE,
  allows_public BOOLEAN NOT NULL DEFAULT FALSE,
  restricted_to_workflows BOOLEAN NOT NULL DEFAULT FALSE,
  selected_workflows TEXT NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX runner_groups_gid ON runner_groups (owner_id, gid);
CREATE UNIQUE INDEX runner_groups_name ON runner_groups (owner_id, name);
CREATE TABLE runner_group_targets (
  owner_id BIGINT NOT NULL,
  gid BIGINT NOT NULL,
  target_id BIGINT NOT NULL,
  PRIMARY KEY (owner_id, gid, target_id)
);
CREATE TABLE runners (
  id {{id}},
  scope TEXT NOT NULL,
  owner_id BIGINT NOT NULL,
  gid BIGINT NOT NULL DEFAULT 0,
  name TEXT NOT NULL,
  os TEXT NOT NULL,
  arch TEXT NOT NULL,
  worker BOOLEAN NOT NULL DEFAULT FALSE,
  ephemeral BOOLEAN NOT NULL DEFAULT FALSE,
  last_seen BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX runners_name ON runners (scope, owner_id, name);
CREATE INDEX runners_group ON runners (owner_id, gid);
CREATE INDEX actions_jobs_runner ON actions_jobs (runner_name, status);
CREATE TABLE runner_labels (
  id {{id}},
  runner_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  read_only BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE UNIQUE INDEX runner_labels_name ON runner_labels (runner_id, name);
CREATE TABLE runner_org_groups (
  runner_id BIGINT NOT NULL,
  org_id BIGINT NOT NULL,
  gid BIGINT NOT NULL,
  PRIMARY KEY (runner_id, org_id)
);
CREATE TABLE hosted_runners (
  id {{id}},
  org_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  gid BIGINT NOT NULL,
  image_id TEXT NOT NULL,
  image_source TEXT NOT NULL,
  image_version TEXT NOT NULL DEFAULT '',
  size_id TEXT NOT NULL,
  platform TEXT NOT NULL,
  maximum_runners BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX hosted_runners_name ON hosted_runners (org_id, name);
CREATE TABLE runner_tokens (
  id {{id}},
  kind TEXT NOT NULL,
  scope TEXT NOT NULL,
  owner_id BIGINT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
`,
	// Secrets of every scope (internal/secrets): the value is ciphertext
	// under the server's secrets key; owner_id is the repository's or the
	// organization's id, repeated in repo_id or org_id so that deleting
	// either deletes its secrets.
	`
CREATE TABLE secrets (
  id {{id}},
  app TEXT NOT NULL,
  kind TEXT NOT NULL,
  owner_id BIGINT NOT NULL,
  repo_id BIGINT REFERENCES repos(id) ON DELETE CASCADE,
  org_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  environment TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  visibility TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (app, kind, owner_id, environment, name)
);
CREATE TABLE secret_repositories (
  secret_id BIGINT NOT NULL REFERENCES secrets(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  PRIMARY KEY (secret_id, repo_id)
);
CREATE INDEX secret_repositories_repo ON secret_repositories (repo_id);
`,
	// Custom images of hosted runners (internal/runners/images.go): an
	// image-generation runner's snapshot jobs capture versions, archives
	// under the data directory; org_id 0 is the enterprise's.
	`
ALTER TABLE hosted_runners ADD COLUMN image_gen BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE custom_images (
  id {{id}},
  org_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  platform TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (org_id, name)
);
CREATE TABLE custom_image_versions (
  id {{id}},
  image_id BIGINT NOT NULL REFERENCES custom_images(id) ON DELETE CASCADE,
  major BIGINT NOT NULL,
  minor BIGINT NOT NULL,
  patch BIGINT NOT NULL,
  state TEXT NOT NULL,
  size_bytes BIGINT NOT NULL,
  path TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (image_id, major, minor, patch)
);
`,
	// Deployments (the records of environment jobs), the protection gates
	// holding jobs back (wait timer, required reviewers) and their reviews.
	`
CREATE TABLE deployments (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  sha TEXT NOT NULL,
  ref TEXT NOT NULL,
  task TEXT NOT NULL,
  environment TEXT NOT NULL,
  description TEXT,
  creator_id BIGINT NOT NULL,
  run_id BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX deployments_repo ON deployments (repo_id, id);
CREATE TABLE deployment_gates (
  job_id BIGINT PRIMARY KEY,
  run_id BIGINT NOT NULL,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  environment_id BIGINT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  deployment_id BIGINT NOT NULL,
  state TEXT NOT NULL,
  needs_review BOOLEAN NOT NULL,
  approved BOOLEAN NOT NULL,
  wait_timer INTEGER NOT NULL,
  timer_done BOOLEAN NOT NULL,
  wait_started_at BIGINT NOT NULL
);
CREATE INDEX deployment_gates_run ON deployment_gates (run_id, state);
CREATE TABLE deployment_reviews (
  id {{id}},
  run_id BIGINT NOT NULL,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL,
  state TEXT NOT NULL,
  comment TEXT NOT NULL,
  environment_ids TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX deployment_reviews_run ON deployment_reviews (run_id, id);
`,
	// Rate-limit and failed-login counters (internal/ratelimit): one
	// window per bucket, kept so that a restart or another hubd process
	// on the database goes on counting. Webhook deliveries: started_at is
	// set, committed, before a delivery is sent, so that a delivery found
	// started and not finished (the process stopped while sending) is not
	// sent again automatically.
	`
CREATE TABLE rate_counts (
  bucket TEXT PRIMARY KEY,
  used BIGINT NOT NULL,
  reset_at BIGINT NOT NULL
);
CREATE INDEX rate_counts_reset ON rate_counts (reset_at);
ALTER TABLE hook_deliveries ADD COLUMN started_at BIGINT;
`,
	// Runners that connect (internal/runners, the runner protocol): the
	// hash of a runner's own credential, made when it registers.
	`
ALTER TABLE runners ADD COLUMN credential_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX runners_credential ON runners (credential_hash);
`,
	// 54: forks: the template a repository was generated from (POST
	// /repos/{template_owner}/{template_repo}/generate), shown as its
	// template_repository.
	`
ALTER TABLE repos ADD COLUMN template_id BIGINT REFERENCES repos(id) ON DELETE SET NULL;
`,
	// 55: transfer: issue redirects and repository transfer offers
	// (internal/transfers). The number a transferred issue
	// had in its old repository answers with a redirect to where it went;
	// the number stays taken there. A repository offered to another
	// user's account waits in repo_transfers (one offer per repository)
	// until that user accepts or it expires.
	`
CREATE TABLE repo_transfers (
  id {{id}},
  repo_id BIGINT NOT NULL UNIQUE REFERENCES repos(id) ON DELETE CASCADE,
  from_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  to_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  requester_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  new_name TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX repo_transfers_to ON repo_transfers (to_id, id);
CREATE TABLE issue_redirects (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  PRIMARY KEY (repo_id, number)
);
CREATE INDEX issue_redirects_issue ON issue_redirects (issue_id);
`,
	// 56: ssh: SSH public keys (internal/sshkeys): a user's keys
	// (user_id) and repositories' deploy keys (repo_id); a key, by its
	// fingerprint, is in use once across both.
	`
CREATE TABLE public_keys (
  id {{id}},
  user_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE,
  repo_id BIGINT REFERENCES repos(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  key_text TEXT NOT NULL,
  fingerprint TEXT NOT NULL UNIQUE,
  read_only BOOLEAN NOT NULL DEFAULT FALSE,
  verified BOOLEAN NOT NULL DEFAULT TRUE,
  added_by TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  last_used BIGINT
);
CREATE INDEX public_keys_user ON public_keys (user_id, id);
CREATE INDEX public_keys_repo ON public_keys (repo_id, id);
`,
	// 57: codeowners: branch protection keeps code owner reviews, push
	// restrictions and dismissal restrictions; the users, teams and apps
	// of push restrictions ('push'), dismissal restrictions ('dismiss') and
	// pull request bypass allowances ('bypass') are rows of
	// branch_protection_actors (kind User, Team or App).
	`
ALTER TABLE branch_protections ADD COLUMN require_code_owner_reviews BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE branch_protections ADD COLUMN restricted BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE branch_protections ADD COLUMN dismissal_restricted BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE branch_protection_actors (
  repo_id BIGINT NOT NULL,
  branch TEXT NOT NULL,
  list TEXT NOT NULL,
  kind TEXT NOT NULL,
  actor_id BIGINT NOT NULL,
  PRIMARY KEY (repo_id, branch, list, kind, actor_id),
  FOREIGN KEY (repo_id, branch) REFERENCES branch_protections (repo_id, branch) ON DELETE CASCADE ON UPDATE CASCADE
);
`,
	// 58: codesearch: the code and commit search index (internal/codeindex):
	// the indexed commit of each repository's default branch, its files
	// (text under 384 KB) and its commits. Words are found through a
	// trigram index: FTS5's trigram tokenizer on SQLite (an external
	// content table kept by triggers), pg_trgm GIN indexes on PostgreSQL
	// (the extension lives in public, as test schemas come and go).
	`
CREATE TABLE code_index (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  branch TEXT NOT NULL,
  commit_sha TEXT NOT NULL,
  indexed_at BIGINT NOT NULL
);
CREATE TABLE code_files (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  name TEXT NOT NULL,
  extension TEXT NOT NULL,
  language TEXT NOT NULL,
  sha TEXT NOT NULL,
  size BIGINT NOT NULL,
  content TEXT NOT NULL,
  UNIQUE (repo_id, path)
);
CREATE TABLE code_commits (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  sha TEXT NOT NULL,
  tree_sha TEXT NOT NULL,
  parents TEXT NOT NULL,
  parent_count INTEGER NOT NULL,
  message TEXT NOT NULL,
  author_name TEXT NOT NULL,
  author_email TEXT NOT NULL,
  author_date BIGINT NOT NULL,
  author_tz INTEGER NOT NULL,
  committer_name TEXT NOT NULL,
  committer_email TEXT NOT NULL,
  committer_date BIGINT NOT NULL,
  committer_tz INTEGER NOT NULL,
  author_id BIGINT,
  committer_id BIGINT,
  UNIQUE (repo_id, sha)
);
CREATE INDEX code_commits_author_date ON code_commits (author_date);
CREATE INDEX code_commits_committer_date ON code_commits (committer_date);
CREATE INDEX code_commits_sha ON code_commits (sha);
-- sqlite: CREATE VIRTUAL TABLE code_fts USING fts5(content, path, content='code_files', content_rowid='id', tokenize='trigram');
-- sqlite: CREATE TRIGGER code_files_ai AFTER INSERT ON code_files BEGIN INSERT INTO code_fts (rowid, content, path) VALUES (new.id, new.content, new.path); END;
-- sqlite: CREATE TRIGGER code_files_ad AFTER DELETE ON code_files BEGIN INSERT INTO code_fts (code_fts, rowid, content, path) VALUES ('delete', old.id, old.content, old.path); END;
-- sqlite: CREATE TRIGGER code_files_au AFTER UPDATE ON code_files BEGIN INSERT INTO code_fts (code_fts, rowid, content, path) VALUES ('delete', old.id, old.content, old.path); INSERT INTO code_fts (rowid, content, path) VALUES (new.id, new.content, new.path); END;
-- sqlite: CREATE VIRTUAL TABLE code_commits_fts USING fts5(message, content='code_commits', content_rowid='id', tokenize='trigram');
-- sqlite: CREATE TRIGGER code_commits_ai AFTER INSERT ON code_commits BEGIN INSERT INTO code_commits_fts (rowid, message) VALUES (new.id, new.message); END;
-- sqlite: CREATE TRIGGER code_commits_ad AFTER DELETE ON code_commits BEGIN INSERT INTO code_commits_fts (code_commits_fts, rowid, message) VALUES ('delete', old.id, old.message); END;
-- postgres: DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public; EXCEPTION WHEN unique_violation OR duplicate_object THEN NULL; END $$;
-- postgres: CREATE INDEX code_files_content_trgm ON code_files USING gin (content public.gin_trgm_ops);
-- postgres: CREATE INDEX code_files_path_trgm ON code_files USING gin (path public.gin_trgm_ops);
-- postgres: CREATE INDEX code_commits_message_trgm ON code_commits USING gin (message public.gin_trgm_ops);
`,
	// 59: gpg: users' GPG keys (a primary key and its subkeys, one row each;
	// key_id unique across accounts, as GitHub refuses a key another account
	// holds) and SSH signing keys (unique by fingerprint), which verify the
	// signatures of commits and tags.
	`
CREATE TABLE gpg_keys (
  id {{id}},
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  primary_key_id BIGINT REFERENCES gpg_keys(id) ON DELETE CASCADE,
  name TEXT NOT NULL DEFAULT '',
  key_id TEXT NOT NULL UNIQUE,
  public_key TEXT NOT NULL,
  raw_key TEXT NOT NULL DEFAULT '',
  emails TEXT NOT NULL DEFAULT '',
  can_sign BOOLEAN NOT NULL,
  can_certify BOOLEAN NOT NULL,
  can_encrypt_comms BOOLEAN NOT NULL,
  can_encrypt_storage BOOLEAN NOT NULL,
  revoked BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT
);
CREATE INDEX gpg_keys_user ON gpg_keys (user_id, id);
CREATE INDEX gpg_keys_primary ON gpg_keys (primary_key_id);
CREATE TABLE ssh_signing_keys (
  id {{id}},
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL
);
CREATE INDEX ssh_signing_keys_user ON ssh_signing_keys (user_id, id);
`,
	// 60: closing: a repository's autolink references (internal/autolinks)
	// and the issues a pull request's body says it closes
	// (internal/closing: GraphQL's closingIssuesReferences and
	// closedByPullRequestsReferences).
	`
CREATE TABLE autolinks (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  key_prefix TEXT NOT NULL,
  lower_key_prefix TEXT NOT NULL,
  url_template TEXT NOT NULL,
  is_alphanumeric BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX autolinks_prefix ON autolinks (repo_id, lower_key_prefix);
CREATE TABLE closing_references (
  pull_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (pull_id, issue_id)
);
CREATE INDEX closing_references_issue ON closing_references (issue_id, pull_id);
`,
	// 61: codesearch scale: extension: and filename: find their files
	// through an index, so that a code search they narrow tests its words
	// file by file rather than through the trigram index
	// (store.narrowCodeScope).
	`
CREATE INDEX code_files_extension ON code_files (extension);
CREATE INDEX code_files_lower_name ON code_files (LOWER(name));
`,
	// 62: actions: a workflow job is a check run with the same id. New jobs
	// take the id of their check run (internal/checks CreateJobRun), so the
	// check runs' id sequence moves past every job id there is; older jobs
	// keep the check run check_run_id names.
	`
-- sqlite: INSERT INTO sqlite_sequence (name, seq) SELECT 'check_runs', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'check_runs');
-- sqlite: UPDATE sqlite_sequence SET seq = MAX(seq, (SELECT COALESCE(MAX(id), 0) FROM actions_jobs)) WHERE name = 'check_runs';
-- postgres: SELECT setval(pg_get_serial_sequence('check_runs', 'id'), GREATEST(m, 1), m > 0) FROM (SELECT GREATEST((SELECT COALESCE(MAX(id), 0) FROM check_runs), (SELECT COALESCE(MAX(id), 0) FROM actions_jobs)) AS m) t
`,
	// 63: auto-merge requests (GraphQL enablePullRequestAutoMerge, REST's
	// auto_merge): how to merge a pull request, and as whom, once its
	// requirements pass (internal/pulls/automerge.go).
	`
CREATE TABLE pull_auto_merges (
  pull_id BIGINT PRIMARY KEY REFERENCES issues(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  enabled_by_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  merge_method TEXT NOT NULL,
  commit_title TEXT,
  commit_message TEXT,
  author_email TEXT,
  expected_head_sha TEXT NOT NULL DEFAULT '',
  enabled_at BIGINT NOT NULL
);
`,
	// 64: issuetypes: an organization's issue types (internal/issuetypes)
	// and the type of each issue; issues pinned to their repository (at
	// most three, GraphQL's pinIssue).
	`
CREATE TABLE issue_types (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  description TEXT,
  color TEXT,
  is_enabled BOOLEAN NOT NULL DEFAULT TRUE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX issue_types_name ON issue_types (org_id, lower_name);
CREATE TABLE issue_type_of (
  issue_id BIGINT PRIMARY KEY REFERENCES issues(id) ON DELETE CASCADE,
  type_id BIGINT NOT NULL REFERENCES issue_types(id) ON DELETE CASCADE
);
CREATE INDEX issue_type_of_type ON issue_type_of (type_id, issue_id);
CREATE TABLE pinned_issues (
  issue_id BIGINT PRIMARY KEY REFERENCES issues(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  pinned_by BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX pinned_issues_repo ON pinned_issues (repo_id, created_at, issue_id);
`,
	// 65: advisories: repository security advisories and private
	// vulnerability reports (internal/advisories), their collaborators and
	// credits, and the repositories that accept private reports.
	`
CREATE TABLE repository_advisories (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  ghsa_id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  summary TEXT NOT NULL,
  description TEXT,
  severity TEXT,
  cvss_v3 TEXT,
  cvss_v4 TEXT,
  cve_id TEXT,
  cwe_ids TEXT NOT NULL DEFAULT '[]',
  vulnerabilities TEXT NOT NULL DEFAULT '[]',
  author_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  publisher_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  reported BOOLEAN NOT NULL DEFAULT FALSE,
  accepted BOOLEAN NOT NULL DEFAULT FALSE,
  private_fork_id BIGINT REFERENCES repos(id) ON DELETE SET NULL,
  cve_requested_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  published_at BIGINT,
  closed_at BIGINT,
  withdrawn_at BIGINT
);
CREATE INDEX repository_advisories_repo ON repository_advisories (repo_id, created_at, id);
CREATE TABLE advisory_collaborators (
  advisory_id BIGINT NOT NULL REFERENCES repository_advisories(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  PRIMARY KEY (advisory_id, user_id)
);
CREATE INDEX advisory_collaborators_user ON advisory_collaborators (user_id);
CREATE TABLE advisory_collaborating_teams (
  advisory_id BIGINT NOT NULL REFERENCES repository_advisories(id) ON DELETE CASCADE,
  team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  PRIMARY KEY (advisory_id, team_id)
);
CREATE TABLE advisory_credits (
  advisory_id BIGINT NOT NULL REFERENCES repository_advisories(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY (advisory_id, user_id)
);
CREATE TABLE private_vulnerability_reporting (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  enabled_by BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  enabled_at BIGINT NOT NULL
);
`,
	// 66: refs: branches linked to issues (GraphQL's createLinkedBranch,
	// gh issue develop); a link goes when its branch is deleted
	// (internal/refs).
	`
CREATE TABLE linked_branches (
  id {{id}},
  issue_id BIGINT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  ref TEXT NOT NULL,
  created_by BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX linked_branches_issue ON linked_branches (issue_id, repo_id, ref);
CREATE INDEX linked_branches_ref ON linked_branches (repo_id, ref);
`,
	// 67: migrations: exports of repositories into GitHub's migration
	// archive (internal/migrations), the repositories of each, and whether
	// the migration still locks them; repos.migration_locked says whether
	// any does (read with the repository).
	`
CREATE TABLE export_migrations (
  id {{id}},
  owner_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  guid TEXT NOT NULL,
  state TEXT NOT NULL,
  lock_repositories BOOLEAN NOT NULL DEFAULT FALSE,
  exclude_metadata BOOLEAN NOT NULL DEFAULT FALSE,
  exclude_git_data BOOLEAN NOT NULL DEFAULT FALSE,
  exclude_attachments BOOLEAN NOT NULL DEFAULT FALSE,
  exclude_releases BOOLEAN NOT NULL DEFAULT FALSE,
  exclude_owner_projects BOOLEAN NOT NULL DEFAULT FALSE,
  org_metadata_only BOOLEAN NOT NULL DEFAULT FALSE,
  archive_size BIGINT NOT NULL DEFAULT 0,
  archive_deleted BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX export_migrations_owner ON export_migrations (owner_id, id);
CREATE TABLE export_migration_repos (
  migration_id BIGINT NOT NULL REFERENCES export_migrations(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  locked BOOLEAN NOT NULL DEFAULT FALSE,
  PRIMARY KEY (migration_id, repo_id)
);
CREATE INDEX export_migration_repos_repo ON export_migration_repos (repo_id, locked);
ALTER TABLE repos ADD COLUMN migration_locked BOOLEAN NOT NULL DEFAULT FALSE;
`,
	// 68: insights: API requests concerning an organization, counted per minute
	// by route and actor (internal/insights writes them in batches).
	`
CREATE TABLE api_insights (
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  minute BIGINT NOT NULL,
  method TEXT NOT NULL,
  route TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  actor_name TEXT NOT NULL,
  subject_type TEXT NOT NULL,
  subject_id BIGINT NOT NULL,
  subject_name TEXT NOT NULL,
  integration_id BIGINT,
  oauth_app_id BIGINT,
  total BIGINT NOT NULL,
  limited BIGINT NOT NULL,
  last_request BIGINT NOT NULL,
  last_limited BIGINT NOT NULL,
  PRIMARY KEY (org_id, minute, method, route, actor_type, actor_id, user_id)
);
CREATE INDEX api_insights_minute ON api_insights (minute);
`,
	// 69: scim: SCIM identities (internal/scim) and enterprise teams with their
	// members (internal/enterpriseteams); a SCIM group is an enterprise team
	// with a group_id.
	`
CREATE TABLE scim_users (
  id {{id}},
  uuid TEXT NOT NULL UNIQUE,
  user_id BIGINT NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
  external_id TEXT NOT NULL DEFAULT '',
  user_name TEXT NOT NULL,
  lower_user_name TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL DEFAULT '',
  given_name TEXT NOT NULL DEFAULT '',
  family_name TEXT NOT NULL DEFAULT '',
  middle_name TEXT NOT NULL DEFAULT '',
  formatted TEXT NOT NULL DEFAULT '',
  emails TEXT NOT NULL DEFAULT '[]',
  roles TEXT NOT NULL DEFAULT '',
  active BOOLEAN NOT NULL,
  login TEXT NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  version BIGINT NOT NULL DEFAULT 1,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX scim_users_external ON scim_users (external_id);

CREATE TABLE enterprise_teams (
  id {{id}},
  slug TEXT NOT NULL,
  lower_slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  group_id TEXT UNIQUE,
  external_id TEXT NOT NULL DEFAULT '',
  organization_selection_type TEXT NOT NULL DEFAULT 'disabled',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX enterprise_teams_name ON enterprise_teams (name);
CREATE INDEX enterprise_teams_external ON enterprise_teams (external_id);

CREATE TABLE enterprise_team_members (
  team_id BIGINT NOT NULL REFERENCES enterprise_teams(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX enterprise_team_members_user ON enterprise_team_members (user_id, team_id);

CREATE TABLE enterprise_team_orgs (
  team_id BIGINT NOT NULL REFERENCES enterprise_teams(id) ON DELETE CASCADE,
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (team_id, org_id)
);
CREATE INDEX enterprise_team_orgs_org ON enterprise_team_orgs (org_id, team_id);
`,
	// 70: codespaces secrets: users' own secrets (kind 'user', owner_id
	// repeated in user_id so that deleting the user deletes them) and the
	// organization's Codespaces access policy (internal/codespaces/secrets)
	// with the users it selects; no row is GitHub's default, disabled.
	`
ALTER TABLE secrets ADD COLUMN user_id BIGINT REFERENCES accounts(id) ON DELETE CASCADE;
CREATE INDEX secrets_user ON secrets (user_id);
CREATE TABLE codespaces_access (
  org_id BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  visibility TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE codespaces_access_users (
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX codespaces_access_users_user ON codespaces_access_users (user_id);
`,
	// 71: codespaces: users' development environments (internal/codespaces),
	// each a workspace directory with a clone of a repository, and their
	// exports to branches.
	`
CREATE TABLE codespaces (
  id {{id}},
  name TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL DEFAULT '',
  environment_id TEXT NOT NULL,
  owner_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  ref TEXT NOT NULL,
  pull_number BIGINT NOT NULL DEFAULT 0,
  machine TEXT NOT NULL,
  devcontainer_path TEXT NOT NULL DEFAULT '',
  location TEXT NOT NULL,
  state TEXT NOT NULL,
  token_id BIGINT NOT NULL DEFAULT 0,
  idle_timeout_minutes BIGINT NOT NULL,
  retention_period_minutes BIGINT NOT NULL,
  recent_folders TEXT NOT NULL DEFAULT '[]',
  notes TEXT NOT NULL DEFAULT '',
  created_once BOOLEAN NOT NULL DEFAULT FALSE,
  ahead BIGINT NOT NULL DEFAULT 0,
  behind BIGINT NOT NULL DEFAULT 0,
  has_uncommitted BOOLEAN NOT NULL DEFAULT FALSE,
  has_unpushed BOOLEAN NOT NULL DEFAULT FALSE,
  head_sha TEXT NOT NULL DEFAULT '',
  published_repo_id BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  last_used_at BIGINT NOT NULL,
  stopped_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX codespaces_owner ON codespaces (owner_id, id);
CREATE INDEX codespaces_repo ON codespaces (repo_id, owner_id);

CREATE TABLE codespace_exports (
  id {{id}},
  codespace_id BIGINT NOT NULL REFERENCES codespaces(id) ON DELETE CASCADE,
  state TEXT NOT NULL,
  branch TEXT NOT NULL DEFAULT '',
  sha TEXT NOT NULL DEFAULT '',
  repo_id BIGINT NOT NULL DEFAULT 0,
  message TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  completed_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX codespace_exports_codespace ON codespace_exports (codespace_id, id);
`,
	// 72: attestations: Sigstore bundles stored per repository with the
	// digests of their in-toto subjects, and the artifact metadata
	// (storage and deployment records) an organization keeps per digest.
	`
CREATE TABLE attestations (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  predicate_type TEXT NOT NULL,
  predicate_kind TEXT NOT NULL DEFAULT '',
  bundle TEXT NOT NULL,
  initiator TEXT NOT NULL,
  creator_id BIGINT,
  verified BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX attestations_repo ON attestations (repo_id, id);

CREATE TABLE attestation_subjects (
  attestation_id BIGINT NOT NULL REFERENCES attestations(id) ON DELETE CASCADE,
  digest TEXT NOT NULL,
  PRIMARY KEY (attestation_id, digest)
);
CREATE INDEX attestation_subjects_digest ON attestation_subjects (digest, attestation_id);

CREATE TABLE artifact_storage_records (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  repo_id BIGINT REFERENCES repos(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  digest TEXT NOT NULL,
  version TEXT NOT NULL DEFAULT '',
  artifact_url TEXT,
  path TEXT,
  registry_url TEXT NOT NULL,
  repository TEXT,
  status TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (org_id, digest, registry_url, name, version)
);

CREATE TABLE artifact_deployment_records (
  id {{id}},
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  repo_id BIGINT REFERENCES repos(id) ON DELETE SET NULL,
  attestation_id BIGINT REFERENCES attestations(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  digest TEXT NOT NULL,
  version TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  logical_environment TEXT NOT NULL,
  physical_environment TEXT NOT NULL DEFAULT '',
  cluster TEXT NOT NULL DEFAULT '',
  deployment_name TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '{}',
  runtime_risks TEXT NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (org_id, logical_environment, physical_environment, cluster, deployment_name)
);
CREATE INDEX artifact_deployment_records_digest ON artifact_deployment_records (org_id, digest);
`,
	// 73: enterprise rulesets (internal/rulesets): rulesets with neither
	// repo_id nor org_id and enterprise set, names unique among them.
	`
ALTER TABLE rulesets ADD COLUMN enterprise BOOLEAN NOT NULL DEFAULT FALSE;
CREATE UNIQUE INDEX rulesets_enterprise_name ON rulesets (lower_name) WHERE enterprise = TRUE;
`,
	// 74: the enterprise's announcement banner (one row, id 1) and its
	// role assignments to users and enterprise teams (internal/enterprise;
	// the roles themselves are GitHub's predefined ones, in code).
	`
CREATE TABLE enterprise_announcements (
  id BIGINT PRIMARY KEY,
  message TEXT NOT NULL,
  expires_at BIGINT,
  user_dismissible BOOLEAN NOT NULL DEFAULT FALSE,
  actor_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE enterprise_role_users (
  role_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (role_id, user_id)
);
CREATE INDEX enterprise_role_users_user ON enterprise_role_users (user_id);

CREATE TABLE enterprise_role_teams (
  role_id BIGINT NOT NULL,
  team_id BIGINT NOT NULL REFERENCES enterprise_teams(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (role_id, team_id)
);
CREATE INDEX enterprise_role_teams_team ON enterprise_role_teams (team_id);
`,
	// 75: Visual Studio subscriptions of the enterprise (internal/enterprise):
	// each one a manual match made through the API may name, user_id null
	// once the match is removed.
	`
CREATE TABLE enterprise_vs_subscriptions (
  subscription_id TEXT PRIMARY KEY,
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  email TEXT NOT NULL DEFAULT '',
  manual_match BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX enterprise_vs_subscriptions_user ON enterprise_vs_subscriptions (user_id);
`,
	// 76: the organization whose .github-private repository holds the
	// enterprise's custom agents (internal/enterprise; one row, id 1).
	`
CREATE TABLE enterprise_custom_agents_source (
  id BIGINT PRIMARY KEY,
  org_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  updated_at BIGINT NOT NULL
);
`,
	// 77: projects: Projects (v2) of users and organizations (internal/projects):
	// fields (built-in and custom, options as JSON), items (issues, pull
	// requests, draft issues) with their field values, views, linked
	// repositories.
	`
CREATE TABLE projects_v2 (
  id {{id}},
  owner_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  title TEXT NOT NULL,
  short_description TEXT NOT NULL DEFAULT '',
  readme TEXT NOT NULL DEFAULT '',
  public BOOLEAN NOT NULL DEFAULT FALSE,
  closed_at BIGINT,
  base_role TEXT NOT NULL DEFAULT 'none',
  creator_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (owner_id, number)
);

CREATE TABLE projects_v2_fields (
  id {{id}},
  project_id BIGINT NOT NULL REFERENCES projects_v2(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  data_type TEXT NOT NULL,
  position BIGINT NOT NULL,
  config TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX projects_v2_fields_project ON projects_v2_fields (project_id, position);

CREATE TABLE projects_v2_items (
  id {{id}},
  project_id BIGINT NOT NULL REFERENCES projects_v2(id) ON DELETE CASCADE,
  content_type TEXT NOT NULL,
  issue_id BIGINT REFERENCES issues(id) ON DELETE CASCADE,
  draft_title TEXT NOT NULL DEFAULT '',
  draft_body TEXT NOT NULL DEFAULT '',
  creator_id BIGINT NOT NULL,
  archived_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (project_id, issue_id)
);
CREATE INDEX projects_v2_items_issue ON projects_v2_items (issue_id);

CREATE TABLE projects_v2_values (
  item_id BIGINT NOT NULL REFERENCES projects_v2_items(id) ON DELETE CASCADE,
  field_id BIGINT NOT NULL REFERENCES projects_v2_fields(id) ON DELETE CASCADE,
  text_value TEXT NOT NULL DEFAULT '',
  number_value DOUBLE PRECISION,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (item_id, field_id)
);
CREATE INDEX projects_v2_values_field ON projects_v2_values (field_id);

CREATE TABLE projects_v2_views (
  id {{id}},
  project_id BIGINT NOT NULL REFERENCES projects_v2(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  name TEXT NOT NULL,
  layout TEXT NOT NULL,
  filter TEXT,
  visible_fields TEXT NOT NULL DEFAULT '[]',
  sort_by TEXT NOT NULL DEFAULT '[]',
  group_by TEXT NOT NULL DEFAULT '[]',
  vertical_group_by TEXT NOT NULL DEFAULT '[]',
  creator_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (project_id, number)
);

CREATE TABLE projects_v2_repos (
  project_id BIGINT NOT NULL REFERENCES projects_v2(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (project_id, repo_id)
);
CREATE INDEX projects_v2_repos_repo ON projects_v2_repos (repo_id);
`,
	// 78: checks: each workflow run is its own check suite of the GitHub
	// Actions app (workflow_run_id), while every other suite stays one per
	// head commit and app (a partial unique index). SQLite cannot drop the
	// inline UNIQUE of migration 11: the table is rebuilt, with foreign keys
	// off (see foreignKeysOff) so that dropping the old table does not
	// cascade into check_runs. A suite one workflow run alone points at
	// becomes that run's.
	foreignKeysOff + `
-- sqlite: CREATE TABLE check_suites_new (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  head_sha TEXT NOT NULL,
  head_branch TEXT,
  app_id BIGINT NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'queued',
  conclusion TEXT,
  before_sha TEXT,
  after_sha TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  workflow_run_id BIGINT
);
-- sqlite: INSERT INTO check_suites_new (id, repo_id, head_sha, head_branch, app_id, status, conclusion, before_sha, after_sha,
 created_at, updated_at) SELECT id, repo_id, head_sha, head_branch, app_id, status, conclusion, before_sha, after_sha,
 created_at, updated_at FROM check_suites;
-- sqlite: DELETE FROM sqlite_sequence WHERE name = 'check_suites_new';
-- sqlite: UPDATE sqlite_sequence SET name = 'check_suites_new' WHERE name = 'check_suites';
-- sqlite: DROP TABLE check_suites;
-- sqlite: ALTER TABLE check_suites_new RENAME TO check_suites;
-- postgres: ALTER TABLE check_suites DROP CONSTRAINT check_suites_repo_id_head_sha_app_id_key;
-- postgres: ALTER TABLE check_suites ADD COLUMN workflow_run_id BIGINT;
UPDATE check_suites SET workflow_run_id = (SELECT MIN(r.id) FROM actions_runs r WHERE r.check_suite_id = check_suites.id)
 WHERE (SELECT COUNT(*) FROM actions_runs r WHERE r.check_suite_id = check_suites.id) = 1;
CREATE UNIQUE INDEX check_suites_head ON check_suites (repo_id, head_sha, app_id) WHERE workflow_run_id IS NULL;
CREATE UNIQUE INDEX check_suites_workflow_run ON check_suites (workflow_run_id) WHERE workflow_run_id IS NOT NULL;
CREATE INDEX check_suites_sha ON check_suites (repo_id, head_sha, id);
`,
	// 79: codeindex: PostgreSQL's trigram GIN indexes take their entries
	// at once (fastupdate off): with it on, writes queue in a pending list
	// every search reads whole until a vacuum merges it, and the index
	// job's bulk writes kept it full. SQLite has no such list.
	`
-- postgres: ALTER INDEX code_files_content_trgm SET (fastupdate = off);
-- postgres: ALTER INDEX code_files_path_trgm SET (fastupdate = off);
-- postgres: ALTER INDEX code_commits_message_trgm SET (fastupdate = off)
`,
	// 80: the enterprise's innersource vulnerabilities (internal/enterprise):
	// OSV records synced by external id, each with its GHIS id, and the
	// sync operations (queued, processing, done or error) with their result.
	`
CREATE TABLE enterprise_innersource_vulns (
  external_id TEXT PRIMARY KEY,
  ghis_id TEXT NOT NULL UNIQUE,
  osv TEXT NOT NULL,
  withdrawn_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE enterprise_vuln_syncs (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  payload TEXT NOT NULL,
  result TEXT NOT NULL DEFAULT '',
  actor_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  finished_at BIGINT
);
`,
	// 81: enterprise teams assigned to an organization (internal/
	// enterpriseteams): each assignment has its organization team (teams.
	// enterprise_team_id, slug "ent:..."), whose members follow the
	// enterprise team's and to which the organization grants repositories;
	// an organization membership that exists only through such teams is
	// marked (org_members.via_enterprise) so that it goes when they do.
	`
ALTER TABLE teams ADD COLUMN enterprise_team_id BIGINT REFERENCES enterprise_teams(id) ON DELETE CASCADE;
CREATE UNIQUE INDEX teams_enterprise_team ON teams (enterprise_team_id, org_id);
ALTER TABLE org_members ADD COLUMN via_enterprise BOOLEAN NOT NULL DEFAULT FALSE
`,
	// 82: hosted compute networking (internal/enterprise/network.go): the
	// network settings resources a site administrator registers (a subnet
	// in a region, made outside hubd) and the enterprise's network
	// configurations (owner_id 0) that use them, one configuration per
	// settings resource.
	`
CREATE TABLE network_settings (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  subnet_id TEXT NOT NULL,
  region TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE network_configurations (
  id TEXT PRIMARY KEY,
  owner_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  compute_service TEXT NOT NULL,
  settings_id TEXT NOT NULL UNIQUE REFERENCES network_settings(id),
  failover_settings_id TEXT REFERENCES network_settings(id),
  failover_enabled BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  UNIQUE (owner_id, lower_name)
);
CREATE UNIQUE INDEX network_configurations_failover ON network_configurations (failover_settings_id);
`,
	// 83: the audit log (store/audit.go): entries derived from the domain
	// events in their transaction, names kept as they were; indexed for
	// the searches by organization, actor and action over time.
	`
CREATE TABLE audit_log (
  id {{id}},
  action TEXT NOT NULL,
  actor_id BIGINT NOT NULL DEFAULT 0,
  actor TEXT NOT NULL DEFAULT '',
  actor_key TEXT NOT NULL DEFAULT '',
  user_id BIGINT NOT NULL DEFAULT 0,
  user_login TEXT NOT NULL DEFAULT '',
  org_id BIGINT NOT NULL DEFAULT 0,
  org TEXT NOT NULL DEFAULT '',
  repo_id BIGINT NOT NULL DEFAULT 0,
  repo TEXT NOT NULL DEFAULT '',
  data TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL
);
CREATE INDEX audit_log_created ON audit_log (created_at, id);
CREATE INDEX audit_log_org ON audit_log (org_id, created_at, id);
CREATE INDEX audit_log_actor ON audit_log (actor_key, created_at, id);
CREATE INDEX audit_log_org_actor ON audit_log (org_id, actor_key, created_at, id);
CREATE INDEX audit_log_action ON audit_log (action, created_at, id);
CREATE INDEX audit_log_repo ON audit_log (repo, created_at, id)
`,
	// 84: the audit log's streams to HTTPS endpoints (internal/audit):
	// where each sends, and the last entry it delivered.
	`
CREATE TABLE audit_log_streams (
  id {{id}},
  stream_type TEXT NOT NULL,
  enabled BOOLEAN NOT NULL,
  domain TEXT NOT NULL,
  port INTEGER NOT NULL,
  path TEXT NOT NULL DEFAULT '',
  ssl_verify BOOLEAN NOT NULL,
  key_id TEXT NOT NULL DEFAULT '',
  token_name TEXT NOT NULL,
  cursor_id BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  paused_at BIGINT
)
`,
	// 85: discussions (internal/discussions): a repository's categories
	// (none stored: GitHub's six defaults, with ids repo*32+slot), its
	// discussions (numbered with its issues), threaded comments, upvotes
	// and labels. Reactions live in reactions (subjects discussion and
	// discussion_comment).
	`
CREATE TABLE discussion_categories (
  id BIGINT PRIMARY KEY,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  emoji TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  format TEXT NOT NULL,
  position BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, slug)
);

CREATE TABLE discussion_repos (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL
);

CREATE TABLE discussions (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number BIGINT NOT NULL,
  category_id BIGINT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL DEFAULT '',
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  editor_id BIGINT,
  closed BOOLEAN NOT NULL DEFAULT FALSE,
  state_reason TEXT,
  closed_at BIGINT,
  locked BOOLEAN NOT NULL DEFAULT FALSE,
  lock_reason TEXT,
  pinned_at BIGINT,
  answer_id BIGINT,
  answer_chosen_at BIGINT,
  answer_chosen_by BIGINT,
  upvotes BIGINT NOT NULL DEFAULT 0,
  reactions BIGINT NOT NULL DEFAULT 0,
  comments BIGINT NOT NULL DEFAULT 0,
  last_edited_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, number)
);
CREATE INDEX discussions_repo_updated ON discussions (repo_id, updated_at);
CREATE INDEX discussions_category ON discussions (category_id);

CREATE TABLE discussion_comments (
  id {{id}},
  discussion_id BIGINT NOT NULL REFERENCES discussions(id) ON DELETE CASCADE,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  reply_to_id BIGINT REFERENCES discussion_comments(id) ON DELETE CASCADE,
  body TEXT NOT NULL,
  user_id BIGINT REFERENCES accounts(id) ON DELETE SET NULL,
  editor_id BIGINT,
  upvotes BIGINT NOT NULL DEFAULT 0,
  reactions BIGINT NOT NULL DEFAULT 0,
  last_edited_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX discussion_comments_thread ON discussion_comments (discussion_id, reply_to_id, id);
CREATE INDEX discussion_comments_replies ON discussion_comments (reply_to_id, id);

CREATE TABLE discussion_upvotes (
  subject_type TEXT NOT NULL,
  subject_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (subject_type, subject_id, user_id)
);

CREATE TABLE discussion_labels (
  discussion_id BIGINT NOT NULL REFERENCES discussions(id) ON DELETE CASCADE,
  label_id BIGINT NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  PRIMARY KEY (discussion_id, label_id)
);
CREATE INDEX discussion_labels_label ON discussion_labels (label_id);
`,
	// 86: GitHub Advanced Security (store/ghas.go): a repository's
	// security and analysis settings (no row: all disabled), and the
	// users whose commits each push brought, matched by email in the push
	// job: the last push per repository and user, for the active
	// committers that billing counts.
	`
CREATE TABLE repo_security (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  advanced_security BOOLEAN NOT NULL DEFAULT FALSE,
  secret_scanning BOOLEAN NOT NULL DEFAULT FALSE,
  secret_scanning_push_protection BOOLEAN NOT NULL DEFAULT FALSE,
  updated_at BIGINT NOT NULL
);

CREATE TABLE push_committers (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  pushed_at BIGINT NOT NULL,
  PRIMARY KEY (repo_id, user_id)
);
CREATE INDEX push_committers_user ON push_committers (user_id);
`,
	// 87: push rule bypass requests (internal/rulesets/bypassreq.go): a
	// push that push rulesets refused, recorded for the rulesets' bypass
	// list to approve or deny; each reviewer's responses. The status is
	// stored (pending, approved, denied, completed, cancelled); expired is
	// read from expires_at.
	`
CREATE TABLE push_bypass_requests (
  id {{id}},
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  org_id BIGINT,
  number BIGINT NOT NULL,
  requester_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  resource TEXT NOT NULL,
  ref TEXT NOT NULL,
  data TEXT NOT NULL,
  status TEXT NOT NULL,
  requester_comment TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (repo_id, number)
);
CREATE INDEX push_bypass_requests_org ON push_bypass_requests (org_id, created_at);
CREATE INDEX push_bypass_requests_repo ON push_bypass_requests (repo_id, created_at);
CREATE INDEX push_bypass_requests_push ON push_bypass_requests (repo_id, requester_id, resource);

CREATE TABLE push_bypass_responses (
  id {{id}},
  request_id BIGINT NOT NULL REFERENCES push_bypass_requests(id) ON DELETE CASCADE,
  reviewer_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX push_bypass_responses_request ON push_bypass_responses (request_id, id);
CREATE INDEX push_bypass_responses_reviewer ON push_bypass_responses (reviewer_id);
`,
	// 88: codesearch on PostgreSQL: how many indexed files of each
	// repository hold each pg_trgm trigram (in their content or path),
	// kept by the index job (store.ApplyCodeIndex), so that a search finds
	// a word's files through its rarest trigrams' posting lists rather than
	// all of them (store.rareTrigramPatterns). Per repository, so that
	// index jobs of different repositories never wait on one row and a
	// deleted repository takes its counts with it. SQLite's FTS5 counts
	// its trigrams itself: the table is PostgreSQL's only.
	`
-- postgres: CREATE TABLE code_trigrams (
  trigram TEXT NOT NULL,
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  files BIGINT NOT NULL,
  PRIMARY KEY (trigram, repo_id)
);
-- postgres: CREATE INDEX code_trigrams_repo ON code_trigrams (repo_id);
-- postgres: CREATE INDEX code_trigrams_gone ON code_trigrams (repo_id) WHERE files <= 0;
-- postgres: INSERT INTO code_trigrams (trigram, repo_id, files)
 SELECT t.t, f.repo_id, COUNT(*) FROM code_files f,
 LATERAL (SELECT DISTINCT x FROM unnest(public.show_trgm(f.content) || public.show_trgm(f.path)) x) t(t)
 GROUP BY t.t, f.repo_id;
`,
}

// MigrationsDigest identifies the schema the migrations build: a hash of
// their text in order. Test harnesses key a migrated template database on
// it, so a changed or added migration gets a fresh template.
func MigrationsDigest() string {
	h := sha256.New()
	for _, m := range migrations {
		fmt.Fprintf(h, "%d\n%s\n", len(m), m)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	id := "INTEGER PRIMARY KEY AUTOINCREMENT"
	if s.pg {
		id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
		// Nodes starting at once on one database migrate one at a time
		// (the others then find every migration applied): a session lock
		// on a connection of its own, per schema, released when done.
		conn, err := s.write.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext('hubd-migrate:' || current_schema()))`); err != nil {
			return fmt.Errorf("store: wait for other nodes' migrations: %w", err)
		}
		defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(hashtext('hubd-migrate:' || current_schema()))`)
	}
	var newest int
	if err := s.write.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("store: schema version: %w", err)
	}
	if newest > len(migrations) {
		return fmt.Errorf("%w: the database's schema is at migration %d and this hubd knows %d: a newer hubd has upgraded it; run that version (or a newer one) on every node", ErrSchemaNewer, newest, len(migrations))
	}
	for i, m := range migrations {
		v := i + 1
		run := s.Tx
		if body, ok := strings.CutPrefix(m, foreignKeysOff); ok {
			m, run = body, s.txForeignKeysOff
		}
		err := run(ctx, func(tx Q) error {
			var n int
			if err := tx.row(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			for _, stmt := range strings.Split(strings.ReplaceAll(m, "{{id}}", id), ";\n") {
				stmt = s.dialect(stmt)
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
	if s.pg {
		// The cluster's generations (cluster.go): sequences, not rows, so
		// that bumping one takes no lock a commit waits for. Made here, under
		// the migration lock, so that nodes starting at once do not race.
		for _, seq := range []string{genWrites, genBroadcasts} {
			if _, err := s.write.ExecContext(ctx, `CREATE SEQUENCE IF NOT EXISTS `+seq); err != nil {
				return fmt.Errorf("store: sequence %s: %w", seq, err)
			}
		}
	}
	return nil
}

// ErrSchemaNewer is the error of a store opened on a database that a newer
// hubd migrated further than this one knows (an older node in a rolling
// upgrade done in the wrong order).
var ErrSchemaNewer = errors.New("database schema is newer than this hubd")

// foreignKeysOff begins a migration that runs with SQLite's foreign keys
// off: one that rebuilds a table others reference (dropping the old table
// would otherwise delete, by cascade, the rows that reference it).
const foreignKeysOff = "-- foreign_keys off\n"

// txForeignKeysOff is Tx on SQLite's one write connection with its
// foreign keys off (the pragma is a no-op inside a transaction, so it is
// set before and restored after). The transaction makes sure they are off
// before fn runs and that fn left no reference dangling before it commits.
// PostgreSQL keeps them on: it alters constraints in place.
func (s *Store) txForeignKeysOff(ctx context.Context, fn func(tx Q) error) error {
	if s.pg {
		return s.Tx(ctx, fn)
	}
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`)
	s.writes.Add(1)
	t, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	err = func() error {
		var on int
		if err := t.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil {
			return err
		}
		if on != 0 {
			return errors.New("foreign keys are still on")
		}
		if err := fn(Q{s: s, db: s.write, tx: t}); err != nil {
			return err
		}
		rows, err := t.QueryContext(ctx, `PRAGMA foreign_key_check`)
		if err != nil {
			return err
		}
		defer rows.Close()
		if rows.Next() {
			var table string
			var rowid sql.NullInt64
			var parent string
			var fk int
			if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
				return err
			}
			return fmt.Errorf("foreign key check: row %d of %s references a missing row of %s", rowid.Int64, table, parent)
		}
		return rows.Err()
	}()
	if err != nil {
		t.Rollback()
		return err
	}
	err = t.Commit()
	s.cache.invalidate()
	return err
}

// dialect keeps a statement of one database only: one written after
// "-- sqlite: " or "-- postgres: " runs on that database (without the
// marker) and is empty on the other.
func (s *Store) dialect(stmt string) string {
	t := strings.TrimSpace(stmt)
	for _, d := range []struct {
		marker string
		pg     bool
	}{{"-- sqlite: ", false}, {"-- postgres: ", true}} {
		if body, ok := strings.CutPrefix(t, d.marker); ok {
			if d.pg != s.pg {
				return ""
			}
			return body
		}
	}
	return stmt
}
