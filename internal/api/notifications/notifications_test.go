package notifications_test

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/notifications"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

func sync(t *testing.T, e *apitest.Env) {
	t.Helper()
	if err := e.Deps.Outbox.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// inbox is a user's threads as "repo:type:title:reason" lines, sorted.
func inbox(t *testing.T, gh *github.Client, opt *github.NotificationListOptions) string {
	t.Helper()
	list, resp, err := gh.Activity.ListNotifications(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("X-Poll-Interval") != "60" {
		t.Errorf("X-Poll-Interval %q", resp.Header.Get("X-Poll-Interval"))
	}
	var out []string
	for _, n := range list {
		out = append(out, n.GetRepository().GetName()+":"+n.GetSubject().GetType()+":"+n.GetSubject().GetTitle()+":"+n.GetReason())
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func must[T any](t *testing.T) func(T, *github.Response, error) T {
	return func(v T, _ *github.Response, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// Threads through go-github: a mention, a review request, an assignment,
// a watched repository's new issue and a comment on an issue one authored
// each make a thread with its reason; the actor gets none; marking read
// and done; ignored threads; 304 polling; a private repository's threads
// hidden once access is gone.
func TestNotificationsThroughGoGitHub(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	_, lisaTok := e.NewUser("lisa", false)
	mona, hubot, lisa := e.GitHub(monaTok), e.GitHub(hubotTok), e.GitHub(lisaTok)
	must[*github.Repository](t)(mona.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}))
	// lisa watches app.
	must[*github.Subscription](t)(lisa.Activity.SetRepositorySubscription(ctx, "mona", "app", &github.Subscription{Subscribed: github.Ptr(true)}))

	// mona opens an issue mentioning hubot: hubot (mention) and lisa
	// (subscribed) are notified, mona is not.
	is := must[*github.Issue](t)(mona.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "bug", Body: github.Ptr("cc @hubot")}))
	sync(t, e)
	if got, want := inbox(t, hubot, nil), "app:Issue:bug:mention"; got != want {
		t.Fatalf("hubot: %q, want %q", got, want)
	}
	if got, want := inbox(t, lisa, nil), "app:Issue:bug:subscribed"; got != want {
		t.Fatalf("lisa: %q, want %q", got, want)
	}
	if got := inbox(t, mona, nil); got != "" {
		t.Fatalf("the actor was notified: %q", got)
	}
	// participating leaves lisa's watch out.
	if got := inbox(t, lisa, &github.NotificationListOptions{Participating: true}); got != "" {
		t.Fatalf("lisa participating: %q", got)
	}

	// hubot comments on mona's issue: mona gets it as its author.
	must[*github.IssueComment](t)(hubot.Issues.CreateComment(ctx, "mona", "app", is.GetNumber(), github.IssueCommentRequest{Body: "me too"}))
	// mona assigns lisa on a second issue.
	is2 := must[*github.Issue](t)(mona.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "task"}))
	must[*github.Issue](t)(mona.Issues.AddAssignees(ctx, "mona", "app", is2.GetNumber(), []string{"mona"}))
	sync(t, e)
	if got, want := inbox(t, mona, nil), "app:Issue:bug:author"; got != want {
		t.Fatalf("mona: %q, want %q", got, want)
	}
	list := must[[]*github.Notification](t)(mona.Activity.ListNotifications(ctx, nil))
	th := list[0]
	if !strings.Contains(th.GetSubject().GetLatestCommentURL(), "/repos/mona/app/issues/comments/") {
		t.Errorf("latest_comment_url %q", th.GetSubject().GetLatestCommentURL())
	}

	// A pull request with a review request to hubot, a collaborator.
	invite(t, mona, hubot, "app")
	ref := must[*github.Reference](t)(mona.Git.GetRef(ctx, "mona", "app", "refs/heads/main"))
	must[*github.Reference](t)(mona.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/topic", SHA: ref.GetObject().GetSHA()}))
	must[*github.RepositoryContentResponse](t)(mona.Repositories.CreateFile(ctx, "mona", "app", "x.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("x"), Content: []byte("x\n"), Branch: github.Ptr("topic")}))
	pr := must[*github.PullRequest](t)(mona.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("feature"), Head: "topic", Base: "main"}))
	must[*github.PullRequest](t)(mona.PullRequests.RequestReviewers(ctx, "mona", "app", pr.GetNumber(), github.ReviewersRequest{Reviewers: []string{"hubot"}}))
	// lisa assigned to an issue.
	is3 := must[*github.Issue](t)(mona.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "chore", Assignees: []string{"hubot"}}))
	_ = is3
	sync(t, e)
	// (hubot's comment on the bug read that thread.)
	if got, want := inbox(t, hubot, nil), "app:Issue:chore:assign app:PullRequest:feature:review_requested"; got != want {
		t.Fatalf("hubot: %q, want %q", got, want)
	}
	if got, want := inbox(t, hubot, &github.NotificationListOptions{All: true}), "app:Issue:bug:mention app:Issue:chore:assign app:PullRequest:feature:review_requested"; got != want {
		t.Fatalf("hubot all: %q, want %q", got, want)
	}

	// Schema-validated raw calls; If-Modified-Since answers 304.
	r := e.Must(200, "GET", "/notifications?all=true", hubotTok, nil)
	lm := r.Header.Get("Last-Modified")
	if lm == "" {
		t.Fatal("no Last-Modified")
	}
	e.Must(304, "GET", "/notifications", hubotTok, nil, "If-Modified-Since: "+lm)
	e.Must(200, "GET", "/repos/mona/app/notifications", hubotTok, nil)
	e.Must(404, "GET", "/notifications/threads/"+th.GetID(), hubotTok, nil) // mona's thread
	e.Must(401, "GET", "/notifications", "", nil)

	// Marking read and done.
	if _, err := mona.Activity.MarkThreadRead(ctx, th.GetID()); err != nil {
		t.Fatal(err)
	}
	got := must[*github.Notification](t)(mona.Activity.GetThread(ctx, th.GetID()))
	if got.GetUnread() || got.LastReadAt == nil {
		t.Fatalf("read thread: unread %v, last_read_at %v", got.GetUnread(), got.LastReadAt)
	}
	if s := inbox(t, mona, nil); s != "" {
		t.Fatalf("unread after reading: %q", s)
	}
	if s := inbox(t, mona, &github.NotificationListOptions{All: true}); s != "app:Issue:bug:author" {
		t.Fatalf("all: %q", s)
	}
	if _, err := mona.Activity.MarkThreadDone(ctx, th.GetID()); err != nil {
		t.Fatal(err)
	}
	if s := inbox(t, mona, &github.NotificationListOptions{All: true}); s != "" {
		t.Fatalf("done thread listed: %q", s)
	}
	if _, err := lisa.Activity.MarkRepositoryNotificationsRead(ctx, "mona", "app", github.Timestamp{Time: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if s := inbox(t, lisa, nil); s != "" {
		t.Fatalf("lisa after marking the repository read: %q", s)
	}
	// More unread threads than one request marks: 202, a job marks the rest.
	notifications.MarkLimit = 1
	defer func() { notifications.MarkLimit = 1000 }()
	var accepted *github.AcceptedError
	if resp, err := hubot.Activity.MarkNotificationsRead(ctx, github.Timestamp{Time: time.Now().Add(time.Minute)}); !errors.As(err, &accepted) || resp.StatusCode != 202 {
		t.Fatalf("mark all read: %v %v", resp, err)
	}
	if !strings.Contains(string(accepted.Raw), "marked as read in the background") {
		t.Errorf("202 body %s", accepted.Raw)
	}
	e.RunJobs()
	if s := inbox(t, hubot, nil); s != "" {
		t.Fatalf("hubot after marking all read: %q", s)
	}

	// Thread subscriptions: hubot ignores the bug; a new comment brings
	// mona's thread back (done is not forever) but not hubot's.
	hl := must[[]*github.Notification](t)(hubot.Activity.ListNotifications(ctx, &github.NotificationListOptions{All: true}))
	var bugID string
	for _, n := range hl {
		if n.GetSubject().GetTitle() == "bug" {
			bugID = n.GetID()
		}
	}
	sub := must[*github.Subscription](t)(hubot.Activity.GetThreadSubscription(ctx, bugID))
	if !sub.GetSubscribed() || sub.GetIgnored() {
		t.Fatalf("subscription %+v", sub)
	}
	sub = must[*github.Subscription](t)(hubot.Activity.SetThreadSubscription(ctx, bugID, &github.Subscription{Ignored: github.Ptr(true)}))
	if !sub.GetIgnored() {
		t.Fatalf("not ignored: %+v", sub)
	}
	must[*github.IssueComment](t)(lisa.Issues.CreateComment(ctx, "mona", "app", is.GetNumber(), github.IssueCommentRequest{Body: "ping @hubot"}))
	sync(t, e)
	if s := inbox(t, hubot, nil); s != "" {
		t.Fatalf("ignored thread notified: %q", s)
	}
	if s := inbox(t, mona, nil); s != "app:Issue:bug:author" {
		t.Fatalf("mona after a new comment: %q", s)
	}
	if _, err := hubot.Activity.DeleteThreadSubscription(ctx, bugID); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := hubot.Activity.GetThreadSubscription(ctx, bugID); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted subscription: %v", err)
	}

	// A private repository: hubot, a collaborator, is mentioned; once
	// removed, the thread is hidden.
	must[*github.Repository](t)(mona.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}))
	invite(t, mona, hubot, "secret")
	must[*github.Issue](t)(mona.Issues.Create(ctx, "mona", "secret", github.CreateIssueRequest{Title: "hidden", Body: github.Ptr("@hubot @lisa")}))
	sync(t, e)
	if s := inbox(t, hubot, nil); s != "secret:Issue:hidden:mention" {
		t.Fatalf("hubot private: %q", s)
	}
	if s := inbox(t, lisa, nil); s != "" {
		t.Fatalf("lisa mentioned in a repository she cannot read: %q", s)
	}
	if _, err := mona.Repositories.RemoveCollaborator(ctx, "mona", "secret", "hubot"); err != nil {
		t.Fatal(err)
	}
	if s := inbox(t, hubot, &github.NotificationListOptions{All: true}); strings.Contains(s, "secret") {
		t.Fatalf("hidden repository listed: %q", s)
	}

	// Token kinds: a classic token without notifications or repo scope.
	mu, _ := e.Store.R().AccountByLogin(ctx, "mona")
	e.Must(http.StatusNotFound, "GET", "/notifications", e.Token(mu, "gist"), nil)
	// A GitHub App's user access token may (the operations' UAT badge); a
	// fine-grained token may not.
	tok := func(kind authz.TokenKind) string {
		var plain string
		if err := e.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			plain, _, err = tx.CreateToken(ctx, mu.ID, kind, nil, "app", nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return plain
	}
	e.Must(http.StatusOK, "GET", "/notifications?all=true", tok(authz.UserToServer), nil)
	e.Must(http.StatusForbidden, "GET", "/notifications", tok(authz.FineGrained), nil)
}

// invite makes hubot a collaborator of mona's repo.
func invite(t *testing.T, mona, hubot *github.Client, repo string) {
	t.Helper()
	inv := must[*github.CollaboratorInvitation](t)(mona.Repositories.AddCollaborator(ctx, "mona", repo, "hubot", &github.RepositoryAddCollaboratorOptions{Permission: "push"}))
	if _, err := hubot.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
}
