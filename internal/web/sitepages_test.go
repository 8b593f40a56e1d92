package web_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/hooks/hookstest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// noFlash checks a form's answer: a redirect without a refusal.
func noFlash(t *testing.T, p *apitest.Page) {
	t.Helper()
	if p.Status != http.StatusSeeOther || strings.Contains(p.Location, "flash=") {
		t.Fatalf("form: %d %s\n%.2000s", p.Status, p.Location, p.Body)
	}
}

// TestReleaseTagBranchLists: /releases, /tags and /branches list what the
// API lists, drafts only to those who may push.
func TestReleaseTagBranchLists(t *testing.T) {
	l := newLoop(t)
	e := l.e
	apitest.MustGit(t, l.dir, "tag", "v1.0")
	apitest.MustGit(t, l.dir, "push", "-q", e.Remote("mona", "app", "mona", l.monaTok), "v1.0")
	e.Must(201, "POST", "/repos/mona/app/releases", l.monaTok, map[string]any{"tag_name": "v1.0", "name": "First light", "body": "Notes"})
	e.Must(201, "POST", "/repos/mona/app/releases", l.monaTok, map[string]any{"tag_name": "v2.0", "name": "Secret plans", "draft": true})
	e.Must(200, "PUT", "/repos/mona/app/branches/main/protection", l.monaTok, map[string]any{
		"required_status_checks": nil, "enforce_admins": false, "restrictions": nil, "required_pull_request_reviews": nil})

	must(t, l.mona.Get("/mona/app/releases"), 200, "First light", "Secret plans", "Draft", `href="/mona/app/releases/tag/v1.0"`, `aria-current="page">Releases`)
	p := l.rita.Get("/mona/app/releases")
	must(t, p, 200, "First light", "Latest")
	if strings.Contains(p.Body, "Secret plans") {
		t.Fatal("a reader sees a draft release")
	}
	if p := l.rita.Get("/mona/app/releases/latest"); p.Status != http.StatusFound || !strings.HasSuffix(p.Location, "/mona/app/releases/tag/v1.0") {
		t.Fatalf("latest: %d %s", p.Status, p.Location)
	}
	must(t, l.rita.Get("/mona/app/tags"), 200, `href="/mona/app/tree/v1.0"`, "/zipball/refs/tags/v1.0")
	b := l.rita.Get("/mona/app/branches")
	must(t, b, 200, `href="/mona/app/tree/main"`, `href="/mona/app/tree/feature"`, "protected", "default")
	if strings.Index(b.Body, "tree/main") > strings.Index(b.Body, "tree/feature") {
		t.Fatal("the default branch is not listed first")
	}
	// The API's clients still get JSON 404s at these paths.
	e.Must(404, "GET", "/mona/app/tags", l.monaTok, nil)
}

// newOrg makes the organization octo owned by olga, with mia a member,
// a visible team "core" (mia, with push on octo/tools), a secret team
// and a private repository octo/tools.
func newOrg(t *testing.T) (e *apitest.Env, olgaTok, miaTok, zedTok string, olga, mia, zed *apitest.Browser) {
	e = apitest.New(t)
	olgaU, olgaTok := e.NewUser("olga", false)
	miaU, miaTok := e.NewUser("mia", false)
	_, zedTok = e.NewUser("zed", false)
	for _, u := range []string{"olga", "mia", "zed"} {
		e.SetPassword(u, "correct horse battery")
	}
	ctx := context.Background()
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olgaU.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: miaU.ID, Role: model.RoleMember, State: store.StateActive})
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Must(201, "POST", "/orgs/octo/repos", olgaTok, map[string]any{"name": "tools", "private": true})
	e.Must(201, "POST", "/orgs/octo/repos", olgaTok, map[string]any{"name": "site"})
	e.Must(201, "POST", "/orgs/octo/teams", olgaTok, map[string]any{"name": "Core", "description": "The core team", "privacy": "closed", "maintainers": []string{"mia"}})
	e.Must(201, "POST", "/orgs/octo/teams", olgaTok, map[string]any{"name": "Hush", "privacy": "secret"})
	e.Must(204, "PUT", "/orgs/octo/teams/core/repos/octo/tools", olgaTok, map[string]any{"permission": "push"})
	e.Must(204, "PUT", "/orgs/octo/public_members/olga", olgaTok, nil)
	olga, mia, zed = e.Browser(), e.Browser(), e.Browser()
	for _, b := range []*apitest.Browser{olga, mia, zed} {
		b.Accept = htmlAccept
	}
	olga.SignIn("olga", "correct horse battery")
	mia.SignIn("mia", "correct horse battery")
	zed.SignIn("zed", "correct horse battery")
	return
}

// TestOrgAndTeamPages: a team's html_url is a page for a browser (the API
// keeps answering JSON there), seen by whom the API shows the team to;
// an organization's people and repositories follow the API's visibility.
func TestOrgAndTeamPages(t *testing.T) {
	e, olgaTok, miaTok, zedTok, olga, mia, zed := newOrg(t)
	var team struct {
		HTMLURL string `json:"html_url"`
	}
	e.Must(200, "GET", "/orgs/octo/teams/core", miaTok, nil).JSON(t, &team)
	if team.HTMLURL != e.URL+"/orgs/octo/teams/core" {
		t.Fatalf("html_url %s", team.HTMLURL)
	}
	browse(t, e, team.HTMLURL, miaTok)
	must(t, mia.Get("/orgs/octo/teams/core"), 200, "The core team", `href="/mia"`, `href="/octo/tools"`, "write")
	// The API still answers API clients at the same path.
	e.Must(401, "GET", "/orgs/octo/teams/core", "", nil)
	e.Must(404, "GET", "/orgs/octo/teams/core", zedTok, nil)
	// zed is outside the organization: no team pages; a secret team is
	// hidden from members outside it but not from owners.
	must(t, zed.Get("/orgs/octo/teams/core"), 404)
	must(t, zed.Get("/orgs/octo/teams"), 404)
	must(t, mia.Get("/orgs/octo/teams/hush"), 404)
	must(t, olga.Get("/orgs/octo/teams/hush"), 200, "Hush", "Secret")
	p := mia.Get("/orgs/octo/teams")
	must(t, p, 200, `href="/orgs/octo/teams/core"`)
	if strings.Contains(p.Body, "Hush") {
		t.Fatal("a member sees a secret team she is not in")
	}
	// People: members see every member, others the public ones.
	must(t, mia.Get("/orgs/octo/people"), 200, `href="/olga"`, `href="/mia"`)
	p = zed.Get("/orgs/octo/people")
	must(t, p, 200, `href="/olga"`)
	if strings.Contains(p.Body, `href="/mia"`) {
		t.Fatal("a private membership is shown outside the organization")
	}
	// Repositories: the private one only to those who may read it.
	must(t, mia.Get("/orgs/octo/repositories"), 200, "tools", "site")
	p = zed.Get("/orgs/octo/repositories")
	must(t, p, 200, "site")
	if strings.Contains(p.Body, ">tools<") {
		t.Fatal("a private repository is listed to an outsider")
	}
	must(t, e.Browser().Get("/orgs/nobody/people"), 404)
	// The organization's profile links its pages; a user's lists her
	// public organizations.
	must(t, olga.Get("/octo"), 200, `href="/orgs/octo/people"`)
	must(t, zed.Get("/olga"), 200, `href="/octo"`)
	_ = olgaTok
}

// TestEveryOrgHTMLURLIsAPage follows the html_urls of an organization's
// and its teams' API answers.
func TestEveryOrgHTMLURLIsAPage(t *testing.T) {
	e, olgaTok, _, _, _, _, _ := newOrg(t)
	var urls []string
	for _, p := range []string{"/orgs/octo", "/orgs/octo/teams", "/orgs/octo/teams/core", "/orgs/octo/teams/core/members",
		"/orgs/octo/teams/core/repos", "/orgs/octo/repos", "/orgs/octo/members", "/user/teams"} {
		r := e.Must(200, "GET", p, olgaTok, nil)
		urls = append(urls, htmlURLs(t, r.Body)...)
	}
	seen := map[string]bool{}
	teams := 0
	for _, u := range urls {
		if seen[u] {
			continue
		}
		seen[u] = true
		browse(t, e, u, olgaTok)
		if strings.Contains(u, "/teams/") {
			teams++
		}
	}
	if teams < 2 {
		t.Fatalf("%d team html_urls followed: %v", teams, urls)
	}
}

// TestNotificationsInbox: the signed-in user's threads, marked read and
// done from the page as PATCH and DELETE /notifications/threads/{id} do.
func TestNotificationsInbox(t *testing.T) {
	l := newLoop(t)
	e := l.e
	l.collaborator(t)
	e.Must(201, "POST", "/repos/mona/app/issues", l.monaTok, map[string]any{"title": "Ping rita", "body": "@rita look"})
	e.Must(201, "POST", "/repos/mona/app/issues", l.monaTok, map[string]any{"title": "Ask rita", "body": "@rita also"})
	if err := e.Deps.Outbox.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	anon := e.Browser()
	anon.Accept = htmlAccept
	if p := anon.Get("/notifications"); p.Status != http.StatusFound || !strings.Contains(p.Location, "/login") {
		t.Fatalf("anonymous: %d %s", p.Status, p.Location)
	}
	inbox := l.rita.Get("/notifications")
	must(t, inbox, 200, "Ping rita", "Ask rita", "mention", `href="/mona/app/issues/3"`, "Mark all as read")
	// The API answers its clients at the same path.
	var threads []struct {
		ID     string `json:"id"`
		Unread bool   `json:"unread"`
	}
	e.Must(200, "GET", "/notifications", l.ritaTok, nil).JSON(t, &threads)
	if len(threads) != 2 {
		t.Fatalf("%d threads", len(threads))
	}
	id := threads[0].ID
	noFlash(t, post(t, l.rita, inbox, "/notifications/"+id+"/read"))
	e.Must(200, "GET", "/notifications", l.ritaTok, nil).JSON(t, &threads)
	if len(threads) != 1 || threads[0].ID == id {
		t.Fatalf("after read: %+v", threads)
	}
	// The unread filter leaves the read thread out; the inbox keeps it.
	unread := l.rita.Get("/notifications?filter=unread")
	must(t, unread, 200, "thread-"+threads[0].ID)
	if strings.Contains(unread.Body, "thread-"+id) {
		t.Fatal("a read thread under Unread")
	}
	inbox = l.rita.Get("/notifications")
	must(t, inbox, 200, "thread-"+id)
	noFlash(t, post(t, l.rita, inbox, "/notifications/"+id+"/done"))
	if p := l.rita.Get("/notifications"); strings.Contains(p.Body, "thread-"+id) {
		t.Fatal("a done thread is in the inbox")
	}
	noFlash(t, post(t, l.rita, l.rita.Get("/notifications"), "/notifications/read"))
	e.Must(200, "GET", "/notifications", l.ritaTok, nil).JSON(t, &threads)
	if len(threads) != 0 {
		t.Fatalf("after mark all read: %+v", threads)
	}
	// Another user's thread is not found; a form without a token is refused.
	mona := l.mona.Get("/notifications")
	must(t, mona, 200)
	v := mona.FormFor("/notifications/read")
	if p := l.mona.Post("/notifications/"+id+"/done", v); p.Status != http.StatusSeeOther || !strings.Contains(p.Location, "flash=Not+Found") {
		t.Fatalf("another's thread: %d %s", p.Status, p.Location)
	}
	if p := l.rita.Post("/notifications/read", url.Values{}); p.Status != http.StatusForbidden {
		t.Fatalf("no CSRF: %d", p.Status)
	}
}

// TestRepoSettings: the settings pages are the administrators'; their
// forms run the services of the REST operations.
func TestRepoSettings(t *testing.T) {
	l := newLoop(t)
	e := l.e
	anon := e.Browser()
	anon.Accept = htmlAccept
	for _, p := range []string{"/mona/app/settings/access", "/mona/app/settings/hooks", "/mona/app/settings/branches", "/mona/app/settings/secrets/actions"} {
		must(t, l.rita.Get(p), 404)
		must(t, anon.Get(p), 404)
	}
	if p := l.mona.Get("/mona/app/settings"); p.Status != http.StatusMovedPermanently || !strings.HasSuffix(p.Location, "/mona/app/settings/access") {
		t.Fatalf("settings: %d %s", p.Status, p.Location)
	}
	must(t, l.mona.Get("/mona/app"), 200, `href="/mona/app/settings"`)
	if p := l.rita.Get("/mona/app"); strings.Contains(p.Body, `/settings"`) {
		t.Fatal("a reader sees the Settings tab")
	}

	// Collaborators: invite rita, she accepts, then she is listed and
	// removed again.
	access := l.mona.Get("/mona/app/settings/access")
	must(t, access, 200, "Collaborators", `href="/mona"`, "Add people")
	noFlash(t, post(t, l.mona, access, "/mona/app/settings/access", "login", "rita", "permission", "pull"))
	must(t, l.mona.Get("/mona/app/settings/access"), 200, "Pending invitations", `href="/rita"`, `<span class="label">read</span>`)
	var invs []struct {
		ID int64 `json:"id"`
	}
	e.Must(200, "GET", "/user/repository_invitations", l.ritaTok, nil).JSON(t, &invs)
	e.Must(204, "PATCH", "/user/repository_invitations/"+strconv.FormatInt(invs[0].ID, 10), l.ritaTok, nil)
	access = l.mona.Get("/mona/app/settings/access")
	must(t, access, 200, "Remove rita")
	must(t, l.rita.Get("/mona/app/settings/access"), 404) // read is not admin
	bad := post(t, l.mona, access, "/mona/app/settings/access", "login", "nobody-here")
	if !strings.Contains(bad.Location, "flash=") {
		t.Fatalf("unknown user: %s", bad.Location)
	}
	noFlash(t, post(t, l.mona, access, "/mona/app/settings/access/rita/remove"))
	e.Must(404, "GET", "/repos/mona/app/collaborators/rita", l.monaTok, nil)

	// Branch protection: protect main with the common rules, then change
	// them; the API reads back what the page set.
	br := l.mona.Get("/mona/app/settings/branches")
	must(t, br, 200, "No branch is protected", "Protect a branch")
	noFlash(t, post(t, l.mona, br, "/mona/app/settings/branches", "branch", "main", "require_reviews", "on", "required_approvals", "2",
		"require_checks", "on", "contexts", "ci/test, lint", "enforce_admins", "on"))
	var prot struct {
		Reviews struct {
			N int `json:"required_approving_review_count"`
		} `json:"required_pull_request_reviews"`
		Checks struct {
			Contexts []string `json:"contexts"`
		} `json:"required_status_checks"`
		Admins struct {
			Enabled bool `json:"enabled"`
		} `json:"enforce_admins"`
	}
	e.Must(200, "GET", "/repos/mona/app/branches/main/protection", l.monaTok, nil).JSON(t, &prot)
	if prot.Reviews.N != 2 || strings.Join(prot.Checks.Contexts, ",") != "ci/test,lint" || !prot.Admins.Enabled {
		t.Fatalf("protection: %+v", prot)
	}
	br = l.mona.Get("/mona/app/settings/branches")
	must(t, br, 200, "protection-main", "2 approvals", "<code>ci/test</code>", "Include administrators")
	v := br.FormFor("/mona/app/settings/branches")
	v.Set("require_reviews", "on")
	v.Set("required_approvals", "7")
	if p := l.mona.Post("/mona/app/settings/branches", v); !strings.Contains(p.Location, "flash=") {
		t.Fatalf("7 approvals: %s", p.Location)
	}
	noFlash(t, post(t, l.mona, br, "/mona/app/settings/branches/delete", "branch", "main"))
	e.Must(404, "GET", "/repos/mona/app/branches/main/protection", l.monaTok, nil)

	// Rulesets: listed, shown, enforcement changed.
	var rs struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", "/repos/mona/app/rulesets", l.monaTok, map[string]any{"name": "Guard main", "target": "branch", "enforcement": "active",
		"conditions": map[string]any{"ref_name": map[string]any{"include": []string{"~DEFAULT_BRANCH"}, "exclude": []string{}}},
		"rules":      []map[string]any{{"type": "deletion"}, {"type": "non_fast_forward"}}}).JSON(t, &rs)
	id := strconv.FormatInt(rs.ID, 10)
	must(t, l.mona.Get("/mona/app/settings/rules"), 200, "Guard main", "2 rules")
	one := l.mona.Get("/mona/app/settings/rules/" + id)
	must(t, one, 200, "<code>deletion</code>", "<code>~DEFAULT_BRANCH</code>", "Enforcement")
	noFlash(t, post(t, l.mona, one, "/mona/app/settings/rules/"+id, "enforcement", "evaluate"))
	r := e.Must(200, "GET", "/repos/mona/app/rulesets/"+id, l.monaTok, nil)
	if !strings.Contains(string(r.Body), `"enforcement":"evaluate"`) {
		t.Fatalf("ruleset: %s", r.Body)
	}
	must(t, l.mona.Get("/mona/app/settings/rules/999999"), 404)

	// Secrets and variables: names only.
	e.Must(201, "POST", "/repos/mona/app/actions/variables", l.monaTok, map[string]any{"name": "REGION", "value": "eu-north-hidden"})
	vars := l.mona.Get("/mona/app/settings/variables/actions")
	must(t, vars, 200, "REGION")
	if strings.Contains(vars.Body, "eu-north-hidden") {
		t.Fatal("a variable's value is shown")
	}
	must(t, l.mona.Get("/mona/app/settings/secrets/actions"), 200, "This repository has no secrets.")
	must(t, l.mona.Get("/mona/app/settings/actions/runners"), 200, "No runners are registered")
}

// TestWebhookDeliveriesPage: a hook's recent deliveries, redelivered from
// the page.
func TestWebhookDeliveriesPage(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8,::1")
	l := newLoop(t)
	e := l.e
	recv := hookstest.NewReceiver(t)
	var hook struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", "/repos/mona/app/hooks", l.monaTok, map[string]any{"config": map[string]any{"url": recv.URL, "content_type": "json"}, "events": []string{"issues"}}).JSON(t, &hook)
	recv.WaitFor(t, "ping", "")
	hookstest.Drain(t, e)
	hid := strconv.FormatInt(hook.ID, 10)
	must(t, l.mona.Get("/mona/app/settings/hooks"), 200, recv.URL, `href="/mona/app/settings/hooks/`+hid+`"`)
	page := l.mona.Get("/mona/app/settings/hooks/" + hid)
	must(t, page, 200, "Recent deliveries", "ping", "200")
	var ds []struct {
		ID int64 `json:"id"`
	}
	e.Must(200, "GET", "/repos/mona/app/hooks/"+hid+"/deliveries", l.monaTok, nil).JSON(t, &ds)
	action := "/mona/app/settings/hooks/" + hid + "/deliveries/" + strconv.FormatInt(ds[0].ID, 10) + "/redeliver"
	noFlash(t, post(t, l.mona, page, action))
	recv.Wait(t, "a redelivery", func(d *hookstest.Delivery) bool { return d.Event() == "ping" && len(recv.All()) >= 2 })
	hookstest.Drain(t, e)
	must(t, l.mona.Get("/mona/app/settings/hooks/"+hid), 200, "redelivery")
	// Another repository's hook is not found; rita may not redeliver.
	must(t, l.mona.Get("/mona/app/settings/hooks/999999"), 404)
	l.collaborator(t)
	if p := l.rita.Post(action, page.FormFor(action)); p.Status != http.StatusForbidden && p.Status != http.StatusNotFound {
		t.Fatalf("rita redelivers: %d", p.Status)
	}
}

// TestSSHKeysPage: the user's keys, added and deleted from the page.
func TestSSHKeysPage(t *testing.T) {
	l := newLoop(t)
	e := l.e
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp)))
	keys := l.mona.Get("/settings/keys")
	must(t, keys, 200, "There are no SSH keys", "New SSH key")
	noFlash(t, post(t, l.mona, keys, "/settings/keys", "title", "Laptop", "key", text))
	keys = l.mona.Get("/settings/keys")
	must(t, keys, 200, "Laptop", strings.ReplaceAll(ssh.FingerprintSHA256(sp), "+", "&#43;"))
	var list []struct {
		ID int64 `json:"id"`
	}
	e.Must(200, "GET", "/user/keys", l.monaTok, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("%d keys", len(list))
	}
	bad := post(t, l.mona, keys, "/settings/keys", "title", "Junk", "key", "ssh-rsa nonsense")
	if !strings.Contains(bad.Location, "flash=") {
		t.Fatalf("bad key: %s", bad.Location)
	}
	// rita does not see mona's keys, and cannot delete them.
	ritaKeys := l.rita.Get("/settings/keys")
	must(t, ritaKeys, 200, "There are no SSH keys")
	del := "/settings/keys/" + strconv.FormatInt(list[0].ID, 10) + "/delete"
	v := ritaKeys.FormFor("/settings/keys")
	if p := l.rita.Post(del, v); !strings.Contains(p.Location, "flash=") {
		t.Fatalf("rita deletes mona's key: %s", p.Location)
	}
	noFlash(t, post(t, l.mona, keys, del))
	e.Must(200, "GET", "/user/keys", l.monaTok, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("%d keys after delete", len(list))
	}
	// Anonymous browsers are sent to sign in; API clients get the API.
	anon := e.Browser()
	anon.Accept = htmlAccept
	if p := anon.Get("/settings/keys"); p.Status != http.StatusFound || !strings.Contains(p.Location, "/login") {
		t.Fatalf("anonymous: %d %s", p.Status, p.Location)
	}
}

// TestTokensPage: the user's personal access tokens, revoked from the
// page; a revoked token stops working at once.
func TestTokensPage(t *testing.T) {
	l := newLoop(t)
	e := l.e
	e.Must(200, "GET", "/user", l.monaTok, nil)
	p := l.mona.Get("/settings/tokens")
	must(t, p, 200, "…"+l.monaTok[len(l.monaTok)-8:], "classic", "repo")
	if strings.Contains(p.Body, l.monaTok) {
		t.Fatal("a token's value is shown")
	}
	var ids []string
	for _, m := range regexpTokenID.FindAllStringSubmatch(p.Body, -1) {
		ids = append(ids, m[1])
	}
	if len(ids) != 1 {
		t.Fatalf("tokens listed: %v", ids)
	}
	del := "/settings/tokens/" + ids[0] + "/delete"
	// rita cannot revoke mona's token; a token cannot reach the page.
	ritaPage := l.rita.Get("/settings/tokens")
	must(t, ritaPage, 200)
	if strings.Contains(ritaPage.Body, del) {
		t.Fatal("rita sees mona's token")
	}
	v := ritaPage.FormFor("/settings/tokens/" + regexpTokenID.FindStringSubmatch(ritaPage.Body)[1] + "/delete")
	if r := l.rita.Post(del, v); !strings.Contains(r.Location, "flash=Not+Found") {
		t.Fatalf("rita revokes mona's token: %d %s", r.Status, r.Location)
	}
	req, _ := http.NewRequest("GET", e.URL+"/settings/tokens", nil)
	req.Header.Set("Accept", htmlAccept)
	req.SetBasicAuth("mona", l.monaTok)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 404 {
		t.Fatalf("token caller: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	noFlash(t, post(t, l.mona, p, del))
	e.Must(401, "GET", "/user", l.monaTok, nil)
	must(t, l.mona.Get("/settings/tokens"), 200, "You have no personal access tokens.")
	// The revocation is in the enterprise's audit log, as the API's are.
	r := e.Must(200, "GET", "/enterprises/hubd/audit-log?phrase=action:oauth_access.destroy+actor:mona", e.AdminToken, nil)
	if !strings.Contains(string(r.Body), `"oauth_access.destroy"`) {
		t.Fatalf("no audit entry for the revocation: %s", r.Body)
	}
}

var regexpTokenID = regexp.MustCompile(`id="token-(\d+)"`)

// TestTeamAccessSettings: an organization repository's teams, given and
// taken access from its settings as the team repository operations do.
func TestTeamAccessSettings(t *testing.T) {
	e, olgaTok, _, _, olga, mia, _ := newOrg(t)
	must(t, mia.Get("/octo/tools/settings/access"), 404) // write is not admin
	p := olga.Get("/octo/tools/settings/access")
	must(t, p, 200, `href="/orgs/octo/teams/core"`, "Add a team")
	noFlash(t, post(t, olga, p, "/octo/tools/settings/access/teams", "team", "hush", "permission", "pull"))
	e.Must(204, "GET", "/orgs/octo/teams/hush/repos/octo/tools", olgaTok, nil)
	bad := post(t, olga, p, "/octo/tools/settings/access/teams", "team", "nope", "permission", "pull")
	if !strings.Contains(bad.Location, "flash=") {
		t.Fatalf("unknown team: %s", bad.Location)
	}
	noFlash(t, post(t, olga, p, "/octo/tools/settings/access/teams/core/remove"))
	e.Must(404, "GET", "/orgs/octo/teams/core/repos/octo/tools", olgaTok, nil)
	p = olga.Get("/octo/tools/settings/access")
	must(t, p, 200, `href="/orgs/octo/teams/hush"`)
	if strings.Contains(p.Body, `href="/orgs/octo/teams/core"`) {
		t.Fatal("a removed team is listed")
	}
}
