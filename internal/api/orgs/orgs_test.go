package orgs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// newOrg creates an organization straight in the store with owner as its
// first admin, as `hubd org create` does.
func newOrg(t *testing.T, e *apitest.Env, login string, owner *model.Account) *model.Account {
	t.Helper()
	ctx := context.Background()
	org := store.NewOrg(login)
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, org, owner.ID) }); err != nil {
		t.Fatalf("create org %s: %v", login, err)
	}
	return org
}

// join makes u an active member of org with role.
func join(t *testing.T, e *apitest.Env, org, u *model.Account, role model.OrgRole) {
	t.Helper()
	ctx := context.Background()
	m := &model.Membership{OrgID: org.ID, UserID: u.ID, Role: role, State: store.StateActive}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetMembership(ctx, m) }); err != nil {
		t.Fatal(err)
	}
}

func TestOrgProfileAndSettings(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	mona, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)

	// A site admin creates the organization with mona as its owner.
	created, resp, err := e.GitHub(e.AdminToken).Admin.CreateOrg(ctx, &github.Organization{Login: github.Ptr("octo")}, "mona")
	if err != nil || resp.StatusCode != 201 || created.GetLogin() != "octo" {
		t.Fatalf("CreateOrg: %+v %v", created, err)
	}
	r := e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "Octo-Two", "admin": "mona", "profile_name": "Octo Two"})
	if m := r.Map(t); m["login"] != "Octo-Two" {
		t.Fatalf("create: %s", r.Body)
	}

	// The owner sees the settings; others the public profile.
	owner := e.GitHub(monaTok)
	o, _, err := owner.Organizations.Get(ctx, "OCTO")
	if err != nil {
		t.Fatal(err)
	}
	if o.GetLogin() != "octo" || o.GetType() != "Organization" || o.GetPlan() == nil || o.GetDefaultRepoPermission() != "read" ||
		!o.GetMembersCanCreateRepos() || !o.GetHasOrganizationProjects() || o.GetNodeID() == "" {
		t.Fatalf("owner view: %+v", o)
	}
	for _, tok := range []string{hubotTok, "", e.Token(mona, "read:org")} {
		pub := e.Must(200, "GET", "/orgs/octo", tok, nil).Map(t)
		if _, ok := pub["plan"]; ok || pub["login"] != "octo" || pub["public_repos"] != float64(0) {
			t.Fatalf("public view shows owner fields: %v", pub)
		}
	}

	// Counters come from the repositories the organization owns.
	for i, vis := range []string{"public", "private", "internal"} {
		if err := e.Store.ExecRaw(ctx, fmt.Sprintf(`INSERT INTO repos (owner_id, name, lower_name, visibility, created_at, updated_at) VALUES (%d, 'r%d', 'r%d', '%s', 0, 0)`, o.GetID(), i, i, vis)); err != nil {
			t.Fatal(err)
		}
	}
	o, _, err = owner.Organizations.Get(ctx, "octo")
	if err != nil || o.GetPublicRepos() != 1 || o.GetTotalPrivateRepos() != 2 || o.GetOwnedPrivateRepos() != 2 {
		t.Fatalf("counters: %+v %v", o, err)
	}

	edited, _, err := owner.Organizations.Edit(ctx, "octo", &github.Organization{
		Name: github.Ptr("Octo Corp"), Description: github.Ptr("We build things"), BillingEmail: github.Ptr("billing@octo.example"),
		Email: github.Ptr("hello@octo.example"), Blog: github.Ptr("https://octo.example"), Location: github.Ptr("Space"),
		Company: github.Ptr("Octo Inc"), TwitterUsername: github.Ptr("octo"),
		DefaultRepoPermission: github.Ptr("write"), MembersCanCreatePublicRepos: github.Ptr(false),
		HasRepositoryProjects: github.Ptr(false), WebCommitSignoffRequired: github.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if edited.GetName() != "Octo Corp" || edited.GetDescription() != "We build things" || edited.GetBillingEmail() != "billing@octo.example" ||
		edited.GetDefaultRepoPermission() != "write" || edited.GetMembersCanCreatePublicRepos() || !edited.GetMembersCanCreatePrivateRepos() ||
		!edited.GetMembersCanCreateRepos() || edited.GetMembersAllowedRepositoryCreationType() != "private" ||
		edited.GetHasRepositoryProjects() || !edited.GetWebCommitSignoffRequired() || edited.GetTwitterUsername() != "octo" {
		t.Fatalf("edit: %+v", edited)
	}
	// null clears, absent keeps; the master switch turns every kind off.
	m := e.Must(200, "PATCH", "/orgs/octo", monaTok, map[string]any{"name": nil, "members_can_create_repositories": false}).Map(t)
	if _, ok := m["name"]; ok || m["description"] != "We build things" || m["members_can_create_repositories"] != false ||
		m["members_can_create_private_repositories"] != false || m["members_allowed_repository_creation_type"] != "none" {
		t.Fatalf("null name: %v", m)
	}
	again, _, err := e.GitHub("").Organizations.Get(ctx, "octo")
	if err != nil || again.Name != nil || again.GetDescription() != "We build things" || again.GetCompany() != "Octo Inc" {
		t.Fatalf("persisted: %+v %v", again, err)
	}
	// A repo-scoped token may edit too (GitHub accepts admin:org or repo).
	e.Must(200, "PATCH", "/orgs/octo", e.Token(mona, "repo"), map[string]any{"location": "Moon"})

	// Rename through the admin API: 202, then only the new login resolves.
	// go-github reports a 202 as an AcceptedError carrying the body.
	_, resp, err = e.GitHub(e.AdminToken).Admin.RenameOrgByName(ctx, "octo", "octo-renamed")
	var accepted *github.AcceptedError
	if !errors.As(err, &accepted) || resp.StatusCode != 202 {
		t.Fatalf("rename: %v", err)
	}
	var rn github.RenameOrgResponse
	if err := json.Unmarshal(accepted.Raw, &rn); err != nil || !strings.Contains(rn.GetMessage(), "Job queued") || !strings.HasSuffix(rn.GetURL(), fmt.Sprintf("/organizations/%d", o.GetID())) {
		t.Fatalf("rename: %s %v", accepted.Raw, err)
	}
	if got, _, err := owner.Organizations.Get(ctx, "octo-renamed"); err != nil || got.GetID() != o.GetID() {
		t.Fatalf("renamed: %+v %v", got, err)
	}
	e.Must(404, "GET", "/orgs/octo", "", nil)
}

func TestOrgErrors(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	member, memberTok := e.NewUser("member", false)
	_, outsiderTok := e.NewUser("outsider", false)
	org := newOrg(t, e, "octo", mona)
	newOrg(t, e, "other", mona)
	join(t, e, org, member, model.RoleMember)
	noOrgScope := e.Token(mona, "user:email")
	noSiteAdminScope := e.Token(e.Admin, "repo")

	for _, tc := range []struct {
		name         string
		method, path string
		token        string
		body         any
		status       int
		message      string
	}{
		{"unknown org", "GET", "/orgs/nope", "", nil, 404, "Not Found"},
		{"a user is not an org", "GET", "/orgs/mona", "", nil, 404, "Not Found"},
		{"anonymous edit", "PATCH", "/orgs/octo", "", `{"name":"x"}`, 401, "Requires authentication"},
		{"member edits", "PATCH", "/orgs/octo", memberTok, `{"name":"x"}`, 403, "Must have admin rights to Repository."},
		{"outsider edits", "PATCH", "/orgs/octo", outsiderTok, `{"name":"x"}`, 403, "Must have admin rights to Repository."},
		{"edit without scope", "PATCH", "/orgs/octo", noOrgScope, `{"name":"x"}`, 403, "Resource not accessible by personal access token"},
		{"edit unknown org", "PATCH", "/orgs/nope", monaTok, `{"name":"x"}`, 404, "Not Found"},
		{"bad JSON", "PATCH", "/orgs/octo", monaTok, `{"name":`, 400, "Problems parsing JSON"},
		{"not an object", "PATCH", "/orgs/octo", monaTok, `"x"`, 400, "Body should be a JSON object"},
		{"invalid base permission", "PATCH", "/orgs/octo", monaTok, `{"default_repository_permission":"owner"}`, 422, "Invalid request.\n\nowner is not a member of [\"read\", \"write\", \"admin\", \"none\"]."},
		{"invalid creation type", "PATCH", "/orgs/octo", monaTok, `{"members_allowed_repository_creation_type":"some"}`, 422, "Invalid request.\n\nsome is not a member of [\"all\", \"private\", \"none\"]."},
		{"invalid email", "PATCH", "/orgs/octo", monaTok, `{"billing_email":"nope"}`, 422, "Validation Failed"},
		{"null flag", "PATCH", "/orgs/octo", monaTok, `{"has_repository_projects":null}`, 422, "Invalid request.\n\nFor 'properties/has_repository_projects', nil is not a boolean."},

		{"anonymous /user/orgs", "GET", "/user/orgs", "", nil, 401, "Requires authentication"},
		{"/user/orgs without scope", "GET", "/user/orgs", noOrgScope, nil, 403, "Resource not accessible by personal access token"},
		{"orgs of unknown user", "GET", "/users/nope/orgs", "", nil, 404, "Not Found"},

		{"members of unknown org", "GET", "/orgs/nope/members", monaTok, nil, 404, "Not Found"},
		{"invalid role filter", "GET", "/orgs/octo/members?role=boss", monaTok, nil, 422, "Validation Failed"},
		{"invalid filter", "GET", "/orgs/octo/members?filter=x", monaTok, nil, 422, "Validation Failed"},
		{"2fa filter for non-owners", "GET", "/orgs/octo/members?filter=2fa_disabled", memberTok, nil, 422, "Only owners can use this filter."},
		{"member removes", "DELETE", "/orgs/octo/members/mona", memberTok, nil, 403, "Must have admin rights to Repository."},
		{"anonymous removes", "DELETE", "/orgs/octo/members/member", "", nil, 401, "Requires authentication"},
		{"remove a non-member", "DELETE", "/orgs/octo/members/outsider", monaTok, nil, 404, "Cannot find outsider"},
		{"remove an unknown user", "DELETE", "/orgs/octo/members/nope", monaTok, nil, 404, "Not Found"},
		{"remove without admin:org", "DELETE", "/orgs/octo/members/member", e.Token(mona, "read:org"), nil, 403, "Resource not accessible by personal access token"},

		{"outsider reads a membership", "GET", "/orgs/octo/memberships/mona", outsiderTok, nil, 403, "You must be a member of octo to see membership information for mona."},
		{"membership of a non-member", "GET", "/orgs/octo/memberships/outsider", monaTok, nil, 404, "Not Found"},
		{"anonymous membership", "GET", "/orgs/octo/memberships/mona", "", nil, 401, "Requires authentication"},
		{"member invites", "PUT", "/orgs/octo/memberships/outsider", memberTok, `{"role":"member"}`, 403, "You must be an admin to add or update an organization membership."},
		{"invalid role", "PUT", "/orgs/octo/memberships/outsider", monaTok, `{"role":"owner"}`, 422, "Invalid request.\n\nowner is not a member of [\"admin\", \"member\"]."},
		{"invite unknown user", "PUT", "/orgs/octo/memberships/nope", monaTok, `{"role":"member"}`, 404, "Not Found"},
		{"invite an organization", "PUT", "/orgs/octo/memberships/other", monaTok, `{"role":"member"}`, 422, "Members must be users, not organizations."},
		{"owner demotes themselves", "PUT", "/orgs/octo/memberships/mona", monaTok, `{"role":"member"}`, 403, "You cannot demote yourself. Admins must be demoted by another admin."},
		{"cancel a non-member", "DELETE", "/orgs/octo/memberships/outsider", monaTok, nil, 404, "Cannot find outsider"},
		{"member cancels", "DELETE", "/orgs/octo/memberships/mona", memberTok, nil, 403, "You must be an admin to remove an organization membership."},

		{"own membership elsewhere", "GET", "/user/memberships/orgs/octo", outsiderTok, nil, 404, "Not Found"},
		{"own memberships bad state", "GET", "/user/memberships/orgs?state=gone", monaTok, nil, 422, "Validation Failed"},
		{"own memberships without scope", "GET", "/user/memberships/orgs", noOrgScope, nil, 403, "Resource not accessible by personal access token"},
		{"accept without state", "PATCH", "/user/memberships/orgs/octo", memberTok, `{}`, 422, "Invalid request.\n\n\"state\" wasn't supplied."},
		{"accept with bad state", "PATCH", "/user/memberships/orgs/octo", memberTok, `{"state":"pending"}`, 422, "Invalid request.\n\npending is not a member of [\"active\"]."},
		{"accept without invitation", "PATCH", "/user/memberships/orgs/octo", outsiderTok, `{"state":"active"}`, 404, "Not Found"},

		{"publicize someone else", "PUT", "/orgs/octo/public_members/mona", memberTok, nil, 403, "You can only publicize or conceal your own membership."},
		{"publicize as outsider", "PUT", "/orgs/octo/public_members/outsider", outsiderTok, nil, 403, "You must be a member of octo to change the visibility of your membership."},

		{"create org as non-site-admin", "POST", "/admin/organizations", monaTok, `{"login":"x","admin":"mona"}`, 403, "Must be a site administrator."},
		{"create org without site_admin scope", "POST", "/admin/organizations", noSiteAdminScope, `{"login":"x","admin":"mona"}`, 403, "Resource not accessible by personal access token"},
		{"create org without login", "POST", "/admin/organizations", e.AdminToken, `{"admin":"mona"}`, 422, "Invalid request.\n\n\"login\" wasn't supplied."},
		{"create org without admin", "POST", "/admin/organizations", e.AdminToken, `{"login":"x"}`, 422, "Invalid request.\n\n\"admin\" wasn't supplied."},
		{"create org with taken login", "POST", "/admin/organizations", e.AdminToken, `{"login":"MONA","admin":"mona"}`, 422, "Validation Failed"},
		{"create org with invalid login", "POST", "/admin/organizations", e.AdminToken, `{"login":"-x-","admin":"mona"}`, 422, "Validation Failed"},
		{"create org with unknown admin", "POST", "/admin/organizations", e.AdminToken, `{"login":"x","admin":"nope"}`, 422, "Validation Failed"},
		{"create org with bad JSON", "POST", "/admin/organizations", e.AdminToken, `{`, 400, "Problems parsing JSON"},
		{"rename as non-site-admin", "PATCH", "/admin/organizations/octo", monaTok, `{"login":"y"}`, 403, "Must be a site administrator."},
		{"rename to a taken login", "PATCH", "/admin/organizations/octo", e.AdminToken, `{"login":"other"}`, 422, "Validation Failed"},
		{"rename unknown org", "PATCH", "/admin/organizations/nope", e.AdminToken, `{"login":"y"}`, 404, "Not Found"},
		{"rename without login", "PATCH", "/admin/organizations/octo", e.AdminToken, `{}`, 422, "Invalid request.\n\n\"login\" wasn't supplied."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do(tc.method, tc.path, tc.token, tc.body)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			m := r.Map(t)
			if m["message"] != tc.message || m["documentation_url"] == nil {
				t.Fatalf("body %s", r.Body)
			}
			if tc.message == "Validation Failed" {
				if errs, _ := m["errors"].([]any); len(errs) == 0 {
					t.Fatalf("no errors[]: %s", r.Body)
				}
			}
		})
	}
	// Nothing above changed the organization.
	o := e.Must(200, "GET", "/orgs/octo", monaTok, nil).Map(t)
	if _, ok := o["name"]; ok || o["default_repository_permission"] != "read" || o["has_repository_projects"] != true {
		t.Fatalf("org changed: %v", o)
	}
}

func TestOrgListsPaginate(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	mona, monaTok := e.NewUser("mona", false)
	var want []string
	for i := range 7 {
		l := fmt.Sprintf("org%d", i)
		newOrg(t, e, l, mona)
		want = append(want, l)
		if i == 2 {
			e.NewUser("user-between", false) // users do not show in /organizations
		}
	}

	// GET /organizations pages by since.
	gh := e.GitHub("")
	var all []string
	opt := &github.OrganizationsListOptions{PerPage: 3}
	pages := 0
	for {
		page, resp, err := gh.Organizations.ListAll(ctx, opt)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, o := range page {
			all = append(all, o.GetLogin())
		}
		if resp.NextPage == 0 && resp.Header.Get("Link") == "" {
			break
		}
		if !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
			t.Fatalf("Link: %s", resp.Header.Get("Link"))
		}
		opt.Since = page[len(page)-1].GetID()
	}
	if strings.Join(all, ",") != strings.Join(want, ",") || pages != 3 {
		t.Fatalf("organizations = %v in %d pages, want %v", all, pages, want)
	}

	// GET /user/orgs pages by page with next and last.
	var mine []string
	lo := &github.ListOptions{PerPage: 3}
	for {
		page, resp, err := e.GitHub(monaTok).Organizations.List(ctx, "", lo)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page {
			mine = append(mine, o.GetLogin())
		}
		if lo.Page <= 1 && resp.LastPage != 3 {
			t.Fatalf("last page %d, Link %s", resp.LastPage, resp.Header.Get("Link"))
		}
		if resp.NextPage == 0 {
			break
		}
		lo.Page = resp.NextPage
	}
	if strings.Join(mine, ",") != strings.Join(want, ",") {
		t.Fatalf("/user/orgs = %v", mine)
	}
	// /users/{username}/orgs shows only publicized memberships.
	if l, _, err := e.GitHub(monaTok).Organizations.List(ctx, "mona", nil); err != nil || len(l) != 0 {
		t.Fatalf("public orgs before publicizing: %v %v", l, err)
	}
	if _, err := e.GitHub(monaTok).Organizations.PublicizeMembership(ctx, "org3", "mona"); err != nil {
		t.Fatal(err)
	}
	if l, _, err := e.GitHub("").Organizations.List(ctx, "mona", nil); err != nil || len(l) != 1 || l[0].GetLogin() != "org3" {
		t.Fatalf("public orgs: %v %v", l, err)
	}

	// Members of one organization, several pages.
	org := newOrg(t, e, "big", mona)
	for i := range 6 {
		u, _ := e.NewUser(fmt.Sprintf("m%d", i), false)
		join(t, e, org, u, model.RoleMember)
	}
	var members []string
	mo := &github.ListMembersOptions{ListOptions: github.ListOptions{PerPage: 3}}
	for {
		page, resp, err := e.GitHub(monaTok).Organizations.ListMembers(ctx, "big", mo)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range page {
			members = append(members, u.GetLogin())
		}
		if mo.Page <= 1 && resp.LastPage != 3 {
			t.Fatalf("members last page %d", resp.LastPage)
		}
		if resp.NextPage == 0 {
			break
		}
		mo.Page = resp.NextPage
	}
	if got := strings.Join(members, ","); got != "mona,m0,m1,m2,m3,m4,m5" {
		t.Fatalf("members = %s", got)
	}
	r := e.Must(200, "GET", "/orgs/big/members?per_page=3&page=2", monaTok, nil)
	if l := r.Header.Get("Link"); !strings.Contains(l, `rel="prev"`) || !strings.Contains(l, `rel="first"`) || !strings.Contains(l, "page=3") {
		t.Fatalf("Link: %s", l)
	}
}

func TestMembershipFlow(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	mona, monaTok := e.NewUser("mona", false)
	_, bobTok := e.NewUser("bob", false)
	_, eveTok := e.NewUser("eve", false)
	newOrg(t, e, "octo", mona)
	owner, bob, eve := e.GitHub(monaTok), e.GitHub(bobTok), e.GitHub(eveTok)

	// The owner invites bob: pending until he accepts.
	m, _, err := owner.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("member")})
	if err != nil || m.GetState() != "pending" || m.GetRole() != "member" || m.GetUser().GetLogin() != "bob" || m.GetOrganization().GetLogin() != "octo" {
		t.Fatalf("invite: %+v %v", m, err)
	}
	if ok, _, err := owner.Organizations.IsMember(ctx, "octo", "bob"); err != nil || ok {
		t.Fatalf("a pending member is a member: %v %v", ok, err)
	}
	if l, _, err := owner.Organizations.ListMembers(ctx, "octo", nil); err != nil || len(l) != 1 {
		t.Fatalf("members with a pending invitation: %v %v", l, err)
	}
	if got, _, err := owner.Organizations.GetOrgMembership(ctx, "bob", "octo"); err != nil || got.GetState() != "pending" {
		t.Fatalf("owner sees pending: %+v %v", got, err)
	}
	// Bob sees his invitation.
	if l, _, err := bob.Organizations.ListOrgMemberships(ctx, &github.ListOrgMembershipsOptions{State: "pending"}); err != nil || len(l) != 1 || l[0].GetOrganization().GetLogin() != "octo" {
		t.Fatalf("pending memberships: %v %v", l, err)
	}
	if l, _, err := bob.Organizations.ListOrgMemberships(ctx, &github.ListOrgMembershipsOptions{State: "active"}); err != nil || len(l) != 0 {
		t.Fatalf("active memberships: %v %v", l, err)
	}
	if l, _, err := bob.Organizations.List(ctx, "", nil); err != nil || len(l) != 0 {
		t.Fatalf("orgs before accepting: %v %v", l, err)
	}
	mine, _, err := bob.Organizations.GetOrgMembership(ctx, "", "octo")
	if err != nil || mine.GetState() != "pending" {
		t.Fatalf("own membership: %+v %v", mine, err)
	}
	// Inviting again changes nothing but the role.
	if m, _, err := owner.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("member")}); err != nil || m.GetState() != "pending" {
		t.Fatalf("re-invite: %+v %v", m, err)
	}

	// Bob accepts.
	acc, _, err := bob.Organizations.EditOrgMembership(ctx, "", "octo", &github.Membership{State: github.Ptr("active")})
	if err != nil || acc.GetState() != "active" || acc.GetRole() != "member" {
		t.Fatalf("accept: %+v %v", acc, err)
	}
	raw := e.Must(200, "GET", "/user/memberships/orgs/octo", bobTok, nil).Map(t)
	if p, _ := raw["permissions"].(map[string]any); p["can_create_repository"] != true {
		t.Fatalf("permissions: %v", raw)
	}
	if ok, _, err := owner.Organizations.IsMember(ctx, "octo", "bob"); err != nil || !ok {
		t.Fatalf("IsMember after accepting: %v %v", ok, err)
	}
	if ok, _, err := bob.Organizations.IsMember(ctx, "octo", "nobody-here"); err != nil || ok {
		t.Fatalf("IsMember of an unknown user: %v %v", ok, err)
	}
	if l, _, err := bob.Organizations.List(ctx, "", nil); err != nil || len(l) != 1 {
		t.Fatalf("orgs after accepting: %v %v", l, err)
	}
	// Members see each other; eve (outside) sees public members only, and
	// her membership checks are redirected to the public check.
	if l, _, err := bob.Organizations.ListMembers(ctx, "octo", nil); err != nil || len(l) != 2 {
		t.Fatalf("members seen by bob: %v %v", l, err)
	}
	if l, _, err := eve.Organizations.ListMembers(ctx, "octo", nil); err != nil || len(l) != 0 {
		t.Fatalf("members seen by eve: %v %v", l, err)
	}
	r := e.Do("GET", "/orgs/octo/members/bob", eveTok, nil)
	if r.StatusCode != 200 && r.StatusCode != 404 { // the client followed the redirect
		t.Fatalf("redirected check: %d", r.StatusCode)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", e.API+"/orgs/octo/members/bob", nil)
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 302 || resp.Header.Get("Location") != e.API+"/orgs/octo/public_members/bob" {
		t.Fatalf("anonymous check: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if ok, _, err := eve.Organizations.IsMember(ctx, "octo", "bob"); err != nil || ok {
		t.Fatalf("concealed member visible to eve: %v %v", ok, err)
	}
	// Bob publicizes his membership.
	if _, err := bob.Organizations.PublicizeMembership(ctx, "octo", "bob"); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := eve.Organizations.IsMember(ctx, "octo", "bob"); err != nil || !ok {
		t.Fatalf("public member via redirect: %v %v", ok, err)
	}
	if ok, _, err := eve.Organizations.IsPublicMember(ctx, "octo", "bob"); err != nil || !ok {
		t.Fatalf("IsPublicMember: %v %v", ok, err)
	}
	if l, _, err := eve.Organizations.ListMembers(ctx, "octo", &github.ListMembersOptions{PublicOnly: true}); err != nil || len(l) != 1 || l[0].GetLogin() != "bob" {
		t.Fatalf("public members: %v %v", l, err)
	}
	if l, _, err := eve.Organizations.ListMembers(ctx, "octo", nil); err != nil || len(l) != 1 {
		t.Fatalf("members seen by eve after publicizing: %v %v", l, err)
	}
	if l, _, err := eve.Organizations.List(ctx, "bob", nil); err != nil || len(l) != 1 {
		t.Fatalf("bob's public orgs: %v %v", l, err)
	}
	if _, err := bob.Organizations.ConcealMembership(ctx, "octo", "bob"); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := eve.Organizations.IsPublicMember(ctx, "octo", "bob"); ok {
		t.Fatal("concealed member is public")
	}
	// A member without read:org on the token sees what the public sees.
	bobRepoOnly := e.Token(mustUser(t, e, "bob"), "repo")
	if l, _, err := e.GitHub(bobRepoOnly).Organizations.ListMembers(ctx, "octo", nil); err != nil || len(l) != 0 {
		t.Fatalf("members without read:org: %v %v", l, err)
	}

	// Roles: filter and promote.
	if l, _, err := owner.Organizations.ListMembers(ctx, "octo", &github.ListMembersOptions{Role: "admin"}); err != nil || len(l) != 1 || l[0].GetLogin() != "mona" {
		t.Fatalf("admins: %v %v", l, err)
	}
	if l, _, err := owner.Organizations.ListMembers(ctx, "octo", &github.ListMembersOptions{Filter: "2fa_disabled"}); err != nil || len(l) != 2 {
		t.Fatalf("2fa_disabled: %v %v", l, err)
	}
	if m, _, err := owner.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("admin")}); err != nil || m.GetRole() != "admin" || m.GetState() != "active" {
		t.Fatalf("promote: %+v %v", m, err)
	}
	// Bob, now an owner, sees the settings and may edit.
	if o, _, err := bob.Organizations.Get(ctx, "octo"); err != nil || o.GetPlan() == nil {
		t.Fatalf("new owner view: %+v %v", o, err)
	}
	// Bob removes mona; then eve's pending invitation is cancelled.
	if _, err := bob.Organizations.RemoveMember(ctx, "octo", "mona"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := owner.Organizations.GetOrgMembership(ctx, "", "octo"); !isStatus(err, 404) {
		t.Fatalf("mona's membership after removal: %v", err)
	}
	if _, _, err := bob.Organizations.EditOrgMembership(ctx, "eve", "octo", &github.Membership{}); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Organizations.RemoveOrgMembership(ctx, "eve", "octo"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := eve.Organizations.EditOrgMembership(ctx, "", "octo", &github.Membership{State: github.Ptr("active")}); !isStatus(err, 404) {
		t.Fatalf("accepting a cancelled invitation: %v", err)
	}
}

// The last active owner can be neither removed nor demoted; an owner
// cannot demote themselves at all.
func TestLastOwner(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	mona, monaTok := e.NewUser("mona", false)
	_, bobTok := e.NewUser("bob", false)
	newOrg(t, e, "octo", mona)
	owner, bob := e.GitHub(monaTok), e.GitHub(bobTok)

	refused := func(err error, msg string) bool {
		var er *github.ErrorResponse
		return asErr(err, &er) && er.Response.StatusCode == 403 && er.Message == msg
	}
	const last, self = "Cannot remove the last owner", "You cannot demote yourself. Admins must be demoted by another admin."
	if _, err := owner.Organizations.RemoveMember(ctx, "octo", "mona"); !refused(err, last) {
		t.Fatalf("removing the last owner: %v", err)
	}
	if _, err := owner.Organizations.RemoveOrgMembership(ctx, "mona", "octo"); !refused(err, last) {
		t.Fatalf("removing the last owner's membership: %v", err)
	}
	if _, _, err := owner.Organizations.EditOrgMembership(ctx, "mona", "octo", &github.Membership{Role: github.Ptr("member")}); !refused(err, self) {
		t.Fatalf("demoting the last owner: %v", err)
	}
	// A pending owner does not count.
	if _, _, err := owner.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("admin")}); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Organizations.RemoveMember(ctx, "octo", "mona"); !refused(err, last) {
		t.Fatalf("removing the last active owner: %v", err)
	}
	// Nothing changed.
	if m, _, err := owner.Organizations.GetOrgMembership(ctx, "mona", "octo"); err != nil || m.GetRole() != "admin" || m.GetState() != "active" {
		t.Fatalf("mona after refusals: %+v %v", m, err)
	}
	// Once bob accepts, he may demote mona, who then may not remove him.
	if _, _, err := bob.Organizations.EditOrgMembership(ctx, "", "octo", &github.Membership{State: github.Ptr("active")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bob.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("member")}); !refused(err, self) {
		t.Fatalf("bob demotes himself: %v", err)
	}
	if m, _, err := bob.Organizations.EditOrgMembership(ctx, "mona", "octo", &github.Membership{Role: github.Ptr("member")}); err != nil || m.GetRole() != "member" {
		t.Fatalf("demote: %+v %v", m, err)
	}
	if _, err := owner.Organizations.RemoveMember(ctx, "octo", "bob"); !isStatus(err, 403) {
		t.Fatalf("a demoted owner removes: %v", err)
	}
	if _, err := bob.Organizations.RemoveMember(ctx, "octo", "mona"); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Organizations.RemoveMember(ctx, "octo", "bob"); !refused(err, last) {
		t.Fatalf("bob is now the last owner: %v", err)
	}
	if _, err := bob.Organizations.RemoveOrgMembership(ctx, "bob", "octo"); !refused(err, last) {
		t.Fatalf("bob's membership as the last owner: %v", err)
	}
	if n, err := e.Store.R().CountActiveAdmins(ctx, mustUser(t, e, "octo").ID); err != nil || n != 1 {
		t.Fatalf("owners left: %d %v", n, err)
	}
}

func mustUser(t *testing.T, e *apitest.Env, login string) *model.Account {
	t.Helper()
	u, err := e.Store.R().AccountByLogin(context.Background(), login)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func asErr(err error, target **github.ErrorResponse) bool {
	return errors.As(err, target)
}

func isStatus(err error, status int) bool {
	var er *github.ErrorResponse
	return asErr(err, &er) && er.Response.StatusCode == status
}

// Two owners removing each other at the same time: exactly one succeeds.
func TestLastOwnerRace(t *testing.T) {
	e := apitest.New(t)
	for round := range 5 {
		a, aTok := e.NewUser(fmt.Sprintf("a%d", round), false)
		b, bTok := e.NewUser(fmt.Sprintf("b%d", round), false)
		org := newOrg(t, e, fmt.Sprintf("race%d", round), a)
		join(t, e, org, b, model.RoleAdmin)
		statuses := make(chan int, 2)
		for _, c := range []struct{ tok, victim string }{{aTok, b.Login}, {bTok, a.Login}} {
			go func() {
				req, _ := http.NewRequest("DELETE", e.API+"/orgs/"+org.Login+"/members/"+c.victim, nil)
				req.Header.Set("Authorization", "token "+c.tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					statuses <- 0
					return
				}
				resp.Body.Close()
				statuses <- resp.StatusCode
			}()
		}
		s1, s2 := <-statuses, <-statuses
		if s1+s2 != 204+403 {
			t.Fatalf("round %d: statuses %d and %d", round, s1, s2)
		}
		n, err := e.Store.R().CountActiveAdmins(context.Background(), org.ID)
		if err != nil || n != 1 {
			t.Fatalf("round %d: %d owners left (%v)", round, n, err)
		}
	}
}
