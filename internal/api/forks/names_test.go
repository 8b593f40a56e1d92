package forks_test

import (
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// A named fork is a new repository of the network, even in the parent's
// own organization and next to the owner's other forks; a name the owner
// has answers 422; without a name the owner's repository in the network is
// handed back. gh's `repo fork --org --fork-name` works with the parent in
// that organization.
func TestNamedForks(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	org(t, e, "acme", mona)
	if _, _, err := e.GitHub(monaTok).Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	monaGH, hubot := e.GitHub(monaTok), e.GitHub(hubotTok)

	// No name, the parent's own organization: the parent comes back.
	if r := fork(t, monaGH, "acme", "app", &github.RepositoryCreateForkOptions{Organization: "acme"}); r.GetFullName() != "acme/app" || r.GetFork() {
		t.Errorf("unnamed fork into the parent's org: %s", r.GetFullName())
	}
	r := fork(t, monaGH, "acme", "app", &github.RepositoryCreateForkOptions{Organization: "acme", Name: "app-next"})
	if r.GetFullName() != "acme/app-next" || !r.GetFork() || r.GetParent().GetFullName() != "acme/app" || r.GetSource().GetFullName() != "acme/app" {
		t.Fatalf("named fork into the parent's org: %s parent %s", r.GetFullName(), r.GetParent().GetFullName())
	}
	// Taken names answer 422, the parent's included.
	for _, name := range []string{"app", "app-next", "APP-NEXT"} {
		res := e.Do("POST", "/repos/acme/app/forks", monaTok, map[string]any{"organization": "acme", "name": name})
		if res.StatusCode != 422 || !strings.Contains(string(res.Body), "name already exists on this account") {
			t.Errorf("name %s: %d %s", name, res.StatusCode, res.Body)
		}
	}
	// A user's forks: the first, then a second named one; unnamed hands
	// back the oldest.
	first := fork(t, hubot, "acme", "app", nil)
	second := fork(t, hubot, "acme", "app", &github.RepositoryCreateForkOptions{Name: "app-2"})
	if first.GetFullName() != "hubot/app" || second.GetFullName() != "hubot/app-2" {
		t.Errorf("hubot's forks: %s %s", first.GetFullName(), second.GetFullName())
	}
	if again := fork(t, hubot, "acme", "app", nil); again.GetID() != first.GetID() {
		t.Errorf("unnamed again: %s", again.GetFullName())
	}
	e.RunJobs()
	if got := refs(t, e, "hubot", hubotTok, "hubot", "app-2"); got["refs/heads/main"] == "" {
		t.Errorf("second fork's refs: %v", got)
	}
	if m := e.Must(200, "GET", "/repos/acme/app", monaTok, nil).Map(t); m["forks_count"] != float64(3) || m["network_count"] != float64(3) {
		t.Errorf("counts: forks %v network %v", m["forks_count"], m["network_count"])
	}

	g := ghcli.Start(t, e)
	g.LoginAs("mona", monaTok)
	g.Must("repo", "fork", "acme/app", "--org", "acme", "--fork-name", "app-gh", "--clone=false")
	v := e.Must(200, "GET", "/repos/acme/app-gh", monaTok, nil).Map(t)
	if v["fork"] != true || v["parent"].(map[string]any)["full_name"] != "acme/app" {
		t.Errorf("gh's fork: fork %v parent %v", v["fork"], v["parent"])
	}
	// Without a name gh reports that the organization owns the parent.
	if res := g.Run("repo", "fork", "acme/app", "--org", "acme", "--clone=false"); res.Err == nil ||
		!strings.Contains(res.Stderr, "cannot own both a parent and fork") {
		t.Errorf("gh unnamed fork into the parent's org: %v %s", res.Err, res.Stderr)
	}
}
