package issues_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func TestCreateGetUpdateIssue(t *testing.T) {
	w := newWorld(t)
	ms, _, err := w.mg.Issues.CreateMilestone(ctx, "mona", "hello", github.CreateMilestoneRequest{Title: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	is := w.issue(t, "Found a bug", github.CreateIssueRequest{
		Body: github.Ptr("I'm having a problem with this. cc @hubot"), Labels: []string{"Bug", "needs triage"},
		Assignees: []string{"hubot", "MONA"}, Milestone: github.Ptr(ms.GetNumber()),
	})
	if is.GetNumber() != 1 || is.GetState() != "open" || is.GetUser().GetLogin() != "mona" || is.GetAuthorAssociation() != "OWNER" ||
		is.GetURL() != w.e.API+"/repos/mona/hello/issues/1" || is.GetHTMLURL() != w.e.URL+"/mona/hello/issues/1" ||
		is.GetMilestone().GetTitle() != "v1" || is.GetMilestone().GetOpenIssues() != 1 || is.GetComments() != 0 || is.GetLocked() {
		t.Fatalf("created %+v", is)
	}
	// Existing labels match ignoring case; unknown ones are created grey.
	if got := labelNames(is.Labels); !reflect.DeepEqual(got, []string{"bug", "needs triage"}) || is.Labels[1].GetColor() != "ededed" {
		t.Fatalf("labels %v", got)
	}
	// Assigned in the same second, assignees come in id order.
	if is.GetAssignee().GetLogin() != "mona" || len(is.Assignees) != 2 || is.Assignees[1].GetLogin() != "hubot" {
		t.Fatalf("assignees %v %v", is.GetAssignee(), is.Assignees)
	}
	got, _, err := w.rg.Issues.Get(ctx, "mona", "hello", 1)
	if err != nil || got.GetTitle() != "Found a bug" || got.GetBody() != "I'm having a problem with this. cc @hubot" {
		t.Fatalf("get %+v %v", got, err)
	}
	// closed_by is part of the single-issue object only.
	m := w.e.Must(200, "GET", "/repos/mona/hello/issues/1", w.ritaT, nil).Map(t)
	if v, ok := m["closed_by"]; !ok || v != nil {
		t.Fatalf("closed_by %v %v", v, ok)
	}

	// Close as not planned, rename, then reopen.
	upd, _, err := w.hg.Issues.Update(ctx, "mona", "hello", 1, github.UpdateIssueRequest{
		Title: github.Ptr("Found a big bug"), State: github.Ptr("closed"), StateReason: github.Ptr("not_planned")})
	if err != nil {
		t.Fatal(err)
	}
	if upd.GetState() != "closed" || upd.GetStateReason() != "not_planned" || upd.GetClosedBy().GetLogin() != "hubot" ||
		upd.ClosedAt == nil || upd.GetTitle() != "Found a big bug" || upd.GetMilestone().GetClosedIssues() != 1 || upd.GetMilestone().GetOpenIssues() != 0 {
		t.Fatalf("closed %+v", upd)
	}
	upd, _, err = w.mg.Issues.Update(ctx, "mona", "hello", 1, github.UpdateIssueRequest{State: github.Ptr("open"), Labels: []string{"bug"}, Assignees: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if upd.GetState() != "open" || upd.GetStateReason() != "reopened" || upd.ClosedAt != nil || len(upd.Assignees) != 0 ||
		upd.Assignee != nil || len(upd.Labels) != 1 {
		t.Fatalf("reopened %+v", upd)
	}
	// milestone null removes it; absent fields stay.
	m = w.e.Must(200, "PATCH", "/repos/mona/hello/issues/1", w.monaT, map[string]any{"milestone": nil, "body": nil}).Map(t)
	if m["milestone"] != nil || m["body"] != nil || m["title"] != "Found a big bug" {
		t.Fatalf("after nulls: %v %v %v", m["milestone"], m["body"], m["title"])
	}
	ms, _, _ = w.mg.Issues.GetMilestone(ctx, "mona", "hello", ms.GetNumber())
	if ms.GetOpenIssues() != 0 || ms.GetClosedIssues() != 0 {
		t.Fatalf("milestone counts %d %d", ms.GetOpenIssues(), ms.GetClosedIssues())
	}

	events, _, err := w.mg.Issues.ListIssueEvents(ctx, "mona", "hello", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ev := range events {
		kinds = append(kinds, ev.GetEvent())
	}
	want := "milestoned labeled labeled assigned assigned renamed closed reopened unlabeled unassigned unassigned demilestoned"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("events %v\nwant %s", kinds, want)
	}
	if events[5].GetRename().GetFrom() != "Found a bug" || events[3].GetAssignee().GetLogin() != "hubot" || events[3].GetAssigner().GetLogin() != "mona" ||
		events[1].GetLabel().GetName() != "bug" || events[0].GetMilestone().GetTitle() != "v1" {
		t.Fatalf("event details %+v", events)
	}
	// The same changes are in the domain event log.
	all, err := w.e.Store.R().EventsAfter(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range all {
		if strings.HasPrefix(ev.Type, "issues.") {
			n++
		}
	}
	if n != len(kinds)+2 { // + issues.opened and issues.edited (the body)
		t.Fatalf("%d issue domain events for %d issue events", n, len(kinds))
	}
}

func TestIssueBodiesByMediaType(t *testing.T) {
	w := newWorld(t)
	w.issue(t, "md", github.CreateIssueRequest{Body: github.Ptr("Some **bold** text")})
	for _, tc := range []struct {
		accept         string
		raw, text, htm bool
	}{
		{"application/vnd.github+json", true, false, false},
		{"application/vnd.github.raw+json", true, false, false},
		{"application/vnd.github.text+json", false, true, false},
		{"application/vnd.github.html+json", false, false, true},
		{"application/vnd.github.full+json", true, true, true},
	} {
		m := w.e.Must(200, "GET", "/repos/mona/hello/issues/1", w.monaT, nil, "Accept: "+tc.accept).Map(t)
		_, raw := m["body"]
		_, text := m["body_text"]
		_, htm := m["body_html"]
		if raw != tc.raw || text != tc.text || htm != tc.htm {
			t.Errorf("%s: body %v text %v html %v", tc.accept, raw, text, htm)
		}
		if htm && !strings.Contains(m["body_html"].(string), "<strong>bold</strong>") {
			t.Errorf("body_html %q", m["body_html"])
		}
		if text && m["body_text"] != "Some bold text" {
			t.Errorf("body_text %q", m["body_text"])
		}
	}
	// Lists honour the media type too.
	var list []map[string]any
	w.e.Must(200, "GET", "/repos/mona/hello/issues", w.monaT, nil, "Accept: application/vnd.github.html+json").JSON(t, &list)
	if len(list) != 1 || list[0]["body_html"] == nil || list[0]["body"] != nil {
		t.Fatalf("list %v", list)
	}
}

func TestIssueValidation(t *testing.T) {
	w := newWorld(t)
	w.issue(t, "first")
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   any
		status int
		field  string
		code   string
	}{
		{"blank title", "POST", "/repos/mona/hello/issues", map[string]any{"title": "  "}, 422, "title", "missing_field"},
		{"assignee without access", "POST", "/repos/mona/hello/issues", map[string]any{"title": "t", "assignees": []string{"eve"}}, 422, "assignees", "invalid"},
		{"unknown assignee", "POST", "/repos/mona/hello/issues", map[string]any{"title": "t", "assignee": "nobody"}, 422, "assignees", "invalid"},
		{"eleven assignees", "POST", "/repos/mona/hello/issues", map[string]any{"title": "t", "assignees": []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11"}}, 422, "assignees", "invalid"},
		{"unknown milestone", "POST", "/repos/mona/hello/issues", map[string]any{"title": "t", "milestone": 42}, 422, "milestone", "invalid"},
		{"unknown type", "POST", "/repos/mona/hello/issues", map[string]any{"title": "t", "type": "Epic"}, 422, "type", "invalid"},
		{"reopened while closing", "PATCH", "/repos/mona/hello/issues/1", map[string]any{"state": "closed", "state_reason": "reopened"}, 422, "state_reason", "invalid"},
		{"unknown milestone on update", "PATCH", "/repos/mona/hello/issues/1", map[string]any{"milestone": "7"}, 422, "milestone", "invalid"},
		{"blank title on update", "PATCH", "/repos/mona/hello/issues/1", map[string]any{"title": ""}, 422, "title", "missing_field"},
		{"title of wrong type", "POST", "/repos/mona/hello/issues", map[string]any{"title": []int{1}}, 422, "", ""},
		{"unknown issue", "GET", "/repos/mona/hello/issues/99", nil, 404, "", ""},
		{"non-numeric issue", "GET", "/repos/mona/hello/issues/abc", nil, 404, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.e.Do(tc.method, tc.path, w.monaT, tc.body)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			if tc.field == "" {
				return
			}
			var body struct {
				Message string
				Errors  []struct{ Resource, Field, Code string }
			}
			r.JSON(t, &body)
			if body.Message != "Validation Failed" || len(body.Errors) != 1 || body.Errors[0].Field != tc.field ||
				body.Errors[0].Code != tc.code || body.Errors[0].Resource != "Issue" {
				t.Fatalf("body %s", r.Body)
			}
		})
	}
	// What the operation's schema refuses is answered before the handler
	// runs, in the wording of GitHub's schema validator.
	for _, tc := range []struct {
		name, method, path string
		body               any
		msg                string
	}{
		{"missing title", "POST", "/repos/mona/hello/issues", map[string]any{"body": "x"}, "Invalid request.\n\n\"title\" wasn't supplied."},
		{"bad state", "PATCH", "/repos/mona/hello/issues/1", map[string]any{"state": "done"}, `Invalid request.` + "\n\n" + `done is not a member of ["open", "closed"].`},
		{"bad state reason", "PATCH", "/repos/mona/hello/issues/1", map[string]any{"state": "closed", "state_reason": "bored"},
			`Invalid request.` + "\n\n" + `bored is not a member of ["completed", "not_planned", "duplicate", "reopened"].`},
		{"bad lock reason", "PUT", "/repos/mona/hello/issues/1/lock", map[string]any{"lock_reason": "bored"},
			`Invalid request.` + "\n\n" + `bored is not a member of ["off-topic", "too heated", "resolved", "spam"].`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.e.Do(tc.method, tc.path, w.monaT, tc.body)
			var body struct {
				Message string
				Errors  []any
			}
			r.JSON(t, &body)
			if r.StatusCode != 422 || body.Message != tc.msg || body.Errors != nil {
				t.Fatalf("status %d, body %s; want 422 %q", r.StatusCode, r.Body, tc.msg)
			}
		})
	}
	// A number is a valid title.
	m := w.e.Must(201, "POST", "/repos/mona/hello/issues", w.monaT, map[string]any{"title": 42}).Map(t)
	if m["title"] != "42" {
		t.Fatalf("title %v", m["title"])
	}
}

func TestIssuePermissions(t *testing.T) {
	w := newWorld(t)
	w.issue(t, "by mona")
	secret, _, err := w.hg.Issues.Create(ctx, "mona", "secret", github.CreateIssueRequest{Title: "hidden"})
	if err != nil || secret.GetNumber() != 1 {
		t.Fatalf("secret issue %v %v", secret, err)
	}
	// A private repository's issues are hidden from outsiders.
	if _, _, err := w.eg.Issues.Get(ctx, "mona", "secret", 1); apitest.Status(err) != 404 {
		t.Fatalf("outsider on private: %v", err)
	}
	if _, _, err := w.eg.Issues.ListByRepo(ctx, "mona", "secret", nil); apitest.Status(err) != 404 {
		t.Fatalf("outsider lists private: %v", err)
	}
	// Anonymous callers read public issues but do not write.
	w.e.Must(200, "GET", "/repos/mona/hello/issues/1", "", nil)
	w.e.Must(401, "POST", "/repos/mona/hello/issues", "", map[string]any{"title": "anon"})
	// A token without public_repo may not write: GitHub answers 404.
	readOnly := w.e.Token(w.eve, "read:user")
	w.e.Must(404, "POST", "/repos/mona/hello/issues", readOnly, map[string]any{"title": "x"})

	// Anyone may open an issue; labels and assignees are dropped for readers.
	is, _, err := w.eg.Issues.Create(ctx, "mona", "hello", github.CreateIssueRequest{Title: "outsider", Labels: []string{"bug"}, Assignees: []string{"mona"}})
	if err != nil || len(is.Labels) != 0 || len(is.Assignees) != 0 || is.GetAuthorAssociation() != "NONE" {
		t.Fatalf("outsider's issue %+v %v", is, err)
	}
	// Authors edit their own issue (label changes dropped); others need triage.
	upd, _, err := w.eg.Issues.Update(ctx, "mona", "hello", is.GetNumber(), github.UpdateIssueRequest{Title: github.Ptr("edited"), Labels: []string{"bug"}, State: github.Ptr("closed")})
	if err != nil || upd.GetTitle() != "edited" || len(upd.Labels) != 0 || upd.GetState() != "closed" {
		t.Fatalf("author edit %+v %v", upd, err)
	}
	if _, _, err := w.rg.Issues.Update(ctx, "mona", "hello", 1, github.UpdateIssueRequest{Title: github.Ptr("nope")}); apitest.Status(err) != 403 {
		t.Fatalf("reader edits another's issue: %v", err)
	}
	// Triage labels and assigns; a reader who tries to label gets 403.
	if _, _, err := w.rg.Issues.AddLabelsToIssue(ctx, "mona", "hello", 1, []string{"bug"}); apitest.Status(err) != 403 {
		t.Fatalf("reader labels: %v", err)
	}
	if upd, _, err := w.tg.Issues.Update(ctx, "mona", "hello", 1, github.UpdateIssueRequest{Labels: []string{"bug"}, Assignees: []string{"tina"}}); err != nil ||
		len(upd.Labels) != 1 || upd.GetAssignee().GetLogin() != "tina" {
		t.Fatalf("triage edit %+v %v", upd, err)
	}
	// Locking needs write access.
	if _, err := w.tg.Issues.Lock(ctx, "mona", "hello", 1, nil); apitest.Status(err) != 403 {
		t.Fatalf("triage locks: %v", err)
	}
	if _, err := w.hg.Issues.Lock(ctx, "mona", "hello", 1, &github.LockIssueOptions{LockReason: "too heated"}); err != nil {
		t.Fatal(err)
	}
	got, _, _ := w.mg.Issues.Get(ctx, "mona", "hello", 1)
	if !got.GetLocked() || got.GetActiveLockReason() != "too heated" {
		t.Fatalf("locked %v %q", got.GetLocked(), got.GetActiveLockReason())
	}
	// On a locked issue only write access comments.
	if _, _, err := w.rg.Issues.CreateComment(ctx, "mona", "hello", 1, github.IssueCommentRequest{Body: "hi"}); apitest.Status(err) != 403 {
		t.Fatalf("reader comments on locked: %v", err)
	}
	if _, _, err := w.hg.Issues.CreateComment(ctx, "mona", "hello", 1, github.IssueCommentRequest{Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	// Lock with no body at all (Content-Length 0), then unlock twice.
	w.e.Must(204, "PUT", "/repos/mona/hello/issues/1/lock", w.hubotT, nil)
	if _, err := w.hg.Issues.Unlock(ctx, "mona", "hello", 1); err != nil {
		t.Fatal(err)
	}
	w.e.Must(204, "DELETE", "/repos/mona/hello/issues/1/lock", w.hubotT, nil)
	// Unlocked, anyone comments again.
	if _, _, err := w.rg.Issues.CreateComment(ctx, "mona", "hello", 1, github.IssueCommentRequest{Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	// Issues disabled: 410.
	if _, _, err := w.mg.Repositories.Edit(ctx, "mona", "hello", &github.Repository{HasIssues: github.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if r := w.e.Do("GET", "/repos/mona/hello/issues/1", w.monaT, nil); r.StatusCode != 410 || !strings.Contains(string(r.Body), "Issues are disabled") {
		t.Fatalf("disabled: %d %s", r.StatusCode, r.Body)
	}
	// Archived repositories are read-only.
	if _, _, err := w.mg.Repositories.Edit(ctx, "mona", "hello", &github.Repository{HasIssues: github.Ptr(true), Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.Issues.Create(ctx, "mona", "hello", github.CreateIssueRequest{Title: "late"}); apitest.Status(err) != 403 {
		t.Fatalf("archived create: %v", err)
	}
}

// Numbers are dense and unique when many clients create issues at once.
func TestConcurrentNumbering(t *testing.T) {
	w := newWorld(t)
	const n = 24
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []int
	clients := []*github.Client{w.mg, w.hg, w.rg, w.eg}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			is, _, err := clients[i%len(clients)].Issues.Create(ctx, "mona", "hello", github.CreateIssueRequest{Title: fmt.Sprint("issue ", i)})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got = append(got, is.GetNumber())
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	sort.Ints(got)
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("numbers %v", got)
		}
	}
	if len(got) != n {
		t.Fatalf("%d issues", len(got))
	}
	// The repository counts them as open issues.
	if c, _ := w.e.Store.R().OpenIssueCount(ctx, w.helloID); c != n {
		t.Fatalf("open count %d", c)
	}
}

func TestListFilters(t *testing.T) {
	w := newWorld(t)
	clock := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	w.e.Store.SetClock(func() time.Time { return clock })
	tick := func() { clock = clock.Add(time.Hour) }
	ms1, _, _ := w.mg.Issues.CreateMilestone(ctx, "mona", "hello", github.CreateMilestoneRequest{Title: "m1"})
	ms2, _, _ := w.mg.Issues.CreateMilestone(ctx, "mona", "hello", github.CreateMilestoneRequest{Title: "m2"})
	// 1: bug, hubot, m1           (mona)
	// 2: bug+enhancement, mona    (hubot, mentions @rita)
	// 3: enhancement, m2, closed  (mona)
	// 4: nothing                  (rita)
	// 5: question, hubot+mona, m1 (mona), commented 3 times
	tick()
	w.issue(t, "one", github.CreateIssueRequest{Labels: []string{"bug"}, Assignees: []string{"hubot"}, Milestone: github.Ptr(ms1.GetNumber())})
	tick()
	if _, _, err := w.hg.Issues.Create(ctx, "mona", "hello", github.CreateIssueRequest{Title: "two", Body: github.Ptr("ping @rita"),
		Labels: []string{"bug", "enhancement"}, Assignees: []string{"mona"}}); err != nil {
		t.Fatal(err)
	}
	tick()
	w.issue(t, "three", github.CreateIssueRequest{Labels: []string{"enhancement"}, Milestone: github.Ptr(ms2.GetNumber())})
	tick()
	if _, _, err := w.rg.Issues.Create(ctx, "mona", "hello", github.CreateIssueRequest{Title: "four"}); err != nil {
		t.Fatal(err)
	}
	tick()
	w.issue(t, "five", github.CreateIssueRequest{Labels: []string{"question"}, Assignees: []string{"hubot", "mona"}, Milestone: github.Ptr(ms1.GetNumber())})
	tick()
	for i := 0; i < 3; i++ {
		if _, _, err := w.hg.Issues.CreateComment(ctx, "mona", "hello", 5, github.IssueCommentRequest{Body: "+1"}); err != nil {
			t.Fatal(err)
		}
	}
	tick()
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", 3, github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	tick()
	// Touch #1 last: it becomes the most recently updated.
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", 1, github.UpdateIssueRequest{Body: github.Ptr("now")}); err != nil {
		t.Fatal(err)
	}
	since := clock.Add(-30 * time.Minute)

	for _, tc := range []struct {
		name string
		opt  github.IssueListByRepoOptions
		want []int
	}{
		{"default: open, newest first", github.IssueListByRepoOptions{}, []int{5, 4, 2, 1}},
		{"all ascending", github.IssueListByRepoOptions{State: "all", Direction: "asc"}, []int{1, 2, 3, 4, 5}},
		{"closed", github.IssueListByRepoOptions{State: "closed"}, []int{3}},
		{"one label", github.IssueListByRepoOptions{Labels: []string{"bug"}}, []int{2, 1}},
		{"labels are ANDed, ignoring case", github.IssueListByRepoOptions{Labels: []string{"BUG", "enhancement"}}, []int{2}},
		{"unknown label", github.IssueListByRepoOptions{Labels: []string{"nope"}}, []int{}},
		{"milestone number", github.IssueListByRepoOptions{Milestone: fmt.Sprint(ms1.GetNumber())}, []int{5, 1}},
		{"any milestone, all states", github.IssueListByRepoOptions{Milestone: "*", State: "all"}, []int{5, 3, 1}},
		{"no milestone", github.IssueListByRepoOptions{Milestone: "none"}, []int{4, 2}},
		{"unknown milestone", github.IssueListByRepoOptions{Milestone: "99"}, []int{}},
		{"assignee", github.IssueListByRepoOptions{Assignee: "hubot"}, []int{5, 1}},
		{"assigned to anyone", github.IssueListByRepoOptions{Assignee: "*"}, []int{5, 2, 1}},
		{"assigned to no one", github.IssueListByRepoOptions{Assignee: "none"}, []int{4}},
		{"creator", github.IssueListByRepoOptions{Creator: "rita"}, []int{4}},
		{"unknown creator", github.IssueListByRepoOptions{Creator: "ghost"}, []int{}},
		{"mentioned", github.IssueListByRepoOptions{Mentioned: "rita"}, []int{2}},
		{"assignee and label", github.IssueListByRepoOptions{Assignee: "mona", Labels: []string{"question"}}, []int{5}},
		{"milestone and assignee none", github.IssueListByRepoOptions{Milestone: "none", Assignee: "none"}, []int{4}},
		{"sort by comments", github.IssueListByRepoOptions{Sort: "comments"}, []int{5, 4, 2, 1}},
		{"sort by updated", github.IssueListByRepoOptions{Sort: "updated"}, []int{1, 5, 4, 2}},
		{"sort by updated asc, all", github.IssueListByRepoOptions{Sort: "updated", Direction: "asc", State: "all"}, []int{2, 4, 5, 3, 1}},
		{"since", github.IssueListByRepoOptions{Since: since, State: "all"}, []int{1}},
		{"type none", github.IssueListByRepoOptions{Type: "none"}, []int{5, 4, 2, 1}},
		{"type named", github.IssueListByRepoOptions{Type: "Bug"}, []int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			list, _, err := w.rg.Issues.ListByRepo(ctx, "mona", "hello", &opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := numbers(list); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Pagination: Link headers and pages.
	list, resp, err := w.rg.Issues.ListByRepo(ctx, "mona", "hello", &github.IssueListByRepoOptions{State: "all", ListOptions: github.ListOptions{PerPage: 2, Page: 2}})
	if err != nil || !reflect.DeepEqual(numbers(list), []int{3, 2}) || resp.NextPage != 3 || resp.LastPage != 3 || resp.PrevPage != 1 {
		t.Fatalf("page 2: %v %+v %v", numbers(list), resp, err)
	}
	list, _, _ = w.rg.Issues.ListByRepo(ctx, "mona", "hello", &github.IssueListByRepoOptions{Labels: []string{"bug"}, ListOptions: github.ListOptions{PerPage: 1, Page: 2}})
	if !reflect.DeepEqual(numbers(list), []int{1}) {
		t.Fatalf("filtered page 2: %v", numbers(list))
	}
	// A malformed since is a 422.
	w.e.Must(422, "GET", "/repos/mona/hello/issues?since=yesterday", w.ritaT, nil)
}

func TestListAcrossRepositories(t *testing.T) {
	w := newWorld(t)
	e := w.e
	org := &model.Account{Login: "acme", DefaultRepoPermission: "read", MembersCanCreateRepos: true, MembersCanCreatePublicRepos: true, MembersCanCreatePrivRepos: true}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, w.hubot.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: w.rita.ID, Role: model.RoleMember, State: "active"})
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.hg.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	// mona/hello#1 assigned to hubot; mona/secret#1 assigned to hubot, by
	// hubot; acme/tools#1 by hubot assigned to rita; acme/tools#2 by rita.
	w.issue(t, "hello one", github.CreateIssueRequest{Assignees: []string{"hubot"}})
	if _, _, err := w.hg.Issues.Create(ctx, "mona", "secret", github.CreateIssueRequest{Title: "secret one", Assignees: []string{"hubot"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.hg.Issues.Create(ctx, "acme", "tools", github.CreateIssueRequest{Title: "tools one", Assignees: []string{"rita"}, Body: github.Ptr("@mona look")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.rg.Issues.Create(ctx, "acme", "tools", github.CreateIssueRequest{Title: "tools two"}); err != nil {
		t.Fatal(err)
	}
	titles := func(list []*github.Issue) []string {
		out := []string{}
		for _, is := range list {
			if is.Repository == nil || is.Repository.GetFullName() == "" {
				t.Fatalf("issue %q without repository", is.GetTitle())
			}
			out = append(out, is.GetTitle())
		}
		return out
	}
	list, _, err := w.hg.Issues.ListAllIssues(ctx, nil)
	if err != nil || !reflect.DeepEqual(titles(list), []string{"secret one", "hello one"}) {
		t.Fatalf("hubot assigned: %v %v", titles(list), err)
	}
	list, _, _ = w.hg.Issues.ListAllIssues(ctx, &github.ListAllIssuesOptions{Filter: "created"})
	if !reflect.DeepEqual(titles(list), []string{"tools one", "secret one"}) {
		t.Fatalf("hubot created: %v", titles(list))
	}
	list, _, _ = w.rg.Issues.ListAllIssues(ctx, &github.ListAllIssuesOptions{Filter: "all", Direction: "asc"})
	if !reflect.DeepEqual(titles(list), []string{"hello one", "tools one", "tools two"}) {
		t.Fatalf("rita all: %v", titles(list))
	}
	list, _, _ = w.mg.Issues.ListUserIssues(ctx, &github.ListUserIssuesOptions{Filter: "mentioned"})
	if len(list) != 0 {
		t.Fatalf("mona cannot see acme/tools: %v", titles(list))
	}
	list, _, _ = w.rg.Issues.ListUserIssues(ctx, &github.ListUserIssuesOptions{Filter: "subscribed"})
	if !reflect.DeepEqual(titles(list), []string{"tools two", "tools one"}) {
		t.Fatalf("rita subscribed: %v", titles(list))
	}
	list, _, err = w.rg.Issues.ListByOrg(ctx, "acme", &github.IssueListByOrgOptions{Filter: "all"})
	if err != nil || !reflect.DeepEqual(titles(list), []string{"tools two", "tools one"}) {
		t.Fatalf("acme issues: %v %v", titles(list), err)
	}
	if !list[0].Repository.GetPermissions().GetPull() {
		t.Fatalf("repository permissions %v", list[0].Repository.GetPermissions())
	}
	list, _, _ = w.eg.Issues.ListByOrg(ctx, "acme", &github.IssueListByOrgOptions{Filter: "all"})
	if len(list) != 0 {
		t.Fatalf("outsider sees private org issues: %v", titles(list))
	}
	// A token without the repo scope sees public repositories only.
	pub := e.GitHub(e.Token(w.hubot, "public_repo"))
	list, _, _ = pub.Issues.ListAllIssues(ctx, &github.ListAllIssuesOptions{Filter: "all"})
	if !reflect.DeepEqual(titles(list), []string{"hello one"}) {
		t.Fatalf("public_repo token: %v", titles(list))
	}
	e.Must(401, "GET", "/issues", "", nil)
	e.Must(404, "GET", "/orgs/nobody/issues", w.ritaT, nil)
}

// An issue and a repository in an unusual state still produce valid
// objects (ghost authors, labels with slashes reached without the prefix).
func TestIssueEdgeShapes(t *testing.T) {
	w := newWorld(t)
	w.issue(t, "by eve soon gone")
	if _, _, err := w.eg.Issues.Create(ctx, "mona", "hello", github.CreateIssueRequest{Title: "eve's"}); err != nil {
		t.Fatal(err)
	}
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error { return tx.DeleteAccount(ctx, w.eve.ID) }); err != nil {
		t.Fatal(err)
	}
	m := w.e.Must(200, "GET", "/repos/mona/hello/issues/2", w.monaT, nil).Map(t)
	if m["user"] != nil || m["author_association"] != "NONE" {
		t.Fatalf("ghost author %v %v", m["user"], m["author_association"])
	}
}

// Lists serve cached issue objects until the next write: a change shows at
// once.
func TestListReflectsWrites(t *testing.T) {
	w := newWorld(t)
	w.issue(t, "before")
	for i := 0; i < 2; i++ {
		list, _, err := w.rg.Issues.ListByRepo(ctx, "mona", "hello", nil)
		if err != nil || len(list) != 1 || list[0].GetTitle() != "before" {
			t.Fatalf("list %v %v", list, err)
		}
	}
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", 1, github.UpdateIssueRequest{Title: github.Ptr("after")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.Issues.AddLabelsToIssue(ctx, "mona", "hello", 1, []string{"bug"}); err != nil {
		t.Fatal(err)
	}
	list, _, _ := w.rg.Issues.ListByRepo(ctx, "mona", "hello", nil)
	if len(list) != 1 || list[0].GetTitle() != "after" || len(list[0].Labels) != 1 {
		t.Fatalf("after write %+v", list)
	}
	// Each media type has its own rendering.
	var html []map[string]any
	w.e.Must(200, "GET", "/repos/mona/hello/issues", w.ritaT, nil, "Accept: application/vnd.github.html+json").JSON(t, &html)
	if _, ok := html[0]["body"]; ok {
		t.Fatalf("html list has body: %v", html[0])
	}
}
