package sshkeys

import (
	"context"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// TestUsedIsNotAWrite: signing in with a key writes nothing on the way;
// the key's reads show the new last use at once, Flush writes it in one
// batch, and a use within the hour after that is not noted again.
func TestUsedIsNotAWrite(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	now := time.Unix(1_800_000_000, 0).UTC()
	st.SetClock(func() time.Time { return now })
	s := New(st)
	s.FlushEvery = time.Hour // flushed by hand below
	u := &model.Account{Login: "mona", Type: model.TypeUser}
	keys := []*model.PublicKey{{Title: "a", Key: "ssh-ed25519 AAAA1", Fingerprint: "SHA256:a"}, {Title: "b", Key: "ssh-ed25519 AAAA2", Fingerprint: "SHA256:b"}}
	err := st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, u); err != nil {
			return err
		}
		for _, k := range keys {
			k.UserID = u.ID
			if err := tx.CreatePublicKey(ctx, k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	stored := func(id int64) *time.Time {
		t.Helper()
		k, err := st.R().PublicKey(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return k.LastUsed
	}
	shown := func() map[int64]*time.Time {
		t.Helper()
		page, n, err := s.ListForUser(ctx, "mona", 10, 0)
		if err != nil || n != 2 {
			t.Fatalf("list: %d %v", n, err)
		}
		m := map[int64]*time.Time{}
		for _, k := range page {
			m[k.ID] = k.LastUsed
		}
		return m
	}

	for _, fp := range []string{"SHA256:a", "SHA256:a", "SHA256:b"} {
		k, err := s.Authenticate(ctx, fp)
		if err != nil {
			t.Fatal(err)
		}
		s.Used(ctx, k)
	}
	if stored(keys[0].ID) != nil || stored(keys[1].ID) != nil {
		t.Fatal("a sign-in wrote last_used")
	}
	for id, lu := range shown() {
		if lu == nil || !lu.Equal(now) {
			t.Fatalf("key %d shows last_used %v before the flush, want %v", id, lu, now)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if lu := stored(k.ID); lu == nil || !lu.Equal(now) {
			t.Fatalf("key %d stored last_used %v after the flush", k.ID, lu)
		}
	}
	if len(s.uses.pending) != 0 {
		t.Fatalf("pending after the flush: %v", s.uses.pending)
	}

	// Within the hour: nothing to note. After it: noted again.
	now = now.Add(30 * time.Minute)
	k, _ := s.Authenticate(ctx, "SHA256:a")
	s.Used(ctx, k)
	if len(s.uses.pending) != 0 {
		t.Fatalf("a use within the hour is pending: %v", s.uses.pending)
	}
	now = now.Add(31 * time.Minute)
	k, _ = s.Authenticate(ctx, "SHA256:a")
	s.Used(ctx, k)
	if got := shown()[k.ID]; got == nil || !got.Equal(now) {
		t.Fatalf("after the hour: shown %v, want %v", got, now)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if lu := stored(k.ID); lu == nil || !lu.Equal(now) {
		t.Fatalf("after the hour: stored %v, want %v", lu, now)
	}
}
