package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

type repoFixture struct {
	s                     *store.Store
	mona, hubot, outsider *model.Account
	acme                  *model.Account
	pub, priv, intl, mine *model.Repo
	ctx                   context.Context
}

// newRepoFixture: mona owns "mine" (private); acme (admin hubot, member mona
// with base permission none) owns pub (public), priv (private) and intl
// (internal).
func newRepoFixture(t *testing.T) *repoFixture {
	t.Helper()
	f := &repoFixture{s: storetest.Open(t), ctx: context.Background()}
	ctx := f.ctx
	f.mona = &model.Account{Login: "mona", Type: model.TypeUser}
	f.hubot = &model.Account{Login: "hubot", Type: model.TypeUser}
	f.outsider = &model.Account{Login: "outsider", Type: model.TypeUser}
	f.acme = &model.Account{Login: "acme", DefaultRepoPermission: "none"}
	err := f.s.Tx(ctx, func(tx store.Q) error {
		for _, u := range []*model.Account{f.mona, f.hubot, f.outsider} {
			if err := tx.CreateAccount(ctx, u); err != nil {
				return err
			}
		}
		if err := tx.CreateOrg(ctx, f.acme, f.hubot.ID); err != nil {
			return err
		}
		if err := tx.SetMembership(ctx, &model.Membership{OrgID: f.acme.ID, UserID: f.mona.ID, Role: model.RoleMember, State: "active"}); err != nil {
			return err
		}
		f.pub = &model.Repo{OwnerID: f.acme.ID, Owner: f.acme, Name: "Pub", Visibility: model.Public}
		f.priv = &model.Repo{OwnerID: f.acme.ID, Owner: f.acme, Name: "priv", Visibility: model.Private}
		f.intl = &model.Repo{OwnerID: f.acme.ID, Owner: f.acme, Name: "intl", Visibility: model.Internal}
		f.mine = &model.Repo{OwnerID: f.mona.ID, Owner: f.mona, Name: "mine", Visibility: model.Private}
		for _, r := range []*model.Repo{f.pub, f.priv, f.intl, f.mine} {
			if err := tx.CreateRepo(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *repoFixture) names(t *testing.T, q store.RepoQuery) ([]string, int) {
	t.Helper()
	list, total, err := f.s.R().ListRepos(f.ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range list {
		out = append(out, v.Repo.FullName())
	}
	return out, total
}

func TestRepoCreateGetDuplicate(t *testing.T) {
	f := newRepoFixture(t)
	ctx := f.ctx
	v, err := f.s.R().RepoByName(ctx, "ACME", "pub", f.mona.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Repo.Name != "Pub" || v.Repo.Owner.Login != "acme" || !v.Repo.Owner.IsOrg() || v.Repo.PushedAt == nil || v.Repo.DefaultBranch != "main" {
		t.Fatalf("repo %+v owner %+v", v.Repo, v.Repo.Owner)
	}
	if v.Facts.OrgRole != model.RoleMember || v.Facts.OrgDefault != authz.None || v.Facts.Collab != authz.None {
		t.Fatalf("facts %+v", v.Facts)
	}
	// Names are unique per owner, ignoring case.
	dup := &model.Repo{OwnerID: f.acme.ID, Owner: f.acme, Name: "PUB", Visibility: model.Public}
	if err := f.s.Tx(ctx, func(tx store.Q) error { return tx.CreateRepo(ctx, dup) }); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("duplicate: %v", err)
	}
	// The same name under another owner is fine.
	other := &model.Repo{OwnerID: f.mona.ID, Owner: f.mona, Name: "pub", Visibility: model.Public}
	if err := f.s.Tx(ctx, func(tx store.Q) error { return tx.CreateRepo(ctx, other) }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.R().RepoByName(ctx, "acme", "nope", 0); err != model.ErrNotFound {
		t.Fatalf("missing: %v", err)
	}
	// A failed transaction leaves no row behind.
	half := &model.Repo{OwnerID: f.mona.ID, Owner: f.mona, Name: "half", Visibility: model.Public}
	err = f.s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateRepo(ctx, half); err != nil {
			return err
		}
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("no error")
	}
	if _, err := f.s.R().RepoByName(ctx, "mona", "half", 0); err != model.ErrNotFound {
		t.Fatalf("partial row: %v", err)
	}
}

func TestRepoFactsAndCollaborators(t *testing.T) {
	f := newRepoFixture(t)
	ctx := f.ctx
	if err := f.s.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, f.priv.ID, f.outsider.ID, authz.Triage) }); err != nil {
		t.Fatal(err)
	}
	v, err := f.s.R().RepoByID(ctx, f.priv.ID, f.outsider.ID)
	if err != nil || v.Facts.Collab != authz.Triage || v.Facts.OrgRole != "" {
		t.Fatalf("%+v %v", v, err)
	}
	admin, _ := f.s.R().RepoByID(ctx, f.priv.ID, f.hubot.ID)
	if admin.Facts.OrgRole != model.RoleAdmin {
		t.Fatalf("admin facts %+v", admin.Facts)
	}
	// Pending members have no role.
	if err := f.s.Tx(ctx, func(tx store.Q) error {
		return tx.SetMembership(ctx, &model.Membership{OrgID: f.acme.ID, UserID: f.mona.ID, Role: model.RoleMember, State: "pending"})
	}); err != nil {
		t.Fatal(err)
	}
	pending, _ := f.s.R().RepoByID(ctx, f.priv.ID, f.mona.ID)
	if pending.Facts.OrgRole != "" {
		t.Fatalf("pending member facts %+v", pending.Facts)
	}
}

func TestRepoRenameRedirects(t *testing.T) {
	f := newRepoFixture(t)
	ctx := f.ctx
	rename := func(r *model.Repo, to string) error {
		return f.s.Tx(ctx, func(tx store.Q) error {
			old := r.Name
			r.Name = to
			return tx.UpdateRepo(ctx, r, old)
		})
	}
	if err := rename(f.pub, "public-one"); err != nil {
		t.Fatal(err)
	}
	if id, err := f.s.R().RepoRedirect(ctx, "acme", "PUB"); err != nil || id != f.pub.ID {
		t.Fatalf("redirect: %d %v", id, err)
	}
	// Renaming again keeps the first redirect pointing at the repository.
	if err := rename(f.pub, "public-two"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"pub", "public-one"} {
		if id, err := f.s.R().RepoRedirect(ctx, "acme", n); err != nil || id != f.pub.ID {
			t.Fatalf("redirect %s: %d %v", n, id, err)
		}
	}
	// Renaming onto an existing name fails.
	if err := rename(f.pub, "PRIV"); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("rename onto priv: %v", err)
	}
	f.pub.Name = "public-two"
	// A new repository takes an old name over.
	taken := &model.Repo{OwnerID: f.acme.ID, Owner: f.acme, Name: "pub", Visibility: model.Public}
	if err := f.s.Tx(ctx, func(tx store.Q) error { return tx.CreateRepo(ctx, taken) }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.R().RepoRedirect(ctx, "acme", "pub"); err != model.ErrNotFound {
		t.Fatalf("redirect survived: %v", err)
	}
	// Deleting the repository removes its remaining redirects.
	if err := f.s.Tx(ctx, func(tx store.Q) error { return tx.DeleteRepo(ctx, f.pub.ID) }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.R().RepoRedirect(ctx, "acme", "public-one"); err != model.ErrNotFound {
		t.Fatalf("redirect after delete: %v", err)
	}
	if err := f.s.Tx(ctx, func(tx store.Q) error { return tx.DeleteRepo(ctx, f.pub.ID) }); err != model.ErrNotFound {
		t.Fatalf("second delete: %v", err)
	}
}

func TestListReposVisibility(t *testing.T) {
	f := newRepoFixture(t)
	all := store.RepoQuery{Sort: "full_name"}
	eq := func(got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}
	// Anonymous: public only.
	got, total := f.names(t, all)
	eq(got, "acme/Pub")
	if total != 1 {
		t.Fatalf("total %d", total)
	}
	// mona: her own, the public one and the internal one (member, base none).
	q := all
	q.Viewer = store.Viewer{UserID: f.mona.ID}
	got, _ = f.names(t, q)
	eq(got, "acme/intl", "acme/Pub", "mona/mine")
	// The org admin sees every org repository, not mona's.
	q.Viewer = store.Viewer{UserID: f.hubot.ID}
	got, _ = f.names(t, q)
	eq(got, "acme/intl", "acme/priv", "acme/Pub")
	// A token without the repo scope sees public ones only.
	q.Viewer = store.Viewer{UserID: f.mona.ID, PublicOnly: true}
	got, _ = f.names(t, q)
	eq(got, "acme/Pub")
	// A token for selected repositories.
	q.Viewer = store.Viewer{UserID: f.mona.ID, RepoIDs: []int64{f.mine.ID}}
	got, _ = f.names(t, q)
	eq(got, "acme/Pub", "mona/mine")
	// Affiliations of the viewer.
	q = store.RepoQuery{Viewer: store.Viewer{UserID: f.mona.ID}, ViewerOwner: true}
	got, _ = f.names(t, q)
	eq(got, "mona/mine")
	q = store.RepoQuery{Viewer: store.Viewer{UserID: f.mona.ID}, ViewerOrgMember: true}
	got, _ = f.names(t, q)
	eq(got, "acme/intl")
	// A collaborator.
	if err := f.s.Tx(f.ctx, func(tx store.Q) error { return tx.SetCollaborator(f.ctx, f.priv.ID, f.outsider.ID, authz.Read) }); err != nil {
		t.Fatal(err)
	}
	q = store.RepoQuery{Viewer: store.Viewer{UserID: f.outsider.ID}, ViewerCollaborator: true}
	got, _ = f.names(t, q)
	eq(got, "acme/priv")
	// Another user's collaborations, as an anonymous viewer sees them.
	q = store.RepoQuery{CollaboratorOf: f.outsider.ID}
	got, _ = f.names(t, q)
	eq(got)
	// Paging with a total, newest first.
	q = store.RepoQuery{Viewer: store.Viewer{UserID: f.hubot.ID}, OwnerID: f.acme.ID, Sort: "created", Desc: true, Limit: 2}
	got, total = f.names(t, q)
	eq(got, "acme/intl", "acme/priv")
	if total != 3 {
		t.Fatalf("total %d", total)
	}
	q.Offset = 2
	got, _ = f.names(t, q)
	eq(got, "acme/Pub")
	q.Offset, q.Visibility = 0, "private"
	got, total = f.names(t, q)
	eq(got, "acme/intl", "acme/priv")
	if total != 2 {
		t.Fatalf("private total %d", total)
	}
	// GET /repositories.
	pub, err := f.s.R().PublicReposSince(f.ctx, 0, 10)
	if err != nil || len(pub) != 1 || pub[0].Repo.ID != f.pub.ID {
		t.Fatalf("public since: %+v %v", pub, err)
	}
	if pub, _ := f.s.R().PublicReposSince(f.ctx, f.pub.ID, 10); len(pub) != 0 {
		t.Fatalf("public since last: %+v", pub)
	}
}
