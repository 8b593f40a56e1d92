package secrets

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"golang.org/x/crypto/nacl/box"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

func sealFor(t *testing.T, k PublicKey, v string) string {
	t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(k.Key)
	var pub [32]byte
	copy(pub[:], raw)
	ct, err := box.SealAnonymous(nil, []byte(v), &pub, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(ct)
}

// TestRotation: values are stored encrypted; after the operator moves from
// the database's key to one of their own, the values move to the new key,
// the old public key still opens boxes and the new one is answered.
func TestRotation(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	_, r := fixture(t, st)
	repo := model.SecretScope{App: "actions", Kind: model.SecretRepository, OwnerID: r.ID}
	first := &Service{Store: st}
	oldKey, err := first.PublicKey(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Set(ctx, repo, 1, "token", Put{KeyID: oldKey.ID, EncryptedValue: sealFor(t, oldKey, "plain-value")}); err != nil {
		t.Fatal(err)
	}
	stored, err := st.R().Secret(ctx, repo, "TOKEN")
	if err != nil || strings.Contains(stored.Value, "plain-value") || strings.Contains(stored.Value, base64.StdEncoding.EncodeToString([]byte("plain-value"))) {
		t.Fatalf("stored %q: %v", stored.Value, err)
	}

	keys, err := ParseKeys(NewKey())
	if err != nil {
		t.Fatal(err)
	}
	rotated := &Service{Store: st, Keys: keys}
	if err := rotated.Reencrypt(ctx); err != nil {
		t.Fatal(err)
	}
	moved, _ := st.R().Secret(ctx, repo, "TOKEN")
	ring, _ := rotated.keyring(ctx)
	if !strings.HasPrefix(moved.Value, ring[0].tag) || moved.Value == stored.Value {
		t.Errorf("not re-encrypted: %q", moved.Value)
	}
	got, err := rotated.Values(ctx, "actions", r)
	if err != nil || got["TOKEN"] != "plain-value" {
		t.Fatalf("values %v: %v", got, err)
	}
	newKey, _ := rotated.PublicKey(ctx, repo)
	if newKey.ID == oldKey.ID {
		t.Error("the public key did not change with the server key")
	}
	if _, err := rotated.Set(ctx, repo, 1, "TOKEN", Put{KeyID: oldKey.ID, EncryptedValue: sealFor(t, oldKey, "v2")}); err != nil {
		t.Errorf("a box for the former key: %v", err)
	}
	// Only the new key: the former key's boxes no longer open.
	alone := &Service{Store: st, Keys: keys}
	alone.Keys = keys[:1]
	alone.Store = storetest.Open(t)
	if _, err := alone.Set(ctx, repo, 1, "TOKEN", Put{KeyID: oldKey.ID, EncryptedValue: sealFor(t, oldKey, "v3")}); err != ErrBadBox {
		t.Errorf("a box for an unknown key: %v", err)
	}
	// A value moved to another secret's row does not open there.
	other := model.SecretScope{App: "actions", Kind: model.SecretRepository, OwnerID: r.ID + 1}
	if _, err := openValue(ring, moved.Value, scopeName(other)+"/TOKEN"); err == nil {
		t.Error("a ciphertext opened under another scope")
	}
}

// TestCascade: deleting a repository or an organization deletes its
// secrets and its places in selected lists.
func TestCascade(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	org, repo := fixture(t, st)
	s := &Service{Store: st}
	put := func(sc model.SecretScope, in Put) {
		k, _ := s.PublicKey(ctx, sc)
		in.KeyID, in.EncryptedValue = k.ID, sealFor(t, k, "v")
		if _, err := s.Set(ctx, sc, 0, "X", in); err != nil {
			t.Fatal(err)
		}
	}
	orgScope := model.SecretScope{App: "actions", Kind: model.SecretOrganization, OwnerID: org.ID}
	put(model.SecretScope{App: "actions", Kind: model.SecretRepository, OwnerID: repo.ID}, Put{})
	put(orgScope, Put{Visibility: "selected", RepoIDs: []int64{repo.ID}})
	if err := st.Tx(ctx, func(tx store.Q) error { return tx.DeleteRepo(ctx, repo.ID) }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.R().Secret(ctx, model.SecretScope{App: "actions", Kind: model.SecretRepository, OwnerID: repo.ID}, "X"); err != model.ErrNotFound {
		t.Errorf("repository secret after the repository: %v", err)
	}
	sec, err := st.R().Secret(ctx, orgScope, "X")
	if err != nil {
		t.Fatalf("organization secret: %v", err)
	}
	// Counted without the repositories table: the rows themselves went.
	if err := st.Tx(ctx, func(tx store.Q) error { return tx.AddSecretRepo(ctx, sec.ID, repo.ID) }); err == nil {
		t.Error("a deleted repository was selected again")
	}
	if err := st.Tx(ctx, func(tx store.Q) error { return tx.DeleteAccount(ctx, org.ID) }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.R().Secret(ctx, orgScope, "X"); err != model.ErrNotFound {
		t.Errorf("organization secret after the organization: %v", err)
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"a_b1": "A_B1", "_x": "_X", "GITHUB_TOKEN": "", "github_x": "", "1A": "", "A-B": "", "": "", strings.Repeat("A", 256): ""} {
		got, err := Name(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("Name(%q) = %q, %v", in, got, err)
		}
	}
}

// fixture makes an organization and a private repository of it.
func fixture(t testing.TB, st *store.Store) (*model.Account, *model.Repo) {
	t.Helper()
	ctx := context.Background()
	org := &model.Account{Login: "acme", Type: model.TypeOrganization}
	repo := &model.Repo{Name: "app", Visibility: model.Private, DefaultBranch: "main"}
	if err := st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, org); err != nil {
			return err
		}
		repo.OwnerID, repo.Owner = org.ID, org
		return tx.CreateRepo(ctx, repo)
	}); err != nil {
		t.Fatal(err)
	}
	return org, repo
}

// TestSeal: a value sealed on the server with the scope's key opens
// through Set like a client's box, and a job reads it back.
func TestSeal(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	_, r := fixture(t, st)
	sc := model.SecretScope{App: "actions", Kind: model.SecretRepository, OwnerID: r.ID}
	s := &Service{Store: st}
	put, err := s.Seal(ctx, sc, "typed in a form")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(put.EncryptedValue, "typed") || put.KeyID == "" {
		t.Fatalf("sealed: %+v", put)
	}
	if _, err := s.Set(ctx, sc, 1, "from_web", put); err != nil {
		t.Fatal(err)
	}
	vals, err := s.Values(ctx, "actions", r)
	if err != nil || vals["FROM_WEB"] != "typed in a form" {
		t.Fatalf("values %v: %v", vals, err)
	}
	other := model.SecretScope{App: "actions", Kind: model.SecretRepository, OwnerID: r.ID + 1000}
	if _, err := s.Set(ctx, other, 1, "from_web", put); err == nil {
		t.Fatal("a box sealed for one repository opened for another")
	}
}
