package hooks_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	svc "github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestDeliveryLog lists a hook's deliveries newest first with GitHub's
// cursor pagination, shows one with its request and response, filters by
// status, and redelivers a failed one by hand (before its automatic retry
// is due, which the redelivery's success then cancels).
func TestDeliveryLog(t *testing.T) {
	f := newFixture(t)
	const secret = "shh"
	h := f.hook(secret, "json", "issues")
	f.recv.WaitFor(t, "ping", "")
	for _, title := range []string{"one", "two", "three"} {
		if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	f.recv.Wait(t, "three issues", func(*hookstest.Delivery) bool { return f.recv.Count("issues", "opened") == 3 })
	hookstest.Drain(t, f.e)

	// 4 deliveries (ping and three issues), two per page.
	var all []*github.HookDelivery
	opts := &github.ListCursorOptions{PerPage: 2}
	pages := 0
	for {
		list, resp, err := f.gh.Repositories.ListHookDeliveries(ctx, "mona", "app", h.GetID(), opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, list...)
		if resp.Cursor == "" {
			break
		}
		opts.Cursor = resp.Cursor
		if pages > 5 {
			t.Fatal("the cursor does not end")
		}
	}
	if len(all) != 4 || pages != 2 {
		t.Fatalf("%d deliveries in %d pages, want 4 in 2", len(all), pages)
	}
	if all[3].GetEvent() != "ping" || all[0].GetEvent() != "issues" || all[0].GetAction() != "opened" {
		t.Errorf("order: first %s %s, last %s", all[0].GetEvent(), all[0].GetAction(), all[3].GetEvent())
	}
	for i := 1; i < len(all); i++ {
		if all[i].GetID() >= all[i-1].GetID() {
			t.Errorf("not newest first: %d then %d", all[i-1].GetID(), all[i].GetID())
		}
	}
	first := all[0]
	if first.GetStatusCode() != 200 || first.GetStatus() != "OK" || first.GetRedelivery() || first.GetRepositoryID() != f.repoID {
		t.Errorf("delivery item %+v", first)
	}

	// One delivery: the request as sent (headers, payload) and the answer.
	one, _, err := f.gh.Repositories.GetHookDelivery(ctx, "mona", "app", h.GetID(), first.GetID())
	if err != nil {
		t.Fatal(err)
	}
	if one.Request.Headers["X-GitHub-Event"] != "issues" || one.Request.Headers["X-Hub-Signature-256"] == "" {
		t.Errorf("request headers %v", one.Request.Headers)
	}
	if !strings.Contains(string(*one.Request.RawPayload), `"title":"three"`) {
		t.Errorf("request payload %.300s", *one.Request.RawPayload)
	}
	if one.Response.Headers["X-Receiver"] != "hookstest" || !strings.HasPrefix(string(*one.Response.RawPayload), `"got `) {
		t.Errorf("response %v %s", one.Response.Headers, *one.Response.RawPayload)
	}
	if one.GetGUID() != one.Request.Headers["X-GitHub-Delivery"] {
		t.Errorf("guid %s vs header %s", one.GetGUID(), one.Request.Headers["X-GitHub-Delivery"])
	}

	// A failing receiver: recorded once; redelivered before the retry.
	f.recv.SetStatus(http.StatusInternalServerError)
	if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "four"}); err != nil {
		t.Fatal(err)
	}
	failed := f.recv.Wait(t, "issue four", func(d *hookstest.Delivery) bool {
		return d.Event() == "issues" && strings.Contains(string(d.Payload), `"title":"four"`)
	})
	f.check(failed, secret)
	hookstest.Drain(t, f.e)
	fails, _, err := f.gh.Repositories.ListHookDeliveries(ctx, "mona", "app", h.GetID(), &github.ListCursorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fails[0].GetStatusCode() != 500 || fails[0].GetStatus() != "Invalid HTTP Response: 500" {
		t.Fatalf("failed delivery %+v", fails[0])
	}
	r := f.e.Must(http.StatusOK, "GET", apitest.Query("/repos/mona/app/hooks/"+itoa(h.GetID())+"/deliveries", "status", "failure"), f.token, nil)
	var failures []map[string]any
	r.JSON(t, &failures)
	if len(failures) != 1 || failures[0]["status_code"] != float64(500) {
		t.Errorf("status=failure: %s", r.Body)
	}
	if hk, _, _ := f.gh.Repositories.GetHook(ctx, "mona", "app", h.GetID()); hk.LastResponse["code"] != float64(500) {
		t.Errorf("last_response %v", hk.LastResponse)
	}
	if n := countGUID(f.recv, failed.Header.Get("X-GitHub-Delivery")); n != 1 {
		t.Errorf("a failed delivery was sent %d times before any redelivery", n)
	}
	f.recv.SetStatus(http.StatusOK)
	// go-github reports GitHub's 202 as an AcceptedError.
	_, resp, err := f.gh.Repositories.RedeliverHookDelivery(ctx, "mona", "app", h.GetID(), fails[0].GetID())
	var accepted *github.AcceptedError
	if !errors.As(err, &accepted) || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("redeliver: %v", err)
	}
	f.recv.Wait(t, "the redelivery", func(*hookstest.Delivery) bool {
		return countGUID(f.recv, failed.Header.Get("X-GitHub-Delivery")) == 2
	})
	hookstest.Drain(t, f.e)
	latest, _, err := f.gh.Repositories.ListHookDeliveries(ctx, "mona", "app", h.GetID(), &github.ListCursorOptions{PerPage: 1})
	if err != nil || len(latest) != 1 {
		t.Fatal(err)
	}
	if !latest[0].GetRedelivery() || latest[0].GetGUID() != fails[0].GetGUID() || latest[0].GetStatusCode() != 200 {
		t.Errorf("redelivery %+v", latest[0])
	}

	// Bad cursors and unknown deliveries.
	base := "/repos/mona/app/hooks/" + itoa(h.GetID()) + "/deliveries"
	f.e.Must(http.StatusBadRequest, "GET", base+"?cursor=nonsense", f.token, nil)
	f.e.Must(http.StatusUnprocessableEntity, "GET", base+"?status=maybe", f.token, nil)
	f.e.Must(http.StatusNotFound, "GET", base+"/999999", f.token, nil)
	f.e.Must(http.StatusNotFound, "POST", base+"/999999/attempts", f.token, nil)
	// The Link of a cursor page keeps per_page.
	r = f.e.Must(http.StatusOK, "GET", base+"?per_page=1", f.token, nil)
	link := r.Header.Get("Link")
	u, err := url.Parse(strings.TrimSuffix(strings.TrimPrefix(strings.Split(link, ";")[0], "<"), ">"))
	if err != nil || u.Query().Get("per_page") != "1" || !strings.HasPrefix(u.Query().Get("cursor"), "v1_") || !strings.Contains(link, `rel="next"`) {
		t.Errorf("Link %q", link)
	}
}

func countGUID(r *hookstest.Receiver, guid string) int {
	n := 0
	for _, d := range r.All() {
		if d.Header.Get("X-GitHub-Delivery") == guid {
			n++
		}
	}
	return n
}

// TestInactiveAndFiltered: an inactive hook gets nothing, a hook gets only
// the events it subscribed to, and form hooks get payload= bodies signed
// as sent.
func TestInactiveAndFiltered(t *testing.T) {
	f := newFixture(t)
	active := f.hook("", "json", "issues")
	quiet := hookstest.NewReceiver(t)
	inactive, _, err := f.gh.Repositories.CreateHook(ctx, "mona", "app", &github.Hook{
		Config: &github.HookConfig{URL: github.Ptr(quiet.URL), ContentType: github.Ptr("json")}, Events: []string{"*"}, Active: github.Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	form := hookstest.NewReceiver(t)
	if _, _, err := f.gh.Repositories.CreateHook(ctx, "mona", "app", &github.Hook{
		Config: &github.HookConfig{URL: github.Ptr(form.URL), ContentType: github.Ptr("form"), Secret: github.Ptr("form-secret")},
		Events: []string{"issue_comment"}}); err != nil {
		t.Fatal(err)
	}
	is, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Issues.CreateComment(ctx, "mona", "app", is.GetNumber(), github.IssueCommentRequest{Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	f.recv.WaitFor(t, "issues", "opened")
	c := form.WaitFor(t, "issue_comment", "created")
	if ct := c.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" || !strings.HasPrefix(string(c.Body), "payload=") {
		t.Errorf("form delivery %s %.80s", ct, c.Body)
	}
	f.check(c, "form-secret")
	hookstest.Drain(t, f.e)
	// Both events were dispatched together with the deliveries above; the
	// inactive hook's receiver has its creation ping only, the issues hook
	// no comment, the comment hook no issue.
	for _, d := range quiet.All() {
		if d.Event() != "ping" {
			t.Errorf("inactive hook %d got %s", inactive.GetID(), d.Event())
		}
	}
	if n := f.recv.Count("issue_comment", ""); n != 0 {
		t.Errorf("issues hook %d got %d comments", active.GetID(), n)
	}
	if n := form.Count("issues", ""); n != 0 {
		t.Errorf("comment hook got %d issues events", n)
	}
	// Reactivated, it gets what happens next.
	if _, _, err := f.gh.Repositories.EditHook(ctx, "mona", "app", inactive.GetID(), &github.Hook{Active: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "again"}); err != nil {
		t.Fatal(err)
	}
	f.check(quiet.WaitFor(t, "issues", "opened"), "")
}

// TestPingAndTest: pings answer 204 and deliver a ping; tests deliver the
// latest push to a hook that wants pushes, and nothing to one that does
// not or when there was no push.
func TestPingAndTest(t *testing.T) {
	f := newFixture(t)
	h := f.hook("", "json", "push")
	other := hookstest.NewReceiver(t)
	nopush, _, err := f.gh.Repositories.CreateHook(ctx, "mona", "app", &github.Hook{
		Config: &github.HookConfig{URL: github.Ptr(other.URL), ContentType: github.Ptr("json")}, Events: []string{"issues"}})
	if err != nil {
		t.Fatal(err)
	}
	f.recv.WaitFor(t, "ping", "")
	if resp, err := f.gh.Repositories.PingHook(ctx, "mona", "app", h.GetID()); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("ping: %v", err)
	}
	f.recv.Wait(t, "a second ping", func(*hookstest.Delivery) bool { return f.recv.Count("ping", "") == 2 })
	// A repository without any push: 204 and nothing.
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("empty")}); err != nil {
		t.Fatal(err)
	}
	empty := hookstest.NewReceiver(t)
	eh, _, err := f.gh.Repositories.CreateHook(ctx, "mona", "empty", &github.Hook{
		Config: &github.HookConfig{URL: github.Ptr(empty.URL), ContentType: github.Ptr("json")}, Events: []string{"push"}})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := f.gh.Repositories.TestHook(ctx, "mona", "empty", eh.GetID()); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("test: %v", err)
	}
	hookstest.Drain(t, f.e)
	if n := empty.Count("push", ""); n != 0 {
		t.Fatalf("a test without pushes delivered %d pushes", n)
	}
	dir := f.clone()
	commit(t, dir, "x.txt", "x\n", "Add x")
	git(t, dir, "push", "-q", "origin", "main")
	f.recv.WaitFor(t, "push", "")
	if _, err := f.gh.Repositories.TestHook(ctx, "mona", "app", h.GetID()); err != nil {
		t.Fatal(err)
	}
	f.recv.Wait(t, "the test push", func(*hookstest.Delivery) bool { return f.recv.Count("push", "") == 2 })
	pushes := []*hookstest.Delivery{}
	for _, d := range f.recv.All() {
		if d.Event() == "push" {
			f.check(d, "")
			pushes = append(pushes, d)
		}
	}
	if pushes[0].Map(t)["after"] != pushes[1].Map(t)["after"] {
		t.Errorf("the test sent another push: %v vs %v", pushes[0].Map(t)["after"], pushes[1].Map(t)["after"])
	}
	if _, err := f.gh.Repositories.TestHook(ctx, "mona", "app", nopush.GetID()); err != nil {
		t.Fatal(err)
	}
	hookstest.Drain(t, f.e)
	if n := other.Count("push", ""); n != 0 {
		t.Errorf("a hook without push got %d test pushes", n)
	}
	f.e.Must(http.StatusNotFound, "POST", "/repos/mona/app/hooks/424242/pings", f.token, nil)
	f.e.Must(http.StatusNotFound, "POST", "/repos/mona/app/hooks/424242/tests", f.token, nil)
}

// TestDeliveriesSurviveStoppedWorkers: with no worker running, events are
// dispatched into queued deliveries that wait in the database; a worker
// started later (a restarted hubd) delivers each of them once.
func TestDeliveriesSurviveStoppedWorkers(t *testing.T) {
	f := newFixture(t, apitest.Options{ManualJobs: true})
	f.hook("", "json", "issues")
	for _, title := range []string{"a", "b", "c"} {
		if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	// The dispatcher runs without workers: wait until the three deliveries
	// are queued (the ping is queued with the hook).
	waitQueued(t, f, 4)
	if n := len(f.recv.All()); n != 0 {
		t.Fatalf("%d deliveries sent with no worker", n)
	}
	f.e.RunJobs()
	if got := f.recv.Count("issues", "opened"); got != 3 || f.recv.Count("ping", "") != 1 {
		t.Fatalf("after the workers ran: %d issues, %d pings", got, f.recv.Count("ping", ""))
	}
	f.e.RunJobs()
	if got := len(f.recv.All()); got != 4 {
		t.Errorf("a second run delivered again: %d deliveries", got)
	}
}

// waitQueued waits until n deliveries of the fixture's hooks are in the
// database, delivered or not.
func waitQueued(t *testing.T, f *fixture, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		pending, delivered, err := f.e.Store.R().HookDeliveryCounts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if pending+delivered >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries queued after a minute, want %d", pending+delivered, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRetries: GitHub does not retry a failed delivery; hubd does, after
// 15 s, 1 min, 4 min and 16 min (the store's clock is moved on here), each
// attempt in the delivery log as a redelivery of the same GUID. A retry
// that gets through ends them; a delivery that keeps failing stops after
// svc.Attempts attempts; other deliveries do not wait for a retry.
func TestRetries(t *testing.T) {
	f := newFixture(t)
	var skew atomic.Int64
	f.e.Store.SetClock(func() time.Time {
		return time.Now().Add(time.Duration(skew.Load())).UTC().Truncate(time.Second)
	})
	later := func(d time.Duration) { skew.Add(int64(d)) }
	h := f.hook("", "json", "issues")
	f.recv.WaitFor(t, "ping", "")
	hookstest.Drain(t, f.e)

	f.recv.SetStatus(http.StatusServiceUnavailable)
	if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "flaky"}); err != nil {
		t.Fatal(err)
	}
	first := f.recv.WaitFor(t, "issues", "opened")
	guid := first.Header.Get("X-GitHub-Delivery")
	hookstest.Drain(t, f.e)
	if n := countGUID(f.recv, guid); n != 1 {
		t.Fatalf("sent %d times before the backoff ran out", n)
	}
	// A later event is not held back by the waiting retry.
	f.recv.SetStatus(http.StatusOK)
	if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "steady"}); err != nil {
		t.Fatal(err)
	}
	f.recv.Wait(t, "issue steady", func(d *hookstest.Delivery) bool { return strings.Contains(string(d.Payload), `"title":"steady"`) })
	if n := countGUID(f.recv, guid); n != 1 {
		t.Fatalf("the retry went out early (%d attempts)", n)
	}
	f.recv.SetStatus(http.StatusServiceUnavailable)
	waitGUID := func(n int) {
		t.Helper()
		f.recv.Wait(t, "attempt "+strconv.Itoa(n), func(*hookstest.Delivery) bool { return countGUID(f.recv, guid) >= n })
		hookstest.Drain(t, f.e)
		if got := countGUID(f.recv, guid); got != n {
			t.Fatalf("%d attempts, want %d", got, n)
		}
	}
	later(15 * time.Second)
	waitGUID(2)
	later(time.Minute)
	waitGUID(3)
	f.recv.SetStatus(http.StatusOK)
	later(4 * time.Minute)
	waitGUID(4)
	later(time.Hour)
	time.Sleep(1500 * time.Millisecond) // a worker poll: nothing more is due
	hookstest.Drain(t, f.e)
	if n := countGUID(f.recv, guid); n != 4 {
		t.Errorf("retried after a success: %d attempts", n)
	}
	list, _, err := f.gh.Repositories.ListHookDeliveries(ctx, "mona", "app", h.GetID(), &github.ListCursorOptions{PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	var mine []*github.HookDelivery
	for _, d := range list {
		if d.GetGUID() == guid {
			mine = append(mine, d)
		}
	}
	if len(mine) != 4 {
		t.Fatalf("%d deliveries of %s in the log, want 4", len(mine), guid)
	}
	for i, d := range mine { // newest first
		wantCode, wantRe := http.StatusServiceUnavailable, true
		if i == 0 {
			wantCode = http.StatusOK
		}
		if i == 3 {
			wantRe = false
		}
		if d.GetStatusCode() != wantCode || d.GetRedelivery() != wantRe {
			t.Errorf("attempt %d: %d redelivery=%v", 4-i, d.GetStatusCode(), d.GetRedelivery())
		}
	}

	// A receiver that keeps failing gets svc.Attempts attempts.
	f.recv.SetStatus(http.StatusInternalServerError)
	if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "doomed"}); err != nil {
		t.Fatal(err)
	}
	guid = f.recv.Wait(t, "issue doomed", func(d *hookstest.Delivery) bool {
		return strings.Contains(string(d.Payload), `"title":"doomed"`)
	}).Header.Get("X-GitHub-Delivery")
	hookstest.Drain(t, f.e)
	for n := 2; n <= svc.Attempts; n++ {
		later(svc.RetryBackoff(n - 1))
		waitGUID(n)
	}
	later(24 * time.Hour)
	time.Sleep(1500 * time.Millisecond)
	hookstest.Drain(t, f.e)
	if n := countGUID(f.recv, guid); n != svc.Attempts {
		t.Errorf("%d attempts of a failing delivery, want %d", n, svc.Attempts)
	}
}

// TestUnansweredBatch: deliveries are marked begun in batches before they
// are sent; when the receiver does not answer, the rest of the batch is
// given back rather than left begun (which would log it as interrupted by
// a stop), and each delivery is then sent once and logged with its own
// failure.
func TestUnansweredBatch(t *testing.T) {
	f := newFixture(t, apitest.Options{ManualJobs: true})
	h, _, err := f.gh.Repositories.CreateHook(ctx, "mona", "app", &github.Hook{
		Config: &github.HookConfig{URL: github.Ptr("http://127.0.0.1:1/refused"), ContentType: github.Ptr("json")},
		Events: []string{"issues"}, Active: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	const issues = 4
	for i := range issues {
		if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "unanswered " + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.e.Deps.Outbox.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.e.Deps.Jobs.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	list, _, err := f.gh.Repositories.ListHookDeliveries(ctx, "mona", "app", h.GetID(), &github.ListCursorOptions{PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != issues+1 { // and the ping
		t.Fatalf("%d deliveries in the log, want %d", len(list), issues+1)
	}
	for _, d := range list {
		if d.GetStatus() != "failed to connect to host" || d.GetStatusCode() != 0 || d.GetRedelivery() {
			t.Errorf("%s delivery %s: %q %d redelivery=%v", d.GetEvent(), d.GetGUID(), d.GetStatus(), d.GetStatusCode(), d.GetRedelivery())
		}
	}
}
