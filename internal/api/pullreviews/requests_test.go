package pullreviews_test

import (
	"context"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pullreviews"
)

func logins(list []*github.User) []string {
	out := []string{}
	for _, u := range list {
		out = append(out, u.GetLogin())
	}
	return out
}

func TestRequestedReviewers(t *testing.T) {
	w := newWorld(t)
	notCollab := "Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the mona/app repository."
	cases := []struct {
		name string
		c    *github.Client
		req  github.ReviewersRequest
		want int
		msg  string
	}{
		{"outsider reviewer", w.mg, github.ReviewersRequest{Reviewers: []string{"eve"}}, 422, notCollab},
		{"unknown user", w.mg, github.ReviewersRequest{Reviewers: []string{"nobody"}}, 422, notCollab},
		{"author", w.mg, github.ReviewersRequest{Reviewers: []string{"hubot"}}, 422, "Review cannot be requested from pull request author."},
		{"team on a user's repository", w.mg, github.ReviewersRequest{TeamReviewers: []string{"core"}}, 422,
			"Reviews may only be requested from collaborators. One or more of the teams you specified is not a collaborator of the mona/app repository."},
		{"outsider asks", w.eg, github.ReviewersRequest{Reviewers: []string{"rita"}}, 403, ""},
		{"reader asks", w.rg, github.ReviewersRequest{Reviewers: []string{"mona"}}, 403, ""},
		{"anonymous", w.anon, github.ReviewersRequest{Reviewers: []string{"rita"}}, 401, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.c.PullRequests.RequestReviewers(ctx, "mona", "app", 1, tc.req)
			if apitest.Status(err) != tc.want || (tc.msg != "" && message(err) != tc.msg) {
				t.Fatalf("got %d %q, want %d %q", apitest.Status(err), message(err), tc.want, tc.msg)
			}
		})
	}
	if r, _, err := w.anon.PullRequests.ListReviewers(ctx, "mona", "app", 1); err != nil || len(r.Users) != 0 || len(r.Teams) != 0 {
		t.Fatalf("after refusals: %v %+v", err, r)
	}

	// The author (hubot) asks rita and mona.
	pr, resp, err := w.hg.PullRequests.RequestReviewers(ctx, "mona", "app", 1, github.ReviewersRequest{Reviewers: []string{"rita", "MONA"}})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("request: %v", err)
	}
	if got := logins(pr.RequestedReviewers); len(got) != 2 {
		t.Fatalf("requested_reviewers %v", got)
	}
	r, _, err := w.anon.PullRequests.ListReviewers(ctx, "mona", "app", 1)
	if err != nil || len(r.Users) != 2 || r.Users[0].GetLogin() != "rita" || r.Users[1].GetLogin() != "mona" || len(r.Teams) != 0 {
		t.Fatalf("list: %v %+v", err, r)
	}
	// Asking again changes nothing.
	if _, _, err := w.mg.PullRequests.RequestReviewers(ctx, "mona", "app", 1, github.ReviewersRequest{Reviewers: []string{"rita"}}); err != nil {
		t.Fatal(err)
	}
	// A review answers the request.
	if _, _, err := w.rg.PullRequests.CreateReview(ctx, "mona", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("seen")}); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := w.anon.PullRequests.ListReviewers(ctx, "mona", "app", 1); len(r.Users) != 1 || r.Users[0].GetLogin() != "mona" {
		t.Fatalf("after rita's review: %+v", r.Users)
	}
	// The lead's pull object embeds them (store.RequestedReviewers).
	m, err := w.e.Store.R().RequestedReviewers(ctx, []int64{pr.GetID(), 424242})
	if err != nil || len(m[pr.GetID()]) != 1 || m[pr.GetID()][0].Login != "mona" || len(m[424242]) != 0 {
		t.Fatalf("RequestedReviewers: %v %+v", err, m)
	}
	if resp, err := w.mg.PullRequests.RemoveReviewers(ctx, "mona", "app", 1, github.ReviewersRequest{Reviewers: []string{"mona"}}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("remove: %v", err)
	}
	if r, _, _ := w.anon.PullRequests.ListReviewers(ctx, "mona", "app", 1); len(r.Users) != 0 {
		t.Fatalf("after removal: %+v", r.Users)
	}
	if n, m := w.events(t, "issues.review_requested"), w.events(t, "issues.review_request_removed"); n != 2 || m != 1 {
		t.Fatalf("%d review_requested and %d review_request_removed events, want 2 and 1", n, m)
	}
	if _, _, err := w.anon.PullRequests.ListReviewers(ctx, "mona", "app", 7); apitest.Status(err) != 404 {
		t.Fatalf("unknown pull: %v", err)
	}
}

// TestHeadMoved: a push to the head keeps a comment on an untouched line
// (at its new number) and makes one on a changed line outdated.
func TestHeadMoved(t *testing.T) {
	w := newWorld(t)
	c11 := w.comment(t, w.eg, 11, "new line")
	c5 := w.comment(t, w.eg, 5, "changed line")
	reply, _, err := w.mg.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{Body: "+1",
		CommitID: w.head, Path: "a.txt", InReplyTo: github.Ptr(c11.GetID())})
	if err != nil {
		t.Fatal(err)
	}
	oldHead := w.head
	newHead := w.write(t, w.hg, "feature", "a.txt", "l0\nl1\nl2\nl3\nl4\nL5 again\nl6\nl7\nl8\nl9\nl10\nl11 new\n")
	w.e.RunJobs()
	repo, err := w.e.Store.R().RepoByID(ctx, w.repoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.e.Store.R().PullByNumber(ctx, w.repoID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.HeadSHA != newHead {
		t.Fatalf("pull head %s, want %s", p.HeadSHA, newHead)
	}
	svc := pullreviews.New(w.e.Store, w.e.Deps.Git)
	if err := svc.HeadMoved(context.Background(), repo.Repo, p); err != nil {
		t.Fatal(err)
	}
	// Twice changes nothing more.
	if err := svc.HeadMoved(context.Background(), repo.Repo, p); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id      int64
		line    int
		outdate bool
	}{{c11.GetID(), 12, false}, {reply.GetID(), 12, false}, {c5.GetID(), 0, true}} {
		got, _, err := w.anon.PullRequests.GetComment(ctx, "mona", "app", tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if tc.outdate {
			if got.Position != nil || got.Line != nil || got.GetCommitID() != oldHead || got.GetOriginalLine() != 5 || got.GetOriginalPosition() != 5 {
				t.Errorf("outdated comment: position %v line %v commit %s original %d/%d", got.Position, got.Line, got.GetCommitID(), got.GetOriginalLine(), got.GetOriginalPosition())
			}
			continue
		}
		if got.GetLine() != tc.line || got.GetCommitID() != newHead || got.GetOriginalLine() != 11 || got.GetOriginalCommitID() != oldHead || got.Position == nil {
			t.Errorf("moved comment %d: line %d position %v commit %s original line %d", tc.id, got.GetLine(), got.Position, got.GetCommitID(), got.GetOriginalLine())
		}
		// Its position is where line 12 now sits in the pull's diff
		// (@@ -1,10 +1,12 @@: +l0, l1..l4, -l5, +L5 again, l6..l10, +l11 new).
		if got.GetPosition() != 13 {
			t.Errorf("comment %d position %d, want 13", tc.id, got.GetPosition())
		}
	}
	// The review's comment list shows the outdated position as null.
	var list []map[string]any
	w.e.Must(200, "GET", "/repos/mona/app/pulls/1/reviews/"+itoa(c5.GetPullRequestReviewID())+"/comments", "", nil).JSON(t, &list)
	if len(list) != 1 || list[0]["position"] != nil {
		t.Fatalf("review comments: %+v", list)
	}
	// A comment made on the old head now lands where its line is at the
	// new head.
	late, _, err := w.eg.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{
		Body: "late", CommitID: oldHead, Path: "a.txt", Line: github.Ptr(11)})
	if err != nil || late.GetLine() != 12 || late.GetOriginalLine() != 11 || late.GetCommitID() != newHead ||
		late.GetOriginalCommitID() != oldHead || late.GetPosition() != 13 || late.GetOriginalPosition() != 11 {
		t.Fatalf("comment on the old head: %v line %d/%d position %d/%d commit %s", err, late.GetLine(), late.GetOriginalLine(),
			late.GetPosition(), late.GetOriginalPosition(), late.GetCommitID())
	}
	_ = model.ReviewPending
}
