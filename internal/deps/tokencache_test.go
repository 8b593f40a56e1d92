package deps_test

import (
	"context"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// A cached authentication never outlives its token: an expiring token
// stops working at its expiry even inside the cache's TTL.
func TestTokenCacheKeepsExpiry(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	now := time.Now()
	st.SetClock(func() time.Time { return now })
	u := &model.Account{Login: "mona", Type: model.TypeUser}
	var plain string
	if err := st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, u); err != nil {
			return err
		}
		exp := now.Add(2 * time.Second)
		var err error
		plain, _, err = tx.CreateToken(ctx, u.ID, authz.ClassicPAT, authz.ParseScopes("repo"), "", &exp)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	tc := deps.NewTokenCache(time.Minute)
	if c, ok, err := tc.Get(ctx, plain, st); err != nil || !ok || c.UserID() != u.ID {
		t.Fatalf("fresh token: %v %v", ok, err)
	}
	now = now.Add(3 * time.Second) // past the token's expiry, within the TTL
	if _, ok, err := tc.Get(ctx, plain, st); err != nil || ok {
		t.Fatalf("expired token still authenticated from the cache: %v %v", ok, err)
	}
}
