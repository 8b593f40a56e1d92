package hooks_test

import (
	"errors"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestMoreEvents: labels, releases, stars, watching and repository edits
// reach a hook subscribed to them, each payload valid against GitHub's
// webhooks description.
func TestMoreEvents(t *testing.T) {
	f := newFixture(t)
	const secret = "more"
	f.hook(secret, "json", "label", "release", "star", "watch", "repository", "milestone", "commit_comment", "fork")
	f.recv.WaitFor(t, "ping", "")

	if _, _, err := f.gh.Issues.CreateLabel(ctx, "mona", "app", github.CreateIssueLabelRequest{Name: "urgent", Color: github.Ptr("ff0000")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "label", "created"), secret)
	if _, _, err := f.gh.Issues.UpdateLabel(ctx, "mona", "app", "urgent", github.UpdateIssueLabelRequest{Color: github.Ptr("00ff00")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "label", "edited"), secret)
	if _, err := f.gh.Issues.DeleteLabel(ctx, "mona", "app", "urgent"); err != nil {
		t.Fatal(err)
	}
	del := f.recv.WaitFor(t, "label", "deleted")
	f.check(del, secret)
	if l := del.Map(t)["label"].(map[string]any); l["name"] != "urgent" {
		t.Errorf("deleted label %v", l)
	}

	rel, _, err := f.gh.Repositories.CreateRelease(ctx, "mona", "app", github.CreateReleaseRequest{TagName: "v1.0.0", Name: github.Ptr("One")})
	if err != nil {
		t.Fatal(err)
	}
	pub := f.recv.WaitFor(t, "release", "published")
	f.check(pub, secret)
	if r := pub.Map(t)["release"].(map[string]any); r["id"] != float64(rel.GetID()) || r["tag_name"] != "v1.0.0" {
		t.Errorf("release %v", r)
	}
	f.check(f.recv.WaitFor(t, "release", "created"), secret)
	f.check(f.recv.WaitFor(t, "release", "released"), secret)

	_, fanTok := f.e.NewUser("fan", false)
	fan := f.e.GitHub(fanTok)
	if _, err := fan.Activity.Star(ctx, "mona", "app"); err != nil {
		t.Fatal(err)
	}
	star := f.recv.WaitFor(t, "star", "created")
	f.check(star, secret)
	if s := star.Map(t)["sender"].(map[string]any); s["login"] != "fan" {
		t.Errorf("star sender %v", s)
	}
	f.check(f.recv.WaitFor(t, "watch", "started"), secret)
	if _, err := fan.Activity.Unstar(ctx, "mona", "app"); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "star", "deleted"), secret)

	if _, _, err := f.gh.Repositories.Edit(ctx, "mona", "app", &github.Repository{Description: github.Ptr("An app")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "repository", "edited"), secret)
	if _, _, err := f.gh.Repositories.Edit(ctx, "mona", "app", &github.Repository{Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "repository", "archived"), secret)
	if _, _, err := f.gh.Repositories.Edit(ctx, "mona", "app", &github.Repository{Archived: github.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "repository", "unarchived"), secret)
	ms, _, err := f.gh.Issues.CreateMilestone(ctx, "mona", "app", github.CreateMilestoneRequest{Title: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "milestone", "created"), secret)
	if _, _, err := f.gh.Issues.UpdateMilestone(ctx, "mona", "app", ms.GetNumber(), github.UpdateMilestoneRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "milestone", "closed"), secret)

	br, _, err := f.gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Repositories.CreateComment(ctx, "mona", "app", br.GetCommit().GetSHA(), github.CreateCommitCommentRequest{Body: "Nice commit"}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "commit_comment", "created"), secret)

	if _, _, err := fan.Repositories.CreateFork(ctx, "mona", "app", nil); err != nil {
		var accepted *github.AcceptedError
		if !errors.As(err, &accepted) {
			t.Fatal(err)
		}
	}
	fork := f.recv.WaitFor(t, "fork", "")
	f.check(fork, secret)
	if fk := fork.Map(t)["forkee"].(map[string]any); fk["full_name"] != "fan/app" || fk["fork"] != true {
		t.Errorf("forkee %v %v", fk["full_name"], fk["fork"])
	}

	hookstest.Drain(t, f.e)
	for _, d := range f.recv.All() {
		f.check(d, secret)
	}
}
