package ghcli_test

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// gh discussion create, list (plain and by search), view (with
// comments), edit and comment (add, reply, edit, delete) against hubd,
// with the state read back over GraphQL.
func TestGhDiscussions(t *testing.T) {
	e := apitest.New(t)
	mona, _ := e.NewUser("mona", false)
	tok := e.Token(mona, apitest.AllScopes)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)

	// Off: gh says so.
	r := g.Run("discussion", "list", "-R", "mona/hello")
	if r.Err == nil || !strings.Contains(r.Stderr, "has discussions disabled") {
		t.Fatalf("gh discussion list with discussions off: %s", r)
	}
	e.Must(200, "PATCH", "/repos/mona/hello", tok, map[string]any{"has_discussions": true})

	// read asks hubd's GraphQL API for the repository's discussions.
	read := func(q string) map[string]any {
		t.Helper()
		var out struct {
			Data   map[string]any
			Errors []any
		}
		e.Must(200, "POST", "/graphql", tok, map[string]any{"query": q}).JSON(t, &out)
		if len(out.Errors) > 0 || out.Data == nil {
			t.Fatalf("graphql: %v", out.Errors)
		}
		return out.Data
	}

	out := g.Must("discussion", "create", "-R", "mona/hello", "--title", "How do I build?", "--body", "make fails", "--category", "Q&A", "--label", "bug")
	if !strings.Contains(out, "/mona/hello/discussions/1") {
		t.Fatalf("gh discussion create: %s", out)
	}
	g.Must("discussion", "create", "-R", "mona/hello", "--title", "Dark mode", "--body", "please", "--category", "ideas")
	d := read(`{ repository(owner: "mona", name: "hello") { discussion(number: 1) { title body category { slug } labels(first: 5) { nodes { name } } author { login } } } }`)
	if dig(d, "repository", "discussion", "title") != "How do I build?" || dig(d, "repository", "discussion", "category", "slug") != "q-a" ||
		dig(d, "repository", "discussion", "labels", "nodes").([]any)[0].(map[string]any)["name"] != "bug" {
		t.Fatalf("created discussion: %v", d)
	}

	var list []map[string]any
	// listOf runs gh discussion list and gives its discussions.
	listOf := func(args ...string) []map[string]any {
		t.Helper()
		var v struct{ Discussions []map[string]any }
		decode(t, g.Must(append([]string{"discussion", "list", "-R", "mona/hello"}, args...)...), &v)
		return v.Discussions
	}
	list = listOf("--json", "number,title,category,labels,author,answered", "--sort", "created", "--order", "asc")
	if len(list) != 2 || list[0]["title"] != "How do I build?" || dig(list[0], "category", "name") != "Q&A" || dig(list[1], "author", "login") != "mona" {
		t.Fatalf("gh discussion list: %v", list)
	}
	list = listOf("--category", "Ideas", "--json", "number")
	if len(list) != 1 || list[0]["number"] != float64(2) {
		t.Fatalf("gh discussion list --category: %v", list)
	}
	// The search path: --label, --author, --search.
	list = listOf("--label", "bug", "--json", "number")
	if len(list) != 1 || list[0]["number"] != float64(1) {
		t.Fatalf("gh discussion list --label: %v", list)
	}
	list = listOf("--search", "dark", "--author", "mona", "--json", "number")
	if len(list) != 1 || list[0]["number"] != float64(2) {
		t.Fatalf("gh discussion list --search: %v", list)
	}
	if out := g.Must("discussion", "list", "-R", "mona/hello"); !strings.Contains(out, "Dark mode") || !strings.Contains(out, "How do I build?") {
		t.Fatalf("gh discussion list: %s", out)
	}

	// Comments: add, reply (by comment id), edit, delete.
	out = g.Must("discussion", "comment", "1", "-R", "mona/hello", "--body", "Run make deps first")
	if !strings.Contains(out, "#discussioncomment-") {
		t.Fatalf("gh discussion comment: %s", out)
	}
	d = read(`{ repository(owner: "mona", name: "hello") { discussion(number: 1) { comments(first: 5) { nodes { id body } } } } }`)
	first := dig(d, "repository", "discussion", "comments", "nodes").([]any)[0].(map[string]any)
	if first["body"] != "Run make deps first" {
		t.Fatalf("comment: %v", d)
	}
	cid := first["id"].(string)
	g.Must("discussion", "comment", cid, "-R", "mona/hello", "--body", "Thanks, that did it")
	g.Must("discussion", "comment", "1", "-R", "mona/hello", "--body", "Or use the container")
	var view map[string]any
	decode(t, g.Must("discussion", "view", "1", "-R", "mona/hello", "--json", "number,title,body,category,labels,comments,answered,closed"), &view)
	comments, _ := dig(view, "comments", "nodes").([]any)
	if view["title"] != "How do I build?" || dig(view, "category", "slug") != "q-a" || len(comments) != 2 {
		t.Fatalf("gh discussion view --json: %v", view)
	}
	if out := g.Must("discussion", "view", "1", "-R", "mona/hello", "--comments"); !strings.Contains(out, "Run make deps first") || !strings.Contains(out, "Or use the container") {
		t.Fatalf("gh discussion view --comments: %s", out)
	}
	if out := g.Must("discussion", "view", "1", "-R", "mona/hello"); !strings.Contains(out, "make fails") {
		t.Fatalf("gh discussion view: %s", out)
	}
	g.Must("discussion", "comment", cid, "-R", "mona/hello", "--edit", "--body", "Run make deps first (see README)")
	second := dig(read(`{ repository(owner: "mona", name: "hello") { discussion(number: 1) { comments(first: 5) { nodes { id } } } } }`),
		"repository", "discussion", "comments", "nodes").([]any)[1].(map[string]any)["id"].(string)
	g.Must("discussion", "comment", second, "-R", "mona/hello", "--delete", "--yes")
	d = read(`{ repository(owner: "mona", name: "hello") { discussion(number: 1) { comments(first: 5) { totalCount nodes { body replies(first: 5) { nodes { body } } } } } } }`)
	nodes := dig(d, "repository", "discussion", "comments", "nodes").([]any)
	if len(nodes) != 1 || dig(nodes[0], "body") != "Run make deps first (see README)" || len(dig(nodes[0], "replies", "nodes").([]any)) != 1 {
		t.Fatalf("after edit and delete: %v", d)
	}

	// Edit: title, body, category, labels.
	g.Must("discussion", "edit", "2", "-R", "mona/hello", "--title", "Dark theme", "--body", "please!", "--category", "General", "--add-label", "enhancement")
	g.Must("discussion", "edit", "1", "-R", "mona/hello", "--remove-label", "bug")
	d = read(`{ repository(owner: "mona", name: "hello") { a: discussion(number: 2) { title body category { slug } labels(first: 5) { nodes { name } } }
		b: discussion(number: 1) { labels(first: 5) { totalCount } } } }`)
	a := dig(d, "repository", "a")
	if dig(a, "title") != "Dark theme" || dig(a, "body") != "please!" || dig(a, "category", "slug") != "general" ||
		dig(a, "labels", "nodes").([]any)[0].(map[string]any)["name"] != "enhancement" || dig(d, "repository", "b", "labels", "totalCount") != float64(0) {
		t.Fatalf("after gh discussion edit: %v", d)
	}
}
