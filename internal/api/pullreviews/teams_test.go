package pullreviews_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// orgWorld: olga owns the organization octo and its public octo/app, and
// opened pull request #1 there. mia and max are members; zed is an
// outsider. Teams (olga maintains each, as their creator):
//   - core (closed, push on octo/app) with mia,
//   - child (closed, under core, no grant of its own),
//   - docs (closed, no grant),
//   - hidden (secret, push on octo/app) with max.
type orgWorld struct {
	e                    *apitest.Env
	olga, mia, max, zed  *github.Client
	anon                 *github.Client
	olgaT                string
	team                 map[string]*github.Team
	olgaID, miaID, maxID int64
}

func newOrgWorld(t *testing.T) *orgWorld {
	t.Helper()
	e := apitest.New(t)
	olga, olgaT := e.NewUser("olga", false)
	mia, miaT := e.NewUser("mia", false)
	max, maxT := e.NewUser("max", false)
	_, zedT := e.NewUser("zed", false)
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		for _, u := range []*model.Account{mia, max} {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w := &orgWorld{e: e, olga: e.GitHub(olgaT), mia: e.GitHub(miaT), max: e.GitHub(maxT), zed: e.GitHub(zedT), anon: e.GitHub(""),
		olgaT: olgaT, team: map[string]*github.Team{}, olgaID: olga.ID, miaID: mia.ID, maxID: max.ID}
	if _, _, err := w.olga.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	b, _, err := w.olga.Repositories.GetBranch(ctx, "octo", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.olga.Git.CreateRef(ctx, "octo", "app", github.CreateRef{Ref: "refs/heads/feature", SHA: b.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.olga.Repositories.CreateFile(ctx, "octo", "app", "a.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("add a"), Content: []byte("a\n"), Branch: github.Ptr("feature")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.olga.PullRequests.Create(ctx, "octo", "app", github.CreatePullRequest{Title: github.Ptr("Add a"), Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, privacy, parent, grant, member string
	}{
		{"core", "closed", "", "push", "mia"},
		{"child", "closed", "core", "", ""},
		{"docs", "closed", "", "", ""},
		{"hidden", "secret", "", "push", "max"},
	} {
		nt := github.CreateTeamRequest{Name: tc.name, Privacy: github.Ptr(tc.privacy)}
		if tc.parent != "" {
			nt.ParentTeamID = github.Ptr(w.team[tc.parent].GetID())
		}
		team, _, err := w.olga.Teams.CreateTeam(ctx, "octo", nt)
		if err != nil {
			t.Fatalf("team %s: %v", tc.name, err)
		}
		w.team[tc.name] = team
		if tc.grant != "" {
			if _, err := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", tc.name, "octo", "app", &github.TeamAddTeamRepoOptions{Permission: tc.grant}); err != nil {
				t.Fatalf("grant %s: %v", tc.name, err)
			}
		}
		if tc.member != "" {
			if _, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", tc.name, tc.member, member); err != nil {
				t.Fatalf("member %s of %s: %v", tc.member, tc.name, err)
			}
		}
	}
	e.RunJobs()
	return w
}

var member = &github.TeamAddTeamMembershipOptions{Role: "member"}

func slugs(list []*github.Team) []string {
	out := []string{}
	for _, t := range list {
		out = append(out, t.GetSlug())
	}
	return out
}

// TestTeamReviewRequests: teams of the repository's organization with
// access to it can be asked to review; they show in the requested
// reviewers, the pull request objects and the issue events (secret ones
// only to those who may see them); a review by a member answers the
// team's request; deleting a team drops its requests.
func TestTeamReviewRequests(t *testing.T) {
	w := newOrgWorld(t)
	notCollab := "Reviews may only be requested from collaborators. One or more of the teams you specified is not a collaborator of the octo/app repository."
	for _, tc := range []struct {
		name string
		c    *github.Client
		req  github.ReviewersRequest
		want int
		msg  string
	}{
		{"unknown team", w.olga, github.ReviewersRequest{TeamReviewers: []string{"nope"}}, 422, notCollab},
		{"team without access", w.olga, github.ReviewersRequest{TeamReviewers: []string{"docs"}}, 422, notCollab},
		{"secret team hidden from the requester", w.mia, github.ReviewersRequest{TeamReviewers: []string{"hidden"}}, 422, notCollab},
		{"a good user and a bad team", w.olga, github.ReviewersRequest{Reviewers: []string{"mia"}, TeamReviewers: []string{"core", "docs"}}, 422, notCollab},
		{"outsider asks", w.zed, github.ReviewersRequest{TeamReviewers: []string{"core"}}, 403, ""},
		{"anonymous", w.anon, github.ReviewersRequest{TeamReviewers: []string{"core"}}, 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.c.PullRequests.RequestReviewers(ctx, "octo", "app", 1, tc.req)
			if apitest.Status(err) != tc.want || (tc.msg != "" && message(err) != tc.msg) {
				t.Fatalf("got %d %q, want %d %q", apitest.Status(err), message(err), tc.want, tc.msg)
			}
		})
	}
	if r, _, err := w.olga.PullRequests.ListReviewers(ctx, "octo", "app", 1); err != nil || len(r.Users) != 0 || len(r.Teams) != 0 {
		t.Fatalf("after refusals: %v %+v", err, r)
	}

	// olga (an owner: she sees the secret team) asks three teams, one of
	// them twice and by another case, and a user.
	pr, resp, err := w.olga.PullRequests.RequestReviewers(ctx, "octo", "app", 1, github.ReviewersRequest{
		Reviewers: []string{"max"}, TeamReviewers: []string{"core", "Child", "hidden", "CORE"}})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("request: %v", err)
	}
	all := []string{"core", "child", "hidden"}
	if got := slugs(pr.RequestedTeams); !slices.Equal(got, all) || len(pr.RequestedReviewers) != 1 {
		t.Fatalf("requested_teams %v, reviewers %d", got, len(pr.RequestedReviewers))
	}
	if p := pr.RequestedTeams[1].GetParent(); p.GetSlug() != "core" || pr.RequestedTeams[0].GetHTMLURL() == "" {
		t.Fatalf("child team object: %+v", pr.RequestedTeams[1])
	}
	// Asking again changes nothing (no new events).
	if _, _, err := w.mia.PullRequests.RequestReviewers(ctx, "octo", "app", 1, github.ReviewersRequest{TeamReviewers: []string{"core"}}); err != nil {
		t.Fatal(err)
	}
	if n := reviewEvents(t, w.e, "issues.review_requested"); n != 4 {
		t.Fatalf("%d review_requested events, want 4", n)
	}

	// Who sees which teams: the secret one only its members and owners.
	visible := []string{"core", "child"}
	for _, tc := range []struct {
		name string
		c    *github.Client
		want []string
	}{{"owner", w.olga, all}, {"secret team member", w.max, all}, {"member", w.mia, visible}, {"outsider", w.zed, visible}, {"anonymous", w.anon, visible}} {
		r, _, err := tc.c.PullRequests.ListReviewers(ctx, "octo", "app", 1)
		if err != nil || !slices.Equal(slugs(r.Teams), tc.want) || len(r.Users) != 1 || r.Users[0].GetLogin() != "max" {
			t.Errorf("%s: list %v %v", tc.name, err, slugs(r.Teams))
		}
		p, _, err := tc.c.PullRequests.Get(ctx, "octo", "app", 1)
		if err != nil || !slices.Equal(slugs(p.RequestedTeams), tc.want) {
			t.Errorf("%s: get %v %v", tc.name, err, slugs(p.RequestedTeams))
		}
		list, _, err := tc.c.PullRequests.List(ctx, "octo", "app", nil)
		if err != nil || len(list) != 1 || !slices.Equal(slugs(list[0].RequestedTeams), tc.want) {
			t.Errorf("%s: list pulls %v", tc.name, err)
		}
	}

	// The issue events name the team and the requester.
	events, _, err := w.olga.Issues.ListIssueEvents(ctx, "octo", "app", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var teamEvents []*github.IssueEvent
	for _, e := range events {
		if e.GetEvent() == "review_requested" && e.RequestedReviewer == nil {
			teamEvents = append(teamEvents, e)
		}
	}
	if len(teamEvents) != 3 {
		t.Fatalf("%d team review_requested events, want 3", len(teamEvents))
	}
	for i, e := range teamEvents {
		if e.GetRequestedTeam().GetSlug() != all[i] || e.GetReviewRequester().GetLogin() != "olga" || e.GetActor().GetLogin() != "olga" {
			t.Fatalf("event %d: team %q requester %q", i, e.GetRequestedTeam().GetSlug(), e.GetReviewRequester().GetLogin())
		}
	}
	one, _, err := w.olga.Issues.GetEvent(ctx, "octo", "app", teamEvents[0].GetID())
	if err != nil || one.GetRequestedTeam().GetSlug() != "core" || one.GetIssue().GetNumber() != 1 {
		t.Fatalf("get event: %v", err)
	}
	repoEvents, _, err := w.anon.Issues.ListRepositoryEvents(ctx, "octo", "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	var anonTeams []string
	for _, e := range repoEvents {
		if e.GetEvent() == "review_requested" && e.RequestedReviewer == nil {
			anonTeams = append(anonTeams, e.GetRequestedTeam().GetSlug()) // "" for the secret team
		}
	}
	if !slices.Equal(anonTeams, []string{"core", "child", ""}) {
		t.Fatalf("anonymous repository events: teams %q", anonTeams)
	}
	timeline, _, err := w.max.Issues.ListIssueTimeline(ctx, "octo", "app", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tlTeams []string
	for _, e := range timeline {
		if e.GetEvent() == "review_requested" && e.RequestedTeam != nil {
			tlTeams = append(tlTeams, e.GetRequestedTeam().GetSlug())
		}
	}
	if !slices.Equal(tlTeams, all) {
		t.Fatalf("timeline teams %v", tlTeams)
	}

	// The author's own review answers none of her teams' requests; mia's
	// answers core's (she is a member) but not child's.
	if _, _, err := w.olga.PullRequests.CreateReview(ctx, "octo", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("note")}); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := w.olga.PullRequests.ListReviewers(ctx, "octo", "app", 1); !slices.Equal(slugs(r.Teams), all) {
		t.Fatalf("after the author's review: %v", slugs(r.Teams))
	}
	if _, _, err := w.mia.PullRequests.CreateReview(ctx, "octo", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := w.olga.PullRequests.ListReviewers(ctx, "octo", "app", 1); !slices.Equal(slugs(r.Teams), []string{"child", "hidden"}) {
		t.Fatalf("after mia's review: %v", slugs(r.Teams))
	}

	// Withdrawing: a team that is not asked (even one without access) is
	// no change; child's request goes with an event naming it.
	if resp, err := w.olga.PullRequests.RemoveReviewers(ctx, "octo", "app", 1, github.ReviewersRequest{TeamReviewers: []string{"docs"}}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("remove docs: %v", err)
	}
	if _, err := w.olga.PullRequests.RemoveReviewers(ctx, "octo", "app", 1, github.ReviewersRequest{TeamReviewers: []string{"nope"}}); apitest.Status(err) != 422 || message(err) != notCollab {
		t.Fatalf("remove unknown team: %d %q", apitest.Status(err), message(err))
	}
	if resp, err := w.mia.PullRequests.RemoveReviewers(ctx, "octo", "app", 1, github.ReviewersRequest{TeamReviewers: []string{"child"}}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("remove child: %v", err)
	}
	if n := reviewEvents(t, w.e, "issues.review_request_removed"); n != 1 {
		t.Fatalf("%d review_request_removed events, want 1", n)
	}
	events, _, err = w.mia.Issues.ListIssueEvents(ctx, "octo", "app", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	if last.GetEvent() != "review_request_removed" || last.GetRequestedTeam().GetSlug() != "child" || last.GetReviewRequester().GetLogin() != "mia" {
		t.Fatalf("last event %s team %q", last.GetEvent(), last.GetRequestedTeam().GetSlug())
	}
	if r, _, _ := w.max.PullRequests.ListReviewers(ctx, "octo", "app", 1); !slices.Equal(slugs(r.Teams), []string{"hidden"}) {
		t.Fatalf("after withdrawing child: %v", slugs(r.Teams))
	}

	// Deleting the team drops its request; its events stay, without the team.
	if _, err := w.olga.Teams.DeleteTeamBySlug(ctx, "octo", "hidden"); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := w.olga.PullRequests.ListReviewers(ctx, "octo", "app", 1); len(r.Teams) != 0 {
		t.Fatalf("after deleting hidden: %v", slugs(r.Teams))
	}
	events, _, err = w.olga.Issues.ListIssueEvents(ctx, "octo", "app", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.GetEvent() == "review_requested" && e.RequestedReviewer == nil && e.GetRequestedTeam().GetSlug() == "hidden" {
			t.Fatal("the deleted team still shows in its event")
		}
	}
}

// TestTeamReviewersOnUserRepo: a user's repository has no teams to ask.
func TestTeamReviewersOnUserRepo(t *testing.T) {
	w := newWorld(t)
	_, _, err := w.mg.PullRequests.RequestReviewers(ctx, "mona", "app", 1, github.ReviewersRequest{TeamReviewers: []string{"core"}})
	want := "Reviews may only be requested from collaborators. One or more of the teams you specified is not a collaborator of the mona/app repository."
	if apitest.Status(err) != 422 || message(err) != want {
		t.Fatalf("got %d %q", apitest.Status(err), message(err))
	}
	if r, _, err := w.mg.PullRequests.ListReviewers(ctx, "mona", "app", 1); err != nil || len(r.Teams) != 0 {
		t.Fatalf("list: %v %+v", err, r)
	}
}

// reviewEvents counts the domain events of a type prefix.
func reviewEvents(t *testing.T, e *apitest.Env, prefix string) int {
	t.Helper()
	w := &world{e: e}
	return w.events(t, prefix)
}
