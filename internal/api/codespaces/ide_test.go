package codespaces_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// A codespace's web_url is its browser IDE (code-server behind hubd's
// proxy), for its owner only: the owner's token opens the workbench of the
// workspace; another user, or nobody, gets 404; a stopped codespace's IDE
// is gone (409) until it starts again.
func TestCodespaceWebURL(t *testing.T) {
	e := apitest.New(t, apitest.Options{CodespaceIDE: true})
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	tok := e.Token(alice, "repo,codespace")
	gh := e.GitHub(tok)
	bob, _ := e.NewUser("bob", false)
	bobTok := e.Token(bob, "repo,codespace")
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	_, _, err := gh.Codespaces.CreateInRepo(ctx, "alice", "app", github.CreateCodespaceRequest{})
	name := accepted(t, err).GetName()
	cs := wait(t, gh, name, "Available")

	get := func(token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", cs.GetWebURL(), nil)
		if token != "" {
			req.Header.Set("Authorization", "token "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(tok); code != 200 || !strings.Contains(body, "workbench") {
		t.Fatalf("owner: %d %.500s", code, body)
	}
	for who, token := range map[string]string{"another user": bobTok, "nobody": ""} {
		if code, body := get(token); code != 404 {
			t.Errorf("%s: %d %.300s", who, code, body)
		}
	}

	if _, _, err := gh.Codespaces.Stop(ctx, name); err != nil && apitest.Status(err) != 202 {
		t.Fatal(err)
	}
	wait(t, gh, name, "Shutdown")
	if code, _ := get(tok); code != 409 {
		t.Fatalf("stopped codespace's IDE: %d", code)
	}
}
