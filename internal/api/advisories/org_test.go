package advisories_test

import (
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// In an organization: its security managers manage the advisories of its
// repositories as administrators do and list them all with its owners;
// members who only read may not; a team made collaborator brings its
// members in.
func TestOrganizationAdvisories(t *testing.T) {
	e := apitest.New(t)
	olga, olgaT := e.NewUser("olga", false)
	sam, samT := e.NewUser("sam", false)
	mia, miaT := e.NewUser("mia", false)
	_, zedT := e.NewUser("zed", false)
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		for _, u := range []*model.Account{sam, mia} {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	og := e.GitHub(olgaT)
	for _, name := range []string{"app", "tool"} {
		if _, _, err := og.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr(name)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := og.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "devs", Privacy: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := og.Teams.AddTeamMembershipBySlug(ctx, "octo", "devs", "mia", &github.TeamAddTeamMembershipOptions{Role: "member"}); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"summary": "s", "description": "d", "vulnerabilities": vuln("app")}
	e.Must(403, "POST", "/repos/octo/app/security-advisories", samT, body)
	e.Must(403, "GET", "/orgs/octo/security-advisories", samT, nil)
	e.Must(204, "PUT", "/orgs/octo/organization-roles/users/sam/8137", olgaT, nil) // security_manager
	var a advisory
	e.Must(201, "POST", "/repos/octo/app/security-advisories", samT, body).JSON(t, &a)
	e.Must(201, "POST", "/repos/octo/tool/security-advisories", olgaT, body)
	e.Must(403, "POST", "/repos/octo/app/security-advisories", miaT, body)
	path := "/repos/octo/app/security-advisories/" + a.GHSAID
	e.Must(404, "GET", path, miaT, nil)

	// Organization list: owners and security managers see every repository's.
	for _, tok := range []string{olgaT, samT} {
		list, _, err := e.GitHub(tok).SecurityAdvisories.ListRepositorySecurityAdvisoriesForOrg(ctx, "octo", nil)
		if err != nil || len(list) != 2 {
			t.Fatalf("org list: %d %v", len(list), err)
		}
	}
	if _, _, err := e.GitHub(miaT).SecurityAdvisories.ListRepositorySecurityAdvisoriesForOrg(ctx, "octo", nil); apitest.Status(err) != 403 {
		t.Errorf("member lists the organization's: %v", err)
	}
	e.Must(401, "GET", "/orgs/octo/security-advisories", "", nil)
	e.Must(404, "GET", "/orgs/nope/security-advisories", olgaT, nil)
	var page []advisory
	e.Must(200, "GET", "/orgs/octo/security-advisories?per_page=1&direction=asc", olgaT, nil).JSON(t, &page)
	if len(page) != 1 || page[0].GHSAID != a.GHSAID {
		t.Fatalf("org page %v", page)
	}

	// A team as collaborator: its members read and edit.
	var got advisory
	e.Must(200, "PATCH", path, samT, map[string]any{"collaborating_teams": []string{"devs"}}).JSON(t, &got)
	if len(got.CollaboratingTeams) != 1 || got.CollaboratingTeams[0].Slug != "devs" {
		t.Fatalf("teams %+v", got.CollaboratingTeams)
	}
	e.Must(200, "GET", path, miaT, nil)
	e.Must(200, "PATCH", path, miaT, map[string]any{"summary": "found by devs"})
	e.Must(404, "GET", path, zedT, nil)
	// The temporary fork belongs to the organization, with the team's
	// members as writers.
	e.Must(202, "POST", path+"/forks", samT, nil)
	e.Must(200, "GET", "/repos/octo/app-"+a.GHSAID, miaT, nil) // repository names ignore case
	e.Must(404, "GET", "/repos/octo/app-"+a.GHSAID, zedT, nil)
}
