package ghcli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhGist runs gh's gist commands against hubd: create (REST), list
// (GraphQL viewer.gists), view, edit, clone (git over /gist/{id}.git) and
// delete, each asserting on gh's output and on hubd's state over REST.
func TestGhGist(t *testing.T) {
	e := apitest.New(t)
	mona, _ := e.NewUser("mona", false)
	tok := e.Token(mona, apitest.AllScopes)
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)
	get := func(path string) map[string]any {
		t.Helper()
		return e.Must(200, "GET", path, tok, nil).Map(t)
	}

	// create: a secret gist of a local file, and a public one from stdin.
	if err := os.WriteFile(filepath.Join(g.Home, "hello.txt"), []byte("hello from gh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := g.Must("gist", "create", "hello.txt", "--desc", "greetings")
	url := strings.TrimSpace(out)
	id := url[strings.LastIndex(url, "/")+1:]
	if !strings.HasPrefix(url, e.URL+"/gist/") && !strings.Contains(url, "/gist/") || len(id) != 32 {
		t.Fatalf("gh gist create printed %q", out)
	}
	gist := get("/gists/" + id)
	if gist["description"] != "greetings" || gist["public"] != false || dig(gist, "files", "hello.txt", "content") != "hello from gh\n" {
		t.Fatalf("created gist: %v", gist)
	}
	out = g.MustIn(g.Home, "stdin content\n", "gist", "create", "--public", "--filename", "piped.md", "-")
	pubID := strings.TrimSpace(out)
	pubID = pubID[strings.LastIndex(pubID, "/")+1:]
	if p := get("/gists/" + pubID); p["public"] != true || dig(p, "files", "piped.md", "content") != "stdin content\n" {
		t.Fatalf("public gist: %v", p)
	}

	// list: GraphQL viewer.gists with privacy and order.
	out = g.Must("gist", "list")
	if !strings.Contains(out, id) || !strings.Contains(out, "greetings") || !strings.Contains(out, pubID) {
		t.Fatalf("gh gist list:\n%s", out)
	}
	if out := g.Must("gist", "list", "--secret"); !strings.Contains(out, id) || strings.Contains(out, pubID) {
		t.Fatalf("gh gist list --secret:\n%s", out)
	}
	if out := g.Must("gist", "list", "--public"); strings.Contains(out, id) || !strings.Contains(out, pubID) {
		t.Fatalf("gh gist list --public:\n%s", out)
	}

	// view: the description and the file's content.
	out = g.Must("gist", "view", id)
	if !strings.Contains(out, "greetings") || !strings.Contains(out, "hello from gh") {
		t.Fatalf("gh gist view:\n%s", out)
	}
	if out := g.Must("gist", "view", id, "--raw", "--filename", "hello.txt"); out != "hello from gh\n" {
		t.Fatalf("gh gist view --raw: %q", out)
	}

	// edit: description, replace a file from a local file, add, remove.
	// gh opens an editor on a file even when only the description
	// changes: "true" leaves it as it is.
	g.Must("config", "set", "editor", "true")
	g.Must("gist", "edit", id, "--desc", "better greetings")
	if got := get("/gists/" + id); got["description"] != "better greetings" {
		t.Fatalf("after gh gist edit --desc: %v", got["description"])
	}
	os.WriteFile(filepath.Join(g.Home, "new.txt"), []byte("replaced\n"), 0o644)
	g.Must("gist", "edit", id, "--filename", "hello.txt", "new.txt")
	if got := get("/gists/" + id); dig(got, "files", "hello.txt", "content") != "replaced\n" {
		t.Fatalf("after gh gist edit --filename: %v", got["files"])
	}
	os.WriteFile(filepath.Join(g.Home, "extra.txt"), []byte("extra\n"), 0o644)
	g.Must("gist", "edit", id, "--add", "extra.txt")
	if got := get("/gists/" + id); dig(got, "files", "extra.txt", "content") != "extra\n" {
		t.Fatalf("after gh gist edit --add: %v", got["files"])
	}
	g.Must("gist", "edit", id, "--remove", "extra.txt")
	if got := get("/gists/" + id); len(got["files"].(map[string]any)) != 1 {
		t.Fatalf("after gh gist edit --remove: %v", got["files"])
	}

	// clone: git over hubd's smart HTTP at /gist/{id}.git.
	g.Must("gist", "clone", id, "cloned")
	b, err := os.ReadFile(filepath.Join(g.Home, "cloned", "hello.txt"))
	if err != nil || string(b) != "replaced\n" {
		t.Fatalf("cloned hello.txt: %q %v", b, err)
	}

	// delete.
	g.Must("gist", "delete", id, "--yes")
	e.Must(404, "GET", "/gists/"+id, tok, nil)
	if out := g.Must("gist", "list"); strings.Contains(out, id) {
		t.Fatalf("gh gist list after delete:\n%s", out)
	}
}
