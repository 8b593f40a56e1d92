package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

const repoCols = `r.id, r.owner_id, r.name, r.description, r.homepage, r.visibility, r.default_branch, r.topics,
 r.has_issues, r.has_projects, r.has_wiki, r.has_discussions, r.has_downloads, r.is_template, r.archived, r.disabled,
 r.allow_squash_merge, r.allow_merge_commit, r.allow_rebase_merge, r.allow_auto_merge, r.delete_branch_on_merge,
 r.allow_update_branch, r.allow_forking, r.web_commit_signoff_required, r.squash_merge_commit_title,
 r.squash_merge_commit_message, r.merge_commit_title, r.merge_commit_message, r.size, r.created_at, r.updated_at, r.pushed_at,
 COALESCE(r.parent_id, 0), COALESCE(r.source_id, 0), (SELECT COUNT(*) FROM repos rf WHERE rf.parent_id = r.id),
 r.stargazers_count, r.subscribers_count, COALESCE(r.template_id, 0), r.migration_locked`

// repoSelect loads a repository, its owner (a) and the viewer's relation to
// it: their active membership of the owning organization (m) and their direct
// collaborator permission (c). The two viewer ids are its first arguments.
const repoSelect = `SELECT ` + repoCols + `, ` + accountCols + `, COALESCE(m.role, ''), COALESCE(c.permission, ''),
 COALESCE(ic.open_issues, 0), COALESCE(` + teamGrant + `, 0), COALESCE(` + orgRoleGrant + `, 0)
 FROM repos r JOIN accounts a ON a.id = r.owner_id
 LEFT JOIN issue_counters ic ON ic.repo_id = r.id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = 'active'
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = ?`

// teamGrant is the viewer's highest team permission (an authz.Permission)
// on r: grants of every team they belong to and of those teams' ancestors,
// which flow down to child teams. It keys on m.user_id, so it is NULL unless
// the viewer is an active member of the owning org (a team membership stays
// pending until the org invitation is accepted, see store/teams.go).
// Ancestors are followed up to TeamMaxDepth levels
// (internal/teams refuses deeper nesting), which keeps this one bounded join
// that SQLite and PostgreSQL run alike.
const teamGrant = `(SELECT MAX(tr.permission) FROM team_members tm
 JOIN teams t0 ON t0.id = tm.team_id
 LEFT JOIN teams t1 ON t1.id = t0.parent_id
 LEFT JOIN teams t2 ON t2.id = t1.parent_id
 LEFT JOIN teams t3 ON t3.id = t2.parent_id
 LEFT JOIN teams t4 ON t4.id = t3.parent_id
 JOIN team_repos tr ON tr.repo_id = r.id AND tr.team_id IN (t0.id, t1.id, t2.id, t3.id, t4.id)
 WHERE tm.user_id = m.user_id)`

// TeamMaxDepth is how many levels of teams teamGrant follows (a team and
// four ancestors).
const TeamMaxDepth = 5

// orgRoleGrant is the highest base level (an authz.Permission, 0 for none)
// of the organization roles the viewer holds in r's owning organization:
// assigned to them, or to a team they are in or one of its ancestors (a
// role given to a team reaches the members of its child teams). Like
// teamGrant it keys on m.user_id, so it is NULL unless the viewer is an
// active member of the owning organization (and not run at all for anyone
// else: the CASE skips the subquery).
const orgRoleGrant = `(CASE WHEN m.user_id IS NULL THEN NULL ELSE (SELECT MAX(ra.permission) FROM org_role_assignments ra
 WHERE ra.org_id = r.owner_id AND (ra.user_id = m.user_id OR EXISTS (SELECT 1 FROM team_members rtm
 JOIN teams t0 ON t0.id = rtm.team_id` + teamAncestors + `
 WHERE rtm.user_id = m.user_id AND ra.team_id IN ` + teamLine + `))) END)`

// viewerCTEs is what lists need to know about the viewer (its first three
// arguments), computed once per query instead of once per candidate row:
// vt is every team they belong to and those teams' ancestors (UNION stops
// on any cycle; internal/teams keeps chains within TeamMaxDepth), vr each
// organization's highest role level assigned to them or to one of those
// teams, vm their active organization memberships with each
// organization's base permission. Like teamGrant and orgRoleGrant, team
// grants and roles count only where the viewer is an active member of the
// owning organization.
const viewerCTEs = `WITH RECURSIVE vt(id) AS (
 SELECT team_id FROM team_members WHERE user_id = ?
 UNION SELECT t.parent_id FROM teams t JOIN vt ON t.id = vt.id WHERE t.parent_id IS NOT NULL),
 vr(org_id, perm) AS (SELECT ra.org_id, MAX(ra.permission) FROM org_role_assignments ra
 WHERE ra.user_id = ? OR ra.team_id IN (SELECT id FROM vt) GROUP BY ra.org_id),
 vm(org_id, role, dp) AS (SELECT om.org_id, om.role, o.default_repo_permission FROM org_members om
 JOIN accounts o ON o.id = om.org_id WHERE om.user_id = ? AND om.state = 'active')`

// teamGrants (tg) is each repository's highest grant to one of the
// viewer's teams (vt), for conditions that test access row by row.
const teamGrants = `,
 tg(repo_id, perm) AS (SELECT tr.repo_id, MAX(tr.permission) FROM team_repos tr JOIN vt ON tr.team_id = vt.id GROUP BY tr.repo_id)`

// listFrom joins to a candidate repository (r) its owner (a), the viewer's
// active membership of the owning organization (m), their direct grant
// (c), their teams' grants (tg) and their organization roles (vr), for
// listedOrgAccess. Its arguments are the viewer id twice.
const listFrom = ` FROM repos r JOIN accounts a ON a.id = r.owner_id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = 'active'
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = ?
 LEFT JOIN tg ON tg.repo_id = r.id
 LEFT JOIN vr ON vr.org_id = r.owner_id`

// accessibleFrom is the FROM of a list whose repositories are the viewer's
// accessible set (acc, see RepoQuery.accessible) and nothing else.
const accessibleFrom = ` FROM acc JOIN repos r ON r.id = acc.id JOIN accounts a ON a.id = r.owner_id`

// viewerTeamGrant is teamGrant for one row of a page: the highest grant on
// r to one of the viewer's teams (vt); the team_repos index on repo_id
// answers it.
const viewerTeamGrant = `(SELECT MAX(tr.permission) FROM team_repos tr WHERE tr.repo_id = r.id AND tr.team_id IN (SELECT id FROM vt))`

// pageSelect is repoSelect's columns for the rows of a page (page.id)
// after viewerCTEs: the viewer's facts are looked up for those rows alone.
// Its arguments are the viewer id twice.
const pageSelect = `SELECT ` + repoCols + `, ` + accountCols + `, COALESCE(m.role, ''), COALESCE(c.permission, ''),
 COALESCE(ic.open_issues, 0), COALESCE(CASE WHEN m.user_id IS NOT NULL THEN ` + viewerTeamGrant + ` END, 0),
 COALESCE(CASE WHEN m.user_id IS NOT NULL THEN vr.perm END, 0)`

// pageFrom joins a page's ids to their rows and the viewer's relations.
const pageFrom = ` FROM page JOIN repos r ON r.id = page.id JOIN accounts a ON a.id = r.owner_id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = 'active'
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = ?
 LEFT JOIN vr ON vr.org_id = r.owner_id
 LEFT JOIN issue_counters ic ON ic.repo_id = r.id`

// RepoView is a repository with what authz needs to know about the viewer.
type RepoView struct {
	Repo  *model.Repo
	Facts authz.RepoFacts
}

// Viewer is who a repository query is for: a user (0 for anonymous) and the
// limits of their token.
type Viewer struct {
	UserID int64
	// PublicOnly hides every non-public repository (a classic token without
	// the repo scope).
	PublicOnly bool
	// RepoIDs, when non-nil, limits non-public repositories to these
	// (fine-grained and app tokens for selected repositories).
	RepoIDs []int64
	// OnlyOwnerID, when set, limits non-public repositories to this
	// owner's (a fine-grained token reaches its resource owner's only).
	OnlyOwnerID int64
	// OwnerIDs, with RepoIDs non-nil, also reaches every non-public
	// repository of these owners (user access tokens: the accounts their
	// app is installed on for all repositories).
	OwnerIDs []int64
}

// expand prepends a scanner's leading destinations and appends trailing ones,
// so scanAccount can read the owner columns in the middle of a row.
type expand struct {
	sc        scanner
	pre, post []any
}

func (e expand) Scan(dest ...any) error {
	all := make([]any, 0, len(e.pre)+len(dest)+len(e.post))
	all = append(append(append(all, e.pre...), dest...), e.post...)
	return e.sc.Scan(all...)
}

func scanRepoView(sc scanner) (*RepoView, error) {
	r := &model.Repo{Owner: &model.Account{}}
	var vis, topics, role, collab string
	var created, updated, team, orgRoles int64
	var pushed sql.NullInt64
	pre := []any{&r.ID, &r.OwnerID, &r.Name, &r.Description, &r.Homepage, &vis, &r.DefaultBranch, &topics,
		&r.HasIssues, &r.HasProjects, &r.HasWiki, &r.HasDiscussions, &r.HasDownloads, &r.IsTemplate, &r.Archived, &r.Disabled,
		&r.AllowSquashMerge, &r.AllowMergeCommit, &r.AllowRebaseMerge, &r.AllowAutoMerge, &r.DeleteBranchOnMerge,
		&r.AllowUpdateBranch, &r.AllowForking, &r.WebCommitSignoffRequired, &r.SquashMergeCommitTitle,
		&r.SquashMergeCommitMessage, &r.MergeCommitTitle, &r.MergeCommitMessage, &r.Size, &created, &updated, &pushed,
		&r.ParentID, &r.SourceID, &r.ForksCount, &r.StargazersCount, &r.SubscribersCount, &r.TemplateID, &r.LockedForMigration}
	if err := scanAccount(expand{sc: sc, pre: pre, post: []any{&role, &collab, &r.OpenIssues, &team, &orgRoles}}, r.Owner); err != nil {
		return nil, err
	}
	r.Visibility = model.Visibility(vis)
	r.Topics = splitTopics(topics)
	r.CreatedAt, r.UpdatedAt, r.PushedAt = fromUnix(created), fromUnix(updated), fromNullUnix(pushed)
	v := &RepoView{Repo: r}
	v.Facts.OrgRole = model.OrgRole(role)
	v.Facts.Collab, _ = authz.ParsePermission(collab)
	if team > int64(authz.None) && team <= int64(authz.Admin) {
		v.Facts.Team = authz.Permission(team)
	}
	if orgRoles > int64(authz.None) && orgRoles <= int64(authz.Admin) {
		v.Facts.OrgRoles = authz.Permission(orgRoles)
	}
	if r.Owner.IsOrg() {
		v.Facts.OrgDefault, _ = authz.ParsePermission(r.Owner.DefaultRepoPermission)
	}
	return v, nil
}

func splitTopics(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// RepoByName finds a repository by owner login and name (both ignoring
// case) with the viewer's facts.
// Outside a transaction the result is served from the read cache; callers
// get their own copy and may change it.
func (q Q) RepoByName(ctx context.Context, owner, name string, viewerID int64) (*RepoView, error) {
	owner, name = strings.ToLower(owner), strings.ToLower(name)
	type key struct {
		owner, name string
		viewer      int64
	}
	k := key{owner, name, viewerID}
	if q.tx == nil {
		if v, _, ok := q.s.cache.get(k); ok {
			return v.(*RepoView).clone(), nil
		}
	}
	gen := q.s.cache.gen.Load() // before loading: a write meanwhile makes the entry stale
	v, err := scanRepoView(q.row(ctx, repoSelect+` WHERE a.lower_login = ? AND r.lower_name = ?`,
		viewerID, viewerID, owner, name))
	if err != nil {
		return nil, notFound(err)
	}
	if q.tx == nil {
		q.s.cache.put(k, gen, v.clone())
	}
	return v, nil
}

// clone copies a view deeply enough that callers may change it.
func (v *RepoView) clone() *RepoView {
	r := *v.Repo
	owner := *r.Owner
	r.Owner = &owner
	r.Topics = append([]string(nil), r.Topics...)
	if r.PushedAt != nil {
		t := *r.PushedAt
		r.PushedAt = &t
	}
	return &RepoView{Repo: &r, Facts: v.Facts}
}

// RepoByID finds a repository by id with the viewer's facts.
func (q Q) RepoByID(ctx context.Context, id, viewerID int64) (*RepoView, error) {
	v, err := scanRepoView(q.row(ctx, repoSelect+` WHERE r.id = ?`, viewerID, viewerID, id))
	return v, notFound(err)
}

// RepoRedirect finds the repository that used to be called owner/name.
func (q Q) RepoRedirect(ctx context.Context, owner, name string) (int64, error) {
	var id int64
	err := q.row(ctx, `SELECT d.repo_id FROM repo_redirects d JOIN accounts a ON a.id = d.owner_id
 WHERE a.lower_login = ? AND d.lower_name = ?`, strings.ToLower(owner), strings.ToLower(name)).Scan(&id)
	return id, notFound(err)
}

// CreateRepo inserts a repository; ErrDuplicate when its owner already has
// one of that name (ignoring case). A redirect left by an earlier rename
// under that name is removed: the new repository takes the name over.
// Timestamps and the id are set on r; pushed_at starts at creation.
func (q Q) CreateRepo(ctx context.Context, r *model.Repo) error {
	now := q.Now()
	r.CreatedAt, r.UpdatedAt, r.PushedAt = now, now, &now
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	if r.Topics == nil {
		r.Topics = []string{}
	}
	if _, err := q.exec(ctx, `DELETE FROM repo_redirects WHERE owner_id = ? AND lower_name = ?`, r.OwnerID, strings.ToLower(r.Name)); err != nil {
		return err
	}
	id, err := q.insert(ctx, `INSERT INTO repos (owner_id, name, lower_name, description, homepage, visibility,
 default_branch, topics, has_issues, has_projects, has_wiki, has_discussions, has_downloads, is_template, archived,
 disabled, allow_squash_merge, allow_merge_commit, allow_rebase_merge, allow_auto_merge, delete_branch_on_merge,
 allow_update_branch, allow_forking, web_commit_signoff_required, squash_merge_commit_title,
 squash_merge_commit_message, merge_commit_title, merge_commit_message, size, created_at, updated_at, pushed_at,
 parent_id, source_id)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.OwnerID, r.Name, strings.ToLower(r.Name), r.Description, r.Homepage, string(r.Visibility),
		r.DefaultBranch, strings.Join(r.Topics, ","), r.HasIssues, r.HasProjects, r.HasWiki, r.HasDiscussions,
		r.HasDownloads, r.IsTemplate, r.Archived, r.Disabled, r.AllowSquashMerge, r.AllowMergeCommit,
		r.AllowRebaseMerge, r.AllowAutoMerge, r.DeleteBranchOnMerge, r.AllowUpdateBranch, r.AllowForking,
		r.WebCommitSignoffRequired, r.SquashMergeCommitTitle, r.SquashMergeCommitMessage, r.MergeCommitTitle,
		r.MergeCommitMessage, r.Size, unix(now), unix(now), nullUnix(r.PushedAt), nullID(r.ParentID), nullID(r.SourceID))
	if isUnique(err) {
		return ErrDuplicate
	}
	r.ID = id
	return err
}

// UpdateRepo writes every mutable column of r. When the name changed (other
// than in case) from oldName, the old name redirects to the repository from
// then on; ErrDuplicate when the owner already has a repository of the new
// name.
func (q Q) UpdateRepo(ctx context.Context, r *model.Repo, oldName string) error {
	r.UpdatedAt = q.Now()
	if r.Topics == nil {
		r.Topics = []string{}
	}
	res, err := q.exec(ctx, `UPDATE repos SET name=?, lower_name=?, description=?, homepage=?, visibility=?,
 default_branch=?, topics=?, has_issues=?, has_projects=?, has_wiki=?, has_discussions=?, has_downloads=?,
 is_template=?, archived=?, disabled=?, allow_squash_merge=?, allow_merge_commit=?, allow_rebase_merge=?,
 allow_auto_merge=?, delete_branch_on_merge=?, allow_update_branch=?, allow_forking=?,
 web_commit_signoff_required=?, squash_merge_commit_title=?, squash_merge_commit_message=?,
 merge_commit_title=?, merge_commit_message=?, size=?, updated_at=?, pushed_at=? WHERE id=?`,
		r.Name, strings.ToLower(r.Name), r.Description, r.Homepage, string(r.Visibility),
		r.DefaultBranch, strings.Join(r.Topics, ","), r.HasIssues, r.HasProjects, r.HasWiki, r.HasDiscussions,
		r.HasDownloads, r.IsTemplate, r.Archived, r.Disabled, r.AllowSquashMerge, r.AllowMergeCommit,
		r.AllowRebaseMerge, r.AllowAutoMerge, r.DeleteBranchOnMerge, r.AllowUpdateBranch, r.AllowForking,
		r.WebCommitSignoffRequired, r.SquashMergeCommitTitle, r.SquashMergeCommitMessage, r.MergeCommitTitle,
		r.MergeCommitMessage, r.Size, unix(r.UpdatedAt), nullUnix(r.PushedAt), r.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	oldLower, newLower := strings.ToLower(oldName), strings.ToLower(r.Name)
	if oldName == "" || oldLower == newLower {
		return nil
	}
	if _, err := q.exec(ctx, `DELETE FROM repo_redirects WHERE owner_id = ? AND lower_name IN (?, ?)`, r.OwnerID, oldLower, newLower); err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO repo_redirects (owner_id, lower_name, repo_id) VALUES (?,?,?)`, r.OwnerID, oldLower, r.ID)
	return err
}

// DeleteRepo removes a repository; its redirects and collaborators go with
// it (foreign keys cascade), and its forks move up its fork network.
func (q Q) DeleteRepo(ctx context.Context, id int64) error {
	if err := q.detachForks(ctx, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `DELETE FROM repos WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// SetCollaborator gives a user a direct permission (read, triage, write,
// maintain, admin) on a repository, or changes it.
func (q Q) SetCollaborator(ctx context.Context, repoID, userID int64, perm authz.Permission) error {
	return q.SetCollaboratorRole(ctx, repoID, userID, perm, 0)
}

// SetCollaboratorRole is SetCollaborator with a custom repository role
// (roleID, 0 for none): perm is then the role's base level, which checks
// read.
func (q Q) SetCollaboratorRole(ctx context.Context, repoID, userID int64, perm authz.Permission, roleID int64) error {
	_, err := q.exec(ctx, `INSERT INTO repo_collaborators (repo_id, user_id, permission, role_id, created_at) VALUES (?,?,?,?,?)
 ON CONFLICT (repo_id, user_id) DO UPDATE SET permission = excluded.permission, role_id = excluded.role_id`,
		repoID, userID, perm.String(), idOrNil(roleID), unix(q.Now()))
	return err
}

// RepoQuery selects repositories for a list. Every list only holds
// repositories the viewer may see.
type RepoQuery struct {
	Viewer Viewer

	// OwnerID keeps one account's repositories (0: any owner).
	OwnerID int64
	// A repository must match one of these relations; none set admits all.
	OwnedBy, CollaboratorOf int64 // owned by / direct collaborator of this user
	ViewerOwner             bool  // owned by the viewer
	ViewerCollaborator      bool  // the viewer is a direct collaborator
	ViewerOrgMember         bool  // the viewer has access as a member of the owning org
	None                    bool  // admits nothing
	// Forks: ParentID keeps the direct forks of one repository; Forks
	// keeps forks only and Sources repositories that are not forks.
	ParentID       int64
	Forks, Sources bool

	Visibility    string     // "public", "private" (anything not public), or "" for both
	UpdatedAfter  *time.Time // updated_at >= (GitHub's since)
	UpdatedBefore *time.Time // updated_at < (GitHub's before)

	Sort   string // created, updated, pushed, full_name (default)
	Desc   bool
	Limit  int
	Offset int
}

// orgAccess is the condition for access through organization membership; it
// mirrors authz: admins see everything, members what the base permission
// gives them, every internal repository, what their teams were granted and
// what their organization roles give on every repository.
const orgAccess = `(m.role = 'admin' OR (m.role = 'member' AND (a.default_repo_permission <> 'none' OR r.visibility = 'internal' OR ` + teamGrant + ` IS NOT NULL
 OR ` + orgRoleGrant + ` > 0)))`

// listedOrgAccess is orgAccess in queries built on listFrom, which joined the
// viewer's team grants (tg) and organization roles (vr) once instead of
// running teamGrant and orgRoleGrant per row.
const listedOrgAccess = `(m.role = 'admin' OR (m.role = 'member' AND (a.default_repo_permission <> 'none' OR r.visibility = 'internal' OR tg.perm IS NOT NULL
 OR vr.perm > 0)))`

// where is the condition for queries on repoSelect's joins (repository
// search uses it too).
func (f *RepoQuery) where() (string, []any) { return f.whereAccess(orgAccess) }

// whereAccess builds the condition with access (orgAccess or
// listedOrgAccess) as the test of access through the organization.
func (f *RepoQuery) whereAccess(access string) (string, []any) {
	v := f.Viewer
	// The visibility rule of authz.RepoPermission, in SQL.
	conds := []string{`(r.visibility = 'public' OR r.owner_id = ? OR c.permission IS NOT NULL OR ` + access + `)`}
	args := []any{v.UserID}
	var rel []string
	if f.OwnedBy != 0 {
		rel, args = append(rel, `r.owner_id = ?`), append(args, f.OwnedBy)
	}
	if f.CollaboratorOf != 0 {
		rel = append(rel, `EXISTS (SELECT 1 FROM repo_collaborators c2 WHERE c2.repo_id = r.id AND c2.user_id = ?)`)
		args = append(args, f.CollaboratorOf)
	}
	if f.ViewerOwner {
		rel, args = append(rel, `r.owner_id = ?`), append(args, v.UserID)
	}
	if f.ViewerCollaborator {
		rel = append(rel, `c.permission IS NOT NULL`)
	}
	if f.ViewerOrgMember {
		rel = append(rel, access)
	}
	if len(rel) > 0 {
		conds = append(conds, "("+strings.Join(rel, " OR ")+")")
	}
	more, moreArgs := f.filters()
	return " WHERE " + strings.Join(append(conds, more...), " AND "), append(args, moreArgs...)
}

// filters are the conditions of f other than access and relations, on r
// alone.
func (f *RepoQuery) filters() ([]string, []any) {
	var conds []string
	var args []any
	if f.Viewer.PublicOnly {
		conds = append(conds, `r.visibility = 'public'`)
	}
	if f.Viewer.RepoIDs != nil {
		in := "r.visibility = 'public'"
		if len(f.Viewer.RepoIDs) > 0 {
			in += " OR r.id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(f.Viewer.RepoIDs)), ",") + ")"
			for _, id := range f.Viewer.RepoIDs {
				args = append(args, id)
			}
		}
		if len(f.Viewer.OwnerIDs) > 0 {
			in += " OR r.owner_id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(f.Viewer.OwnerIDs)), ",") + ")"
			for _, id := range f.Viewer.OwnerIDs {
				args = append(args, id)
			}
		}
		conds = append(conds, "("+in+")")
	}
	if f.Viewer.OnlyOwnerID != 0 {
		conds, args = append(conds, `(r.visibility = 'public' OR r.owner_id = ?)`), append(args, f.Viewer.OnlyOwnerID)
	}
	if f.None {
		conds = append(conds, "1 = 0")
	}
	if f.OwnerID != 0 {
		conds, args = append(conds, `r.owner_id = ?`), append(args, f.OwnerID)
	}
	if f.ParentID != 0 {
		conds, args = append(conds, `r.parent_id = ?`), append(args, f.ParentID)
	}
	if f.Forks {
		conds = append(conds, `r.parent_id IS NOT NULL`)
	}
	if f.Sources {
		conds = append(conds, `r.parent_id IS NULL`)
	}
	switch f.Visibility {
	case "public":
		conds = append(conds, `r.visibility = 'public'`)
	case "private":
		conds = append(conds, `r.visibility <> 'public'`)
	}
	if f.UpdatedAfter != nil {
		conds, args = append(conds, `r.updated_at >= ?`), append(args, unix(*f.UpdatedAfter))
	}
	if f.UpdatedBefore != nil {
		conds, args = append(conds, `r.updated_at < ?`), append(args, unix(*f.UpdatedBefore))
	}
	return conds, args
}

// byRelation reports whether f selects repositories by the viewer's own
// relations to them alone (GET /user/repos, GET /issues): its rows are then
// the viewer's accessible set, which RepoQuery.accessible names through
// indexes, instead of every candidate tested against the access rule.
func (f *RepoQuery) byRelation() bool {
	return f.OwnedBy == 0 && f.CollaboratorOf == 0 && (f.ViewerOwner || f.ViewerCollaborator || f.ViewerOrgMember)
}

// accessible is the CTE acc(id) of the repositories f's relations give the
// viewer (after viewerCTEs): those they own, those they are a direct
// collaborator of, and through an organization they are an active member
// of: all its repositories for an owner, a member given a base permission
// or an organization role with one (orgAccess's rule), its internal ones
// for any member, and those granted to one of their teams or an ancestor.
// Every branch implies the visibility rule, so the list needs no other
// access test.
func (f *RepoQuery) accessible() (string, []any) {
	v := f.Viewer.UserID
	var parts []string
	var args []any
	if f.ViewerOwner {
		parts, args = append(parts, `SELECT r0.id FROM repos r0 WHERE r0.owner_id = ?`), append(args, v)
	}
	if f.ViewerCollaborator {
		parts, args = append(parts, `SELECT c0.repo_id FROM repo_collaborators c0 WHERE c0.user_id = ?`), append(args, v)
	}
	if f.ViewerOrgMember {
		// "+r0.owner_id" keeps SQLite from reading every repository of the
		// organization to find its internal ones: the visibility index
		// answers them.
		parts = append(parts, `SELECT r0.id FROM vm JOIN repos r0 ON r0.owner_id = vm.org_id
 WHERE vm.role = 'admin' OR (vm.role = 'member' AND (vm.dp <> 'none' OR vm.org_id IN (SELECT org_id FROM vr WHERE perm > 0)))`,
			`SELECT r0.id FROM repos r0 WHERE r0.visibility = 'internal' AND +r0.owner_id IN (SELECT org_id FROM vm WHERE role = 'member')`,
			`SELECT tr.repo_id FROM vt JOIN team_repos tr ON tr.team_id = vt.id JOIN repos r0 ON r0.id = tr.repo_id
 JOIN vm ON vm.org_id = r0.owner_id WHERE vm.role = 'member'`)
	}
	return `,
 acc(id) AS (` + strings.Join(parts, "\n UNION ") + `)`, args
}

// selection is the common part of f's queries: the CTEs (after
// viewerCTEs), the FROM of the candidate rows (r, with their owner a) and
// the condition, with the arguments of each.
func (f *RepoQuery) selection() (ctes string, cteArgs []any, from string, fromArgs []any, where string, args []any) {
	v := f.Viewer.UserID
	if f.byRelation() {
		ctes, cteArgs = f.accessible()
		conds, args := f.filters()
		if len(conds) > 0 {
			where = " WHERE " + strings.Join(conds, " AND ")
		}
		return ctes, cteArgs, accessibleFrom, nil, where, args
	}
	where, args = f.whereAccess(listedOrgAccess)
	return teamGrants, nil, listFrom, []any{v, v}, where, args
}

// Subquery is the ids of the repositories f selects, as a subquery for
// lists across repositories (the issues of those repositories), and its
// arguments.
func (f *RepoQuery) Subquery() (string, []any) {
	ctes, cteArgs, from, fromArgs, where, args := f.selection()
	if from == accessibleFrom {
		from = ` FROM acc JOIN repos r ON r.id = acc.id` // no order: the owner is not needed
	}
	v := f.Viewer.UserID
	all := append(append(append([]any{v, v, v}, cteArgs...), fromArgs...), args...)
	return viewerCTEs + ctes + `
SELECT r.id` + from + where, all
}

func (f *RepoQuery) order() string {
	keys, dir := f.orderKeys()
	return " ORDER BY " + keys[0] + dir + ", " + keys[1] + dir
}

// orderKeys are the two expressions a list is sorted by (the second breaks
// ties) and the direction.
func (f *RepoQuery) orderKeys() ([2]string, string) {
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	switch f.Sort {
	case "created":
		return [2]string{"r.created_at", "r.id"}, dir
	case "updated":
		return [2]string{"r.updated_at", "r.id"}, dir
	case "pushed":
		return [2]string{"COALESCE(r.pushed_at, 0)", "r.id"}, dir
	}
	return [2]string{"a.lower_login", "r.lower_name"}, dir
}

// ListRepos returns one page of the repositories f selects, with their
// owners and the viewer's facts, and the total count for the Link header.
//
// One query finds the page's ids (page) from narrow rows, ordered and
// counted, then loads those rows alone in full with the viewer's facts:
// sorting and counting thousands of full rows, each with its forks count,
// cost most of the time before. A list of the viewer's own relations
// starts from their accessible set (RepoQuery.accessible), other lists
// test each candidate as RepoByName's facts would.
func (q Q) ListRepos(ctx context.Context, f RepoQuery) ([]*RepoView, int, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 30
	}
	v := f.Viewer.UserID
	ctes, cteArgs, from, fromArgs, where, args := f.selection()
	head := append(append([]any{v, v, v}, cteArgs...), fromArgs...)
	// Served from the read cache outside transactions, like RepoByName: the
	// key is the query itself (text and arguments).
	type key struct{ query, args string }
	k := key{ctes + from + where + f.order(), fmt.Sprint(append(append(head, args...), limit, f.Offset)...)}
	type page struct {
		list  []*RepoView
		total int
	}
	if q.tx == nil {
		if v, _, ok := q.s.cache.get(k); ok {
			p := v.(page)
			return cloneViews(p.list), p.total, nil
		}
	}
	gen := q.s.cache.gen.Load() // before loading: a write meanwhile makes the entry stale
	all := append(append(append(head, args...), limit, f.Offset), v, v)
	// PostgreSQL counts in the page query (the sort reads every row
	// anyway). SQLite reads a page in full-name order straight from the
	// indexes and stops after it, so there the count on its own costs less
	// (measured: bench/permbench); a list of the viewer's accessible set is
	// sorted whole on both, and counted along.
	counted := q.s.pg || f.byRelation()
	pageCTE := ` page AS (SELECT r.id AS id` + from + where + f.order() + ` LIMIT ? OFFSET ?)`
	if counted {
		// The rows are counted and sorted above a subquery that reads
		// them all: with the ORDER BY and LIMIT on the same level as the
		// count, PostgreSQL prices a small page as a walk in index order
		// that stops early (which a count never does) and for a page of
		// one ran a nested loop of owners by candidates for seconds.
		keys, dir := f.orderKeys()
		pageCTE = ` page AS (SELECT x.id, x.total FROM (SELECT r.id AS id, ` + keys[0] + ` AS o1, ` + keys[1] + ` AS o2,
 COUNT(*) OVER () AS total` + from + where + `) x ORDER BY x.o1` + dir + `, x.o2` + dir + ` LIMIT ? OFFSET ?)`
	}
	query := viewerCTEs + ctes + `,
` + pageCTE + `
` + pageSelect
	if counted {
		query += `, page.total`
	}
	query += pageFrom + f.order()
	load := func() (any, error) {
		var p page
		var err error
		if counted {
			p.list, p.total, err = q.countedViews(ctx, query, all...)
		} else {
			p.list, err = q.repoViews(ctx, query, all...)
		}
		if err != nil {
			return nil, err
		}
		if !counted || len(p.list) == 0 {
			// A page past the end carries no total either.
			if err := q.row(ctx, viewerCTEs+ctes+`
SELECT COUNT(*)`+from+where, append(head, args...)...).Scan(&p.total); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	if q.tx != nil {
		p, err := load()
		if err != nil {
			return nil, 0, err
		}
		return p.(page).list, p.(page).total, nil
	}
	// Concurrent requests for the same page (an expired entry under load)
	// share one load. The loader keeps what it loaded; the cache and the
	// callers that waited get a copy they only copy from.
	var mine page
	got, shared, err := listFlights.do(q.s, k, gen, func() (any, error) {
		p, err := load()
		if err != nil {
			return nil, err
		}
		mine = p.(page)
		kept := page{cloneViews(mine.list), mine.total}
		q.s.cache.put(k, gen, kept)
		return kept, nil
	})
	if err != nil {
		return nil, 0, err
	}
	if shared {
		p := got.(page)
		return cloneViews(p.list), p.total, nil
	}
	return mine.list, mine.total, nil
}

// countedViews is repoViews for a query whose last column is the total.
func (q Q) countedViews(ctx context.Context, query string, args ...any) ([]*RepoView, int, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*RepoView
	var total int
	for rows.Next() {
		v, err := scanRepoView(expand{sc: rows, post: []any{&total}})
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, rows.Err()
}

func cloneViews(list []*RepoView) []*RepoView {
	out := make([]*RepoView, len(list))
	for i, v := range list {
		out[i] = v.clone()
	}
	return out
}

// PublicReposSince lists public repositories with id > since in id order
// (GET /repositories).
func (q Q) PublicReposSince(ctx context.Context, since int64, limit int) ([]*RepoView, error) {
	return q.repoViews(ctx, repoSelect+` WHERE r.visibility = 'public' AND r.id > ? ORDER BY r.id LIMIT ?`, 0, 0, since, limit)
}

func (q Q) repoViews(ctx context.Context, query string, args ...any) ([]*RepoView, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*RepoView
	for rows.Next() {
		v, err := scanRepoView(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// MarkPushed records a push: pushed_at (and updated_at) move to now, and the
// default branch is set when the push gave an empty repository its first
// branch (defaultBranch "" keeps it).
func (q Q) MarkPushed(ctx context.Context, repoID int64, defaultBranch string) error {
	now := unix(q.Now())
	var err error
	if defaultBranch != "" {
		_, err = q.exec(ctx, `UPDATE repos SET pushed_at = ?, updated_at = ?, default_branch = ? WHERE id = ?`, now, now, defaultBranch, repoID)
	} else {
		_, err = q.exec(ctx, `UPDATE repos SET pushed_at = ?, updated_at = ? WHERE id = ?`, now, now, repoID)
	}
	return err
}
