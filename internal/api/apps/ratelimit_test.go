package apps_test

import (
	"strconv"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// An installation token's rate limit scales with the organization's users
// past 20 (GitHub: 50 more an hour for each), and an app's JWT requests
// count against the app, not a user.
func TestInstallationRateLimitScales(t *testing.T) {
	w := newWorld(t)
	org := mustAccount(t, w, "acme")
	for i := 0; i < 22; i++ {
		u, _ := w.e.NewUser("member"+strconv.Itoa(i), false)
		if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
			return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive})
		}); err != nil {
			t.Fatal(err)
		}
	}
	tok := w.token(nil)
	r := w.e.Must(200, "GET", "/installation/repositories", tok.GetToken(), nil)
	if got := r.Header.Get("X-RateLimit-Limit"); got != "5150" { // 23 users: 3 past 20
		t.Errorf("installation rate limit %s, want 5150", got)
	}
	r = w.bearer("GET", "/app", w.appJWT(), nil)
	if got := r.Header.Get("X-RateLimit-Used"); got != "2" {
		t.Errorf("JWT requests used %s, want 2 (the token's creation and this, the app's own count)", got)
	}
}
