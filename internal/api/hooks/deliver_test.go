package hooks_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestRepoHookDeliveries drives a repository through issues, comments,
// labels, a git push and a pull request's life, and checks that a hook
// subscribed to everything receives each event, signed, with GitHub's
// headers and a payload valid against GitHub's webhooks description.
func TestRepoHookDeliveries(t *testing.T) {
	f := newFixture(t)
	const secret = "It's a Secret to Everybody"
	h := f.hook(secret, "json", "*")

	ping := f.recv.WaitFor(t, "ping", "")
	f.check(ping, secret)
	for k, want := range map[string]string{
		"X-GitHub-Hook-ID": itoa(h.GetID()), "X-GitHub-Hook-Installation-Target-Type": "repository",
		"X-GitHub-Hook-Installation-Target-ID": itoa(f.repoID), "Content-Type": "application/json",
		"X-GitHub-Enterprise-Version": "3.19.0",
	} {
		if got := ping.Header.Get(k); got != want {
			t.Errorf("ping %s = %q, want %q", k, got, want)
		}
	}
	if ua := ping.Header.Get("User-Agent"); !strings.HasPrefix(ua, "GitHub-Hookshot/") {
		t.Errorf("User-Agent %q", ua)
	}
	if len(ping.Header.Get("X-GitHub-Delivery")) != 36 {
		t.Errorf("X-GitHub-Delivery %q is not a GUID", ping.Header.Get("X-GitHub-Delivery"))
	}
	if m := ping.Map(t); m["hook_id"] != float64(h.GetID()) || m["zen"] == "" {
		t.Errorf("ping payload %v", m)
	}

	// Issues: opened, edited (title and body), labeled, unlabeled,
	// assigned, closed, reopened; a comment created and edited.
	is, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "Found a bug", Body: github.Ptr("It crashes")})
	if err != nil {
		t.Fatal(err)
	}
	n := is.GetNumber()
	f.check(f.recv.WaitFor(t, "issues", "opened"), secret)
	if _, _, err := f.gh.Issues.Update(ctx, "mona", "app", n, github.UpdateIssueRequest{Title: github.Ptr("Found a bad bug")}); err != nil {
		t.Fatal(err)
	}
	edited := f.recv.WaitFor(t, "issues", "edited")
	f.check(edited, secret)
	if ch := edited.Map(t)["changes"].(map[string]any); ch["title"].(map[string]any)["from"] != "Found a bug" {
		t.Errorf("edited changes %v", ch)
	}
	if _, _, err := f.gh.Issues.AddLabelsToIssue(ctx, "mona", "app", n, []string{"bug"}); err != nil {
		t.Fatal(err)
	}
	lab := f.recv.WaitFor(t, "issues", "labeled")
	f.check(lab, secret)
	if l := lab.Map(t)["label"].(map[string]any); l["name"] != "bug" {
		t.Errorf("labeled label %v", l)
	}
	if _, _, err := f.gh.Issues.CreateLabel(ctx, "mona", "app", github.CreateIssueLabelRequest{Name: "triage", Color: github.Ptr("ededed")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "label", "created"), secret)
	if _, err := f.gh.Issues.RemoveLabelForIssue(ctx, "mona", "app", n, "bug"); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "issues", "unlabeled"), secret)
	if _, _, err := f.gh.Issues.AddAssignees(ctx, "mona", "app", n, []string{"mona"}); err != nil {
		t.Fatal(err)
	}
	as := f.recv.WaitFor(t, "issues", "assigned")
	f.check(as, secret)
	if a := as.Map(t)["assignee"].(map[string]any); a["login"] != "mona" {
		t.Errorf("assigned assignee %v", a)
	}
	c, _, err := f.gh.Issues.CreateComment(ctx, "mona", "app", n, github.IssueCommentRequest{Body: "Me too"})
	if err != nil {
		t.Fatal(err)
	}
	cc := f.recv.WaitFor(t, "issue_comment", "created")
	f.check(cc, secret)
	if got := cc.Map(t)["comment"].(map[string]any)["id"]; got != float64(c.GetID()) {
		t.Errorf("comment id %v, want %d", got, c.GetID())
	}
	if _, _, err := f.gh.Issues.UpdateComment(ctx, "mona", "app", c.GetID(), github.IssueCommentRequest{Body: "Me three"}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "issue_comment", "edited"), secret)
	if _, _, err := f.gh.Issues.Update(ctx, "mona", "app", n, github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "issues", "closed"), secret)
	if _, _, err := f.gh.Issues.Update(ctx, "mona", "app", n, github.UpdateIssueRequest{State: github.Ptr("open")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "issues", "reopened"), secret)

	// A real git push of a new branch: push and create.
	dir := f.clone()
	git(t, dir, "checkout", "-q", "-b", "feature")
	commit(t, dir, "a.txt", "a\n", "Add a")
	commit(t, dir, "b.txt", "b\n", "Add b")
	git(t, dir, "push", "-q", "origin", "feature")
	push := f.recv.Wait(t, "push of feature", func(d *hookstest.Delivery) bool {
		return d.Event() == "push" && d.Map(t)["ref"] == "refs/heads/feature"
	})
	f.check(push, secret)
	pm := push.Map(t)
	if commits := pm["commits"].([]any); len(commits) != 2 || commits[0].(map[string]any)["message"] != "Add a" {
		t.Errorf("push commits %v", commits)
	} else if added := commits[1].(map[string]any)["added"].([]any); len(added) != 1 || added[0] != "b.txt" {
		t.Errorf("second commit added %v", added)
	}
	if pm["created"] != true || pm["head_commit"] == nil {
		t.Errorf("push created %v head_commit %v", pm["created"], pm["head_commit"])
	}
	cr := f.recv.WaitFor(t, "create", "")
	f.check(cr, secret)
	if m := cr.Map(t); m["ref"] != "feature" || m["ref_type"] != "branch" {
		t.Errorf("create payload ref %v %v", m["ref"], m["ref_type"])
	}

	// A pull request: opened, edited, synchronize, closed, reopened,
	// review_requested, a review submitted.
	pr, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("Feature"), Head: "feature", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "pull_request", "opened"), secret)
	if _, _, err := f.gh.PullRequests.Edit(ctx, "mona", "app", pr.GetNumber(), &github.PullRequest{Title: github.Ptr("Feature!")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "pull_request", "edited"), secret)
	commit(t, dir, "c.txt", "c\n", "Add c")
	git(t, dir, "push", "-q", "origin", "feature")
	f.check(f.recv.WaitFor(t, "pull_request", "synchronize"), secret)
	_, bobTok := f.e.NewUser("bob", false)
	if _, _, err := f.gh.Repositories.AddCollaborator(ctx, "mona", "app", "bob", &github.RepositoryAddCollaboratorOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	bob := f.e.GitHub(bobTok)
	invs, _, err := bob.Users.ListInvitations(ctx, nil)
	if err != nil || len(invs) != 1 {
		t.Fatalf("bob's invitations: %v %v", invs, err)
	}
	if _, err := bob.Users.AcceptInvitation(ctx, invs[0].GetID()); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "member", "added"), secret)
	if _, _, err := f.gh.PullRequests.RequestReviewers(ctx, "mona", "app", pr.GetNumber(), github.ReviewersRequest{Reviewers: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	rr := f.recv.WaitFor(t, "pull_request", "review_requested")
	f.check(rr, secret)
	if u := rr.Map(t)["requested_reviewer"].(map[string]any); u["login"] != "bob" {
		t.Errorf("requested_reviewer %v", u)
	}
	if _, _, err := bob.PullRequests.CreateReview(ctx, "mona", "app", pr.GetNumber(), &github.PullRequestReviewRequest{Body: github.Ptr("Looks good"), Event: github.Ptr("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	rv := f.recv.WaitFor(t, "pull_request_review", "submitted")
	f.check(rv, secret)
	if st := rv.Map(t)["review"].(map[string]any)["state"]; st != "approved" {
		t.Errorf("review state %v", st)
	}
	head, _, err := f.gh.PullRequests.Get(ctx, "mona", "app", pr.GetNumber())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bob.PullRequests.CreateComment(ctx, "mona", "app", pr.GetNumber(), github.CreatePullRequestCommentRequest{
		Body: "Why c?", CommitID: head.GetHead().GetSHA(), Path: "c.txt", Line: github.Ptr(1), Side: github.Ptr("RIGHT")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "pull_request_review_comment", "created"), secret)
	if _, _, err := f.gh.PullRequests.Edit(ctx, "mona", "app", pr.GetNumber(), &github.PullRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "pull_request", "closed"), secret)
	if _, _, err := f.gh.PullRequests.Edit(ctx, "mona", "app", pr.GetNumber(), &github.PullRequest{State: github.Ptr("open")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "pull_request", "reopened"), secret)

	// Deleting the branch: push (deleted) and delete.
	git(t, dir, "push", "-q", "origin", ":feature")
	del := f.recv.WaitFor(t, "delete", "")
	f.check(del, secret)
	gone := f.recv.Wait(t, "push deleting feature", func(d *hookstest.Delivery) bool {
		return d.Event() == "push" && d.Map(t)["deleted"] == true
	})
	f.check(gone, secret)

	// Every delivery so far validates, and each has its own GUID.
	seen := map[string]bool{}
	for _, d := range f.recv.All() {
		f.check(d, secret)
		g := d.Header.Get("X-GitHub-Delivery")
		if seen[g] {
			t.Errorf("GUID %s delivered twice", g)
		}
		seen[g] = true
	}
	hookstest.Drain(t, f.e)
	if resp := f.e.Must(http.StatusOK, "GET", "/repos/mona/app/hooks/"+itoa(h.GetID()), f.token, nil); !strings.Contains(string(resp.Body), `"status":"active"`) {
		t.Errorf("last_response after deliveries: %s", resp.Body)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
