package ghcli_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhCodespace: gh codespace list, view, stop and delete against hubd
// (gh's codespaces client follows the default host's REST prefix).
func TestGhCodespace(t *testing.T) {
	e := apitest.New(t)
	mona, _ := e.NewUser("mona", false)
	tok := e.Token(mona, "repo,read:org,codespace")
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "auto_init": true})
	name := e.Must(202, "POST", "/repos/mona/hello/codespaces", tok, map[string]any{}).Map(t)["name"].(string)
	state := func() string { return e.Must(200, "GET", "/user/codespaces/"+name, tok, nil).Map(t)["state"].(string) }
	waitFor := func(want string) {
		deadline := time.Now().Add(60 * time.Second)
		for s := state(); s != want; s = state() {
			if time.Now().After(deadline) {
				t.Fatalf("codespace is %s, want %s", s, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("Available")
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)

	var list []map[string]any
	if err := json.Unmarshal([]byte(g.Must("codespace", "list", "--json", "name,state,repository,displayName")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0]["name"] != name || list[0]["state"] != "Available" || list[0]["repository"] != "mona/hello" {
		t.Fatalf("gh codespace list: %v", list)
	}
	var view map[string]any
	if err := json.Unmarshal([]byte(g.Must("codespace", "view", "-c", name, "--json", "name,state,gitStatus,machineName")), &view); err != nil {
		t.Fatal(err)
	}
	if view["name"] != name || view["machineName"] == "" {
		t.Fatalf("gh codespace view: %v", view)
	}
	g.Must("codespace", "stop", "-c", name)
	waitFor("Shutdown")
	g.Must("codespace", "delete", "-c", name, "--force")
	deadline := time.Now().Add(60 * time.Second)
	for e.Do("GET", "/user/codespaces/"+name, tok, nil).StatusCode != 404 {
		if time.Now().After(deadline) {
			t.Fatal("gh codespace delete left the codespace")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out := g.Must("codespace", "list"); strings.Contains(out, name) {
		t.Fatalf("gh codespace list after delete: %s", out)
	}
}
