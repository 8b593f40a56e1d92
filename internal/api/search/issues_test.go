package search_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

const (
	crash  = "Crash on startup"
	dark   = "Add dark mode"
	old    = "Old bug"
	heated = "Heated thread"
	secret = "Secret crash"
	speed  = "Widget speedup"
)

func TestSearchIssuesQualifiers(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		q      string
		titles []string
	}{
		// Words: title, body and comments, case-insensitively.
		{"crash", []string{crash, secret}},
		{"CRASHES", []string{crash}},
		{`"widgets load"`, []string{crash}},
		{"shipit", []string{dark}},
		{"shipit in:title", nil},
		{"widget in:title", []string{speed}},
		{"widgets in:body", []string{crash, speed}},
		{"crash NOT startup", []string{secret}},
		{"crash -startup", []string{secret}},
		{"crash OR mode", []string{crash, secret, dark}},
		// Scope.
		{"crash repo:mona/app", []string{crash}},
		{"crash repo:mona/app repo:mona/secret", []string{crash, secret}},
		{"crash repo:mona/app repo:mona/nope", []string{crash}},
		{"crash -repo:mona/app", []string{secret}},
		{"crash user:mona", []string{crash, secret}},
		{"crash org:mona is:private", []string{secret}},
		{"crash is:public", []string{crash}},
		{"crash is:public is:private", []string{crash, secret}},
		// State and type.
		{"repo:mona/app is:issue is:closed", []string{old}},
		{"repo:mona/app state:closed", []string{old}},
		{`repo:mona/app reason:"not planned"`, []string{old}},
		{"repo:mona/app reason:completed", nil},
		{"repo:mona/app is:pr", []string{speed}},
		{"repo:mona/app type:pr is:open", []string{speed}},
		{"repo:mona/app type:issue is:open", []string{crash, dark, heated}},
		{"repo:mona/app type:Bug", nil},
		{"repo:mona/app -type:Bug is:pr", []string{speed}},
		{"repo:mona/app is:pr draft:true", []string{speed}},
		{"repo:mona/app draft:false", nil},
		{"repo:mona/app is:draft", []string{speed}},
		{"repo:mona/app is:merged", nil},
		{"repo:mona/app is:unmerged", []string{speed}},
		{"repo:mona/app is:locked", []string{heated}},
		{"repo:mona/app is:unlocked is:issue is:open", []string{crash, dark}},
		{"repo:mona/app archived:false is:pr", []string{speed}},
		{"repo:mona/app archived:true", nil},
		// People.
		{"repo:mona/app author:hubot", []string{old}},
		{"repo:mona/app -author:mona", []string{old}},
		{"repo:mona/app assignee:hubot", []string{crash}},
		{"repo:mona/app assignee:*", []string{crash}},
		{"repo:mona/app mentions:hubot", []string{crash}},
		{"repo:mona/app commenter:hubot", []string{dark}},
		{"repo:mona/app involves:hubot", []string{crash, dark, old}},
		{"repo:mona/app review-requested:hubot", []string{speed}},
		{"repo:mona/app user-review-requested:hubot", []string{speed}},
		{"repo:mona/app reviewed-by:hubot", nil},
		{"repo:mona/app is:pr review:none", []string{speed}},
		{"repo:mona/app review:approved", nil},
		// Labels, milestones, missing metadata.
		{"repo:mona/app label:bug", []string{crash, old}},
		{"repo:mona/app label:BUG is:open", []string{crash}},
		{"repo:mona/app label:bug,enhancement", []string{crash, old, dark}},
		{"repo:mona/app label:bug label:enhancement", nil},
		{"repo:mona/app -label:bug is:issue", []string{dark, heated}},
		{"repo:mona/app no:label", []string{heated, speed}},
		{"repo:mona/app milestone:v1", []string{dark}},
		{`repo:mona/app milestone:"v1"`, []string{dark}},
		{"repo:mona/app no:milestone is:open is:issue", []string{crash, heated}},
		{"repo:mona/app no:assignee is:issue", []string{dark, old, heated}},
		{"repo:mona/app no:project is:pr", []string{speed}},
		{"repo:mona/app linked:pr", nil},
		// Branches, counts and dates.
		{"repo:mona/app head:feature", []string{speed}},
		{"repo:mona/app base:main", []string{speed}},
		{"repo:mona/app base:other", nil},
		{"repo:mona/app comments:>0", []string{dark}},
		{"repo:mona/app comments:1..5", []string{dark}},
		{"repo:mona/app comments:0 is:open is:issue", []string{crash, heated}},
		{"repo:mona/app interactions:>=1", []string{dark}},
		{"repo:mona/app reactions:>0", nil},
		{"repo:mona/app created:>=2000-01-01 is:closed", []string{old}},
		{"repo:mona/app created:<2000-01-01", nil},
		{"repo:mona/app updated:2000-01-01..*  is:closed", []string{old}},
		{"repo:mona/app closed:>2000-01-01T00:00:00Z", []string{old}},
		{"repo:mona/app merged:>2000-01-01", nil},
		{"repo:mona/app status:success", nil},
		// Boolean syntax of the advanced issue search, as gh writes it.
		{"( crash ) (repo:mona/app OR repo:mona/secret)", []string{crash, secret}},
		{"(label:bug OR label:enhancement) repo:mona/app is:open", []string{crash, dark}},
		{"repo:mona/app (is:closed OR is:pr)", []string{old, speed}},
		{"repo:mona/app NOT (is:issue)", []string{speed}},
		// @me.
		{"repo:mona/app author:@me is:issue is:open", []string{crash, dark, heated}},
		// An unknown qualifier is words.
		{"repo:mona/app foo:bar", nil},
	} {
		want(t, tc.q, issues(t, w.gh, tc.q, nil), tc.titles...)
	}
}

func TestSearchIssuesVisibility(t *testing.T) {
	w := newWorld(t)
	want(t, "crash as mona", issues(t, w.gh, "crash", nil), crash, secret)
	want(t, "crash as hubot", issues(t, w.hubotGH, "crash", nil), crash)
	want(t, "crash anonymously", issues(t, w.anon, "crash", nil), crash)
	want(t, "crash without repo scope", issues(t, w.e.GitHub(w.e.Token(w.mona, "read:org")), "crash", nil), crash)
	// A repository the caller may not see is one that does not exist.
	msg := "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them."
	refused(t, w.e, apitest.Query("/search/issues", "q", "crash repo:mona/secret"), w.hubotTok, msg)
	refused(t, w.e, apitest.Query("/search/issues", "q", "crash repo:mona/secret"), "", msg)
	want(t, "hubot names both", issues(t, w.hubotGH, "crash repo:mona/secret repo:mona/app", nil), crash)
	// @me is the caller.
	want(t, "author:@me as hubot", issues(t, w.hubotGH, "author:@me", nil), old)
	refused(t, w.e, apitest.Query("/search/issues", "q", "author:@me"), "",
		"The listed users cannot be searched either because the users do not exist or you do not have permission to view the users.")
}

func TestSearchIssuesSortAndPages(t *testing.T) {
	w := newWorld(t)
	q := "repo:mona/app is:issue"
	got := issues(t, w.gh, q, &github.SearchOptions{Sort: "created", Order: "asc"})
	if strings.Join(got, "|") != strings.Join([]string{crash, dark, old, heated}, "|") {
		t.Errorf("created asc: %q", got)
	}
	if got := issues(t, w.gh, q+" sort:created-asc", nil); got[0] != crash || got[3] != heated {
		t.Errorf("sort:created-asc: %q", got)
	}
	// The parameter wins over the query's sort.
	if got := issues(t, w.gh, q+" sort:created-asc", &github.SearchOptions{Sort: "created"}); got[0] != heated {
		t.Errorf("sort=created over sort:created-asc: %q", got)
	}
	if got := issues(t, w.gh, q, &github.SearchOptions{Sort: "comments"}); got[0] != dark {
		t.Errorf("sort=comments: %q", got)
	}
	if got := issues(t, w.gh, q, &github.SearchOptions{Sort: "interactions", Order: "desc"}); got[0] != dark {
		t.Errorf("sort=interactions: %q", got)
	}
	if got := issues(t, w.gh, q+" sort:reactions-+1", nil); len(got) != 4 {
		t.Errorf("sort:reactions-+1: %q", got)
	}
	// Best match: the words in the title first.
	if got := issues(t, w.gh, "widget", nil); len(got) != 2 || got[0] != speed {
		t.Errorf("best match of widget: %q", got)
	}

	// Pages in SQL with the Link header.
	res, resp, err := w.gh.Search.Issues(ctx, q, &github.SearchOptions{Sort: "created", Order: "asc", ListOptions: github.ListOptions{PerPage: 3, Page: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetTotal() != 4 || len(res.Issues) != 1 || res.Issues[0].GetTitle() != heated {
		t.Errorf("page 2 of 3: total %d, %d items", res.GetTotal(), len(res.Issues))
	}
	if resp.PrevPage != 1 || resp.NextPage != 0 || resp.FirstPage != 1 {
		t.Errorf("links of page 2: %q", resp.Header.Get("Link"))
	}
	if resp.Header.Get("X-RateLimit-Resource") != "search" {
		t.Errorf("rate limit resource %q", resp.Header.Get("X-RateLimit-Resource"))
	}
	res, resp, err = w.gh.Search.Issues(ctx, q, &github.SearchOptions{ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || res.GetTotal() != 4 || len(res.Issues) != 1 || resp.NextPage != 2 || resp.LastPage != 4 {
		t.Errorf("page 1 of 1: %v, links %q", err, resp.Header.Get("Link"))
	}
	// Past the page: empty, with the total.
	res, _, err = w.gh.Search.Issues(ctx, q, &github.SearchOptions{ListOptions: github.ListOptions{PerPage: 100, Page: 2}})
	if err != nil || res.GetTotal() != 4 || len(res.Issues) != 0 {
		t.Errorf("page past the end: %v, %d items", err, len(res.Issues))
	}
}

func TestSearchIssuesShape(t *testing.T) {
	w := newWorld(t)
	res, _, err := w.gh.Search.Issues(ctx, "repo:mona/app widgets", &github.SearchOptions{TextMatch: true})
	if err != nil {
		t.Fatal(err)
	}
	var pr, is *github.Issue
	for _, it := range res.Issues {
		if it.IsPullRequest() {
			pr = it
		} else {
			is = it
		}
	}
	if pr == nil || is == nil {
		t.Fatalf("want an issue and a pull request: %d items", len(res.Issues))
	}
	if pr.GetDraft() != true || pr.GetPullRequestLinks().GetURL() == "" || pr.GetRepositoryURL() != w.e.API+"/repos/mona/app" {
		t.Errorf("pull request item: draft %v, %+v", pr.GetDraft(), pr.GetPullRequestLinks())
	}
	if len(is.Labels) != 1 || is.Labels[0].GetName() != "bug" || is.GetAssignee().GetLogin() != "hubot" || is.GetUser().GetLogin() != "mona" {
		t.Errorf("issue item: %+v", is)
	}
	if len(is.TextMatches) != 1 || is.TextMatches[0].GetProperty() != "body" || len(is.TextMatches[0].Matches) != 1 ||
		is.TextMatches[0].Matches[0].GetText() != "widgets" || is.TextMatches[0].GetObjectType() != "Issue" {
		t.Errorf("text matches: %+v", is.TextMatches)
	}
	m := is.TextMatches[0].Matches[0]
	if frag := []rune(is.TextMatches[0].GetFragment()); len(m.Indices) != 2 || string(frag[m.Indices[0]:m.Indices[1]]) != "widgets" {
		t.Errorf("indices %v in %q", m.Indices, is.TextMatches[0].GetFragment())
	}
	if len(pr.TextMatches) != 1 || pr.TextMatches[0].GetProperty() != "body" {
		t.Errorf("pull request text matches (its body): %+v", pr.TextMatches)
	}
	// Without the media type: none, and search_type is lexical.
	r := w.e.Must(200, "GET", apitest.Query("/search/issues", "q", "repo:mona/app widgets"), w.monaTok, nil)
	body := r.Map(t)
	if body["search_type"] != "lexical" || strings.Contains(string(r.Body), "text_matches") {
		t.Errorf("plain search: %.300s", r.Body)
	}
}

func TestSearchIssuesErrors(t *testing.T) {
	w := newWorld(t)
	users := "The listed users cannot be searched either because the users do not exist or you do not have permission to view the users."
	both := "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them."
	for _, tc := range []struct{ q, msg string }{
		{"author:nobody", users},
		{"crash assignee:nobody", users},
		{"involves:nobody OR author:mona", users},
		{"team-review-requested:mona/x", users},
		{"repo:mona/nope", both},
		{"user:nobody crash", both},
		{"repo:bad-format", both},
		{"created:>blah", `"blah" is not a recognized date/time format. Please provide an ISO 8601 date/time value, such as YYYY-MM-DD.`},
		{"updated:2020-01-01..soon", `"soon" is not a recognized date/time format. Please provide an ISO 8601 date/time value, such as YYYY-MM-DD.`},
		{"a OR b OR c OR d OR e OR f OR g", "More than five AND / OR / NOT operators were used."},
		{strings.Repeat("word ", 60), "The search is longer than 256 characters."},
		{strings.Repeat("label:x ", 201), "The search contains more than 200 terms, qualifiers and parentheses."},
	} {
		refused(t, w.e, apitest.Query("/search/issues", "q", tc.q), w.monaTok, tc.msg)
	}
	// No q: the missing field.
	for _, path := range []string{"/search/issues", apitest.Query("/search/issues", "q", "  ")} {
		r := w.e.Must(http.StatusUnprocessableEntity, "GET", path, w.monaTok, nil)
		if !strings.Contains(string(r.Body), `"errors":[{"resource":"Search","field":"q","code":"missing"}]`) {
			t.Errorf("GET %s: %s", path, r.Body)
		}
	}
	// The 1,000-result window.
	refused(t, w.e, apitest.Query("/search/issues", "q", "crash", "per_page", "100", "page", "11"), w.monaTok,
		"Only the first 1000 search results are available")
	w.e.Must(200, "GET", apitest.Query("/search/issues", "q", "crash", "per_page", "100", "page", "10"), w.monaTok, nil)
}

// TestSearchIssueWithoutBody: body is null, as in every issue shape (the
// allowlist explains the description's defect).
func TestSearchIssueWithoutBody(t *testing.T) {
	w := newWorld(t)
	if _, _, err := w.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "Bodiless gizmo"}); err != nil {
		t.Fatal(err)
	}
	r := w.e.Must(200, "GET", apitest.Query("/search/issues", "q", "repo:mona/app gizmo"), w.monaTok, nil)
	var out struct {
		Items []map[string]any `json:"items"`
	}
	r.JSON(t, &out)
	if len(out.Items) != 1 || out.Items[0]["body"] != nil {
		t.Fatalf("items: %.400s", r.Body)
	}
	if _, ok := out.Items[0]["body"]; !ok {
		t.Fatalf("body is absent, not null: %.400s", r.Body)
	}
}
