package transfers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

var ctx = context.Background()

// noFollow sends a request without following redirects.
func noFollow(t *testing.T, e *apitest.Env, method, url, tok string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if tok != "" {
		req.Header.Set("Authorization", "token "+tok)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// transfer runs go-github's Repositories.Transfer; GitHub answers 202,
// which go-github reports as an AcceptedError with the body.
func transfer(t *testing.T, gh *github.Client, owner, name string, req github.TransferRequest) (*github.Repository, error) {
	t.Helper()
	repo, _, err := gh.Repositories.Transfer(ctx, owner, name, req)
	var acc *github.AcceptedError
	if errors.As(err, &acc) {
		repo = new(github.Repository)
		return repo, json.Unmarshal(acc.Raw, repo)
	}
	return repo, err
}

func TestTransferToOrganization(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	gh := e.GitHub(tok)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "auto_init": true})
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "Keep me", "labels": []string{"bug"}})
	team := e.Must(201, "POST", "/orgs/acme/teams", tok, map[string]any{"name": "devs"}).Map(t)

	got, err := transfer(t, gh, "mona", "hello", github.TransferRequest{NewOwner: "acme", NewName: github.Ptr("world"),
		TeamID: []int64{int64(team["id"].(float64))}})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetFullName() != "acme/world" || got.GetOwner().GetLogin() != "acme" {
		t.Fatalf("transfer answered %s owned by %s", got.GetFullName(), got.GetOwner().GetLogin())
	}
	// The repository, its issues and its git data are at the new name.
	r := e.Must(200, "GET", "/repos/acme/world", tok, nil).Map(t)
	if r["full_name"] != "acme/world" || r["permissions"].(map[string]any)["admin"] != true {
		t.Fatalf("moved repository: %v", r)
	}
	is := e.Must(200, "GET", "/repos/acme/world/issues/1", tok, nil).Map(t)
	if is["title"] != "Keep me" || !strings.HasSuffix(is["url"].(string), "/repos/acme/world/issues/1") {
		t.Fatalf("issue after transfer: %v", is)
	}
	var teamRepos []map[string]any
	e.Must(200, "GET", "/orgs/acme/teams/devs/repos", tok, nil).JSON(t, &teamRepos)
	if len(teamRepos) != 1 || teamRepos[0]["full_name"] != "acme/world" {
		t.Fatalf("the team's repositories: %v", teamRepos)
	}
	// The original owner stays as a collaborator.
	e.Must(204, "GET", "/repos/acme/world/collaborators/mona", tok, nil)

	// The old name redirects: 301 for GET, 307 otherwise; go-github follows.
	resp := noFollow(t, e, "GET", e.API+"/repos/mona/hello/issues/1?x=1", tok)
	if resp.StatusCode != 301 || resp.Header.Get("Location") != e.API+"/repos/acme/world/issues/1?x=1" {
		t.Fatalf("GET old name: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp := noFollow(t, e, "PATCH", e.API+"/repos/mona/hello", tok); resp.StatusCode != 307 {
		t.Fatalf("PATCH old name: %d", resp.StatusCode)
	}
	if repo, _, err := gh.Repositories.Get(ctx, "mona", "hello"); err != nil || repo.GetFullName() != "acme/world" {
		t.Fatalf("go-github through the redirect: %v %v", repo.GetFullName(), err)
	}
	// Someone who may not see the repository learns nothing.
	e.Must(200, "PATCH", "/repos/acme/world", tok, map[string]any{"private": true})
	e.Must(404, "GET", "/repos/mona/hello", ritaTok, nil)

	// git works at the old URL too.
	dir := t.TempDir()
	apitest.MustGit(t, dir, "clone", "-q", e.Remote("mona", "hello", "mona", tok), "c")
	if out := apitest.MustGit(t, dir+"/c", "log", "--oneline"); out == "" {
		t.Fatal("clone at the old URL has no commits")
	}

	// The event, with where it came from.
	events, err := e.Store.R().EventsAfter(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range events {
		if ev.Type == "repository.transferred" && strings.Contains(string(ev.Payload), `"login":"mona"`) {
			found = true
		}
	}
	if !found {
		t.Fatal("no repository.transferred event")
	}

	// A new repository at the old name wins over the redirect.
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	if r := e.Must(200, "GET", "/repos/mona/hello", tok, nil).Map(t); r["full_name"] != "mona/hello" {
		t.Fatalf("new repository at the old name: %v", r["full_name"])
	}
}

func TestTransferRefusals(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "auto_init": true})
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "other"})
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "elsewhere", "admin": "rita"})
	e.Must(201, "POST", "/orgs/acme/repos", tok, map[string]any{"name": "hello"})
	inv := e.Must(201, "PUT", "/repos/mona/hello/collaborators/rita", tok, map[string]any{"permission": "push"}).Map(t)
	e.Must(204, "PATCH", "/user/repository_invitations/"+itoa(inv["id"]), ritaTok, nil)

	cases := []struct {
		name, path, tok string
		body            map[string]any
		want            int
		message         string
	}{
		{"unknown repository", "/repos/mona/nope/transfer", tok, map[string]any{"new_owner": "acme"}, 404, ""},
		{"anonymous", "/repos/mona/hello/transfer", "", map[string]any{"new_owner": "acme"}, 401, ""},
		{"not admin", "/repos/mona/hello/transfer", ritaTok, map[string]any{"new_owner": "rita"}, 403, ""},
		{"name taken in target", "/repos/mona/hello/transfer", tok, map[string]any{"new_owner": "acme"}, 422, "acme already has a repository named hello"},
		{"missing owner", "/repos/mona/hello/transfer", tok, map[string]any{}, 422, ""},
		{"unknown owner", "/repos/mona/hello/transfer", tok, map[string]any{"new_owner": "ghost-account"}, 422, "new_owner is invalid"},
		{"same owner", "/repos/mona/hello/transfer", tok, map[string]any{"new_owner": "mona"}, 422, "already owned"},
		{"org not mine", "/repos/mona/hello/transfer", tok, map[string]any{"new_owner": "elsewhere"}, 403, ""},
		{"teams to a user", "/repos/mona/other/transfer", tok, map[string]any{"new_owner": "mona", "new_name": "x", "team_ids": []int{1}}, 422, ""},
		{"bad name", "/repos/mona/hello/transfer", tok, map[string]any{"new_owner": "acme", "new_name": "x.git"}, 422, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Must(c.want, "POST", c.path, c.tok, c.body)
			if c.message != "" && !strings.Contains(string(r.Body), c.message) {
				t.Fatalf("body %s lacks %q", r.Body, c.message)
			}
		})
	}
	// Nothing moved.
	e.Must(200, "GET", "/repos/mona/hello", tok, nil)

	// A fork in the same network in the target refuses the transfer.
	e.Must(202, "POST", "/repos/mona/hello/forks", tok, map[string]any{"organization": "acme", "name": "hello-fork"})
	e.RunJobs()
	e.Must(204, "DELETE", "/repos/acme/hello", tok, nil)
	r := e.Must(422, "POST", "/repos/mona/hello/transfer", tok, map[string]any{"new_owner": "acme"})
	if !strings.Contains(string(r.Body), "network") {
		t.Fatalf("fork in the network: %s", r.Body)
	}
}

func itoa(v any) string { return strconv.FormatInt(int64(v.(float64)), 10) }

// A repository offered to another user moves when they accept it.
func TestTransferToAnotherUser(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	_, hubotTok := e.NewUser("hubot", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "auto_init": true, "private": true})
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "spare"})

	got, err := transfer(t, e.GitHub(tok), "mona", "hello", github.TransferRequest{NewOwner: "rita", NewName: github.Ptr("hi")})
	if err != nil {
		t.Fatal(err)
	}
	// Still where it was, as GitHub answers: the original owner.
	if got.GetFullName() != "mona/hello" {
		t.Fatalf("pending transfer answered %s", got.GetFullName())
	}
	e.Must(200, "GET", "/repos/mona/hello", tok, nil)
	e.Must(202, "POST", "/repos/mona/spare/transfer", tok, map[string]any{"new_owner": "rita"})

	var offers []map[string]any
	e.Must(200, "GET", "/user/repository_transfers?per_page=1", ritaTok, nil).JSON(t, &offers)
	if len(offers) != 1 || offers[0]["new_name"] != "hi" || offers[0]["repository"].(map[string]any)["full_name"] != "mona/hello" ||
		offers[0]["from"].(map[string]any)["login"] != "mona" {
		t.Fatalf("offers: %v", offers)
	}
	if r := e.Must(200, "GET", "/user/repository_transfers?per_page=1", ritaTok, nil); !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("Link %q", r.Header.Get("Link"))
	}
	id := itoa(offers[0]["id"])
	// Nobody else sees or takes the offer.
	var none []map[string]any
	e.Must(200, "GET", "/user/repository_transfers", hubotTok, nil).JSON(t, &none)
	if len(none) != 0 {
		t.Fatalf("hubot sees %v", none)
	}
	e.Must(404, "PATCH", "/user/repository_transfers/"+id, hubotTok, nil)
	e.Must(404, "PATCH", "/user/repository_transfers/"+id, tok, nil)
	e.Must(404, "PATCH", "/user/repository_transfers/nope", ritaTok, nil)

	r := e.Must(200, "PATCH", "/user/repository_transfers/"+id, ritaTok, nil).Map(t)
	if r["full_name"] != "rita/hi" || r["private"] != true {
		t.Fatalf("accepted: %v", r)
	}
	e.Must(200, "GET", "/repos/rita/hi", ritaTok, nil)
	e.Must(204, "GET", "/repos/rita/hi/collaborators/mona", ritaTok, nil)
	if resp := noFollow(t, e, "GET", e.API+"/repos/mona/hello", tok); resp.StatusCode != 301 || resp.Header.Get("Location") != e.API+"/repos/rita/hi" {
		t.Fatalf("old name: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	e.Must(404, "PATCH", "/user/repository_transfers/"+id, ritaTok, nil)

	// The other offer is declined: nothing moves.
	e.Must(200, "GET", "/user/repository_transfers", ritaTok, nil).JSON(t, &offers)
	if len(offers) != 1 {
		t.Fatalf("offers left: %v", offers)
	}
	e.Must(204, "DELETE", "/user/repository_transfers/"+itoa(offers[0]["id"]), ritaTok, nil)
	e.Must(200, "GET", "/repos/mona/spare", tok, nil)
	e.Must(200, "GET", "/user/repository_transfers", ritaTok, nil).JSON(t, &offers)
	if len(offers) != 0 {
		t.Fatalf("offers after decline: %v", offers)
	}
	// An offer clashing with a name the user has is refused at once.
	e.Must(201, "POST", "/user/repos", ritaTok, map[string]any{"name": "spare"})
	e.Must(422, "POST", "/repos/mona/spare/transfer", tok, map[string]any{"new_owner": "rita"})
}
