package search_test

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// Reviews, review requests of people and teams, commit states, commit
// SHAs and dependencies.
func TestSearchPullRequestsReviewsAndStatus(t *testing.T) {
	w := newWorld(t)
	const fix = "Fix the crash"
	b, _, err := w.gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/fix", SHA: b.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	c, _, err := w.gh.Repositories.CreateFile(ctx, "mona", "app", "fix.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("fix"), Content: []byte("fixed\n"), Branch: github.Ptr("fix")})
	if err != nil {
		t.Fatal(err)
	}
	head := c.GetSHA()
	pr, _, err := w.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr(fix), Head: "fix", Base: "main", Body: github.Ptr("Fixes it")})
	if err != nil {
		t.Fatal(err)
	}
	q := func(s string) []string { return issues(t, w.gh, "repo:mona/app "+s, nil) }

	want(t, "review:none", q("is:open is:pr review:none"), speed, fix)
	want(t, "head SHA", q(head[:10]), fix)
	want(t, "full SHA", q(head), fix)
	want(t, "status before any", q("status:success"))

	// hubot approves: reviewed-by and review:approved.
	if _, _, err := w.hubotGH.PullRequests.CreateReview(ctx, "mona", "app", pr.GetNumber(), &github.PullRequestReviewRequest{
		Event: github.Ptr("APPROVE"), Body: github.Ptr("ok")}); err != nil {
		t.Fatal(err)
	}
	want(t, "reviewed-by", q("reviewed-by:hubot"), fix)
	want(t, "approved", q("review:approved"), fix)
	want(t, "changes", q("review:changes_requested"))
	want(t, "-review:none", q("is:pr -review:none"), fix)
	// Then asks for changes: the newest review decides.
	if _, _, err := w.hubotGH.PullRequests.CreateReview(ctx, "mona", "app", pr.GetNumber(), &github.PullRequestReviewRequest{
		Event: github.Ptr("REQUEST_CHANGES"), Body: github.Ptr("wait")}); err != nil {
		t.Fatal(err)
	}
	want(t, "changes after", q("review:changes_requested"), fix)
	want(t, "approved after", q("review:approved"))
	// Protection asking for reviews: neither pull request is approved.
	if _, _, err := w.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", &github.ProtectionRequest{
		RequiredPullRequestReviews: &github.PullRequestReviewsEnforcementRequest{RequiredApprovingReviewCount: 1}}); err != nil {
		t.Fatal(err)
	}
	want(t, "required", q("review:required"), speed, fix)

	// Commit states of the head: statuses, newest per context.
	status := func(state, context string) {
		t.Helper()
		if _, _, err := w.gh.Repositories.CreateStatus(ctx, "mona", "app", head, github.RepoStatus{State: github.Ptr(state), Context: github.Ptr(context)}); err != nil {
			t.Fatal(err)
		}
	}
	status("pending", "ci")
	want(t, "pending", q("status:pending"), fix)
	want(t, "success while pending", q("status:success"))
	status("success", "ci")
	want(t, "success", q("status:success"), fix)
	want(t, "pending after", q("status:pending"))
	status("error", "lint")
	want(t, "failure", q("status:failure"), fix)
	want(t, "success after failure", q("status:success"))

	// Team review requests reach the team's members.
	if _, _, err := w.e.GitHub(w.e.AdminToken).Admin.CreateOrg(ctx, &github.Organization{Login: github.Ptr("acme")}, "mona"); err != nil {
		t.Fatal(err)
	}
	team, _, err := w.gh.Teams.CreateTeam(ctx, "acme", github.CreateTeamRequest{Name: "Reviewers", Privacy: github.Ptr("closed")})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = w.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("lib"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.gh.Teams.AddTeamRepoBySlug(ctx, "acme", "reviewers", "acme", "lib", &github.TeamAddTeamRepoOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	octo, _ := w.e.NewUser("octo", false)
	if _, _, err := w.gh.Organizations.EditOrgMembership(ctx, "octo", "acme", &github.Membership{Role: github.Ptr("member")}); err != nil {
		t.Fatal(err)
	}
	octoTok := w.e.Token(octo, apitest.AllScopes)
	if _, _, err := w.e.GitHub(octoTok).Organizations.EditOrgMembership(ctx, "", "acme", &github.Membership{State: github.Ptr("active")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.gh.Teams.AddTeamMembershipBySlug(ctx, "acme", "reviewers", "octo", &github.TeamAddTeamMembershipOptions{}); err != nil {
		t.Fatal(err)
	}
	lb, _, err := w.gh.Repositories.GetBranch(ctx, "acme", "lib", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.gh.Git.CreateRef(ctx, "acme", "lib", github.CreateRef{Ref: "refs/heads/docs", SHA: lb.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.gh.Repositories.CreateFile(ctx, "acme", "lib", "docs.md", &github.RepositoryContentFileOptions{
		Message: github.Ptr("docs"), Content: []byte("docs\n"), Branch: github.Ptr("docs")}); err != nil {
		t.Fatal(err)
	}
	docs, _, err := w.gh.PullRequests.Create(ctx, "acme", "lib", github.CreatePullRequest{Title: github.Ptr("Docs"), Head: "docs", Base: "main", Body: github.Ptr("More docs")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.gh.PullRequests.RequestReviewers(ctx, "acme", "lib", docs.GetNumber(), github.ReviewersRequest{TeamReviewers: []string{team.GetSlug()}}); err != nil {
		t.Fatal(err)
	}
	want(t, "team-review-requested", issues(t, w.gh, "team-review-requested:acme/reviewers", nil), "Docs")
	want(t, "review-requested through the team", issues(t, w.gh, "org:acme review-requested:octo", nil), "Docs")
	want(t, "user-review-requested leaves teams out", issues(t, w.gh, "org:acme user-review-requested:octo", nil))
	refused(t, w.e, apitest.Query("/search/issues", "q", "team-review-requested:acme/nobody"), w.monaTok,
		"The listed users cannot be searched either because the users do not exist or you do not have permission to view the users.")

	// Dependencies: is:blocked and is:blocking.
	all, _, err := w.gh.Search.Issues(ctx, "repo:mona/app in:title startup", nil)
	if err != nil || len(all.Issues) != 1 {
		t.Fatalf("startup: %v", err)
	}
	w.e.Must(http.StatusCreated, "POST", "/repos/mona/app/issues/2/dependencies/blocked_by", w.monaTok, map[string]any{"issue_id": all.Issues[0].GetID()})
	want(t, "is:blocked", q("is:blocked"), dark)
	want(t, "is:blocking", q("is:blocking"), crash)

	// A GitHub App acting for a user must choose issues or pull requests.
	var ghu string
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		ghu, _, err = tx.CreateToken(ctx, w.mona.ID, authz.UserToServer, nil, "app", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	refused(t, w.e, apitest.Query("/search/issues", "q", "repo:mona/app crash"), ghu, "Query must include 'is:issue' or 'is:pull-request'")
	w.e.Must(http.StatusOK, "GET", apitest.Query("/search/issues", "q", "repo:mona/app crash is:issue"), ghu, nil)
	w.e.Must(http.StatusOK, "GET", apitest.Query("/search/issues", "q", "repo:mona/app type:pr"), ghu, nil)
}
