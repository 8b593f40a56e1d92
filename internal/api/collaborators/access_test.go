package collaborators_test

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// member makes an active member of octo with a client.
func (w *world) member(t *testing.T, login string) *github.Client {
	t.Helper()
	u, _, gh := w.user(t, login)
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.SetMembership(ctx, &model.Membership{OrgID: w.org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive})
	}); err != nil {
		t.Fatal(err)
	}
	return gh
}

// The list of an organization repository holds everyone with access, by
// the rule the checks use: outside collaborators, direct grants, members
// through teams (child teams included), organization roles and the base
// permission, and owners; direct and outside narrow it, and the permission
// filter applies to the effective level.
func TestListThroughTeamsAndRoles(t *testing.T) {
	w := newWorld(t)
	olga := w.e.GitHub(w.olgaTok)
	w.e.Must(200, "PATCH", "/orgs/octo", w.olgaTok, map[string]any{"default_repository_permission": "none"})
	w.member(t, "tina") // in a child team of a team granted maintain
	w.member(t, "rita") // holds all_repo_write
	w.member(t, "nora") // a member with nothing
	parent, _, err := olga.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "core", Privacy: github.Ptr("closed")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := olga.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "kids", Privacy: github.Ptr("closed"), ParentTeamID: parent.ID}); err != nil {
		t.Fatal(err)
	}
	// The teams' creator olga is their maintainer; she owns octo anyway.
	if _, _, err := olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "kids", "tina", &github.TeamAddTeamMembershipOptions{Role: "member"}); err != nil {
		t.Fatal(err)
	}
	if _, err := olga.Teams.AddTeamRepoBySlug(ctx, "octo", "core", "octo", "core", &github.TeamAddTeamRepoOptions{Permission: "maintain"}); err != nil {
		t.Fatal(err)
	}
	if _, err := olga.Organizations.AssignOrgRoleToUser(ctx, "octo", "rita", 8134); err != nil {
		t.Fatal(err)
	}
	_, _, out := w.user(t, "otto") // an outside collaborator
	inv := invite(t, olga, "octo", "core", "otto", "triage")
	if _, err := out.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := olga.Repositories.AddCollaborator(ctx, "octo", "core", "mel", &github.RepositoryAddCollaboratorOptions{Permission: "pull"}); err != nil {
		t.Fatal(err)
	}

	list := func(opt *github.ListCollaboratorsOptions) []string {
		t.Helper()
		l, _, err := olga.Repositories.ListCollaborators(ctx, "octo", "core", opt)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range l {
			got = append(got, u.GetLogin()+":"+u.GetRoleName())
		}
		return got
	}
	for _, c := range []struct {
		opt  github.ListCollaboratorsOptions
		want []string
	}{
		{github.ListCollaboratorsOptions{}, []string{"olga:admin", "mel:read", "tina:maintain", "rita:write", "otto:triage"}},
		{github.ListCollaboratorsOptions{Affiliation: "direct"}, []string{"mel:read", "otto:triage"}},
		{github.ListCollaboratorsOptions{Affiliation: "outside"}, []string{"otto:triage"}},
		{github.ListCollaboratorsOptions{Permission: "maintain"}, []string{"tina:maintain"}},
		{github.ListCollaboratorsOptions{Permission: "push"}, []string{"rita:write"}},
		{github.ListCollaboratorsOptions{Permission: "pull"}, []string{"mel:read"}},
		{github.ListCollaboratorsOptions{Permission: "admin", Affiliation: "direct"}, nil},
	} {
		if got := list(&c.opt); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.opt, got, c.want)
		}
	}
	// Each entry is what the permission endpoint and the user's own view
	// of the repository say.
	all, _, err := olga.Repositories.ListCollaborators(ctx, "octo", "core", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range all {
		lvl, _, err := olga.Repositories.GetPermissionLevel(ctx, "octo", "core", u.GetLogin())
		if err != nil || lvl.GetRoleName() != u.GetRoleName() || !maps.Equal(perms(lvl.GetUser().GetPermissions()), perms(u.GetPermissions())) {
			t.Errorf("%s: listed %s, permission level %s (%v)", u.GetLogin(), u.GetRoleName(), lvl.GetRoleName(), err)
		}
		if ok, _, err := olga.Repositories.IsCollaborator(ctx, "octo", "core", u.GetLogin()); !ok || err != nil {
			t.Errorf("%s is listed but not a collaborator: %v", u.GetLogin(), err)
		}
	}
	if ok, _, _ := olga.Repositories.IsCollaborator(ctx, "octo", "core", "nora"); ok {
		t.Error("nora is a collaborator")
	}
	// Pages of two, with the Link header.
	page, resp, err := olga.Repositories.ListCollaborators(ctx, "octo", "core", &github.ListCollaboratorsOptions{ListOptions: github.ListOptions{PerPage: 2, Page: 3}})
	if err != nil || len(page) != 1 || page[0].GetLogin() != "otto" || resp.PrevPage != 2 || resp.FirstPage != 1 {
		t.Fatalf("page 3: %v %v", page, err)
	}
	// Members listing an organization repository's collaborators: rita
	// may (write through her role).
	rita, _ := w.e.Store.R().AccountByLogin(ctx, "rita")
	if _, resp, err := w.e.GitHub(w.e.Token(rita, "repo,read:org")).Repositories.ListCollaborators(ctx, "octo", "core", nil); err != nil {
		t.Errorf("rita lists: %d %v", status(resp), err)
	}
}

// GitHub refuses inviting someone the repository's owner blocked, and more
// than 50 invitations to a repository in 24 hours.
func TestInvitationLimits(t *testing.T) {
	w := newWorld(t)
	olga := w.e.GitHub(w.olgaTok)
	w.user(t, "troll")
	w.e.Must(204, "PUT", "/user/blocks/troll", w.monaTok, nil)
	r := w.e.Must(422, "PUT", "/repos/mona/app/collaborators/troll", w.monaTok, nil)
	if !strings.Contains(string(r.Body), "blocked") {
		t.Errorf("blocked by the owner: %s", r.Body)
	}
	w.e.Must(204, "PUT", "/orgs/octo/blocks/troll", w.olgaTok, nil)
	w.e.Must(422, "PUT", "/repos/octo/core/collaborators/troll", w.olgaTok, nil)
	// A grant below the organization's base permission (read) is refused
	// for a member.
	w.e.Must(200, "PATCH", "/orgs/octo", w.olgaTok, map[string]any{"default_repository_permission": "write"})
	if r := w.e.Must(422, "PUT", "/repos/octo/core/collaborators/mel", w.olgaTok, map[string]any{"permission": "triage"}); !strings.Contains(string(r.Body), "Cannot assign mel permission of triage") {
		t.Errorf("below the base permission: %s", r.Body)
	}

	now := time.Now().UTC()
	w.e.Store.SetClock(func() time.Time { return now })
	for i := 1; i <= 49; i++ {
		login := "guest" + strconv.Itoa(i)
		w.user(t, login)
		invite(t, w.gh, "mona", "app", login, "pull")
	}
	// Inviting someone again sends an invitation too: the 50th.
	invite(t, w.gh, "mona", "app", "guest1", "push")
	w.user(t, "late")
	if r := w.e.Do("PUT", "/repos/mona/app/collaborators/late", w.monaTok, nil); r.StatusCode != 422 || !strings.Contains(string(r.Body), "50 invitations") {
		t.Fatalf("51st invitation: %d %s", r.StatusCode, r.Body)
	}
	// Another repository has its own count; organization members need no
	// invitation.
	invite(t, w.gh, "mona", "secret", "late", "pull")
	if _, resp, err := olga.Repositories.AddCollaborator(ctx, "octo", "core", "mel", &github.RepositoryAddCollaboratorOptions{Permission: "admin"}); err != nil || resp.StatusCode != 204 {
		t.Fatalf("member grant: %v", err)
	}
	// A day later the repository may invite again.
	w.e.Store.SetClock(func() time.Time { return now.Add(24*time.Hour + time.Second) })
	invite(t, w.gh, "mona", "app", "late", "pull")
}
