package transfers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

const transferIssue = `mutation($issue: ID!, $repo: ID!, $create: Boolean) {
  transferIssue(input: {issueId: $issue, repositoryId: $repo, createLabelsIfMissing: $create, clientMutationId: "x"}) {
    clientMutationId
    issue { number url repository { nameWithOwner } }
  }
}`

// gql posts a GraphQL request and answers its data and errors.
func gql(t *testing.T, e *apitest.Env, tok, query string, vars map[string]any) (map[string]any, []map[string]any) {
	t.Helper()
	r := e.Must(200, "POST", "/graphql", tok, map[string]any{"query": query, "variables": vars})
	var out struct {
		Data   map[string]any   `json:"data"`
		Errors []map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Data, out.Errors
}

func TestTransferIssue(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	e.NewUser("hubot", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "src"})
	dst := e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "dst"}).Map(t)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "secret", "private": true})
	e.Must(201, "POST", "/repos/mona/src/labels", tok, map[string]any{"name": "only-here", "color": "123456"})
	e.Must(201, "POST", "/repos/mona/src/milestones", tok, map[string]any{"title": "v1"})
	e.Must(201, "POST", "/repos/mona/dst/milestones", tok, map[string]any{"title": "V1"})
	e.Must(201, "POST", "/repos/mona/dst/issues", tok, map[string]any{"title": "already there"})
	inv := e.Must(201, "PUT", "/repos/mona/src/collaborators/rita", tok, map[string]any{"permission": "push"}).Map(t)
	e.Must(204, "PATCH", "/user/repository_invitations/"+itoa(inv["id"]), ritaTok, nil)
	is := e.Must(201, "POST", "/repos/mona/src/issues", tok, map[string]any{"title": "Move me", "labels": []string{"bug", "only-here"},
		"assignees": []string{"mona", "rita"}, "milestone": 1}).Map(t)
	e.Must(201, "POST", "/repos/mona/src/issues/1/comments", tok, map[string]any{"body": "a comment"})

	// rita writes to src but not to dst.
	_, errs := gql(t, e, ritaTok, transferIssue, map[string]any{"issue": is["node_id"], "repo": dst["node_id"]})
	if len(errs) == 0 {
		t.Fatal("rita transferred to a repository she cannot write")
	}
	// Private to public is refused.
	e.Must(201, "POST", "/repos/mona/secret/issues", tok, map[string]any{"title": "hidden"})
	hidden := e.Must(200, "GET", "/repos/mona/secret/issues/1", tok, nil).Map(t)
	if _, errs := gql(t, e, tok, transferIssue, map[string]any{"issue": hidden["node_id"], "repo": dst["node_id"]}); len(errs) == 0 ||
		!strings.Contains(errs[0]["message"].(string), "private") {
		t.Fatalf("private to public: %v", errs)
	}

	d, errs := gql(t, e, tok, transferIssue, map[string]any{"issue": is["node_id"], "repo": dst["node_id"]})
	if len(errs) > 0 {
		t.Fatalf("transferIssue: %v", errs)
	}
	p := d["transferIssue"].(map[string]any)
	moved := p["issue"].(map[string]any)
	if p["clientMutationId"] != "x" || moved["number"] != float64(2) || moved["repository"].(map[string]any)["nameWithOwner"] != "mona/dst" ||
		!strings.HasSuffix(moved["url"].(string), "/mona/dst/issues/2") {
		t.Fatalf("payload: %v", p)
	}
	// Over REST: the issue with its comment, the milestone of the same
	// title, labels the destination has, assignees who may be assigned.
	got := e.Must(200, "GET", "/repos/mona/dst/issues/2", tok, nil).Map(t)
	var labels []string
	for _, l := range got["labels"].([]any) {
		labels = append(labels, l.(map[string]any)["name"].(string))
	}
	var assignees []string
	for _, a := range got["assignees"].([]any) {
		assignees = append(assignees, a.(map[string]any)["login"].(string))
	}
	if got["title"] != "Move me" || got["comments"] != float64(1) || strings.Join(labels, ",") != "bug" ||
		strings.Join(assignees, ",") != "mona" || got["milestone"].(map[string]any)["title"] != "V1" ||
		!strings.HasSuffix(got["url"].(string), "/repos/mona/dst/issues/2") {
		t.Fatalf("moved issue: %v", got)
	}
	var comments []map[string]any
	e.Must(200, "GET", "/repos/mona/dst/issues/2/comments", tok, nil).JSON(t, &comments)
	if len(comments) != 1 || comments[0]["body"] != "a comment" {
		t.Fatalf("comments: %v", comments)
	}
	// The old number redirects; the counts moved.
	resp := noFollow(t, e, "GET", e.API+"/repos/mona/src/issues/1/comments", tok)
	if resp.StatusCode != 301 || resp.Header.Get("Location") != e.API+"/repos/mona/dst/issues/2/comments" {
		t.Fatalf("old number: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if n := e.Must(200, "GET", "/repos/mona/src", tok, nil).Map(t)["open_issues_count"]; n != float64(0) {
		t.Fatalf("src open issues %v", n)
	}
	if n := e.Must(200, "GET", "/repos/mona/dst", tok, nil).Map(t)["open_issues_count"]; n != float64(2) {
		t.Fatalf("dst open issues %v", n)
	}
	var srcList []map[string]any
	e.Must(200, "GET", "/repos/mona/src/issues", tok, nil).JSON(t, &srcList)
	if len(srcList) != 0 {
		t.Fatalf("src still lists %v", srcList)
	}
	// The next issue in src does not reuse the number.
	if n := e.Must(201, "POST", "/repos/mona/src/issues", tok, map[string]any{"title": "next"}).Map(t)["number"]; n != float64(2) {
		t.Fatalf("next number in src: %v", n)
	}

	// Back again, with the labels made where missing.
	back := e.Must(200, "GET", "/repos/mona/dst/issues/2", tok, nil).Map(t)
	e.Must(200, "PUT", "/repos/mona/dst/issues/2/labels", tok, map[string]any{"labels": []string{"bug", "fresh"}})
	srcRepo := e.Must(200, "GET", "/repos/mona/src", tok, nil).Map(t)
	if _, errs := gql(t, e, tok, transferIssue, map[string]any{"issue": back["node_id"], "repo": srcRepo["node_id"], "create": true}); len(errs) > 0 {
		t.Fatalf("transfer back: %v", errs)
	}
	again := e.Must(200, "GET", "/repos/mona/src/issues/3", tok, nil).Map(t)
	if len(again["labels"].([]any)) != 2 {
		t.Fatalf("labels after createLabelsIfMissing: %v", again["labels"])
	}
	e.Must(200, "GET", "/repos/mona/src/labels/fresh", tok, nil)
	// Both old numbers lead to where it is now.
	if resp := noFollow(t, e, "GET", e.API+"/repos/mona/src/issues/1", tok); resp.Header.Get("Location") != e.API+"/repos/mona/src/issues/3" {
		t.Fatalf("first number: %q", resp.Header.Get("Location"))
	}

	// Pull requests and other owners' repositories are refused.
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	org := e.Must(201, "POST", "/orgs/acme/repos", tok, map[string]any{"name": "elsewhere"}).Map(t)
	if _, errs := gql(t, e, tok, transferIssue, map[string]any{"issue": again["node_id"], "repo": org["node_id"]}); len(errs) == 0 ||
		!strings.Contains(errs[0]["message"].(string), "same owner") {
		t.Fatalf("another owner: %v", errs)
	}
	// The events: transferred on the source, opened on the destination.
	events, err := e.Store.R().EventsAfter(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ev := range events {
		if ev.Type == "issues.transferred" || (ev.Type == "issues.opened" && strings.Contains(string(ev.Payload), "transferred_from")) {
			kinds = append(kinds, ev.Type)
		}
	}
	if strings.Join(kinds, " ") != "issues.transferred issues.opened issues.transferred issues.opened" {
		t.Fatalf("events %v", kinds)
	}
}

// A transferred issue shows a transferred event on its timeline, and the
// notification threads of the old issue follow it: a subscriber keeps the
// thread, its subscription, and hears of what happens on the new issue.
func TestTransferIssueTimelineAndThreads(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "src"})
	dst := e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "dst"}).Map(t)
	e.Must(201, "POST", "/repos/mona/dst/issues", tok, map[string]any{"title": "already there"})
	is := e.Must(201, "POST", "/repos/mona/src/issues", tok, map[string]any{"title": "Move me", "body": "cc @rita"}).Map(t)
	if err := e.Deps.Outbox.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var threads []map[string]any
	e.Must(200, "GET", "/notifications", ritaTok, nil).JSON(t, &threads)
	if len(threads) != 1 {
		t.Fatalf("rita's threads before: %v", threads)
	}
	id := threads[0]["id"].(string)
	e.Must(200, "PUT", "/notifications/threads/"+id+"/subscription", ritaTok, map[string]any{"subscribed": true})
	e.Must(205, "PATCH", "/notifications/threads/"+id, ritaTok, nil) // read

	if _, errs := gql(t, e, tok, transferIssue, map[string]any{"issue": is["node_id"], "repo": dst["node_id"]}); len(errs) > 0 {
		t.Fatalf("transferIssue: %v", errs)
	}
	// The timeline (and the events) of the issue where it is now.
	for _, path := range []string{"/repos/mona/dst/issues/2/timeline", "/repos/mona/dst/issues/2/events"} {
		var events []map[string]any
		e.Must(200, "GET", path, tok, nil).JSON(t, &events)
		found := false
		for _, ev := range events {
			if ev["event"] == "transferred" {
				found = true
				if ev["actor"].(map[string]any)["login"] != "mona" || ev["commit_id"] != nil {
					t.Errorf("%s: %v", path, ev)
				}
			}
		}
		if !found {
			t.Fatalf("%s lacks the transferred event: %v", path, events)
		}
	}

	// The thread moved with its subscription.
	if err := e.Deps.Outbox.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	th := e.Must(200, "GET", "/notifications/threads/"+id, ritaTok, nil).Map(t)
	subject := th["subject"].(map[string]any)
	if th["repository"].(map[string]any)["full_name"] != "mona/dst" || !strings.HasSuffix(subject["url"].(string), "/repos/mona/dst/issues/2") {
		t.Fatalf("thread after the transfer: %v", th)
	}
	sub := e.Must(200, "GET", "/notifications/threads/"+id+"/subscription", ritaTok, nil).Map(t)
	if sub["subscribed"] != true || sub["ignored"] != false {
		t.Fatalf("subscription after the transfer: %v", sub)
	}
	// A comment on the new issue comes to the same thread.
	e.Must(201, "POST", "/repos/mona/dst/issues/2/comments", tok, map[string]any{"body": "moved here"})
	if err := e.Deps.Outbox.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	threads = nil
	e.Must(200, "GET", "/notifications", ritaTok, nil).JSON(t, &threads)
	if len(threads) != 1 || threads[0]["id"] != id || threads[0]["unread"] != true {
		t.Fatalf("rita's threads after a comment on the moved issue: %v", threads)
	}
	if u := threads[0]["subject"].(map[string]any)["latest_comment_url"].(string); !strings.Contains(u, "/repos/mona/dst/issues/comments/") {
		t.Fatalf("latest comment %q", u)
	}
}
