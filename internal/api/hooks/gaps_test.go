package hooks_test

import (
	"fmt"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestLateCommittedEvent: PostgreSQL numbers outbox rows before their
// transactions commit, so the dispatcher can see event N+3 before N+1.
// It passes the gap and delivers N+1 when it shows up, exactly once.
func TestLateCommittedEvent(t *testing.T) {
	f := newFixture(t)
	f.hook("", "json", "issues")
	is, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "gap"})
	if err != nil {
		t.Fatal(err)
	}
	f.recv.WaitFor(t, "issues", "opened")
	var max int64
	evs, err := f.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		max = e.ID
	}
	insert := func(id int64) {
		t.Helper()
		stmt := fmt.Sprintf(`INSERT INTO events (id, type, actor_id, repo_id, org_id, payload, created_at) VALUES (%d, 'issues.opened', %d, %d, 0, '{"action":"opened","issue_id":%d,"number":%d}', 1700000000)`,
			id, is.GetUser().GetID(), f.repoID, is.GetID(), is.GetNumber())
		if err := f.e.Store.ExecRaw(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	insert(max + 3)
	f.recv.Wait(t, "the event after the gap", func(*hookstest.Delivery) bool { return f.recv.Count("issues", "opened") == 2 })
	insert(max + 1)
	f.recv.Wait(t, "the late event", func(*hookstest.Delivery) bool { return f.recv.Count("issues", "opened") == 3 })
	hookstest.Drain(t, f.e)
	// Nothing twice: three events, three deliveries.
	if n := f.recv.Count("issues", "opened"); n != 3 {
		t.Errorf("%d deliveries of three events", n)
	}
	for _, d := range f.recv.All() {
		f.check(d, "")
	}
}
