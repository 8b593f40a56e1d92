package apps_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// enterpriseWorld is the world with two more apps owned by acme: "Org
// Manager", installed on the enterprise with the enterprise organization
// installation permissions, and "Deployer" (contents: write), installed
// nowhere.
type enterpriseWorld struct {
	*world
	manager, deployer createdApp
	managerInst       int64
}

func newEnterpriseWorld(t *testing.T) *enterpriseWorld {
	w := &enterpriseWorld{world: newWorld(t)}
	e := w.e
	e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "acme", "name": "Org Manager",
		"default_permissions": map[string]string{"enterprise_organization_installations": "write", "enterprise_organization_installation_repositories": "write"},
	}).JSON(t, &w.manager)
	e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "acme", "name": "Deployer",
		"default_permissions": map[string]string{"contents": "write"},
	}).JSON(t, &w.deployer)
	var in struct {
		ID         int64          `json:"id"`
		TargetType string         `json:"target_type"`
		Account    map[string]any `json:"account"`
	}
	e.Must(201, "POST", "/admin/apps/"+w.manager.Slug+"/installations", e.AdminToken, map[string]any{"target_type": "Enterprise"}).JSON(t, &in)
	if in.TargetType != "Enterprise" || in.Account["slug"] != "hubd" {
		t.Fatalf("enterprise installation: %+v", in)
	}
	w.managerInst = in.ID
	return w
}

// appToken is an installation token of app's installation id, made with
// the app's JWT through go-github.
func (w *enterpriseWorld) appToken(app createdApp, id int64) *github.InstallationToken {
	w.t.Helper()
	now := w.now().Unix()
	jwt := signJWT(w.t, app.PEM, "RS256", map[string]any{"iat": now - 30, "exp": now + 120, "iss": app.ID})
	tok, _, err := w.e.GitHub(jwt).Apps.CreateInstallationToken(ctx, id, nil)
	if err != nil {
		w.t.Fatalf("installation token: %v", err)
	}
	return tok
}

func names(list []*github.AccessibleRepository) string {
	var out []string
	for _, r := range list {
		out = append(out, r.FullName)
	}
	return strings.Join(out, ",")
}

// The flow end to end: the app's JWT, the enterprise installation's token,
// an app installed on acme with it, and that installation's token seeing
// exactly the selected repositories.
func TestEnterpriseInstallsAppOnOrganization(t *testing.T) {
	w := newEnterpriseWorld(t)
	// The app finds its enterprise installation with its JWT.
	now := w.now().Unix()
	jwt := signJWT(t, w.manager.PEM, "RS256", map[string]any{"iat": now - 30, "exp": now + 120, "iss": w.manager.ID})
	var got struct {
		ID         int64  `json:"id"`
		TargetType string `json:"target_type"`
		TargetID   int64  `json:"target_id"`
	}
	w.bearer("GET", "/enterprises/hubd/installation", jwt, nil).JSON(t, &got)
	if got.ID != w.managerInst || got.TargetType != "Enterprise" || got.TargetID != 1 {
		t.Fatalf("enterprise installation: %+v", got)
	}
	expect(t, "another enterprise's installation", w.bearer("GET", "/enterprises/other/installation", jwt, nil), 404, "Not Found")
	expect(t, "an app not on the enterprise", w.bearer("GET", "/enterprises/hubd/installation", w.appJWT(), nil), 404, "Not Found")
	if r := w.bearer("GET", "/app/installations/"+itoa(w.managerInst), jwt, nil); r.StatusCode != 200 || !strings.Contains(string(r.Body), `"slug":"hubd"`) {
		t.Fatalf("the app's enterprise installation: %d %s", r.StatusCode, r.Body)
	}
	if r := w.bearer("GET", "/app/installations", jwt, nil); r.StatusCode != 200 || !strings.Contains(string(r.Body), `"target_type":"Enterprise"`) {
		t.Fatalf("the app's installations: %d %s", r.StatusCode, r.Body)
	}
	tok := w.appToken(w.manager, w.managerInst)
	if !strings.HasPrefix(tok.GetToken(), "ghs_") || tok.GetPermissions().GetEnterpriseOrganizationInstallations() != "write" {
		t.Fatalf("enterprise token: %+v", tok)
	}
	gh := w.e.GitHub(tok.GetToken())
	ent := gh.Enterprise

	// The enterprise token reaches no repository.
	if st := w.bearer("GET", "/installation/repositories", tok.GetToken(), nil); st.StatusCode != 200 || !strings.Contains(string(st.Body), `"total_count":0`) {
		t.Fatalf("enterprise token repositories: %d %s", st.StatusCode, st.Body)
	}
	expect(t, "enterprise token on a repository", w.bearer("GET", "/repos/acme/widgets", tok.GetToken(), nil), 403, "Resource not accessible by integration")

	orgs, _, err := ent.ListAppInstallableOrganizations(ctx, "hubd", nil)
	if err != nil || len(orgs) != 1 || orgs[0].Login != "acme" || !strings.HasSuffix(orgs[0].GetAccessibleRepositoriesURL(), "/enterprises/hubd/apps/installable_organizations/acme/accessible_repositories") {
		t.Fatalf("installable organizations: %v %+v", err, orgs)
	}
	repos, resp, err := ent.ListAppAccessibleOrganizationRepositories(ctx, "hubd", "acme", &github.ListOptions{PerPage: 2})
	if err != nil || names(repos) != "acme/gadgets,acme/secret" || resp.NextPage != 2 {
		t.Fatalf("accessible repositories: %v %s next %d", err, names(repos), resp.NextPage)
	}

	// Triage Bot is already on acme.
	list, _, err := ent.ListAppInstallations(ctx, "hubd", "acme", nil)
	if err != nil || len(list) != 1 || list[0].GetID() != w.inst {
		t.Fatalf("acme's installations: %v %+v", err, list)
	}

	inst, resp, err := ent.InstallApp(ctx, "hubd", "acme", github.InstallAppRequest{ClientID: w.deployer.ClientID, RepositorySelection: "selected", Repositories: []string{"widgets"}})
	if err != nil || resp.StatusCode != http.StatusCreated || inst.GetAccount().GetLogin() != "acme" || inst.GetRepositorySelection() != "selected" || inst.GetAppID() != w.deployer.ID {
		t.Fatalf("install Deployer: %v %+v", err, inst)
	}
	dtok := w.appToken(w.deployer, inst.GetID())
	var seen struct {
		TotalCount   int `json:"total_count"`
		Repositories []struct {
			FullName string `json:"full_name"`
		} `json:"repositories"`
	}
	w.bearer("GET", "/installation/repositories", dtok.GetToken(), nil).JSON(t, &seen)
	if seen.TotalCount != 1 || seen.Repositories[0].FullName != "acme/widgets" {
		t.Fatalf("Deployer's token sees %+v", seen)
	}
	expect(t, "Deployer on a repository not selected", w.bearer("GET", "/repos/acme/gadgets", dtok.GetToken(), nil), 404, "")

	// Installing again answers the installation (200).
	again, resp, err := ent.InstallApp(ctx, "hubd", "acme", github.InstallAppRequest{ClientID: w.deployer.ClientID, RepositorySelection: "all"})
	if err != nil || resp.StatusCode != http.StatusOK || again.GetID() != inst.GetID() {
		t.Fatalf("install again: %v %d", err, resp.StatusCode)
	}

	// Its repositories: add, remove, replace.
	added, _, err := ent.AddRepositoriesToAppInstallation(ctx, "hubd", "acme", inst.GetID(), github.AppInstallationRepositoriesRequest{Repositories: []string{"gadgets", "Secret"}})
	if err != nil || names(added) != "acme/gadgets,acme/secret" {
		t.Fatalf("add: %v %s", err, names(added))
	}
	repos, _, err = ent.ListRepositoriesForOrgAppInstallation(ctx, "hubd", "acme", inst.GetID(), nil)
	if err != nil || names(repos) != "acme/gadgets,acme/secret,acme/widgets" {
		t.Fatalf("after add: %v %s", err, names(repos))
	}
	removed, _, err := ent.RemoveRepositoriesFromAppInstallation(ctx, "hubd", "acme", inst.GetID(), github.AppInstallationRepositoriesRequest{Repositories: []string{"widgets", "secret"}})
	if err != nil || names(removed) != "acme/secret,acme/widgets" {
		t.Fatalf("remove: %v %s", err, names(removed))
	}
	expect(t, "the token after its repository was removed", w.bearer("GET", "/repos/acme/widgets", dtok.GetToken(), nil), 404, "")
	path := "/enterprises/hubd/apps/organizations/acme/installations/" + itoa(inst.GetID())
	expect(t, "remove the last repository", w.bearer("PATCH", path+"/repositories/remove", tok.GetToken(), map[string]any{"repositories": []string{"gadgets"}}),
		422, "The installation must keep access to at least one repository.")
	expect(t, "add an unknown repository", w.bearer("PATCH", path+"/repositories/add", tok.GetToken(), map[string]any{"repositories": []string{"nope"}}), 422, "Validation Failed")
	expect(t, "add bob's repository", w.bearer("PATCH", path+"/repositories/add", tok.GetToken(), map[string]any{"repositories": []string{"pub"}}), 422, "Validation Failed")

	changed, _, err := ent.UpdateAppInstallationRepositories(ctx, "hubd", "acme", inst.GetID(), github.UpdateAppInstallationRepositoriesRequest{RepositorySelection: github.Ptr("all")})
	if err != nil || changed.GetRepositorySelection() != "all" {
		t.Fatalf("change to all: %v %+v", err, changed)
	}
	expect(t, "remove from all", w.bearer("PATCH", path+"/repositories/remove", tok.GetToken(), map[string]any{"repositories": []string{"gadgets"}}), 422, "")
	changed, _, err = ent.UpdateAppInstallationRepositories(ctx, "hubd", "acme", inst.GetID(), github.UpdateAppInstallationRepositoriesRequest{
		RepositorySelection: github.Ptr("selected"), Repositories: []string{"secret"}})
	if err != nil || changed.GetRepositorySelection() != "selected" {
		t.Fatalf("change to selected: %v %+v", err, changed)
	}
	repos, _, _ = ent.ListRepositoriesForOrgAppInstallation(ctx, "hubd", "acme", inst.GetID(), nil)
	if names(repos) != "acme/secret" {
		t.Fatalf("after change: %s", names(repos))
	}

	// Uninstall: the installation and its tokens go.
	if resp, err := ent.UninstallApp(ctx, "hubd", "acme", inst.GetID()); err != nil || resp.StatusCode != 204 {
		t.Fatalf("uninstall: %v", err)
	}
	expect(t, "the token of the uninstalled app", w.bearer("GET", "/installation/repositories", dtok.GetToken(), nil), 401, "")
	expect(t, "uninstall twice", w.bearer("DELETE", path, tok.GetToken(), nil), 404, "")

	// Each write appended its event.
	events, err := w.e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, ev := range events {
		count[ev.Type]++
	}
	for typ, want := range map[string]int{"installation.created": 3, "installation.deleted": 1, "installation_repositories.added": 2,
		"installation_repositories.removed": 2, "installation_repositories.changed": 2} {
		if count[typ] != want {
			t.Errorf("%d %s events, want %d (%v)", count[typ], typ, want, count)
		}
	}
}

func itoa(n int64) string { return github.Stringify(n) }

// Refusals: another enterprise, organizations and installations hubd does
// not have, credentials other than an enterprise installation's, and
// tokens without the permission.
func TestEnterpriseInstallationRefusals(t *testing.T) {
	w := newEnterpriseWorld(t)
	tok := w.appToken(w.manager, w.managerInst).GetToken()
	base := "/enterprises/hubd/apps/organizations/acme/installations"
	install := map[string]any{"client_id": w.deployer.ClientID, "repository_selection": "all"}

	expect(t, "another enterprise", w.bearer("GET", "/enterprises/other/apps/installable_organizations", tok, nil), 404, "Not Found")
	expect(t, "an organization hubd does not have", w.bearer("GET", "/enterprises/hubd/apps/organizations/nope/installations", tok, nil), 404, "Not Found")
	expect(t, "an installation on another account", w.bearer("GET", base+"/"+itoa(w.managerInst)+"/repositories", tok, nil), 404, "Not Found")
	expect(t, "an unknown app", w.bearer("POST", base, tok, map[string]any{"client_id": "Iv1.nope", "repository_selection": "all"}), 422, "Validation Failed")
	expect(t, "selected without repositories", w.bearer("POST", base, tok, map[string]any{"client_id": w.deployer.ClientID, "repository_selection": "selected"}), 422, "")
	expect(t, "an unknown repository", w.bearer("POST", base, tok, map[string]any{"client_id": w.deployer.ClientID, "repository_selection": "selected", "repositories": []string{"nope"}}), 422, "")
	expect(t, "no credentials", w.e.Do("GET", base, "", nil), 401, "Requires authentication")

	// The site administrator's classic token is no app on the enterprise.
	expect(t, "classic token", w.e.Do("POST", base, w.e.AdminToken, install), 403, "Resource not accessible by personal access token")
	// Nor is an installation on an organization.
	triage := w.token(nil).GetToken()
	expect(t, "organization installation", w.bearer("GET", base, triage, nil), 403, "Resource not accessible by integration")

	// A token narrowed to read: lists, may not install.
	now := w.now().Unix()
	jwt := signJWT(t, w.manager.PEM, "RS256", map[string]any{"iat": now - 30, "exp": now + 120, "iss": w.manager.ID})
	read, _, err := w.e.GitHub(jwt).Apps.CreateInstallationToken(ctx, w.managerInst, &github.InstallationTokenOptions{
		Permissions: &github.InstallationPermissions{EnterpriseOrganizationInstallations: github.Ptr("read")}})
	if err != nil {
		t.Fatal(err)
	}
	if r := w.bearer("GET", base, read.GetToken(), nil); r.StatusCode != 200 {
		t.Fatalf("read token lists: %d %s", r.StatusCode, r.Body)
	}
	r := w.bearer("POST", base, read.GetToken(), install)
	expect(t, "read token installs", r, 403, "Resource not accessible by integration")
	if h := r.Header.Get("X-Accepted-GitHub-Permissions"); h != "enterprise_organization_installations=write" {
		t.Fatalf("accepted permissions %q", h)
	}
	expect(t, "read token without repository permission", w.bearer("GET", base+"/"+itoa(w.inst)+"/repositories", read.GetToken(), nil), 403, "Resource not accessible by integration")
	// Nothing was installed by the refusals.
	var list []map[string]any
	w.bearer("GET", base, tok, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("acme's installations after refusals: %v", list)
	}
}

// A user access token of the app installed on the enterprise works for a
// site administrator (GitHub Enterprise Server's enterprise owners) and
// for no one else; one of an app not on the enterprise works for no one.
func TestEnterpriseUserAccessToken(t *testing.T) {
	w := newEnterpriseWorld(t)
	uat := func(userID int64, app createdApp) string {
		t.Helper()
		exp := w.now().Add(8 * time.Hour)
		var plain string
		err := w.e.Store.Tx(ctx, func(tx store.Q) (err error) {
			plain, _, err = tx.CreateClientToken(ctx, authz.UserToServer, userID, app.ClientID, app.ID, nil, &exp)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return plain
	}
	const path = "/enterprises/hubd/apps/installable_organizations"
	admin := uat(w.e.Admin.ID, w.manager)
	if r := w.bearer("GET", path, admin, nil); r.StatusCode != 200 {
		t.Fatalf("site administrator's user access token: %d %s", r.StatusCode, r.Body)
	}
	r := w.bearer("POST", "/enterprises/hubd/apps/organizations/acme/installations", admin,
		map[string]any{"client_id": w.deployer.ClientID, "repository_selection": "all"})
	if r.StatusCode != 201 {
		t.Fatalf("install with a user access token: %d %s", r.StatusCode, r.Body)
	}
	expect(t, "alice's user access token", w.bearer("GET", path, uat(w.alice.ID, w.manager), nil), 403, "Resource not accessible by integration")
	expect(t, "an app not on the enterprise", w.bearer("GET", path, uat(w.e.Admin.ID, w.deployer), nil), 403, "Resource not accessible by integration")
}
