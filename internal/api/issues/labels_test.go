package issues_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func TestLabels(t *testing.T) {
	w := newWorld(t)
	// GitHub's default labels come with a new repository.
	list, _, err := w.rg.Issues.ListLabels(ctx, "mona", "hello", &github.ListOptions{PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bug", "documentation", "duplicate", "enhancement", "good first issue", "help wanted", "invalid", "question", "wontfix"}
	if !reflect.DeepEqual(labelNames(list), want) || list[0].GetColor() != "d73a4a" || !list[0].GetDefault() ||
		list[0].GetDescription() != "Something isn't working" {
		t.Fatalf("defaults %v %+v", labelNames(list), list[0])
	}
	if list[4].GetURL() != w.e.API+"/repos/mona/hello/labels/good%20first%20issue" {
		t.Fatalf("url %s", list[4].GetURL())
	}
	// Create with a name that needs escaping; get it back by any case.
	l, _, err := w.hg.Issues.CreateLabel(ctx, "mona", "hello", github.CreateIssueLabelRequest{Name: "Needs Review ✓", Color: github.Ptr("FBCA04"), Description: github.Ptr("waiting")})
	if err != nil || l.GetColor() != "FBCA04" || l.GetDefault() || l.GetDescription() != "waiting" {
		t.Fatalf("create %+v %v", l, err)
	}
	got, _, err := w.rg.Issues.GetLabel(ctx, "mona", "hello", "needs review ✓")
	if err != nil || got.GetID() != l.GetID() {
		t.Fatalf("get %+v %v", got, err)
	}
	// Names with slashes are one path segment when escaped.
	if _, _, err := w.hg.Issues.CreateLabel(ctx, "mona", "hello", github.CreateIssueLabelRequest{Name: "area/ui"}); err != nil {
		t.Fatal(err)
	}
	if m := w.e.Must(200, "GET", "/repos/mona/hello/labels/Area%2FUI", w.ritaT, nil).Map(t); m["name"] != "area/ui" ||
		m["url"] != w.e.API+"/repos/mona/hello/labels/area%2Fui" {
		t.Fatalf("slashed label %v", m)
	}
	// A label without colour gets GitHub's grey and a null description.
	m := w.e.Must(201, "POST", "/repos/mona/hello/labels", w.hubotT, map[string]any{"name": "plain"}).Map(t)
	if m["color"] != "ededed" || m["description"] != nil {
		t.Fatalf("plain %v", m)
	}
	upd, _, err := w.hg.Issues.UpdateLabel(ctx, "mona", "hello", "PLAIN", github.UpdateIssueLabelRequest{NewName: github.Ptr("fancy"), Color: github.Ptr("00ff00")})
	if err != nil || upd.GetName() != "fancy" || upd.GetColor() != "00ff00" {
		t.Fatalf("update %+v %v", upd, err)
	}
	// null clears a description.
	m = w.e.Must(200, "PATCH", "/repos/mona/hello/labels/"+url.PathEscape("Needs Review ✓"), w.hubotT, map[string]any{"description": nil}).Map(t)
	if m["description"] != nil || m["name"] != "Needs Review ✓" {
		t.Fatalf("cleared %v", m)
	}
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   any
		status int
		field  string
		code   string
	}{
		{"invalid colour", "POST", "/repos/mona/hello/labels", map[string]any{"name": "x", "color": "red"}, 422, "color", "invalid"},
		{"colour with #", "POST", "/repos/mona/hello/labels", map[string]any{"name": "x", "color": "#ff0000"}, 422, "color", "invalid"},
		{"duplicate, other case", "POST", "/repos/mona/hello/labels", map[string]any{"name": "BUG"}, 422, "name", "already_exists"},
		{"long description", "POST", "/repos/mona/hello/labels", map[string]any{"name": "y", "description": strings.Repeat("x", 101)}, 422, "description", "custom"},
		{"rename onto another", "PATCH", "/repos/mona/hello/labels/fancy", map[string]any{"new_name": "Bug"}, 422, "name", "already_exists"},
		{"invalid colour on update", "PATCH", "/repos/mona/hello/labels/fancy", map[string]any{"color": "12345"}, 422, "color", "invalid"},
		{"unknown label", "GET", "/repos/mona/hello/labels/nope", nil, 404, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.e.Do(tc.method, tc.path, w.hubotT, tc.body)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			if tc.field == "" {
				return
			}
			var body struct {
				Errors []struct{ Resource, Field, Code string }
			}
			r.JSON(t, &body)
			if len(body.Errors) != 1 || body.Errors[0].Resource != "Label" || body.Errors[0].Field != tc.field || body.Errors[0].Code != tc.code {
				t.Fatalf("body %s", r.Body)
			}
		})
	}
	// The schema's required name is checked before the handler runs.
	if m := w.e.Must(422, "POST", "/repos/mona/hello/labels", w.hubotT, map[string]any{"color": "ff0000"}).Map(t); m["message"] != "Invalid request.\n\n\"name\" wasn't supplied." {
		t.Fatalf("missing name: %v", m)
	}
	// Readers may not manage labels; outsiders of a private repository see nothing.
	if _, _, err := w.rg.Issues.CreateLabel(ctx, "mona", "hello", github.CreateIssueLabelRequest{Name: "mine"}); apitest.Status(err) != 403 {
		t.Fatalf("reader creates: %v", err)
	}
	if _, _, err := w.eg.Issues.ListLabels(ctx, "mona", "secret", nil); apitest.Status(err) != 404 {
		t.Fatalf("outsider lists private: %v", err)
	}
	if _, err := w.hg.Issues.DeleteLabel(ctx, "mona", "hello", "fancy"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.rg.Issues.GetLabel(ctx, "mona", "hello", "fancy"); apitest.Status(err) != 404 {
		t.Fatalf("after delete: %v", err)
	}
}

func TestIssueLabels(t *testing.T) {
	w := newWorld(t)
	w.issue(t, "one")
	labels, _, err := w.tg.Issues.AddLabelsToIssue(ctx, "mona", "hello", 1, []string{"bug", "New One"})
	if err != nil || !reflect.DeepEqual(labelNames(labels), []string{"bug", "New One"}) {
		t.Fatalf("add %v %v", labelNames(labels), err)
	}
	// The bare array, the single string and {"labels": [{"name": ...}]} forms.
	var out []map[string]any
	w.e.Must(200, "POST", "/repos/mona/hello/issues/1/labels", w.tinaT, `["question"]`).JSON(t, &out)
	if len(out) != 3 {
		t.Fatalf("array form: %v", out)
	}
	w.e.Must(200, "POST", "/repos/mona/hello/issues/1/labels", w.tinaT, map[string]any{"labels": []map[string]string{{"name": "wontfix"}}}).JSON(t, &out)
	if len(out) != 4 {
		t.Fatalf("object form: %v", out)
	}
	labels, _, err = w.tg.Issues.ReplaceLabelsForIssue(ctx, "mona", "hello", 1, []string{"documentation"})
	if err != nil || !reflect.DeepEqual(labelNames(labels), []string{"documentation"}) {
		t.Fatalf("replace %v %v", labelNames(labels), err)
	}
	w.e.Must(200, "PUT", "/repos/mona/hello/issues/1/labels", w.tinaT, `"bug"`).JSON(t, &out)
	if len(out) != 1 || out[0]["name"] != "bug" {
		t.Fatalf("string form: %v", out)
	}
	labels, _, err = w.rg.Issues.ListLabelsByIssue(ctx, "mona", "hello", 1, nil)
	if err != nil || !reflect.DeepEqual(labelNames(labels), []string{"bug"}) {
		t.Fatalf("list %v %v", labelNames(labels), err)
	}
	if _, err := w.tg.Issues.RemoveLabelForIssue(ctx, "mona", "hello", 1, "BUG"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.tg.Issues.RemoveLabelForIssue(ctx, "mona", "hello", 1, "bug"); apitest.Status(err) != 404 {
		t.Fatalf("remove absent: %v", err)
	}
	if _, _, err := w.tg.Issues.AddLabelsToIssue(ctx, "mona", "hello", 1, []string{"bug", "question"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.tg.Issues.RemoveLabelsForIssue(ctx, "mona", "hello", 1); err != nil {
		t.Fatal(err)
	}
	labels, _, _ = w.rg.Issues.ListLabelsByIssue(ctx, "mona", "hello", 1, nil)
	if len(labels) != 0 {
		t.Fatalf("after remove all: %v", labelNames(labels))
	}
	// Deleting a label takes it off its issues.
	if _, _, err := w.tg.Issues.AddLabelsToIssue(ctx, "mona", "hello", 1, []string{"bug"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.hg.Issues.DeleteLabel(ctx, "mona", "hello", "bug"); err != nil {
		t.Fatal(err)
	}
	is, _, _ := w.rg.Issues.Get(ctx, "mona", "hello", 1)
	if len(is.Labels) != 0 {
		t.Fatalf("deleted label still on issue: %v", is.Labels)
	}
	// Readers may not label.
	for _, r := range []string{"POST", "PUT", "DELETE"} {
		w.e.Must(403, r, "/repos/mona/hello/issues/1/labels", w.ritaT, []string{"question"})
	}
	w.e.Must(403, "DELETE", "/repos/mona/hello/issues/1/labels/question", w.ritaT, nil)
	w.e.Must(404, "GET", "/repos/mona/hello/issues/9/labels", w.ritaT, nil)
}

func TestMilestones(t *testing.T) {
	w := newWorld(t)
	due := time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
	m1, _, err := w.hg.Issues.CreateMilestone(ctx, "mona", "hello", github.CreateMilestoneRequest{Title: "v1.0", Description: github.Ptr("first"), DueOn: &github.Timestamp{Time: due}})
	if err != nil {
		t.Fatal(err)
	}
	if m1.GetNumber() != 1 || m1.GetState() != "open" || m1.GetCreator().GetLogin() != "hubot" || !m1.GetDueOn().Time.Equal(due) ||
		m1.GetHTMLURL() != w.e.URL+"/mona/hello/milestone/1" || m1.GetLabelsURL() != w.e.API+"/repos/mona/hello/milestones/1/labels" {
		t.Fatalf("created %+v", m1)
	}
	m2, _, _ := w.hg.Issues.CreateMilestone(ctx, "mona", "hello", github.CreateMilestoneRequest{Title: "v0.9", DueOn: &github.Timestamp{Time: due.AddDate(0, -1, 0)}})
	m3, _, _ := w.hg.Issues.CreateMilestone(ctx, "mona", "hello", github.CreateMilestoneRequest{Title: "someday"})
	closed, _, _ := w.hg.Issues.CreateMilestone(ctx, "mona", "hello", github.CreateMilestoneRequest{Title: "old", State: github.Ptr("closed")})
	if closed.GetState() != "closed" || closed.ClosedAt == nil {
		t.Fatalf("closed %+v", closed)
	}
	// Counts follow the issues.
	w.issue(t, "a", github.CreateIssueRequest{Milestone: github.Ptr(m1.GetNumber()), Labels: []string{"bug"}})
	w.issue(t, "b", github.CreateIssueRequest{Milestone: github.Ptr(m1.GetNumber()), Labels: []string{"enhancement"}})
	w.issue(t, "c", github.CreateIssueRequest{Milestone: github.Ptr(m2.GetNumber())})
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", 2, github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", 3, github.UpdateIssueRequest{Milestone: github.Ptr(m1.GetNumber())}); err != nil {
		t.Fatal(err)
	}
	got, _, err := w.rg.Issues.GetMilestone(ctx, "mona", "hello", 1)
	if err != nil || got.GetOpenIssues() != 2 || got.GetClosedIssues() != 1 {
		t.Fatalf("counts %d/%d %v", got.GetOpenIssues(), got.GetClosedIssues(), err)
	}
	labels, _, err := w.rg.Issues.ListLabelsForMilestone(ctx, "mona", "hello", 1, nil)
	if err != nil || !reflect.DeepEqual(labelNames(labels), []string{"bug", "enhancement"}) {
		t.Fatalf("milestone labels %v %v", labelNames(labels), err)
	}
	titles := func(list []*github.Milestone) []string {
		out := []string{}
		for _, m := range list {
			out = append(out, m.GetTitle())
		}
		return out
	}
	for _, tc := range []struct {
		opt  github.MilestoneListOptions
		want []string
	}{
		{github.MilestoneListOptions{}, []string{"v0.9", "v1.0", "someday"}},
		{github.MilestoneListOptions{Direction: "desc"}, []string{"v1.0", "v0.9", "someday"}},
		{github.MilestoneListOptions{State: "closed"}, []string{"old"}},
		{github.MilestoneListOptions{State: "all", Sort: "completeness", Direction: "desc"}, []string{"v1.0", "old", "someday", "v0.9"}},
	} {
		list, _, err := w.rg.Issues.ListMilestones(ctx, "mona", "hello", &tc.opt)
		if err != nil || !reflect.DeepEqual(titles(list), tc.want) {
			t.Errorf("%+v: %v %v, want %v", tc.opt, titles(list), err, tc.want)
		}
	}
	upd, _, err := w.hg.Issues.UpdateMilestone(ctx, "mona", "hello", m3.GetNumber(), github.UpdateMilestoneRequest{Title: github.Ptr("later"), State: github.Ptr("closed")})
	if err != nil || upd.GetTitle() != "later" || upd.GetState() != "closed" || upd.ClosedAt == nil {
		t.Fatalf("update %+v %v", upd, err)
	}
	m := w.e.Must(200, "PATCH", "/repos/mona/hello/milestones/1", w.hubotT, map[string]any{"due_on": nil, "description": nil}).Map(t)
	if m["due_on"] != nil || m["description"] != nil {
		t.Fatalf("cleared %v", m)
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"missing title", "POST", "/repos/mona/hello/milestones", map[string]any{"description": "x"}, 422},
		{"duplicate title", "POST", "/repos/mona/hello/milestones", map[string]any{"title": "V1.0"}, 422},
		{"bad state", "POST", "/repos/mona/hello/milestones", map[string]any{"title": "x", "state": "done"}, 422},
		{"bad due date", "POST", "/repos/mona/hello/milestones", map[string]any{"title": "x", "due_on": "soon"}, 422},
		{"rename onto another", "PATCH", "/repos/mona/hello/milestones/2", map[string]any{"title": "v1.0"}, 422},
		{"unknown", "GET", "/repos/mona/hello/milestones/99", nil, 404},
	} {
		if r := w.e.Do(tc.method, tc.path, w.hubotT, tc.body); r.StatusCode != tc.status {
			t.Errorf("%s: %d %s", tc.name, r.StatusCode, r.Body)
		}
	}
	if _, _, err := w.rg.Issues.CreateMilestone(ctx, "mona", "hello", github.CreateMilestoneRequest{Title: "r"}); apitest.Status(err) != 403 {
		t.Fatalf("reader creates milestone: %v", err)
	}
	// Deleting a milestone demilestones its issues.
	if _, err := w.hg.Issues.DeleteMilestone(ctx, "mona", "hello", 1); err != nil {
		t.Fatal(err)
	}
	is, _, _ := w.rg.Issues.Get(ctx, "mona", "hello", 1)
	if is.Milestone != nil {
		t.Fatalf("still milestoned: %+v", is.Milestone)
	}
	evs, _, _ := w.rg.Issues.ListIssueEvents(ctx, "mona", "hello", 1, nil)
	if last := evs[len(evs)-1]; last.GetEvent() != "demilestoned" || last.GetMilestone().GetTitle() != "v1.0" {
		t.Fatalf("last event %+v", last)
	}
	if _, _, err := w.rg.Issues.GetMilestone(ctx, "mona", "hello", 1); apitest.Status(err) != 404 {
		t.Fatalf("after delete: %v", err)
	}
}

func TestAssignees(t *testing.T) {
	w := newWorld(t)
	users, _, err := w.rg.Issues.ListAssignees(ctx, "mona", "hello", nil)
	if err != nil {
		t.Fatal(err)
	}
	var logins []string
	for _, u := range users {
		logins = append(logins, u.GetLogin())
	}
	if !reflect.DeepEqual(logins, []string{"hubot", "mona", "rita", "tina"}) {
		t.Fatalf("assignable %v", logins)
	}
	for login, want := range map[string]bool{"mona": true, "HUBOT": true, "eve": false, "nobody": false} {
		ok, _, err := w.rg.Issues.IsAssignee(ctx, "mona", "hello", login)
		if err != nil || ok != want {
			t.Errorf("%s: %v %v", login, ok, err)
		}
	}
	w.issue(t, "one")
	w.e.Must(204, "GET", "/repos/mona/hello/issues/1/assignees/rita", w.ritaT, nil)
	w.e.Must(404, "GET", "/repos/mona/hello/issues/1/assignees/eve", w.ritaT, nil)
	w.e.Must(404, "GET", "/repos/mona/hello/issues/7/assignees/rita", w.ritaT, nil)

	// Adding skips users who may not be assigned; at most ten in all.
	is, resp, err := w.tg.Issues.AddAssignees(ctx, "mona", "hello", 1, []string{"rita", "eve", "mona"})
	if err != nil || resp.StatusCode != 201 || len(is.Assignees) != 2 || is.GetAssignee().GetLogin() != "mona" && is.GetAssignee().GetLogin() != "rita" {
		t.Fatalf("add %+v %v", is, err)
	}
	is, _, err = w.tg.Issues.RemoveAssignees(ctx, "mona", "hello", 1, []string{"RITA", "hubot"})
	if err != nil || len(is.Assignees) != 1 || is.Assignees[0].GetLogin() != "mona" {
		t.Fatalf("remove %+v %v", is.Assignees, err)
	}
	// Without triage access, the request changes nothing.
	is, _, err = w.rg.Issues.AddAssignees(ctx, "mona", "hello", 1, []string{"rita"})
	if err != nil || len(is.Assignees) != 1 {
		t.Fatalf("reader adds %+v %v", is.Assignees, err)
	}
	w.e.Must(422, "DELETE", "/repos/mona/hello/issues/1/assignees", w.tinaT, map[string]any{})
	// Org members with access are assignable; outsiders of a private repo get 404.
	if _, _, err := w.eg.Issues.ListAssignees(ctx, "mona", "secret", nil); apitest.Status(err) != 404 {
		t.Fatalf("outsider: %v", err)
	}
}
