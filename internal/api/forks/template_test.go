package forks_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// generate calls CreateFromTemplate, expecting 201.
func generate(t *testing.T, gh *github.Client, owner, name string, req github.TemplateRepoRequest) *github.Repository {
	t.Helper()
	r, resp, err := gh.Repositories.CreateFromTemplate(ctx, owner, name, req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("generate from %s/%s: %v", owner, name, err)
	}
	return r
}

// A template makes new repositories: is_template shows and is settable;
// the new repository answers 201 at once with template_repository, then
// holds the template's files as one "Initial commit" per branch (the
// default branch, or all of them), without the template's history and
// without a fork relation; refusals answer as GitHub's.
func TestGenerateFromTemplate(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	_, eveTok := e.NewUser("eve", false)
	main := seeded(t, e, "mona", monaTok, "starter", false)
	monaGH, hubot := e.GitHub(monaTok), e.GitHub(hubotTok)

	// is_template on create.
	if r, _, err := monaGH.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("blank"), IsTemplate: github.Ptr(true)}); err != nil || !r.GetIsTemplate() {
		t.Fatalf("created as a template: %v %v", r.GetIsTemplate(), err)
	}
	// Not a template yet.
	if _, _, err := hubot.Repositories.CreateFromTemplate(ctx, "mona", "starter", github.TemplateRepoRequest{Name: "x"}); apitest.Status(err) != 422 {
		t.Fatalf("not a template: %v", err)
	}
	tr, _, err := monaGH.Repositories.Edit(ctx, "mona", "starter", &github.Repository{IsTemplate: github.Ptr(true)})
	if err != nil || !tr.GetIsTemplate() {
		t.Fatalf("is_template: %v %v", tr.GetIsTemplate(), err)
	}

	r := generate(t, hubot, "mona", "starter", github.TemplateRepoRequest{Name: "mine", Description: github.Ptr("from a template")})
	if r.GetFullName() != "hubot/mine" || r.GetFork() || r.GetDescription() != "from a template" || r.GetPrivate() ||
		r.GetTemplateRepository().GetFullName() != "mona/starter" || r.GetIsTemplate() || r.GetDefaultBranch() != "main" {
		t.Fatalf("generated: %s fork %v template %v", r.GetFullName(), r.GetFork(), r.GetTemplateRepository())
	}
	e.RunJobs()
	got := refs(t, e, "hubot", hubotTok, "hubot", "mine")
	if got["refs/heads/main"] == "" || got["refs/heads/dev"] != "" || got["refs/tags/v1"] != "" {
		t.Fatalf("default branch only: %v", got)
	}
	c := head(t, hubot, "hubot", "mine", "main")
	if c.GetCommit().GetMessage() != "Initial commit" || len(c.Parents) != 0 || c.GetCommit().GetAuthor().GetName() != "hubot" {
		t.Errorf("initial commit: %q parents %d author %v", c.GetCommit().GetMessage(), len(c.Parents), c.GetCommit().GetAuthor())
	}
	tmplHead := head(t, monaGH, "mona", "starter", "main")
	if c.GetCommit().GetTree().GetSHA() != tmplHead.GetCommit().GetTree().GetSHA() || c.GetSHA() == main {
		t.Errorf("tree %s, template's %s", c.GetCommit().GetTree().GetSHA(), tmplHead.GetCommit().GetTree().GetSHA())
	}
	// No commit of the template is in the new repository.
	if _, _, err := hubot.Repositories.GetCommit(ctx, "hubot", "mine", main, nil); apitest.Status(err) != 404 && apitest.Status(err) != 422 {
		t.Errorf("template history reachable: %v", err)
	}
	full := e.Must(200, "GET", "/repos/hubot/mine", hubotTok, nil).Map(t)
	if full["template_repository"].(map[string]any)["full_name"] != "mona/starter" {
		t.Errorf("template_repository: %v", full["template_repository"])
	}
	if m := e.Must(200, "GET", "/repos/mona/starter", monaTok, nil).Map(t); m["template_repository"] != nil || m["is_template"] != true {
		t.Errorf("template itself: %v %v", m["template_repository"], m["is_template"])
	}

	// All branches, private, into an organization the caller belongs to.
	org(t, e, "acme", mona)
	p := generate(t, monaGH, "mona", "starter", github.TemplateRepoRequest{Name: "all", Owner: github.Ptr("acme"),
		IncludeAllBranches: github.Ptr(true), Private: github.Ptr(true)})
	if p.GetFullName() != "acme/all" || !p.GetPrivate() {
		t.Fatalf("org generate: %s private %v", p.GetFullName(), p.GetPrivate())
	}
	e.RunJobs()
	got = refs(t, e, "mona", monaTok, "acme", "all")
	if got["refs/heads/main"] == "" || got["refs/heads/dev"] == "" || got["refs/tags/v1"] != "" {
		t.Errorf("all branches: %v", got)
	}
	if d := head(t, monaGH, "acme", "all", "dev"); len(d.Parents) != 0 || d.GetCommit().GetMessage() != "Initial commit" {
		t.Errorf("dev: parents %d", len(d.Parents))
	}
	e.Must(404, "GET", "/repos/acme/all", eveTok, nil)

	// A private template serves its owner (and its organization's members).
	e.Must(200, "PATCH", "/repos/mona/starter", monaTok, map[string]any{"private": true})
	cases := []struct {
		name, path, token string
		body              any
		status            int
	}{
		{"name taken", "/repos/acme/all/generate", monaTok, map[string]any{"name": "starter"}, 422},
		{"name missing", "/repos/mona/starter/generate", monaTok, map[string]any{}, 422},
		{"bad name", "/repos/mona/starter/generate", monaTok, map[string]any{"name": "x.git"}, 422},
		{"private template, outsider", "/repos/mona/starter/generate", hubotTok, map[string]any{"name": "again"}, 404},
		{"no such template", "/repos/mona/none/generate", monaTok, map[string]any{"name": "again"}, 404},
		{"another user's account", "/repos/mona/starter/generate", monaTok, map[string]any{"name": "again", "owner": "hubot"}, 403},
		{"not a member", "/repos/hubot/mine/generate", eveTok, map[string]any{"name": "again", "owner": "acme"}, 403},
		{"no such owner", "/repos/mona/starter/generate", monaTok, map[string]any{"name": "again", "owner": "nobody"}, 422},
		{"anonymous", "/repos/mona/starter/generate", "", map[string]any{"name": "again"}, 401},
	}
	e.Must(200, "PATCH", "/repos/hubot/mine", hubotTok, map[string]any{"is_template": true})
	e.Must(200, "PATCH", "/repos/acme/all", monaTok, map[string]any{"is_template": true})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do("POST", c.path, c.token, c.body); r.StatusCode != c.status {
				t.Errorf("status %d, want %d: %s", r.StatusCode, c.status, r.Body)
			}
		})
	}
	// The template's owner still may.
	generate(t, monaGH, "mona", "starter", github.TemplateRepoRequest{Name: "again"})
	// Hidden templates are hidden from template_repository too.
	if m := e.Must(200, "GET", "/repos/hubot/mine", hubotTok, nil).Map(t); m["template_repository"] != nil {
		t.Errorf("hidden template shown: %v", m["template_repository"])
	}
	var er *github.ErrorResponse
	_, _, err = hubot.Repositories.CreateFromTemplate(ctx, "hubot", "mine", github.TemplateRepoRequest{Name: "mine"})
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || !strings.Contains(er.Error(), "name already exists on this account") {
		t.Errorf("name taken: %v", err)
	}
}

// `gh repo create NEW --template OWNER/TEMPLATE` runs GraphQL's
// cloneTemplateRepository; Repository.templateRepository and isTemplate
// answer; a repository that is no template is refused.
func TestGhRepoCreateFromTemplate(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	seeded(t, e, "mona", monaTok, "starter", false)
	e.Must(200, "PATCH", "/repos/mona/starter", monaTok, map[string]any{"is_template": true})

	g := ghcli.Start(t, e)
	g.LoginAs("hubot", hubotTok)
	out := g.Must("repo", "create", "hubot/project", "--template", "mona/starter", "--public", "--include-all-branches", "--description", "made by gh")
	if !strings.Contains(out, "/hubot/project") {
		t.Errorf("gh printed %q", out)
	}
	e.RunJobs()
	r := e.Must(200, "GET", "/repos/hubot/project", hubotTok, nil).Map(t)
	if r["description"] != "made by gh" || r["private"] != false || r["template_repository"].(map[string]any)["full_name"] != "mona/starter" {
		t.Errorf("gh's repository: %v %v %v", r["description"], r["private"], r["template_repository"])
	}
	if got := refs(t, e, "hubot", hubotTok, "hubot", "project"); got["refs/heads/main"] == "" || got["refs/heads/dev"] == "" {
		t.Errorf("branches: %v", got)
	}

	q := `query { repository(owner: "hubot", name: "project") { isTemplate templateRepository { nameWithOwner isTemplate } } }`
	res := e.Must(200, "POST", "/graphql", hubotTok, map[string]any{"query": q}).Map(t)
	repo := res["data"].(map[string]any)["repository"].(map[string]any)
	if repo["isTemplate"] != false || repo["templateRepository"].(map[string]any)["nameWithOwner"] != "mona/starter" ||
		repo["templateRepository"].(map[string]any)["isTemplate"] != true {
		t.Errorf("GraphQL: %v", res)
	}
	// The mutation itself, on a repository that is no template.
	notTemplate := e.Must(200, "GET", "/repos/hubot/project", hubotTok, nil).Map(t)["node_id"]
	owner := e.Must(200, "GET", "/users/hubot", hubotTok, nil).Map(t)["node_id"]
	m := `mutation($in: CloneTemplateRepositoryInput!) { cloneTemplateRepository(input: $in) { repository { nameWithOwner } } }`
	res = e.Must(200, "POST", "/graphql", hubotTok, map[string]any{"query": m, "variables": map[string]any{"in": map[string]any{
		"repositoryId": notTemplate, "ownerId": owner, "name": "again", "visibility": "PRIVATE"}}}).Map(t)
	if errs, _ := res["errors"].([]any); len(errs) != 1 || !strings.Contains(errs[0].(map[string]any)["message"].(string), "is not a template repository") {
		t.Errorf("clone of no template: %v", res)
	}
	e.Must(404, "GET", "/repos/hubot/again", hubotTok, nil)
}
