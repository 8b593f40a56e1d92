package protection_test

import (
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
)

// gate runs MergeGate on pull request n for a caller with perm.
func (f *fixture) gate(t *testing.T, n int64, perm authz.Permission, states map[string]string) (string, string) {
	t.Helper()
	state, err := f.svc.MergeGate(ctx, f.repo(t), f.pull(t, n), perm, states)
	if err == nil {
		return state, ""
	}
	he, ok := err.(*model.HTTPError)
	if !ok || he.Status != 405 {
		t.Fatalf("refusal %v is not a 405", err)
	}
	return state, he.Message
}

func (f *fixture) review(t *testing.T, gh *github.Client, n int, event string) {
	t.Helper()
	if _, _, err := gh.PullRequests.CreateReview(ctx, "mona", "app", n, &github.PullRequestReviewRequest{
		Event: github.Ptr(event), Body: github.Ptr(event)}); err != nil {
		t.Fatalf("%s: %v", event, err)
	}
}

func TestMergeGate(t *testing.T) {
	f := newFixture(t)
	_, wendyTok := f.user(t, "wendy", authz.Write)
	_, walterTok := f.user(t, "walter", authz.Write)
	_, ritaTok := f.user(t, "rita", authz.Read)
	wendy, walter, rita := f.e.GitHub(wendyTok), f.e.GitHub(walterTok), f.e.GitHub(ritaTok)

	f.write(t, "feature", "a.txt")
	if _, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("gated"), Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	// Unprotected: clean, or unstable with a failing context; nobody refused.
	if st, msg := f.gate(t, 1, authz.Write, nil); st != protection.StateClean || msg != "" {
		t.Fatalf("unprotected: %s %q", st, msg)
	}
	if st, msg := f.gate(t, 1, authz.Write, map[string]string{"lint": "failure"}); st != protection.StateUnstable || msg != "" {
		t.Fatalf("unprotected, lint red: %s %q", st, msg)
	}

	_, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", &github.ProtectionRequest{
		RequiredStatusChecks:       &github.RequiredStatusChecks{Strict: true, Contexts: &[]string{"ci"}},
		RequiredPullRequestReviews: &github.PullRequestReviewsEnforcementRequest{DismissStaleReviews: true, RequiredApprovingReviewCount: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	green := map[string]string{"ci": "success"}
	for _, step := range []struct {
		name   string
		act    func()
		perm   authz.Permission
		states map[string]string
		state  string
		msg    string
	}{
		{"no review, no ci", nil, authz.Write, nil, "blocked", "At least 1 approving review is required by reviewers with write access."},
		{"admins bypass", nil, authz.Admin, nil, "blocked", ""},
		{"a reader's approval does not count", func() { f.review(t, rita, 1, "APPROVE") }, authz.Write, green, "blocked",
			"At least 1 approving review is required by reviewers with write access."},
		{"approved, ci missing", func() { f.review(t, wendy, 1, "APPROVE") }, authz.Write, nil, "blocked", `Required status check "ci" is expected.`},
		{"ci pending", nil, authz.Write, map[string]string{"ci": "pending"}, "blocked", `Required status check "ci" is expected.`},
		{"ci failing", nil, authz.Write, map[string]string{"ci": "failure"}, "blocked", `Required status check "ci" is failing.`},
		{"green", nil, authz.Write, green, "clean", ""},
		{"another context failing", nil, authz.Write, map[string]string{"ci": "success", "lint": "failure"}, "unstable", ""},
		{"a writer requests changes", func() { f.review(t, walter, 1, "REQUEST_CHANGES") }, authz.Write, green, "blocked", "Changes have been requested."},
		{"a comment decides nothing", func() { f.review(t, walter, 1, "COMMENT") }, authz.Write, green, "blocked", "Changes have been requested."},
		{"then approves", func() { f.review(t, walter, 1, "APPROVE") }, authz.Write, green, "clean", ""},
		{"base moves: behind", func() { f.write(t, "main", "b.txt") }, authz.Write, green, "behind", "Head branch is out of date. Review and try the merge again."},
		{"admins still bypass", nil, authz.Admin, green, "behind", ""},
		{"enforce_admins", func() {
			if _, _, err := f.gh.Repositories.AddAdminEnforcement(ctx, "mona", "app", "main"); err != nil {
				t.Fatal(err)
			}
		}, authz.Admin, green, "behind", "Head branch is out of date. Review and try the merge again."},
	} {
		if step.act != nil {
			step.act()
		}
		st, msg := f.gate(t, 1, step.perm, step.states)
		if st != step.state || msg != step.msg {
			t.Fatalf("%s: %s %q, want %s %q", step.name, st, msg, step.state, step.msg)
		}
	}

	// Two approvals needed: say how many.
	if _, _, err := f.gh.Repositories.UpdatePullRequestReviewEnforcement(ctx, "mona", "app", "main",
		&github.PullRequestReviewsEnforcementUpdate{RequiredApprovingReviewCount: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.gh.Repositories.RemoveAdminEnforcement(ctx, "mona", "app", "main"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Repositories.UpdateRequiredStatusChecks(ctx, "mona", "app", "main", &github.RequiredStatusChecksRequest{Strict: github.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if st, msg := f.gate(t, 1, authz.Write, green); st != "blocked" || msg != "At least 3 approving reviews are required by reviewers with write access." {
		t.Fatalf("three approvals: %s %q", st, msg)
	}
	// The state alone, for the background computation: no refusal.
	if st, err := f.svc.MergeState(ctx, f.repo(t), f.pull(t, 1), green); st != "blocked" || err != nil {
		t.Fatalf("merge state: %s %v", st, err)
	}
}

// Approvals made before the head moved are dismissed when the branch asks
// for it, and count no more; the merge code reads the contexts protection
// set.
func TestHeadMovedAndMerge(t *testing.T) {
	f := newFixture(t)
	_, wendyTok := f.user(t, "wendy", authz.Write)
	wendy := f.e.GitHub(wendyTok)
	f.write(t, "feature", "a.txt")
	if _, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("gated"), Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", &github.ProtectionRequest{
		RequiredStatusChecks:       &github.RequiredStatusChecks{Contexts: &[]string{"ci"}},
		RequiredPullRequestReviews: &github.PullRequestReviewsEnforcementRequest{DismissStaleReviews: false, RequiredApprovingReviewCount: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.review(t, wendy, 1, "APPROVE")

	// Off: a push keeps the approval.
	head := f.write(t, "feature", "b.txt")
	p := f.pull(t, 1)
	if p.HeadSHA != head {
		t.Fatalf("head %s, want %s", p.HeadSHA, head)
	}
	if err := f.svc.HeadMoved(ctx, f.repo(t), p); err != nil {
		t.Fatal(err)
	}
	if st, msg := f.gate(t, 1, authz.Write, map[string]string{"ci": "success"}); st != "clean" || msg != "" {
		t.Fatalf("approval kept: %s %q", st, msg)
	}

	// On: the next push dismisses it.
	if _, _, err := f.gh.Repositories.UpdatePullRequestReviewEnforcement(ctx, "mona", "app", "main",
		&github.PullRequestReviewsEnforcementUpdate{RequiredApprovingReviewCount: 1, DismissStaleReviews: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.HeadMoved(ctx, f.repo(t), f.pull(t, 1)); err != nil {
		t.Fatal(err)
	}
	reviews, _, err := f.gh.PullRequests.ListReviews(ctx, "mona", "app", 1, nil)
	if err != nil || len(reviews) != 1 || reviews[0].GetState() != "DISMISSED" {
		t.Fatalf("reviews: %+v %v", reviews, err)
	}
	// The timeline shows the dismissal.
	r := f.e.Must(200, "GET", "/repos/mona/app/issues/1/events", f.token, nil)
	if !strings.Contains(string(r.Body), `"review_dismissed"`) {
		t.Fatalf("events: %s", r.Body)
	}
	if st, msg := f.gate(t, 1, authz.Write, map[string]string{"ci": "success"}); st != "blocked" ||
		msg != "At least 1 approving review is required by reviewers with write access." {
		t.Fatalf("after dismissal: %s %q", st, msg)
	}
	// A new approval of the current head stays.
	f.review(t, wendy, 1, "APPROVE")
	if err := f.svc.HeadMoved(ctx, f.repo(t), f.pull(t, 1)); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.gate(t, 1, authz.Write, map[string]string{"ci": "success"}); st != "clean" {
		t.Fatalf("approved again: %s", st)
	}

	// The merge (today's code) requires the contexts protection set.
	_, _, err = wendy.PullRequests.Merge(ctx, "mona", "app", 1, "", nil)
	if code, msg := status(err); code != 405 || msg != `Required status check "ci" is expected.` {
		t.Fatalf("merge without ci: %d %q", code, msg)
	}
	if _, _, err := f.gh.Repositories.CreateStatus(ctx, "mona", "app", head, github.RepoStatus{State: github.Ptr("success"), Context: github.Ptr("ci")}); err != nil {
		t.Fatal(err)
	}
	f.e.RunJobs()
	if res, _, err := wendy.PullRequests.Merge(ctx, "mona", "app", 1, "", nil); err != nil || !res.GetMerged() {
		t.Fatalf("merge: %+v %v", res, err)
	}
}
