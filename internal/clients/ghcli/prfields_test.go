package ghcli_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/graphql"
	"github.com/hubd/hubd/internal/graphql/engine"
)

// prViewFields is every field `gh pr view --json` accepts (gh's
// api.PullRequestFields, sharedIssuePRFields included; fields_test.go reads
// the same list from gh's source for the capture).
var prViewFields = []string{
	"assignees", "author", "body", "closed", "comments", "createdAt", "closedAt", "id", "labels", "milestone", "number",
	"projectCards", "projectItems", "reactionGroups", "state", "title", "updatedAt", "url",
	"additions", "autoMergeRequest", "baseRefName", "baseRefOid", "changedFiles", "closingIssuesReferences", "commits",
	"deletions", "files", "fullDatabaseId", "headRefName", "headRefOid", "headRepository", "headRepositoryOwner",
	"isCrossRepository", "isDraft", "latestReviews", "maintainerCanModify", "mergeable", "mergeCommit", "mergedAt",
	"mergedBy", "mergeStateStatus", "potentialMergeCommit", "reviewDecision", "reviewRequests", "reviews", "statusCheckRollup",
}

// checkGraphQLAnswers sends the queries gh sent again (mutations are not
// repeated) and checks hubd's answers against the served schema.
func checkGraphQLAnswers(t *testing.T, e *apitest.Env, g *ghcli.GH, token string) {
	t.Helper()
	schema := graphql.New(&deps.Deps{}, graphql.Services{}).Schema()
	n := 0
	for _, r := range g.GraphQLRequests() {
		q := r.GraphQL
		if strings.HasPrefix(strings.TrimSpace(q.Query), "mutation") {
			continue
		}
		var vars map[string]any
		if len(q.Variables) > 0 {
			if err := json.Unmarshal(q.Variables, &vars); err != nil {
				t.Fatal(err)
			}
		}
		body, _ := json.Marshal(map[string]any{"query": q.Query, "variables": vars})
		req, _ := http.NewRequest("POST", e.URL+"/api/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Data   any                `json:"data"`
			Errors []engine.RespError `json:"errors"`
		}
		dec := json.NewDecoder(resp.Body)
		dec.UseNumber()
		err = dec.Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: status %d, %v", q.Query, resp.StatusCode, err)
		}
		if len(out.Errors) > 0 {
			t.Errorf("errors for %s: %+v", q.Query, out.Errors)
		}
		p, bad := schema.Prepare(&engine.Request{Query: q.Query, Variables: vars})
		if bad != nil {
			t.Fatalf("gh's query does not prepare: %v\n%s", bad, q.Query)
		}
		if err := schema.CheckResponse(p, out.Data); err != nil {
			t.Errorf("answer does not match the schema: %v\n%s", err, q.Query)
		}
		n++
	}
	if n == 0 {
		t.Fatal("gh sent no GraphQL query")
	}
}

// projectToken is a classic token of login with every scope and project
// (gh project and the projectItems fields need it, as on GitHub).
func projectToken(t *testing.T, e *apitest.Env, login string) string {
	t.Helper()
	acc, err := e.Store.R().AccountByLogin(context.Background(), login)
	if err != nil {
		t.Fatal(err)
	}
	return e.Token(acc, apitest.AllScopes+",project")
}

// empty reports a JSON value gh printed as missing: null, "", [] or {}.
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// TestGhPRViewEveryField: gh pr view --json with every field gh offers, on
// an open pull request with every kind of data (labels, assignee,
// milestone, comment, reaction, review request, reviews, a commit status,
// a check run, a project item, a closing reference, two commits with a co-author, files, auto-merge)
// and on a merged one, answers without error and with a value wherever the
// fixture has one; every answer matches GitHub's schema. The base branch
// requires a code owner's review, which rita's approval is not:
// reviewDecision stays REVIEW_REQUIRED.
func TestGhPRViewEveryField(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	_, rita := e.NewUser("rita", false)
	_, sam := e.NewUser("sam", false)
	for u, tok := range map[string]string{"rita": rita, "sam": sam} {
		inv := e.Must(201, "PUT", "/repos/mona/hello/collaborators/"+u, w.tok, map[string]any{"permission": "push"}).Map(t)
		e.Must(204, "PATCH", "/user/repository_invitations/"+itoa(inv["id"]), tok, nil)
	}
	put := func(branch, path, content, message string) {
		e.Must(201, "PUT", "/repos/mona/hello/contents/"+path, w.tok, map[string]any{"message": message, "branch": branch,
			"content": base64.StdEncoding.EncodeToString([]byte(content))})
	}
	// Pull request 5, merged: its merge commit.
	e.Must(201, "POST", "/repos/mona/hello/git/refs", w.tok, map[string]any{"ref": "refs/heads/docs", "sha": w.mainSHA})
	put("docs", "docs.md", "docs\n", "Add docs")
	e.Must(201, "POST", "/repos/mona/hello/pulls", w.tok, map[string]any{"title": "Docs", "head": "docs", "base": "main"})
	e.Must(200, "PUT", "/repos/mona/hello/pulls/5/merge", w.tok, map[string]any{"merge_method": "merge"})
	// main: sam owns every file and a status "build" is required.
	put("main", ".github/CODEOWNERS", "* @sam\n", "Add code owners")
	e.Must(200, "PUT", "/repos/mona/hello/branches/main/protection", w.tok, map[string]any{
		"required_status_checks": map[string]any{"strict": false, "contexts": []string{"build"}}, "enforce_admins": true,
		"required_pull_request_reviews": map[string]any{"required_approving_review_count": 1, "require_code_owner_reviews": true},
		"restrictions":                  nil})
	e.Must(200, "PATCH", "/repos/mona/hello", w.tok, map[string]any{"allow_auto_merge": true})
	// Pull request 4: a second commit with a co-author, every kind of data.
	put("feature", "more.txt", "more\n", "Add more\n\nA body line.\n\nCo-authored-by: Rita <rita@example.com>")
	e.Must(200, "PATCH", "/repos/mona/hello/pulls/4", w.tok, map[string]any{"body": "Please merge. Fixes #1"})
	e.Must(201, "POST", "/repos/mona/hello/milestones", w.tok, map[string]any{"title": "v1"})
	e.Must(200, "PATCH", "/repos/mona/hello/issues/4", w.tok, map[string]any{"labels": []string{"bug"}, "assignees": []string{"mona"}, "milestone": 1})
	e.Must(201, "POST", "/repos/mona/hello/issues/4/comments", w.tok, map[string]any{"body": "Looks good"})
	e.Must(201, "POST", "/repos/mona/hello/issues/4/reactions", w.tok, map[string]any{"content": "heart"})
	e.Must(200, "POST", "/repos/mona/hello/pulls/4/reviews", rita, map[string]any{"event": "APPROVE", "body": "Fine by me"})
	e.Must(201, "POST", "/repos/mona/hello/pulls/4/requested_reviewers", w.tok, map[string]any{"reviewers": []string{"sam"}})
	head := branchSHA(t, e, w.tok, "mona/hello", "feature")
	e.Must(201, "POST", "/repos/mona/hello/statuses/"+head, w.tok, map[string]any{"state": "pending", "context": "build"})
	// A check run with an annotation, beside the status.
	e.Must(201, "POST", "/repos/mona/hello/check-runs", w.tok, map[string]any{"name": "lint", "head_sha": head, "status": "completed",
		"conclusion": "success", "output": map[string]any{"title": "Lint", "summary": "clean", "annotations": []map[string]any{
			{"path": "more.txt", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "fine"}}}})
	e.RunJobs()

	// gh reads projectItems with the project scope, as on GitHub.
	ptok := projectToken(t, e, "mona")
	g := ghcli.Start(t, e)
	g.LoginAs("mona", ptok)
	// A project holding the pull request (made by another gh, so that g's
	// queries are the pull request's alone: gh project's owner lookup
	// answers NOT_FOUND for the organization half, as GitHub does).
	gp := ghcli.Start(t, e)
	gp.LoginAs("mona", ptok)
	gp.Must("project", "create", "--owner", "mona", "--title", "Roadmap")
	prURL := e.Must(200, "GET", "/repos/mona/hello/pulls/4", w.tok, nil).Map(t)["html_url"].(string)
	gp.Must("project", "item-add", "1", "--owner", "mona", "--url", prURL)
	// Auto-merge waits for the build.
	g.Must("pr", "merge", "4", "-R", "mona/hello", "--auto", "--squash", "--subject", "Feature (#4)")

	view := func(n string) map[string]any {
		var v map[string]any
		decode(t, g.Must("pr", "view", n, "-R", "mona/hello", "--json", strings.Join(prViewFields, ",")), &v)
		return v
	}
	open, merged := view("4"), view("5")
	for _, f := range prViewFields {
		if _, ok := open[f]; !ok {
			t.Errorf("gh printed no %s", f)
		}
		switch f {
		case "closedAt", "mergeCommit", "mergedAt", "mergedBy", // open
			"projectCards": // classic projects are gone from GitHub
			continue
		}
		if empty(open[f]) {
			t.Errorf("pull request 4: %s is %v", f, open[f])
		}
	}
	for _, f := range []string{"mergeCommit", "mergedAt", "mergedBy", "closedAt", "commits", "files"} {
		if empty(merged[f]) {
			t.Errorf("pull request 5: %s is %v", f, merged[f])
		}
	}
	if open["reviewDecision"] != "REVIEW_REQUIRED" || open["mergeStateStatus"] != "BLOCKED" || open["state"] != "OPEN" {
		t.Errorf("pull request 4: reviewDecision %v, mergeStateStatus %v, state %v", open["reviewDecision"], open["mergeStateStatus"], open["state"])
	}
	commits, _ := open["commits"].([]any)
	files, _ := open["files"].([]any)
	if len(commits) != 2 || len(files) != 2 {
		t.Fatalf("pull request 4: %d commits, %d files:\n%v\n%v", len(commits), len(files), commits, files)
	}
	last, _ := commits[1].(map[string]any)
	authors, _ := last["authors"].([]any)
	if last["messageHeadline"] != "Add more" || last["messageBody"] != "A body line.\n\nCo-authored-by: Rita <rita@example.com>" || len(authors) != 2 {
		t.Errorf("second commit: %v", last)
	}
	// gh flattens each author's user into it.
	if a, _ := authors[0].(map[string]any); a["login"] != "mona" || a["id"] == "" {
		t.Errorf("the author of the second commit is not mona: %v", authors)
	}
	if f, _ := files[1].(map[string]any); f["path"] != "more.txt" || f["changeType"] != "ADDED" || f["additions"] != float64(1) {
		t.Errorf("files: %v", files)
	}
	am, _ := open["autoMergeRequest"].(map[string]any)
	if am["mergeMethod"] != "SQUASH" || am["commitHeadline"] != "Feature (#4)" || dig(am, "enabledBy", "login") != "mona" {
		t.Errorf("autoMergeRequest: %v", am)
	}
	if refs, _ := open["closingIssuesReferences"].([]any); len(refs) != 1 || dig(refs[0], "number") != float64(1) {
		t.Errorf("closingIssuesReferences: %v", open["closingIssuesReferences"])
	}
	// The rollup: the check run (with its suite) and the status.
	rollup, _ := open["statusCheckRollup"].([]any)
	if len(rollup) != 2 || dig(rollup[0], "__typename") != "CheckRun" || dig(rollup[0], "name") != "lint" ||
		dig(rollup[0], "conclusion") != "SUCCESS" || dig(rollup[1], "__typename") != "StatusContext" || dig(rollup[1], "context") != "build" {
		t.Errorf("statusCheckRollup: %v", open["statusCheckRollup"])
	}
	if items, _ := open["projectItems"].([]any); len(items) != 1 || dig(items[0], "title") != "Roadmap" {
		t.Errorf("projectItems: %v", open["projectItems"])
	}
	checkGraphQLAnswers(t, e, g, ptok)
}
