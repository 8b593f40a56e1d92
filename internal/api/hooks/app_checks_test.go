package hooks_test

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestAppCheckEvents: apps installed on a repository get the check runs
// and suites they subscribed to, rerequests included, with their
// installation. (The checks service records no app for a run an
// installation token creates yet, so the rule that a rerequest goes to the
// run's own app alone is not exercised here.)
func TestAppCheckEvents(t *testing.T) {
	f := newFixture(t)
	f.e.Must(http.StatusCreated, "POST", "/admin/organizations", f.e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	if _, _, err := f.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("widgets"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	type app struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
		PEM  string `json:"pem"`
		inst int64
		jwt  string
		recv *hookstest.Receiver
	}
	mk := func(name, perm string, recv *hookstest.Receiver) *app {
		a := &app{recv: recv}
		f.e.Must(http.StatusCreated, "POST", "/admin/apps", f.e.AdminToken, map[string]any{
			"owner": "acme", "name": name, "url": "https://example.com/" + name,
			"default_permissions": map[string]string{"checks": perm}, "default_events": []string{"check_run", "check_suite"},
		}).JSON(t, a)
		a.jwt = "Authorization: Bearer " + appJWT(t, f, a.ID, a.PEM)
		f.e.Must(http.StatusOK, "PATCH", "/app/hook/config", "", map[string]any{"url": recv.URL}, a.jwt)
		recv.WaitFor(t, "ping", "")
		var inst struct {
			ID int64 `json:"id"`
		}
		f.e.Must(http.StatusCreated, "POST", "/admin/apps/"+a.Slug+"/installations", f.e.AdminToken, map[string]any{
			"account": "acme", "repository_selection": "all"}).JSON(t, &inst)
		a.inst = inst.ID
		return a
	}
	checker, watcher := mk("checker", "write", f.recv), mk("watcher", "read", hookstest.NewReceiver(t))
	var tok struct {
		Token string `json:"token"`
	}
	f.e.Must(http.StatusCreated, "POST", "/app/installations/"+itoa(checker.inst)+"/access_tokens", "", nil, checker.jwt).JSON(t, &tok)
	bot := f.e.GitHub(tok.Token)
	br, _, err := f.gh.Repositories.GetBranch(ctx, "acme", "widgets", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	cr, _, err := bot.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{Name: "lint", HeadSHA: br.GetCommit().GetSHA()})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*app{checker, watcher} {
		d := a.recv.WaitFor(t, "check_run", "created")
		f.check(d, "")
		m := d.Map(t)
		if m["installation"].(map[string]any)["id"] != float64(a.inst) {
			t.Errorf("installation %v, want %d", m["installation"], a.inst)
		}
	}
	if _, err := f.gh.Checks.ReRequestCheckRun(ctx, "acme", "widgets", cr.GetID()); err != nil {
		t.Fatal(err)
	}
	for _, a := range []*app{checker, watcher} {
		f.check(a.recv.WaitFor(t, "check_run", "rerequested"), "")
	}
	if _, err := f.gh.Checks.ReRequestCheckSuite(ctx, "acme", "widgets", cr.GetCheckSuite().GetID()); err != nil {
		t.Fatal(err)
	}
	for _, a := range []*app{checker, watcher} {
		f.check(a.recv.WaitFor(t, "check_suite", "rerequested"), "")
	}
	hookstest.Drain(t, f.e)
	for _, a := range []*app{checker, watcher} {
		for _, d := range a.recv.All() {
			f.check(d, "")
		}
	}
}
