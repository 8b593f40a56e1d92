package collaborators_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// An invited user sees the private repository's invitation, but neither
// the repository nor push access until they accept; then both at once.
func TestInviteAccept(t *testing.T) {
	w := newWorld(t)
	_, hubotTok, hubot := w.user(t, "hubot")

	inv := invite(t, w.gh, "mona", "secret", "hubot", "push")
	if inv.GetInvitee().GetLogin() != "hubot" || inv.GetInviter().GetLogin() != "mona" || inv.GetPermissions() != "write" ||
		inv.GetRepo().GetFullName() != "mona/secret" || inv.GetID() == 0 ||
		!strings.HasSuffix(inv.GetURL(), "/user/repository_invitations/"+itoa(inv.GetID())) ||
		inv.GetHTMLURL() != w.e.URL+"/mona/secret/invitations" {
		t.Fatalf("invitation %+v", inv)
	}
	raw := w.e.Must(200, "GET", "/repos/mona/secret/invitations", w.monaTok, nil)
	if !strings.Contains(string(raw.Body), `"expired":false`) {
		t.Errorf("expired flag: %s", raw.Body)
	}

	// Not yet a collaborator: the private repository stays hidden.
	if _, resp, err := hubot.Repositories.Get(ctx, "mona", "secret"); status(resp) != 404 {
		t.Fatalf("get before accepting: %d %v", status(resp), err)
	}
	if ok, _, err := w.gh.Repositories.IsCollaborator(ctx, "mona", "secret", "hubot"); ok || err != nil {
		t.Errorf("collaborator before accepting: %v %v", ok, err)
	}
	w.e.Must(404, "PUT", "/repos/mona/secret/contents/x.txt", hubotTok, map[string]any{"message": "x", "content": "eA=="})

	mine, _, err := hubot.Users.ListInvitations(ctx, nil)
	if err != nil || len(mine) != 1 || mine[0].GetID() != inv.GetID() || mine[0].GetRepo().GetFullName() != "mona/secret" ||
		!mine[0].GetRepo().GetPrivate() {
		t.Fatalf("hubot's invitations: %v %v", mine, err)
	}
	// Nobody else sees or accepts it.
	_, _, other := w.user(t, "other")
	if list, _, err := other.Users.ListInvitations(ctx, nil); err != nil || len(list) != 0 {
		t.Errorf("other's invitations: %v %v", list, err)
	}
	if resp, _ := other.Users.AcceptInvitation(ctx, inv.GetID()); status(resp) != 404 {
		t.Errorf("other accepts: %d", status(resp))
	}

	if resp, err := hubot.Users.AcceptInvitation(ctx, inv.GetID()); err != nil || resp.StatusCode != 204 {
		t.Fatalf("accept: %v", err)
	}
	repo, _, err := hubot.Repositories.Get(ctx, "mona", "secret")
	if err != nil || !perms(repo.GetPermissions())["push"] || perms(repo.GetPermissions())["admin"] {
		t.Fatalf("get after accepting: %v %v", repo.GetPermissions(), err)
	}
	w.e.Must(201, "PUT", "/repos/mona/secret/contents/x.txt", hubotTok, map[string]any{"message": "x", "content": "eA=="})
	if ok, _, err := w.gh.Repositories.IsCollaborator(ctx, "mona", "secret", "hubot"); !ok || err != nil {
		t.Errorf("collaborator after accepting: %v %v", ok, err)
	}
	// The invitation is gone.
	if list, _, _ := hubot.Users.ListInvitations(ctx, nil); len(list) != 0 {
		t.Errorf("invitations after accepting: %v", list)
	}
	if resp, _ := hubot.Users.AcceptInvitation(ctx, inv.GetID()); status(resp) != 404 {
		t.Errorf("accept twice: %d", status(resp))
	}
	want := []string{"repository_invitation/created", "repository_invitation/accepted", "member/added"}
	if got := events(t, w.e); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

func TestDeclineUpdateDelete(t *testing.T) {
	w := newWorld(t)
	_, _, hubot := w.user(t, "hubot")
	inv := invite(t, w.gh, "mona", "app", "hubot", "")
	if inv.GetPermissions() != "write" {
		t.Errorf("default permission %q", inv.GetPermissions())
	}
	// Inviting again renews the same invitation with the new permission.
	again := invite(t, w.gh, "mona", "app", "hubot", "pull")
	if again.GetID() != inv.GetID() || again.GetPermissions() != "read" {
		t.Errorf("invite again: %+v", again)
	}
	up, _, err := w.gh.Repositories.UpdateInvitation(ctx, "mona", "app", inv.GetID(), "admin")
	if err != nil || up.GetPermissions() != "admin" || up.GetInvitee().GetLogin() != "hubot" {
		t.Fatalf("update: %+v %v", up, err)
	}
	if resp, err := hubot.Users.DeclineInvitation(ctx, inv.GetID()); err != nil || resp.StatusCode != 204 {
		t.Fatalf("decline: %v", err)
	}
	if list, _, _ := w.gh.Repositories.ListInvitations(ctx, "mona", "app", nil); len(list) != 0 {
		t.Errorf("after decline: %v", list)
	}
	if ok, _, _ := w.gh.Repositories.IsCollaborator(ctx, "mona", "app", "hubot"); ok {
		t.Error("declined but collaborator")
	}

	inv = invite(t, w.gh, "mona", "app", "hubot", "admin")
	if resp, err := w.gh.Repositories.DeleteInvitation(ctx, "mona", "app", inv.GetID()); err != nil || resp.StatusCode != 204 {
		t.Fatalf("delete: %v", err)
	}
	if resp, _ := hubot.Users.AcceptInvitation(ctx, inv.GetID()); status(resp) != 404 {
		t.Errorf("accept deleted: %d", status(resp))
	}
	want := []string{"repository_invitation/created", "repository_invitation/edited", "repository_invitation/edited",
		"repository_invitation/declined", "repository_invitation/created", "repository_invitation/deleted"}
	if got := events(t, w.e); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// Invitations expire after 7 days: they are listed as expired and cannot
// be accepted (404), but can be declined.
func TestExpiry(t *testing.T) {
	w := newWorld(t)
	_, _, hubot := w.user(t, "hubot")
	a := invite(t, w.gh, "mona", "secret", "hubot", "pull")
	b := invite(t, w.gh, "mona", "app", "hubot", "pull")
	w.e.Store.SetClock(func() time.Time { return time.Now().Add(7*24*time.Hour + time.Minute) })
	list, _, err := hubot.Users.ListInvitations(ctx, nil)
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %v %v", list, err)
	}
	raw := w.e.Must(200, "GET", "/repos/mona/secret/invitations", w.monaTok, nil)
	if !strings.Contains(string(raw.Body), `"expired":true`) {
		t.Errorf("not expired: %s", raw.Body)
	}
	if resp, _ := hubot.Users.AcceptInvitation(ctx, a.GetID()); status(resp) != 404 {
		t.Errorf("accept expired: %d", status(resp))
	}
	if _, resp, _ := hubot.Repositories.Get(ctx, "mona", "secret"); status(resp) != 404 {
		t.Errorf("expired invitation gave access: %d", status(resp))
	}
	if resp, err := hubot.Users.DeclineInvitation(ctx, b.GetID()); err != nil || resp.StatusCode != 204 {
		t.Errorf("decline expired: %v", err)
	}
	// Inviting again renews it.
	w.e.Store.SetClock(time.Now)
	invite(t, w.gh, "mona", "secret", "hubot", "pull")
	if resp, err := hubot.Users.AcceptInvitation(ctx, a.GetID()); err != nil || resp.StatusCode != 204 {
		t.Errorf("accept renewed: %v", err)
	}
}

// PUT on an existing collaborator changes the permission (204); an org
// member is granted directly (204); removing drops the grant and open
// invitations.
func TestDirectGrantsAndRemove(t *testing.T) {
	w := newWorld(t)
	olga := w.e.GitHub(w.olgaTok)
	_, _, hubot := w.user(t, "hubot")

	// mel is a member of octo: granted at once.
	if inv, resp, err := olga.Repositories.AddCollaborator(ctx, "octo", "core", "mel", &github.RepositoryAddCollaboratorOptions{Permission: "maintain"}); err != nil || resp.StatusCode != 204 || inv != nil {
		t.Fatalf("grant member: %v %v", resp, err)
	}
	if l, _, _ := olga.Repositories.ListInvitations(ctx, "octo", "core", nil); len(l) != 0 {
		t.Errorf("member got an invitation: %v", l)
	}
	lvl, _, err := olga.Repositories.GetPermissionLevel(ctx, "octo", "core", "mel")
	if err != nil || lvl.GetRoleName() != "maintain" || lvl.GetPermission() != "write" {
		t.Fatalf("mel: %+v %v", lvl, err)
	}
	// Changing it is a 204 too.
	if _, resp, err := olga.Repositories.AddCollaborator(ctx, "octo", "core", "mel", &github.RepositoryAddCollaboratorOptions{Permission: "triage"}); err != nil || resp.StatusCode != 204 {
		t.Fatalf("change: %v", err)
	}
	// Triage grant is below nothing of the base (read): mel has triage.
	if lvl, _, _ := olga.Repositories.GetPermissionLevel(ctx, "octo", "core", "mel"); lvl.GetRoleName() != "triage" || lvl.GetPermission() != "read" {
		t.Errorf("mel after change: %+v", lvl)
	}

	// hubot is invited, accepts, then is removed: no access any more.
	inv := invite(t, olga, "octo", "core", "hubot", "push")
	if _, err := hubot.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := hubot.Repositories.Get(ctx, "octo", "core"); err != nil {
		t.Fatal(err)
	}
	if resp, err := olga.Repositories.RemoveCollaborator(ctx, "octo", "core", "hubot"); err != nil || resp.StatusCode != 204 {
		t.Fatalf("remove: %v", err)
	}
	if _, resp, _ := hubot.Repositories.Get(ctx, "octo", "core"); status(resp) != 404 {
		t.Errorf("removed collaborator still sees: %d", status(resp))
	}
	// Removing someone with an open invitation deletes it.
	_, _, carl := w.user(t, "carl")
	inv = invite(t, olga, "octo", "core", "carl", "pull")
	if _, err := olga.Repositories.RemoveCollaborator(ctx, "octo", "core", "carl"); err != nil {
		t.Fatal(err)
	}
	if l, _, _ := carl.Users.ListInvitations(ctx, nil); len(l) != 0 {
		t.Errorf("invitation kept after removal: %v", l)
	}
	// A collaborator may leave on their own.
	inv = invite(t, olga, "octo", "core", "carl", "pull")
	if _, err := carl.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	if resp, err := carl.Repositories.RemoveCollaborator(ctx, "octo", "core", "carl"); err != nil || resp.StatusCode != 204 {
		t.Fatalf("leave: %v", err)
	}
	if _, resp, _ := carl.Repositories.Get(ctx, "octo", "core"); status(resp) != 404 {
		t.Errorf("left but sees: %d", status(resp))
	}
	got := events(t, w.e)
	want := []string{"member/added", "member/edited", "repository_invitation/created", "repository_invitation/accepted",
		"member/added", "member/removed", "repository_invitation/created", "repository_invitation/deleted",
		"repository_invitation/created", "repository_invitation/accepted", "member/added", "member/removed"}
	if !slices.Equal(got, want) {
		t.Errorf("events %v\nwant %v", got, want)
	}
}

// Removing an admin collaborator cancels the invitations they sent; an
// outside collaborator with push access may not list an organization
// repository's collaborators.
func TestRemoveCancelsSentInvitations(t *testing.T) {
	w := newWorld(t)
	olga := w.e.GitHub(w.olgaTok)
	_, _, ada := w.user(t, "ada")
	_, _, bob := w.user(t, "bob")
	inv := invite(t, olga, "octo", "core", "ada", "admin")
	if _, err := ada.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	invite(t, ada, "octo", "core", "bob", "pull")
	if _, resp, _ := ada.Repositories.ListCollaborators(ctx, "octo", "core", nil); status(resp) != 200 {
		t.Errorf("outside admin lists: %d", status(resp))
	}
	if _, err := olga.Repositories.RemoveCollaborator(ctx, "octo", "core", "ada"); err != nil {
		t.Fatal(err)
	}
	if l, _, _ := bob.Users.ListInvitations(ctx, nil); len(l) != 0 {
		t.Errorf("sent invitation kept: %v", l)
	}
	inv = invite(t, olga, "octo", "core", "bob", "push")
	if _, err := bob.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, resp, _ := bob.Repositories.ListCollaborators(ctx, "octo", "core", nil); status(resp) != 403 {
		t.Errorf("outside writer lists: %d", status(resp))
	}
	if ok, _, err := bob.Repositories.IsCollaborator(ctx, "octo", "core", "olga"); !ok || err != nil {
		t.Errorf("outside writer checks: %v %v", ok, err)
	}
}

// The permission endpoint reports what authz decides, which is also what
// the user's own view of the repository says in permissions.
func TestPermissionLevels(t *testing.T) {
	w := newWorld(t)
	olga := w.e.GitHub(w.olgaTok)
	type who struct {
		login, perm string // perm: the grant to give ("" none)
		repo        string
		role        string // want role_name
	}
	cases := []who{
		{"mona", "", "mona/app", "admin"},
		{"r1", "pull", "mona/secret", "read"},
		{"t1", "triage", "octo/core", "triage"}, // triage and maintain: organizations' repositories only
		{"w1", "push", "mona/secret", "write"},
		{"m1", "maintain", "octo/core", "maintain"},
		{"a1", "admin", "mona/secret", "admin"},
		{"stranger", "", "mona/app", "read"},     // public: everyone reads
		{"stranger2", "", "mona/secret", "none"}, // private: nothing
		{"olga", "", "octo/core", "admin"},       // org admin
		{"mel", "", "octo/core", "read"},         // org base permission
		{"t2", "triage", "octo/core", "triage"},  // outside collaborator
	}
	legacy := map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}
	toks := map[string]string{"mona": w.monaTok, "olga": w.olgaTok, "mel": w.melTok}
	for _, c := range cases {
		if _, ok := toks[c.login]; !ok {
			_, tok, _ := w.user(t, c.login)
			toks[c.login] = tok
		}
		if c.perm == "" {
			continue
		}
		owner, name, _ := strings.Cut(c.repo, "/")
		admin := w.gh
		if owner == "octo" {
			admin = olga
		}
		inv := invite(t, admin, owner, name, c.login, c.perm)
		if _, err := w.e.GitHub(toks[c.login]).Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		owner, name, _ := strings.Cut(c.repo, "/")
		admin := w.gh
		if owner == "octo" {
			admin = olga
		}
		lvl, _, err := admin.Repositories.GetPermissionLevel(ctx, owner, name, c.login)
		if err != nil {
			t.Fatalf("%s on %s: %v", c.login, c.repo, err)
		}
		if lvl.GetRoleName() != c.role || lvl.GetPermission() != legacy[c.role] || lvl.GetUser().GetLogin() != c.login ||
			lvl.GetUser().GetRoleName() != c.role {
			t.Errorf("%s on %s: permission %q role %q, want %q", c.login, c.repo, lvl.GetPermission(), lvl.GetRoleName(), c.role)
		}
		// What the user's own view of the repository says.
		repo, resp, err := w.e.GitHub(toks[c.login]).Repositories.Get(ctx, owner, name)
		if c.role == "none" {
			if status(resp) != 404 {
				t.Errorf("%s sees %s: %d", c.login, c.repo, status(resp))
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s gets %s: %v", c.login, c.repo, err)
		}
		p := perms(repo.GetPermissions())
		up := perms(lvl.GetUser().GetPermissions())
		for _, k := range []string{"admin", "maintain", "push", "triage", "pull"} {
			if p[k] != up[k] {
				t.Errorf("%s on %s: %s is %v in the repository, %v in the permission level", c.login, c.repo, k, p[k], up[k])
			}
		}
	}
}

func TestListCollaborators(t *testing.T) {
	w := newWorld(t)
	olga := w.e.GitHub(w.olgaTok)
	for _, c := range []struct{ login, perm string }{{"u1", "pull"}, {"u2", "push"}, {"u3", "admin"}, {"u4", "push"}} {
		_, _, gh := w.user(t, c.login)
		inv := invite(t, olga, "octo", "core", c.login, c.perm)
		if _, err := gh.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
			t.Fatal(err)
		}
	}
	// mel (member, base read) gets a direct grant too.
	if _, _, err := olga.Repositories.AddCollaborator(ctx, "octo", "core", "mel", &github.RepositoryAddCollaboratorOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	// A pending invitee is not listed.
	w.user(t, "pending")
	invite(t, olga, "octo", "core", "pending", "pull")

	logins := func(opt *github.ListCollaboratorsOptions) []string {
		t.Helper()
		list, _, err := olga.Repositories.ListCollaborators(ctx, "octo", "core", opt)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, u := range list {
			out = append(out, u.GetLogin()+":"+u.GetRoleName())
		}
		return out
	}
	for _, c := range []struct {
		opt  github.ListCollaboratorsOptions
		want []string
	}{
		// olga is listed as an org admin, not as a direct collaborator.
		{github.ListCollaboratorsOptions{}, []string{"olga:admin", "mel:write", "u1:read", "u2:write", "u3:admin", "u4:write"}},
		{github.ListCollaboratorsOptions{Affiliation: "direct"}, []string{"mel:write", "u1:read", "u2:write", "u3:admin", "u4:write"}},
		{github.ListCollaboratorsOptions{Affiliation: "outside"}, []string{"u1:read", "u2:write", "u3:admin", "u4:write"}},
		{github.ListCollaboratorsOptions{Permission: "push"}, []string{"mel:write", "u2:write", "u4:write"}},
		{github.ListCollaboratorsOptions{Permission: "admin", Affiliation: "outside"}, []string{"u3:admin"}},
		{github.ListCollaboratorsOptions{Permission: "triage"}, nil},
	} {
		if got := logins(&c.opt); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.opt, got, c.want)
		}
	}
	// Every listed role is what the permission endpoint (authz) says.
	all, _, err := olga.Repositories.ListCollaborators(ctx, "octo", "core", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range all {
		lvl, _, err := olga.Repositories.GetPermissionLevel(ctx, "octo", "core", u.GetLogin())
		if err != nil || lvl.GetRoleName() != u.GetRoleName() || !maps.Equal(perms(lvl.GetUser().GetPermissions()), perms(u.GetPermissions())) {
			t.Errorf("%s: listed %s, permission level %s (%v)", u.GetLogin(), u.GetRoleName(), lvl.GetRoleName(), err)
		}
	}
	// Pages of 4: Link to the next and last.
	list, resp, err := olga.Repositories.ListCollaborators(ctx, "octo", "core", &github.ListCollaboratorsOptions{ListOptions: github.ListOptions{PerPage: 4}})
	if err != nil || len(list) != 4 || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("page 1: %d %v %v", len(list), resp, err)
	}
	list, resp, err = olga.Repositories.ListCollaborators(ctx, "octo", "core", &github.ListCollaboratorsOptions{ListOptions: github.ListOptions{PerPage: 4, Page: 2}})
	if err != nil || len(list) != 2 || list[1].GetLogin() != "u4" || resp.NextPage != 0 {
		t.Fatalf("page 2: %d %v", len(list), err)
	}
	// A user-owned repository lists its owner.
	l, _, err := w.gh.Repositories.ListCollaborators(ctx, "mona", "app", nil)
	if err != nil || len(l) != 1 || l[0].GetLogin() != "mona" || !perms(l[0].GetPermissions())["admin"] {
		t.Errorf("mona/app: %v %v", l, err)
	}
	// An org member without a grant is listed through the base permission
	// (read), but not among direct collaborators; with base permission
	// none, not at all.
	m2, _, _ := w.user(t, "member2")
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.SetMembership(ctx, &model.Membership{OrgID: w.org.ID, UserID: m2.ID, Role: model.RoleMember, State: "active"})
	}); err != nil {
		t.Fatal(err)
	}
	if got := logins(&github.ListCollaboratorsOptions{Permission: "pull"}); !slices.Equal(got, []string{"u1:read", "member2:read"}) {
		t.Errorf("with member2: %v", got)
	}
	if got := logins(&github.ListCollaboratorsOptions{Affiliation: "direct", Permission: "pull"}); !slices.Equal(got, []string{"u1:read"}) {
		t.Errorf("direct with member2: %v", got)
	}
	w.e.Must(200, "PATCH", "/orgs/octo", w.olgaTok, map[string]any{"default_repository_permission": "none"})
	if got := logins(&github.ListCollaboratorsOptions{Permission: "pull"}); !slices.Equal(got, []string{"u1:read"}) {
		t.Errorf("base none: %v", got)
	}
	if ok, _, _ := olga.Repositories.IsCollaborator(ctx, "octo", "core", "member2"); ok {
		t.Error("member2 is a collaborator with base none")
	}
}

func TestInvitationPages(t *testing.T) {
	w := newWorld(t)
	for _, l := range []string{"p1", "p2", "p3", "p4", "p5"} {
		w.user(t, l)
		invite(t, w.gh, "mona", "app", l, "pull")
	}
	var seen []string
	opt := &github.ListOptions{PerPage: 2}
	for {
		list, resp, err := w.gh.Repositories.ListInvitations(ctx, "mona", "app", opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range list {
			seen = append(seen, inv.GetInvitee().GetLogin())
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if !slices.Equal(seen, []string{"p1", "p2", "p3", "p4", "p5"}) {
		t.Errorf("pages: %v", seen)
	}
}

func TestErrors(t *testing.T) {
	w := newWorld(t)
	_, writerTok, writer := w.user(t, "writer")
	reader, readerTok, _ := w.user(t, "reader")
	stranger, strangerTok, _ := w.user(t, "stranger")
	for login, perm := range map[string]string{"writer": "push", "reader": "pull"} {
		for _, repo := range []string{"app", "secret"} {
			inv := invite(t, w.gh, "mona", repo, login, perm)
			tok := writerTok
			if login == "reader" {
				tok = readerTok
			}
			w.e.Must(204, "PATCH", "/user/repository_invitations/"+itoa(inv.GetID()), tok, nil)
		}
	}
	_, _, _ = w.user(t, "target")
	inv := invite(t, w.gh, "mona", "app", "target", "pull")
	otherInv := invite(t, w.e.GitHub(w.olgaTok), "octo", "core", "stranger", "pull")
	id := itoa(inv.GetID())

	for _, c := range []struct {
		name         string
		method, path string
		token        string
		body         any
		want         int
		msg          string
	}{
		{"anonymous list", "GET", "/repos/mona/app/collaborators", "", nil, 401, ""},
		{"reader lists", "GET", "/repos/mona/app/collaborators", readerTok, nil, 403, "Must have push access to view repository collaborators."},
		{"reader permission", "GET", "/repos/mona/app/collaborators/mona/permission", readerTok, nil, 403, ""},
		{"stranger lists private", "GET", "/repos/mona/secret/collaborators", strangerTok, nil, 404, ""},
		{"writer lists", "GET", "/repos/mona/secret/collaborators", writerTok, nil, 200, ""},
		{"writer invites", "PUT", "/repos/mona/app/collaborators/stranger", writerTok, nil, 403, "Must have admin rights to Repository."},
		{"writer removes", "DELETE", "/repos/mona/app/collaborators/reader", writerTok, nil, 403, ""},
		{"stranger invites private", "PUT", "/repos/mona/secret/collaborators/stranger", strangerTok, nil, 404, ""},
		{"anonymous invites", "PUT", "/repos/mona/app/collaborators/stranger", "", nil, 401, ""},
		{"invite owner", "PUT", "/repos/mona/app/collaborators/mona", w.monaTok, nil, 422, "Validation Failed"},
		{"invite self", "PUT", "/repos/octo/core/collaborators/olga", w.olgaTok, nil, 422, ""},
		{"custom role", "PUT", "/repos/mona/app/collaborators/stranger", w.monaTok, map[string]any{"permission": "superuser"}, 422, ""},
		{"none", "PUT", "/repos/mona/app/collaborators/stranger", w.monaTok, map[string]any{"permission": "none"}, 422, ""},
		{"unknown user", "PUT", "/repos/mona/app/collaborators/ghost", w.monaTok, nil, 404, ""},
		{"organization", "PUT", "/repos/mona/app/collaborators/octo", w.monaTok, nil, 404, ""},
		{"check unknown", "GET", "/repos/mona/app/collaborators/ghost", w.monaTok, nil, 404, ""},
		{"check non-collaborator", "GET", "/repos/mona/app/collaborators/stranger", w.monaTok, nil, 404, ""},
		{"check collaborator", "GET", "/repos/mona/app/collaborators/reader", w.monaTok, nil, 204, ""},
		{"check owner", "GET", "/repos/mona/app/collaborators/mona", w.monaTok, nil, 204, ""},
		{"permission unknown", "GET", "/repos/mona/app/collaborators/ghost/permission", w.monaTok, nil, 404, ""},
		{"bad affiliation", "GET", "/repos/mona/app/collaborators?affiliation=friends", w.monaTok, nil, 422, ""},
		{"bad permission filter", "GET", "/repos/mona/app/collaborators?permission=write", w.monaTok, nil, 422, ""},
		{"writer lists invitations", "GET", "/repos/mona/app/invitations", writerTok, nil, 403, ""},
		{"writer updates invitation", "PATCH", "/repos/mona/app/invitations/" + id, writerTok, map[string]any{"permissions": "admin"}, 403, ""},
		{"writer deletes invitation", "DELETE", "/repos/mona/app/invitations/" + id, writerTok, nil, 403, ""},
		{"update with old name", "PATCH", "/repos/mona/app/invitations/" + id, w.monaTok, map[string]any{"permissions": "push"}, 422, ""},
		{"invitation of another repo", "PATCH", "/repos/mona/app/invitations/" + itoa(otherInv.GetID()), w.monaTok, map[string]any{"permissions": "read"}, 404, ""},
		{"delete invitation of another repo", "DELETE", "/repos/mona/secret/invitations/" + id, w.monaTok, nil, 404, ""},
		{"bad invitation id", "DELETE", "/repos/mona/app/invitations/abc", w.monaTok, nil, 404, ""},
		{"accept another's", "PATCH", "/user/repository_invitations/" + id, strangerTok, nil, 404, ""},
		{"decline another's", "DELETE", "/user/repository_invitations/" + id, strangerTok, nil, 404, ""},
		{"anonymous invitations", "GET", "/user/repository_invitations", "", nil, 401, ""},
		{"anonymous accept", "PATCH", "/user/repository_invitations/" + id, "", nil, 401, ""},
		{"accept unknown", "PATCH", "/user/repository_invitations/999999", strangerTok, nil, 404, ""},
		{"leave with a read-only token", "DELETE", "/repos/mona/app/collaborators/reader", w.e.Token(reader, "read:org"), nil, 404, ""}, // a token without the repository scope: GitHub answers 404,
		{"stranger leaves", "DELETE", "/repos/mona/app/collaborators/stranger", strangerTok, nil, 403, ""},
		{"invitations without repo:invite", "GET", "/user/repository_invitations", w.e.Token(stranger, "read:user"), nil, 403, "Resource not accessible by personal access token"},
		{"invitations with repo:invite", "GET", "/user/repository_invitations", w.e.Token(stranger, "repo:invite"), nil, 200, ""},
		{"accept without repo:invite", "PATCH", "/user/repository_invitations/" + itoa(otherInv.GetID()), w.e.Token(stranger, "read:user"), nil, 403, ""},
		{"invite with a read-only token", "PUT", "/repos/mona/app/collaborators/stranger", w.e.Token(w.mona, "read:user"), nil, 404, ""}, // a token without the repository scope: GitHub answers 404,
		{"remove unknown user", "DELETE", "/repos/mona/app/collaborators/ghost", w.monaTok, nil, 404, ""},
	} {
		r := w.e.Do(c.method, c.path, c.token, c.body)
		if r.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, r.StatusCode, c.want, r.Body)
			continue
		}
		if c.msg != "" && !strings.Contains(string(r.Body), c.msg) {
			t.Errorf("%s: body %s, want %q", c.name, r.Body, c.msg)
		}
	}
	// repo:invite alone is enough to accept.
	w.e.Must(404, "GET", "/repos/octo/core", strangerTok, nil)
	w.e.Must(204, "PATCH", "/user/repository_invitations/"+itoa(otherInv.GetID()), w.e.Token(stranger, "repo:invite"), nil)
	w.e.Must(200, "GET", "/repos/octo/core", strangerTok, nil)
	// The writer's failed attempts changed nothing.
	if ok, _, _ := writer.Repositories.IsCollaborator(ctx, "mona", "app", "stranger"); ok {
		t.Error("stranger became a collaborator")
	}
	if ok, _, _ := w.gh.Repositories.IsCollaborator(ctx, "mona", "app", "reader"); !ok {
		t.Error("reader left with a read-only token")
	}
	if r := w.e.Must(200, "GET", "/repos/mona/app/invitations", w.monaTok, nil); !strings.Contains(string(r.Body), `"permissions":"read"`) {
		t.Errorf("invitation changed: %s", r.Body)
	}
	_ = http.StatusOK
}

func perms(p *github.RepositoryPermissions) map[string]bool {
	return map[string]bool{"admin": p.GetAdmin(), "maintain": p.GetMaintain(), "push": p.GetPush(), "triage": p.GetTriage(), "pull": p.GetPull()}
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}
