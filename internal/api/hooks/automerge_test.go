package hooks_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestAutoMergeDeliveries: enabling and disabling auto-merge over GraphQL
// deliver pull_request auto_merge_enabled and auto_merge_disabled, valid
// against GitHub's webhook schemas; the enabled one's pull request carries
// its auto_merge.
func TestAutoMergeDeliveries(t *testing.T) {
	f := newFixture(t)
	f.hook("", "json", "pull_request")
	e, tok := f.e, f.token
	var main struct {
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	e.Must(200, "GET", "/repos/mona/app/branches/main", tok, nil).JSON(t, &main)
	e.Must(201, "POST", "/repos/mona/app/git/refs", tok, map[string]any{"ref": "refs/heads/topic", "sha": main.Commit.SHA})
	e.Must(201, "PUT", "/repos/mona/app/contents/topic.txt", tok, map[string]any{"message": "Topic", "branch": "topic",
		"content": base64.StdEncoding.EncodeToString([]byte("topic\n"))})
	pr := e.Must(201, "POST", "/repos/mona/app/pulls", tok, map[string]any{"title": "Topic", "head": "topic", "base": "main"}).Map(t)
	e.Must(200, "PUT", "/repos/mona/app/branches/main/protection", tok, map[string]any{
		"required_status_checks": map[string]any{"strict": false, "contexts": []string{"build"}}, "enforce_admins": true,
		"required_pull_request_reviews": nil, "restrictions": nil})
	e.Must(200, "PATCH", "/repos/mona/app", tok, map[string]any{"allow_auto_merge": true})
	e.RunJobs()

	mutate := func(name string, extra ...string) {
		t.Helper()
		in := map[string]any{"pullRequestId": pr["node_id"]}
		if name == "enablePullRequestAutoMerge" {
			in["mergeMethod"], in["commitHeadline"] = "SQUASH", "Topic (#1)"
		}
		for i := 0; i+1 < len(extra); i += 2 {
			in[extra[i]] = extra[i+1]
		}
		r := e.Do("POST", e.URL+"/api/graphql", tok, map[string]any{
			"query":     "mutation($in: " + strings.ToUpper(name[:1]) + name[1:] + "Input!) { " + name + "(input: $in) { pullRequest { number } } }",
			"variables": map[string]any{"in": in}})
		if r.StatusCode != 200 || strings.Contains(string(r.Body), `"errors"`) {
			t.Fatalf("%s: %d %s", name, r.StatusCode, r.Body)
		}
	}
	mutate("enablePullRequestAutoMerge")
	d := f.recv.WaitFor(t, "pull_request", "auto_merge_enabled")
	f.check(d, "")
	am, _ := d.Map(t)["pull_request"].(map[string]any)["auto_merge"].(map[string]any)
	if am["merge_method"] != "squash" || am["commit_title"] != "Topic (#1)" {
		t.Errorf("auto_merge_enabled: pull_request.auto_merge %v", am)
	}
	mutate("disablePullRequestAutoMerge")
	d = f.recv.WaitFor(t, "pull_request", "auto_merge_disabled")
	f.check(d, "")
	if d.Map(t)["pull_request"].(map[string]any)["auto_merge"] != nil || d.Map(t)["reason"] != "Disabled by a user" {
		t.Errorf("auto_merge_disabled: pull_request.auto_merge is still set, or reason %v", d.Map(t)["reason"])
	}

	// Enabled for the head it has, then the head moves: auto-merge goes
	// off, with the reason.
	head := pr["head"].(map[string]any)["sha"].(string)
	mutate("enablePullRequestAutoMerge", "expectedHeadOid", head)
	f.recv.WaitFor(t, "pull_request", "auto_merge_enabled")
	e.Must(201, "PUT", "/repos/mona/app/contents/more.txt", tok, map[string]any{"message": "More", "branch": "topic",
		"content": base64.StdEncoding.EncodeToString([]byte("more\n"))})
	e.RunJobs()
	d = f.recv.Wait(t, "auto_merge_disabled for the moved head", func(d *hookstest.Delivery) bool {
		return d.Event() == "pull_request" && d.Action() == "auto_merge_disabled" && strings.Contains(string(d.Body), "Head branch")
	})
	f.check(d, "")
	if got := d.Map(t); got["reason"] != "Head branch was modified" || got["pull_request"].(map[string]any)["auto_merge"] != nil {
		t.Errorf("auto_merge_disabled after the head moved: reason %v", got["reason"])
	}
	if am := e.Must(200, "GET", "/repos/mona/app/pulls/1", tok, nil).Map(t)["auto_merge"]; am != nil {
		t.Errorf("auto_merge after the head moved: %v", am)
	}

	// authorEmail: one of the enabler's addresses, the merge commit's author.
	e.Must(200, "PATCH", "/user", tok, map[string]any{"email": "mona@example.com"})
	r := e.Do("POST", e.URL+"/api/graphql", tok, map[string]any{
		"query":     "mutation($in: EnablePullRequestAutoMergeInput!) { enablePullRequestAutoMerge(input: $in) { pullRequest { number } } }",
		"variables": map[string]any{"in": map[string]any{"pullRequestId": pr["node_id"], "mergeMethod": "MERGE", "authorEmail": "someone@example.com"}}})
	if !strings.Contains(string(r.Body), "verified emails") {
		t.Fatalf("authorEmail not hers: %s", r.Body)
	}
	// Her no-reply address, not the public one her commits get by default.
	me := e.Must(200, "GET", "/user", tok, nil).Map(t)
	noreply := fmt.Sprintf("%v+mona@%s", me["id"], e.Deps.URLs.NoreplyDomain())
	mutate("enablePullRequestAutoMerge", "mergeMethod", "MERGE", "authorEmail", noreply)
	head = e.Must(200, "GET", "/repos/mona/app/pulls/1", tok, nil).Map(t)["head"].(map[string]any)["sha"].(string)
	e.Must(201, "POST", "/repos/mona/app/statuses/"+head, tok, map[string]any{"state": "success", "context": "build"})
	e.RunJobs()
	if got := e.Must(200, "GET", "/repos/mona/app/pulls/1", tok, nil).Map(t); got["merged"] != true {
		t.Fatalf("auto-merge did not merge: %v %v", got["merged"], got["mergeable_state"])
	}
	var merged struct {
		Commit struct {
			Commit struct {
				Author struct {
					Email string `json:"email"`
				} `json:"author"`
			} `json:"commit"`
		} `json:"commit"`
	}
	e.Must(200, "GET", "/repos/mona/app/branches/main", tok, nil).JSON(t, &merged)
	if merged.Commit.Commit.Author.Email != noreply {
		t.Errorf("merge commit author email %q", merged.Commit.Commit.Author.Email)
	}
}
