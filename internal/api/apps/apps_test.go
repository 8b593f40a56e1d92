package apps_test

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
)

// The flow of ghinstallation through go-github: the app signs a JWT with
// its key, finds its installation, gets an installation token and calls the
// API with it as its bot.
func TestInstallationFlow(t *testing.T) {
	w := newWorld(t)
	if !strings.HasPrefix(w.app.ClientID, "Iv23") || len(w.app.ClientSecret) != 40 || !strings.Contains(w.app.PEM, "BEGIN RSA PRIVATE KEY") {
		t.Fatalf("created app: client id %q, secret of %d characters, pem %.40q", w.app.ClientID, len(w.app.ClientSecret), w.app.PEM)
	}
	if w.app.Permissions["metadata"] != "read" || w.app.Permissions["issues"] != "write" {
		t.Fatalf("app permissions %v: want issues: write and metadata: read added", w.app.Permissions)
	}
	gj := w.e.GitHub(w.appJWT())

	app, _, err := gj.Apps.Get(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if app.GetID() != w.app.ID || app.GetSlug() != "triage-bot" || app.GetOwner().GetLogin() != "acme" || app.GetInstallationsCount() != 1 {
		t.Fatalf("GET /app: %+v", app)
	}
	if _, _, err := w.e.GitHub("").Apps.Get(ctx, "triage-bot"); err != nil {
		t.Fatalf("GET /apps/triage-bot anonymously: %v", err)
	}
	list, _, err := gj.Apps.ListInstallations(ctx, nil)
	if err != nil || len(list) != 1 || list[0].GetID() != w.inst {
		t.Fatalf("GET /app/installations: %v %v", list, err)
	}
	in, _, err := gj.Apps.GetInstallation(ctx, w.inst)
	if err != nil || in.GetAccount().GetLogin() != "acme" || in.GetRepositorySelection() != "selected" || in.GetTargetType() != "Organization" ||
		in.GetAppSlug() != "triage-bot" || in.GetPermissions().GetIssues() != "write" {
		t.Fatalf("GET /app/installations/%d: %+v %v", w.inst, in, err)
	}
	if in, _, err := gj.Apps.GetOrganizationInstallation(ctx, "acme"); err != nil || in.GetID() != w.inst {
		t.Fatalf("GET /orgs/acme/installation: %v", err)
	}
	if in, _, err := gj.Apps.GetRepositoryInstallation(ctx, "acme", "widgets"); err != nil || in.GetID() != w.inst {
		t.Fatalf("GET /repos/acme/widgets/installation: %v", err)
	}
	if _, resp, _ := gj.Apps.GetRepositoryInstallation(ctx, "acme", "secret"); resp.StatusCode != 404 {
		t.Fatalf("installation of a repository it does not reach: %d", resp.StatusCode)
	}
	if _, resp, _ := gj.Apps.GetUserInstallation(ctx, "alice"); resp.StatusCode != 404 {
		t.Fatalf("installation on a user it is not installed on: %d", resp.StatusCode)
	}

	tok := w.token(nil)
	if !strings.HasPrefix(tok.GetToken(), "ghs_") || tok.GetPermissions().GetIssues() != "write" {
		t.Fatalf("token %+v", tok)
	}
	// An hour from its creation (seconds in the answer: the clock may
	// have crossed a second since).
	if exp := tok.GetExpiresAt().Time; exp.Sub(w.now()) > time.Hour || exp.Sub(w.now()) < time.Hour-2*time.Second {
		t.Fatalf("token expires at %v, now %v: want an hour", exp, w.now())
	}
	gi := w.e.GitHub(tok.GetToken())

	// The bot opens an issue and comments: it is their author.
	issue, _, err := gi.Issues.Create(ctx, "acme", "widgets", github.CreateIssueRequest{Title: "From the bot", Labels: []string{"triage"}})
	if err != nil {
		t.Fatal(err)
	}
	if u := issue.GetUser(); u.GetLogin() != "triage-bot[bot]" || u.GetType() != "Bot" {
		t.Fatalf("issue author %s (%s)", u.GetLogin(), u.GetType())
	}
	if len(issue.Labels) != 1 {
		t.Fatalf("labels of the bot's issue: %v (issues: write sets labels)", issue.Labels)
	}
	c, _, err := gi.Issues.CreateComment(ctx, "acme", "widgets", issue.GetNumber(), github.IssueCommentRequest{Body: "done"})
	if err != nil || c.GetUser().GetLogin() != "triage-bot[bot]" {
		t.Fatalf("comment: %v %v", c, err)
	}
	// It reads what contents: read allows.
	if _, _, _, err := gi.Repositories.GetContents(ctx, "acme", "gadgets", "README.md", nil); err != nil {
		t.Fatalf("read a file with contents: read: %v", err)
	}
	// A repository of acme the installation does not reach does not exist
	// for it; another account's public one reads as for anyone.
	if _, resp, _ := gi.Repositories.Get(ctx, "acme", "secret"); resp.StatusCode != 404 {
		t.Fatalf("repository outside the installation: %d", resp.StatusCode)
	}
	if _, resp, _ := gi.Issues.Create(ctx, "acme", "secret", github.CreateIssueRequest{Title: "x"}); resp.StatusCode != 404 {
		t.Fatalf("issue in a repository outside the installation: %d", resp.StatusCode)
	}
	if _, _, err := gi.Repositories.Get(ctx, "bob", "pub"); err != nil {
		t.Fatalf("public repository: %v", err)
	}

	// GET /installation/repositories lists exactly the selection.
	repos, _, err := gi.Apps.ListRepos(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range repos.Repositories {
		names = append(names, r.GetFullName())
	}
	if repos.GetTotalCount() != 2 || strings.Join(names, ",") != "acme/gadgets,acme/widgets" {
		t.Fatalf("installation repositories: %d %v", repos.GetTotalCount(), names)
	}
	page, resp, err := gi.Apps.ListRepos(ctx, &github.ListOptions{PerPage: 1, Page: 2})
	if err != nil || len(page.Repositories) != 1 || page.Repositories[0].GetName() != "widgets" || resp.PrevPage != 1 {
		t.Fatalf("second page: %v %v", page, err)
	}

	// GET /app with the installation token is the app.
	if a, _, err := gi.Apps.Get(ctx, ""); err != nil || a.GetID() != w.app.ID {
		t.Fatalf("GET /app with the installation token: %v", err)
	}

	// The token revokes itself; it is then bad credentials.
	if _, err := gi.Apps.RevokeInstallationToken(ctx); err != nil {
		t.Fatal(err)
	}
	r := w.e.Do("GET", "/repos/acme/widgets", tok.GetToken(), nil)
	expect(t, "revoked token", r, 401, "Bad credentials")
}

// An installation token may call only what its permissions allow: 403 with
// X-Accepted-GitHub-Permissions otherwise.
func TestInstallationPermissions(t *testing.T) {
	w := newWorld(t)
	tok := w.token(nil).GetToken()
	for _, c := range []struct {
		method, path string
		body         any
		status       int
		accepted     string
	}{
		{"GET", "/repos/acme/widgets/issues", nil, 200, "issues=read"},
		{"POST", "/repos/acme/widgets/labels", map[string]string{"name": "needs-triage"}, 201, "issues=write; pull_requests=write"},
		{"GET", "/repos/acme/widgets/contents/README.md", nil, 200, "contents=read"},
		{"GET", "/repos/acme/widgets", nil, 200, "metadata=read"},
		// Missing permissions.
		{"PUT", "/repos/acme/widgets/contents/new.txt", map[string]string{"message": "add", "content": "aGk="}, 403, "contents=write"},
		{"GET", "/repos/acme/widgets/pulls", nil, 403, "pull_requests=read"},
		{"PATCH", "/repos/acme/widgets", map[string]any{"description": "x"}, 403, "administration=write"},
		{"DELETE", "/repos/acme/widgets", nil, 403, "administration=write"},
		{"POST", "/repos/acme/widgets/statuses/main", map[string]string{"state": "success"}, 403, "statuses=write"},
		{"GET", "/orgs/acme/members", nil, 403, "members=read"},
		// Operations installation tokens may not call at all.
		{"GET", "/user", nil, 403, ""},
		{"GET", "/user/repos", nil, 403, ""},
		{"GET", "/user/installations", nil, 403, ""},
	} {
		r := w.e.Do(c.method, c.path, tok, c.body)
		if r.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d: %.200s", c.method, c.path, r.StatusCode, c.status, r.Body)
			continue
		}
		if got := r.Header.Get("X-Accepted-GitHub-Permissions"); got != c.accepted {
			t.Errorf("%s %s: X-Accepted-GitHub-Permissions %q, want %q", c.method, c.path, got, c.accepted)
		}
		if c.status == 403 {
			if m := message(t, r); m != "Resource not accessible by integration" {
				t.Errorf("%s %s: %q", c.method, c.path, m)
			}
		}
		if r.Header.Get("X-OAuth-Scopes") != "" {
			t.Errorf("%s %s: X-OAuth-Scopes sent to an installation", c.method, c.path)
		}
	}
	// Installations count against their own limit: GitHub's 5,000 an hour.
	r := w.e.Must(200, "GET", "/repos/acme/widgets", tok, nil)
	if r.Header.Get("X-RateLimit-Limit") != "5000" {
		t.Errorf("installation rate limit %s, want 5000", r.Header.Get("X-RateLimit-Limit"))
	}
	// git: fetching a private repository needs contents: read (held), pushing
	// contents: write (not held).
	info := w.e.Do("GET", w.e.URL+"/acme/widgets.git/info/refs?service=git-receive-pack", "", nil, "Authorization: Basic "+basic("x-access-token", tok))
	if info.StatusCode != 403 {
		t.Errorf("git push discovery without contents: write: %d", info.StatusCode)
	}
	info = w.e.Do("GET", w.e.URL+"/acme/widgets.git/info/refs?service=git-upload-pack", "", nil, "Authorization: Basic "+basic("x-access-token", tok))
	if info.StatusCode != 200 {
		t.Errorf("git fetch discovery with contents: read: %d", info.StatusCode)
	}
}

// A token narrowed to fewer repositories and permissions gets only those;
// asking for more than the installation has is a 422.
func TestNarrowedTokens(t *testing.T) {
	w := newWorld(t)
	tok := w.token(&github.InstallationTokenOptions{Repositories: []string{"widgets"}, Permissions: &github.InstallationPermissions{Issues: github.Ptr("read")}})
	if len(tok.Repositories) != 1 || tok.Repositories[0].GetFullName() != "acme/widgets" {
		t.Fatalf("narrowed token: %v", tok.Repositories)
	}
	if p := tok.GetPermissions(); p.GetIssues() != "read" || p.GetContents() != "" || p.GetMetadata() != "read" {
		t.Fatalf("narrowed permissions: %+v", p)
	}
	s := tok.GetToken()
	w.e.Must(200, "GET", "/repos/acme/widgets/issues", s, nil)
	r := w.e.Do("POST", "/repos/acme/widgets/issues", s, map[string]string{"title": "x"})
	expect(t, "issue with issues: read", r, 403, "Resource not accessible by integration")
	if r.Header.Get("X-Accepted-GitHub-Permissions") != "issues=write" {
		t.Errorf("accepted %q", r.Header.Get("X-Accepted-GitHub-Permissions"))
	}
	expect(t, "repository left out of the token", w.e.Do("GET", "/repos/acme/gadgets", s, nil), 404, "")
	var listed struct {
		TotalCount int    `json:"total_count"`
		Selection  string `json:"repository_selection"`
	}
	w.e.Must(200, "GET", "/installation/repositories", s, nil).JSON(t, &listed)
	if listed.TotalCount != 1 || listed.Selection != "selected" {
		t.Fatalf("narrowed token lists %+v", listed)
	}
	// By id, too.
	byID := w.token(&github.InstallationTokenOptions{RepositoryIDs: []int64{w.repos["acme/gadgets"]}})
	if len(byID.Repositories) != 1 || byID.Repositories[0].GetName() != "gadgets" {
		t.Fatalf("token by repository id: %v", byID.Repositories)
	}

	jwt := w.appJWT()
	for _, c := range []struct {
		name string
		body map[string]any
		msg  string
	}{
		{"a permission the installation lacks", map[string]any{"permissions": map[string]string{"pull_requests": "read"}}, "The permissions requested are not granted to this installation."},
		{"a higher level", map[string]any{"permissions": map[string]string{"contents": "write"}}, "The permissions requested are not granted to this installation."},
		{"a repository outside the selection", map[string]any{"repositories": []string{"secret"}}, "There is at least one repository that does not exist or is not accessible to the parent installation."},
		{"no such repository", map[string]any{"repositories": []string{"nope"}}, "There is at least one repository that does not exist or is not accessible to the parent installation."},
		{"another account's repository", map[string]any{"repository_ids": []int64{w.repos["bob/pub"]}}, "There is at least one repository that does not exist or is not accessible to the parent installation."},
	} {
		r := w.bearer("POST", "/app/installations/"+strconv.FormatInt(w.inst, 10)+"/access_tokens", jwt, c.body)
		expect(t, c.name, r, 422, c.msg)
	}
}

// JWTs GitHub refuses, with its words.
func TestBadJWTs(t *testing.T) {
	w := newWorld(t)
	now := w.now().Unix()
	id := w.app.ID
	for _, c := range []struct {
		name string
		jwt  string
		msg  string
	}{
		{"not a JWT", "a.b.c", "A JSON web token could not be decoded"},
		{"garbage parts", "eyJhbGciOiJSUzI1NiJ9.!!!.xyz", "A JSON web token could not be decoded"},
		{"signed by another key", signJWT(t, otherKey(t), "RS256", map[string]any{"iat": now - 30, "exp": now + 120, "iss": id}), "A JSON web token could not be decoded"},
		{"another algorithm", signJWT(t, w.app.PEM, "RS512", map[string]any{"iat": now - 30, "exp": now + 120, "iss": id}), "A JSON web token could not be decoded"},
		{"unknown app", w.jwt(map[string]any{"iat": now - 30, "exp": now + 120, "iss": id + 1000}), "A JSON web token could not be decoded"},
		{"no issuer", w.jwt(map[string]any{"iat": now - 30, "exp": now + 120}), "Missing 'issuer' claim ('iss') in assertion"},
		{"issuer not an id", w.jwt(map[string]any{"iat": now - 30, "exp": now + 120, "iss": "not-an-app"}), "'Issuer' claim ('iss') must be an Integer"},
		{"expired", w.jwt(map[string]any{"iat": now - 700, "exp": now - 100, "iss": id}), "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"},
		{"no expiry", w.jwt(map[string]any{"iat": now - 30, "iss": id}), "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"},
		{"issued in the future", w.jwt(map[string]any{"iat": now + 120, "exp": now + 300, "iss": id}), "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"},
		{"iat a string", w.jwt(map[string]any{"iat": strconv.FormatInt(now, 10), "exp": now + 120, "iss": id}), "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"},
		{"lives too long", w.jwt(map[string]any{"iat": now - 300, "exp": now + 400, "iss": id}), "'Expiration time' claim ('exp') is too far in the future"},
		{"expires too far ahead", w.jwt(map[string]any{"iat": now + 50, "exp": now + 12*60, "iss": id}), "'Expiration time' claim ('exp') is too far in the future"},
	} {
		r := w.bearer("GET", "/app", c.jwt, nil)
		expect(t, c.name, r, 401, c.msg)
	}
	// Accepted: iss as a string or the client id; GitHub's documented
	// example (iat a minute ago, exp ten minutes ahead); a clock a minute
	// off either way.
	for name, claims := range map[string]map[string]any{
		"iss a string":             {"iat": now - 30, "exp": now + 120, "iss": strconv.FormatInt(id, 10)},
		"iss the client id":        {"iat": now - 30, "exp": now + 120, "iss": w.app.ClientID},
		"docs example":             {"iat": now - 60, "exp": now + 600, "iss": id},
		"clock 50 s ahead":         {"iat": now + 50, "exp": now + 50 + 540, "iss": id},
		"expired 30 s ago (drift)": {"iat": now - 500, "exp": now - 30, "iss": id},
	} {
		expect(t, name, w.bearer("GET", "/app", w.jwt(claims), nil), 200, "")
	}

	// A JWT reaches only the app's own operations; other credentials are not
	// a JWT there.
	jwt := w.appJWT()
	expect(t, "JWT on GET /user", w.bearer("GET", "/user", jwt, nil), 401, "Bad credentials")
	expect(t, "JWT on a repository", w.bearer("GET", "/repos/bob/pub", jwt, nil), 401, "Bad credentials")
	expect(t, "classic token on GET /app/installations", w.e.Do("GET", "/app/installations", w.aliceTok, nil), 401, "A JSON web token could not be decoded")
	tok := w.token(nil).GetToken()
	expect(t, "installation token on GET /app/installations", w.e.Do("GET", "/app/installations", tok, nil), 401, "A JSON web token could not be decoded")
	expect(t, "no credentials on GET /app", w.e.Do("GET", "/app", "", nil), 401, "Requires authentication")
	// Another app's installation is not found.
	expect(t, "unknown installation", w.bearer("GET", "/app/installations/999999", jwt, nil), 404, "Not Found")
}

// An installation token works for an hour; a JWT for at most ten minutes.
func TestExpiry(t *testing.T) {
	w := newWorld(t)
	tok := w.token(nil).GetToken()
	jwt := w.appJWT()
	start := w.now()
	w.e.Store.SetClock(func() time.Time { return start.Add(59 * time.Minute) })
	w.e.Must(200, "GET", "/repos/acme/widgets", tok, nil)
	expect(t, "JWT after its exp (and the drift)", w.bearer("GET", "/app", jwt, nil), 401,
		"'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	w.e.Store.SetClock(func() time.Time { return start.Add(time.Hour) })
	expect(t, "token after an hour", w.e.Do("GET", "/repos/acme/widgets", tok, nil), 401, "Bad credentials")
}

// Suspension, uninstallation and the installation views of users.
func TestInstallationLifecycle(t *testing.T) {
	w := newWorld(t)
	gj := w.e.GitHub(w.appJWT())
	tok := w.token(nil).GetToken()

	if _, err := gj.Apps.SuspendInstallation(ctx, w.inst); err != nil {
		t.Fatal(err)
	}
	in, _, err := gj.Apps.GetInstallation(ctx, w.inst)
	if err != nil || in.SuspendedAt == nil || in.GetSuspendedBy().GetLogin() != "triage-bot[bot]" {
		t.Fatalf("suspended installation: %+v %v", in, err)
	}
	expect(t, "token of a suspended installation", w.e.Do("GET", "/repos/acme/widgets", tok, nil), 403, "This installation has been suspended")
	expect(t, "new token for a suspended installation", w.bearer("POST", "/app/installations/"+strconv.FormatInt(w.inst, 10)+"/access_tokens", w.appJWT(), nil),
		403, "This installation has been suspended")
	if _, err := gj.Apps.UnsuspendInstallation(ctx, w.inst); err != nil {
		t.Fatal(err)
	}
	w.e.Must(200, "GET", "/repos/acme/widgets", tok, nil)

	// Alice (acme's owner) sees the installation and adds secret to it.
	ga := w.e.GitHub(w.aliceTok)
	mine, _, err := ga.Apps.ListUserInstallations(ctx, nil)
	if err != nil || len(mine) != 1 || mine[0].GetID() != w.inst {
		t.Fatalf("GET /user/installations: %v %v", mine, err)
	}
	if _, _, err := w.e.GitHub(w.bobTok).Apps.ListUserInstallations(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if l, _, _ := w.e.GitHub(w.bobTok).Apps.ListUserInstallations(ctx, nil); len(l) != 0 {
		t.Fatalf("bob sees %d installations", len(l))
	}
	listed, _, err := ga.Apps.ListUserRepos(ctx, w.inst, nil)
	if err != nil || listed.GetTotalCount() != 2 {
		t.Fatalf("GET /user/installations/%d/repositories: %v %v", w.inst, listed, err)
	}
	if _, _, err := ga.Apps.AddRepository(ctx, w.inst, w.repos["acme/secret"]); err != nil {
		t.Fatal(err)
	}
	w.e.Must(200, "GET", "/repos/acme/secret", tok, nil) // the token follows the installation
	if _, err := ga.Apps.RemoveRepository(ctx, w.inst, w.repos["acme/widgets"]); err != nil {
		t.Fatal(err)
	}
	expect(t, "repository removed from the installation", w.e.Do("GET", "/repos/acme/widgets", tok, nil), 404, "")
	// Bob may not change acme's installation, nor see it.
	if _, err := w.e.GitHub(w.bobTok).Apps.RemoveRepository(ctx, w.inst, w.repos["acme/gadgets"]); err == nil {
		t.Fatal("bob removed a repository")
	}
	orgList, _, err := ga.Organizations.ListInstallations(ctx, "acme", nil)
	if err != nil || orgList.GetTotalCount() != 1 || orgList.Installations[0].GetAppSlug() != "triage-bot" {
		t.Fatalf("GET /orgs/acme/installations: %v %v", orgList, err)
	}
	if _, resp, _ := w.e.GitHub(w.bobTok).Organizations.ListInstallations(ctx, "acme", nil); resp.StatusCode != 403 {
		t.Fatalf("a non-member lists acme's installations: %d", resp.StatusCode)
	}

	// The app uninstalls itself: its tokens stop working.
	if _, err := gj.Apps.DeleteInstallation(ctx, w.inst); err != nil {
		t.Fatal(err)
	}
	expect(t, "token of a deleted installation", w.e.Do("GET", "/repos/acme/gadgets", tok, nil), 401, "Bad credentials")
	if l, _, err := gj.Apps.ListInstallations(ctx, nil); err != nil || len(l) != 0 {
		t.Fatalf("installations after uninstalling: %v %v", l, err)
	}
}

// An installation on all of a user's repositories reaches every one of
// them, including those created after the token.
func TestInstallationOnAllRepositories(t *testing.T) {
	w := newWorld(t)
	gb := w.e.GitHub(w.bobTok)
	if _, _, err := gb.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hidden"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	var in struct {
		ID      int64                  `json:"id"`
		Account struct{ Login string } `json:"account"`
		Sel     string                 `json:"repository_selection"`
	}
	w.e.Must(201, "POST", "/admin/apps/triage-bot/installations", w.e.AdminToken, map[string]any{"account": "bob"}).JSON(t, &in)
	if in.Sel != "all" {
		t.Fatalf("selection %q", in.Sel)
	}
	gj := w.e.GitHub(w.appJWT())
	if got, _, err := gj.Apps.GetUserInstallation(ctx, "bob"); err != nil || got.GetID() != in.ID || got.GetTargetType() != "User" {
		t.Fatalf("GET /users/bob/installation: %v", err)
	}
	var tok struct {
		Token     string `json:"token"`
		Selection string `json:"repository_selection"`
	}
	w.bearer("POST", "/app/installations/"+strconv.FormatInt(in.ID, 10)+"/access_tokens", w.appJWT(), nil).JSON(t, &tok)
	if tok.Selection != "all" {
		t.Fatalf("token's selection %q", tok.Selection)
	}
	s := tok.Token
	w.e.Must(200, "GET", "/repos/bob/hidden", s, nil)
	if _, _, err := gb.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("later"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	w.e.Must(200, "GET", "/repos/bob/later", s, nil)
	expect(t, "acme's repository with bob's installation", w.e.Do("GET", "/repos/acme/widgets", s, nil), 404, "")
	var listed struct {
		TotalCount   int `json:"total_count"`
		Repositories []struct {
			Name string `json:"name"`
		} `json:"repositories"`
	}
	w.e.Must(200, "GET", "/installation/repositories", s, nil).JSON(t, &listed)
	var names []string
	for _, r := range listed.Repositories {
		names = append(names, r.Name)
	}
	sort.Strings(names)
	if listed.TotalCount != 3 || strings.Join(names, ",") != "hidden,later,pub" {
		t.Fatalf("all repositories: %d %v", listed.TotalCount, names)
	}
	// An installation on all repositories keeps them all.
	r := w.e.Do("DELETE", "/user/installations/"+strconv.FormatInt(in.ID, 10)+"/repositories/"+strconv.FormatInt(w.repos["bob/pub"], 10), w.bobTok, nil)
	expect(t, "remove from an installation on all repositories", r, 422, "")
}

// Creating apps and installing them is for site administrators.
func TestAdminRoutes(t *testing.T) {
	w := newWorld(t)
	body := map[string]any{"owner": "alice", "name": "Other"}
	expect(t, "a user creates an app", w.e.Do("POST", "/admin/apps", w.aliceTok, body), 403, "Must be a site administrator.")
	expect(t, "same name", w.e.Do("POST", "/admin/apps", w.e.AdminToken, map[string]any{"owner": "alice", "name": "triage bot"}), 422, "Validation Failed")
	expect(t, "unknown permission", w.e.Do("POST", "/admin/apps", w.e.AdminToken, map[string]any{"owner": "alice", "name": "X",
		"default_permissions": map[string]string{"issues": "admin"}}), 422, "Validation Failed")
	expect(t, "no owner", w.e.Do("POST", "/admin/apps", w.e.AdminToken, map[string]any{"name": "X"}), 422, "Validation Failed")
	expect(t, "installed twice", w.e.Do("POST", "/admin/apps/triage-bot/installations", w.e.AdminToken, map[string]any{"account": "acme"}), 422, "Validation Failed")
	expect(t, "another account's repository", w.e.Do("POST", "/admin/apps/triage-bot/installations", w.e.AdminToken,
		map[string]any{"account": "alice", "repositories": []string{"widgets"}}), 422, "Validation Failed")
	// The bot is an account of type Bot.
	var u struct {
		Login, Type string
	}
	w.e.Must(200, "GET", "/users/triage-bot[bot]", w.aliceTok, nil).JSON(t, &u)
	if u.Type != "Bot" {
		t.Fatalf("bot user %+v", u)
	}
}

func basic(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}
