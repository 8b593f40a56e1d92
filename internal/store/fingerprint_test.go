package store_test

import (
	"context"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// TestFingerprint: a fingerprint stays equal when nothing is written and
// names exactly the table an insert or an update changed (on both
// databases: PostgreSQL digests on its side).
func TestFingerprint(t *testing.T) {
	s, repos := network(t)
	ctx := context.Background()
	diff := func(a, b map[string]string) []string {
		var out []string
		for k, v := range a {
			if b[k] != v {
				out = append(out, k)
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				out = append(out, k)
			}
		}
		return out
	}
	fp := func() map[string]string {
		t.Helper()
		m, err := s.Fingerprint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(m) < 20 {
			t.Fatalf("fingerprint of %d tables", len(m))
		}
		return m
	}
	a, b := fp(), fp()
	if d := diff(a, b); len(d) != 0 {
		t.Fatalf("no write, yet %v changed", d)
	}
	if a["accounts"] == "" || a["accounts"][:2] != "4:" {
		t.Fatalf("accounts digest %q, want 4 rows", a["accounts"])
	}
	if err := s.Tx(ctx, func(tx store.Q) error {
		return tx.CreateAccount(ctx, &model.Account{Login: "erin", Type: model.TypeUser})
	}); err != nil {
		t.Fatal(err)
	}
	c := fp()
	if d := diff(b, c); len(d) != 1 || d[0] != "accounts" {
		t.Fatalf("an insert into accounts changed %v", d)
	}
	if err := s.Tx(ctx, func(tx store.Q) error {
		r := *repos["dave"]
		r.Description = "changed"
		return tx.UpdateRepo(ctx, &r, "")
	}); err != nil {
		t.Fatal(err)
	}
	d := fp()
	if df := diff(c, d); len(df) != 1 || df[0] != "repos" {
		t.Fatalf("an update of repos changed %v", df)
	}
	// An upsert (whose conflict clause overrides a trigger's) still
	// writes under tracking, and shows.
	for range 2 {
		if err := s.Tx(ctx, func(tx store.Q) error {
			_, err := tx.EnqueueJob(ctx, &model.Job{Kind: "test", Key: "same", Payload: []byte("{}")})
			return err
		}); err != nil {
			t.Fatalf("upsert under tracking: %v", err)
		}
	}
	if df := diff(d, fp()); len(df) != 1 || df[0] != "jobs" {
		t.Fatalf("an upserted job changed %v", df)
	}
}
