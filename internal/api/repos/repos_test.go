package repos_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// newOrg creates an organization administered by admin, with members who may
// create public and private (not internal) repositories.
func newOrg(t testing.TB, e *apitest.Env, login string, admin *model.Account, members ...*model.Account) *model.Account {
	t.Helper()
	org := &model.Account{Login: login, MembersCanCreateRepos: true, MembersCanCreatePublicRepos: true,
		MembersCanCreatePrivRepos: true, DefaultRepoPermission: "read"}
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, admin.ID); err != nil {
			return err
		}
		for _, m := range members {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: m.ID, Role: model.RoleMember, State: "active"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return org
}

func collaborator(t *testing.T, e *apitest.Env, owner, name string, u *model.Account, p authz.Permission) {
	t.Helper()
	v, err := e.Store.R().RepoByName(ctx, owner, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, v.Repo.ID, u.ID, p) }); err != nil {
		t.Fatal(err)
	}
}

func create(t *testing.T, gh *github.Client, org string, r *github.Repository) *github.Repository {
	t.Helper()
	got, resp, err := gh.Repositories.Create(ctx, org, r)
	if err != nil {
		t.Fatalf("create %s: %v", r.GetName(), err)
	}
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create %s: status %d", r.GetName(), resp.StatusCode)
	}
	return got
}

func TestCreateGetEditDelete(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)

	r := create(t, gh, "", &github.Repository{Name: github.Ptr("Hello World!"), Description: github.Ptr("My first"), Private: github.Ptr(true),
		HasWiki: github.Ptr(false), AllowAutoMerge: github.Ptr(true), IsTemplate: github.Ptr(true)})
	if r.GetName() != "Hello-World-" || r.GetFullName() != "mona/Hello-World-" || !r.GetPrivate() || r.GetVisibility() != "private" ||
		r.GetOwner().GetLogin() != "mona" || r.GetDescription() != "My first" || r.GetHasWiki() || !r.GetHasIssues() ||
		!r.GetAllowAutoMerge() || !r.GetIsTemplate() || r.GetDefaultBranch() != "main" || r.Organization != nil {
		t.Fatalf("created %+v", r)
	}
	if r.GetCloneURL() != e.URL+"/mona/Hello-World-.git" || r.GetHTMLURL() != e.URL+"/mona/Hello-World-" ||
		r.GetURL() != e.API+"/repos/mona/Hello-World-" || !strings.HasPrefix(r.GetSSHURL(), "git@127.0.0.1:") {
		t.Fatalf("urls %s %s %s %s", r.GetCloneURL(), r.GetHTMLURL(), r.GetURL(), r.GetSSHURL())
	}
	if p := r.GetPermissions(); !p.GetAdmin() || !p.GetPush() || !p.GetPull() {
		t.Fatalf("permissions %+v", p)
	}
	got, _, err := gh.Repositories.Get(ctx, "MONA", "hello-world-")
	if err != nil || got.GetID() != r.GetID() || got.GetPushedAt().IsZero() {
		t.Fatalf("get: %+v %v", got, err)
	}

	edited, _, err := gh.Repositories.Edit(ctx, "mona", "Hello-World-", &github.Repository{
		Description: github.Ptr("edited"), Homepage: github.Ptr("https://example.com"), Private: github.Ptr(false),
		HasIssues: github.Ptr(false), SquashMergeCommitTitle: github.Ptr("PR_TITLE"), SquashMergeCommitMessage: github.Ptr("PR_BODY"),
		Archived: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if edited.GetDescription() != "edited" || edited.GetHomepage() != "https://example.com" || edited.GetPrivate() ||
		edited.GetVisibility() != "public" || edited.GetHasIssues() || !edited.GetUseSquashPRTitleAsDefault() ||
		edited.GetSquashMergeCommitMessage() != "PR_BODY" || !edited.GetArchived() || edited.GetHasWiki() {
		t.Fatalf("edited %+v", edited)
	}
	// An empty string clears the description (the description types it a
	// string, so the request schema refuses null); absent keeps the homepage.
	m := e.Must(200, "PATCH", "/repos/mona/Hello-World-", tok, map[string]any{"description": "", "archived": false}).Map(t)
	if m["description"] != nil || m["homepage"] != "https://example.com" || m["archived"] != false {
		t.Fatalf("after null: %v %v %v", m["description"], m["homepage"], m["archived"])
	}
	// A public repository reads anonymously, without a permissions object.
	anon := e.Must(200, "GET", "/repos/mona/Hello-World-", "", nil).Map(t)
	if _, ok := anon["permissions"]; ok {
		t.Fatal("anonymous caller got permissions")
	}
	if _, ok := anon["allow_squash_merge"]; ok {
		t.Fatal("anonymous caller got merge settings")
	}

	// A PATCH that changes nothing writes nothing.
	e.Must(200, "PATCH", "/repos/mona/Hello-World-", tok, map[string]any{"description": "", "has_wiki": false})

	if _, err := gh.Repositories.Delete(ctx, "mona", "Hello-World-"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Get(ctx, "mona", "Hello-World-"); apitest.Status(err) != 404 {
		t.Fatalf("after delete: %v", err)
	}
	events, err := e.Store.R().EventsAfter(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	want := "repository.created repository.archived repository.publicized repository.edited repository.unarchived repository.edited repository.deleted"
	if strings.Join(types, " ") != want {
		t.Fatalf("events %v, want %s", types, want)
	}
}

func TestRenameRedirects(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	create(t, gh, "", &github.Repository{Name: github.Ptr("old")})
	if _, _, err := gh.Repositories.Edit(ctx, "mona", "old", &github.Repository{Name: github.Ptr("new")}); err != nil {
		t.Fatal(err)
	}
	// The old name answers 301 to the new URL, keeping the query.
	r := noFollow(t, e, "GET", e.API+"/repos/mona/old?per_page=5", tok)
	if r.StatusCode != 301 || r.Header.Get("Location") != e.API+"/repos/mona/new?per_page=5" {
		t.Fatalf("GET old name: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	m := r.Map(t)
	if m["message"] != "Moved Permanently" || m["url"] != e.API+"/repos/mona/new?per_page=5" || m["documentation_url"] == nil {
		t.Fatalf("body %s", r.Body)
	}
	// Without the /api/v3 prefix the redirect stays without it.
	if r := noFollow(t, e, "GET", e.URL+"/repos/mona/old", tok); r.StatusCode != 301 || r.Header.Get("Location") != e.URL+"/repos/mona/new" {
		t.Fatalf("root: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	// Other methods get 307.
	if r := noFollow(t, e, "DELETE", e.API+"/repos/mona/old", tok); r.StatusCode != 307 || r.Header.Get("Location") != e.API+"/repos/mona/new" {
		t.Fatalf("DELETE old name: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	// go-github follows both.
	got, _, err := gh.Repositories.Get(ctx, "mona", "old")
	if err != nil || got.GetName() != "new" {
		t.Fatalf("followed GET: %+v %v", got, err)
	}
	ed, _, err := gh.Repositories.Edit(ctx, "mona", "old", &github.Repository{Description: github.Ptr("via old name")})
	if err != nil || ed.GetDescription() != "via old name" || ed.GetName() != "new" {
		t.Fatalf("followed PATCH: %+v %v", ed, err)
	}
	// Another user cannot learn where a private repository went.
	_, other := e.NewUser("hubot", false)
	if _, _, err := gh.Repositories.Edit(ctx, "mona", "new", &github.Repository{Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", "/repos/mona/old", other, nil)
	e.Must(404, "GET", "/repos/mona/old", "", nil)
	// A new repository takes the old name over.
	fresh := create(t, gh, "", &github.Repository{Name: github.Ptr("old")})
	again, _, err := gh.Repositories.Get(ctx, "mona", "old")
	if err != nil || again.GetID() != fresh.GetID() {
		t.Fatalf("old name after re-create: %+v %v", again, err)
	}
	// Renaming onto a taken name fails.
	_, _, err = gh.Repositories.Edit(ctx, "mona", "new", &github.Repository{Name: github.Ptr("OLD")})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || len(er.Errors) != 1 || er.Errors[0].Message != "name already exists on this account" {
		t.Fatalf("rename onto taken: %v", err)
	}
}

func TestAccess(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	reader, readerTok := e.NewUser("reader", false)
	_, strangerTok := e.NewUser("stranger", false)
	gh := e.GitHub(tok)
	create(t, gh, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)})
	create(t, gh, "", &github.Repository{Name: github.Ptr("open")})
	collaborator(t, e, "mona", "secret", reader, authz.Read)
	collaborator(t, e, "mona", "open", reader, authz.Read)
	noRepo := e.Token(mona, "user")
	publicOnly := e.Token(mona, "public_repo")

	for _, tc := range []struct {
		name         string
		method, path string
		token        string
		body         any
		status       int
		message      string
	}{
		{"private, anonymous", "GET", "/repos/mona/secret", "", nil, 404, "Not Found"},
		{"private, stranger", "GET", "/repos/mona/secret", strangerTok, nil, 404, "Not Found"},
		{"private, owner's token without repo", "GET", "/repos/mona/secret", noRepo, nil, 404, "Not Found"},
		{"private, collaborator", "GET", "/repos/mona/secret", readerTok, nil, 200, ""},
		{"public, anonymous", "GET", "/repos/mona/open", "", nil, 200, ""},
		{"public, owner's token without repo", "GET", "/repos/mona/open", noRepo, nil, 200, ""},
		{"patch, reader", "PATCH", "/repos/mona/open", readerTok, map[string]any{"description": "x"}, 403, "Must have admin rights to Repository."},
		{"patch, stranger", "PATCH", "/repos/mona/open", strangerTok, map[string]any{"description": "x"}, 403, "Must have admin rights to Repository."},
		{"patch private, stranger", "PATCH", "/repos/mona/secret", strangerTok, map[string]any{"description": "x"}, 404, "Not Found"},
		{"patch, anonymous", "PATCH", "/repos/mona/open", "", map[string]any{"description": "x"}, 401, "Requires authentication"},
		{"patch, token without public_repo", "PATCH", "/repos/mona/open", noRepo, map[string]any{"description": "x"}, 403, "Must have admin rights to Repository."},
		{"make private, public_repo token", "PATCH", "/repos/mona/open", publicOnly, map[string]any{"private": true}, 403, "Resource not accessible by personal access token"},
		{"delete, reader", "DELETE", "/repos/mona/open", readerTok, nil, 403, "Must have admin rights to Repository."},
		{"delete, no delete_repo scope", "DELETE", "/repos/mona/open", e.Token(mona, "repo"), nil, 403, "Must have admin rights to Repository."},
		{"delete, unknown", "DELETE", "/repos/mona/nope", tok, nil, 404, "Not Found"},
		{"topics, reader", "PUT", "/repos/mona/open/topics", readerTok, map[string]any{"names": []string{"a"}}, 403, "Must have maintain access to Repository."},
		{"topics private, stranger", "GET", "/repos/mona/secret/topics", strangerTok, nil, 404, "Not Found"},
		{"create, no scope", "POST", "/user/repos", noRepo, map[string]any{"name": "x"}, 403, "Resource not accessible by personal access token"},
		{"create private, public_repo", "POST", "/user/repos", publicOnly, map[string]any{"name": "x", "private": true}, 403, "Resource not accessible by personal access token"},
		{"create, anonymous", "POST", "/user/repos", "", map[string]any{"name": "x"}, 401, "Requires authentication"},
		{"list mine, anonymous", "GET", "/user/repos", "", nil, 401, "Requires authentication"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do(tc.method, tc.path, tc.token, tc.body)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			if tc.message != "" {
				if m := r.Map(t); m["message"] != tc.message {
					t.Fatalf("message %q, want %q", m["message"], tc.message)
				}
			}
		})
	}
	// The collaborator sees read permissions.
	got, _, err := e.GitHub(readerTok).Repositories.Get(ctx, "mona", "secret")
	if err != nil || got.GetPermissions().GetAdmin() || !got.GetPermissions().GetPull() || got.GetPermissions().GetPush() {
		t.Fatalf("reader view %+v %v", got.GetPermissions(), err)
	}
	if got.AllowSquashMerge != nil {
		t.Fatal("reader got merge settings")
	}
	// Nothing was changed by the refused writes.
	open, _, _ := gh.Repositories.Get(ctx, "mona", "open")
	if open.GetDescription() != "" || open.GetPrivate() {
		t.Fatalf("refused write changed the repository: %+v", open)
	}
}

func TestCreateErrors(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	create(t, gh, "", &github.Repository{Name: github.Ptr("taken")})
	type fe struct{ field, code string }
	for _, tc := range []struct {
		name   string
		body   any
		status int
		errs   []fe
	}{
		// The request schema answers first where it can, in GitHub's words.
		{"missing name", map[string]any{"description": "x"}, 422, []fe{}},
		{"empty name", map[string]any{"name": ""}, 422, []fe{{"name", "missing_field"}}},
		{"duplicate", map[string]any{"name": "taken"}, 422, []fe{{"name", "custom"}}},
		{"duplicate, other case", map[string]any{"name": "TAKEN"}, 422, []fe{{"name", "custom"}}},
		{"dot", map[string]any{"name": "."}, 422, []fe{{"name", "custom"}}},
		{"dot dot", map[string]any{"name": ".."}, 422, []fe{{"name", "custom"}}},
		{".git suffix", map[string]any{"name": "x.git"}, 422, []fe{{"name", "custom"}}},
		{"too long", map[string]any{"name": strings.Repeat("a", 101)}, 422, []fe{{"name", "custom"}}},
		{"invalid visibility", map[string]any{"name": "v", "visibility": "secret"}, 422, []fe{{"visibility", "invalid"}}},
		{"internal for a user", map[string]any{"name": "v", "visibility": "internal"}, 422, []fe{{"visibility", "custom"}}},
		{"unknown gitignore template", map[string]any{"name": "a", "gitignore_template": "go"}, 422, []fe{{"gitignore_template", "custom"}}},
		{"unknown license template", map[string]any{"name": "a", "license_template": "nope-1.0"}, 422, []fe{{"license_template", "custom"}}},
		{"team id", map[string]any{"name": "a", "team_id": 7}, 422, []fe{{"team_id", "invalid"}}},
		{"bad squash title", map[string]any{"name": "a", "squash_merge_commit_title": "NOPE"}, 422, []fe{}},
		{"bad merge pair", map[string]any{"name": "a", "merge_commit_message": "PR_BODY"}, 422, []fe{{"merge_commit_message", "custom"}}},
		{"bad JSON", `{"name":`, 400, nil},
		{"not an object", `["a"]`, 400, nil},
		{"wrong type", `{"name": 5}`, 422, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do("POST", "/user/repos", tok, tc.body)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			var body struct {
				Message string
				Errors  []struct{ Resource, Field, Code, Message string }
			}
			r.JSON(t, &body)
			if tc.errs == nil {
				return
			}
			want := "Validation Failed"
			if len(tc.errs) == 0 {
				if !strings.HasPrefix(body.Message, "Invalid request.\n\n") || len(body.Errors) != 0 {
					t.Fatalf("body %s", r.Body)
				}
				return
			}
			if strings.HasPrefix(tc.name, "duplicate") {
				want = "Repository creation failed." // GitHub's own message for a taken name
			}
			if body.Message != want || len(body.Errors) != len(tc.errs) {
				t.Fatalf("body %s", r.Body)
			}
			for i, w := range tc.errs {
				g := body.Errors[i]
				if g.Resource != "Repository" || g.Field != w.field || g.Code != w.code || (g.Code == "custom" && g.Message == "") {
					t.Fatalf("error %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
	// No failed create left a row behind.
	list, _, err := gh.Repositories.ListByAuthenticatedUser(ctx, nil)
	if err != nil || len(list) != 1 || list[0].GetName() != "taken" {
		t.Fatalf("repositories after failures: %d %v", len(list), err)
	}
	// Updates validate the same way.
	for _, body := range []map[string]any{
		{"name": ".."}, {"name": ""}, {"visibility": "internal"}, {"default_branch": "other"}, {"squash_merge_commit_message": "X"},
	} {
		if r := e.Do("PATCH", "/repos/mona/taken", tok, body); r.StatusCode != 422 {
			t.Fatalf("PATCH %v: %d %s", body, r.StatusCode, r.Body)
		}
	}
	e.Must(400, "PATCH", "/repos/mona/taken", tok, `{"name"`)
}

func TestTopics(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	create(t, gh, "", &github.Repository{Name: github.Ptr("t")})
	names, _, err := gh.Repositories.ReplaceAllTopics(ctx, "mona", "t", []string{"Go", "api", "go", "a-b-1"})
	if err != nil || strings.Join(names, ",") != "go,api,a-b-1" {
		t.Fatalf("replace: %v %v", names, err)
	}
	names, _, err = gh.Repositories.ListAllTopics(ctx, "mona", "t", nil)
	if err != nil || strings.Join(names, ",") != "go,api,a-b-1" {
		t.Fatalf("list: %v %v", names, err)
	}
	r, _, _ := gh.Repositories.Get(ctx, "mona", "t")
	if strings.Join(r.Topics, ",") != "go,api,a-b-1" {
		t.Fatalf("repo topics %v", r.Topics)
	}
	page, _, _ := gh.Repositories.ListAllTopics(ctx, "mona", "t", &github.ListOptions{Page: 2, PerPage: 2})
	if strings.Join(page, ",") != "a-b-1" {
		t.Fatalf("page 2: %v", page)
	}
	twentyOne := make([]string, 21)
	for i := range twentyOne {
		twentyOne[i] = "t" + strings.Repeat("x", i)
	}
	for _, tc := range []struct {
		name  string
		names any
	}{
		{"space", []string{"has space"}},
		{"leading hyphen", []string{"-go"}},
		{"underscore", []string{"under_score"}},
		{"too long", []string{strings.Repeat("a", 51)}},
		{"empty", []string{""}},
		{"too many", twentyOne},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Must(422, "PUT", "/repos/mona/t/topics", tok, map[string]any{"names": tc.names})
			var body struct {
				Message string
				Errors  []string
			}
			r.JSON(t, &body)
			if body.Message != "Validation Failed" || len(body.Errors) == 0 {
				t.Fatalf("body %s", r.Body)
			}
		})
	}
	e.Must(422, "PUT", "/repos/mona/t/topics", tok, map[string]any{})
	e.Must(400, "PUT", "/repos/mona/t/topics", tok, "nope")
	// 50 characters and 20 topics are fine; an empty list clears.
	if _, _, err := gh.Repositories.ReplaceAllTopics(ctx, "mona", "t", append(twentyOne[:19], strings.Repeat("b", 50))); err != nil {
		t.Fatal(err)
	}
	names, _, err = gh.Repositories.ReplaceAllTopics(ctx, "mona", "t", nil)
	if err != nil || len(names) != 0 {
		t.Fatalf("clear: %v %v", names, err)
	}
	if m := e.Must(200, "GET", "/repos/mona/t/topics", "", nil).Map(t); len(m["names"].([]any)) != 0 {
		t.Fatalf("after clear %v", m)
	}
}

func TestListForAuthenticatedUser(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	hubot, hubotTok := e.NewUser("hubot", false)
	gh := e.GitHub(tok)
	for _, n := range []string{"b", "a", "d", "c", "e", "g", "f"} {
		create(t, gh, "", &github.Repository{Name: github.Ptr(n), Private: github.Ptr(n == "a" || n == "b")})
	}
	newOrg(t, e, "acme", hubot, mona)
	create(t, e.GitHub(hubotTok), "acme", &github.Repository{Name: github.Ptr("org-repo"), Private: github.Ptr(true)})
	create(t, e.GitHub(hubotTok), "", &github.Repository{Name: github.Ptr("hubot-repo")})
	collaborator(t, e, "hubot", "hubot-repo", mona, authz.Write)

	// The paginator walks every page, in full_name order.
	var all []string
	for r, err := range gh.Repositories.ListByAuthenticatedUserIter(ctx, &github.RepositoryListByAuthenticatedUserOptions{ListOptions: github.ListOptions{PerPage: 3}}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.GetPermissions() == nil {
			t.Fatalf("%s without permissions", r.GetFullName())
		}
		all = append(all, r.GetFullName())
	}
	want := "acme/org-repo hubot/hubot-repo mona/a mona/b mona/c mona/d mona/e mona/f mona/g"
	if strings.Join(all, " ") != want {
		t.Fatalf("paginated: %v", all)
	}
	// Link header of a middle page.
	r := e.Must(200, "GET", "/user/repos?per_page=3&page=2", tok, nil)
	link := r.Header.Get("Link")
	for _, rel := range []string{`rel="next"`, `rel="last"`, `rel="prev"`, `rel="first"`, "page=3", "per_page=3"} {
		if !strings.Contains(link, rel) {
			t.Fatalf("Link %q lacks %s", link, rel)
		}
	}
	for _, tc := range []struct {
		query string
		want  string
	}{
		{"affiliation=owner", "mona/a mona/b mona/c mona/d mona/e mona/f mona/g"},
		{"affiliation=collaborator", "hubot/hubot-repo"},
		{"affiliation=organization_member", "acme/org-repo"},
		{"affiliation=owner&visibility=private", "mona/a mona/b"},
		{"visibility=public&affiliation=owner,collaborator", "hubot/hubot-repo mona/c mona/d mona/e mona/f mona/g"},
		{"type=member", "acme/org-repo hubot/hubot-repo"},
		{"type=private", "acme/org-repo mona/a mona/b"},
		{"type=owner&direction=desc", "mona/g mona/f mona/e mona/d mona/c mona/b mona/a"},
		{"type=owner&sort=created&per_page=2", "mona/f mona/g"},
		{"type=owner&sort=created&direction=asc&per_page=2", "mona/b mona/a"},
		{"since=2000-01-01T00:00:00Z&affiliation=collaborator", "hubot/hubot-repo"},
		{"before=2000-01-01T00:00:00Z", ""},
	} {
		var got []string
		for _, m := range listNames(t, e, "/user/repos?"+tc.query, tok) {
			got = append(got, m)
		}
		if strings.Join(got, " ") != tc.want {
			t.Fatalf("%s: %v, want %s", tc.query, got, tc.want)
		}
	}
	e.Must(422, "GET", "/user/repos?type=owner&visibility=public", tok, nil)
	e.Must(422, "GET", "/user/repos?since=yesterday", tok, nil)
	// A token without the repo scope lists public repositories only.
	got := listNames(t, e, "/user/repos?affiliation=owner", e.Token(mona, "user"))
	if strings.Join(got, " ") != "mona/c mona/d mona/e mona/f mona/g" {
		t.Fatalf("without repo scope: %v", got)
	}
}

// noFollow sends a request without following redirects (e.Do follows them).
func noFollow(t *testing.T, e *apitest.Env, method, url, tok string) *apitest.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+tok)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &apitest.Response{Response: resp, Body: b}
}

// Sub-resources of a renamed repository redirect too. GitHub's description
// declares 301 only on GET /repos/{owner}/{repo}; the harness checks such
// redirects for GitHub's redirect body.
func TestRenameRedirectsSubResources(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	create(t, gh, "", &github.Repository{Name: github.Ptr("old")})
	if _, _, err := gh.Repositories.Edit(ctx, "mona", "old", &github.Repository{Name: github.Ptr("new")}); err != nil {
		t.Fatal(err)
	}
	r := noFollow(t, e, "GET", e.API+"/repos/mona/old/topics?per_page=5", tok)
	if r.StatusCode != 301 || r.Header.Get("Location") != e.API+"/repos/mona/new/topics?per_page=5" {
		t.Fatalf("topics: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	names, _, err := gh.Repositories.ReplaceAllTopics(ctx, "mona", "old", []string{"moved"})
	if err != nil || len(names) != 1 {
		t.Fatalf("PUT through 307: %v %v", names, err)
	}
}

func listNames(t *testing.T, e *apitest.Env, path, tok string) []string {
	t.Helper()
	var list []map[string]any
	e.Must(200, "GET", path, tok, nil).JSON(t, &list)
	out := []string{}
	for _, m := range list {
		out = append(out, m["full_name"].(string))
	}
	return out
}

func TestListForUserOrgAndPublic(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	hubot, hubotTok := e.NewUser("hubot", false)
	_, strangerTok := e.NewUser("stranger", false)
	gh := e.GitHub(tok)
	create(t, gh, "", &github.Repository{Name: github.Ptr("pub")})
	create(t, gh, "", &github.Repository{Name: github.Ptr("priv"), Private: github.Ptr(true)})
	newOrg(t, e, "acme", hubot, mona)
	hgh := e.GitHub(hubotTok)
	create(t, hgh, "acme", &github.Repository{Name: github.Ptr("o-pub")})
	create(t, hgh, "acme", &github.Repository{Name: github.Ptr("o-priv"), Private: github.Ptr(true)})
	create(t, hgh, "acme", &github.Repository{Name: github.Ptr("o-int"), Visibility: github.Ptr("internal")})
	create(t, hgh, "", &github.Repository{Name: github.Ptr("h-priv"), Private: github.Ptr(true)})
	collaborator(t, e, "hubot", "h-priv", mona, authz.Read)

	for _, tc := range []struct {
		path, tok, want string
	}{
		{"/users/mona/repos", "", "mona/pub"},
		{"/users/mona/repos", strangerTok, "mona/pub"},
		{"/users/mona/repos", tok, "mona/priv mona/pub"},
		{"/users/mona/repos?type=member", tok, "hubot/h-priv"},
		{"/users/mona/repos?type=member", strangerTok, ""},
		{"/users/mona/repos?type=all&sort=full_name&direction=desc", tok, "mona/pub mona/priv hubot/h-priv"},
		{"/users/acme/repos", "", "acme/o-pub"},
		{"/orgs/acme/repos", "", "acme/o-pub"},
		{"/orgs/acme/repos", strangerTok, "acme/o-pub"},
		{"/orgs/acme/repos?sort=full_name", tok, "acme/o-int acme/o-priv acme/o-pub"},
		{"/orgs/acme/repos?type=private&sort=full_name", hubotTok, "acme/o-int acme/o-priv"},
		{"/orgs/acme/repos?type=public", hubotTok, "acme/o-pub"},
		{"/orgs/acme/repos?type=forks", hubotTok, ""},
		{"/orgs/acme/repos?type=sources&sort=full_name&per_page=1&page=3", hubotTok, "acme/o-pub"},
		{"/orgs/acme/repos", hubotTok, "acme/o-int acme/o-priv acme/o-pub"}, // newest first
	} {
		got := listNames(t, e, tc.path, tc.tok)
		if strings.Join(got, " ") != tc.want {
			t.Fatalf("%s as %q: %v, want %s", tc.path, tc.tok, got, tc.want)
		}
	}
	e.Must(404, "GET", "/orgs/mona/repos", "", nil)
	e.Must(404, "GET", "/orgs/nobody/repos", "", nil)
	e.Must(404, "GET", "/users/nobody/repos", "", nil)

	// go-github over the same lists.
	orgRepos, _, err := e.GitHub("").Repositories.ListByOrg(ctx, "acme", nil)
	if err != nil || len(orgRepos) != 1 || orgRepos[0].GetPermissions() != nil {
		t.Fatalf("ListByOrg: %v %v", orgRepos, err)
	}
	userRepos, _, err := gh.Repositories.ListByUser(ctx, "mona", &github.RepositoryListByUserOptions{Type: "owner"})
	if err != nil || len(userRepos) != 2 || !userRepos[0].GetPermissions().GetAdmin() {
		t.Fatalf("ListByUser: %v %v", userRepos, err)
	}

	// GET /repositories: public only, in id order, paginated by since.
	var public []string
	opt := &github.RepositoryListAllOptions{}
	for {
		page, resp, err := e.GitHub("").Repositories.ListAll(ctx, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			public = append(public, r.GetFullName())
		}
		if len(page) == 0 || resp.Header.Get("Link") == "" {
			break
		}
		opt.Since = page[len(page)-1].GetID()
	}
	if strings.Join(public, " ") != "mona/pub acme/o-pub" {
		t.Fatalf("public: %v", public)
	}
	r := e.Must(200, "GET", "/repositories?per_page=1", "", nil)
	if !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("Link %q", r.Header.Get("Link"))
	}
	var bare []map[string]any
	r.JSON(t, &bare)
	if _, ok := bare[0]["clone_url"]; ok || bare[0]["owner"] == nil {
		t.Fatalf("/repositories item %v", bare[0])
	}
}

func TestCreateInOrg(t *testing.T) {
	e := apitest.New(t)
	admin, adminTok := e.NewUser("boss", false)
	member, memberTok := e.NewUser("member", false)
	_, strangerTok := e.NewUser("stranger", false)
	org := newOrg(t, e, "acme", admin, member)

	r := create(t, e.GitHub(adminTok), "acme", &github.Repository{Name: github.Ptr("inner"), Visibility: github.Ptr("internal")})
	if r.GetVisibility() != "internal" || !r.GetPrivate() || r.GetOrganization().GetLogin() != "acme" || r.GetOwner().GetType() != "Organization" {
		t.Fatalf("org repo %+v", r)
	}
	// A member may create what the organization allows, and administers it.
	mine := create(t, e.GitHub(memberTok), "acme", &github.Repository{Name: github.Ptr("mine"), Private: github.Ptr(true)})
	if !mine.GetPermissions().GetAdmin() {
		t.Fatalf("creator permissions %+v", mine.GetPermissions())
	}
	if _, _, err := e.GitHub(memberTok).Repositories.Edit(ctx, "acme", "mine", &github.Repository{Description: github.Ptr("ok")}); err != nil {
		t.Fatal(err)
	}
	// Members see internal repositories; strangers do not.
	e.Must(200, "GET", "/repos/acme/inner", memberTok, nil)
	e.Must(404, "GET", "/repos/acme/inner", strangerTok, nil)
	// The member reads the admin's repository through the base permission
	// but may not change it.
	e.Must(403, "PATCH", "/repos/acme/inner", memberTok, map[string]any{"description": "x"})

	for _, tc := range []struct {
		name   string
		tok    string
		org    string
		body   map[string]any
		status int
	}{
		{"internal by member (not allowed)", memberTok, "acme", map[string]any{"name": "i", "visibility": "internal"}, 403},
		{"stranger", strangerTok, "acme", map[string]any{"name": "s"}, 403},
		{"unknown org", adminTok, "nope", map[string]any{"name": "s"}, 404},
		{"a user is not an org", adminTok, "stranger", map[string]any{"name": "s"}, 404},
		{"duplicate", adminTok, "acme", map[string]any{"name": "INNER"}, 422},
		{"custom properties", adminTok, "acme", map[string]any{"name": "c", "custom_properties": map[string]any{"team": "x"}}, 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.Must(tc.status, "POST", "/orgs/"+tc.org+"/repos", tc.tok, tc.body)
		})
	}
	// Once members may no longer create repositories, they get 403.
	org.MembersCanCreateRepos = false
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.UpdateAccount(ctx, org) }); err != nil {
		t.Fatal(err)
	}
	e.Must(403, "POST", "/orgs/acme/repos", memberTok, map[string]any{"name": "later"})
	e.Must(201, "POST", "/orgs/acme/repos", adminTok, map[string]any{"name": "later"})
	// Deleting the org repository as its admin.
	if _, err := e.GitHub(adminTok).Repositories.Delete(ctx, "acme", "later"); err != nil {
		t.Fatal(err)
	}
}
