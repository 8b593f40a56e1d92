package store

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// The audit log is derived from the domain events: AppendEvent writes the
// entry of an event that names a security- or administration-relevant
// action in the same statement sequence, so an entry exists exactly when
// its change committed. auditActions maps an event type (or type and
// payload "action", written "type/action") to GitHub's audit action.
var auditActions = map[string]string{
	"user.login":           "user.login",
	"user.created":         "user.create",
	"user.deleted":         "user.destroy",
	"user.renamed":         "user.rename",
	"user.change_password": "user.change_password",
	"user.suspended":       "user.suspend",
	"user.unsuspended":     "user.unsuspend",

	"oauth_access.create":         "oauth_access.create",
	"oauth_access.destroy":        "oauth_access.destroy",
	"oauth_access.regenerate":     "oauth_access.regenerate",
	"oauth_authorization.destroy": "oauth_authorization.destroy",
	"oauth_application.create":    "oauth_application.create",
	"oauth_application.destroy":   "oauth_application.destroy",

	"user.impersonation_token_created":                  "oauth_access.create",
	"user.impersonation_tokens_deleted":                 "oauth_access.destroy",
	"personal_access_token.created":                     "personal_access_token.create",
	"personal_access_token.deleted":                     "oauth_access.destroy",
	"personal_access_token.access_revoked":              "personal_access_token.access_revoked",
	"organization.personal_access_token_policy_updated": "org.update_personal_access_token_policy",

	"public_key.created": "public_key.create",
	"public_key.deleted": "public_key.delete",
	"deploy_key.created": "public_key.create",
	"deploy_key.deleted": "public_key.delete",
	"gpg_key.created":    "gpg_key.create",
	"gpg_key.deleted":    "gpg_key.delete",

	"organization.created":                     "org.create",
	"organization.renamed":                     "org.rename",
	"organization.member_added":                "org.add_member",
	"organization.member_removed":              "org.remove_member",
	"organization.member_role_changed":         "org.update_member",
	"organization.member_invited":              "org.invite_member",
	"organization.member_invitation_edited":    "org.update_invite",
	"organization.member_invitation_cancelled": "org.cancel_invitation",
	"organization.member_converted":            "org.convert_member_to_outside_collaborator",
	"org_block.blocked":                        "org.block_user",
	"org_block.unblocked":                      "org.unblock_user",

	"team/created":                 "team.create",
	"team/deleted":                 "team.destroy",
	"team/added_to_repository":     "team.add_repository",
	"team/removed_from_repository": "team.remove_repository",
	"membership/added":             "team.add_member",
	"membership/removed":           "team.remove_member",
	"membership/role_changed":      "team.update_team_member_role",

	"organization_role/created":             "role.create",
	"organization_role/edited":              "role.update",
	"organization_role/deleted":             "role.destroy",
	"custom_repository_role/created":        "role.create",
	"custom_repository_role/edited":         "role.update",
	"custom_repository_role/deleted":        "role.destroy",
	"enterprise_role.assigned":              "business.assign_enterprise_role",
	"enterprise_role.revoked":               "business.revoke_enterprise_role",
	"enterprise_team.created":               "enterprise_team.create",
	"enterprise_team.deleted":               "enterprise_team.destroy",
	"enterprise_team.members_changed":       "enterprise_team.update_members",
	"enterprise_team.organizations_changed": "enterprise_team.update_organizations",

	"member/added":                    "repo.add_member",
	"member/edited":                   "repo.update_member",
	"member/removed":                  "repo.remove_member",
	"member.removed":                  "repo.remove_member",
	"repository_invitation/created":   "repository_invitation.create",
	"repository_invitation/accepted":  "repository_invitation.accept",
	"repository_invitation/declined":  "repository_invitation.reject",
	"repository_invitation/deleted":   "repository_invitation.destroy",
	"repository_invitation/cancelled": "repository_invitation.destroy",

	"branch_protection_rule.created": "protected_branch.create",
	"branch_protection_rule.edited":  "protected_branch.update",
	"branch_protection_rule.deleted": "protected_branch.destroy",
	"repository_ruleset.created":     "repository_ruleset.create",
	"repository_ruleset.edited":      "repository_ruleset.update",
	"repository_ruleset.deleted":     "repository_ruleset.destroy",

	"hook.created": "hook.create",
	"hook.edited":  "hook.config_changed",
	"hook.deleted": "hook.destroy",

	"installation.created":              "integration_installation.create",
	"installation.deleted":              "integration_installation.destroy",
	"installation.suspend":              "integration_installation.suspend",
	"installation.unsuspend":            "integration_installation.unsuspend",
	"installation_repositories.added":   "integration_installation.repositories_added",
	"installation_repositories.removed": "integration_installation.repositories_removed",
	"installation_repositories.changed": "integration_installation.repositories_changed",

	"repository.created":     "repo.create",
	"repository.deleted":     "repo.destroy",
	"repository.transferred": "repo.transfer",
	"repository.renamed":     "repo.rename",
	"repository.archived":    "repo.archived",
	"repository.unarchived":  "repo.unarchived",
	"repository.publicized":  "repo.access",
	"repository.privatized":  "repo.access",

	"scim.user_provisioned": "external_identity.provision",
	"scim.user_updated":     "external_identity.update",
	"scim.user_deactivated": "external_identity.deprovision",
	"scim.user_reactivated": "external_identity.provision",
	"scim.user_deleted":     "external_identity.deprovision",

	"audit_log_streaming.create":  "audit_log_streaming.create",
	"audit_log_streaming.update":  "audit_log_streaming.update",
	"audit_log_streaming.destroy": "audit_log_streaming.destroy",

	"push": "git.push",

	"repo.advanced_security_enabled":                     "repo.advanced_security_enabled",
	"repo.advanced_security_disabled":                    "repo.advanced_security_disabled",
	"repository_secret_scanning.enable":                  "repository_secret_scanning.enable",
	"repository_secret_scanning.disable":                 "repository_secret_scanning.disable",
	"repository_secret_scanning_push_protection.enable":  "repository_secret_scanning_push_protection.enable",
	"repository_secret_scanning_push_protection.disable": "repository_secret_scanning_push_protection.disable",
}

// secretEvent matches the secrets store's events, already named as the
// audit log names them (repo.create_actions_secret, org.remove_agents_secret).
var secretEvent = regexp.MustCompile(`^(repo|org|environment|user)\.(create|update|remove)_[a-z_]+_secret$`)

// auditAction is the audit action of an event, "" when it is not audited.
func auditAction(typ string, p map[string]any) string {
	if secretEvent.MatchString(typ) {
		return typ
	}
	if a, ok := p["action"].(string); ok {
		if v, ok := auditActions[typ+"/"+a]; ok {
			return v
		}
	}
	return auditActions[typ]
}

// audited reports whether events of typ may make an entry (before the
// payload is read).
func audited(typ string) bool {
	if secretEvent.MatchString(typ) {
		return true
	}
	if _, ok := auditActions[typ]; ok {
		return true
	}
	switch typ {
	case "team", "membership", "member", "repository_invitation", "organization_role", "custom_repository_role":
		return true
	}
	return false
}

// affectedUser is the payload's account the action concerns.
func affectedUser(p map[string]any) int64 {
	for _, k := range []string{"user_id", "member", "invitee", "member_id"} {
		if v, ok := p[k].(float64); ok && v > 0 {
			return int64(v)
		}
	}
	return 0
}

// appendAudit writes the audit entry of an event, when its action is
// audited, in the event's transaction. Names are read at that moment
// (a deleted repository keeps the name the payload gives).
func (q Q) appendAudit(ctx context.Context, typ string, actorID, repoID, orgID int64, payload []byte) error {
	if !audited(typ) {
		return nil
	}
	var p map[string]any
	if err := json.Unmarshal(payload, &p); err != nil || p == nil {
		p = map[string]any{}
	}
	action := auditAction(typ, p)
	if action == "" {
		return nil
	}
	userID := affectedUser(p)
	fullName, _ := p["full_name"].(string)
	// Webhook snapshots are for deliveries, not for the log.
	delete(p, "webhook")
	switch typ {
	case "repository.publicized":
		p["visibility"] = "public"
	case "repository.privatized":
		p["previous_visibility"] = "public"
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO audit_log (action, actor_id, actor, actor_key, user_id, user_login, org_id, org, repo_id, repo, data, created_at)
 VALUES (?, ?, COALESCE((SELECT login FROM accounts WHERE id = ?), ''), COALESCE((SELECT lower_login FROM accounts WHERE id = ?), ''),
 ?, COALESCE((SELECT login FROM accounts WHERE id = ?), ''),
 ?, COALESCE((SELECT login FROM accounts WHERE id = ?), ''),
 ?, COALESCE((SELECT a.login || '/' || r.name FROM repos r JOIN accounts a ON a.id = r.owner_id WHERE r.id = ?), ?), ?, ?)`,
		action, actorID, actorID, actorID, userID, userID, orgID, orgID, repoID, repoID, fullName, string(data), q.Now().UnixMilli())
	return err
}

// InsertAuditEntries writes entries as they are (benchmarks and imports:
// names and times given), a few hundred rows a statement.
func (q Q) InsertAuditEntries(ctx context.Context, entries []model.AuditEntry) error {
	const rows = 400
	for len(entries) > 0 {
		part := entries[:min(rows, len(entries))]
		entries = entries[len(part):]
		var b strings.Builder
		b.WriteString(`INSERT INTO audit_log (action, actor_id, actor, actor_key, user_id, user_login, org_id, org, repo_id, repo, data, created_at) VALUES `)
		args := make([]any, 0, 12*len(part))
		for i, e := range part {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?)")
			data := string(e.Data)
			if data == "" {
				data = "{}"
			}
			args = append(args, e.Action, e.ActorID, e.Actor, strings.ToLower(e.Actor), e.UserID, e.User,
				e.OrgID, e.Org, e.RepoID, e.Repo, data, e.CreatedAt.UnixMilli())
		}
		if _, err := q.exec(ctx, b.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// SearchAudit runs a search of the audit log: at most q.Limit entries in
// the query's order, and whether more lie past the last one in the
// direction read (towards After's side, or Before's when Before is set).
func (q Q) SearchAudit(ctx context.Context, aq model.AuditQuery) ([]model.AuditEntry, bool, error) {
	var where []string
	var args []any
	add := func(cond string, a ...any) { where = append(where, cond); args = append(args, a...) }
	if aq.OrgID != 0 {
		add(`org_id = ?`, aq.OrgID)
	}
	in := func(col string, vals []string, lower bool) {
		if len(vals) == 0 {
			return
		}
		marks := make([]string, len(vals))
		for i, v := range vals {
			if lower {
				v = strings.ToLower(v)
			}
			marks[i] = "?"
			args = append(args, v)
		}
		if len(vals) == 1 {
			where = append(where, col+" = ?")
		} else {
			where = append(where, col+" IN ("+strings.Join(marks, ",")+")")
		}
	}
	in("actor_key", aq.Actors, true)
	in("user_login", aq.Users, false)
	in("repo", aq.Repos, false)
	in("org", aq.Orgs, false)
	var acts []string
	var actArgs []any
	for _, a := range aq.Actions {
		acts = append(acts, "action = ?")
		actArgs = append(actArgs, a)
	}
	for _, a := range aq.ActionPrefixes {
		acts = append(acts, `action LIKE ? ESCAPE '\'`)
		actArgs = append(actArgs, likeEscape(a)+".%")
	}
	if len(acts) > 0 {
		add("("+strings.Join(acts, " OR ")+")", actArgs...)
	}
	for _, a := range aq.NotActions {
		if strings.Contains(a, ".") {
			add(`action <> ?`, a)
		} else {
			add(`action NOT LIKE ? ESCAPE '\'`, likeEscape(a)+".%")
		}
	}
	switch aq.Include {
	case "git":
		add(`action LIKE 'git.%'`)
	case "all":
	default:
		add(`action NOT LIKE 'git.%'`)
	}
	if !aq.Since.IsZero() {
		add(`created_at >= ?`, aq.Since.UnixMilli())
	}
	if !aq.Until.IsZero() {
		add(`created_at < ?`, aq.Until.UnixMilli())
	}
	// Reading towards older entries: desc order after a cursor, or asc
	// order before one.
	older := !aq.Asc
	cur := aq.After
	if aq.Before != nil {
		older, cur = !older, aq.Before
	}
	if cur != nil {
		if older {
			add(`(created_at, id) < (?, ?)`, cur.CreatedMS, cur.ID)
		} else {
			add(`(created_at, id) > (?, ?)`, cur.CreatedMS, cur.ID)
		}
	}
	order := "created_at DESC, id DESC"
	if !older {
		order = "created_at ASC, id ASC"
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	limit := aq.Limit
	if limit <= 0 {
		limit = 30
	}
	rows, err := q.query(ctx, `SELECT id, action, actor_id, actor, user_id, user_login, org_id, org, repo_id, repo, data, created_at
 FROM audit_log`+cond+` ORDER BY `+order+` LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []model.AuditEntry
	for rows.Next() {
		var e model.AuditEntry
		var data string
		var ms int64
		if err := rows.Scan(&e.ID, &e.Action, &e.ActorID, &e.Actor, &e.UserID, &e.User, &e.OrgID, &e.Org, &e.RepoID, &e.Repo, &data, &ms); err != nil {
			return nil, false, err
		}
		e.Data, e.CreatedAt = []byte(data), time.UnixMilli(ms).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	if aq.Before != nil {
		// Read backwards from the cursor: give them in the query's order.
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, more, nil
}

// AuditEntriesAfter lists entries with id > after, oldest first (the
// audit log streams read on from their cursor).
func (q Q) AuditEntriesAfter(ctx context.Context, after int64, limit int) ([]model.AuditEntry, error) {
	rows, err := q.query(ctx, `SELECT id, action, actor_id, actor, user_id, user_login, org_id, org, repo_id, repo, data, created_at
 FROM audit_log WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.AuditEntry
	for rows.Next() {
		var e model.AuditEntry
		var data string
		var ms int64
		if err := rows.Scan(&e.ID, &e.Action, &e.ActorID, &e.Actor, &e.UserID, &e.User, &e.OrgID, &e.Org, &e.RepoID, &e.Repo, &data, &ms); err != nil {
			return nil, err
		}
		e.Data, e.CreatedAt = []byte(data), time.UnixMilli(ms).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// AnalyzeAudit refreshes the planner's statistics of the audit log (after
// a bulk load).
func (q Q) AnalyzeAudit(ctx context.Context) error {
	_, err := q.exec(ctx, `ANALYZE audit_log`)
	return err
}
