package ghcli_test

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhAutoMerge: gh pr merge --auto as a user runs it. Refused while the
// repository does not allow auto-merge; on a pull request that waits for a
// required status it enables auto-merge (REST's auto_merge, the timeline's
// auto_merge_enabled), and the merge happens, squashed with gh's subject
// and as mona, when the status turns green; --disable-auto turns it off;
// on a clean pull request gh merges at once.
func TestGhAutoMerge(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	g := ghcli.Start(t, e)
	g.LoginAs("mona", w.tok)
	e.Must(200, "PUT", "/repos/mona/hello/branches/main/protection", w.tok, map[string]any{
		"required_status_checks": map[string]any{"strict": false, "contexts": []string{"build"}}, "enforce_admins": true,
		"required_pull_request_reviews": nil, "restrictions": nil})
	e.RunJobs()

	r := g.Run("pr", "merge", "4", "-R", "mona/hello", "--auto", "--squash")
	if r.Code == 0 || !strings.Contains(r.Stderr, "Auto-merge is not allowed for this repository") {
		t.Fatalf("auto-merge on a repository that does not allow it:\n%s", r)
	}
	e.Must(200, "PATCH", "/repos/mona/hello", w.tok, map[string]any{"allow_auto_merge": true})
	g.Must("pr", "merge", "4", "-R", "mona/hello", "--auto", "--squash", "--subject", "Feature, squashed", "--body", "All of it.")
	e.RunJobs()
	pr := e.Must(200, "GET", "/repos/mona/hello/pulls/4", w.tok, nil).Map(t)
	if pr["merged"] != false || dig(pr, "auto_merge", "merge_method") != "squash" || dig(pr, "auto_merge", "commit_title") != "Feature, squashed" ||
		dig(pr, "auto_merge", "enabled_by", "login") != "mona" {
		t.Fatalf("after gh pr merge --auto: merged %v, auto_merge %v", pr["merged"], pr["auto_merge"])
	}
	timeline := func() string {
		var list []struct {
			Event string `json:"event"`
		}
		e.Must(200, "GET", "/repos/mona/hello/issues/4/events", w.tok, nil).JSON(t, &list)
		var evs []string
		for _, ev := range list {
			evs = append(evs, ev.Event)
		}
		return strings.Join(evs, ",")
	}
	if tl := timeline(); !strings.Contains(tl, "auto_merge_enabled") {
		t.Fatalf("events: %s", tl)
	}

	// Off and on again.
	g.Must("pr", "merge", "4", "-R", "mona/hello", "--disable-auto")
	if pr := e.Must(200, "GET", "/repos/mona/hello/pulls/4", w.tok, nil).Map(t); pr["auto_merge"] != nil {
		t.Fatalf("after --disable-auto: auto_merge %v", pr["auto_merge"])
	}
	if tl := timeline(); !strings.Contains(tl, "auto_merge_disabled") {
		t.Fatalf("events: %s", tl)
	}
	g.Must("pr", "merge", "4", "-R", "mona/hello", "--auto", "--squash", "--subject", "Feature, squashed", "--body", "All of it.")

	// A failing status leaves it waiting; a green one merges.
	e.Must(201, "POST", "/repos/mona/hello/statuses/"+w.featSHA, w.tok, map[string]any{"state": "failure", "context": "build"})
	e.RunJobs()
	if pr := e.Must(200, "GET", "/repos/mona/hello/pulls/4", w.tok, nil).Map(t); pr["merged"] != false {
		t.Fatal("merged with a failing required status")
	}
	e.Must(201, "POST", "/repos/mona/hello/statuses/"+w.featSHA, w.tok, map[string]any{"state": "success", "context": "build"})
	e.RunJobs()
	pr = e.Must(200, "GET", "/repos/mona/hello/pulls/4", w.tok, nil).Map(t)
	if pr["merged"] != true || dig(pr, "merged_by", "login") != "mona" || pr["auto_merge"] != nil {
		t.Fatalf("after the status turned green: merged %v by %v, auto_merge %v", pr["merged"], pr["merged_by"], pr["auto_merge"])
	}
	sha, _ := pr["merge_commit_sha"].(string)
	c := e.Must(200, "GET", "/repos/mona/hello/commits/"+sha, w.tok, nil).Map(t)
	if msg := dig(c, "commit", "message"); msg != "Feature, squashed\n\nAll of it." || len(c["parents"].([]any)) != 1 {
		t.Fatalf("merge commit: message %q, parents %v", msg, c["parents"])
	}
	var v map[string]any
	decode(t, g.Must("pr", "view", "4", "-R", "mona/hello", "--json", "state,autoMergeRequest,mergeCommit"), &v)
	if v["state"] != "MERGED" || v["autoMergeRequest"] != nil || dig(v, "mergeCommit", "oid") != sha {
		t.Fatalf("gh pr view after the merge: %v", v)
	}

	// A clean pull request: gh merges it directly.
	e.Must(201, "POST", "/repos/mona/hello/git/refs", w.tok, map[string]any{"ref": "refs/heads/clean", "sha": sha})
	e.Must(201, "PUT", "/repos/mona/hello/contents/clean.txt", w.tok, map[string]any{"message": "Clean", "branch": "clean", "content": "Y2xlYW4K"})
	e.Must(201, "POST", "/repos/mona/hello/pulls", w.tok, map[string]any{"title": "Clean", "head": "clean", "base": "main"})
	head := branchSHA(t, e, w.tok, "mona/hello", "clean")
	e.Must(201, "POST", "/repos/mona/hello/statuses/"+head, w.tok, map[string]any{"state": "success", "context": "build"})
	e.RunJobs()
	g.Must("pr", "merge", "5", "-R", "mona/hello", "--auto", "--merge")
	if pr := e.Must(200, "GET", "/repos/mona/hello/pulls/5", w.tok, nil).Map(t); pr["merged"] != true {
		t.Fatalf("gh pr merge --auto on a clean pull request did not merge it: %v", pr["mergeable_state"])
	}
	checkGraphQLAnswers(t, e, g, w.tok)
}
