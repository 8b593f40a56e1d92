package pullreviews_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func TestReviewLifecycle(t *testing.T) {
	w := newWorld(t)

	// A pending review with a comment is eve's alone.
	pending, _, err := w.eg.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{
		Comments: []*github.DraftReviewComment{{Path: github.Ptr("a.txt"), Line: github.Ptr(5), Side: github.Ptr("RIGHT"), Body: github.Ptr("why?")}}})
	if err != nil {
		t.Fatal(err)
	}
	if pending.GetState() != "PENDING" || pending.SubmittedAt != nil || pending.GetCommitID() != w.head || pending.GetUser().GetLogin() != "eve" {
		t.Fatalf("pending review: %+v", pending)
	}
	if _, _, err := w.mg.PullRequests.GetReview(ctx, "mona", "app", 1, pending.GetID()); apitest.Status(err) != 404 {
		t.Fatalf("mona sees eve's pending review: %v", err)
	}
	if got, _, err := w.eg.PullRequests.GetReview(ctx, "mona", "app", 1, pending.GetID()); err != nil || got.GetState() != "PENDING" || got.GetID() != pending.GetID() {
		t.Fatalf("eve reads her pending review: %+v %v", got, err)
	}
	if list, _, _ := w.mg.PullRequests.ListReviews(ctx, "mona", "app", 1, nil); len(list) != 0 {
		t.Fatalf("mona lists %d reviews, want 0", len(list))
	}
	if list, _, _ := w.mg.PullRequests.ListComments(ctx, "mona", "app", 1, nil); len(list) != 0 {
		t.Fatalf("mona lists %d comments, want 0 (pending)", len(list))
	}
	if list, _, _ := w.eg.PullRequests.ListReviewComments(ctx, "mona", "app", 1, pending.GetID(), nil); len(list) != 1 || list[0].GetPosition() != 5 {
		t.Fatalf("eve's pending comments: %+v", list)
	}
	_, _, err = w.eg.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{Body: github.Ptr("again")})
	if apitest.Status(err) != 422 || message(err) != "User can only have one pending review per pull request" {
		t.Fatalf("second pending review: %v", err)
	}

	// A single comment would be a second review.
	if _, _, err := w.eg.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{
		Body: "x", CommitID: w.head, Path: "a.txt", Line: github.Ptr(5)}); apitest.Status(err) != 422 {
		t.Fatalf("single comment with a pending review: %v", err)
	}

	// Submitting needs a body to request changes.
	if _, _, err := w.eg.PullRequests.SubmitReview(ctx, "mona", "app", 1, pending.GetID(), github.PullRequestSubmitReviewRequest{Event: "REQUEST_CHANGES"}); apitest.Status(err) != 422 {
		t.Fatalf("request changes without body: %v", err)
	}
	submitted, _, err := w.eg.PullRequests.SubmitReview(ctx, "mona", "app", 1, pending.GetID(), github.PullRequestSubmitReviewRequest{
		Event: "REQUEST_CHANGES", Body: github.Ptr("Please explain")})
	if err != nil {
		t.Fatal(err)
	}
	if submitted.GetState() != "CHANGES_REQUESTED" || submitted.SubmittedAt == nil || submitted.GetBody() != "Please explain" {
		t.Fatalf("submitted: %+v", submitted)
	}
	if _, _, err := w.eg.PullRequests.SubmitReview(ctx, "mona", "app", 1, pending.GetID(), github.PullRequestSubmitReviewRequest{Event: "COMMENT", Body: github.Ptr("x")}); apitest.Status(err) != 422 {
		t.Fatalf("submit twice: %v", err)
	}
	if list, _, _ := w.mg.PullRequests.ListComments(ctx, "mona", "app", 1, nil); len(list) != 1 {
		t.Fatalf("after submit mona lists %d comments, want 1", len(list))
	}
	w.e.RunJobs()
	if pr, _, err := w.mg.PullRequests.Get(ctx, "mona", "app", 1); err != nil || pr.GetReviewComments() != 1 {
		t.Fatalf("review_comments = %d (%v), want 1", pr.GetReviewComments(), err)
	}

	// The author may not approve or request changes.
	for _, ev := range []struct{ event, msg string }{
		{"APPROVE", "Can not approve your own pull request"},
		{"REQUEST_CHANGES", "Can not request changes on your own pull request"},
	} {
		_, _, err := w.hg.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr(ev.event), Body: github.Ptr("me")})
		if apitest.Status(err) != 422 || message(err) != ev.msg {
			t.Errorf("%s own pull: %v", ev.event, err)
		}
	}
	// The author may comment.
	commented, _, err := w.hg.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("thanks")})
	if err != nil || commented.GetState() != "COMMENTED" {
		t.Fatalf("author comment review: %v %+v", err, commented)
	}
	approved, _, err := w.mg.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("APPROVE")})
	if err != nil || approved.GetState() != "APPROVED" || approved.GetAuthorAssociation() != "OWNER" {
		t.Fatalf("approve: %v %+v", err, approved)
	}

	// Dismissals: write access, approvals and change requests only.
	dismiss := func(c *github.Client, id int64) (*github.PullRequestReview, error) {
		v, _, err := c.PullRequests.DismissReview(ctx, "mona", "app", 1, id, github.PullRequestDismissReviewRequest{Message: "stale"})
		return v, err
	}
	if _, err := dismiss(w.rg, submitted.GetID()); apitest.Status(err) != 403 {
		t.Fatalf("rita dismisses: %v", err)
	}
	if _, err := dismiss(w.mg, commented.GetID()); apitest.Status(err) != 422 {
		t.Fatalf("dismiss a comment review: %v", err)
	}
	d, err := dismiss(w.hg, submitted.GetID())
	if err != nil || d.GetState() != "DISMISSED" {
		t.Fatalf("dismiss: %v %+v", err, d)
	}
	if _, err := dismiss(w.hg, 99999); apitest.Status(err) != 404 {
		t.Fatalf("dismiss unknown: %v", err)
	}

	// Update: the author only.
	if _, _, err := w.rg.PullRequests.UpdateReview(ctx, "mona", "app", 1, approved.GetID(), "mine now"); apitest.Status(err) != 403 {
		t.Fatalf("rita updates mona's review: %v", err)
	}
	up, _, err := w.mg.PullRequests.UpdateReview(ctx, "mona", "app", 1, approved.GetID(), "LGTM")
	if err != nil || up.GetBody() != "LGTM" || up.GetState() != "APPROVED" {
		t.Fatalf("update: %v %+v", err, up)
	}

	// Delete: pending only.
	if _, _, err := w.mg.PullRequests.DeletePendingReview(ctx, "mona", "app", 1, approved.GetID()); apitest.Status(err) != 422 {
		t.Fatalf("delete a submitted review: %v", err)
	}
	p2, _, err := w.eg.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{Body: github.Ptr("draft"),
		Comments: []*github.DraftReviewComment{{Path: github.Ptr("a.txt"), Position: github.Ptr(11), Body: github.Ptr("new line")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.hg.PullRequests.DeletePendingReview(ctx, "mona", "app", 1, p2.GetID()); apitest.Status(err) != 404 {
		t.Fatalf("hubot deletes eve's pending review: %v", err)
	}
	del, _, err := w.eg.PullRequests.DeletePendingReview(ctx, "mona", "app", 1, p2.GetID())
	if err != nil || del.GetState() != "PENDING" || del.GetID() != p2.GetID() {
		t.Fatalf("delete pending: %v %+v", err, del)
	}
	if _, _, err := w.eg.PullRequests.GetReview(ctx, "mona", "app", 1, p2.GetID()); apitest.Status(err) != 404 {
		t.Fatalf("deleted review still there: %v", err)
	}

	// Pagination with Link.
	page, resp, err := w.anon.PullRequests.ListReviews(ctx, "mona", "app", 1, &github.ListOptions{PerPage: 2})
	if err != nil || len(page) != 2 || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("page 1: %v %d next=%d last=%d", err, len(page), resp.NextPage, resp.LastPage)
	}
	page2, _, err := w.anon.PullRequests.ListReviews(ctx, "mona", "app", 1, &github.ListOptions{PerPage: 2, Page: 2})
	if err != nil || len(page2) != 1 || page2[0].GetID() != approved.GetID() {
		t.Fatalf("page 2: %v %+v", err, page2)
	}
	got := []string{}
	for _, v := range append(page, page2...) {
		got = append(got, v.GetState())
	}
	if strings.Join(got, ",") != "DISMISSED,COMMENTED,APPROVED" {
		t.Fatalf("states %v", got)
	}
	if n := w.events(t, "pull_request_review."); n != 5 { // 3 submitted, 1 dismissed, 1 edited
		t.Fatalf("%d pull_request_review events, want 5", n)
	}
}

func TestReviewErrors(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name   string
		c      *github.Client
		number int
		req    github.PullRequestReviewRequest
		want   int
	}{
		{"anonymous", w.anon, 1, github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("x")}, 401},
		{"unknown pull", w.eg, 9, github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("x")}, 404},
		{"comment without body", w.eg, 1, github.PullRequestReviewRequest{Event: github.Ptr("COMMENT")}, 422},
		{"bad event", w.eg, 1, github.PullRequestReviewRequest{Event: github.Ptr("MERGE"), Body: github.Ptr("x")}, 422},
		{"unknown commit", w.eg, 1, github.PullRequestReviewRequest{Event: github.Ptr("APPROVE"), CommitID: github.Ptr(strings.Repeat("ab", 20))}, 422},
		{"line outside the diff", w.eg, 1, github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("x"),
			Comments: []*github.DraftReviewComment{{Path: github.Ptr("a.txt"), Line: github.Ptr(1), Body: github.Ptr("no")}}}, 422},
		{"path outside the diff", w.eg, 1, github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("x"),
			Comments: []*github.DraftReviewComment{{Path: github.Ptr("README.md"), Line: github.Ptr(1), Body: github.Ptr("no")}}}, 422},
		{"bad position", w.eg, 1, github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("x"),
			Comments: []*github.DraftReviewComment{{Path: github.Ptr("a.txt"), Position: github.Ptr(40), Body: github.Ptr("no")}}}, 422},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.c.PullRequests.CreateReview(ctx, "mona", "app", tc.number, &tc.req)
			if apitest.Status(err) != tc.want {
				t.Fatalf("status %d (%v), want %d", apitest.Status(err), err, tc.want)
			}
		})
	}
	if list, _, _ := w.mg.PullRequests.ListReviews(ctx, "mona", "app", 1, nil); len(list) != 0 {
		t.Fatalf("failed creates left %d reviews", len(list))
	}
	if n := w.events(t, "pull_request_review"); n != 0 {
		t.Fatalf("failed creates appended %d events", n)
	}

	// A locked pull request takes reviews and comments from writers only.
	if _, err := w.mg.Issues.Lock(ctx, "mona", "app", 1, nil); err != nil {
		t.Fatal(err)
	}
	comment := &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("x")}
	if _, _, err := w.eg.PullRequests.CreateReview(ctx, "mona", "app", 1, comment); apitest.Status(err) != http.StatusForbidden {
		t.Fatalf("locked, eve: %v", err)
	}
	if _, _, err := w.eg.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{Body: "x", CommitID: w.head, Path: "a.txt", Line: github.Ptr(5)}); apitest.Status(err) != http.StatusForbidden {
		t.Fatalf("locked comment, eve: %v", err)
	}
	if _, _, err := w.hg.PullRequests.CreateReview(ctx, "mona", "app", 1, comment); err != nil {
		t.Fatalf("locked, hubot (write): %v", err)
	}

	// A private repository hides its reviews from outsiders.
	if _, _, err := w.mg.Repositories.Edit(ctx, "mona", "app", &github.Repository{Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.eg.PullRequests.ListReviews(ctx, "mona", "app", 1, nil); apitest.Status(err) != 404 {
		t.Fatalf("private, eve lists: %v", err)
	}
	if _, _, err := w.eg.PullRequests.CreateReview(ctx, "mona", "app", 1, comment); apitest.Status(err) != 404 {
		t.Fatalf("private, eve reviews: %v", err)
	}
	if list, _, err := w.rg.PullRequests.ListReviews(ctx, "mona", "app", 1, nil); err != nil || len(list) != 1 {
		t.Fatalf("private, rita lists: %v %d", err, len(list))
	}

	// Archived repositories refuse reviews.
	if _, _, err := w.mg.Repositories.Edit(ctx, "mona", "app", &github.Repository{Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	_, _, err := w.mg.PullRequests.CreateReview(ctx, "mona", "app", 1, comment)
	if apitest.Status(err) != http.StatusForbidden {
		t.Fatalf("archived: %v", err)
	}
}

// A review whose comment has no place in the diff is refused whole, with
// GitHub's reason in errors[] (the review endpoints' Validation Error
// Simple), and nothing is stored.
func TestReviewCommentOutsideTheDiff(t *testing.T) {
	w := newWorld(t)
	var body map[string]any
	w.e.Must(422, "POST", "/repos/mona/app/pulls/1/reviews", w.eveT, map[string]any{"event": "COMMENT", "body": "see",
		"comments": []map[string]any{{"path": "a.txt", "line": 1, "body": "here"}}}).JSON(t, &body)
	errs, _ := body["errors"].([]any)
	if body["message"] != "Unprocessable Entity" || len(errs) != 1 || errs[0] != "Pull request review thread line must be part of the diff" {
		t.Fatalf("answer %v", body)
	}
	if list, _, _ := w.mg.PullRequests.ListReviews(ctx, "mona", "app", 1, nil); len(list) != 0 {
		t.Fatalf("%d reviews stored", len(list))
	}
}
