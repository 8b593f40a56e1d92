package commitcomments_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-github/v92/github"
)

func TestReactions(t *testing.T) {
	w := newWorld(t)
	cc := w.comment(t, w.mg, "react to me")
	id := cc.GetID()

	// A reader reacts (201), and again with the same content (200, the same reaction).
	re, resp, err := w.rg.Reactions.CreateCommentReaction(ctx, "mona", "hello", id, "heart")
	if err != nil || resp.StatusCode != http.StatusCreated || re.GetContent() != "heart" || re.GetUser().GetLogin() != "rita" {
		t.Fatalf("create %+v %v", re, err)
	}
	again, resp, err := w.rg.Reactions.CreateCommentReaction(ctx, "mona", "hello", id, "heart")
	if err != nil || resp.StatusCode != http.StatusOK || again.GetID() != re.GetID() {
		t.Fatalf("again %+v %v", again, err)
	}
	if _, _, err := w.mg.Reactions.CreateCommentReaction(ctx, "mona", "hello", id, "+1"); err != nil {
		t.Fatal(err)
	}

	// The comment's rollup counts them.
	got, _, err := w.eg.Repositories.GetComment(ctx, "mona", "hello", id)
	if err != nil {
		t.Fatal(err)
	}
	if r := got.GetReactions(); r.GetTotalCount() != 2 || r.GetHeart() != 1 || r.GetPlusOne() != 1 {
		t.Fatalf("rollup %+v", r)
	}
	list, _, err := w.eg.Reactions.ListCommentReactions(ctx, "mona", "hello", id, &github.ListReactionOptions{Content: "heart"})
	if err != nil || len(list) != 1 || list[0].GetID() != re.GetID() {
		t.Fatalf("list heart %v %v", list, err)
	}
	list, _, err = w.eg.Reactions.ListCommentReactions(ctx, "mona", "hello", id, nil)
	if err != nil || len(list) != 2 {
		t.Fatalf("list %v %v", list, err)
	}

	// Refusals change nothing.
	base := "/repos/mona/hello/comments/" + strconv.FormatInt(id, 10) + "/reactions"
	rid := strconv.FormatInt(re.GetID(), 10)
	cases := []struct {
		name, method, path, token string
		body                      any
		want                      int
	}{
		{"another's reaction", "DELETE", base + "/" + rid, w.monaT, nil, 403},
		{"unknown content", "POST", base, w.ritaT, map[string]any{"content": "tada"}, 422},
		{"missing content", "POST", base, w.ritaT, map[string]any{}, 422},
		{"list unknown content", "GET", base + "?content=tada", "", nil, 422},
		{"unknown comment", "GET", "/repos/mona/hello/comments/999999/reactions", "", nil, 404},
		{"anonymous", "POST", base, "", map[string]any{"content": "eyes"}, 401},
		{"unknown reaction", "DELETE", base + "/999999", w.ritaT, nil, 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { w.e.Must(c.want, c.method, c.path, c.token, c.body) })
	}
	list, _, err = w.eg.Reactions.ListCommentReactions(ctx, "mona", "hello", id, nil)
	if err != nil || len(list) != 2 {
		t.Fatalf("after refusals %v %v", list, err)
	}

	// Users delete their own reactions; deleting the comment drops the rest.
	if _, err := w.rg.Reactions.DeleteCommentReaction(ctx, "mona", "hello", id, re.GetID()); err != nil {
		t.Fatal(err)
	}
	got, _, err = w.mg.Repositories.GetComment(ctx, "mona", "hello", id)
	if err != nil || got.GetReactions().GetTotalCount() != 1 || got.GetReactions().GetHeart() != 0 {
		t.Fatalf("after delete %+v %v", got.GetReactions(), err)
	}
	if _, err := w.mg.Repositories.DeleteComment(ctx, "mona", "hello", id); err != nil {
		t.Fatal(err)
	}
	n, _, err := w.e.Store.R().ListReactions(ctx, "commit_comment", id, "", 100, 0)
	if err != nil || len(n) != 0 {
		t.Fatalf("reactions left %v %v", n, err)
	}
}
