package teams_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

// GET /repos/{owner}/{repo}/teams lists the teams granted access that the
// caller may see: owners every team, members the closed teams and the
// secret teams they belong to; the private repository 404s to others.
func TestRepoListTeams(t *testing.T) {
	w := newWorld(t)
	for _, n := range []string{"alpha", "beta", "gamma"} {
		w.team(t, w.olga, github.CreateTeamRequest{Name: n, Privacy: github.Ptr("closed")})
	}
	w.team(t, w.olga, github.CreateTeamRequest{Name: "hidden", Privacy: github.Ptr("secret")})
	w.team(t, w.olga, github.CreateTeamRequest{Name: "ungranted", Privacy: github.Ptr("closed")})
	grants := map[string]string{"alpha": "pull", "beta": "push", "gamma": "maintain", "hidden": "admin"}
	for slug, p := range grants {
		if _, err := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", slug, "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: p}); err != nil {
			t.Fatalf("grant %s: %v", slug, err)
		}
	}
	// mia reads the repository through alpha; max belongs to no team.
	if _, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "alpha", "mia", member); err != nil {
		t.Fatal(err)
	}

	// The owner sees every granted team, in name order, with its grant.
	list, resp, err := w.olga.Repositories.ListTeams(ctx, "octo", "vault", &github.ListOptions{PerPage: 100})
	if err != nil || status(resp) != 200 {
		t.Fatalf("owner: %v", err)
	}
	var got []string
	for _, tm := range list {
		got = append(got, tm.GetSlug()+":"+tm.GetPermission())
	}
	if strings.Join(got, ",") != "alpha:pull,beta:push,gamma:maintain,hidden:admin" {
		t.Fatalf("owner's list %v", got)
	}
	if p := list[2].GetPermissions(); !p["maintain"] || !p["push"] || p["admin"] {
		t.Fatalf("gamma's permissions %v", p)
	}

	// Pages of two, with the Link header.
	page, resp, err := w.olga.Repositories.ListTeams(ctx, "octo", "vault", &github.ListOptions{PerPage: 2, Page: 2})
	if err != nil || len(page) != 2 || page[0].GetSlug() != "gamma" || resp.PrevPage != 1 || resp.NextPage != 0 || resp.LastPage != 0 {
		t.Fatalf("page 2: %d teams, prev %d next %d: %v", len(page), resp.PrevPage, resp.NextPage, err)
	}
	page, resp, err = w.olga.Repositories.ListTeams(ctx, "octo", "vault", &github.ListOptions{PerPage: 2})
	if err != nil || len(page) != 2 || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("page 1: %d teams, next %d last %d: %v", len(page), resp.NextPage, resp.LastPage, err)
	}

	// A member sees the closed teams, not the secret one.
	list, _, err = w.mia.Repositories.ListTeams(ctx, "octo", "vault", nil)
	if err != nil || len(list) != 3 {
		t.Fatalf("member's list %d %v", len(list), err)
	}
	for _, tm := range list {
		if tm.GetSlug() == "hidden" {
			t.Fatal("a member who is not in the secret team sees it")
		}
	}

	// Others do not see the private repository at all.
	for name, c := range map[string]*github.Client{"max": w.max, "zed": w.zed} {
		if _, resp, _ := c.Repositories.ListTeams(ctx, "octo", "vault", nil); status(resp) != 404 {
			t.Fatalf("%s: %d", name, status(resp))
		}
	}
	if r := w.e.Do("GET", "/repos/octo/vault/teams", "", nil); r.StatusCode != http.StatusNotFound {
		t.Fatalf("anonymous: %d", r.StatusCode)
	}
	if r := w.e.Do("GET", w.e.URL+"/repos/octo/vault/teams", w.olgaTok, nil); r.StatusCode != http.StatusOK {
		t.Fatalf("at the root: %d", r.StatusCode)
	}

	// A public repository: an outsider reads it and sees no team; a
	// secret team's member sees it.
	if _, _, err := w.olga.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("open")}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "hidden", "octo", "open", &github.TeamAddTeamRepoOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	if list, _, err := w.zed.Repositories.ListTeams(ctx, "octo", "open", nil); err != nil || len(list) != 0 {
		t.Fatalf("outsider on a public repository: %d %v", len(list), err)
	}
	if list, _, err := w.mia.Repositories.ListTeams(ctx, "octo", "open", nil); err != nil || len(list) != 0 {
		t.Fatalf("member outside the secret team: %d %v", len(list), err)
	}
	if _, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "hidden", "max", member); err != nil {
		t.Fatal(err)
	}
	if list, _, err := w.max.Repositories.ListTeams(ctx, "octo", "open", nil); err != nil || len(list) != 1 || list[0].GetSlug() != "hidden" {
		t.Fatalf("secret team's member: %d %v", len(list), err)
	}
	// A user-owned repository has no teams.
	if _, _, err := w.olga.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("mine")}); err != nil {
		t.Fatal(err)
	}
	if list, _, err := w.olga.Repositories.ListTeams(ctx, "olga", "mine", nil); err != nil || len(list) != 0 {
		t.Fatalf("user repository: %d %v", len(list), err)
	}
}
