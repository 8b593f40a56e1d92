package notifications_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// TestMain doubles as `hubd actions-worker` for the tests that run workflows.
func TestMain(m *testing.M) { apitest.MainWithActionsWorker(m) }

// An edit that adds a mention notifies the newly mentioned user only; a
// commit comment makes a Commit thread; a failed workflow run notifies
// the user who triggered it (ci_activity) and no watcher.
func TestEditsCommitsAndCI(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{exe}})
	_, olgaT := e.NewUser("olga", false)
	_, miaT := e.NewUser("mia", false)
	_, kimT := e.NewUser("kim", false)
	olga, mia, kim := e.GitHub(olgaT), e.GitHub(miaT), e.GitHub(kimT)
	must[*github.Repository](t)(olga.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}))
	is := must[*github.Issue](t)(olga.Issues.Create(ctx, "olga", "app", github.CreateIssueRequest{Title: "plan", Body: github.Ptr("hello @kim")}))
	sync(t, e)
	if got := inbox(t, mia, nil); got != "" {
		t.Fatalf("mia before the edit: %q", got)
	}
	// kim was mentioned already: marking the thread read, an edit that
	// keeps the mention and adds mia's notifies mia alone.
	if _, err := kim.Activity.MarkNotificationsRead(ctx, github.Timestamp{Time: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	e.RunJobs()
	must[*github.Issue](t)(olga.Issues.Update(ctx, "olga", "app", is.GetNumber(), github.UpdateIssueRequest{Body: github.Ptr("hello @kim and @mia")}))
	sync(t, e)
	if got, want := inbox(t, mia, nil), "app:Issue:plan:mention"; got != want {
		t.Fatalf("mia after the edit: %q, want %q", got, want)
	}
	if got := inbox(t, kim, nil); got != "" {
		t.Errorf("kim's mention was not new: %q", got)
	}
	c := must[*github.IssueComment](t)(olga.Issues.CreateComment(ctx, "olga", "app", is.GetNumber(), github.IssueCommentRequest{Body: "noted"}))
	sync(t, e)
	must[*github.IssueComment](t)(olga.Issues.UpdateComment(ctx, "olga", "app", c.GetID(), github.IssueCommentRequest{Body: "noted, @kim"}))
	sync(t, e)
	if got, want := inbox(t, kim, nil), "app:Issue:plan:mention"; got != want {
		t.Errorf("kim after the comment's edit: %q, want %q", got, want)
	}

	// A commit comment mentioning mia: a Commit thread.
	br := must[*github.Branch](t)(olga.Repositories.GetBranch(ctx, "olga", "app", "main", 0))
	sha := br.GetCommit().GetSHA()
	must[*github.RepositoryComment](t)(olga.Repositories.CreateComment(ctx, "olga", "app", sha, github.CreateCommitCommentRequest{Body: "see @mia"}))
	sync(t, e)
	if got, want := inbox(t, mia, nil), "app:Commit:Commit "+sha[:7]+":mention app:Issue:plan:mention"; got != want {
		t.Fatalf("mia after the commit comment: %q, want %q", got, want)
	}
	for _, n := range must[[]*github.Notification](t)(mia.Activity.ListNotifications(ctx, nil)) {
		if n.GetSubject().GetType() == "Commit" && !strings.HasSuffix(n.GetSubject().GetURL(), "/repos/olga/app/commits/"+sha) {
			t.Errorf("commit subject url %q", n.GetSubject().GetURL())
		}
	}

	// mia watches the repository; olga's failing workflow notifies olga.
	must[*github.Subscription](t)(mia.Activity.SetRepositorySubscription(ctx, "olga", "app", &github.Subscription{Subscribed: github.Ptr(true)}))
	must[*github.RepositoryContentResponse](t)(olga.Repositories.CreateFile(ctx, "olga", "app", ".github/workflows/ci.yml", &github.RepositoryContentFileOptions{
		Message: github.Ptr("ci"), Content: []byte("name: CI\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: exit 1\n")}))
	deadline := time.Now().Add(time.Minute)
	want := "app:CheckSuite:CI workflow run failed for main branch:ci_activity"
	for {
		e.RunJobs()
		sync(t, e)
		got := inbox(t, olga, nil)
		if strings.Contains(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("olga: %q, want %q", got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := inbox(t, mia, nil); strings.Contains(got, "CheckSuite") {
		t.Errorf("a watcher got the run: %q", got)
	}
}
