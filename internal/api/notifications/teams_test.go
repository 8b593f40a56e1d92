package notifications_test

import (
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// A review request to a team notifies its members (review_requested); a
// team @mention notifies them as team_mention; the requester gets none.
func TestTeamNotifications(t *testing.T) {
	e := apitest.New(t)
	olgaU, olgaT := e.NewUser("olga", false)
	mia, miaT := e.NewUser("mia", false)
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olgaU.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: mia.ID, Role: model.RoleMember, State: store.StateActive})
	})
	if err != nil {
		t.Fatal(err)
	}
	olga, miaC := e.GitHub(olgaT), e.GitHub(miaT)
	must[*github.Repository](t)(olga.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}))
	must[*github.Team](t)(olga.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "core", Privacy: github.Ptr("closed")}))
	if _, err := olga.Teams.AddTeamRepoBySlug(ctx, "octo", "core", "octo", "app", &github.TeamAddTeamRepoOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	must[*github.Membership](t)(olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "core", "mia", &github.TeamAddTeamMembershipOptions{Role: "member"}))
	e.RunJobs()
	b := must[*github.Branch](t)(olga.Repositories.GetBranch(ctx, "octo", "app", "main", 0))
	must[*github.Reference](t)(olga.Git.CreateRef(ctx, "octo", "app", github.CreateRef{Ref: "refs/heads/feature", SHA: b.GetCommit().GetSHA()}))
	must[*github.RepositoryContentResponse](t)(olga.Repositories.CreateFile(ctx, "octo", "app", "a.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("add a"), Content: []byte("a\n"), Branch: github.Ptr("feature")}))
	pr := must[*github.PullRequest](t)(olga.PullRequests.Create(ctx, "octo", "app", github.CreatePullRequest{Title: github.Ptr("Add a"), Head: "feature", Base: "main"}))
	sync(t, e)
	must[*github.PullRequest](t)(olga.PullRequests.RequestReviewers(ctx, "octo", "app", pr.GetNumber(), github.ReviewersRequest{TeamReviewers: []string{"core"}}))
	must[*github.Issue](t)(olga.Issues.Create(ctx, "octo", "app", github.CreateIssueRequest{Title: "docs", Body: github.Ptr("@octo/core please look (`@mia` in code is no mention)")}))
	sync(t, e)
	if got, want := inbox(t, miaC, nil), "app:Issue:docs:team_mention app:PullRequest:Add a:review_requested"; got != want {
		t.Fatalf("mia: %q, want %q", got, want)
	}
	for _, n := range must[[]*github.Notification](t)(miaC.Activity.ListNotifications(ctx, nil)) {
		if n.GetSubject().GetType() == "PullRequest" && n.GetSubject().GetURL() != e.API+"/repos/octo/app/pulls/1" {
			t.Errorf("pull request subject url %q", n.GetSubject().GetURL())
		}
	}
	if got := inbox(t, olga, nil); got != "" {
		t.Fatalf("olga: %q", got)
	}
	// Threads of a repository through ListRepositoryNotifications.
	list := must[[]*github.Notification](t)(miaC.Activity.ListRepositoryNotifications(ctx, "octo", "app", &github.NotificationListOptions{ListOptions: github.ListOptions{PerPage: 1}}))
	if len(list) != 1 || list[0].GetRepository().GetFullName() != "octo/app" {
		t.Fatalf("repository notifications: %v", list)
	}
	r := e.Must(200, "GET", "/repos/octo/app/notifications?per_page=1", miaT, nil)
	if r.Header.Get("Link") == "" {
		t.Error("no Link header on a first page of two")
	}
}
