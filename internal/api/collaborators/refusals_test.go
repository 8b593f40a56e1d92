package collaborators_test

import (
	"errors"
	"testing"

	"github.com/google/go-github/v92/github"
)

// validation is the status and errors[0] of a go-github error.
func validation(err error) (int, *github.Error) {
	var er *github.ErrorResponse
	if !errors.As(err, &er) {
		return 0, nil
	}
	if len(er.Errors) == 0 {
		return er.Response.StatusCode, nil
	}
	return er.Response.StatusCode, &er.Errors[0]
}

// A user who blocked the inviter, or the user owning the repository,
// cannot be invited (GitHub's 422 Validation Failed): on a personal
// repository by its owner or by an admin collaborator, on an organization
// repository by an owner. Nothing is written; unblocking lets the
// invitation through.
func TestInviteeWhoBlockedTheInviter(t *testing.T) {
	w := newWorld(t)
	_, _, troll := w.user(t, "troll")
	if _, err := troll.Users.BlockUser(ctx, "mona"); err != nil {
		t.Fatal(err)
	}
	refused := func(gh *github.Client, owner, repo string) {
		t.Helper()
		_, _, err := gh.Repositories.AddCollaborator(ctx, owner, repo, "troll", &github.RepositoryAddCollaboratorOptions{Permission: "push"})
		code, e := validation(err)
		if code != 422 || e == nil || e.Resource != "RepositoryInvitation" || e.Field != "invitee" || e.Code != "custom" || e.Message != "User is blocked" {
			t.Fatalf("invite to %s/%s: %d %+v (%v)", owner, repo, code, e, err)
		}
	}
	refused(w.gh, "mona", "app")
	// An admin collaborator of mona's repository invites for her: troll
	// blocked the owner.
	_, _, ada := w.user(t, "ada")
	inv := invite(t, w.gh, "mona", "secret", "ada", "admin")
	if _, err := ada.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	refused(ada, "mona", "secret")
	// On the organization's repository the inviter counts (troll has not
	// blocked octo, but olga).
	olga := w.e.GitHub(w.olgaTok)
	if _, _, err := olga.Repositories.AddCollaborator(ctx, "octo", "core", "troll", nil); err != nil {
		t.Fatalf("troll has not blocked olga: %v", err)
	}
	if _, _, err := troll.Users.ListInvitations(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := troll.Users.BlockUser(ctx, "olga"); err != nil {
		t.Fatal(err)
	}
	// Inviting again renews an invitation: refused now.
	refused(olga, "octo", "core")
	// Nothing was written for the refusals: troll holds the one
	// invitation olga sent before the block.
	list, _, err := troll.Users.ListInvitations(ctx, nil)
	if err != nil || len(list) != 1 || list[0].GetRepo().GetFullName() != "octo/core" {
		t.Fatalf("troll's invitations: %v %v", list, err)
	}
	if _, err := troll.Users.UnblockUser(ctx, "mona"); err != nil {
		t.Fatal(err)
	}
	invite(t, w.gh, "mona", "app", "troll", "pull")
}

// A personal repository's collaborators get read, write or admin: triage
// and maintain, which only organizations' repositories know, are refused
// with 422 (on an invitation and on an update alike) rather than granted
// as another level; an organization's repository takes all five.
func TestPersonalRepositoryLevels(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct{ perm, want string }{{"pull", "read"}, {"push", "write"}, {"admin", "admin"}} {
		login := "guest-" + c.perm
		w.user(t, login)
		inv := invite(t, w.gh, "mona", "app", login, c.perm)
		if inv.GetPermissions() != c.want {
			t.Errorf("%s: invitation with %q, want %q", c.perm, inv.GetPermissions(), c.want)
		}
	}
	w.user(t, "tia")
	for _, perm := range []string{"triage", "maintain"} {
		_, _, err := w.gh.Repositories.AddCollaborator(ctx, "mona", "app", "tia", &github.RepositoryAddCollaboratorOptions{Permission: perm})
		code, e := validation(err)
		if code != 422 || e == nil || e.Field != "permission" || e.Code != "custom" {
			t.Fatalf("%s on mona/app: %d %+v (%v)", perm, code, e, err)
		}
	}
	// No invitation was made.
	if l, _, err := w.gh.Repositories.ListInvitations(ctx, "mona", "app", nil); err != nil || len(l) != 3 {
		t.Fatalf("invitations of mona/app: %v %v", l, err)
	}
	// Changing an invitation to triage is refused too; to read it works.
	inv := invite(t, w.gh, "mona", "app", "tia", "push")
	if _, _, err := w.gh.Repositories.UpdateInvitation(ctx, "mona", "app", inv.GetID(), "triage"); func() int { c, _ := validation(err); return c }() != 422 {
		t.Fatalf("invitation to triage: %v", err)
	}
	if got, _, err := w.gh.Repositories.UpdateInvitation(ctx, "mona", "app", inv.GetID(), "read"); err != nil || got.GetPermissions() != "read" {
		t.Fatalf("invitation to read: %+v %v", got, err)
	}
	// An accepted collaborator's level cannot become triage either.
	_, _, tia := w.user(t, "tia2")
	inv = invite(t, w.gh, "mona", "app", "tia2", "pull")
	if _, err := tia.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.gh.Repositories.AddCollaborator(ctx, "mona", "app", "tia2", &github.RepositoryAddCollaboratorOptions{Permission: "maintain"}); func() int { c, _ := validation(err); return c }() != 422 {
		t.Fatalf("collaborator to maintain: %v", err)
	}
	if lvl, _, err := w.gh.Repositories.GetPermissionLevel(ctx, "mona", "app", "tia2"); err != nil || lvl.GetRoleName() != "read" {
		t.Fatalf("tia2 keeps read: %+v %v", lvl, err)
	}
	// The organization's repository takes triage and maintain.
	olga := w.e.GitHub(w.olgaTok)
	for _, perm := range []string{"triage", "maintain"} {
		login := "org-" + perm
		w.user(t, login)
		if inv := invite(t, olga, "octo", "core", login, perm); inv.GetPermissions() != perm {
			t.Errorf("octo/core %s: %q", perm, inv.GetPermissions())
		}
	}
}
