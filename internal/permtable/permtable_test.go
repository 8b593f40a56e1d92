// Package permtable_test is the permission table: for each way a user can
// get access to a repository (ownership, organization ownership, the
// organization's base permission, a team grant, a grant on a parent team, a
// direct grant, an outside collaborator's invitation) and each way of having
// none (a pending invitation, a block, no relation at all), it drives real
// HTTP through go-github and a real git push over smart HTTP as that user,
// and compares every answer with what GitHub's documented repository roles
// allow ("Repository roles for an organization": read, triage, write,
// maintain, admin).
//
// The expectations are two tables: rows says which role each source of
// access gives; abilities says what each role may do, from GitHub's table
// of repository actions per role. Nothing is read back from hubd's own
// permission code.
package permtable_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/model"
)

// pushResult is how a git push of a new branch ends.
type pushResult string

const (
	pushed   pushResult = "pushed"    // accepted, the branch exists
	denied   pushResult = "denied"    // HTTP 403: the user sees the repository but may not write
	notFound pushResult = "not found" // HTTP 404: the repository is hidden from the user
)

// ability is what a role may do, as the answer each probe gets.
type ability struct {
	get    int        // GET /repos/{owner}/{repo}: "Pull from the ... assigned repositories" (read)
	issue  int        // POST /repos/{owner}/{repo}/issues: "Open issues" (read)
	label  int        // POST .../issues/1/labels: "Apply/dismiss labels" (triage)
	push   pushResult // git push: "Push to (write) the ... assigned repositories" (write)
	invite int        // PUT .../collaborators/{user}: "Manage individual, team, and outside collaborator access to the repository" (admin)
}

// abilities is GitHub's table of repository actions per role, reduced to
// the probes above. A hidden repository answers 404 to everything; a
// visible one answers 403 to what the role may not do.
var abilities = map[string]ability{
	"none":     {get: 404, issue: 404, label: 404, push: notFound, invite: 404},
	"read":     {get: 200, issue: 201, label: 403, push: denied, invite: 403},
	"triage":   {get: 200, issue: 201, label: 200, push: denied, invite: 403},
	"write":    {get: 200, issue: 201, label: 200, push: pushed, invite: 403},
	"maintain": {get: 200, issue: 201, label: 200, push: pushed, invite: 403},
	"admin":    {get: 200, issue: 201, label: 200, push: pushed, invite: 201},
}

// levels orders the roles; the permissions key of a repository holds every
// level up to the role (admin implies maintain, push, triage and pull).
var levels = []string{"none", "read", "triage", "write", "maintain", "admin"}

func rank(role string) int {
	for i, l := range levels {
		if l == role {
			return i
		}
	}
	panic("unknown role " + role)
}

// legacy is the permission key of GET .../collaborators/{user}/permission:
// GitHub reports maintain as write and triage as read there, and the exact
// role in role_name.
func legacy(role string) string {
	switch role {
	case "maintain":
		return "write"
	case "triage":
		return "read"
	}
	return role
}

// row is one source of access: grant gives u that access to repo, and
// role is the role GitHub documents for it.
type row struct {
	name  string
	repo  string // owner/name
	role  string
	grant func(t *testing.T, w *world, u *person)
	// customRole: the access comes from a custom repository role named
	// "custom-<login>", which role_name reports.
	customRole bool
	// issue, when set, is the answer to opening an issue instead of the
	// role's: a user blocked by the owner keeps reading a public repository
	// but may not take part in it.
	issue int
}

const core = "octo/core"

// member makes u an active member of octo (base permission none).
func member(t *testing.T, w *world, u *person) { w.member(t, "octo", u, model.RoleMember) }

// teamRow is a member of octo in a team granted perm on octo/core.
func teamRow(perm, role string) row {
	return row{name: "team grant " + perm, repo: core, role: role, grant: func(t *testing.T, w *world, u *person) {
		member(t, w, u)
		w.join(t, "octo", w.team(t, "octo", "t-"+u.login(), "", perm, core), u, "active")
	}}
}

// directRow is a member of octo granted perm on octo/core directly.
func directRow(perm, role string) row {
	return row{name: "direct collaborator " + perm, repo: core, role: role, grant: func(t *testing.T, w *world, u *person) {
		member(t, w, u)
		w.grant(t, core, u, perm)
	}}
}

// baseRow is a member of an organization whose base permission is base.
func baseRow(base, role string) row {
	org := "octo-" + base
	if base == "none" {
		org = "octo"
	}
	return row{name: "org member, base " + base, repo: org + "/core", role: role, grant: func(t *testing.T, w *world, u *person) {
		w.member(t, org, u, model.RoleMember)
	}}
}

// orgRoleRow is a member of octo holding a predefined organization role.
func orgRoleRow(name string, id int64, role string) row {
	return row{name: "org role " + name, repo: core, role: role, grant: func(t *testing.T, w *world, u *person) {
		member(t, w, u)
		if resp, err := w.olga.gh.Organizations.AssignOrgRoleToUser(ctx, "octo", u.login(), id); err != nil || status(resp) != 204 {
			t.Fatalf("assign %s to %s: %v", name, u.login(), err)
		}
	}}
}

// customRoleRow is a member of octo granted a custom repository role with
// base role base on octo/core, directly ("collaborator") or through a team.
func customRoleRow(via, base, role string) row {
	return row{name: "custom repository role (base " + base + ") as a " + via + " grant", repo: core, role: role, customRole: true, grant: func(t *testing.T, w *world, u *person) {
		member(t, w, u)
		name := "custom-" + u.login()
		if _, resp, err := w.olga.gh.Organizations.CreateCustomRepoRole(ctx, "octo", github.CreateCustomRepoRoleRequest{
			Name: name, BaseRole: base, Permissions: []string{}}); err != nil || status(resp) != 201 {
			t.Fatalf("create custom role %s: %v", name, err)
		}
		if via == "team" {
			w.join(t, "octo", w.team(t, "octo", "cr-"+u.login(), "", name, core), u, "active")
			return
		}
		w.grant(t, core, u, name)
	}}
}

var rows = []row{
	// A private organization repository.
	{name: "org owner", repo: core, role: "admin", grant: func(t *testing.T, w *world, u *person) {
		w.member(t, "octo", u, model.RoleAdmin)
	}},
	baseRow("none", "none"), baseRow("read", "read"), baseRow("write", "write"), baseRow("admin", "admin"),
	teamRow("pull", "read"), teamRow("triage", "triage"), teamRow("push", "write"), teamRow("maintain", "maintain"),
	teamRow("admin", "admin"),
	{name: "nested team: grant on the parent, member of the child", repo: core, role: "write", grant: func(t *testing.T, w *world, u *person) {
		member(t, w, u)
		parent := w.team(t, "octo", "p-"+u.login(), "", "push", core)
		w.join(t, "octo", w.team(t, "octo", "c-"+u.login(), parent, ""), u, "active")
	}},
	{name: "nested team: grant on the grandparent, member of the grandchild", repo: core, role: "maintain", grant: func(t *testing.T, w *world, u *person) {
		member(t, w, u)
		top := w.team(t, "octo", "g-"+u.login(), "", "maintain", core)
		mid := w.team(t, "octo", "p-"+u.login(), top, "")
		w.join(t, "octo", w.team(t, "octo", "c-"+u.login(), mid, ""), u, "active")
	}},
	{name: "team grant while the organization invitation is pending", repo: core, role: "none", grant: func(t *testing.T, w *world, u *person) {
		// Adding a non-member to a team invites them to the organization;
		// the team's access starts when they accept.
		w.join(t, "octo", w.team(t, "octo", "t-"+u.login(), "", "push", core), u, "pending")
	}},
	{name: "highest of base read, team triage and direct maintain", repo: "octo-read/core", role: "maintain", grant: func(t *testing.T, w *world, u *person) {
		w.member(t, "octo-read", u, model.RoleMember)
		w.join(t, "octo-read", w.team(t, "octo-read", "t-"+u.login(), "", "triage", "octo-read/core"), u, "active")
		w.grant(t, "octo-read/core", u, "maintain")
	}},
	directRow("pull", "read"), directRow("triage", "triage"), directRow("push", "write"), directRow("maintain", "maintain"),
	directRow("admin", "admin"),
	{name: "outside collaborator (push)", repo: core, role: "write", grant: func(t *testing.T, w *world, u *person) {
		w.accept(t, u, w.invite(t, core, u, "push"))
	}},
	{name: "outside collaborator (triage)", repo: core, role: "triage", grant: func(t *testing.T, w *world, u *person) {
		w.accept(t, u, w.invite(t, core, u, "triage"))
	}},
	{name: "invited, not yet accepted", repo: core, role: "none", grant: func(t *testing.T, w *world, u *person) {
		w.invite(t, core, u, "admin")
	}},
	{name: "outside collaborator blocked by the org", repo: core, role: "none", grant: func(t *testing.T, w *world, u *person) {
		w.accept(t, u, w.invite(t, core, u, "push"))
		if resp, err := w.olga.gh.Organizations.BlockUser(ctx, "octo", u.login()); err != nil || status(resp) != 204 {
			t.Fatalf("block: %v", err)
		}
	}},
	{name: "stranger", repo: core, role: "none", grant: func(*testing.T, *world, *person) {}},

	// Organization roles: a role's base role reaches every repository of
	// the organization, for its holders and the members of teams (and
	// child teams) it is assigned to. GitHub's ids of the predefined roles.
	orgRoleRow("all_repo_read", 8132, "read"), orgRoleRow("all_repo_triage", 8133, "triage"),
	orgRoleRow("all_repo_write", 8134, "write"), orgRoleRow("all_repo_maintain", 8135, "maintain"),
	orgRoleRow("all_repo_admin", 8136, "admin"),
	{name: "org role all_repo_write assigned to the parent team of the user's team", repo: core, role: "write", grant: func(t *testing.T, w *world, u *person) {
		member(t, w, u)
		parent := w.team(t, "octo", "rp-"+u.login(), "", "")
		w.join(t, "octo", w.team(t, "octo", "rc-"+u.login(), parent, ""), u, "active")
		if resp, err := w.olga.gh.Organizations.AssignOrgRoleToTeam(ctx, "octo", parent, 8134); err != nil || status(resp) != 204 {
			t.Fatalf("assign all_repo_write to team %s: %v", parent, err)
		}
	}},
	// Custom repository roles act as their base role (the permissions they
	// add are recorded, not enforced: a catalogue note says so).
	customRoleRow("collaborator", "triage", "triage"),
	customRoleRow("team", "write", "write"),

	// Enterprise teams: assigned to an organization, a team makes its
	// members members of it and is a team there (slug ent:...) the
	// organization grants repositories to; unassigning it, or taking the
	// user out of it, takes both away, but not a membership the
	// organization gave directly.
	{name: "enterprise team assigned to the organization (base read)", repo: "octo-read/core", role: "read", grant: func(t *testing.T, w *world, u *person) {
		w.assign(t, w.enterpriseTeam(t, u), "octo-read")
	}},
	{name: "enterprise team assigned to the organization, its team granted push", repo: core, role: "write", grant: func(t *testing.T, w *world, u *person) {
		w.grantTeam(t, "octo", w.assign(t, w.enterpriseTeam(t, u), "octo"), core, "push")
	}},
	{name: "enterprise team granted maintain, then unassigned", repo: core, role: "none", grant: func(t *testing.T, w *world, u *person) {
		slug := w.enterpriseTeam(t, u)
		w.grantTeam(t, "octo", w.assign(t, slug, "octo"), core, "maintain")
		w.unassign(t, slug, "octo")
	}},
	{name: "enterprise team granted push, then the user left it", repo: core, role: "none", grant: func(t *testing.T, w *world, u *person) {
		slug := w.enterpriseTeam(t, u)
		w.grantTeam(t, "octo", w.assign(t, slug, "octo"), core, "push")
		w.e.Must(204, "DELETE", "/enterprises/hubd/teams/"+slug+"/memberships/"+u.login(), w.ent, nil)
	}},
	{name: "direct member, an enterprise team assigned and unassigned", repo: "octo-write/core", role: "write", grant: func(t *testing.T, w *world, u *person) {
		w.member(t, "octo-write", u, model.RoleMember)
		slug := w.enterpriseTeam(t, u)
		w.assign(t, slug, "octo-write")
		w.unassign(t, slug, "octo-write")
	}},

	// A private user-owned repository: the owner and collaborators only.
	// GitHub's article on personal repositories names one collaborator
	// level, but its API takes pull, push (the default) and admin there and
	// enforces them (github/docs#45537, rest-api-description#7010; triage
	// and maintain answer 422).
	{name: "repository owner", repo: "mona/diary", role: "admin", grant: nil},
	{name: "collaborator on a personal repository", repo: "mona/diary", role: "write", grant: func(t *testing.T, w *world, u *person) {
		w.accept(t, u, w.invite(t, "mona/diary", u, ""))
	}},
	{name: "collaborator on a personal repository (pull)", repo: "mona/diary", role: "read", grant: func(t *testing.T, w *world, u *person) {
		w.accept(t, u, w.invite(t, "mona/diary", u, "pull"))
	}},
	{name: "collaborator on a personal repository (admin)", repo: "mona/diary", role: "admin", grant: func(t *testing.T, w *world, u *person) {
		w.accept(t, u, w.invite(t, "mona/diary", u, "admin"))
	}},
	{name: "collaborator blocked by the owner", repo: "mona/diary", role: "none", grant: func(t *testing.T, w *world, u *person) {
		w.accept(t, u, w.invite(t, "mona/diary", u, ""))
		if resp, err := w.mona.gh.Users.BlockUser(ctx, u.login()); err != nil || status(resp) != 204 {
			t.Fatalf("block: %v", err)
		}
	}},
	{name: "stranger", repo: "mona/diary", role: "none", grant: func(*testing.T, *world, *person) {}},

	// Public repositories: everyone reads; a block keeps the user out of
	// the conversation, not out of the code.
	{name: "stranger", repo: "octo/plaza", role: "read", grant: func(*testing.T, *world, *person) {}},
	{name: "blocked by the org", repo: "octo/plaza", role: "read", issue: 422, grant: func(t *testing.T, w *world, u *person) {
		if resp, err := w.olga.gh.Organizations.BlockUser(ctx, "octo", u.login()); err != nil || status(resp) != 204 {
			t.Fatalf("block: %v", err)
		}
	}},
	{name: "org member, base none", repo: "octo/plaza", role: "read", grant: member},
	{name: "stranger", repo: "mona/square", role: "read", grant: func(*testing.T, *world, *person) {}},
	{name: "blocked by the owner", repo: "mona/square", role: "read", issue: 422, grant: func(t *testing.T, w *world, u *person) {
		if resp, err := w.mona.gh.Users.BlockUser(ctx, u.login()); err != nil || status(resp) != 204 {
			t.Fatalf("block: %v", err)
		}
	}},
}

func TestPermissionTable(t *testing.T) {
	w := newWorld(t)
	for i, r := range rows {
		t.Run(r.repo+"/"+r.name, func(t *testing.T) {
			want, ok := abilities[r.role]
			if !ok {
				t.Fatalf("no abilities for role %q", r.role)
			}
			if r.issue != 0 {
				want.issue = r.issue
			}
			owner, _, _ := strings.Cut(r.repo, "/")
			u := w.admin(owner)
			if r.grant != nil {
				u = w.person(t, fmt.Sprintf("row%d", i))
				r.grant(t, w, u)
			}
			probe(t, w, r, u, want)
		})
	}
}

// probe runs every check of one row as u.
func probe(t *testing.T, w *world, r row, u *person, want ability) {
	owner, name, _ := strings.Cut(r.repo, "/")
	admin := w.admin(owner)
	private := true

	// Read: the repository, its permissions key, and the permission endpoint
	// asked by the repository's administrator, all agreeing with the role.
	repo, resp, _ := u.gh.Repositories.Get(ctx, owner, name)
	if status(resp) != want.get {
		t.Errorf("GET /repos/%s: %d, want %d", r.repo, status(resp), want.get)
	}
	if status(resp) == 200 {
		private = repo.GetPrivate()
		checkPermissions(t, "GET /repos/"+r.repo, repo.GetPermissions(), r.role)
	}
	lvl, resp, err := admin.gh.Repositories.GetPermissionLevel(ctx, owner, name, u.login())
	if err != nil {
		t.Errorf("permission endpoint: %d %v", status(resp), err)
	} else {
		if lvl.GetPermission() != legacy(r.role) {
			t.Errorf("permission endpoint: permission %q, want %q", lvl.GetPermission(), legacy(r.role))
		}
		wantName := r.role
		if r.customRole {
			// role_name names the custom role that gives the level.
			wantName = "custom-" + u.login()
		}
		if r.role != "none" && lvl.GetRoleName() != wantName {
			t.Errorf("permission endpoint: role_name %q, want %q", lvl.GetRoleName(), wantName)
		}
	}

	// The caller's own repository list shows a private repository exactly
	// when the role reads it, with the same permissions key.
	if private {
		listed := listedRepo(t, u, r.repo)
		switch {
		case (listed != nil) != (rank(r.role) >= rank("read")):
			t.Errorf("GET /user/repos lists %s: %v, role %s", r.repo, listed != nil, r.role)
		case listed != nil:
			checkPermissions(t, "GET /user/repos", listed.GetPermissions(), r.role)
		}
	}

	// Open an issue (read), label issue #1 (triage).
	issue, resp, _ := u.gh.Issues.Create(ctx, owner, name, github.CreateIssueRequest{Title: "opened by " + u.login()})
	if status(resp) != want.issue {
		t.Errorf("open an issue: %d, want %d", status(resp), want.issue)
	} else if want.issue == 201 && issue.GetUser().GetLogin() != u.login() {
		t.Errorf("issue opened by %q", issue.GetUser().GetLogin())
	}
	labels, resp, _ := u.gh.Issues.AddLabelsToIssue(ctx, owner, name, 1, []string{"bug"})
	if status(resp) != want.label {
		t.Errorf("label issue #1: %d, want %d", status(resp), want.label)
	} else if want.label == 200 && (len(labels) == 0 || labels[0].GetName() != "bug") {
		t.Errorf("labels after adding: %v", labels)
	}

	// Push a new branch over smart HTTP with the user's token.
	branch := "perm-" + u.login()
	out, err := git(t, w.src, "push", w.remote(r.repo, u), "HEAD:refs/heads/"+branch)
	got := pushed
	switch {
	case err == nil:
	case strings.Contains(out, "403"):
		got = denied
	case strings.Contains(out, "not found"):
		got = notFound
	default:
		t.Fatalf("git push: %v\n%s", err, out)
	}
	if got != want.push {
		t.Errorf("git push: %s, want %s\n%s", got, want.push, out)
	}
	_, resp, _ = admin.gh.Repositories.GetBranch(ctx, owner, name, branch, 0)
	if exists := status(resp) == 200; exists != (want.push == pushed) {
		t.Errorf("branch %s exists after the push: %v (status %d)", branch, exists, status(resp))
	}

	// An administrator's operation: invite someone.
	invitee := w.person(t, "inv-"+u.login()+"-"+strings.ReplaceAll(r.repo, "/", "-"))
	inv, resp, _ := u.gh.Repositories.AddCollaborator(ctx, owner, name, invitee.login(), nil)
	if status(resp) != want.invite {
		t.Errorf("invite a collaborator: %d, want %d", status(resp), want.invite)
	} else if want.invite == 201 && inv.GetInvitee().GetLogin() != invitee.login() {
		t.Errorf("invitation %+v", inv)
	}
}

// checkPermissions compares a repository's permissions key with the role.
func checkPermissions(t *testing.T, where string, p *github.RepositoryPermissions, role string) {
	t.Helper()
	if p == nil {
		t.Errorf("%s: no permissions key", where)
		return
	}
	got := map[string]bool{"pull": p.GetPull(), "triage": p.GetTriage(), "push": p.GetPush(), "maintain": p.GetMaintain(), "admin": p.GetAdmin()}
	want := map[string]bool{
		"pull": rank(role) >= rank("read"), "triage": rank(role) >= rank("triage"), "push": rank(role) >= rank("write"),
		"maintain": rank(role) >= rank("maintain"), "admin": rank(role) >= rank("admin"),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: permissions %v, want %v (role %s)", where, got, want, role)
	}
}

// listedRepo finds full in u's GET /user/repos (nil when absent).
func listedRepo(t *testing.T, u *person, full string) *github.Repository {
	t.Helper()
	opts := &github.RepositoryListByAuthenticatedUserOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		list, resp, err := u.gh.Repositories.ListByAuthenticatedUser(ctx, opts)
		if err != nil {
			t.Fatalf("GET /user/repos: %v", err)
		}
		for _, r := range list {
			if strings.EqualFold(r.GetFullName(), full) {
				return r
			}
		}
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}
