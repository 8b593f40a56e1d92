package pullreviews_test

import (
	"testing"

	"github.com/google/go-github/v92/github"
)

// TestTimelineAndEvents: review requests, reviews and dismissals show in
// the pull request's issue events and timeline as GitHub shapes them.
func TestTimelineAndEvents(t *testing.T) {
	w := newWorld(t)
	if _, _, err := w.mg.PullRequests.RequestReviewers(ctx, "mona", "app", 1, github.ReviewersRequest{Reviewers: []string{"rita"}}); err != nil {
		t.Fatal(err)
	}
	v, _, err := w.rg.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("APPROVE")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.PullRequests.DismissReview(ctx, "mona", "app", 1, v.GetID(), github.PullRequestDismissReviewRequest{Message: "too early"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.PullRequests.RequestReviewers(ctx, "mona", "app", 1, github.ReviewersRequest{Reviewers: []string{"rita"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.mg.PullRequests.RemoveReviewers(ctx, "mona", "app", 1, github.ReviewersRequest{Reviewers: []string{"rita"}}); err != nil {
		t.Fatal(err)
	}

	var tl []map[string]any
	w.e.Must(200, "GET", "/repos/mona/app/issues/1/timeline", w.monaT, nil).JSON(t, &tl)
	var kinds []string
	for _, e := range tl {
		kinds = append(kinds, e["event"].(string))
	}
	// The pull request's commit comes first (opening it records it).
	want := []string{"committed", "review_requested", "reviewed", "review_dismissed", "review_requested", "review_request_removed"}
	if len(kinds) != len(want) {
		t.Fatalf("timeline %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("timeline %v, want %v", kinds, want)
		}
	}
	tl = tl[1:] // past the commit
	if rr := tl[0]["requested_reviewer"].(map[string]any); rr["login"] != "rita" || tl[0]["review_requester"].(map[string]any)["login"] != "mona" {
		t.Fatalf("review_requested: %+v", tl[0])
	}
	// The review shows as it is now: dismissed.
	if tl[1]["state"] != "dismissed" || tl[1]["id"].(float64) != float64(v.GetID()) || tl[1]["user"].(map[string]any)["login"] != "rita" {
		t.Fatalf("reviewed: %+v", tl[1])
	}
	dr := tl[2]["dismissed_review"].(map[string]any)
	if dr["state"] != "approved" || dr["dismissal_message"] != "too early" || dr["review_id"].(float64) != float64(v.GetID()) {
		t.Fatalf("dismissed_review: %+v", dr)
	}

	// The events endpoint leaves the timeline-only reviewed row out.
	events, _, err := w.mg.Issues.ListIssueEvents(ctx, "mona", "app", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range events {
		names = append(names, e.GetEvent())
	}
	if len(names) != 4 || events[0].GetRequestedReviewer().GetLogin() != "rita" || events[0].GetReviewRequester().GetLogin() != "mona" {
		t.Fatalf("events %v", names)
	}
}
