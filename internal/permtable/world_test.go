package permtable_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// person is a user with a classic token carrying every scope, and a
// go-github client for it.
type person struct {
	acct *model.Account
	tok  string
	gh   *github.Client
}

func (p *person) login() string { return p.acct.Login }

// world is one hubd holding every repository of the table:
//
//   - the organization octo (base permission none) with the private
//     octo/core and the public octo/plaza;
//   - octo-read, octo-write and octo-admin (base permissions read, write and
//     admin), each with a private core;
//   - the user mona with the private mona/diary and the public mona/square.
//
// olga owns every organization and created their repositories (so her
// access is ownership of the organization, not a grant). Every repository
// was auto-initialised and has issue #1, opened by its owner side.
type world struct {
	e    *apitest.Env
	olga *person
	mona *person
	orgs map[string]*model.Account
	ent  string // a site administrator's token with admin:enterprise (hubd's enterprise owners)
	src  string // a local git repository with one commit, pushed by the rows
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	w := &world{e: e, orgs: map[string]*model.Account{}}
	w.olga = w.person(t, "olga")
	w.ent = e.Token(e.Admin, "admin:enterprise")
	w.mona = w.person(t, "mona")
	for login, base := range map[string]string{"octo": "none", "octo-read": "read", "octo-write": "write", "octo-admin": "admin"} {
		org := store.NewOrg(login)
		org.DefaultRepoPermission = base
		if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, org, w.olga.acct.ID) }); err != nil {
			t.Fatal(err)
		}
		w.orgs[login] = org
	}
	for _, r := range []struct {
		by          *person
		owner, name string
		private     bool
	}{
		{w.olga, "octo", "core", true}, {w.olga, "octo", "plaza", false},
		{w.olga, "octo-read", "core", true}, {w.olga, "octo-write", "core", true}, {w.olga, "octo-admin", "core", true},
		{w.mona, "", "diary", true}, {w.mona, "", "square", false},
	} {
		if _, _, err := r.by.gh.Repositories.Create(ctx, r.owner, &github.Repository{Name: github.Ptr(r.name),
			Private: github.Ptr(r.private), AutoInit: github.Ptr(true)}); err != nil {
			t.Fatalf("create %s/%s: %v", r.owner, r.name, err)
		}
		owner := r.owner
		if owner == "" {
			owner = r.by.login()
		}
		if _, _, err := r.by.gh.Issues.Create(ctx, owner, r.name, github.CreateIssueRequest{Title: "the first issue"}); err != nil {
			t.Fatalf("issue in %s/%s: %v", owner, r.name, err)
		}
	}
	w.src = t.TempDir()
	mustGit(t, w.src, "init", "-q")
	if err := os.WriteFile(filepath.Join(w.src, "row.txt"), []byte("pushed by a row of the permission table\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, w.src, "add", "row.txt")
	mustGit(t, w.src, "commit", "-q", "-m", "a commit to push")
	return w
}

// person makes a user.
func (w *world) person(t *testing.T, login string) *person {
	t.Helper()
	u, tok := w.e.NewUser(login, false)
	return &person{acct: u, tok: tok, gh: w.e.GitHub(tok)}
}

// admin is who administers a repository (olga for the organizations', mona
// for hers): the caller of the permission endpoint and the branch check.
func (w *world) admin(owner string) *person {
	if owner == w.mona.login() {
		return w.mona
	}
	return w.olga
}

// member makes u an active member of org with a role.
func (w *world) member(t *testing.T, org string, u *person, role model.OrgRole) {
	t.Helper()
	err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.SetMembership(ctx, &model.Membership{OrgID: w.orgs[org].ID, UserID: u.acct.ID, Role: role, State: store.StateActive})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// team makes a closed team of org (a child of parent unless parent is "")
// granted perm on repos ("" perm: no grant) and returns its slug.
func (w *world) team(t *testing.T, org, name, parent, perm string, repos ...string) string {
	t.Helper()
	req := github.CreateTeamRequest{Name: name, Privacy: github.Ptr("closed")}
	if parent != "" {
		req.ParentTeamSlug = github.Ptr(parent)
	}
	team, _, err := w.olga.gh.Teams.CreateTeam(ctx, org, req)
	if err != nil {
		t.Fatalf("create team %s: %v", name, err)
	}
	for _, full := range repos {
		owner, repo, _ := strings.Cut(full, "/")
		resp, err := w.olga.gh.Teams.AddTeamRepoBySlug(ctx, org, team.GetSlug(), owner, repo, &github.TeamAddTeamRepoOptions{Permission: perm})
		if err != nil || resp.StatusCode != 204 {
			t.Fatalf("grant %s on %s to team %s: %v", perm, full, name, err)
		}
	}
	return team.GetSlug()
}

// join adds u to an organization's team; state is the membership state
// GitHub answers ("active" for organization members, "pending" while the
// organization invitation it sends is open).
func (w *world) join(t *testing.T, org, slug string, u *person, state string) {
	t.Helper()
	m, _, err := w.olga.gh.Teams.AddTeamMembershipBySlug(ctx, org, slug, u.login(), &github.TeamAddTeamMembershipOptions{Role: "member"})
	if err != nil || m.GetState() != state {
		t.Fatalf("add %s to team %s: %+v %v", u.login(), slug, m, err)
	}
}

// grant gives an organization member a direct permission on a repository:
// GitHub grants members at once (204, no invitation).
func (w *world) grant(t *testing.T, full string, u *person, perm string) {
	t.Helper()
	owner, repo, _ := strings.Cut(full, "/")
	_, resp, err := w.admin(owner).gh.Repositories.AddCollaborator(ctx, owner, repo, u.login(), &github.RepositoryAddCollaboratorOptions{Permission: perm})
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("grant %s on %s to member %s: %v", perm, full, u.login(), err)
	}
}

// invite invites u (not a member of the owner) to a repository with perm
// ("" for the default) and returns the invitation id; accept has u accept.
func (w *world) invite(t *testing.T, full string, u *person, perm string) int64 {
	t.Helper()
	owner, repo, _ := strings.Cut(full, "/")
	var opts *github.RepositoryAddCollaboratorOptions
	if perm != "" {
		opts = &github.RepositoryAddCollaboratorOptions{Permission: perm}
	}
	inv, resp, err := w.admin(owner).gh.Repositories.AddCollaborator(ctx, owner, repo, u.login(), opts)
	if err != nil || resp.StatusCode != 201 || inv.GetInvitee().GetLogin() != u.login() {
		t.Fatalf("invite %s to %s: %+v %v", u.login(), full, inv, err)
	}
	return inv.GetID()
}

func (w *world) accept(t *testing.T, u *person, id int64) {
	t.Helper()
	if resp, err := u.gh.Users.AcceptInvitation(ctx, id); err != nil || resp.StatusCode != 204 {
		t.Fatalf("%s accepts invitation %d: %v", u.login(), id, err)
	}
}

// git runs the real git client, isolated from the machine's configuration.
func git(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Row", "-c", "user.email=row@example.com",
		"-c", "init.defaultBranch=main", "-c", "protocol.version=2"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(t, dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// remote is the smart HTTP URL of owner/name with u's login and token.
func (w *world) remote(full string, u *person) string {
	p, _ := url.Parse(w.e.URL + "/" + full + ".git")
	p.User = url.UserPassword(u.login(), u.tok)
	return p.String()
}

func status(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// enterpriseTeam makes an enterprise team whose one member is u and
// returns its slug.
func (w *world) enterpriseTeam(t *testing.T, u *person) string {
	t.Helper()
	var team struct{ Slug string }
	w.e.Must(201, "POST", "/enterprises/hubd/teams", w.ent, map[string]any{"name": "et-" + u.login()}).JSON(t, &team)
	w.e.Must(201, "PUT", "/enterprises/hubd/teams/"+team.Slug+"/memberships/"+u.login(), w.ent, nil)
	return team.Slug
}

// assign assigns an enterprise team to an organization and returns the
// slug of its team there, which the organization's teams list shows.
func (w *world) assign(t *testing.T, slug, org string) string {
	t.Helper()
	w.e.Must(201, "PUT", "/enterprises/hubd/teams/"+slug+"/organizations/"+org, w.ent, nil)
	team, _, err := w.olga.gh.Teams.GetTeamBySlug(ctx, org, slug)
	if err != nil || team.GetSlug() != slug {
		t.Fatalf("the organization team of %s in %s: %+v %v", slug, org, team, err)
	}
	return team.GetSlug()
}

func (w *world) unassign(t *testing.T, slug, org string) {
	t.Helper()
	w.e.Must(204, "DELETE", "/enterprises/hubd/teams/"+slug+"/organizations/"+org, w.ent, nil)
	if _, resp, _ := w.olga.gh.Teams.GetTeamBySlug(ctx, org, slug); status(resp) != 404 {
		t.Fatalf("the organization team of %s in %s after unassigning: %d", slug, org, status(resp))
	}
}

// grantTeam grants an organization's team perm on a repository.
func (w *world) grantTeam(t *testing.T, org, slug, full, perm string) {
	t.Helper()
	owner, repo, _ := strings.Cut(full, "/")
	resp, err := w.olga.gh.Teams.AddTeamRepoBySlug(ctx, org, slug, owner, repo, &github.TeamAddTeamRepoOptions{Permission: perm})
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("grant %s on %s to team %s: %v", perm, full, slug, err)
	}
}
