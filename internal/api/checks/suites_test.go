package checks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

func TestSuites(t *testing.T) {
	f := newFixture(t)
	// Pushes made a suite for each branch head: main (auto init) and
	// feature (the contents API commit). A new ref at an existing head
	// makes none.
	res, _, err := f.gh.Checks.ListCheckSuitesForRef(ctx, "mona", "app", "feature", nil)
	if err != nil || res.GetTotal() != 1 {
		t.Fatalf("feature suites: %+v %v", res, err)
	}
	s := res.CheckSuites[0]
	if s.GetHeadSHA() != f.feature || s.GetHeadBranch() != "feature" || s.GetStatus() != "queued" || s.Conclusion != nil ||
		s.GetAfterSHA() != f.feature || s.GetBeforeSHA() != f.main || s.GetLatestCheckRunsCount() != 0 ||
		s.GetHeadCommit().GetMessage() != "feature work" || s.GetRepository().GetFullName() != "mona/app" ||
		s.GetURL() != fmt.Sprintf("%s/repos/mona/app/check-suites/%d", f.e.API, s.GetID()) || !strings.HasPrefix(s.GetNodeID(), "CS_") {
		t.Errorf("push suite %+v", s)
	}
	raw := f.e.Must(200, "GET", fmt.Sprintf("/repos/mona/app/check-suites/%d", s.GetID()), f.token, nil).Map(t)
	hc, _ := raw["head_commit"].(map[string]any)
	if raw["app"] != nil || raw["check_runs_url"] != s.GetURL()+"/check-runs" || hc["id"] != f.feature || hc["tree_id"] == "" ||
		fmt.Sprint(raw["pull_requests"]) != "[]" {
		t.Errorf("raw suite %v", raw)
	}

	// Creating the suite of a head that has one answers it with 200.
	again, resp, err := f.gh.Checks.CreateCheckSuite(ctx, "mona", "app", github.CreateCheckSuiteOptions{HeadSHA: f.feature})
	if err != nil || resp.StatusCode != 200 || again.GetID() != s.GetID() {
		t.Errorf("create existing suite: %d %+v %v", resp.StatusCode, again, err)
	}
	// A commit without one gets a new suite: 201.
	tree, _, err := f.gh.Git.CreateTree(ctx, "mona", "app", "", []*github.TreeEntry{{Path: github.Ptr("x"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), Content: github.Ptr("x")}})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := f.gh.Git.CreateCommit(ctx, "mona", "app", github.Commit{Message: github.Ptr("loose"), Tree: tree}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ns, resp, err := f.gh.Checks.CreateCheckSuite(ctx, "mona", "app", github.CreateCheckSuiteOptions{HeadSHA: c.GetSHA()})
	if err != nil || resp.StatusCode != 201 || ns.GetHeadSHA() != c.GetSHA() || ns.HeadBranch != nil || ns.GetStatus() != "queued" {
		t.Errorf("new suite: %+v %v", ns, err)
	}

	// The suite's conclusion is the highest ranked of its runs'.
	steps := []struct {
		name, status, conclusion string
		want, wantConclusion     string
	}{
		{"a", "completed", "success", "completed", "success"},
		{"b", "queued", "", "in_progress", ""},
		{"b", "completed", "neutral", "completed", "neutral"},
		{"c", "completed", "timed_out", "completed", "timed_out"},
		{"d", "completed", "failure", "completed", "timed_out"},
		{"e", "completed", "action_required", "completed", "action_required"},
	}
	for _, st := range steps {
		o := github.CreateCheckRunOptions{Name: st.name, HeadSHA: f.feature, Status: github.Ptr(st.status)}
		if st.conclusion != "" {
			o.Conclusion = github.Ptr(st.conclusion)
		}
		f.run(t, o)
		got, _, err := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", s.GetID())
		if err != nil || got.GetStatus() != st.want || got.GetConclusion() != st.wantConclusion {
			t.Fatalf("after %s %s: %s %s, want %s %s", st.name, st.status, got.GetStatus(), got.GetConclusion(), st.want, st.wantConclusion)
		}
	}
	if got, _, _ := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", s.GetID()); got.GetLatestCheckRunsCount() != 5 {
		t.Errorf("latest runs: %d", got.GetLatestCheckRunsCount())
	}
	// Suites filter by the name of a run they hold and by app.
	for _, tc := range []struct {
		opts *github.ListCheckSuiteOptions
		want int
	}{
		{&github.ListCheckSuiteOptions{CheckName: github.Ptr("c")}, 1},
		{&github.ListCheckSuiteOptions{CheckName: github.Ptr("zzz")}, 0},
		{&github.ListCheckSuiteOptions{AppID: github.Ptr(int64(0))}, 1},
		{&github.ListCheckSuiteOptions{AppID: github.Ptr(int64(3))}, 0},
	} {
		res, _, err := f.gh.Checks.ListCheckSuitesForRef(ctx, "mona", "app", f.feature, tc.opts)
		if err != nil || res.GetTotal() != tc.want || len(res.CheckSuites) != tc.want {
			t.Errorf("suites %+v: %+v %v", tc.opts, res, err)
		}
	}
	if r := f.e.Do("GET", "/repos/mona/app/check-suites/999999", f.token, nil); r.StatusCode != 404 {
		t.Errorf("unknown suite: %d", r.StatusCode)
	}
	if r := f.e.Do("GET", "/repos/mona/app/commits/nope/check-suites", f.token, nil); r.StatusCode != 422 {
		t.Errorf("unknown ref: %d", r.StatusCode)
	}
}

func TestRerequest(t *testing.T) {
	f := newFixture(t)
	r := f.run(t, github.CreateCheckRunOptions{Name: "ci", HeadSHA: f.main, Conclusion: github.Ptr("failure")})
	suiteID := r.GetCheckSuite().GetID()
	if s, _, _ := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", suiteID); s.GetStatus() != "completed" || s.GetConclusion() != "failure" {
		t.Fatalf("suite before: %+v", s)
	}
	// Rerequesting the run requeues its suite; the run waits for its app.
	resp, err := f.gh.Checks.ReRequestCheckRun(ctx, "mona", "app", r.GetID())
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("rerequest run: %v", err)
	}
	s, _, _ := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", suiteID)
	if s.GetStatus() != "queued" || s.Conclusion != nil {
		t.Errorf("suite after rerequest: %s %v", s.GetStatus(), s.Conclusion)
	}
	if got, _, _ := f.gh.Checks.GetCheckRun(ctx, "mona", "app", r.GetID()); got.GetConclusion() != "failure" {
		t.Errorf("run changed: %+v", got)
	}
	// The app answers by updating the run: the suite follows it again.
	if _, _, err := f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", r.GetID(), github.UpdateCheckRunOptions{Name: "ci",
		Status: github.Ptr("in_progress")}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := f.gh.Checks.GetCheckRun(ctx, "mona", "app", r.GetID()); got.GetStatus() != "in_progress" || got.Conclusion != nil || got.CompletedAt != nil {
		t.Errorf("run back in progress: %+v", got)
	}
	if _, _, err := f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", r.GetID(), github.UpdateCheckRunOptions{Name: "ci",
		Conclusion: github.Ptr("success")}); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", suiteID); s.GetStatus() != "completed" || s.GetConclusion() != "success" {
		t.Errorf("suite after rerun: %+v", s)
	}
	// Rerequesting the suite requeues it.
	resp, err = f.gh.Checks.ReRequestCheckSuite(ctx, "mona", "app", suiteID)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("rerequest suite: %v", err)
	}
	if s, _, _ := f.gh.Checks.GetCheckSuite(ctx, "mona", "app", suiteID); s.GetStatus() != "queued" || s.Conclusion != nil {
		t.Errorf("suite after its rerequest: %+v", s)
	}
	if got := strings.Join(f.events(t, "check_run"), ","); got != "created,rerequested,updated,completed" {
		t.Errorf("check_run events: %s", got)
	}
	if got := strings.Join(f.events(t, "check_suite"), ","); got != "requested,requested,completed,completed,rerequested" {
		t.Errorf("check_suite events: %s", got)
	}
	for _, path := range []string{"/repos/mona/app/check-runs/999999/rerequest", "/repos/mona/app/check-suites/999999/rerequest"} {
		if r := f.e.Do("POST", path, f.token, nil); r.StatusCode != 404 {
			t.Errorf("%s: %d", path, r.StatusCode)
		}
	}
}

func TestPushAndPreferences(t *testing.T) {
	f := newFixture(t)
	suites := func(ref string) []*github.CheckSuite {
		t.Helper()
		res, _, err := f.gh.Checks.ListCheckSuitesForRef(ctx, "mona", "app", ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.CheckSuites
	}
	// A commit pushed through the contents API gets a queued suite.
	c, _, err := f.gh.Repositories.CreateFile(ctx, "mona", "app", "a.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("a"), Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	sha := c.GetSHA()
	if list := suites(sha); len(list) != 1 || list[0].GetHeadBranch() != "main" || list[0].GetBeforeSHA() != f.main ||
		list[0].GetAfterSHA() != sha || list[0].GetStatus() != "queued" {
		t.Errorf("pushed suite: %+v", list)
	}

	// Admins turn automatic suites off.
	p, _, err := f.gh.Checks.SetCheckSuitePreferences(ctx, "mona", "app", github.CheckSuitePreferenceOptions{
		AutoTriggerChecks: []*github.AutoTriggerCheck{{AppID: github.Ptr(int64(0)), Setting: github.Ptr(false)},
			{AppID: github.Ptr(int64(9)), Setting: github.Ptr(true)}}})
	if err != nil || len(p.GetPreferences().AutoTriggerChecks) != 2 || p.GetPreferences().AutoTriggerChecks[0].GetSetting() ||
		p.GetRepository().GetFullName() != "mona/app" {
		t.Fatalf("preferences: %+v %v", p, err)
	}
	c, _, err = f.gh.Repositories.CreateFile(ctx, "mona", "app", "b.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("b"), Content: []byte("b\n")})
	if err != nil {
		t.Fatal(err)
	}
	if list := suites(c.GetSHA()); len(list) != 0 {
		t.Errorf("suite made with auto trigger off: %+v", list)
	}
	// A run still makes its suite.
	r := f.run(t, github.CreateCheckRunOptions{Name: "x", HeadSHA: c.GetSHA()})
	if list := suites(c.GetSHA()); len(list) != 1 || list[0].GetID() != r.GetCheckSuite().GetID() || list[0].GetHeadBranch() != "main" {
		t.Errorf("suite of a run: %+v", list)
	}
	// Back on: the git refs API's new branch at a new commit gets one.
	if _, _, err := f.gh.Checks.SetCheckSuitePreferences(ctx, "mona", "app", github.CheckSuitePreferenceOptions{
		AutoTriggerChecks: []*github.AutoTriggerCheck{{AppID: github.Ptr(int64(0)), Setting: github.Ptr(true)}}}); err != nil {
		t.Fatal(err)
	}
	tree, _, err := f.gh.Git.CreateTree(ctx, "mona", "app", "", []*github.TreeEntry{{Path: github.Ptr("y"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), Content: github.Ptr("y")}})
	if err != nil {
		t.Fatal(err)
	}
	nc, _, err := f.gh.Git.CreateCommit(ctx, "mona", "app", github.Commit{Message: github.Ptr("y"), Tree: tree}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/topic", SHA: nc.GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if list := suites("topic"); len(list) != 1 || list[0].GetHeadBranch() != "topic" || list[0].BeforeSHA != nil {
		t.Errorf("new branch suite: %+v", list)
	}
	if got := f.events(t, "check_suite_preferences"); len(got) != 2 {
		t.Errorf("preference events: %v", got)
	}
}

func TestPullRequestsOfRuns(t *testing.T) {
	f := newFixture(t)
	pr, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("Feature"),
		Head: "feature", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	r := f.run(t, github.CreateCheckRunOptions{Name: "ci", HeadSHA: f.feature})
	if len(r.PullRequests) != 1 {
		t.Fatalf("pull requests of the run: %+v", r.PullRequests)
	}
	p := r.PullRequests[0]
	if p.GetNumber() != pr.GetNumber() || p.GetURL() != pr.GetURL() || p.GetHead().GetSHA() != f.feature ||
		p.GetHead().GetRef() != "feature" || p.GetBase().GetRef() != "main" || p.GetBase().GetRepo().GetName() != "app" ||
		p.GetHead().GetRepo().GetURL() != f.e.API+"/repos/mona/app" {
		t.Errorf("pull request %+v", p)
	}
	res, _, err := f.gh.Checks.ListCheckSuitesForRef(ctx, "mona", "app", "feature", nil)
	if err != nil || len(res.CheckSuites) != 1 || len(res.CheckSuites[0].PullRequests) != 1 {
		t.Errorf("suite pulls: %+v %v", res, err)
	}
	// A run on main belongs to no open pull request; a closed one drops out.
	if r := f.run(t, github.CreateCheckRunOptions{Name: "ci", HeadSHA: f.main}); len(r.PullRequests) != 0 {
		t.Errorf("main run pulls: %+v", r.PullRequests)
	}
	if _, _, err := f.gh.PullRequests.Edit(ctx, "mona", "app", pr.GetNumber(), &github.PullRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := f.gh.Checks.GetCheckRun(ctx, "mona", "app", r.GetID()); len(got.PullRequests) != 0 {
		t.Errorf("closed pull still listed: %+v", got.PullRequests)
	}
}
