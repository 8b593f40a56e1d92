package checks_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
)

func TestRunLifecycle(t *testing.T) {
	f := newFixture(t)
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := f.run(t, github.CreateCheckRunOptions{Name: "ci/build", HeadSHA: f.main, ExternalID: github.Ptr("42"),
		DetailsURL: github.Ptr("https://ci.example.com/42"), StartedAt: &github.Timestamp{Time: started},
		Actions: []*github.CheckRunAction{{Label: "Fix", Description: "Fix it", Identifier: "fix"}}})
	if r.GetStatus() != "queued" || r.Conclusion != nil || r.GetName() != "ci/build" || r.GetHeadSHA() != f.main ||
		r.GetExternalID() != "42" || r.GetDetailsURL() != "https://ci.example.com/42" || !r.GetStartedAt().Time.Equal(started) ||
		r.CompletedAt != nil || r.App != nil || !strings.HasPrefix(r.GetNodeID(), "CR_") ||
		r.GetURL() != fmt.Sprintf("%s/repos/mona/app/check-runs/%d", f.e.API, r.GetID()) ||
		r.GetHTMLURL() != fmt.Sprintf("%s/mona/app/runs/%d", f.e.URL, r.GetID()) ||
		r.GetOutput().GetAnnotationsURL() != r.GetURL()+"/annotations" || r.GetOutput().GetAnnotationsCount() != 0 {
		t.Errorf("created %+v", r)
	}
	raw := f.e.Must(200, "GET", fmt.Sprintf("/repos/mona/app/check-runs/%d", r.GetID()), f.token, nil).Map(t)
	if raw["app"] != nil || raw["conclusion"] != nil || fmt.Sprint(raw["pull_requests"]) != "[]" {
		t.Errorf("raw run: %v", raw)
	}
	out, _ := raw["output"].(map[string]any)
	if out["title"] != nil || out["summary"] != nil || out["text"] != nil {
		t.Errorf("empty output: %v", out)
	}

	// The run joined the suite the push of main made.
	suite, _, err := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", r.GetCheckSuite().GetID())
	if err != nil || suite.GetHeadSHA() != f.main || suite.GetHeadBranch() != "main" || suite.GetStatus() != "queued" {
		t.Fatalf("suite %+v %v", suite, err)
	}

	// In progress, then completed by a conclusion alone.
	r, _, err = f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", r.GetID(), github.UpdateCheckRunOptions{Name: "ci/build",
		Status: github.Ptr("in_progress"), Output: &github.CheckRunOutput{Title: github.Ptr("Building"), Summary: github.Ptr("half way")}})
	if err != nil || r.GetStatus() != "in_progress" || r.GetOutput().GetTitle() != "Building" || r.GetOutput().GetSummary() != "half way" {
		t.Fatalf("in progress: %+v %v", r, err)
	}
	if s, _, _ := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", suite.GetID()); s.GetStatus() != "in_progress" || s.Conclusion != nil {
		t.Errorf("suite in progress: %s %v", s.GetStatus(), s.Conclusion)
	}
	r, _, err = f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", r.GetID(), github.UpdateCheckRunOptions{Name: "ci/build",
		Conclusion: github.Ptr("success"), Output: &github.CheckRunOutput{Title: github.Ptr("Built"), Summary: github.Ptr("all good"),
			Text: github.Ptr("details"), Images: []*github.CheckRunImage{{Alt: github.Ptr("graph"), ImageURL: github.Ptr("https://ci.example.com/g.png")}}}})
	if err != nil || r.GetStatus() != "completed" || r.GetConclusion() != "success" || r.CompletedAt == nil ||
		r.GetOutput().GetText() != "details" || r.GetExternalID() != "42" {
		t.Fatalf("completed: %+v %v", r, err)
	}
	s, _, _ := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", suite.GetID())
	if s.GetStatus() != "completed" || s.GetConclusion() != "success" || s.GetLatestCheckRunsCount() != 1 {
		t.Errorf("suite completed: %+v", s)
	}
	// The name changes too.
	r, _, err = f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", r.GetID(), github.UpdateCheckRunOptions{Name: "ci/build2"})
	if err != nil || r.GetName() != "ci/build2" || r.GetConclusion() != "success" {
		t.Errorf("rename: %+v %v", r, err)
	}

	if got := strings.Join(f.events(t, "check_run"), ","); got != "created,updated,completed,updated" {
		t.Errorf("check_run events %s", got)
	}
	if got := strings.Join(f.events(t, "check_suite"), ","); !strings.HasSuffix(got, "completed") {
		t.Errorf("check_suite events %s", got)
	}

	// A run created completed needs no update; completed_at defaults to now.
	done := f.run(t, github.CreateCheckRunOptions{Name: "lint", HeadSHA: "main", Conclusion: github.Ptr("neutral")})
	if done.GetStatus() != "completed" || done.CompletedAt == nil || done.GetHeadSHA() != f.main {
		t.Errorf("created completed: %+v", done)
	}
	// Anonymous readers of a public repository see runs.
	if _, _, err := f.e.GitHub("").Checks.GetCheckRun(ctx, "mona", "app", done.GetID()); err != nil {
		t.Errorf("anonymous get: %v", err)
	}
}

func TestAnnotations(t *testing.T) {
	f := newFixture(t)
	ann := func(i int) *github.CheckRunAnnotation {
		return &github.CheckRunAnnotation{Path: github.Ptr("README.md"), StartLine: github.Ptr(i), EndLine: github.Ptr(i),
			StartColumn: github.Ptr(1), EndColumn: github.Ptr(3), AnnotationLevel: github.Ptr("warning"),
			Message: github.Ptr(fmt.Sprintf("note %d", i)), Title: github.Ptr("Spelling")}
	}
	r := f.run(t, github.CreateCheckRunOptions{Name: "lint", HeadSHA: f.main, Output: &github.CheckRunOutput{
		Title: github.Ptr("Lint"), Summary: github.Ptr("2 notes"), Annotations: []*github.CheckRunAnnotation{ann(1), ann(2)}}})
	if r.GetOutput().GetAnnotationsCount() != 2 {
		t.Errorf("count after create: %d", r.GetOutput().GetAnnotationsCount())
	}
	// Updates append.
	r, _, err := f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", r.GetID(), github.UpdateCheckRunOptions{Name: "lint",
		Output: &github.CheckRunOutput{Title: github.Ptr("Lint"), Summary: github.Ptr("5 notes"),
			Annotations: []*github.CheckRunAnnotation{ann(3), ann(4), ann(5)}}})
	if err != nil || r.GetOutput().GetAnnotationsCount() != 5 {
		t.Fatalf("update: %+v %v", r, err)
	}
	// 51 annotations in one request are refused and nothing is kept.
	many := make([]map[string]any, 51)
	for i := range many {
		many[i] = map[string]any{"path": "README.md", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "x"}
	}
	resp := f.e.Do("PATCH", fmt.Sprintf("/repos/mona/app/check-runs/%d", r.GetID()), f.token,
		map[string]any{"output": map[string]any{"title": "t", "summary": "s", "annotations": many}})
	if resp.StatusCode != 422 {
		t.Errorf("51 annotations: %d %s", resp.StatusCode, resp.Body)
	}
	// Paged, oldest first, with a Link header.
	var got []string
	opts := &github.ListOptions{PerPage: 2}
	pages := 0
	for {
		list, resp, err := f.gh.Checks.ListCheckRunAnnotations(ctx, "mona", "app", r.GetID(), opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, a := range list {
			got = append(got, a.GetMessage())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if strings.Join(got, ",") != "note 1,note 2,note 3,note 4,note 5" || pages != 3 {
		t.Errorf("annotations %v in %d pages", got, pages)
	}
	raw := f.e.Must(200, "GET", fmt.Sprintf("/repos/mona/app/check-runs/%d/annotations", r.GetID()), f.token, nil)
	var list []map[string]any
	raw.JSON(t, &list)
	if len(list) != 5 || list[0]["blob_href"] != f.e.URL+"/mona/app/blob/"+f.main+"/README.md" || list[0]["raw_details"] != nil ||
		list[0]["start_column"] != float64(1) || list[0]["annotation_level"] != "warning" {
		t.Errorf("raw annotations: %v", list)
	}
}

func TestListRuns(t *testing.T) {
	f := newFixture(t)
	a1 := f.run(t, github.CreateCheckRunOptions{Name: "a", HeadSHA: f.main, Conclusion: github.Ptr("failure")})
	b := f.run(t, github.CreateCheckRunOptions{Name: "b", HeadSHA: f.main, Status: github.Ptr("in_progress")})
	a2 := f.run(t, github.CreateCheckRunOptions{Name: "a", HeadSHA: f.main})
	f.run(t, github.CreateCheckRunOptions{Name: "a", HeadSHA: f.feature})

	ids := func(res *github.ListCheckRunsResults) string {
		var s []string
		for _, r := range res.CheckRuns {
			s = append(s, fmt.Sprint(r.GetID()))
		}
		return strings.Join(s, ",")
	}
	id := func(rs ...*github.CheckRun) string {
		var s []string
		for _, r := range rs {
			s = append(s, fmt.Sprint(r.GetID()))
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		name  string
		opts  *github.ListCheckRunsOptions
		want  string
		total int
	}{
		{"latest of each name", nil, id(a2, b), 2},
		{"all", &github.ListCheckRunsOptions{Filter: github.Ptr("all")}, id(a2, b, a1), 3},
		{"by name, latest", &github.ListCheckRunsOptions{CheckName: github.Ptr("a")}, id(a2), 1},
		{"by name, all", &github.ListCheckRunsOptions{CheckName: github.Ptr("a"), Filter: github.Ptr("all")}, id(a2, a1), 2},
		{"by status", &github.ListCheckRunsOptions{Status: github.Ptr("in_progress")}, id(b), 1},
		{"completed, all", &github.ListCheckRunsOptions{Status: github.Ptr("completed"), Filter: github.Ptr("all")}, id(a1), 1},
		{"app 0", &github.ListCheckRunsOptions{AppID: github.Ptr(int64(0))}, id(a2, b), 2},
		{"another app", &github.ListCheckRunsOptions{AppID: github.Ptr(int64(7))}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, ref := range []string{"main", f.main} {
				res, _, err := f.gh.Checks.ListCheckRunsForRef(ctx, "mona", "app", ref, tc.opts)
				if err != nil || ids(res) != tc.want || res.GetTotal() != tc.total {
					t.Errorf("%s: %s (%d), want %s (%d): %v", ref, ids(res), res.GetTotal(), tc.want, tc.total, err)
				}
			}
			if tc.opts != nil && tc.opts.AppID != nil {
				return // the suite list has no app filter
			}
			res, _, err := f.gh.Checks.ListCheckRunsCheckSuite(ctx, "mona", "app", a1.GetCheckSuite().GetID(), tc.opts)
			if err != nil || ids(res) != tc.want || res.GetTotal() != tc.total {
				t.Errorf("suite: %s (%d), want %s: %v", ids(res), res.GetTotal(), tc.want, err)
			}
		})
	}

	// Pages of one with Link headers; the total counts every page.
	opts := &github.ListCheckRunsOptions{Filter: github.Ptr("all"), ListOptions: github.ListOptions{PerPage: 1}}
	var seen []string
	for {
		res, resp, err := f.gh.Checks.ListCheckRunsForRef(ctx, "mona", "app", "main", opts)
		if err != nil || res.GetTotal() != 3 {
			t.Fatalf("page %d: %v %v", opts.Page, res, err)
		}
		seen = append(seen, ids(res))
		if resp.NextPage == 0 {
			if resp.PrevPage != 2 || resp.FirstPage != 1 {
				t.Errorf("last page links: %+v", resp)
			}
			break
		}
		opts.Page = resp.NextPage
	}
	if strings.Join(seen, ",") != id(a2, b, a1) {
		t.Errorf("paged %v", seen)
	}
	// The feature head has its own run; an unknown ref is GitHub's 422.
	if res, _, err := f.gh.Checks.ListCheckRunsForRef(ctx, "mona", "app", "feature", nil); err != nil || res.GetTotal() != 1 {
		t.Errorf("feature: %+v %v", res, err)
	}
	r := f.e.Do("GET", "/repos/mona/app/commits/nope/check-runs", f.token, nil)
	if r.StatusCode != 422 || !strings.Contains(string(r.Body), "No commit found for SHA: nope") {
		t.Errorf("unknown ref: %d %s", r.StatusCode, r.Body)
	}
	if r := f.e.Do("GET", "/repos/mona/app/check-suites/999999/check-runs", f.token, nil); r.StatusCode != 404 {
		t.Errorf("unknown suite: %d", r.StatusCode)
	}

	// The newest run of each name, for pull requests' required checks.
	latest, err := f.e.Store.R().LatestCheckRuns(ctx, f.repoID, f.main)
	if err != nil || len(latest) != 2 || latest[0].ID != a2.GetID() || latest[1].ID != b.GetID() {
		t.Errorf("LatestCheckRuns: %v %v", latest, err)
	}
}
