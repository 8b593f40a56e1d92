package repos_test

import (
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
)

// The lists reuse rendered repository objects; these checks make sure a
// caller never sees another caller's permissions and that every kind of
// write shows at once.
func TestListsNeverShareCallerFields(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	hubot, hubotTok := e.NewUser("hubot", false)
	newOrg(t, e, "acme", mona, hubot)
	monaGH, hubotGH, anon := e.GitHub(monaTok), e.GitHub(hubotTok), e.GitHub("")
	create(t, monaGH, "acme", &github.Repository{Name: github.Ptr("shared"), Description: github.Ptr("one")})

	perms := func(gh *github.Client) *github.RepositoryPermissions {
		t.Helper()
		list, _, err := gh.Repositories.ListByOrg(ctx, "acme", nil)
		if err != nil || len(list) != 1 {
			t.Fatalf("list: %v %v", list, err)
		}
		return list[0].GetPermissions()
	}
	// Each caller, in turn and again, gets their own permissions.
	for range 2 {
		if p := perms(monaGH); !p.GetAdmin() {
			t.Fatalf("owner permissions %v", p)
		}
		if p := perms(hubotGH); p.GetAdmin() || p.GetPush() || !p.GetPull() {
			t.Fatalf("member permissions %v", p)
		}
		if p := perms(anon); p != nil {
			t.Fatalf("anonymous permissions %v", p)
		}
		raw := e.Must(200, "GET", "/orgs/acme/repos", "", nil)
		var list []map[string]any
		raw.JSON(t, &list)
		if _, ok := list[0]["permissions"]; ok {
			t.Fatalf("anonymous list has permissions: %s", raw.Body)
		}
	}

	// A permission change shows at once.
	collaborator(t, e, "acme", "shared", hubot, authz.Write)
	if p := perms(hubotGH); !p.GetPush() || p.GetAdmin() {
		t.Fatalf("after grant %v", p)
	}
	// So does an edit of the repository...
	if _, _, err := monaGH.Repositories.Edit(ctx, "acme", "shared", &github.Repository{Description: github.Ptr("two")}); err != nil {
		t.Fatal(err)
	}
	list, _, err := hubotGH.Repositories.ListByAuthenticatedUser(ctx, nil)
	if err != nil || len(list) != 1 || list[0].GetDescription() != "two" {
		t.Fatalf("after edit: %v %v", list, err)
	}
	// ...and a rename of its owner.
	e.Must(202, "PATCH", "/admin/organizations/acme", e.AdminToken, map[string]any{"login": "acme-two"})
	list, _, err = hubotGH.Repositories.ListByAuthenticatedUser(ctx, nil)
	if err != nil || len(list) != 1 || list[0].GetFullName() != "acme-two/shared" || list[0].GetOwner().GetLogin() != "acme-two" {
		t.Fatalf("after owner rename: %v %v", list, err)
	}
}
