package ghcli_test

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhCommands runs the gh commands of repositories, issues, labels,
// pull request review and merge, releases, search and organizations that
// TestGhGraphQL does not, each asserting on gh's output and on hubd's state
// (read back over REST). They run in order on one world: mona's
// repository hello with rita as a collaborator with write access.
func TestGhCommands(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	_, rita := e.NewUser("rita", false)
	inv := e.Must(201, "PUT", "/repos/mona/hello/collaborators/rita", w.tok, map[string]any{"permission": "push"}).Map(t)
	e.Must(204, "PATCH", "/user/repository_invitations/"+itoa(inv["id"]), rita, nil)
	g0 := ghcli.Start(t, e)
	g0.LoginAs("mona", w.tok)
	get := func(t *testing.T, path string) map[string]any {
		t.Helper()
		return e.Must(200, "GET", path, w.tok, nil).Map(t)
	}
	contains := func(t *testing.T, what, out string, want ...string) {
		t.Helper()
		for _, s := range want {
			if !strings.Contains(out, s) {
				t.Fatalf("%s lacks %q:\n%s", what, s, out)
			}
		}
	}

	t.Run("repo create, list, edit, archive, unarchive, delete", func(t *testing.T) {
		g := g0.For(t)
		out := g.Must("repo", "create", "mona/made", "--public", "--description", "made by gh")
		if !strings.HasSuffix(strings.TrimSpace(out), "/mona/made") {
			t.Fatalf("gh repo create printed %q", out)
		}
		r := get(t, "/repos/mona/made")
		if r["description"] != "made by gh" || r["visibility"] != "public" || r["has_issues"] != true {
			t.Fatalf("created repository: %v", r)
		}
		list := rows(g.Must("repo", "list"))
		if list["mona/made"] == nil || list["mona/hello"] == nil {
			t.Fatalf("gh repo list: %v", list)
		}
		g.Must("repo", "edit", "mona/made", "--description", "edited", "--enable-wiki=false")
		if r := get(t, "/repos/mona/made"); r["description"] != "edited" || r["has_wiki"] != false {
			t.Fatalf("after gh repo edit: description %v, has_wiki %v", r["description"], r["has_wiki"])
		}
		g.Must("repo", "archive", "mona/made", "--yes")
		if r := get(t, "/repos/mona/made"); r["archived"] != true {
			t.Fatalf("after gh repo archive: archived %v", r["archived"])
		}
		g.Must("repo", "unarchive", "mona/made", "--yes")
		if r := get(t, "/repos/mona/made"); r["archived"] != false {
			t.Fatalf("after gh repo unarchive: archived %v", r["archived"])
		}
		g.Must("repo", "delete", "mona/made", "--yes")
		e.Must(404, "GET", "/repos/mona/made", w.tok, nil)
	})

	t.Run("repo create in an organization", func(t *testing.T) {
		g := g0.For(t)
		g.Must("repo", "create", "acme/tools", "--private")
		if r := get(t, "/repos/acme/tools"); r["private"] != true || dig(r, "owner", "login") != "acme" {
			t.Fatalf("created repository: %v", r)
		}
	})

	t.Run("issue comment, edit, close, reopen, status", func(t *testing.T) {
		g := g0.For(t)
		out := g.Must("issue", "comment", "1", "-R", "mona/hello", "--body", "a comment from gh")
		contains(t, "gh issue comment", out, "/mona/hello/issues/1#issuecomment-")
		var comments []map[string]any
		e.Must(200, "GET", "/repos/mona/hello/issues/1/comments", w.tok, nil).JSON(t, &comments)
		if len(comments) != 1 || comments[0]["body"] != "a comment from gh" {
			t.Fatalf("comments: %v", comments)
		}
		g.Must("issue", "edit", "2", "-R", "mona/hello", "--add-label", "bug", "--title", "Renamed by gh")
		is := get(t, "/repos/mona/hello/issues/2")
		if is["title"] != "Renamed by gh" || dig(is, "labels", "0", "name") != "bug" {
			t.Fatalf("after gh issue edit: %v", is)
		}
		r := g.Run("issue", "close", "2", "-R", "mona/hello")
		if r.Err != nil || !strings.Contains(r.Stderr, "Closed issue mona/hello#2 (Renamed by gh)") {
			t.Fatalf("%s", r)
		}
		if is := get(t, "/repos/mona/hello/issues/2"); is["state"] != "closed" || is["state_reason"] != "completed" {
			t.Fatalf("after gh issue close: state %v, reason %v", is["state"], is["state_reason"])
		}
		r = g.Run("issue", "reopen", "2", "-R", "mona/hello")
		if r.Err != nil || !strings.Contains(r.Stderr, "Reopened issue mona/hello#2") {
			t.Fatalf("%s", r)
		}
		if is := get(t, "/repos/mona/hello/issues/2"); is["state"] != "open" {
			t.Fatalf("after gh issue reopen: state %v", is["state"])
		}
		out = g.Must("issue", "status", "-R", "mona/hello")
		contains(t, "gh issue status", out, "Issues opened by you", "First bug", "Renamed by gh")
	})

	t.Run("issue delete", func(t *testing.T) {
		g := g0.For(t)
		num := itoa(e.Must(201, "POST", "/repos/mona/hello/issues", w.tok, map[string]any{"title": "Delete me"}).Map(t)["number"])
		before := get(t, "/repos/mona/hello")["open_issues_count"].(float64)
		// rita writes but does not administer: GitHub refuses her.
		gr := g0.For(t)
		gr.LoginAs("rita", rita)
		if r := gr.Run("issue", "delete", num, "-R", "mona/hello", "--yes"); r.Err == nil || !strings.Contains(r.Stderr, "does not have the correct permissions to execute `DeleteIssue`") {
			t.Fatalf("rita's gh issue delete: %s", r)
		}
		g.LoginAs("mona", w.tok)
		g.Must("issue", "delete", num, "-R", "mona/hello", "--yes")
		gone := e.Do("GET", "/repos/mona/hello/issues/"+num, w.tok, nil)
		if gone.StatusCode != 410 || !strings.Contains(string(gone.Body), "This issue was deleted") {
			t.Fatalf("GET a deleted issue: %d %s", gone.StatusCode, gone.Body)
		}
		if after := get(t, "/repos/mona/hello")["open_issues_count"].(float64); after != before-1 {
			t.Fatalf("open_issues_count %v after deleting, %v before", after, before)
		}
		// The number is not given again.
		next := e.Must(201, "POST", "/repos/mona/hello/issues", w.tok, map[string]any{"title": "After"}).Map(t)["number"].(float64)
		if itoa(next) == num {
			t.Fatalf("a new issue took the deleted number %s", num)
		}
	})
	g0.LoginAs("mona", w.tok)

	t.Run("label list and create", func(t *testing.T) {
		g := g0.For(t)
		list := rows(g.Must("label", "list", "-R", "mona/hello"))
		if l := list["bug"]; len(l) < 3 || l[2] != "#d73a4a" {
			t.Fatalf("gh label list: %v", list)
		}
		g.Must("label", "create", "urgent", "-R", "mona/hello", "--color", "ff0000", "--description", "now")
		if l := get(t, "/repos/mona/hello/labels/urgent"); l["color"] != "ff0000" || l["description"] != "now" {
			t.Fatalf("created label: %v", l)
		}
	})

	t.Run("pr diff, edit --add-reviewer, review, status, merge", func(t *testing.T) {
		g := g0.For(t)
		contains(t, "gh pr diff", g.Must("pr", "diff", "4", "-R", "mona/hello"), "+++ b/feature.txt", "+a feature")
		g.Must("pr", "edit", "4", "-R", "mona/hello", "--add-reviewer", "rita")
		var req struct {
			Users []struct {
				Login string `json:"login"`
			} `json:"users"`
		}
		e.Must(200, "GET", "/repos/mona/hello/pulls/4/requested_reviewers", w.tok, nil).JSON(t, &req)
		if len(req.Users) != 1 || req.Users[0].Login != "rita" {
			t.Fatalf("requested reviewers after gh pr edit --add-reviewer: %+v", req)
		}
		// mona may comment on her own pull request, not approve it.
		g.Must("pr", "review", "4", "-R", "mona/hello", "--comment", "--body", "a note from the author")
		if r := g.Run("pr", "review", "4", "-R", "mona/hello", "--approve"); r.Err == nil || !strings.Contains(r.Stderr, "Can not approve your own pull request") {
			t.Fatalf("gh pr review --approve by the author: %s", r)
		}
		gr := g0.For(t)
		gr.LoginAs("rita", rita)
		gr.Must("pr", "review", "4", "-R", "mona/hello", "--approve", "--body", "ship it")
		var reviews []map[string]any
		e.Must(200, "GET", "/repos/mona/hello/pulls/4/reviews", w.tok, nil).JSON(t, &reviews)
		if len(reviews) != 2 || reviews[0]["state"] != "COMMENTED" || reviews[1]["state"] != "APPROVED" || dig(reviews[1], "user", "login") != "rita" {
			t.Fatalf("reviews: %v", reviews)
		}
		// rita's review answered her request.
		e.Must(200, "GET", "/repos/mona/hello/pulls/4/requested_reviewers", w.tok, nil).JSON(t, &req)
		if len(req.Users) != 0 {
			t.Fatalf("requested reviewers after rita's review: %+v", req)
		}
		g.LoginAs("mona", w.tok)
		out := g.Must("pr", "status", "-R", "mona/hello")
		contains(t, "gh pr status", out, "Created by you", "#4  Add a feature [feature]", "Approved")
		var st struct {
			CreatedBy []struct {
				Number         int    `json:"number"`
				ReviewDecision string `json:"reviewDecision"`
				LatestReviews  []struct {
					Author struct {
						Login string `json:"login"`
					} `json:"author"`
					State string `json:"state"`
				} `json:"latestReviews"`
			} `json:"createdBy"`
		}
		decode(t, g.Must("pr", "status", "-R", "mona/hello", "--json", "number,reviewDecision,latestReviews"), &st)
		if len(st.CreatedBy) != 1 || st.CreatedBy[0].ReviewDecision != "APPROVED" || len(st.CreatedBy[0].LatestReviews) != 2 ||
			st.CreatedBy[0].LatestReviews[1].Author.Login != "rita" || st.CreatedBy[0].LatestReviews[1].State != "APPROVED" {
			t.Fatalf("gh pr status --json: %+v", st)
		}
		g.Must("pr", "merge", "4", "-R", "mona/hello", "--squash", "--delete-branch")
		pr := get(t, "/repos/mona/hello/pulls/4")
		if pr["merged"] != true || pr["state"] != "closed" {
			t.Fatalf("after gh pr merge: merged %v, state %v", pr["merged"], pr["state"])
		}
		e.Must(404, "GET", "/repos/mona/hello/branches/feature", w.tok, nil)
		commit := get(t, "/repos/mona/hello/commits/main")
		if p, _ := commit["parents"].([]any); len(p) != 1 || dig(commit, "commit", "message") != "Add feature (#4)" {
			// One commit: GitHub's default squash title is its message.
			t.Fatalf("squash commit on main: %v", commit["commit"])
		}
	})

	t.Run("pr ready, ready --undo, close, reopen", func(t *testing.T) {
		g := g0.For(t)
		main := branchSHA(t, e, w.tok, "mona/hello", "main")
		e.Must(201, "POST", "/repos/mona/hello/git/refs", w.tok, map[string]any{"ref": "refs/heads/draft", "sha": main})
		e.Must(201, "PUT", "/repos/mona/hello/contents/draft.txt", w.tok, map[string]any{"message": "Draft work", "branch": "draft",
			"content": base64.StdEncoding.EncodeToString([]byte("draft\n"))})
		pr := e.Must(201, "POST", "/repos/mona/hello/pulls", w.tok, map[string]any{"title": "Work in progress", "head": "draft", "base": "main", "draft": true}).Map(t)
		num := itoa(pr["number"])
		g.Must("pr", "ready", num, "-R", "mona/hello")
		if p := get(t, "/repos/mona/hello/pulls/"+num); p["draft"] != false {
			t.Fatalf("after gh pr ready: draft %v", p["draft"])
		}
		g.Must("pr", "ready", num, "-R", "mona/hello", "--undo")
		if p := get(t, "/repos/mona/hello/pulls/"+num); p["draft"] != true {
			t.Fatalf("after gh pr ready --undo: draft %v", p["draft"])
		}
		var events []map[string]any
		e.Must(200, "GET", "/repos/mona/hello/issues/"+num+"/events", w.tok, nil).JSON(t, &events)
		var kinds []string
		for _, ev := range events {
			kinds = append(kinds, ev["event"].(string))
		}
		if strings.Join(kinds, ",") != "ready_for_review,convert_to_draft" {
			t.Fatalf("issue events: %v", kinds)
		}
		g.Must("pr", "close", num, "-R", "mona/hello")
		if p := get(t, "/repos/mona/hello/pulls/"+num); p["state"] != "closed" || p["merged"] != false {
			t.Fatalf("after gh pr close: %v %v", p["state"], p["merged"])
		}
		g.Must("pr", "reopen", num, "-R", "mona/hello")
		if p := get(t, "/repos/mona/hello/pulls/"+num); p["state"] != "open" {
			t.Fatalf("after gh pr reopen: %v", p["state"])
		}
	})

	t.Run("release view", func(t *testing.T) {
		g := g0.For(t)
		e.Must(201, "POST", "/repos/mona/hello/releases", w.tok, map[string]any{"tag_name": "v2.0.0", "name": "Second", "body": "Notes of v2"})
		out := g.Must("release", "view", "v2.0.0", "-R", "mona/hello")
		contains(t, "gh release view", out, "title:\tSecond", "tag:\tv2.0.0", "Notes of v2")
	})

	t.Run("repo view --json stars and watchers", func(t *testing.T) {
		g := g0.For(t)
		e.Must(204, "PUT", "/user/starred/mona/hello", rita, nil)
		var v struct {
			StargazerCount   int  `json:"stargazerCount"`
			ViewerHasStarred bool `json:"viewerHasStarred"`
			Watchers         struct {
				TotalCount int `json:"totalCount"`
			} `json:"watchers"`
		}
		decode(t, g.Must("repo", "view", "mona/hello", "--json", "stargazerCount,viewerHasStarred,watchers"), &v)
		if v.StargazerCount != 1 || v.ViewerHasStarred || v.Watchers.TotalCount != 1 {
			t.Fatalf("gh repo view --json: %+v", v)
		}
		gr := g0.For(t)
		gr.LoginAs("rita", rita)
		decode(t, gr.Must("repo", "view", "mona/hello", "--json", "viewerHasStarred"), &v)
		if !v.ViewerHasStarred {
			t.Fatalf("rita's viewerHasStarred: %+v", v)
		}
	})
	g0.LoginAs("mona", w.tok)

	t.Run("ruleset list, view, check", func(t *testing.T) {
		g := g0.For(t)
		rs := e.Must(201, "POST", "/repos/mona/hello/rulesets", w.tok, map[string]any{"name": "protect main", "target": "branch", "enforcement": "active",
			"conditions": map[string]any{"ref_name": map[string]any{"include": []string{"~DEFAULT_BRANCH"}, "exclude": []string{}}},
			"rules":      []map[string]any{{"type": "deletion"}, {"type": "non_fast_forward"}}}).Map(t)
		id := itoa(rs["id"])
		if l := rows(g.Must("ruleset", "list", "-R", "mona/hello"))[id]; strings.Join(l, "|") != id+"|protect main|mona/hello (repo)|active|2" {
			t.Fatalf("gh ruleset list: %q", l)
		}
		contains(t, "gh ruleset view", g.Must("ruleset", "view", id, "-R", "mona/hello"),
			"protect main", "ID: "+id, "Source: mona/hello (Repository)", "Enforcement: Active")
		contains(t, "gh ruleset check", g.Must("ruleset", "check", "main", "-R", "mona/hello"),
			"2 rules apply to branch main in repo mona/hello", "- deletion", "- non_fast_forward", "(configured in ruleset "+id+" from repository mona/hello)")
	})

	t.Run("search prs, repos; org list", func(t *testing.T) {
		g := g0.For(t)
		prs := rows(g.Must("search", "prs", "feature"))
		if r := prs["mona/hello"]; len(r) < 4 || r[1] != "4" || r[2] != "merged" || r[3] != "Add a feature" {
			t.Fatalf("gh search prs: %v", prs)
		}
		repos := rows(g.Must("search", "repos", "hello"))
		if r := repos["mona/hello"]; len(r) < 2 || r[1] != "A repository for gh" {
			t.Fatalf("gh search repos: %v", repos)
		}
		if out := strings.TrimSpace(g.Must("org", "list")); out != "acme" {
			t.Fatalf("gh org list: %q", out)
		}
	})
}

// itoa prints a JSON number (an id or a number) as an integer.
func itoa(v any) string {
	f, _ := v.(float64)
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// dig walks a decoded JSON value by object keys and array indexes.
func dig(v any, path ...string) any {
	for _, k := range path {
		switch t := v.(type) {
		case map[string]any:
			v = t[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(t) {
				return nil
			}
			v = t[i]
		default:
			return nil
		}
	}
	return v
}
