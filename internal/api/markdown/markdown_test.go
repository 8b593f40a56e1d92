package markdown_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/markdown/linked"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

func TestRender(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	anon := e.GitHub("")

	// markdown mode: a document, nothing linked.
	out, resp, err := anon.Markdown.Render(ctx, "Hello **world** @mona #1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if out != "<p>Hello <strong>world</strong> @mona #1</p>\n" {
		t.Fatalf("markdown mode: %q", out)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html;charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}

	// gfm mode: hard line breaks, references linked when they exist.
	hello, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	sha, err := e.Deps.Git.Open(hello.GetID()).ResolveRef(ctx, "refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct {
		repo int64
		pull bool
	}{{hello.GetID(), false}, {hello.GetID(), true}} {
		err := e.Store.Tx(ctx, func(tx store.Q) error {
			return tx.CreateIssue(ctx, &model.Issue{RepoID: n.repo, Title: "t", UserID: mona.ID, IsPull: n.pull})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	src := "Hi @MONA and @ghost\nsee #1, #2, #3, mona/hello#1, mona/secret#1\ncommit " + sha[:7] + " and " + sha + " and `#1`"
	out, _, err = anon.Markdown.Render(ctx, src, &github.MarkdownOptions{Mode: "gfm", Context: "mona/hello"})
	if err != nil {
		t.Fatal(err)
	}
	web := e.URL
	for _, want := range []string{
		`<a class="user-mention notranslate" data-hovercard-type="user" data-hovercard-url="/users/mona/hovercard" href="` + web + `/mona">@MONA</a>`,
		" @ghost<br>",
		`href="` + web + `/mona/hello/issues/1">#1</a>`,
		`href="` + web + `/mona/hello/pull/2">#2</a>`,
		", #3, ",
		`href="` + web + `/mona/hello/issues/1">mona/hello#1</a>`,
		", mona/secret#1<br>", // private: not visible to the anonymous reader
		`href="` + web + `/mona/hello/commit/` + sha + `"><tt>` + sha[:7] + `</tt></a> and <a class="commit-link"`,
		"<code>#1</code>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("gfm render lacks %q:\n%s", want, out)
		}
	}
	// The owner sees the private repository's issues.
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		v, err := tx.RepoByName(ctx, "mona", "secret", mona.ID)
		if err != nil {
			return err
		}
		return tx.CreateIssue(ctx, &model.Issue{RepoID: v.Repo.ID, Title: "t", UserID: mona.ID})
	}); err != nil {
		t.Fatal(err)
	}
	out, _, err = gh.Markdown.Render(ctx, "mona/secret#1", &github.MarkdownOptions{Mode: "gfm"})
	if err != nil || !strings.Contains(out, `href="`+web+`/mona/secret/issues/1"`) {
		t.Fatalf("owner: %q %v", out, err)
	}
	out, _, err = anon.Markdown.Render(ctx, "mona/secret#1", &github.MarkdownOptions{Mode: "gfm"})
	if err != nil || strings.Contains(out, "<a") {
		t.Fatalf("anonymous: %q %v", out, err)
	}
	// A context the reader cannot see links nothing that needs it.
	out, _, err = anon.Markdown.Render(ctx, "#1 @mona", &github.MarkdownOptions{Mode: "gfm", Context: "mona/secret"})
	if err != nil || strings.Contains(out, "issues/1") || !strings.Contains(out, "user-mention") {
		t.Fatalf("hidden context: %q %v", out, err)
	}

	// Raw HTML is sanitized.
	out, _, err = anon.Markdown.Render(ctx, `<b onclick="x()">b</b><script>alert(1)</script> [x](javascript:alert(1))`, nil)
	if err != nil || strings.Contains(out, "onclick") || strings.Contains(out, "script") || strings.Contains(out, "javascript") {
		t.Fatalf("sanitize: %q %v", out, err)
	}
}

func TestRenderRaw(t *testing.T) {
	e := apitest.New(t)
	for _, ct := range []string{"text/plain", "text/x-markdown", "text/plain; charset=utf-8"} {
		r := e.Must(200, "POST", "/markdown/raw", "", "# Title\n\n~~old~~ @hubadmin", "Content-Type: "+ct)
		body := string(r.Body)
		if !strings.Contains(body, `<h1><a id="user-content-title"`) || !strings.Contains(body, "<del>old</del> @hubadmin") {
			t.Fatalf("%s: %s", ct, body)
		}
		if r.Header.Get("Content-Type") != "text/html;charset=utf-8" {
			t.Fatalf("Content-Type %q", r.Header.Get("Content-Type"))
		}
	}
	// An empty body renders to nothing.
	if r := e.Must(200, "POST", "/markdown/raw", "", "", "Content-Type: text/plain"); len(r.Body) != 0 {
		t.Fatalf("empty: %q", r.Body)
	}
}

func TestRenderErrors(t *testing.T) {
	e := apitest.New(t)
	for _, c := range []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"no text", map[string]any{"mode": "gfm"}, 422, `"text" wasn't supplied`},
		{"null text", map[string]any{"text": nil}, 422, "For 'properties/text', nil is not a string."},
		{"text not a string", map[string]any{"text": 5}, 422, "For 'properties/text'"},
		{"bad mode", map[string]any{"text": "x", "mode": "html"}, 422, `html is not a member of ["markdown", "gfm"].`},
		{"bad JSON", `{"text":`, 400, "Problems parsing JSON"},
		{"not an object", `["x"]`, 400, "Body should be a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := e.Must(c.status, "POST", "/markdown", "", c.body).Map(t)
			if msg, _ := m["message"].(string); !strings.Contains(msg, c.msg) {
				t.Fatalf("message %q, want %q", msg, c.msg)
			}
		})
	}
	// Bad credentials are refused even here.
	e.Must(401, "POST", "/markdown", "ghp_nope", map[string]string{"text": "x"})
}

// TestRenderForBodies checks the helper other packages use for body_html.
func TestRenderForBodies(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello")}); err != nil {
		t.Fatal(err)
	}
	v, err := e.Store.R().RepoByName(ctx, "mona", "hello", 0)
	if err != nil {
		t.Fatal(err)
	}
	var repo *model.Repo = v.Repo
	out, err := linked.Render(ctx, e.Deps, &authz.Caller{}, repo, "see @mona\nand more", true)
	if err != nil || !strings.Contains(out, "user-mention") || !strings.Contains(out, "<br>") {
		t.Fatalf("comment: %q %v", out, err)
	}
	out, err = linked.Render(ctx, e.Deps, &authz.Caller{}, nil, "see @mona\nand more", false)
	if err != nil || strings.Contains(out, "<a") || strings.Contains(out, "<br>") {
		t.Fatalf("document: %q %v", out, err)
	}
}

// TestRenderTooLarge: both operations render up to 400 KB and refuse more
// with GitHub's error.
func TestRenderTooLarge(t *testing.T) {
	e := apitest.New(t)
	limit := 400 << 10
	at, over := strings.Repeat("a", limit), strings.Repeat("a", limit+1)
	if r := e.Must(200, "POST", "/markdown", "", map[string]string{"text": at}); len(r.Body) < limit {
		t.Fatalf("at the limit: %d bytes", len(r.Body))
	}
	e.Must(200, "POST", "/markdown/raw", "", at, "Content-Type: text/plain")
	for _, c := range []struct {
		name, path string
		body       any
		headers    []string
	}{
		{"json", "/markdown", map[string]string{"text": over, "mode": "gfm"}, nil},
		{"raw", "/markdown/raw", over, []string{"Content-Type: text/plain"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body struct {
				Message string
				Errors  []struct{ Resource, Field, Code string }
			}
			e.Must(422, "POST", c.path, "", c.body, c.headers...).JSON(t, &body)
			if !strings.HasPrefix(body.Message, "This API renders Markdown text up to 400 KB in size.") || len(body.Errors) != 1 ||
				body.Errors[0] != (struct{ Resource, Field, Code string }{"Markdown", "data", "too_large"}) {
				t.Fatalf("%+v", body)
			}
		})
	}
}
