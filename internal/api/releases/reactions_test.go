package releases_test

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
)

// Release reactions through go-github: readers react (a repeat answers the
// existing reaction), the release's reactions rollup counts them, users
// delete only their own, drafts take none from those who cannot see them.
func TestReleaseReactionsThroughGoGitHub(t *testing.T) {
	f := newFixture(t)
	rel := f.create(f.gh, github.CreateReleaseRequest{TagName: "v1.0.0"})
	if rel.Reactions != nil {
		t.Errorf("a release without reactions has a rollup: %+v", rel.Reactions)
	}
	hubot, _ := f.user("hubot", authz.None)
	re, resp, err := hubot.Reactions.CreateReleaseReaction(ctx, "mona", "app", rel.GetID(), "rocket")
	if err != nil || resp.StatusCode != http.StatusCreated || re.GetContent() != "rocket" || re.GetUser().GetLogin() != "hubot" {
		t.Fatalf("react: %+v %v", re, err)
	}
	again, resp, err := hubot.Reactions.CreateReleaseReaction(ctx, "mona", "app", rel.GetID(), "rocket")
	if err != nil || resp.StatusCode != http.StatusOK || again.GetID() != re.GetID() {
		t.Fatalf("the same reaction again: %+v %v", again, err)
	}
	if _, _, err := f.gh.Reactions.CreateReleaseReaction(ctx, "mona", "app", rel.GetID(), "heart"); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := f.gh.Reactions.CreateReleaseReaction(ctx, "mona", "app", rel.GetID(), "thumbs"); err == nil || resp.StatusCode != 422 {
		t.Fatalf("an unknown content: %v", err)
	}
	list, _, err := hubot.Reactions.ListReleaseReactions(ctx, "mona", "app", rel.GetID(), nil)
	if err != nil || len(list) != 2 || list[0].GetContent() != "rocket" || list[1].GetContent() != "heart" {
		t.Fatalf("list: %v %v", list, err)
	}
	only, _, err := hubot.Reactions.ListReleaseReactions(ctx, "mona", "app", rel.GetID(), &github.ListReactionOptions{Content: "heart"})
	if err != nil || len(only) != 1 {
		t.Fatalf("list hearts: %v %v", only, err)
	}
	got, _, err := f.gh.Repositories.GetRelease(ctx, "mona", "app", rel.GetID())
	if err != nil || got.Reactions == nil || got.Reactions.GetTotalCount() != 2 || got.Reactions.GetRocket() != 1 ||
		got.Reactions.GetHeart() != 1 || got.Reactions.GetURL() != f.e.API+"/repos/mona/app/releases/"+itoa(rel.GetID())+"/reactions" {
		t.Fatalf("the rollup: %+v %v", got.Reactions, err)
	}
	// Only one's own reactions are deleted.
	if resp, err := f.gh.Reactions.DeleteReleaseReaction(ctx, "mona", "app", rel.GetID(), re.GetID()); err == nil || resp.StatusCode != 403 && resp.StatusCode != 404 {
		t.Fatalf("mona deleted hubot's reaction: %v", err)
	}
	if _, err := hubot.Reactions.DeleteReleaseReaction(ctx, "mona", "app", rel.GetID(), re.GetID()); err != nil {
		t.Fatal(err)
	}
	if list, _, err := hubot.Reactions.ListReleaseReactions(ctx, "mona", "app", rel.GetID(), nil); err != nil || len(list) != 1 {
		t.Fatalf("after delete: %v %v", list, err)
	}
	// Anonymous callers read but do not react; a draft is hidden from
	// readers.
	anon := f.e.GitHub("")
	if _, resp, err := anon.Reactions.CreateReleaseReaction(ctx, "mona", "app", rel.GetID(), "eyes"); err == nil || resp.StatusCode != 401 {
		t.Fatalf("anonymous reaction: %v", err)
	}
	draft := f.create(f.gh, github.CreateReleaseRequest{TagName: "v2.0.0", Draft: github.Ptr(true)})
	if _, resp, err := hubot.Reactions.CreateReleaseReaction(ctx, "mona", "app", draft.GetID(), "eyes"); err == nil || resp.StatusCode != 404 {
		t.Fatalf("a reader reacted to a draft: %v", err)
	}
	if _, resp, err := hubot.Reactions.ListReleaseReactions(ctx, "mona", "app", 999999, nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("no such release: %v", err)
	}
	// The stargazer count (GitHub Enterprise Cloud).
	if _, err := hubot.Activity.Star(ctx, "mona", "app"); err != nil {
		t.Fatal(err)
	}
	var c struct{ Count int }
	f.e.Must(200, "GET", "/repos/mona/app/stargazers/count", "", nil).JSON(t, &c)
	if c.Count != 1 {
		t.Errorf("stargazers/count %d", c.Count)
	}
}
