package blocks_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/blocks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// events counts the domain events of type typ.
func events(t *testing.T, e *apitest.Env, typ string) int {
	t.Helper()
	list, err := e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range list {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// repo creates owner/name (private) through the API and returns it.
func repo(t *testing.T, e *apitest.Env, gh *github.Client, owner, name string) *model.Repo {
	t.Helper()
	org := ""
	if owner != "" {
		org = owner
	}
	r, _, err := gh.Repositories.Create(ctx, org, &github.Repository{Name: github.Ptr(name), Private: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Store.R().RepoByID(ctx, r.GetID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return v.Repo
}

func collaborate(t *testing.T, e *apitest.Env, r *model.Repo, u *model.Account) {
	t.Helper()
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, r.ID, u.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
}

func member(t *testing.T, e *apitest.Env, org, u *model.Account, role model.OrgRole, state string) {
	t.Helper()
	m := &model.Membership{OrgID: org.ID, UserID: u.ID, Role: role, State: state}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetMembership(ctx, m) }); err != nil {
		t.Fatal(err)
	}
}

func newOrg(t *testing.T, e *apitest.Env, login string, owner *model.Account) *model.Account {
	t.Helper()
	org := store.NewOrg(login)
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, org, owner.ID) }); err != nil {
		t.Fatal(err)
	}
	return org
}

// sees reports whether token's user can read owner/name.
func sees(e *apitest.Env, token, owner, name string) bool {
	return e.Do("GET", "/repos/"+owner+"/"+name, token, nil).StatusCode == 200
}

func logins(us []*github.User) string {
	l := make([]string, 0, len(us))
	for _, u := range us {
		l = append(l, u.GetLogin())
	}
	return strings.Join(l, ",")
}

func TestUserBlocks(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	hubot, hubotTok := e.NewUser("hubot", false)
	lisa, lisaTok := e.NewUser("lisa", false)
	gh := e.GitHub(monaTok)
	secret := repo(t, e, gh, "", "secret")
	other := repo(t, e, e.GitHub(lisaTok), "", "other")
	hubotRepo := repo(t, e, e.GitHub(hubotTok), "", "hubs")
	collaborate(t, e, secret, hubot)
	collaborate(t, e, other, hubot)
	collaborate(t, e, hubotRepo, mona)
	collaborate(t, e, other, mona)
	if !sees(e, hubotTok, "mona", "secret") || !sees(e, hubotTok, "lisa", "other") || !sees(e, monaTok, "hubot", "hubs") {
		t.Fatal("the collaborators should see the repositories before the block")
	}
	// Issues of mona's assigned to hubot; one of lisa's too.
	assigned := func(owner, name, token string) int {
		t.Helper()
		is, _, err := e.GitHub(token).Issues.Create(ctx, owner, name, github.CreateIssueRequest{Title: "t", Assignees: []string{"hubot"}})
		if err != nil || len(is.Assignees) != 1 {
			t.Fatalf("create assigned issue: %+v %v", is, err)
		}
		return is.GetNumber()
	}
	monaIssue, lisaIssue := assigned("mona", "secret", monaTok), assigned("lisa", "other", lisaTok)

	if blocked, _, err := gh.Users.IsBlocked(ctx, "hubot"); err != nil || blocked {
		t.Fatalf("IsBlocked before: %v %v", blocked, err)
	}
	for i := 0; i < 2; i++ { // idempotent
		resp, err := gh.Users.BlockUser(ctx, "HUBOT")
		if err != nil || resp.StatusCode != 204 {
			t.Fatalf("BlockUser #%d: %v", i, err)
		}
	}
	if blocked, _, err := gh.Users.IsBlocked(ctx, "hubot"); err != nil || !blocked {
		t.Fatalf("IsBlocked after: %v %v", blocked, err)
	}
	list, _, err := gh.Users.ListBlockedUsers(ctx, nil)
	if err != nil || logins(list) != "hubot" || list[0].GetID() != hubot.ID {
		t.Fatalf("ListBlockedUsers: %v %v", logins(list), err)
	}
	// The block took hubot off mona's repositories only.
	if sees(e, hubotTok, "mona", "secret") {
		t.Error("hubot still sees mona/secret")
	}
	if !sees(e, hubotTok, "lisa", "other") {
		t.Error("hubot lost lisa/other")
	}
	// And mona off hubot's; lisa's repository keeps both.
	if sees(e, monaTok, "hubot", "hubs") {
		t.Error("mona still sees hubot/hubs")
	}
	if !sees(e, monaTok, "lisa", "other") {
		t.Error("mona lost lisa/other")
	}
	// hubot's assignments in mona's repositories went, not in lisa's.
	for _, c := range []struct {
		owner, name, token string
		number, want       int
	}{{"mona", "secret", monaTok, monaIssue, 0}, {"lisa", "other", lisaTok, lisaIssue, 1}} {
		is, _, err := e.GitHub(c.token).Issues.Get(ctx, c.owner, c.name, c.number)
		if err != nil || len(is.Assignees) != c.want {
			t.Errorf("%s/%s#%d assignees = %d (%v), want %d", c.owner, c.name, c.number, len(is.Assignees), err, c.want)
		}
	}
	if n := events(t, e, "user_block.blocked"); n != 1 {
		t.Errorf("user_block.blocked events = %d, want 1", n)
	}
	if n := events(t, e, "member.removed"); n != 2 {
		t.Errorf("member.removed events = %d, want 2", n)
	}
	// Blocks are per blocker: lisa blocks nobody, hubot's list is empty.
	if l, _, err := e.GitHub(lisaTok).Users.ListBlockedUsers(ctx, nil); err != nil || len(l) != 0 {
		t.Fatalf("lisa's list: %v %v", logins(l), err)
	}
	r := e.Must(200, "GET", "/user/blocks", hubotTok, nil)
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Errorf("hubot's list = %s", r.Body)
	}

	// Enforcement: the owner's repositories refuse hubot, not lisa.
	svc := blocks.New(e.Store)
	if b, err := svc.Blocked(ctx, secret, hubot.ID); err != nil || !b {
		t.Errorf("Blocked(secret, hubot) = %v %v", b, err)
	}
	if b, err := svc.Blocked(ctx, secret, lisa.ID); err != nil || b {
		t.Errorf("Blocked(secret, lisa) = %v %v", b, err)
	}
	if b, err := svc.Blocked(ctx, other, hubot.ID); err != nil || b {
		t.Errorf("Blocked(other, hubot) = %v %v", b, err)
	}
	if b, err := svc.Blocked(ctx, secret, mona.ID); err != nil || b {
		t.Errorf("Blocked(secret, mona) = %v %v", b, err)
	}

	for i := 0; i < 2; i++ {
		resp, err := gh.Users.UnblockUser(ctx, "hubot")
		if err != nil || resp.StatusCode != 204 {
			t.Fatalf("UnblockUser #%d: %v", i, err)
		}
	}
	if blocked, _, err := gh.Users.IsBlocked(ctx, "hubot"); err != nil || blocked {
		t.Fatalf("IsBlocked after unblock: %v %v", blocked, err)
	}
	e.Must(404, "GET", "/user/blocks/hubot", monaTok, nil)
	if n := events(t, e, "user_block.unblocked"); n != 1 {
		t.Errorf("user_block.unblocked events = %d, want 1", n)
	}
	if b, err := svc.Blocked(ctx, secret, hubot.ID); err != nil || b {
		t.Errorf("Blocked after unblock = %v %v", b, err)
	}
}

func TestUserBlocksPagination(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	var want []string
	for i := 0; i < 5; i++ {
		login := fmt.Sprintf("u%d", i)
		e.NewUser(login, false)
		if _, err := gh.Users.BlockUser(ctx, login); err != nil {
			t.Fatal(err)
		}
		want = append(want, login)
	}
	var got []string
	opt := &github.ListOptions{PerPage: 2}
	pages := 0
	for {
		l, resp, err := gh.Users.ListBlockedUsers(ctx, opt)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if pages == 1 && resp.LastPage != 3 {
			t.Errorf("last page = %d, want 3", resp.LastPage)
		}
		for _, u := range l {
			got = append(got, u.GetLogin())
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if pages != 3 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("pages %d, got %v, want %v", pages, got, want)
	}
}

func TestUserBlockErrors(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	e.NewUser("hubot", false)
	newOrg(t, e, "octo", mona)
	noUser := e.Token(mona, "repo")
	readUser := e.Token(mona, "read:user")
	cases := []struct {
		name, method, path, token string
		status                    int
		message                   string
	}{
		{"block yourself", "PUT", "/user/blocks/mona", monaTok, 422, "Validation Failed"},
		{"block yourself, other case", "PUT", "/user/blocks/MONA", monaTok, 422, "Validation Failed"},
		{"block unknown user", "PUT", "/user/blocks/nobody", monaTok, 404, "Not Found"},
		{"block an organization", "PUT", "/user/blocks/octo", monaTok, 404, "Not Found"},
		{"unblock unknown user", "DELETE", "/user/blocks/nobody", monaTok, 404, "Not Found"},
		{"check unknown user", "GET", "/user/blocks/nobody", monaTok, 404, "Not Found"},
		{"check not blocked", "GET", "/user/blocks/hubot", monaTok, 404, "Not Found"},
		{"list anonymous", "GET", "/user/blocks", "", 401, "Requires authentication"},
		{"block anonymous", "PUT", "/user/blocks/hubot", "", 401, "Requires authentication"},
		{"list without user scope", "GET", "/user/blocks", noUser, 403, "Resource not accessible by personal access token"},
		{"check without user scope", "GET", "/user/blocks/hubot", noUser, 403, "Resource not accessible by personal access token"},
		{"block without user scope", "PUT", "/user/blocks/hubot", noUser, 403, "Resource not accessible by personal access token"},
		{"block with read:user only", "PUT", "/user/blocks/hubot", readUser, 403, "Resource not accessible by personal access token"},
		{"unblock without user scope", "DELETE", "/user/blocks/hubot", noUser, 403, "Resource not accessible by personal access token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Must(c.status, c.method, c.path, c.token, nil)
			if m := r.Map(t)["message"]; m != c.message {
				t.Errorf("message = %v, want %q", m, c.message)
			}
		})
	}
	// The 422 names the refused field; nothing was stored.
	r := e.Must(422, "PUT", "/user/blocks/mona", monaTok, nil)
	if !strings.Contains(string(r.Body), "You can't block yourself.") {
		t.Errorf("self block body: %s", r.Body)
	}
	if n := events(t, e, "user_block.blocked"); n != 0 {
		t.Errorf("events = %d", n)
	}
	// go-github sees the same.
	_, err := e.GitHub(monaTok).Users.BlockUser(ctx, "mona")
	var ge *github.ErrorResponse
	if !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("BlockUser(self) = %v", err)
	}
}

func TestOrgBlocks(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	hubot, hubotTok := e.NewUser("hubot", false)
	lisa, lisaTok := e.NewUser("lisa", false)
	pend, _ := e.NewUser("pend", false)
	org := newOrg(t, e, "octo", mona)
	member(t, e, org, lisa, model.RoleMember, store.StateActive)
	member(t, e, org, pend, model.RoleMember, "pending")
	gh := e.GitHub(monaTok)
	orgRepo := repo(t, e, gh, "octo", "tools")
	monaRepo := repo(t, e, gh, "", "own")
	collaborate(t, e, orgRepo, hubot)
	collaborate(t, e, monaRepo, hubot)
	is, _, err := gh.Issues.Create(ctx, "octo", "tools", github.CreateIssueRequest{Title: "t", Assignees: []string{"hubot"}})
	if err != nil || len(is.Assignees) != 1 {
		t.Fatalf("create assigned issue: %+v %v", is, err)
	}

	for i := 0; i < 2; i++ {
		resp, err := gh.Organizations.BlockUser(ctx, "OCTO", "hubot")
		if err != nil || resp.StatusCode != 204 {
			t.Fatalf("BlockUser #%d: %v", i, err)
		}
	}
	if b, _, err := gh.Organizations.IsBlocked(ctx, "octo", "hubot"); err != nil || !b {
		t.Fatalf("IsBlocked: %v %v", b, err)
	}
	if b, _, err := gh.Organizations.IsBlocked(ctx, "octo", "pend"); err != nil || b {
		t.Fatalf("IsBlocked(pend): %v %v", b, err)
	}
	// The organization's repositories lose hubot as outside collaborator;
	// mona's own do not (the organization blocked, not mona).
	if sees(e, hubotTok, "octo", "tools") {
		t.Error("hubot still sees octo/tools")
	}
	if !sees(e, hubotTok, "mona", "own") {
		t.Error("hubot lost mona/own")
	}
	if b, _, err := gh.Users.IsBlocked(ctx, "hubot"); err != nil || b {
		t.Errorf("mona's own block list changed: %v %v", b, err)
	}
	if got, _, err := gh.Issues.Get(ctx, "octo", "tools", is.GetNumber()); err != nil || len(got.Assignees) != 0 {
		t.Errorf("octo/tools#%d still assigned: %v", is.GetNumber(), err)
	}

	// A pending invitee can be blocked: the invitation is cancelled.
	if _, err := gh.Organizations.BlockUser(ctx, "octo", "pend"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store.R().Membership(ctx, org.ID, pend.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("pend's invitation: %v", err)
	}
	list, _, err := gh.Organizations.ListBlockedUsers(ctx, "octo", &github.ListOptions{PerPage: 1})
	if err != nil || logins(list) != "hubot" {
		t.Fatalf("ListBlockedUsers page 1: %v %v", logins(list), err)
	}
	list, resp, err := gh.Organizations.ListBlockedUsers(ctx, "octo", &github.ListOptions{PerPage: 1, Page: 2})
	if err != nil || logins(list) != "pend" || resp.NextPage != 0 || resp.PrevPage != 1 {
		t.Fatalf("ListBlockedUsers page 2: %v %+v %v", logins(list), resp, err)
	}
	if n := events(t, e, "org_block.blocked"); n != 2 {
		t.Errorf("org_block.blocked events = %d, want 2", n)
	}

	svc := blocks.New(e.Store)
	if b, err := svc.Blocked(ctx, orgRepo, hubot.ID); err != nil || !b {
		t.Errorf("Blocked(octo/tools, hubot) = %v %v", b, err)
	}
	if b, err := svc.Blocked(ctx, monaRepo, hubot.ID); err != nil || b {
		t.Errorf("Blocked(mona/own, hubot) = %v %v", b, err)
	}
	if b, err := svc.Blocked(ctx, orgRepo, lisa.ID); err != nil || b {
		t.Errorf("Blocked(octo/tools, lisa) = %v %v", b, err)
	}
	var ve *model.ValidationError
	if err := blocks.ErrBlocked("IssueComment"); !errors.As(err, &ve) || ve.Errors[0].Message != "User is blocked" {
		t.Errorf("ErrBlocked = %v", err)
	}

	// Organization owners only, and the scope admin:org.
	noAdminOrg := e.Token(mona, "repo,user,write:org")
	cases := []struct {
		name, method, path, token string
		status                    int
		message                   string
	}{
		{"block a member", "PUT", "/orgs/octo/blocks/lisa", monaTok, 422, "Validation Failed"},
		{"block yourself (an owner)", "PUT", "/orgs/octo/blocks/mona", monaTok, 422, "Validation Failed"},
		{"block unknown user", "PUT", "/orgs/octo/blocks/nobody", monaTok, 404, "Not Found"},
		{"block an organization", "PUT", "/orgs/octo/blocks/octo", monaTok, 404, "Not Found"},
		{"unknown organization", "PUT", "/orgs/nope/blocks/hubot", monaTok, 404, "Not Found"},
		{"a user is no organization", "GET", "/orgs/lisa/blocks", monaTok, 404, "Not Found"},
		{"check not blocked", "GET", "/orgs/octo/blocks/lisa", monaTok, 404, "Not Found"},
		{"check unknown user", "GET", "/orgs/octo/blocks/nobody", monaTok, 404, "Not Found"},
		{"member lists", "GET", "/orgs/octo/blocks", lisaTok, 404, "Not Found"},
		{"member checks", "GET", "/orgs/octo/blocks/hubot", lisaTok, 404, "Not Found"},
		{"member blocks", "PUT", "/orgs/octo/blocks/pend", lisaTok, 404, "Not Found"},
		{"member unblocks", "DELETE", "/orgs/octo/blocks/hubot", lisaTok, 404, "Not Found"},
		{"blocked user lists", "GET", "/orgs/octo/blocks", hubotTok, 404, "Not Found"},
		{"owner without admin:org lists", "GET", "/orgs/octo/blocks", noAdminOrg, 404, "Not Found"},
		{"owner without admin:org blocks", "PUT", "/orgs/octo/blocks/pend", noAdminOrg, 404, "Not Found"},
		{"anonymous lists", "GET", "/orgs/octo/blocks", "", 401, "Requires authentication"},
		{"anonymous unblocks", "DELETE", "/orgs/octo/blocks/hubot", "", 401, "Requires authentication"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Must(c.status, c.method, c.path, c.token, nil)
			if m := r.Map(t)["message"]; m != c.message {
				t.Errorf("message = %v, want %q", m, c.message)
			}
		})
	}
	// Still blocked after the refused unblocks; lisa stays a member.
	if b, _, err := gh.Organizations.IsBlocked(ctx, "octo", "hubot"); err != nil || !b {
		t.Fatalf("IsBlocked after refusals: %v %v", b, err)
	}
	if m, err := e.Store.R().Membership(ctx, org.ID, lisa.ID); err != nil || m.State != store.StateActive {
		t.Fatalf("lisa's membership: %+v %v", m, err)
	}

	for i := 0; i < 2; i++ {
		if resp, err := gh.Organizations.UnblockUser(ctx, "octo", "hubot"); err != nil || resp.StatusCode != 204 {
			t.Fatalf("UnblockUser #%d: %v", i, err)
		}
	}
	if b, _, err := gh.Organizations.IsBlocked(ctx, "octo", "hubot"); err != nil || b {
		t.Fatalf("IsBlocked after unblock: %v %v", b, err)
	}
	if n := events(t, e, "org_block.unblocked"); n != 1 {
		t.Errorf("org_block.unblocked events = %d, want 1", n)
	}
	if b, err := svc.Blocked(ctx, orgRepo, hubot.ID); err != nil || b {
		t.Errorf("Blocked after unblock = %v %v", b, err)
	}
}

// A fine-grained token needs the blocking permissions it was not granted.
func TestFineGrainedWithoutPermission(t *testing.T) {
	e := apitest.New(t)
	mona, _ := e.NewUser("mona", false)
	e.NewUser("hubot", false)
	newOrg(t, e, "octo", mona)
	var fine string
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		fine, _, err = tx.CreateToken(ctx, mona.ID, authz.FineGrained, nil, "", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/user/blocks"}, {"PUT", "/user/blocks/hubot"}, {"DELETE", "/user/blocks/hubot"},
		{"GET", "/orgs/octo/blocks"}, {"PUT", "/orgs/octo/blocks/hubot"}, {"GET", "/orgs/octo/blocks/hubot"},
	} {
		r := e.Must(403, c.method, c.path, fine, nil)
		if m := r.Map(t)["message"]; m != "Resource not accessible by personal access token" {
			t.Errorf("%s %s: %v", c.method, c.path, m)
		}
	}
	if n := events(t, e, "user_block.blocked") + events(t, e, "org_block.blocked"); n != 0 {
		t.Errorf("events = %d", n)
	}
}

// Blocking a user cancels their pending invitations to the blocker's
// repositories (and only those).
func TestBlockCancelsInvitations(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, eveTok := e.NewUser("eve", false)
	_, octoTok := e.NewUser("octo", false)
	for _, c := range []struct{ tok, owner string }{{monaTok, "mona"}, {octoTok, "octo"}} {
		e.Must(201, "POST", "/user/repos", c.tok, map[string]any{"name": "app"})
		e.Must(201, "PUT", "/repos/"+c.owner+"/app/collaborators/eve", c.tok, map[string]any{"permission": "push"})
	}
	var list []map[string]any
	e.Must(200, "GET", "/user/repository_invitations", eveTok, nil).JSON(t, &list)
	if len(list) != 2 {
		t.Fatalf("invitations before the block: %d", len(list))
	}
	e.Must(204, "PUT", "/user/blocks/eve", monaTok, nil)
	e.Must(200, "GET", "/user/repository_invitations", eveTok, nil).JSON(t, &list)
	if len(list) != 1 || list[0]["repository"].(map[string]any)["full_name"] != "octo/app" {
		t.Fatalf("invitations after the block: %v", list)
	}
}
