package ghcli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhIssueCommands: gh's issue commands beyond create/edit/close, end to
// end: comment --edit-last, lock/unlock, pin/unpin, edit's sub-issue and
// blocked-by flags, create --type and edit --type in an organization with
// issue types, and view --json with every field gh offers (each answer
// checked against the schema).
func TestGhIssueCommands(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	g := ghcli.Start(t, e)
	ptok := projectToken(t, e, "mona") // gh reads projectItems with the project scope
	g.LoginAs("mona", ptok)
	R := []string{"-R", "mona/hello"}
	gh := func(args ...string) string { return g.Must(append(args, R...)...) }

	gh("issue", "comment", "1", "--body", "first words")
	gh("issue", "comment", "1", "--edit-last", "--body", "better words")
	comments := listOf(t, e.Must(200, "GET", "/repos/mona/hello/issues/1/comments", w.tok, nil))
	if len(comments) != 1 || comments[0]["body"] != "better words" {
		t.Fatalf("comments after --edit-last: %v", comments)
	}

	gh("issue", "lock", "1", "--reason", "too_heated")
	if is := e.Must(200, "GET", "/repos/mona/hello/issues/1", w.tok, nil).Map(t); is["locked"] != true || is["active_lock_reason"] != "too heated" {
		t.Fatalf("after gh issue lock: %v %v", is["locked"], is["active_lock_reason"])
	}
	gh("issue", "unlock", "1")

	gh("issue", "pin", "1")
	if out := gh("issue", "view", "1", "--json", "isPinned"); !strings.Contains(out, `"isPinned":true`) {
		t.Fatalf("isPinned after gh issue pin: %s", out)
	}

	gh("issue", "edit", "1", "--add-sub-issue", "2", "--add-blocked-by", "3")
	var v struct {
		SubIssues struct {
			Nodes []struct{ Number int }
		}
		BlockedBy struct {
			TotalCount int
		}
	}
	if err := json.Unmarshal([]byte(gh("issue", "view", "1", "--json", "subIssues,blockedBy")), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.SubIssues.Nodes) != 1 || v.SubIssues.Nodes[0].Number != 2 || v.BlockedBy.TotalCount != 1 {
		t.Fatalf("after gh issue edit --add-sub-issue --add-blocked-by: %+v", v)
	}

	// Every field gh's issue view offers, on an issue with all kinds of
	// data: an assignee, a milestone, a reaction, a project item, a parent,
	// an issue it blocks, a pull request that closes it.
	e.Must(201, "POST", "/repos/mona/hello/milestones", w.tok, map[string]any{"title": "v1"})
	gh("issue", "edit", "1", "--add-assignee", "mona", "--milestone", "v1")
	e.Must(201, "POST", "/repos/mona/hello/issues/1/reactions", w.tok, map[string]any{"content": "rocket"})
	gh("issue", "edit", "3", "--add-sub-issue", "1")
	gh("issue", "edit", "2", "--add-blocked-by", "1")
	e.Must(200, "PATCH", "/repos/mona/hello/pulls/4", w.tok, map[string]any{"body": "Fixes #1"})
	e.RunJobs()
	g.Must("project", "create", "--owner", "mona", "--title", "Roadmap")
	issueURL := e.Must(200, "GET", "/repos/mona/hello/issues/1", w.tok, nil).Map(t)["html_url"].(string)
	g.Must("project", "item-add", "1", "--owner", "mona", "--url", issueURL)
	fields := strings.Fields(strings.ReplaceAll(ghJSONFields(t, g, "issue", "view"), ",", " "))
	if len(fields) < 20 {
		t.Fatalf("gh issue view --json lists %d fields: %v", len(fields), fields)
	}
	before := len(g.Requests())
	out := gh("issue", "view", "1", "--json", strings.Join(fields, ","))
	checkGraphQL(t, e, ptok, g.Requests()[before:])
	var all map[string]any
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("gh issue view --json: %v: %s", err, out)
	}
	// What this issue has not, and why.
	absent := map[string]string{
		"closedAt":     "open",
		"stateReason":  "never closed",
		"issueType":    "issue types are an organization's; mona/hello is a user's",
		"projectCards": "classic projects are gone from GitHub",
	}
	for _, f := range fields {
		v, ok := all[f]
		if !ok {
			t.Errorf("gh issue view --json %s: missing", f)
			continue
		}
		if why, ok := absent[f]; ok {
			if !empty(v) {
				t.Errorf("gh issue view --json %s = %v, want none (%s)", f, v, why)
			}
			continue
		}
		if empty(v) {
			t.Errorf("gh issue view --json %s: empty (%v)", f, v)
		}
	}
	if dig(all, "parent", "number") != float64(3) || dig(all, "milestone", "title") != "v1" {
		t.Errorf("parent %v, milestone %v", all["parent"], all["milestone"])
	}
	if refs, _ := all["closedByPullRequestsReferences"].([]any); len(refs) != 1 || dig(refs[0], "number") != float64(4) {
		t.Errorf("closedByPullRequestsReferences: %v", all["closedByPullRequestsReferences"])
	}
	if items, _ := all["projectItems"].([]any); len(items) != 1 || dig(items[0], "title") != "Roadmap" {
		t.Errorf("projectItems: %v", all["projectItems"])
	}
	gh("issue", "unpin", "1")

	// Issue types: in an organization repository.
	e.Must(201, "POST", "/orgs/acme/repos", w.tok, map[string]any{"name": "tracker"})
	e.Must(200, "POST", "/orgs/acme/issue-types", w.tok, map[string]any{"name": "Bug", "is_enabled": true, "color": "red"})
	e.Must(200, "POST", "/orgs/acme/issue-types", w.tok, map[string]any{"name": "Task", "is_enabled": true})
	T := []string{"-R", "acme/tracker"}
	url := g.Must(append([]string{"issue", "create", "--title", "It crashes", "--body", "badly", "--type", "Bug"}, T...)...)
	if !strings.HasSuffix(strings.TrimSpace(url), "/acme/tracker/issues/1") {
		t.Fatalf("gh issue create --type printed %q", url)
	}
	if out := g.Must(append([]string{"issue", "view", "1", "--json", "issueType"}, T...)...); !strings.Contains(out, `"name":"Bug"`) {
		t.Fatalf("issueType after create --type: %s", out)
	}
	g.Must(append([]string{"issue", "edit", "1", "--type", "Task"}, T...)...)
	if out := g.Must(append([]string{"issue", "view", "1", "--json", "issueType"}, T...)...); !strings.Contains(out, `"name":"Task"`) {
		t.Fatalf("issueType after edit --type: %s", out)
	}
	g.Must(append([]string{"issue", "create", "--title", "Chore", "--body", "later", "--type", "Bug"}, T...)...)
	if out := g.Must(append([]string{"issue", "list", "--type", "Bug"}, T...)...); !strings.Contains(out, "Chore") || strings.Contains(out, "It crashes") {
		t.Fatalf("gh issue list --type Bug: %q", out)
	}
	if res := g.Run(append([]string{"issue", "create", "--title", "x", "--body", "y", "--type", "Nope"}, T...)...); res.Err == nil ||
		!strings.Contains(res.Stderr, `type "Nope" not found`) {
		t.Fatalf("create with an unknown type: %s", res)
	}
}

func listOf(t *testing.T, r *apitest.Response) []map[string]any {
	t.Helper()
	var out []map[string]any
	r.JSON(t, &out)
	return out
}

// ghJSONFields is the field list gh prints for `<cmd> --json` without
// fields.
func ghJSONFields(t *testing.T, g *ghcli.GH, cmd ...string) string {
	t.Helper()
	res := g.Run(append(cmd, "--json")...)
	var fields []string
	for _, line := range strings.Split(res.Stderr, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.Contains(line, " ") && !strings.HasSuffix(line, ":") {
			fields = append(fields, line)
		}
	}
	if len(fields) == 0 {
		t.Fatalf("gh %s --json printed no field list: %s", strings.Join(cmd, " "), fmt.Sprint(res))
	}
	return strings.Join(fields, ",")
}
