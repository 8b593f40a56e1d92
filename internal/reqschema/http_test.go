package reqschema_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/reqschema"
)

// TestBodiesOverHTTP sends invalid bodies to real operations and checks
// GitHub's answer, and that nothing was written.
func TestBodiesOverHTTP(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	_, tok := e.NewUser("mona", false)
	_, eveTok := e.NewUser("eve", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	issue, _, err := gh.Issues.Create(ctx, "mona", "hello", github.CreateIssueRequest{Title: "first"})
	if err != nil {
		t.Fatal(err)
	}
	head, _, err := gh.Git.GetRef(ctx, "mona", "hello", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	sha := head.GetObject().GetSHA()

	cases := []struct {
		name, method, path string
		body               any // nil: no body; string: sent as is
		status             int
		msg                string
	}{
		{"null where an array goes", "POST", "/repos/mona/hello/issues", `{"title":"x","labels":null}`, 422,
			"Invalid request.\n\nFor 'properties/labels', nil is not an array."},
		{"missing required key", "POST", "/repos/mona/hello/issues", `{"body":"no title"}`, 422,
			"Invalid request.\n\n\"title\" wasn't supplied."},
		{"empty body is {}", "POST", "/repos/mona/hello/issues", nil, 422,
			"Invalid request.\n\n\"title\" wasn't supplied."},
		{"several failures, one per line", "POST", "/repos/mona/hello/issues", `{"labels":null,"assignees":[1]}`, 422,
			"Invalid request.\n\nFor 'properties/labels', nil is not an array.\nFor 'items', 1 is not a string.\n\"title\" wasn't supplied."},
		{"item fitting no oneOf type", "POST", "/repos/mona/hello/issues", `{"title":"x","labels":[null]}`, 422,
			"Invalid request.\n\nFor 'items', nil is not a string or object."},
		{"key not permitted in a nested object", "POST", "/repos/mona/hello/issues",
			`{"title":"x","issue_field_values":[{"field_id":1,"value":"v","colour":"red"}]}`, 422,
			"Invalid request.\n\n\"colour\" is not a permitted key."},
		{"enum", "PATCH", "/repos/mona/hello/issues/1", `{"state":"merged"}`, 422,
			"Invalid request.\n\nmerged is not a member of [\"open\", \"closed\"]."},
		{"nested wrong type and missing key", "POST", "/repos/mona/hello/git/commits",
			`{"message":"m","tree":"` + sha + `","author":{"name":5}}`, 422,
			"Invalid request.\n\nFor 'properties/name', 5 is not a string.\n\"email\" wasn't supplied."},
		{"ref is required", "POST", "/repos/mona/hello/git/refs", `{"sha":"` + sha + `"}`, 422,
			"Invalid request.\n\n\"ref\" wasn't supplied."},
		{"enum read by a handler's own decoder", "PUT", "/repos/mona/hello/issues/1/lock", `{"lock_reason":"bored"}`, 422,
			"Invalid request.\n\nbored is not a member of [\"off-topic\", \"too heated\", \"resolved\", \"spam\"]."},
		{"malformed JSON", "POST", "/repos/mona/hello/issues", `{"title":`, 400, "Problems parsing JSON"},
		{"not an object", "POST", "/repos/mona/hello/issues", `["x"]`, 400, "Body should be a JSON object"},
		{"null body", "POST", "/repos/mona/hello/issues", `null`, 400, "Body should be a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(c.method, c.path, tok, c.body)
			if r.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, c.status, r.Body)
			}
			m := r.Map(t)
			if m["message"] != c.msg {
				t.Errorf("message %q\nwant    %q", m["message"], c.msg)
			}
			if !strings.HasPrefix(m["documentation_url"].(string), "https://docs.github.com/") {
				t.Errorf("documentation_url %v", m["documentation_url"])
			}
			if c.status == 422 && m["status"] != "422" {
				t.Errorf("status field %v", m["status"])
			}
		})
	}

	// GitHub checks the caller before the body: a hidden or unknown
	// repository is 404 and a missing token 401, whatever the body says.
	for _, c := range []struct {
		path, token, body string
		status            int
		msg               string
	}{
		{"/repos/mona/secret/issues", eveTok, `{"labels":null}`, 404, "Not Found"},
		{"/repos/mona/nope/issues", tok, `{}`, 404, "Not Found"},
		{"/repos/mona/hello/issues", "", `{}`, 401, "Requires authentication"},
	} {
		r := e.Do("POST", c.path, c.token, c.body)
		if m := r.Map(t); r.StatusCode != c.status || m["message"] != c.msg {
			t.Errorf("POST %s: %d %s, want %d %q", c.path, r.StatusCode, r.Body, c.status, c.msg)
		}
	}

	// Nothing was written: one issue, still open and titled "first", no
	// new ref.
	list, _, err := gh.Issues.ListByRepo(ctx, "mona", "hello", &github.IssueListByRepoOptions{State: "all"})
	if err != nil || len(list) != 1 || list[0].GetNumber() != issue.GetNumber() || list[0].GetState() != "open" || list[0].GetTitle() != "first" {
		t.Fatalf("issues after invalid requests: %v %v", list, err)
	}
	refs, _, err := gh.Git.ListMatchingRefs(ctx, "mona", "hello", "")
	if err != nil || len(refs) != 1 {
		t.Fatalf("refs after invalid requests: %v %v", refs, err)
	}

	// A valid body reaches the handler unchanged.
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, `{"title":"second","labels":["bug",{"name":"ui"}],"milestone":null}`)
	e.Must(200, "PATCH", "/repos/mona/hello/issues/1", tok, `{"state":"closed","state_reason":"completed"}`)
}

// TestBodyTooLarge keeps 413 for a body over the server's limit.
func TestBodyTooLarge(t *testing.T) {
	e := apitest.New(t, apitest.Options{MaxBody: 64})
	_, tok := e.NewUser("mona", false)
	r := e.Do("POST", "/user/repos", tok, `{"name":"hello","description":"`+strings.Repeat("x", 100)+`"}`)
	if r.StatusCode != 413 {
		t.Fatalf("status %d: %s", r.StatusCode, r.Body)
	}
}

// TestRouteTable checks the route table against the schemas: every write
// route of the description with a JSON body compiles, and no streaming
// route (which writes its own body) is validated.
func TestRouteTable(t *testing.T) {
	e := apitest.New(t)
	n := 0
	for _, rt := range e.Server.Routes() {
		if rt.Extension || rt.Method == "GET" {
			continue
		}
		if _, err := reqschema.Compile(rt.OperationID); err != nil {
			t.Errorf("%s: %v", rt.OperationID, err)
		}
		if reqschema.For(rt.OperationID) == nil {
			continue
		}
		n++
		if rt.Stream {
			t.Errorf("%s %s streams its body but has a JSON body schema", rt.Method, rt.Pattern)
		}
	}
	if n < 40 {
		t.Errorf("only %d routes have a body schema", n)
	}
	t.Logf("%d routes validate their bodies", n)
}
