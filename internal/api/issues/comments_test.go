package issues_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/server"
)

// side sends requests to the operations whose paths overlap others (the
// server ranks their literal segments first) and checks each response
// against GitHub's description once more, with the route the server matched.
type side struct {
	t   *testing.T
	srv *server.Server
	url string
}

func newSide(t *testing.T, w *world) *side {
	return &side{t: t, srv: w.e.Server, url: w.e.API}
}

func (s *side) do(want int, method, path, token string, body any) map[string]any {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	req.Header.Set("Authorization", "token "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		s.t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, data)
	}
	probe, _ := http.NewRequest(method, path, nil)
	rt, params, ok := s.srv.Match(probe)
	if !ok {
		s.t.Fatalf("%s %s: no route", method, path)
	}
	sp, err := apitest.LoadSpecs()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := sp.Validate(probe, rt.Pattern, params, resp.StatusCode, resp.Header, data); err != nil {
		s.t.Fatalf("schema: %s %s: %v\n%s", method, path, err, data)
	}
	if len(data) == 0 {
		return nil
	}
	var out map[string]any
	if data[0] == '{' {
		json.Unmarshal(data, &out)
	} else {
		var list []map[string]any
		json.Unmarshal(data, &list)
		out = map[string]any{"list": list}
	}
	return out
}

func TestComments(t *testing.T) {
	w := newWorld(t)
	sd := newSide(t, w)
	clock := time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)
	w.e.Store.SetClock(func() time.Time { return clock })
	w.issue(t, "one")
	w.issue(t, "two")
	c1, resp, err := w.hg.Issues.CreateComment(ctx, "mona", "hello", 1, github.IssueCommentRequest{Body: "First! cc @tina"})
	if err != nil || resp.StatusCode != 201 {
		t.Fatal(err)
	}
	if c1.GetUser().GetLogin() != "hubot" || c1.GetAuthorAssociation() != "COLLABORATOR" || c1.GetIssueURL() != w.e.API+"/repos/mona/hello/issues/1" ||
		c1.GetHTMLURL() != w.e.URL+"/mona/hello/issues/1#issuecomment-"+itoa(c1.GetID()) || c1.GetBody() != "First! cc @tina" {
		t.Fatalf("comment %+v", c1)
	}
	clock = clock.Add(time.Minute)
	c2, _, err := w.rg.Issues.CreateComment(ctx, "mona", "hello", 1, github.IssueCommentRequest{Body: "second"})
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Minute)
	c3, _, err := w.mg.Issues.CreateComment(ctx, "mona", "hello", 2, github.IssueCommentRequest{Body: "on two"})
	if err != nil {
		t.Fatal(err)
	}
	is, _, _ := w.rg.Issues.Get(ctx, "mona", "hello", 1)
	if is.GetComments() != 2 || !is.GetUpdatedAt().Time.Equal(clock.Add(-time.Minute)) {
		t.Fatalf("issue after comments: %d %v", is.GetComments(), is.GetUpdatedAt())
	}
	// Mentions in comments count for the mentioned filter.
	list, _, _ := w.rg.Issues.ListByRepo(ctx, "mona", "hello", &github.IssueListByRepoOptions{Mentioned: "tina"})
	if len(list) != 1 || list[0].GetNumber() != 1 {
		t.Fatalf("mentioned %v", numbers(list))
	}
	ids := func(list []*github.IssueComment) []int64 {
		out := []int64{}
		for _, c := range list {
			out = append(out, c.GetID())
		}
		return out
	}
	got, _, err := w.rg.Issues.ListComments(ctx, "mona", "hello", 1, nil)
	if err != nil || len(got) != 2 || got[0].GetID() != c1.GetID() {
		t.Fatalf("issue comments %v %v", ids(got), err)
	}
	// Editing the first makes it the most recently updated.
	clock = clock.Add(time.Minute)
	upd, _, err := w.hg.Issues.UpdateComment(ctx, "mona", "hello", c1.GetID(), github.IssueCommentRequest{Body: "First, edited"})
	if err != nil || upd.GetBody() != "First, edited" || !upd.GetUpdatedAt().Time.Equal(clock) {
		t.Fatalf("edit %+v %v", upd, err)
	}
	got, _, _ = w.rg.Issues.ListComments(ctx, "mona", "hello", 0, nil)
	if len(got) != 3 || got[0].GetID() != c1.GetID() || got[2].GetID() != c3.GetID() {
		t.Fatalf("repo comments %v", ids(got))
	}
	got, _, _ = w.rg.Issues.ListComments(ctx, "mona", "hello", 0, &github.IssueListCommentsOptions{Sort: github.Ptr("updated"), Direction: github.Ptr("desc")})
	if len(got) != 3 || got[0].GetID() != c1.GetID() || got[1].GetID() != c3.GetID() {
		t.Fatalf("by update %v", ids(got))
	}
	since := clock.Add(-30 * time.Second)
	got, _, _ = w.rg.Issues.ListComments(ctx, "mona", "hello", 0, &github.IssueListCommentsOptions{Since: &since})
	if len(got) != 1 || got[0].GetID() != c1.GetID() {
		t.Fatalf("since %v", ids(got))
	}
	// Only authors and writers edit; readers may not edit others' comments.
	if _, _, err := w.rg.Issues.UpdateComment(ctx, "mona", "hello", c1.GetID(), github.IssueCommentRequest{Body: "hijack"}); apitest.Status(err) != 403 {
		t.Fatalf("reader edits: %v", err)
	}
	if _, _, err := w.mg.Issues.UpdateComment(ctx, "mona", "hello", c2.GetID(), github.IssueCommentRequest{Body: "moderated"}); err != nil {
		t.Fatal(err)
	}
	w.e.Must(422, "POST", "/repos/mona/hello/issues/1/comments", w.ritaT, map[string]any{})
	w.e.Must(422, "PATCH", "/repos/mona/hello/issues/comments/"+itoa(c1.GetID()), w.hubotT, map[string]any{"body": ""})
	w.e.Must(401, "POST", "/repos/mona/hello/issues/1/comments", "", map[string]any{"body": "anon"})
	w.e.Must(404, "POST", "/repos/mona/secret/issues/1/comments", w.eveT, map[string]any{"body": "x"})
	// Bodies in every media type.
	m := w.e.Must(200, "GET", "/repos/mona/hello/issues/1/comments", w.ritaT, nil, "Accept: application/vnd.github.full+json")
	var full []map[string]any
	m.JSON(t, &full)
	if full[0]["body_html"] != "<p>First, edited</p>\n" || full[0]["body_text"] != "First, edited" || full[0]["body"] != "First, edited" {
		t.Fatalf("full %v", full[0])
	}

	// Pinning: write access; one pinned comment per issue.
	if _, err := w.tg.Do(mustReq(t, w.tg, "PUT", "repos/mona/hello/issues/comments/"+itoa(c1.GetID())+"/pin"), nil); apitest.Status(err) != 403 {
		t.Fatalf("triage pins: %v", err)
	}
	p := w.e.Must(200, "PUT", "/repos/mona/hello/issues/comments/"+itoa(c1.GetID())+"/pin", w.hubotT, nil).Map(t)
	pin, _ := p["pin"].(map[string]any)
	if pin == nil || pin["pinned_by"].(map[string]any)["login"] != "hubot" {
		t.Fatalf("pin %v", p["pin"])
	}
	im := w.e.Must(200, "GET", "/repos/mona/hello/issues/1", w.ritaT, nil).Map(t)
	if pc, _ := im["pinned_comment"].(map[string]any); pc == nil || pc["id"] != float64(c1.GetID()) {
		t.Fatalf("pinned_comment %v", im["pinned_comment"])
	}
	w.e.Must(200, "PUT", "/repos/mona/hello/issues/comments/"+itoa(c2.GetID())+"/pin", w.hubotT, nil)
	// GET of one comment is served by the side server (Overlapping).
	sideFirst := sd.do(200, "GET", "/repos/mona/hello/issues/comments/"+itoa(c1.GetID()), w.ritaT, nil)
	if sideFirst["pin"] != nil {
		t.Fatalf("first still pinned: %v", sideFirst["pin"])
	}
	sd.do(204, "DELETE", "/repos/mona/hello/issues/comments/"+itoa(c2.GetID())+"/pin", w.hubotT, nil)
	im = w.e.Must(200, "GET", "/repos/mona/hello/issues/1", w.ritaT, nil).Map(t)
	if im["pinned_comment"] != nil {
		t.Fatalf("after unpin: %v", im["pinned_comment"])
	}
	// Deleting: authors and writers; the count follows.
	sd.do(403, "DELETE", "/repos/mona/hello/issues/comments/"+itoa(c1.GetID()), w.ritaT, nil)
	sd.do(204, "DELETE", "/repos/mona/hello/issues/comments/"+itoa(c2.GetID()), w.ritaT, nil)
	sd.do(204, "DELETE", "/repos/mona/hello/issues/comments/"+itoa(c1.GetID()), w.monaT, nil)
	sd.do(404, "GET", "/repos/mona/hello/issues/comments/"+itoa(c1.GetID()), w.ritaT, nil)
	is, _, _ = w.rg.Issues.Get(ctx, "mona", "hello", 1)
	if is.GetComments() != 0 {
		t.Fatalf("comments after delete %d", is.GetComments())
	}
	// Comments of another repository are not found through this one.
	w.e.Must(404, "PATCH", "/repos/mona/secret/issues/comments/"+itoa(c3.GetID()), w.monaT, map[string]any{"body": "x"})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func mustReq(t *testing.T, c *github.Client, method, path string) *http.Request {
	t.Helper()
	req, err := c.NewRequest(ctx, method, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestReactions(t *testing.T) {
	w := newWorld(t)
	sd := newSide(t, w)
	w.issue(t, "one")
	r1, resp, err := w.rg.Reactions.CreateIssueReaction(ctx, "mona", "hello", 1, "heart")
	if err != nil || resp.StatusCode != 201 || r1.GetContent() != "heart" || r1.GetUser().GetLogin() != "rita" {
		t.Fatalf("create %+v %v", r1, err)
	}
	again, resp, err := w.rg.Reactions.CreateIssueReaction(ctx, "mona", "hello", 1, "heart")
	if err != nil || resp.StatusCode != 200 || again.GetID() != r1.GetID() {
		t.Fatalf("again %+v %d %v", again, resp.StatusCode, err)
	}
	if _, _, err := w.eg.Reactions.CreateIssueReaction(ctx, "mona", "hello", 1, "+1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.Reactions.CreateIssueReaction(ctx, "mona", "hello", 1, "+1"); err != nil {
		t.Fatal(err)
	}
	is, _, _ := w.rg.Issues.Get(ctx, "mona", "hello", 1)
	if rx := is.GetReactions(); rx.GetTotalCount() != 3 || rx.GetPlusOne() != 2 || rx.GetHeart() != 1 || rx.GetURL() != w.e.API+"/repos/mona/hello/issues/1/reactions" {
		t.Fatalf("rollup %+v", rx)
	}
	list, _, err := w.rg.Reactions.ListIssueReactions(ctx, "mona", "hello", 1, &github.ListReactionOptions{Content: "+1"})
	if err != nil || len(list) != 2 {
		t.Fatalf("list +1: %d %v", len(list), err)
	}
	w.e.Must(422, "POST", "/repos/mona/hello/issues/1/reactions", w.ritaT, map[string]any{"content": "love"})
	w.e.Must(422, "POST", "/repos/mona/hello/issues/1/reactions", w.ritaT, map[string]any{})
	// Users delete their own reactions only.
	if _, err := w.eg.Reactions.DeleteIssueReaction(ctx, "mona", "hello", 1, r1.GetID()); apitest.Status(err) != 403 {
		t.Fatalf("other's reaction: %v", err)
	}
	if _, err := w.rg.Reactions.DeleteIssueReaction(ctx, "mona", "hello", 1, r1.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.rg.Reactions.DeleteIssueReaction(ctx, "mona", "hello", 1, r1.GetID()); apitest.Status(err) != 404 {
		t.Fatalf("twice: %v", err)
	}

	c, _, _ := w.hg.Issues.CreateComment(ctx, "mona", "hello", 1, github.IssueCommentRequest{Body: "hi"})
	cr, resp, err := w.mg.Reactions.CreateIssueCommentReaction(ctx, "mona", "hello", c.GetID(), "rocket")
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("comment reaction %v", err)
	}
	got := w.e.Must(200, "GET", "/repos/mona/hello/issues/1/comments", w.ritaT, nil)
	var comments []map[string]any
	got.JSON(t, &comments)
	if rx := comments[0]["reactions"].(map[string]any); rx["rocket"] != float64(1) || rx["total_count"] != float64(1) {
		t.Fatalf("comment rollup %v", rx)
	}
	out := sd.do(200, "GET", "/repos/mona/hello/issues/comments/"+itoa(c.GetID())+"/reactions?content=rocket", w.ritaT, nil)
	if l := out["list"].([]map[string]any); len(l) != 1 || l[0]["content"] != "rocket" {
		t.Fatalf("side list %v", out)
	}
	if _, err := w.mg.Reactions.DeleteIssueCommentReaction(ctx, "mona", "hello", c.GetID(), cr.GetID()); err != nil {
		t.Fatal(err)
	}
	// A reaction id of another subject is not found there.
	w.e.Must(404, "DELETE", "/repos/mona/hello/issues/1/reactions/"+itoa(cr.GetID()), w.monaT, nil)
	w.e.Must(404, "GET", "/repos/mona/secret/issues/1/reactions", w.eveT, nil)
}
