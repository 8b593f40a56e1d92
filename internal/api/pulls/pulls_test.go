package pulls_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/jobs"
	pullsvc "github.com/hubd/hubd/internal/pulls"
)

func TestOpenGetList(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	head := f.write(t, "feature", "a.txt", "one\n")
	pr := f.open(t, "feature", "Add a")
	if pr.GetNumber() != 1 || pr.GetState() != "open" || pr.GetHead().GetSHA() != head || pr.GetHead().GetRef() != "feature" ||
		pr.GetHead().GetLabel() != "mona:feature" || pr.GetBase().GetRef() != "main" || pr.GetBase().GetRepo().GetFullName() != "mona/app" ||
		pr.GetUser().GetLogin() != "mona" || pr.GetCommits() != 1 || pr.GetAdditions() != 1 || pr.GetChangedFiles() != 1 ||
		pr.GetMerged() || pr.Mergeable != nil || pr.GetMergeableState() != "unknown" || pr.GetAuthorAssociation() != "OWNER" {
		t.Fatalf("created %+v", pr)
	}
	if got := f.ref(t, "refs/pull/1/head"); got != head {
		t.Errorf("refs/pull/1/head = %s, want %s", got, head)
	}

	// The background check finds it mergeable and writes the test merge.
	pr = f.get(t, 1)
	if !pr.GetMergeable() || pr.GetMergeableState() != "clean" || pr.Rebaseable == nil || !pr.GetRebaseable() {
		t.Fatalf("after the check: mergeable %v state %s rebaseable %v", pr.Mergeable, pr.GetMergeableState(), pr.Rebaseable)
	}
	if merge := f.ref(t, "refs/pull/1/merge"); pr.GetMergeCommitSHA() != merge {
		t.Errorf("merge_commit_sha %s, refs/pull/1/merge %s", pr.GetMergeCommitSHA(), merge)
	}

	// A pull request is an issue: same numbers, the pull_request key.
	is, _, err := f.gh.Issues.Get(ctx, "mona", "app", 1)
	if err != nil || !is.IsPullRequest() || is.GetTitle() != "Add a" {
		t.Fatalf("issue half: %+v %v", is, err)
	}
	issue, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "bug"})
	if err != nil || issue.GetNumber() != 2 {
		t.Fatalf("next issue number: %v %v", issue.GetNumber(), err)
	}

	// More pull requests, and the list with its filters and pages.
	for _, b := range []string{"b2", "b3"} {
		f.branch(t, b)
		f.write(t, b, b+".txt", b)
		f.open(t, b, "PR "+b)
	}
	list, resp, err := f.gh.PullRequests.List(ctx, "mona", "app", &github.PullRequestListOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || len(list) != 2 || list[0].GetNumber() != 4 || list[1].GetNumber() != 3 || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("list page 1: %d %v %+v", len(list), err, resp)
	}
	list, _, err = f.gh.PullRequests.List(ctx, "mona", "app", &github.PullRequestListOptions{Head: "mona:b2"})
	if err != nil || len(list) != 1 || list[0].GetHead().GetRef() != "b2" {
		t.Fatalf("head filter: %v %v", list, err)
	}
	list, _, err = f.gh.PullRequests.List(ctx, "mona", "app", &github.PullRequestListOptions{State: "closed"})
	if err != nil || len(list) != 0 {
		t.Fatalf("closed: %v %v", list, err)
	}
	list, _, err = f.gh.PullRequests.List(ctx, "mona", "app", &github.PullRequestListOptions{Sort: "created", Direction: "asc", Base: "main"})
	if err != nil || len(list) != 3 || list[0].GetNumber() != 1 {
		t.Fatalf("asc: %v %v", list, err)
	}
	// Issues list shows pull requests too, with the pull_request key;
	// GET /issues?pulls=true only pull requests.
	issues, _, err := f.gh.Issues.ListByRepo(ctx, "mona", "app", nil)
	if err != nil || len(issues) != 4 {
		t.Fatalf("issues: %d %v", len(issues), err)
	}
	var mine []map[string]any
	f.e.Must(200, "GET", "/issues?filter=all&pulls=true", f.token, nil).JSON(t, &mine)
	if len(mine) != 3 || mine[0]["pull_request"] == nil {
		t.Fatalf("GET /issues?pulls=true: %d", len(mine))
	}
	f.e.Must(200, "GET", "/issues?filter=all", f.token, nil).JSON(t, &mine)
	if len(mine) != 4 {
		t.Fatalf("GET /issues: %d", len(mine))
	}

	// Files and commits of the pull request; diff and patch media types.
	files, _, err := f.gh.PullRequests.ListFiles(ctx, "mona", "app", 1, nil)
	if err != nil || len(files) != 1 || files[0].GetFilename() != "a.txt" || files[0].GetStatus() != "added" || !strings.Contains(files[0].GetPatch(), "+one") {
		t.Fatalf("files: %+v %v", files, err)
	}
	commits, _, err := f.gh.PullRequests.ListCommits(ctx, "mona", "app", 1, nil)
	if err != nil || len(commits) != 1 || commits[0].GetSHA() != head {
		t.Fatalf("commits: %+v %v", commits, err)
	}
	diff := f.e.Must(200, "GET", "/repos/mona/app/pulls/1", f.token, nil, "Accept: application/vnd.github.diff")
	if !strings.Contains(string(diff.Body), "diff --git a/a.txt b/a.txt") || !strings.HasPrefix(diff.Header.Get("Content-Type"), "application/vnd.github.diff") {
		t.Errorf("diff: %s", diff.Body)
	}
	raw, _, err := f.gh.PullRequests.GetRaw(ctx, "mona", "app", 1, github.RawOptions{Type: github.Patch})
	if err != nil || !strings.Contains(raw, "Subject: [PATCH] write a.txt") {
		t.Errorf("patch: %q %v", raw, err)
	}

	// Anonymous readers see a public repository's pull requests.
	f.e.Must(200, "GET", "/repos/mona/app/pulls/1", "", nil)
	f.e.Must(404, "GET", "/repos/mona/app/pulls/2", "", nil) // #2 is an issue
	f.e.Must(404, "GET", "/repos/mona/app/pulls/99", "", nil)
}

func TestOpenErrors(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	f.write(t, "feature", "a.txt", "one\n")
	f.branch(t, "same") // no commits beyond main
	f.open(t, "feature", "first")
	cases := []struct {
		name string
		body map[string]any
		want int
		msg  string
	}{
		{"head is base", map[string]any{"title": "t", "head": "main", "base": "main"}, 422, "No commits between main and mona:main"},
		{"no commits", map[string]any{"title": "t", "head": "same", "base": "main"}, 422, "No commits between main and mona:same"},
		{"exists", map[string]any{"title": "t", "head": "feature", "base": "main"}, 422, "A pull request already exists for mona:feature."},
		{"unknown base", map[string]any{"title": "t", "head": "feature", "base": "nope"}, 422, `"field":"base","code":"invalid"`},
		{"unknown head", map[string]any{"title": "t", "head": "nope", "base": "main"}, 422, `"field":"head","code":"invalid"`},
		{"unknown owner", map[string]any{"title": "t", "head": "ghost:feature", "base": "main"}, 422, `"field":"head","code":"invalid"`},
		{"no title", map[string]any{"head": "feature", "base": "main"}, 422, `"field":"title","code":"missing_field"`},
		{"long title", map[string]any{"title": strings.Repeat("x", 257), "head": "feature", "base": "main"}, 422, "title is too long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.e.Do("POST", "/repos/mona/app/pulls", f.token, c.body)
			if r.StatusCode != c.want || !strings.Contains(string(r.Body), c.msg) {
				t.Fatalf("status %d body %s; want %d %s", r.StatusCode, r.Body, c.want, c.msg)
			}
		})
	}
	// Nothing half-written: still one pull request, and the next number is 2.
	list, _, _ := f.gh.PullRequests.List(ctx, "mona", "app", &github.PullRequestListOptions{State: "all"})
	if len(list) != 1 {
		t.Fatalf("pull requests after the errors: %d", len(list))
	}
	f.e.Must(401, "POST", "/repos/mona/app/pulls", "", map[string]any{"title": "t", "head": "same", "base": "main"})
}

func TestMergeMethods(t *testing.T) {
	f := newFixture(t)
	for i, method := range []string{"merge", "squash", "rebase"} {
		b := "topic-" + method
		f.branch(t, b)
		f.write(t, b, method+"-1.txt", "1\n")
		head := f.write(t, b, method+"-2.txt", "2\n")
		pr := f.open(t, b, "Do "+method)
		n := pr.GetNumber()
		before := f.ref(t, "refs/heads/main")
		// A stale sha is refused: the head moved.
		r := f.e.Do("PUT", "/repos/mona/app/pulls/"+itoa(n)+"/merge", f.token, map[string]any{"sha": before, "merge_method": method})
		if r.StatusCode != 409 || !strings.Contains(string(r.Body), "Head branch was modified") {
			t.Fatalf("stale sha: %d %s", r.StatusCode, r.Body)
		}
		res, _, err := f.gh.PullRequests.Merge(ctx, "mona", "app", n, "", &github.PullRequestOptions{MergeMethod: method, SHA: head})
		if err != nil || !res.GetMerged() || res.GetMessage() != "Pull Request successfully merged" {
			t.Fatalf("%s: %+v %v", method, res, err)
		}
		main := f.ref(t, "refs/heads/main")
		if main != res.GetSHA() {
			t.Fatalf("%s: main at %s, merge said %s", method, main, res.GetSHA())
		}
		c, _, err := f.gh.Git.GetCommit(ctx, "mona", "app", main)
		if err != nil {
			t.Fatal(err)
		}
		switch method {
		case "merge":
			if len(c.Parents) != 2 || c.Parents[0].GetSHA() != before || c.Parents[1].GetSHA() != head ||
				!strings.HasPrefix(c.GetMessage(), "Merge pull request #"+itoa(n)+" from mona/"+b) {
				t.Errorf("merge commit %+v", c)
			}
		case "squash":
			if len(c.Parents) != 1 || c.Parents[0].GetSHA() != before || !strings.HasPrefix(c.GetMessage(), "Do squash (#"+itoa(n)+")") ||
				!strings.Contains(c.GetMessage(), "* write squash-1.txt") {
				t.Errorf("squash commit %+v", c)
			}
		case "rebase":
			if len(c.Parents) != 1 || c.GetMessage() != "write rebase-2.txt" || c.GetSHA() == head {
				t.Errorf("rebased commit %+v", c)
			}
			parent, _, _ := f.gh.Git.GetCommit(ctx, "mona", "app", c.Parents[0].GetSHA())
			if parent.GetMessage() != "write rebase-1.txt" || parent.Parents[0].GetSHA() != before {
				t.Errorf("rebased first commit %+v", parent)
			}
		}
		got := f.get(t, n)
		if !got.GetMerged() || got.GetState() != "closed" || got.GetMergedBy().GetLogin() != "mona" || got.GetMergeCommitSHA() != res.GetSHA() || got.MergedAt == nil {
			t.Fatalf("%s: after merge %+v", method, got)
		}
		if is, _, err := f.gh.Issues.Get(ctx, "mona", "app", n); err != nil || is.PullRequestLinks.GetMergedAt().IsZero() {
			t.Fatalf("issue half of a merged pull request: %+v %v", is.PullRequestLinks, err)
		}
		if merged, resp, err := f.gh.PullRequests.IsMerged(ctx, "mona", "app", n); err != nil || !merged {
			t.Fatalf("is merged: %v %v", resp, err)
		}
		// Merging again: not mergeable.
		r = f.e.Do("PUT", "/repos/mona/app/pulls/"+itoa(n)+"/merge", f.token, nil)
		if r.StatusCode != 405 || !strings.Contains(string(r.Body), "Pull Request is not mergeable") {
			t.Fatalf("merge twice: %d %s", r.StatusCode, r.Body)
		}
		events, _, err := f.gh.Issues.ListIssueEvents(ctx, "mona", "app", n, nil)
		var names []string
		for _, e := range events {
			names = append(names, e.GetEvent())
		}
		if err != nil || !strings.Contains(strings.Join(names, ","), "merged,closed") {
			t.Fatalf("events %d: %v %v", i, names, err)
		}
	}
	// An open pull request that is not merged answers 404 to is-merged.
	f.branch(t, "open")
	f.write(t, "open", "o.txt", "o")
	pr := f.open(t, "open", "still open")
	f.e.Must(404, "GET", "/repos/mona/app/pulls/"+itoa(pr.GetNumber())+"/merge", f.token, nil)
}

func TestMergeRules(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	f.write(t, "feature", "a.txt", "one\n")
	f.open(t, "feature", "rules")
	// Readers may not merge; a collaborator with write may.
	reader, readTok := f.user(t, "reader", authz.Read)
	_ = reader
	r := f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", readTok, nil)
	if r.StatusCode != 403 {
		t.Fatalf("reader merge: %d %s", r.StatusCode, r.Body)
	}
	// Repository settings: merge commits off.
	if _, _, err := f.gh.Repositories.Edit(ctx, "mona", "app", &github.Repository{AllowMergeCommit: github.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	r = f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, map[string]any{"merge_method": "merge"})
	if r.StatusCode != 405 || !strings.Contains(string(r.Body), "Merge commits are not allowed on this repository.") {
		t.Fatalf("merge commits off: %d %s", r.StatusCode, r.Body)
	}
	r = f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, map[string]any{"merge_method": "octopus"})
	if r.StatusCode != 422 {
		t.Fatalf("unknown method: %d %s", r.StatusCode, r.Body)
	}
	// Closed pull requests are not mergeable.
	closed := "closed"
	if _, _, err := f.gh.PullRequests.Edit(ctx, "mona", "app", 1, &github.PullRequest{State: &closed}); err != nil {
		t.Fatal(err)
	}
	r = f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, map[string]any{"merge_method": "squash"})
	if r.StatusCode != 405 {
		t.Fatalf("closed: %d %s", r.StatusCode, r.Body)
	}
	_ = http.StatusOK
}

func TestConflictAndSync(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	f.write(t, "feature", "README.md", "feature's readme\n")
	f.open(t, "feature", "conflicting")
	if pr := f.get(t, 1); !pr.GetMergeable() {
		t.Fatalf("before the conflict: %v %s", pr.Mergeable, pr.GetMergeableState())
	}
	// main changes the same file: the pull request no longer merges.
	f.write(t, "main", "README.md", "main's readme\n")
	pr := f.get(t, 1)
	if pr.Mergeable == nil || pr.GetMergeable() || pr.GetMergeableState() != "dirty" || pr.GetRebaseable() {
		t.Fatalf("after the conflict: %v %s", pr.Mergeable, pr.GetMergeableState())
	}
	if pr.GetBase().GetSHA() != f.ref(t, "refs/heads/main") {
		t.Errorf("base sha not updated")
	}
	r := f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, nil)
	if r.StatusCode != 405 || !strings.Contains(string(r.Body), "Pull Request is not mergeable") {
		t.Fatalf("merge with a conflict: %d %s", r.StatusCode, r.Body)
	}
	// A push to the head that resolves it moves refs/pull/1/head.
	head := f.write(t, "feature", "README.md", "main's readme\n")
	pr = f.get(t, 1)
	if pr.GetHead().GetSHA() != head || f.ref(t, "refs/pull/1/head") != head || !pr.GetMergeable() || pr.GetCommits() != 2 {
		t.Fatalf("after the push: head %s mergeable %v commits %d", pr.GetHead().GetSHA(), pr.Mergeable, pr.GetCommits())
	}
}

func TestUpdate(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	f.branch(t, "dev")
	f.write(t, "feature", "a.txt", "one\n")
	f.open(t, "feature", "old title")
	pr, _, err := f.gh.PullRequests.Edit(ctx, "mona", "app", 1, &github.PullRequest{Title: github.Ptr("new title"), Body: github.Ptr("why"), Base: &github.PullRequestBranch{Ref: github.Ptr("dev")}})
	if err != nil || pr.GetTitle() != "new title" || pr.GetBody() != "why" || pr.GetBase().GetRef() != "dev" {
		t.Fatalf("edit: %+v %v", pr, err)
	}
	closed, open := "closed", "open"
	pr, _, err = f.gh.PullRequests.Edit(ctx, "mona", "app", 1, &github.PullRequest{State: &closed})
	if err != nil || pr.GetState() != "closed" || pr.ClosedAt == nil {
		t.Fatalf("close: %+v %v", pr, err)
	}
	pr, _, err = f.gh.PullRequests.Edit(ctx, "mona", "app", 1, &github.PullRequest{State: &open})
	if err != nil || pr.GetState() != "open" {
		t.Fatalf("reopen: %+v %v", pr, err)
	}
	events, _, _ := f.gh.Issues.ListIssueEvents(ctx, "mona", "app", 1, nil)
	var names []string
	for _, e := range events {
		names = append(names, e.GetEvent())
	}
	if strings.Join(names, ",") != "renamed,base_ref_changed,closed,reopened" {
		t.Errorf("events: %v", names)
	}
	// Someone else without write access may not edit it.
	_, tok := f.user(t, "stranger", authz.None)
	r := f.e.Do("PATCH", "/repos/mona/app/pulls/1", tok, map[string]any{"title": "mine"})
	if r.StatusCode != 403 {
		t.Fatalf("stranger: %d %s", r.StatusCode, r.Body)
	}
	r = f.e.Do("PATCH", "/repos/mona/app/pulls/1", f.token, map[string]any{"base": "nope"})
	if r.StatusCode != 422 {
		t.Fatalf("unknown base: %d %s", r.StatusCode, r.Body)
	}
}

func TestUpdateBranch(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	head := f.write(t, "feature", "a.txt", "one\n")
	f.open(t, "feature", "behind")
	r := f.e.Do("PUT", "/repos/mona/app/pulls/1/update-branch", f.token, nil)
	if r.StatusCode != 422 {
		t.Fatalf("nothing to update: %d %s", r.StatusCode, r.Body)
	}
	base := f.write(t, "main", "b.txt", "two\n")
	r = f.e.Do("PUT", "/repos/mona/app/pulls/1/update-branch", f.token, map[string]any{"expected_head_sha": base})
	if r.StatusCode != 422 {
		t.Fatalf("wrong expected sha: %d %s", r.StatusCode, r.Body)
	}
	// go-github reports 202 as an *AcceptedError carrying the body.
	_, resp, err := f.gh.PullRequests.UpdateBranch(ctx, "mona", "app", 1, &github.PullRequestBranchUpdateOptions{ExpectedHeadSHA: github.Ptr(head)})
	var accepted *github.AcceptedError
	if resp == nil || resp.StatusCode != 202 || !errors.As(err, &accepted) || !strings.Contains(string(accepted.Raw), "Updating pull request branch.") {
		t.Fatalf("update branch: %v %v", resp, err)
	}
	pr := f.get(t, 1)
	c, _, err := f.gh.Git.GetCommit(ctx, "mona", "app", pr.GetHead().GetSHA())
	if err != nil || len(c.Parents) != 2 || c.Parents[0].GetSHA() != head || c.Parents[1].GetSHA() != base {
		t.Fatalf("head after update: %+v %v", c, err)
	}
	if f.ref(t, "refs/pull/1/head") != pr.GetHead().GetSHA() {
		t.Errorf("refs/pull/1/head not moved")
	}
}

func TestRequiredContexts(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	head := f.write(t, "feature", "a.txt", "one\n")
	if err := f.e.Store.Tx(ctx, func(tx storeQ) error { return tx.SetRequiredContexts(ctx, f.repoID, "main", []string{"ci"}) }); err != nil {
		t.Fatal(err)
	}
	f.open(t, "feature", "gated")
	if pr := f.get(t, 1); pr.GetMergeableState() != "blocked" {
		t.Fatalf("without ci: %s", pr.GetMergeableState())
	}
	r := f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, nil)
	if r.StatusCode != 405 || !strings.Contains(string(r.Body), `Required status check \"ci\" is expected.`) {
		t.Fatalf("merge without ci: %d %s", r.StatusCode, r.Body)
	}
	// A failing other context makes it unstable once ci passes.
	f.e.Must(201, "POST", "/repos/mona/app/statuses/"+head, f.token, map[string]any{"state": "success", "context": "ci"})
	f.e.Must(201, "POST", "/repos/mona/app/statuses/"+head, f.token, map[string]any{"state": "failure", "context": "lint"})
	if pr := f.get(t, 1); pr.GetMergeableState() != "unstable" {
		t.Fatalf("ci green, lint red: %s", pr.GetMergeableState())
	}
	f.e.Must(201, "POST", "/repos/mona/app/statuses/"+head, f.token, map[string]any{"state": "success", "context": "lint"})
	if pr := f.get(t, 1); pr.GetMergeableState() != "clean" {
		t.Fatalf("all green: %s", pr.GetMergeableState())
	}
	f.e.Must(200, "PUT", "/repos/mona/app/pulls/1/merge", f.token, nil)
}

// A check run counts like a status context: a required check keeps the pull
// request blocked until it completes successfully.
func TestRequiredCheckRun(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	head := f.write(t, "feature", "a.txt", "one\n")
	if err := f.e.Store.Tx(ctx, func(tx storeQ) error { return tx.SetRequiredContexts(ctx, f.repoID, "main", []string{"build"}) }); err != nil {
		t.Fatal(err)
	}
	f.open(t, "feature", "checked")
	run, _, err := f.gh.Checks.CreateCheckRun(ctx, "mona", "app", github.CreateCheckRunOptions{Name: "build", HeadSHA: head, Status: github.Ptr("in_progress")})
	if err != nil {
		t.Fatal(err)
	}
	if pr := f.get(t, 1); pr.GetMergeableState() != "blocked" {
		t.Fatalf("build running: %s", pr.GetMergeableState())
	}
	if _, _, err := f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", run.GetID(), github.UpdateCheckRunOptions{Name: "build", Conclusion: github.Ptr("failure")}); err != nil {
		t.Fatal(err)
	}
	r := f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, nil)
	if r.StatusCode != 405 || !strings.Contains(string(r.Body), `Required status check \"build\" is failing.`) {
		t.Fatalf("merge with a failing check: %d %s", r.StatusCode, r.Body)
	}
	if _, _, err := f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", run.GetID(), github.UpdateCheckRunOptions{Name: "build", Conclusion: github.Ptr("success")}); err != nil {
		t.Fatal(err)
	}
	if pr := f.get(t, 1); pr.GetMergeableState() != "clean" {
		t.Fatalf("build passed: %s", pr.GetMergeableState())
	}
}

func TestMergeAsync(t *testing.T) {
	f := newFixture(t, apitest.Options{ManualJobs: true})
	f.branch(t, "feature")
	head := f.write(t, "feature", "a.txt", "one\n")
	f.open(t, "feature", "async")
	var res struct {
		Status  string         `json:"status"`
		Details map[string]any `json:"details"`
	}
	f.e.Must(202, "PUT", "/repos/mona/app/pulls/1/merge-async", f.token, map[string]any{"merge_method": "squash"}).JSON(t, &res)
	uuid, _ := res.Details["uuid"].(string)
	if res.Status != "pending" || len(uuid) != 36 || res.Details["expected_head_sha"] != head || res.Details["merge_method"] != "squash" {
		t.Fatalf("accepted: %+v", res)
	}
	// A second request while the first waits answers the first, with 409.
	f.e.Must(409, "PUT", "/repos/mona/app/pulls/1/merge-async", f.token, nil).JSON(t, &res)
	if res.Details["uuid"] != uuid {
		t.Fatalf("409 names %v, want %s", res.Details["uuid"], uuid)
	}
	f.e.Must(200, "GET", "/repos/mona/app/pulls/1/merge-async/"+uuid, f.token, nil).JSON(t, &res)
	if res.Status != "pending" {
		t.Fatalf("before the job: %+v", res)
	}
	f.e.RunJobs()
	f.e.Must(200, "GET", "/repos/mona/app/pulls/1/merge-async/"+uuid, f.token, nil).JSON(t, &res)
	main := f.ref(t, "refs/heads/main")
	if res.Status != "merged" || res.Details["sha"] != main {
		t.Fatalf("after the job: %+v (main %s)", res, main)
	}
	f.e.Must(200, "PUT", "/repos/mona/app/pulls/1/merge-async", f.token, nil).JSON(t, &res)
	if res.Status != "merged" || res.Details["sha"] != main {
		t.Fatalf("already merged: %+v", res)
	}
	f.e.Must(404, "GET", "/repos/mona/app/pulls/1/merge-async/00000000-0000-4000-8000-000000000000", f.token, nil)

	// A merge that fails in the background (the head moved) is recorded.
	f.branch(t, "two")
	first := f.write(t, "two", "b.txt", "b\n")
	f.open(t, "two", "moves")
	f.e.Must(202, "PUT", "/repos/mona/app/pulls/2/merge-async", f.token, map[string]any{"sha": first}).JSON(t, &res)
	uuid, _ = res.Details["uuid"].(string)
	f.write(t, "two", "b.txt", "b2\n")
	f.e.RunJobs()
	f.e.Must(200, "GET", "/repos/mona/app/pulls/2/merge-async/"+uuid, f.token, nil).JSON(t, &res)
	if res.Status != "failed" || !strings.Contains(res.Details["message"].(string), "Head branch was modified") {
		t.Fatalf("failed merge: %+v", res)
	}
	closed := "closed"
	f.gh.PullRequests.Edit(ctx, "mona", "app", 2, &github.PullRequest{State: &closed})
	f.e.Must(400, "PUT", "/repos/mona/app/pulls/2/merge-async", f.token, nil).JSON(t, &res)
	if res.Status != "failed" || res.Details["message"] != "Pull request is closed." {
		t.Fatalf("closed: %+v", res)
	}
}

// A draft is never mergeable_state clean and cannot be merged; an issue
// becomes the issue half of a pull request through POST /pulls with issue.
func TestDraftAndIssueConversion(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	f.write(t, "feature", "a.txt", "one\n")
	pr, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("wip"), Head: "feature", Base: "main", Draft: github.Ptr(true)})
	if err != nil || !pr.GetDraft() {
		t.Fatalf("draft: %+v %v", pr, err)
	}
	if got := f.get(t, 1); got.GetMergeableState() != "draft" || !got.GetMergeable() {
		t.Fatalf("draft state %s mergeable %v", got.GetMergeableState(), got.Mergeable)
	}
	r := f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, nil)
	if r.StatusCode != 405 {
		t.Fatalf("merge a draft: %d %s", r.StatusCode, r.Body)
	}

	issue, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "Make b"})
	if err != nil {
		t.Fatal(err)
	}
	f.branch(t, "b")
	f.write(t, "b", "b.txt", "b\n")
	var got map[string]any
	f.e.Must(201, "POST", "/repos/mona/app/pulls", f.token, map[string]any{"issue": issue.GetNumber(), "head": "b", "base": "main"}).JSON(t, &got)
	if int(got["number"].(float64)) != issue.GetNumber() || got["title"] != "Make b" {
		t.Fatalf("converted: number %v title %v", got["number"], got["title"])
	}
	again, _, _ := f.gh.Issues.Get(ctx, "mona", "app", issue.GetNumber())
	if !again.IsPullRequest() {
		t.Fatal("the issue did not become a pull request")
	}
	r = f.e.Do("POST", "/repos/mona/app/pulls", f.token, map[string]any{"issue": issue.GetNumber(), "head": "b", "base": "main"})
	if r.StatusCode != 422 {
		t.Fatalf("convert twice: %d %s", r.StatusCode, r.Body)
	}
	r = f.e.Do("POST", "/repos/mona/app/pulls", f.token, map[string]any{"issue": 99, "head": "feature", "base": "main"})
	if r.StatusCode != 422 {
		t.Fatalf("convert a missing issue: %d %s", r.StatusCode, r.Body)
	}
}

// diff_url and patch_url are pages of their own.
func TestDiffAndPatchPages(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	f.write(t, "feature", "a.txt", "one\n")
	pr := f.open(t, "feature", "pages")
	for url, want := range map[string]string{pr.GetDiffURL(): "diff --git a/a.txt b/a.txt", pr.GetPatchURL(): "Subject: [PATCH] write a.txt"} {
		r := f.e.Must(200, "GET", url, "", nil)
		if !strings.Contains(string(r.Body), want) || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("%s: %s %.200s", url, r.Header.Get("Content-Type"), r.Body)
		}
	}
	f.e.Must(200, "GET", pr.GetHTMLURL(), "", nil)
	f.e.Must(404, "GET", strings.Replace(pr.GetDiffURL(), "/pull/1.diff", "/pull/7.diff", 1), "", nil)
}

// A push that rewrites the head records head_ref_force_pushed.
func TestForcePush(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	first := f.write(t, "feature", "a.txt", "one\n")
	f.open(t, "feature", "rewritten")
	f.e.RunJobs()
	// Rewrite feature: a new commit on main's head, set with force.
	other := f.write(t, "main", "z.txt", "z\n")
	if _, _, err := f.gh.Git.UpdateRef(ctx, "mona", "app", "refs/heads/feature", github.UpdateRef{SHA: other, Force: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	f.branch(t, "tmp")
	pr := f.get(t, 1)
	if pr.GetHead().GetSHA() != other {
		t.Fatalf("head %s, want %s (first %s)", pr.GetHead().GetSHA(), other, first)
	}
	events, _, _ := f.gh.Issues.ListIssueEvents(ctx, "mona", "app", 1, nil)
	found := false
	for _, e := range events {
		if e.GetEvent() == "head_ref_force_pushed" && e.GetCommitID() == other {
			found = true
		}
	}
	if !found {
		t.Fatalf("no head_ref_force_pushed event: %v", events)
	}
}

// delete_branch_on_merge deletes a merged pull request's head branch (with
// a head_ref_deleted event), but never one another open pull request uses.
func TestDeleteBranchOnMerge(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.gh.Repositories.Edit(ctx, "mona", "app", &github.Repository{DeleteBranchOnMerge: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	f.branch(t, "feature")
	f.write(t, "feature", "a.txt", "one\n")
	f.branch(t, "dev")
	f.open(t, "feature", "to main")
	if _, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("to dev"), Head: "feature", Base: "dev"}); err != nil {
		t.Fatal(err)
	}
	f.e.Must(200, "PUT", "/repos/mona/app/pulls/1/merge", f.token, nil)
	if _, err := f.e.Deps.Git.Open(f.repoID).ResolveRef(ctx, "refs/heads/feature"); err != nil {
		t.Fatalf("feature deleted while #2 still uses it: %v", err)
	}
	f.e.Must(200, "PUT", "/repos/mona/app/pulls/2/merge", f.token, nil)
	if _, err := f.e.Deps.Git.Open(f.repoID).ResolveRef(ctx, "refs/heads/feature"); err == nil {
		t.Fatal("feature survived the last merge")
	}
	events, _, _ := f.gh.Issues.ListIssueEvents(ctx, "mona", "app", 2, nil)
	found := false
	for _, e := range events {
		found = found || e.GetEvent() == "head_ref_deleted"
	}
	if !found {
		t.Fatal("no head_ref_deleted event")
	}
	// The merged pull requests keep their head commit under refs/pull.
	if pr := f.get(t, 2); f.ref(t, "refs/pull/2/head") != pr.GetHead().GetSHA() {
		t.Fatal("refs/pull/2/head lost")
	}
}

// A pull request's timeline lists its commits as "committed" entries (on
// open and for each push); the events list leaves them out.
func TestTimelineCommits(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	first := f.write(t, "feature", "a.txt", "one\n")
	f.open(t, "feature", "commits")
	second := f.write(t, "feature", "a.txt", "two\n")
	f.e.RunJobs()
	var timeline []map[string]any
	f.e.Must(200, "GET", "/repos/mona/app/issues/1/timeline", f.token, nil).JSON(t, &timeline)
	var shas []string
	for _, e := range timeline {
		if e["event"] == "committed" {
			shas = append(shas, e["sha"].(string))
			if e["message"] == "" || e["tree"] == nil || e["html_url"] == nil {
				t.Errorf("committed entry %v", e)
			}
		}
	}
	if len(shas) != 2 || shas[0] != first || shas[1] != second {
		t.Fatalf("committed entries %v, want %s %s", shas, first, second)
	}
	events, _, _ := f.gh.Issues.ListIssueEvents(ctx, "mona", "app", 1, nil)
	for _, e := range events {
		if e.GetEvent() == "committed" {
			t.Fatal("the events list shows committed entries")
		}
	}
}

// A mergeability check queued before a restart runs after it: the queue is
// rows in the database, and a new process (a new queue and service on the
// same store and git storage) picks the job up.
func TestMergeabilitySurvivesRestart(t *testing.T) {
	f := newFixture(t, apitest.Options{ManualJobs: true})
	f.branch(t, "feature")
	f.write(t, "feature", "a.txt", "one\n")
	f.open(t, "feature", "before the restart")
	counts, err := f.e.Store.R().JobCounts(ctx)
	if err != nil || counts["pending"] == 0 {
		t.Fatalf("queued jobs %v %v", counts, err)
	}
	q := jobs.New(f.e.Store)
	pullsvc.New(&pullsvc.Service{Store: f.e.Store, Git: f.e.Deps.Git, Jobs: q})
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	pr, _, err := f.gh.PullRequests.Get(ctx, "mona", "app", 1)
	if err != nil || !pr.GetMergeable() || pr.GetMergeableState() != "clean" {
		t.Fatalf("after the restart: %v %s %v", pr.Mergeable, pr.GetMergeableState(), err)
	}
}

// Branch protection set through the API gates merges: a required approval
// and a strict required context (behind until the head contains the base).
func TestProtectedBase(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "feature")
	head := f.write(t, "feature", "a.txt", "one\n")
	_, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", &github.ProtectionRequest{
		RequiredStatusChecks:       &github.RequiredStatusChecks{Strict: true, Contexts: &[]string{"ci"}},
		RequiredPullRequestReviews: &github.PullRequestReviewsEnforcementRequest{RequiredApprovingReviewCount: 1},
		EnforceAdmins:              true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _, err := f.gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0); err != nil || !b.GetProtected() {
		t.Fatalf("main not shown protected: %v", err)
	}
	f.open(t, "feature", "protected")
	f.e.Must(201, "POST", "/repos/mona/app/statuses/"+head, f.token, map[string]any{"state": "success", "context": "ci"})
	if pr := f.get(t, 1); pr.GetMergeableState() != "blocked" {
		t.Fatalf("without approval: %s", pr.GetMergeableState())
	}
	r := f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, nil)
	if r.StatusCode != 405 || !strings.Contains(string(r.Body), "approving review is required") {
		t.Fatalf("merge without approval: %d %s", r.StatusCode, r.Body)
	}
	reviewer, _ := f.user(t, "rita", authz.Write)
	if _, _, err := reviewer.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	if pr := f.get(t, 1); pr.GetMergeableState() != "clean" {
		t.Fatalf("approved and green: %s", pr.GetMergeableState())
	}
	// The base moves on: strict makes the pull request behind.
	f.write(t, "main", "b.txt", "b\n")
	if pr := f.get(t, 1); pr.GetMergeableState() != "behind" {
		t.Fatalf("base moved: %s", pr.GetMergeableState())
	}
	r = f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", f.token, nil)
	if r.StatusCode != 405 {
		t.Fatalf("merge while behind: %d %s", r.StatusCode, r.Body)
	}
}
