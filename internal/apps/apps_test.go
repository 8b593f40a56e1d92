package apps

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

func TestSlug(t *testing.T) {
	for name, want := range map[string]string{
		"Triage Bot": "triage-bot", "  CI / CD  ": "ci-cd", "Octo_Helper 2": "octo-helper-2", "!!!": "",
	} {
		if got := Slug(name); got != want {
			t.Errorf("Slug(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestParsePermissions(t *testing.T) {
	got, err := ParsePermissions("issues:write, contents:read,metadata")
	if err != nil || !reflect.DeepEqual(got, map[string]string{"issues": "write", "contents": "read", "metadata": "read"}) {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"issues:admin", "nope:read", "workflows:read"} {
		if _, err := ParsePermissions(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// The store's view of an installation token follows its installation:
// the repositories selected now, the permissions it still has, its
// suspension and its removal.
func TestTokenFollowsInstallation(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	s := &Service{Store: st, KeyBits: 1024}
	org := store.NewOrg("acme")
	owner := &model.Account{Login: "owner", Type: model.TypeUser}
	var repos []*model.Repo
	err := st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, owner); err != nil {
			return err
		}
		if err := tx.CreateOrg(ctx, org, owner.ID); err != nil {
			return err
		}
		for _, n := range []string{"a", "b"} {
			r := &model.Repo{OwnerID: org.ID, Name: n, Visibility: model.Private, DefaultBranch: "main"}
			if err := tx.CreateRepo(ctx, r); err != nil {
				return err
			}
			repos = append(repos, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	created, err := s.Create(ctx, owner.ID, CreateInput{Owner: org, Name: "Helper", Permissions: map[string]string{"issues": "write"}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.Install(ctx, owner.ID, created.App, org, false, []int64{repos[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.CreateToken(ctx, in, TokenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	auth := func() *authz.Caller {
		c, ok, err := st.R().Authenticate(ctx, tok.Token)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return nil
		}
		return c
	}
	c := auth()
	if c == nil || c.User.ID != created.App.BotID || c.InstallationTargetID != org.ID || !reflect.DeepEqual(c.RepoIDs, map[int64]bool{repos[0].ID: true}) ||
		c.Permissions["issues"] != "write" || c.Permissions["metadata"] != "read" {
		t.Fatalf("caller %+v", c)
	}
	if err := st.Tx(ctx, func(tx store.Q) error { return tx.AddInstallationRepo(ctx, in.ID, repos[1].ID) }); err != nil {
		t.Fatal(err)
	}
	if c := auth(); len(c.RepoIDs) != 2 {
		t.Fatalf("after selecting b: %v", c.RepoIDs)
	}
	if err := s.Suspend(ctx, in, true, owner); err != nil {
		t.Fatal(err)
	}
	if c := auth(); !c.InstallationSuspended {
		t.Fatal("suspension not seen")
	}
	if _, err := s.CreateToken(ctx, in, TokenRequest{}); err != ErrSuspended {
		t.Fatalf("token for a suspended installation: %v", err)
	}
	if err := s.Delete(ctx, owner.ID, in); err != nil {
		t.Fatal(err)
	}
	if auth() != nil {
		t.Fatal("token of a deleted installation works")
	}
	// Expired tokens stop working.
	in2, err := s.Install(ctx, owner.ID, created.App, org, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok2, err := s.CreateToken(ctx, in2, TokenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	now := st.Now()
	st.SetClock(func() time.Time { return now.Add(TokenLifetime) })
	if c, ok, _ := st.R().Authenticate(ctx, tok2.Token); ok || c != nil {
		t.Fatal("expired token works")
	}
}
