package protection_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// orgFixture: olga owns the organization octo and octo/app (branches main
// and feature); amy and wes are collaborators with write access; mia is a
// member of team core, which may push to octo/app.
type orgFixture struct {
	e                       *apitest.Env
	olga, amy, wes, mia     *github.Client
	olgaT, amyT, wesT, miaT string
	repoID                  int64
}

func newOrgFixture(t *testing.T) *orgFixture {
	t.Helper()
	e := apitest.New(t)
	olga, olgaT := e.NewUser("olga", false)
	amy, amyT := e.NewUser("amy", false)
	wes, wesT := e.NewUser("wes", false)
	mia, miaT := e.NewUser("mia", false)
	org := store.NewOrg("octo")
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: mia.ID, Role: model.RoleMember, State: store.StateActive})
	}); err != nil {
		t.Fatal(err)
	}
	f := &orgFixture{e: e, olga: e.GitHub(olgaT), amy: e.GitHub(amyT), wes: e.GitHub(wesT), mia: e.GitHub(miaT),
		olgaT: olgaT, amyT: amyT, wesT: wesT, miaT: miaT}
	repo, _, err := f.olga.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.repoID = repo.GetID()
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		for _, u := range []*model.Account{amy, wes} {
			if err := tx.SetCollaborator(ctx, f.repoID, u.ID, authz.Write); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.olga.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "core", Privacy: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "core", "octo", "app", &github.TeamAddTeamRepoOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "core", "mia", &github.TeamAddTeamMembershipOptions{Role: "member"}); err != nil {
		t.Fatal(err)
	}
	b, _, err := f.olga.Repositories.GetBranch(ctx, "octo", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.olga.Git.CreateRef(ctx, "octo", "app", github.CreateRef{Ref: "refs/heads/feature", SHA: b.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	e.RunJobs()
	return f
}

// write commits a file on a branch of octo/app as gh's user.
func (f *orgFixture) write(t *testing.T, gh *github.Client, branch, path, content string) {
	t.Helper()
	if _, _, err := gh.Repositories.CreateFile(ctx, "octo", "app", path, &github.RepositoryContentFileOptions{
		Message: github.Ptr("write " + path), Content: []byte(content), Branch: github.Ptr(branch)}); err != nil {
		t.Fatalf("write %s on %s: %v", path, branch, err)
	}
}

func TestCodeownersErrors(t *testing.T) {
	f := newOrgFixture(t)
	// No CODEOWNERS file: 404.
	if _, _, err := f.amy.Repositories.GetCodeownersErrors(ctx, "octo", "app", nil); err == nil {
		t.Fatal("errors without a CODEOWNERS file")
	} else if code, _ := status(err); code != http.StatusNotFound {
		t.Fatalf("without a file: %v", err)
	}
	// docs/CODEOWNERS is read when no earlier place has one; .github wins.
	f.write(t, f.olga, "main", "docs/CODEOWNERS", "* @nobody-here\n")
	f.write(t, f.olga, "main", ".github/CODEOWNERS",
		"# owners\n* @olga\n*.go @octo/core @ghost   wes@example.com\ndocs/ user\n!x @olga\n/ @olga\n\\#notes @wes\n")
	got, _, err := f.amy.Repositories.GetCodeownersErrors(ctx, "octo", "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		line, col  int
		kind, path string
		suggestion string
	}
	var rows []row
	for _, e := range got.Errors {
		rows = append(rows, row{e.Line, e.Column, e.Kind, e.Path, e.GetSuggestion()})
	}
	want := []row{
		{3, 17, "Unknown owner", ".github/CODEOWNERS", "make sure @ghost exists and has write access to the repository"},
		{3, 26, "Unknown owner", ".github/CODEOWNERS", "make sure wes@example.com exists and has write access to the repository"},
		{4, 7, "Invalid owner", ".github/CODEOWNERS", ""},
		{5, 1, "Invalid pattern", ".github/CODEOWNERS", "Negated patterns are not supported."},
		{6, 1, "Invalid pattern", ".github/CODEOWNERS", "The pattern `/` will never match anything, did you mean `*` instead?"},
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("errors %+v\nwant %+v", rows, want)
	}
	if m := got.Errors[2].Message; m != "Invalid owner on line 4:\n\n  docs/ user\n        ^" {
		t.Errorf("message %q", m)
	}
	if s := got.Errors[0].Source; s != "*.go @octo/core @ghost   wes@example.com" {
		t.Errorf("source %q", s)
	}
	// ref picks the version: feature has none.
	if _, _, err := f.amy.Repositories.GetCodeownersErrors(ctx, "octo", "app", &github.GetCodeownersErrorsOptions{Ref: "feature"}); err == nil {
		t.Fatal("feature has no CODEOWNERS")
	}
	// An outsider of a private repository sees nothing.
	_, outsiderT := f.e.NewUser("zed", false)
	if _, _, err := f.olga.Repositories.Edit(ctx, "octo", "app", &github.Repository{Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	f.e.Must(http.StatusNotFound, "GET", "/repos/octo/app/codeowners/errors", outsiderT, nil)
	f.e.Must(http.StatusOK, "GET", "/repos/octo/app/codeowners/errors?ref=main", f.amyT, nil)
}

// A pull request asks its code owners for review when it opens, and the
// merge waits for their approval when the branch requires it.
func TestCodeOwnerReviews(t *testing.T) {
	f := newOrgFixture(t)
	f.write(t, f.olga, "main", ".github/CODEOWNERS", "*.txt @wes @amy\n/src/ @octo/core\n/docs/ @ghost\n")
	_, _, err := f.olga.Repositories.UpdateBranchProtection(ctx, "octo", "app", "main", &github.ProtectionRequest{
		EnforceAdmins:              true,
		RequiredPullRequestReviews: &github.PullRequestReviewsEnforcementRequest{RequireCodeOwnerReviews: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := f.olga.Repositories.GetPullRequestReviewEnforcement(ctx, "octo", "app", "main")
	if err != nil || !got.RequireCodeOwnerReviews {
		t.Fatalf("review protection %+v %v", got, err)
	}
	// amy's branch changes a.txt (wes and amy own it), src/x.go (team
	// core) and docs/x.md (an unknown owner: not owned).
	f.e.Must(http.StatusCreated, "POST", "/repos/octo/app/git/refs", f.olgaT, map[string]any{"ref": "refs/heads/amy", "sha": f.mainSHA(t)})
	f.write(t, f.amy, "amy", "a.txt", "a\n")
	f.write(t, f.amy, "amy", "src/x.go", "package x\n")
	f.write(t, f.amy, "amy", "docs/x.md", "x\n")
	if _, _, err := f.amy.PullRequests.Create(ctx, "octo", "app", github.CreatePullRequest{Title: github.Ptr("owned"), Head: "amy", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	f.e.RunJobs()
	reviewers, _, err := f.amy.PullRequests.ListReviewers(ctx, "octo", "app", 1)
	if err != nil {
		t.Fatal(err)
	}
	var users, teams []string
	for _, u := range reviewers.Users {
		users = append(users, u.GetLogin())
	}
	for _, tm := range reviewers.Teams {
		teams = append(teams, tm.GetSlug())
	}
	if !slices.Equal(users, []string{"wes"}) || !slices.Equal(teams, []string{"core"}) {
		t.Fatalf("requested %v %v, want [wes] (not the author) and [core]", users, teams)
	}
	events, _, err := f.amy.Issues.ListIssueEvents(ctx, "octo", "app", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	requested := 0
	for _, ev := range events {
		if ev.GetEvent() == "review_requested" {
			requested++
			if ev.GetActor().GetLogin() != "amy" || ev.GetReviewRequester().GetLogin() != "amy" {
				t.Errorf("review_requested by %s/%s, want the author", ev.GetActor().GetLogin(), ev.GetReviewRequester().GetLogin())
			}
		}
	}
	if requested != 2 {
		t.Fatalf("%d review_requested events, want 2", requested)
	}

	merge := func(gh *github.Client) (int, string) {
		_, _, err := gh.PullRequests.Merge(ctx, "octo", "app", 1, "", nil)
		return status(err)
	}
	state := func() string {
		f.e.RunJobs()
		p, _, err := f.amy.PullRequests.Get(ctx, "octo", "app", 1)
		if err != nil {
			t.Fatal(err)
		}
		return p.GetMergeableState()
	}
	approve := func(gh *github.Client) {
		if _, _, err := gh.PullRequests.CreateReview(ctx, "octo", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("APPROVE")}); err != nil {
			t.Fatal(err)
		}
	}
	if code, msg := merge(f.amy); code != 405 || msg != "Waiting on code owner review from @wes, @amy, @octo/core." {
		t.Fatalf("no review: %d %q", code, msg)
	}
	if st := state(); st != "blocked" {
		t.Fatalf("mergeable_state %q", st)
	}
	approve(f.wes)
	if code, msg := merge(f.amy); code != 405 || msg != "Waiting on code owner review from @octo/core." {
		t.Fatalf("a.txt approved: %d %q", code, msg)
	}
	approve(f.mia) // a member of core
	if st := state(); st != "clean" {
		t.Fatalf("mergeable_state %q after the owners approved", st)
	}
	if code, msg := merge(f.amy); code != 200 {
		t.Fatalf("merge: %d %q", code, msg)
	}
}

func (f *orgFixture) mainSHA(t *testing.T) string {
	t.Helper()
	b, _, err := f.olga.Repositories.GetBranch(ctx, "octo", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	return b.GetCommit().GetSHA()
}

// A ruleset's pull_request rule may ask for code owners too.
func TestRulesetCodeOwnerReview(t *testing.T) {
	f := newOrgFixture(t)
	f.write(t, f.olga, "main", "CODEOWNERS", "* @wes\n")
	f.write(t, f.amy, "feature", "b.txt", "b\n")
	f.e.Must(http.StatusCreated, "POST", "/repos/octo/app/rulesets", f.olgaT, map[string]any{
		"name": "owners", "enforcement": "active",
		"conditions": map[string]any{"ref_name": map[string]any{"include": []string{"~DEFAULT_BRANCH"}, "exclude": []string{}}},
		"rules": []any{map[string]any{"type": "pull_request", "parameters": map[string]any{"required_approving_review_count": 0,
			"dismiss_stale_reviews_on_push": false, "require_code_owner_review": true, "require_last_push_approval": false,
			"required_review_thread_resolution": false}}}})
	if _, _, err := f.amy.PullRequests.Create(ctx, "octo", "app", github.CreatePullRequest{Title: github.Ptr("b"), Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	f.e.RunJobs()
	if _, _, err := f.amy.PullRequests.Merge(ctx, "octo", "app", 1, "", nil); err == nil {
		t.Fatal("merged without the code owner")
	} else if code, msg := status(err); code != 405 || msg != "Waiting on code owner review from @wes." {
		t.Fatalf("%d %q", code, msg)
	}
	if _, _, err := f.wes.PullRequests.CreateReview(ctx, "octo", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.amy.PullRequests.Merge(ctx, "octo", "app", 1, "", nil); err != nil {
		t.Fatal(err)
	}
}

// push runs git push of a new commit to branch as login and answers
// git's output and whether it was refused.
func (f *orgFixture) push(t *testing.T, login, token, branch string) (string, bool) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "w")
	apitest.MustGit(t, filepath.Dir(dir), "clone", "-q", f.e.Remote("octo", "app", login, token), "w")
	apitest.MustGit(t, dir, "checkout", "-q", "-B", branch, "origin/"+branch)
	if err := os.WriteFile(filepath.Join(dir, login+".txt"), []byte(login+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	apitest.MustGit(t, dir, "add", ".")
	apitest.MustGit(t, dir, "commit", "-q", "-m", "by "+login)
	out, err := apitest.Git(t, dir, "push", "origin", "HEAD:refs/heads/"+branch)
	return out, err != nil
}

func TestPushRestrictions(t *testing.T) {
	f := newOrgFixture(t)
	gh := f.olga
	// Not enabled: 404 to read, 422 to change.
	if _, _, err := gh.Repositories.UpdateBranchProtection(ctx, "octo", "app", "main", &github.ProtectionRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.ListUserRestrictions(ctx, "octo", "app", "main"); err == nil {
		t.Fatal("restrictions read while off")
	} else if code, msg := status(err); code != 404 || msg != "Push restrictions not enabled" {
		t.Fatalf("%d %q", code, msg)
	}
	if _, _, err := gh.Repositories.AddUserRestrictions(ctx, "octo", "app", "main", []string{"wes"}); err == nil {
		t.Fatal("restrictions changed while off")
	} else if code, _ := status(err); code != 422 {
		t.Fatalf("%v", err)
	}

	_, _, err := gh.Repositories.UpdateBranchProtection(ctx, "octo", "app", "main", &github.ProtectionRequest{
		Restrictions: &github.BranchRestrictionsRequest{Users: []string{"wes"}, Teams: []string{}, Apps: []string{}}})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := gh.Repositories.GetBranchProtection(ctx, "octo", "app", "main")
	if err != nil {
		t.Fatal(err)
	}
	if r := p.GetRestrictions(); r == nil || len(r.Users) != 1 || r.Users[0].GetLogin() != "wes" {
		t.Fatalf("restrictions %+v", r)
	}
	users, _, err := gh.Repositories.AddUserRestrictions(ctx, "octo", "app", "main", []string{"amy"})
	if err != nil || len(users) != 2 {
		t.Fatalf("add amy: %v %v", users, err)
	}
	if users, _, err = gh.Repositories.RemoveUserRestrictions(ctx, "octo", "app", "main", []string{"amy"}); err != nil || len(users) != 1 {
		t.Fatalf("remove amy: %v %v", users, err)
	}
	if _, _, err := gh.Repositories.AddUserRestrictions(ctx, "octo", "app", "main", []string{"zed-unknown"}); err == nil {
		t.Fatal("an unknown user was added")
	}
	// The web flow's object body works as well as go-github's array.
	f.e.Must(http.StatusOK, "POST", "/repos/octo/app/branches/main/protection/restrictions/teams", f.olgaT, map[string]any{"teams": []string{}})
	if teams, _, err := gh.Repositories.ListTeamRestrictions(ctx, "octo", "app", "main"); err != nil || len(teams) != 0 {
		t.Fatalf("teams %v %v", teams, err)
	}
	if apps, _, err := gh.Repositories.ListAppRestrictions(ctx, "octo", "app", "main"); err != nil || len(apps) != 0 {
		t.Fatalf("apps %v %v", apps, err)
	}
	// Every sub-resource of the three lists, as go-github calls them.
	if users, _, err := gh.Repositories.ListUserRestrictions(ctx, "octo", "app", "main"); err != nil || len(users) != 1 || users[0].GetLogin() != "wes" {
		t.Fatalf("users %v %v", users, err)
	}
	if users, _, err := gh.Repositories.ReplaceUserRestrictions(ctx, "octo", "app", "main", []string{"amy"}); err != nil || len(users) != 1 || users[0].GetLogin() != "amy" {
		t.Fatalf("replace users: %v %v", users, err)
	}
	if users, _, err := gh.Repositories.ReplaceUserRestrictions(ctx, "octo", "app", "main", []string{"wes"}); err != nil || len(users) != 1 || users[0].GetLogin() != "wes" {
		t.Fatalf("replace users back: %v %v", users, err)
	}
	for _, step := range []struct {
		name string
		call func() (int, error)
	}{
		{"replace teams", func() (int, error) {
			l, _, err := gh.Repositories.ReplaceTeamRestrictions(ctx, "octo", "app", "main", []string{})
			return len(l), err
		}},
		{"remove teams", func() (int, error) {
			l, _, err := gh.Repositories.RemoveTeamRestrictions(ctx, "octo", "app", "main", []string{})
			return len(l), err
		}},
		{"add apps", func() (int, error) {
			l, _, err := gh.Repositories.AddAppRestrictions(ctx, "octo", "app", "main", []string{})
			return len(l), err
		}},
		{"replace apps", func() (int, error) {
			l, _, err := gh.Repositories.ReplaceAppRestrictions(ctx, "octo", "app", "main", []string{})
			return len(l), err
		}},
		{"remove apps", func() (int, error) {
			l, _, err := gh.Repositories.RemoveAppRestrictions(ctx, "octo", "app", "main", []string{})
			return len(l), err
		}},
	} {
		if n, err := step.call(); err != nil || n != 0 {
			t.Fatalf("%s: %d %v", step.name, n, err)
		}
	}
	// Only admins change them.
	if _, _, err := f.wes.Repositories.ListUserRestrictions(ctx, "octo", "app", "main"); err == nil {
		t.Fatal("a writer read the restrictions")
	} else if code, _ := status(err); code != 403 {
		t.Fatalf("%v", err)
	}

	// amy may not push to main, anywhere else yes; wes and olga (an admin,
	// enforce_admins off) may.
	out, refused := f.push(t, "amy", f.amyT, "main")
	if !refused || !strings.Contains(out, "GH006: Protected branch update failed for refs/heads/main.") ||
		!strings.Contains(out, "You're not authorized to push to this branch.") || !strings.Contains(out, "protected branch hook declined") {
		t.Fatalf("amy's push to main: refused %v\n%s", refused, out)
	}
	if out, refused := f.push(t, "amy", f.amyT, "feature"); refused {
		t.Fatalf("amy's push to feature refused:\n%s", out)
	}
	// The same through the contents and git refs APIs.
	if _, _, err := f.amy.Repositories.CreateFile(ctx, "octo", "app", "api.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("api"), Content: []byte("x\n"), Branch: github.Ptr("main")}); err == nil {
		t.Fatal("amy committed to main through the contents API")
	} else if code, msg := status(err); code != 409 || !strings.Contains(msg, "Protected branch update failed for refs/heads/main.") {
		t.Fatalf("contents: %d %q", code, msg)
	}
	feature, _, err := f.amy.Git.GetRef(ctx, "octo", "app", "refs/heads/feature")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.amy.Git.UpdateRef(ctx, "octo", "app", "refs/heads/main", github.UpdateRef{SHA: feature.GetObject().GetSHA(), Force: github.Ptr(true)}); err == nil {
		t.Fatal("amy moved main through the git refs API")
	} else if code, msg := status(err); code != 422 || !strings.Contains(msg, "Protected branch update failed for refs/heads/main.") {
		t.Fatalf("refs: %d %q", code, msg)
	}
	if out, refused := f.push(t, "wes", f.wesT, "main"); refused {
		t.Fatalf("wes's push refused:\n%s", out)
	}
	if out, refused := f.push(t, "olga", f.olgaT, "main"); refused {
		t.Fatalf("the admin's push refused:\n%s", out)
	}
	if out, refused := f.push(t, "mia", f.miaT, "main"); !refused {
		t.Fatalf("mia's push taken:\n%s", out)
	}
	// Through the team: mia pushes.
	if teams, _, err := gh.Repositories.AddTeamRestrictions(ctx, "octo", "app", "main", []string{"core"}); err != nil || len(teams) != 1 {
		t.Fatalf("add core: %v %v", teams, err)
	}
	if out, refused := f.push(t, "mia", f.miaT, "main"); refused {
		t.Fatalf("mia's push refused:\n%s", out)
	}
	// A merge by amy is refused as well.
	f.e.RunJobs()
	if _, _, err := f.amy.PullRequests.Create(ctx, "octo", "app", github.CreatePullRequest{Title: github.Ptr("f"), Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	f.e.RunJobs()
	if _, _, err := f.amy.PullRequests.Merge(ctx, "octo", "app", 1, "", nil); err == nil {
		t.Fatal("amy merged into a restricted branch")
	} else if code, msg := status(err); code != 405 || !strings.HasPrefix(msg, "You're not authorized to push to this branch.") {
		t.Fatalf("%d %q", code, msg)
	}
	// Without restrictions amy pushes.
	// (go-github has no method for these two.)
	f.e.Must(http.StatusOK, "GET", "/repos/octo/app/branches/main/protection/restrictions", f.olgaT, nil)
	f.e.Must(http.StatusNoContent, "DELETE", "/repos/octo/app/branches/main/protection/restrictions", f.olgaT, nil)
	f.e.Must(http.StatusNotFound, "GET", "/repos/octo/app/branches/main/protection/restrictions", f.olgaT, nil)
	if out, refused := f.push(t, "amy", f.amyT, "main"); refused {
		t.Fatalf("amy's push refused without restrictions:\n%s", out)
	}
}

// Restrictions belong to organizations' repositories.
func TestRestrictionsOnUserRepository(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", &github.ProtectionRequest{}); err != nil {
		t.Fatal(err)
	}
	r := f.e.Do("POST", protectionPath("app", "main")+"/restrictions/users", f.token, map[string]any{"users": []string{"mona"}})
	if r.StatusCode != 422 || !strings.Contains(string(r.Body), "Only organization repositories can have users and team restrictions") {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
}

// Dismissal restrictions name who may dismiss reviews; bypass allowances
// who may merge without the reviews.
func TestDismissalAndBypass(t *testing.T) {
	f := newOrgFixture(t)
	f.write(t, f.amy, "feature", "c.txt", "c\n")
	_, _, err := f.olga.Repositories.UpdateBranchProtection(ctx, "octo", "app", "main", &github.ProtectionRequest{
		EnforceAdmins: true,
		RequiredPullRequestReviews: &github.PullRequestReviewsEnforcementRequest{RequiredApprovingReviewCount: 2,
			DismissalRestrictionsRequest:       &github.DismissalRestrictionsRequest{Users: &[]string{"wes"}, Teams: &[]string{}},
			BypassPullRequestAllowancesRequest: &github.BypassPullRequestAllowancesRequest{Users: []string{"amy"}, Teams: []string{}, Apps: []string{}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := f.olga.Repositories.GetPullRequestReviewEnforcement(ctx, "octo", "app", "main")
	if err != nil {
		t.Fatal(err)
	}
	if d := got.DismissalRestrictions; d == nil || len(d.Users) != 1 || d.Users[0].GetLogin() != "wes" {
		t.Fatalf("dismissal restrictions %+v", d)
	}
	if b := got.BypassPullRequestAllowances; b == nil || len(b.Users) != 1 || b.Users[0].GetLogin() != "amy" {
		t.Fatalf("bypass %+v", b)
	}
	if _, _, err := f.amy.PullRequests.Create(ctx, "octo", "app", github.CreatePullRequest{Title: github.Ptr("c"), Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	f.e.RunJobs()
	review, _, err := f.mia.PullRequests.CreateReview(ctx, "octo", "app", 1, &github.PullRequestReviewRequest{Event: github.Ptr("REQUEST_CHANGES"), Body: github.Ptr("no")})
	if err != nil {
		t.Fatal(err)
	}
	dismiss := github.PullRequestDismissReviewRequest{Message: "stale"}
	if _, _, err := f.amy.PullRequests.DismissReview(ctx, "octo", "app", 1, review.GetID(), dismiss); err == nil {
		t.Fatal("amy dismissed a review")
	} else if code, _ := status(err); code != 403 {
		t.Fatalf("%v", err)
	}
	if _, _, err := f.wes.PullRequests.DismissReview(ctx, "octo", "app", 1, review.GetID(), dismiss); err != nil {
		t.Fatal(err)
	}
	// wes may not merge without two approvals; amy may (bypass), though
	// the pull request shows blocked.
	if _, _, err := f.wes.PullRequests.Merge(ctx, "octo", "app", 1, "", nil); err == nil {
		t.Fatal("wes merged without approvals")
	}
	f.e.RunJobs()
	if p, _, err := f.amy.PullRequests.Get(ctx, "octo", "app", 1); err != nil || p.GetMergeableState() != "blocked" {
		t.Fatalf("state %q %v", p.GetMergeableState(), err)
	}
	if _, _, err := f.amy.PullRequests.Merge(ctx, "octo", "app", 1, "", nil); err != nil {
		t.Fatalf("amy's bypass: %v", err)
	}
}

// A draft asks nobody; marked ready for review (GraphQL), it asks its
// code owners.
func TestCodeOwnersOnReady(t *testing.T) {
	f := newOrgFixture(t)
	f.write(t, f.olga, "main", "CODEOWNERS", "* @wes\n")
	f.write(t, f.amy, "feature", "d.txt", "d\n")
	pr, _, err := f.amy.PullRequests.Create(ctx, "octo", "app", github.CreatePullRequest{Title: github.Ptr("d"), Head: "feature", Base: "main", Draft: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.e.RunJobs()
	requested := func() int {
		t.Helper()
		r, _, err := f.amy.PullRequests.ListReviewers(ctx, "octo", "app", 1)
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Users) + len(r.Teams)
	}
	if n := requested(); n != 0 {
		t.Fatalf("a draft asked %d reviewers", n)
	}
	r := f.e.Do("POST", "/graphql", f.amyT, map[string]any{
		"query":     `mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`,
		"variables": map[string]any{"id": pr.GetNodeID()}})
	if r.StatusCode != 200 || strings.Contains(string(r.Body), `"errors"`) {
		t.Fatalf("ready: %d %s", r.StatusCode, r.Body)
	}
	f.e.RunJobs()
	if n := requested(); n != 1 {
		t.Fatalf("ready: %d reviewers asked, want wes", n)
	}
}
