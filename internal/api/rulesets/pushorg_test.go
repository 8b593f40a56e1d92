package rulesets_test

import (
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/hooks/hookstest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// An organization's push ruleset refuses its members' pushes to the
// repositories it selects; the organization's bypass requests are listed
// for its owners (members are refused, outsiders find nothing), filtered
// and paged with Link.
func TestOrgPushBypassRequests(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8,::1")
	e := apitest.New(t)
	olga, olgaTok := e.NewUser("olga", false)
	mike, mikeTok := e.NewUser("mike", false)
	_, ottoTok := e.NewUser("otto", false)
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: mike.ID, Role: model.RoleMember, State: store.StateActive})
	})
	if err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(olgaTok)
	for _, name := range []string{"core", "docs"} {
		if _, _, err := gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr(name), AutoInit: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Repositories.AddCollaborator(ctx, "octo", name, "mike", &github.RepositoryAddCollaboratorOptions{Permission: "push"}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = gh.Organizations.CreateRepositoryRuleset(ctx, "octo", github.RepositoryRuleset{Name: "no binaries",
		Target: github.Ptr(github.RulesetTargetPush), Enforcement: "active",
		BypassActors: []*github.BypassActor{{ActorType: github.Ptr(github.BypassActorTypeOrganizationAdmin), BypassMode: github.Ptr(github.BypassModeAlways)}},
		Conditions: &github.RepositoryRulesetConditions{
			RepositoryName: &github.RepositoryRulesetRepositoryNamesConditionParameters{Include: []string{"~ALL"}, Exclude: []string{}}},
		Rules: &github.RepositoryRulesetRules{FileExtensionRestriction: &github.FileExtensionRestrictionRuleParameters{
			RestrictedFileExtensions: []string{".exe", "dll"}}}})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := hookstest.LoadFlavour("ghec")
	if err != nil {
		t.Fatal(err)
	}
	recv := hookstest.NewReceiver(t)
	if _, _, err := gh.Organizations.CreateHook(ctx, "octo", &github.Hook{Name: github.Ptr("web"),
		Config: &github.HookConfig{URL: github.Ptr(recv.URL), ContentType: github.Ptr("json")},
		Events: []string{"exemption_request_push_ruleset"}}); err != nil {
		t.Fatal(err)
	}
	recv.WaitFor(t, "ping", "")
	push := func(repo, file string) string {
		dir := t.TempDir()
		mustGit(t, dir, "clone", "-q", e.Remote("octo", repo, "mike", mikeTok), "w")
		w := dir + "/w"
		commitBytes(t, w, file, []byte("MZ\n"))
		out, err := git(t, w, "push", "origin", "HEAD:main")
		if err == nil || !strings.Contains(out, "GH013") || !strings.Contains(out, "/octo/"+repo+"/exemptions/1") {
			t.Fatalf("push of %s to %s: %v\n%s", file, repo, err, out)
		}
		return strings.TrimSpace(mustGit(t, w, "rev-parse", "HEAD"))
	}
	push("core", "a.exe")
	docs := push("docs", "lib/b.DLL")

	// The requests reach the organization's webhooks.
	created := recv.Wait(t, "the docs request's webhook", func(d *hookstest.Delivery) bool {
		return d.Event() == "exemption_request_push_ruleset" && d.Action() == "created" && strings.Contains(string(d.Payload), docs)
	})
	if err := sch.Validate(created.Event(), created.Payload); err != nil {
		t.Fatalf("%v\n%.800s", err, created.Payload)
	}
	x := created.Map(t)["exemption_request"].(map[string]any)
	if x["status"] != "pending" || x["requester_login"] != "mike" || x["request_type"] != "push_ruleset_bypass" {
		t.Fatalf("created webhook: %v", x)
	}

	const path = "/orgs/octo/bypass-requests/push-rules"
	var list []map[string]any
	r := e.Must(200, "GET", path+"?per_page=1", olgaTok, nil)
	r.JSON(t, &list)
	if len(list) != 1 || list[0]["resource_identifier"] != docs || list[0]["organization"].(map[string]any)["name"] != "octo" ||
		!strings.Contains(r.Header.Get("Link"), `rel="next"`) || !strings.Contains(r.Header.Get("Link"), "page=2") {
		t.Fatalf("first page: %v %q", list, r.Header.Get("Link"))
	}
	for query, want := range map[string]int{
		"":                             2,
		"?repository_name=core":        1,
		"?repository_name=nope":        0,
		"?requester=MIKE":              2,
		"?requester=olga":              0,
		"?reviewer=olga":               0,
		"?request_status=open":         2,
		"?request_status=denied":       0,
		"?time_period=hour":            2,
		"?time_period=month&page=2":    0,
		"?request_status=all&per_page": 2,
	} {
		e.Must(200, "GET", path+query, olgaTok, nil).JSON(t, &list)
		if len(list) != want {
			t.Errorf("%s: %d requests, want %d", query, len(list), want)
		}
	}
	e.Must(422, "GET", path+"?time_period=year", olgaTok, nil)
	// Members may not list them; outsiders find no organization.
	e.Must(403, "GET", path, mikeTok, nil)
	e.Must(404, "GET", path, ottoTok, nil)
	e.Must(401, "GET", path, "", nil)
	e.Must(404, "GET", "/orgs/nope/bypass-requests/push-rules", olgaTok, nil)
	// A token without admin:org or read:org is refused.
	e.Must(403, "GET", path, e.Token(olga, "repo"), nil)
	e.Must(200, "GET", path, e.Token(olga, "read:org"), nil)
}
