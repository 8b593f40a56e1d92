package secrets

import (
	"context"
	"fmt"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store/storetest"
)

// BenchmarkSet is a create-or-update: open the sealed box, encrypt at
// rest, one transaction with its audit event.
func BenchmarkSet(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b)
	_, r := fixture(b, st)
	s := &Service{Store: st}
	sc := model.SecretScope{App: "actions", Kind: model.SecretRepository, OwnerID: r.ID}
	k, _ := s.PublicKey(ctx, sc)
	t := &testing.T{}
	boxed := sealFor(t, k, "a value of some thirty-two bytes")
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Set(ctx, sc, 1, "TOKEN", Put{KeyID: k.ID, EncryptedValue: boxed}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValues is what a job's spec hook does for a repository with
// GitHub's maximum of 100 secrets and 100 organization secrets.
func BenchmarkValues(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b)
	org, repo := fixture(b, st)
	s := &Service{Store: st}
	t := &testing.T{}
	for _, sc := range []model.SecretScope{{App: "actions", Kind: model.SecretRepository, OwnerID: repo.ID}, {App: "actions", Kind: model.SecretOrganization, OwnerID: org.ID}} {
		k, _ := s.PublicKey(ctx, sc)
		for i := range 100 {
			if _, err := s.Set(ctx, sc, 1, fmt.Sprintf("S%d", i), Put{KeyID: k.ID, EncryptedValue: sealFor(t, k, "value"), Visibility: "all"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		v, err := s.Values(ctx, "actions", repo)
		if err != nil || len(v) != 100 {
			b.Fatal(len(v), err)
		}
	}
}
