package issues_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

func TestEventsAndTimeline(t *testing.T) {
	w := newWorld(t)
	sd := newSide(t, w)
	w.issue(t, "one", github.CreateIssueRequest{Labels: []string{"bug"}})
	if _, _, err := w.hg.Issues.CreateComment(ctx, "mona", "hello", 1, github.IssueCommentRequest{Body: "looking"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", 1, github.UpdateIssueRequest{Title: github.Ptr("one!"), State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.hg.Issues.Lock(ctx, "mona", "hello", 1, &github.LockIssueOptions{LockReason: "resolved"}); err != nil {
		t.Fatal(err)
	}
	// #2 references #1 in its body; a private issue does too.
	w.issue(t, "two", github.CreateIssueRequest{Body: github.Ptr("Same as #1, see also #1")})
	if _, _, err := w.mg.Issues.Create(ctx, "mona", "secret", github.CreateIssueRequest{Title: "private", Body: github.Ptr("relates to mona/hello#1")}); err != nil {
		t.Fatal(err)
	}

	events, _, err := w.rg.Issues.ListIssueEvents(ctx, "mona", "hello", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.GetEvent())
	}
	if strings.Join(kinds, " ") != "labeled renamed closed locked" {
		t.Fatalf("issue events %v", kinds)
	}
	if events[2].GetActor().GetLogin() != "mona" || events[3].GetLockReason() != "resolved" {
		t.Fatalf("details %+v %+v", events[2], events[3])
	}

	repoEvents, _, err := w.rg.Issues.ListRepositoryEvents(ctx, "mona", "hello", nil)
	if err != nil || len(repoEvents) != 4 || repoEvents[0].GetIssue().GetNumber() != 1 || repoEvents[0].GetIssue().GetTitle() != "one!" {
		t.Fatalf("repository events %d %v", len(repoEvents), err)
	}
	one := sd.do(200, "GET", "/repos/mona/hello/issues/events/"+itoa(events[1].GetID()), w.ritaT, nil)
	if one["event"] != "renamed" || one["rename"].(map[string]any)["to"] != "one!" || one["issue"].(map[string]any)["number"] != float64(1) {
		t.Fatalf("get event %v", one)
	}
	sd.do(404, "GET", "/repos/mona/hello/issues/events/999999", w.ritaT, nil)
	sd.do(404, "GET", "/repos/mona/secret/issues/events/"+itoa(events[1].GetID()), w.monaT, nil)

	timeline, _, err := w.rg.Issues.ListIssueTimeline(ctx, "mona", "hello", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds = nil
	for _, e := range timeline {
		kinds = append(kinds, e.GetEvent())
	}
	// rita cannot see the private issue that referenced #1.
	if strings.Join(kinds, " ") != "labeled commented renamed closed locked cross-referenced" {
		t.Fatalf("timeline %v", kinds)
	}
	if timeline[1].GetBody() != "looking" || timeline[1].GetActor().GetLogin() != "hubot" ||
		timeline[5].GetSource().GetIssue().GetNumber() != 2 || timeline[5].GetSource().GetType() != "issue" {
		t.Fatalf("timeline details %+v %+v", timeline[1], timeline[5].GetSource())
	}
	timeline, _, _ = w.mg.Issues.ListIssueTimeline(ctx, "mona", "hello", 1, nil)
	if len(timeline) != 7 || timeline[6].GetSource().GetIssue().GetRepository().GetFullName() != "mona/secret" {
		t.Fatalf("owner's timeline has %d entries", len(timeline))
	}
	// exclude leaves kinds out; pages are in order.
	var ex []map[string]any
	w.e.Must(200, "GET", "/repos/mona/hello/issues/1/timeline?exclude=commented,cross-referenced", w.ritaT, nil).JSON(t, &ex)
	if len(ex) != 4 {
		t.Fatalf("excluded %v", ex)
	}
	page, resp, _ := w.rg.Issues.ListIssueTimeline(ctx, "mona", "hello", 1, &github.ListOptions{PerPage: 2, Page: 2})
	if len(page) != 2 || page[0].GetEvent() != "renamed" || resp.NextPage != 3 {
		t.Fatalf("page 2: %d %+v", len(page), resp)
	}
	// A deleted comment leaves the timeline.
	cs, _, _ := w.rg.Issues.ListComments(ctx, "mona", "hello", 1, nil)
	sd.do(204, "DELETE", "/repos/mona/hello/issues/comments/"+itoa(cs[0].GetID()), w.hubotT, nil)
	timeline, _, _ = w.rg.Issues.ListIssueTimeline(ctx, "mona", "hello", 1, nil)
	kinds = nil
	for _, e := range timeline {
		kinds = append(kinds, e.GetEvent())
	}
	if !reflect.DeepEqual(kinds, []string{"labeled", "renamed", "closed", "locked", "cross-referenced"}) {
		t.Fatalf("after delete %v", kinds)
	}
	w.e.Must(404, "GET", "/repos/mona/secret/issues/1/timeline", w.eveT, nil)
	w.e.Must(404, "GET", "/repos/mona/hello/issues/5/events", w.eveT, nil)
}
