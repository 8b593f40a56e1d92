package oauth_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func installationID(t *testing.T, env *apitest.Env, tok, slug string) string {
	t.Helper()
	var l struct {
		Installations []struct {
			ID      int64  `json:"id"`
			AppSlug string `json:"app_slug"`
		} `json:"installations"`
	}
	env.Must(200, "GET", "/user/installations", tok, nil).JSON(t, &l)
	for _, in := range l.Installations {
		if in.AppSlug == slug {
			return strconv.FormatInt(in.ID, 10)
		}
	}
	t.Fatalf("no installation of %s", slug)
	return ""
}

func repoID(t *testing.T, env *apitest.Env, tok, full string) string {
	t.Helper()
	var r struct {
		ID int64 `json:"id"`
	}
	env.Must(200, "GET", "/repos/"+full, tok, nil).JSON(t, &r)
	return strconv.FormatInt(r.ID, 10)
}

// TestUserAccessTokens: a GitHub App's web flow gives a ghu_ user access
// token (8 hours) with a ghr_ refresh token (6 months); refreshing rotates
// both and a refresh token works once; the token acts as the user narrowed
// to the app's installations and permissions, and only on operations with
// the user access token badge.
func TestUserAccessTokens(t *testing.T) {
	env, clk := newEnv(t)
	mona, monaTok := env.NewUser("mona", false)
	env.SetPassword(mona.Login, password)
	for _, name := range []string{"inside", "outside"} {
		env.Must(201, "POST", "/user/repos", monaTok, map[string]any{"name": name, "private": true})
	}
	var app struct {
		Slug         string `json:"slug"`
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	env.Must(201, "POST", "/admin/apps", env.AdminToken, map[string]any{"owner": "hubadmin", "name": "Issue Reader",
		"default_permissions": map[string]string{"issues": "read"}, "callback_url": "https://reader.example/auth"}).JSON(t, &app)
	env.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", env.AdminToken, map[string]any{"account": "mona",
		"repository_selection": "selected", "repositories": []string{"inside"}})

	b := env.Browser()
	b.SignIn(mona.Login, password)
	back := consent(t, b, url.Values{"client_id": {app.ClientID}, "state": {"s"}, "scope": {"repo"}}, true)
	form := url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {back.Query().Get("code")}}
	_, got, _ := tokenPost(t, env, "/login/oauth/access_token", "application/json", form)
	ghu, ghr := got.Get("access_token"), got.Get("refresh_token")
	if !strings.HasPrefix(ghu, "ghu_") || !strings.HasPrefix(ghr, "ghr_") || got.Get("expires_in") != "28800" ||
		got.Get("refresh_token_expires_in") != "15811200" || got.Get("scope") != "" || got.Get("token_type") != "bearer" {
		t.Fatalf("user access token: %v", got)
	}

	// Narrowed: the installation's repository, at the app's permissions.
	r := env.Must(200, "GET", "/user", ghu, nil)
	if r.Header.Get("X-OAuth-Scopes") != "" || !strings.Contains(string(r.Body), `"login":"mona"`) {
		t.Errorf("ghu_ /user: scopes %q", r.Header.Get("X-OAuth-Scopes"))
	}
	env.Must(200, "GET", "/repos/mona/inside", ghu, nil)
	env.Must(404, "GET", "/repos/mona/outside", ghu, nil)
	env.Must(200, "GET", "/repos/mona/inside/issues", ghu, nil)
	r = env.Must(403, "POST", "/repos/mona/inside/issues", ghu, map[string]string{"title": "no"})
	if !strings.Contains(string(r.Body), "Resource not accessible by integration") || r.Header.Get("X-Accepted-GitHub-Permissions") != "issues=write" {
		t.Errorf("write without issues: write: %s %q", r.Body, r.Header.Get("X-Accepted-GitHub-Permissions"))
	}
	// The installations it sees are its app's (go-github).
	var other struct {
		Slug string `json:"slug"`
	}
	env.Must(201, "POST", "/admin/apps", env.AdminToken, map[string]any{"owner": "hubadmin", "name": "Other App",
		"default_permissions": map[string]string{"contents": "read"}}).JSON(t, &other)
	env.Must(201, "POST", "/admin/apps/"+other.Slug+"/installations", env.AdminToken, map[string]any{"account": "mona"})
	ctx := context.Background()
	if l, _, err := env.GitHub(ghu).Apps.ListUserInstallations(ctx, nil); err != nil || len(l) != 1 || l[0].GetAppSlug() != app.Slug {
		t.Errorf("ghu_ installations: %v %d", err, len(l))
	}
	if l, _, err := env.GitHub(monaTok).Apps.ListUserInstallations(ctx, nil); err != nil || len(l) != 2 {
		t.Errorf("classic installations: %v %d", err, len(l))
	}
	// Repository lists show what both reach.
	var repos []struct {
		Name string `json:"name"`
	}
	env.Must(200, "GET", "/user/repos", ghu, nil).JSON(t, &repos)
	if len(repos) != 1 || repos[0].Name != "inside" {
		t.Errorf("ghu_ /user/repos: %+v", repos)
	}
	env.Must(200, "GET", "/user/repos", monaTok, nil).JSON(t, &repos)
	if len(repos) != 2 {
		t.Errorf("classic /user/repos: %+v", repos)
	}
	// An operation without the user access token badge.
	r = env.Must(403, "GET", "/repos/mona/inside/installation", ghu, nil)
	if !strings.Contains(string(r.Body), "Resource not accessible by integration") {
		t.Errorf("badge gate: %s", r.Body)
	}
	// The user's own reach still bounds the token: another user's private
	// repository stays hidden even where the app is installed.
	_, hubotTok := env.NewUser("hubot", false)
	env.Must(201, "POST", "/user/repos", hubotTok, map[string]any{"name": "secret", "private": true})
	env.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", env.AdminToken, map[string]any{"account": "hubot"})
	env.Must(404, "GET", "/repos/hubot/secret", ghu, nil)

	// Refresh: both rotate; the spent refresh token is refused.
	refresh := url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "grant_type": {"refresh_token"}, "refresh_token": {ghr}}
	_, got, _ = tokenPost(t, env, "/login/oauth/access_token", "", refresh)
	ghu2, ghr2 := got.Get("access_token"), got.Get("refresh_token")
	if !strings.HasPrefix(ghu2, "ghu_") || !strings.HasPrefix(ghr2, "ghr_") || ghu2 == ghu || ghr2 == ghr {
		t.Fatalf("refresh: %v", got)
	}
	if _, got, _ := tokenPost(t, env, "/login/oauth/access_token", "", refresh); got.Get("error") != "bad_refresh_token" {
		t.Errorf("refresh token used twice: %v", got)
	}
	env.Must(200, "GET", "/repos/mona/inside", ghu2, nil)

	// Eight hours on, the access token is gone; the refresh token works.
	clk.advance(8*time.Hour + time.Minute)
	r = env.Must(401, "GET", "/user", ghu2, nil)
	if !strings.Contains(string(r.Body), "Bad credentials") {
		t.Errorf("expired: %s", r.Body)
	}
	refresh.Set("refresh_token", ghr2)
	_, got, _ = tokenPost(t, env, "/login/oauth/access_token", "", refresh)
	if !strings.HasPrefix(got.Get("access_token"), "ghu_") {
		t.Fatalf("refresh after expiry: %v", got)
	}
	// A refresh token is the app's: another client's secret cannot use it.
	refresh.Set("refresh_token", got.Get("refresh_token"))
	refresh.Set("client_secret", "0000")
	if _, bad, _ := tokenPost(t, env, "/login/oauth/access_token", "", refresh); bad.Get("error") != "incorrect_client_credentials" {
		t.Errorf("refresh with a wrong secret: %v", bad)
	}
	// A token scoped to one repository (go-github has no method for it).
	env.Must(201, "POST", "/user/repos", monaTok, map[string]any{"name": "second", "private": true})
	env.Must(204, "PUT", "/user/installations/"+installationID(t, env, monaTok, app.Slug)+"/repositories/"+repoID(t, env, monaTok, "mona/second"), monaTok, nil)
	var scoped struct {
		Token string `json:"token"`
	}
	env.Must(200, "POST", "/applications/"+app.ClientID+"/token/scoped", "", map[string]any{"access_token": got.Get("access_token"),
		"target": "mona", "repositories": []string{"second"}}, basic(oauthApp{ClientID: app.ClientID, ClientSecret: app.ClientSecret})).JSON(t, &scoped)
	if !strings.HasPrefix(scoped.Token, "ghu_") {
		t.Fatalf("scoped token: %+v", scoped)
	}
	env.Must(200, "GET", "/repos/mona/second", scoped.Token, nil)
	env.Must(404, "GET", "/repos/mona/inside", scoped.Token, nil)
	env.Must(200, "GET", "/repos/mona/inside", got.Get("access_token"), nil)
	env.Must(422, "POST", "/applications/"+app.ClientID+"/token/scoped", "", map[string]any{"access_token": got.Get("access_token"),
		"target": "mona", "repositories": []string{"outside"}}, basic(oauthApp{ClientID: app.ClientID, ClientSecret: app.ClientSecret}))
	env.Must(422, "POST", "/applications/"+app.ClientID+"/token/scoped", "", map[string]any{"access_token": got.Get("access_token"),
		"target": "mona", "permissions": map[string]string{"issues": "write"}}, basic(oauthApp{ClientID: app.ClientID, ClientSecret: app.ClientSecret}))

	// The device flow gives a GitHub App the same pair (device flow is on
	// by default for apps).
	d := startDevice(t, env, app.ClientID, "")
	env.ApproveDevice(mona.Login, password, d.Get("user_code"), true)
	if dev := poll(t, env, app.ClientID, d.Get("device_code")); !strings.HasPrefix(dev.Get("access_token"), "ghu_") ||
		!strings.HasPrefix(dev.Get("refresh_token"), "ghr_") || dev.Get("expires_in") != "28800" {
		t.Errorf("app device flow: %v", dev)
	}

	// The app checks and revokes its user access token.
	ghu3 := got.Get("access_token")
	r = env.Must(200, "POST", "/applications/"+app.ClientID+"/token", "", map[string]string{"access_token": ghu3},
		basic(oauthApp{ClientID: app.ClientID, ClientSecret: app.ClientSecret}))
	if !strings.Contains(string(r.Body), `"expires_at":"`) {
		t.Errorf("check a ghu_: %s", r.Body)
	}
	env.Must(204, "DELETE", "/applications/"+app.ClientID+"/token", "", map[string]string{"access_token": ghu3},
		basic(oauthApp{ClientID: app.ClientID, ClientSecret: app.ClientSecret}))
	env.Must(401, "GET", "/user", ghu3, nil)
}

// TestUserAccessTokenWrites: what a user writes through a GitHub App is
// authored by the user and performed via the app (issues, comments, issue
// events, timeline, webhook-visible reads); the token shares the user's
// rate limit, as GitHub documents; it cannot revoke itself as an
// installation token.
func TestUserAccessTokenWrites(t *testing.T) {
	env, _ := newEnv(t)
	mona, monaTok := env.NewUser("mona", false)
	env.SetPassword(mona.Login, password)
	env.Must(201, "POST", "/user/repos", monaTok, map[string]any{"name": "tracker", "private": true})
	var app struct {
		ID           int64  `json:"id"`
		Slug         string `json:"slug"`
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	env.Must(201, "POST", "/admin/apps", env.AdminToken, map[string]any{"owner": "hubadmin", "name": "Triage Helper",
		"default_permissions": map[string]string{"issues": "write"}, "callback_url": "https://triage.example/auth"}).JSON(t, &app)
	env.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", env.AdminToken, map[string]any{"account": "mona"})
	b := env.Browser()
	b.SignIn(mona.Login, password)
	back := consent(t, b, url.Values{"client_id": {app.ClientID}}, true)
	_, got, _ := tokenPost(t, env, "/login/oauth/access_token", "application/json", url.Values{"client_id": {app.ClientID},
		"client_secret": {app.ClientSecret}, "code": {back.Query().Get("code")}})
	ghu := got.Get("access_token")

	ctx := context.Background()
	gh := env.GitHub(ghu)
	is, _, err := gh.Issues.Create(ctx, "mona", "tracker", github.CreateIssueRequest{Title: "via the app"})
	if err != nil || is.GetUser().GetLogin() != "mona" || is.GetPerformedViaGithubApp().GetSlug() != app.Slug ||
		is.GetPerformedViaGithubApp().GetOwner().GetLogin() != "hubadmin" {
		t.Fatalf("issue created with ghu_: %v %+v", err, is.GetPerformedViaGithubApp())
	}
	c, _, err := gh.Issues.CreateComment(ctx, "mona", "tracker", is.GetNumber(), github.IssueCommentRequest{Body: "noted"})
	if err != nil || c.GetUser().GetLogin() != "mona" || c.GetPerformedViaGithubApp().GetID() != app.ID {
		t.Fatalf("comment with ghu_: %v %+v", err, c.GetPerformedViaGithubApp())
	}
	if _, _, err := gh.Issues.Update(ctx, "mona", "tracker", is.GetNumber(), github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	evs, _, err := env.GitHub(monaTok).Issues.ListIssueEvents(ctx, "mona", "tracker", is.GetNumber(), nil)
	if err != nil || len(evs) != 1 || evs[0].GetEvent() != "closed" || evs[0].GetPerformedViaGithubApp().GetSlug() != app.Slug {
		t.Fatalf("closed event: %v %+v", err, evs)
	}
	// Read back with the user's own token: the app is remembered.
	again, _, err := env.GitHub(monaTok).Issues.Get(ctx, "mona", "tracker", is.GetNumber())
	if err != nil || again.GetPerformedViaGithubApp().GetSlug() != app.Slug {
		t.Fatalf("issue read back: %v %+v", err, again.GetPerformedViaGithubApp())
	}
	// What mona writes with her own token is hers alone.
	own, _, err := env.GitHub(monaTok).Issues.Create(ctx, "mona", "tracker", github.CreateIssueRequest{Title: "by hand"})
	if err != nil || own.PerformedViaGithubApp != nil {
		t.Fatalf("issue created with a classic token: %v %+v", err, own.PerformedViaGithubApp)
	}
	env.Must(200, "GET", "/repos/mona/tracker/issues/1/timeline", monaTok, nil)

	// One quota for the user, whichever token she or her apps use.
	used := func(tok string) int {
		n, _ := strconv.Atoi(env.Must(200, "GET", "/user", tok, nil).Header.Get("X-RateLimit-Used"))
		return n
	}
	u1 := used(monaTok)
	u2 := used(ghu)
	if u1 == 0 || u2 != u1+1 || used(monaTok) != u1+2 {
		t.Errorf("ghu_ requests count on mona's quota: used %d, then %d with the ghu_", u1, u2)
	}
	// An installation token revokes itself there; a user access token may
	// not (its app revokes it through /applications/{client_id}/token).
	r := env.Must(403, "DELETE", "/installation/token", ghu, nil)
	if !strings.Contains(string(r.Body), "Resource not accessible by integration") {
		t.Errorf("DELETE /installation/token with ghu_: %s", r.Body)
	}
	env.Must(200, "GET", "/user", ghu, nil)
}
