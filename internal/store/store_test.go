package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

func TestAccountsAndTokens(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	u := &model.Account{Login: "Mona", Type: model.TypeUser}
	if err := s.Tx(ctx, func(tx store.Q) error { return tx.CreateAccount(ctx, u) }); err != nil {
		t.Fatal(err)
	}
	// Logins are unique ignoring case, across users and organizations.
	dup := &model.Account{Login: "mona", Type: model.TypeOrganization}
	if err := s.Tx(ctx, func(tx store.Q) error { return tx.CreateAccount(ctx, dup) }); err != store.ErrDuplicate {
		t.Fatalf("duplicate login: %v", err)
	}
	got, err := s.R().AccountByLogin(ctx, "MONA")
	if err != nil || got.ID != u.ID || got.Login != "Mona" {
		t.Fatalf("AccountByLogin: %+v %v", got, err)
	}
	if _, err := s.R().AccountByLogin(ctx, "nobody"); err != model.ErrNotFound {
		t.Fatalf("missing account: %v", err)
	}

	var plain string
	past := time.Now().Add(-time.Hour)
	var expired string
	err = s.Tx(ctx, func(tx store.Q) error {
		var err error
		if plain, _, err = tx.CreateToken(ctx, u.ID, authz.ClassicPAT, authz.ParseScopes("repo,user"), "t", nil); err != nil {
			return err
		}
		expired, _, err = tx.CreateToken(ctx, u.ID, authz.ClassicPAT, nil, "old", &past)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 40 || plain[:4] != "ghp_" {
		t.Fatalf("token %q is not a classic PAT", plain)
	}
	c, ok, err := s.R().Authenticate(ctx, plain)
	if err != nil || !ok || c.User.ID != u.ID || !c.HasScope("public_repo") || c.HasScope("admin:org") {
		t.Fatalf("Authenticate: %+v %v %v", c, ok, err)
	}
	for _, bad := range []string{expired, "ghp_nope", ""} {
		if _, ok, err := s.R().Authenticate(ctx, bad); ok || err != nil {
			t.Fatalf("Authenticate(%q) = %v, %v", bad, ok, err)
		}
	}
	// A suspended user's tokens stop working.
	now := time.Now()
	got.SuspendedAt = &now
	if err := s.Tx(ctx, func(tx store.Q) error { return tx.UpdateAccount(ctx, got) }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.R().Authenticate(ctx, plain); ok {
		t.Fatal("suspended user authenticated")
	}
}

func TestTxRollsBack(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, &model.Account{Login: "half", Type: model.TypeUser}); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "user.created", 0, 0, 0, map[string]string{"login": "half"}); err != nil {
			return err
		}
		return model.Invalid("User", "login", "invalid")
	})
	if err == nil {
		t.Fatal("expected the error back")
	}
	if _, err := s.R().AccountByLogin(ctx, "half"); err != model.ErrNotFound {
		t.Fatalf("row survived a rolled back transaction: %v", err)
	}
	if ev, _ := s.R().EventsAfter(ctx, 0, 10); len(ev) != 0 {
		t.Fatalf("event survived a rolled back transaction: %+v", ev)
	}
}

func TestEventsAreAppendedInOrder(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := s.Tx(ctx, func(tx store.Q) error { return tx.AppendEvent(ctx, "ping", 1, 2, 3, map[string]int{"n": i}) }); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := s.R().EventsAfter(ctx, 0, 10)
	if err != nil || len(ev) != 3 || string(ev[2].Payload) != `{"n":2}` || ev[0].RepoID != 2 {
		t.Fatalf("events: %+v %v", ev, err)
	}
	rest, _ := s.R().EventsAfter(ctx, ev[0].ID, 10)
	if len(rest) != 2 {
		t.Fatalf("EventsAfter: %d", len(rest))
	}
}

// Concurrent writers queue instead of failing with "database is locked".
func TestConcurrentWrites(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- s.Tx(ctx, func(tx store.Q) error {
				return tx.CreateAccount(ctx, &model.Account{Login: "user" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Type: model.TypeUser})
			})
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := s.R().CountAccounts(ctx, model.TypeUser); n != 40 {
		t.Fatalf("count %d", n)
	}
}

// Migrations run once: opening a SQLite store again keeps the data.
func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := store.Open(ctx, dir+"/hubd.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tx(ctx, func(tx store.Q) error {
		return tx.CreateAccount(ctx, &model.Account{Login: "keep", Type: model.TypeUser})
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = store.Open(ctx, dir+"/hubd.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.R().AccountByLogin(ctx, "keep"); err != nil {
		t.Fatal(err)
	}
}
