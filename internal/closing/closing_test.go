package closing_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// issueState reads owner/repo#n's state, state_reason and its closed
// events (commit id and actor login of each).
func issueState(t *testing.T, e *apitest.Env, token, owner, repo string, n int) (state, reason string, closed [][2]string) {
	t.Helper()
	var is map[string]any
	e.Must(200, "GET", "/repos/"+owner+"/"+repo+"/issues/"+strconv.Itoa(n), token, nil).JSON(t, &is)
	state, _ = is["state"].(string)
	reason, _ = is["state_reason"].(string)
	var events []map[string]any
	e.Must(200, "GET", "/repos/"+owner+"/"+repo+"/issues/"+strconv.Itoa(n)+"/events", token, nil).JSON(t, &events)
	for _, ev := range events {
		if ev["event"] == "closed" {
			commit, _ := ev["commit_id"].(string)
			actor, _ := ev["actor"].(map[string]any)
			login, _ := actor["login"].(string)
			closed = append(closed, [2]string{commit, login})
		}
	}
	return state, reason, closed
}

func newIssue(t *testing.T, gh *github.Client, owner, repo, title string) int {
	t.Helper()
	is, _, err := gh.Issues.Create(ctx, owner, repo, github.CreateIssueRequest{Title: title})
	if err != nil {
		t.Fatal(err)
	}
	return is.GetNumber()
}

// Merging a pull request into the default branch closes the issues its
// body names with closing keywords (with the merge commit, by the merger)
// and those its commits' messages name (with each commit); an issue of a
// repository the merger may not write stays open, as do issues named
// without a keyword.
func TestMergedPullRequestClosesIssues(t *testing.T) {
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	_, eveT := e.NewUser("eve", false)
	mg, eg := e.GitHub(monaT), e.GitHub(eveT)
	for _, name := range []string{"app", "other"} {
		if _, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), AutoInit: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := eg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("x"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	one, two, three := newIssue(t, mg, "mona", "app", "one"), newIssue(t, mg, "mona", "app", "two"), newIssue(t, mg, "mona", "app", "three")
	other := newIssue(t, mg, "mona", "other", "other")
	eves := newIssue(t, eg, "eve", "x", "eve's")

	main, _, err := mg.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mg.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/feature", SHA: main.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	res, _, err := mg.Repositories.CreateFile(ctx, "mona", "app", "f.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("Add f\n\nRESOLVES: #" + strconv.Itoa(three)), Content: []byte("f"), Branch: github.Ptr("feature")})
	if err != nil {
		t.Fatal(err)
	}
	featureCommit := res.GetSHA()
	e.RunJobs()
	if state, _, _ := issueState(t, e, monaT, "mona", "app", three); state != "open" {
		t.Fatalf("a commit on a feature branch closed #%d", three)
	}
	body := "Fixes #" + strconv.Itoa(one) + ", mentions #" + strconv.Itoa(two) + "\ncloses mona/other#" + strconv.Itoa(other) +
		" and closes " + e.URL + "/eve/x/issues/" + strconv.Itoa(eves)
	pr, _, err := mg.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("feature"), Head: "feature", Base: "main", Body: &body})
	if err != nil {
		t.Fatal(err)
	}
	e.RunJobs()
	merged, resp, err := mg.PullRequests.Merge(ctx, "mona", "app", pr.GetNumber(), "", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("merge: %v", err)
	}
	e.RunJobs()

	state, reason, closed := issueState(t, e, monaT, "mona", "app", one)
	if state != "closed" || reason != "completed" || len(closed) != 1 || closed[0] != [2]string{merged.GetSHA(), "mona"} {
		t.Errorf("#%d: %s %s %v, want closed completed by mona with %s", one, state, reason, closed, merged.GetSHA())
	}
	if state, _, closed = issueState(t, e, monaT, "mona", "app", three); state != "closed" || len(closed) != 1 || closed[0][0] != featureCommit {
		t.Errorf("#%d: %s %v, want closed with the commit %s", three, state, closed, featureCommit)
	}
	if state, _, _ = issueState(t, e, monaT, "mona", "app", two); state != "open" {
		t.Errorf("a mention closed #%d", two)
	}
	if state, _, closed = issueState(t, e, monaT, "mona", "other", other); state != "closed" || len(closed) != 1 || closed[0][0] != merged.GetSHA() {
		t.Errorf("mona/other#%d: %s %v, want closed with the merge commit", other, state, closed)
	}
	if state, _, _ = issueState(t, e, eveT, "eve", "x", eves); state != "open" {
		t.Errorf("eve/x#%d closed by mona, who may not write to it", eves)
	}
	// The pull request itself is closed as merged, once.
	if _, _, closed = issueState(t, e, monaT, "mona", "app", pr.GetNumber()); len(closed) != 1 {
		t.Errorf("pull request closed events: %v", closed)
	}
}

// A commit pushed over git closes the issues its message names once it
// lands on the default branch (by the pusher, with that commit), not while
// it is on another branch; an issue already closed is left as it is.
func TestPushedCommitClosesIssuesOnDefaultBranch(t *testing.T) {
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	hubot, hubotT := e.NewUser("hubot", false)
	mg := e.GitHub(monaT)
	repo, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello"), Private: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.GetID(), hubot.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	one, two := newIssue(t, mg, "mona", "hello", "one"), newIssue(t, mg, "mona", "hello", "two")
	if _, _, err := mg.Issues.Update(ctx, "mona", "hello", two, github.UpdateIssueRequest{State: github.Ptr("closed"), StateReason: github.Ptr("not_planned")}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	remote := e.Remote("mona", "hello", "hubot", hubotT)
	apitest.MustGit(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	apitest.MustGit(t, dir, "add", ".")
	apitest.MustGit(t, dir, "commit", "-q", "-m", "Start")
	apitest.MustGit(t, dir, "push", "-q", remote, "HEAD:refs/heads/main")
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b"), 0o644)
	apitest.MustGit(t, dir, "add", ".")
	apitest.MustGit(t, dir, "commit", "-q", "-m", "Fixed #"+strconv.Itoa(one)+" and fix #"+strconv.Itoa(two)+" and fixes #99")
	sha := apitest.MustGit(t, dir, "rev-parse", "HEAD")[:40]
	apitest.MustGit(t, dir, "push", "-q", remote, "HEAD:refs/heads/topic")
	e.RunJobs()
	if state, _, _ := issueState(t, e, monaT, "mona", "hello", one); state != "open" {
		t.Fatalf("a push to a topic branch closed #%d", one)
	}
	apitest.MustGit(t, dir, "push", "-q", remote, "HEAD:refs/heads/main")
	e.RunJobs()
	state, reason, closed := issueState(t, e, monaT, "mona", "hello", one)
	if state != "closed" || reason != "completed" || len(closed) != 1 || closed[0] != [2]string{sha, "hubot"} {
		t.Errorf("#%d: %s %s %v, want closed completed by hubot with %s", one, state, reason, closed, sha)
	}
	if state, reason, closed = issueState(t, e, monaT, "mona", "hello", two); state != "closed" || reason != "not_planned" || len(closed) != 1 || closed[0][0] != "" {
		t.Errorf("an issue closed before: %s %s %v", state, reason, closed)
	}
}

// events lists the kinds of owner/repo#n's events and its timeline.
func eventKinds(t *testing.T, e *apitest.Env, token, path string) []string {
	t.Helper()
	var list []map[string]any
	e.Must(200, "GET", path, token, nil).JSON(t, &list)
	var out []string
	for _, ev := range list {
		k, _ := ev["event"].(string)
		out = append(out, k)
	}
	return out
}

func has(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// A pull request's body is noted as an issue's is: a mention gives the
// issue a cross-referenced timeline event; closing keywords link the
// issue (connected on both sides), and an edit dropping them unlinks it
// (disconnected).
func TestPullRequestBodyReferencesAndConnects(t *testing.T) {
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	mg := e.GitHub(monaT)
	if _, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	one, two := newIssue(t, mg, "mona", "app", "one"), newIssue(t, mg, "mona", "app", "two")
	main, _, err := mg.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mg.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/topic", SHA: main.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mg.Repositories.CreateFile(ctx, "mona", "app", "t.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("t"), Content: []byte("t"), Branch: github.Ptr("topic")}); err != nil {
		t.Fatal(err)
	}
	body := "Closes #" + strconv.Itoa(one) + ", see #" + strconv.Itoa(two)
	pr, _, err := mg.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("topic"), Head: "topic", Base: "main", Body: &body})
	if err != nil {
		t.Fatal(err)
	}
	path := func(n int) string { return "/repos/mona/app/issues/" + strconv.Itoa(n) }
	if k := eventKinds(t, e, monaT, path(one)+"/timeline"); has(k, "cross-referenced") != 1 || has(k, "connected") != 1 {
		t.Errorf("#%d timeline %v", one, k)
	}
	if k := eventKinds(t, e, monaT, path(two)+"/timeline"); has(k, "cross-referenced") != 1 || has(k, "connected") != 0 {
		t.Errorf("#%d timeline %v", two, k)
	}
	if k := eventKinds(t, e, monaT, path(pr.GetNumber())+"/events"); has(k, "connected") != 1 {
		t.Errorf("pull request events %v", k)
	}
	// The same body again changes nothing; dropping the keyword unlinks.
	if _, _, err := mg.PullRequests.Edit(ctx, "mona", "app", pr.GetNumber(), &github.PullRequest{Body: github.Ptr(body + ".")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mg.PullRequests.Edit(ctx, "mona", "app", pr.GetNumber(), &github.PullRequest{Body: github.Ptr("see #" + strconv.Itoa(one))}); err != nil {
		t.Fatal(err)
	}
	if k := eventKinds(t, e, monaT, path(one)+"/events"); has(k, "connected") != 1 || has(k, "disconnected") != 1 {
		t.Errorf("#%d events after the edit %v", one, k)
	}
	if k := eventKinds(t, e, monaT, path(one)+"/timeline"); has(k, "cross-referenced") != 1 {
		t.Errorf("#%d cross-referenced again: %v", one, k)
	}
}
