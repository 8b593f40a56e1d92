package ghcli_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// gh pr merge of a pull request whose body says "Fixes #1" closes issue 1;
// gh repo autolink create, list, view and delete manage autolink
// references, which then link in issue bodies rendered for the
// repository.
func TestGhClosingKeywordsAndAutolinks(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "auto_init": true})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "A bug", "body": "See JIRA-7."})
	main := branchSHA(t, e, tok, "mona/hello", "main")
	e.Must(201, "POST", "/repos/mona/hello/git/refs", tok, map[string]any{"ref": "refs/heads/fix", "sha": main})
	e.Must(201, "PUT", "/repos/mona/hello/contents/fix.txt", tok, map[string]any{"message": "Fix it", "branch": "fix",
		"content": base64.StdEncoding.EncodeToString([]byte("fixed\n"))})
	e.Must(201, "POST", "/repos/mona/hello/pulls", tok, map[string]any{"title": "Fix the bug", "head": "fix", "base": "main", "body": "Fixes #1"})
	e.RunJobs()
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)

	g.Must("pr", "merge", "2", "-R", "mona/hello", "--merge")
	e.RunJobs()
	is := e.Must(200, "GET", "/repos/mona/hello/issues/1", tok, nil).Map(t)
	if is["state"] != "closed" || is["state_reason"] != "completed" {
		t.Fatalf("issue 1 after gh pr merge: state %v, state_reason %v", is["state"], is["state_reason"])
	}
	out := g.Must("issue", "view", "1", "-R", "mona/hello", "--json", "state,closed")
	if !strings.Contains(out, `"state":"CLOSED"`) {
		t.Fatalf("gh issue view: %s", out)
	}

	out = g.Must("repo", "autolink", "create", "JIRA-", "https://jira.test/browse/JIRA-<num>", "-R", "mona/hello")
	if !strings.Contains(out, "Created repository autolink") {
		t.Fatalf("gh repo autolink create printed %q", out)
	}
	g.Must("repo", "autolink", "create", "T", "https://t.test/<num>", "--numeric", "-R", "mona/hello")
	out = g.Must("repo", "autolink", "list", "-R", "mona/hello", "--json", "id,keyPrefix,urlTemplate,isAlphanumeric")
	if !strings.Contains(out, `"keyPrefix":"JIRA-"`) || !strings.Contains(out, `"isAlphanumeric":false`) || !strings.Contains(out, `"urlTemplate":"https://t.test/\u003cnum\u003e"`) && !strings.Contains(out, `"urlTemplate":"https://t.test/<num>"`) {
		t.Fatalf("gh repo autolink list: %s", out)
	}
	if r := g.Run("repo", "autolink", "create", "jira-", "https://x.test/<num>", "-R", "mona/hello"); r.Err == nil {
		t.Fatalf("a duplicate prefix was created: %s", r)
	}
	full := e.Must(200, "GET", "/repos/mona/hello/issues/1", tok, nil, "Accept: application/vnd.github.html+json").Map(t)
	if html, _ := full["body_html"].(string); !strings.Contains(html, `<a href="https://jira.test/browse/JIRA-7">JIRA-7</a>`) {
		t.Fatalf("body_html %q", html)
	}
	var list []map[string]any
	e.Must(200, "GET", "/repos/mona/hello/autolinks", tok, nil).JSON(t, &list)
	id := itoa(list[0]["id"])
	if out := g.Must("repo", "autolink", "view", id, "-R", "mona/hello"); !strings.Contains(out, "JIRA-") {
		t.Fatalf("gh repo autolink view: %s", out)
	}
	g.Must("repo", "autolink", "delete", id, "-R", "mona/hello", "--yes")
	e.Must(404, "GET", "/repos/mona/hello/autolinks/"+id, tok, nil)
}
