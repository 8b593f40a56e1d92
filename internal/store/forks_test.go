package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// network makes root (mona), a fork by hubot, a fork of that by carol and
// a second fork of root by dave; it returns the store and the four repos.
func network(t testing.TB) (*store.Store, map[string]*model.Repo) {
	s := storetest.Open(t)
	ctx := context.Background()
	repos := map[string]*model.Repo{}
	err := s.Tx(ctx, func(tx store.Q) error {
		accts := map[string]*model.Account{}
		for _, l := range []string{"mona", "hubot", "carol", "dave"} {
			a := &model.Account{Login: l, Type: model.TypeUser}
			if err := tx.CreateAccount(ctx, a); err != nil {
				return err
			}
			accts[l] = a
		}
		mk := func(owner string, parent *model.Repo) (*model.Repo, error) {
			r := &model.Repo{OwnerID: accts[owner].ID, Owner: accts[owner], Name: "app", Visibility: model.Public}
			if parent != nil {
				r.ParentID, r.SourceID = parent.ID, parent.SourceID
				if r.SourceID == 0 {
					r.SourceID = parent.ID
				}
			}
			return r, tx.CreateRepo(ctx, r)
		}
		var err error
		if repos["mona"], err = mk("mona", nil); err != nil {
			return err
		}
		if repos["hubot"], err = mk("hubot", repos["mona"]); err != nil {
			return err
		}
		if repos["carol"], err = mk("carol", repos["hubot"]); err != nil {
			return err
		}
		repos["dave"], err = mk("dave", repos["mona"])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, repos
}

func TestNetworkRepoOwnedBy(t *testing.T) {
	s, r := network(t)
	ctx := context.Background()
	q := s.R()
	cases := []struct {
		from  string
		owner string
		want  string // "" not found
	}{
		{"mona", "mona", "mona"},
		{"carol", "mona", "mona"},   // the source, from a fork of a fork
		{"mona", "carol", "carol"},  // a fork two levels down
		{"dave", "carol", "carol"},  // across branches of the network
		{"hubot", "hubot", "hubot"}, // the repository itself
		{"carol", "dave", "dave"},
	}
	for _, c := range cases {
		got, err := q.NetworkRepoOwnedBy(ctx, r[c.from].ID, r[c.owner].OwnerID)
		if err != nil || got.ID != r[c.want].ID || got.Owner == nil {
			t.Errorf("from %s owned by %s: %v %v", c.from, c.owner, got, err)
		}
	}
	var other *model.Account
	err := s.Tx(ctx, func(tx store.Q) error {
		other = &model.Account{Login: "other", Type: model.TypeUser}
		return tx.CreateAccount(ctx, other)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.NetworkRepoOwnedBy(ctx, r["carol"].ID, other.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("no repository in the network: %v", err)
	}
	// Loaded with every repository: parent, source and direct forks.
	v, err := q.RepoByID(ctx, r["carol"].ID, 0)
	if err != nil || v.Repo.ParentID != r["hubot"].ID || v.Repo.SourceID != r["mona"].ID {
		t.Errorf("carol's fork: %+v %v", v, err)
	}
	v, err = q.RepoByID(ctx, r["mona"].ID, 0)
	if err != nil || v.Repo.ForksCount != 2 || v.Repo.ParentID != 0 {
		t.Errorf("root: %+v %v", v.Repo, err)
	}
	if n, err := q.NetworkCount(ctx, r["mona"].ID); err != nil || n != 3 {
		t.Errorf("network count %d %v", n, err)
	}
}

// Deleting a repository in the middle moves its forks up; deleting the
// root makes its oldest fork the root.
func TestDeleteInNetwork(t *testing.T) {
	s, r := network(t)
	ctx := context.Background()
	del := func(name string) {
		t.Helper()
		if err := s.Tx(ctx, func(tx store.Q) error { return tx.DeleteRepo(ctx, r[name].ID) }); err != nil {
			t.Fatal(err)
		}
	}
	get := func(name string) *model.Repo {
		t.Helper()
		v, err := s.R().RepoByID(ctx, r[name].ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		return v.Repo
	}
	del("hubot")
	if c := get("carol"); c.ParentID != r["mona"].ID || c.SourceID != r["mona"].ID {
		t.Errorf("carol after hubot went: parent %d source %d", c.ParentID, c.SourceID)
	}
	if m := get("mona"); m.ForksCount != 2 {
		t.Errorf("mona's forks %d", m.ForksCount)
	}
	del("mona")
	c, d := get("carol"), get("dave")
	// carol's fork (made before dave's) is the new root.
	if c.ParentID != 0 || c.SourceID != 0 || c.ForksCount != 1 || d.ParentID != c.ID || d.SourceID != c.ID {
		t.Errorf("after the root went: carol %d/%d/%d dave %d/%d", c.ParentID, c.SourceID, c.ForksCount, d.ParentID, d.SourceID)
	}
}

// BenchmarkListReposUncached is a page of 30 of 100 repositories read in a
// transaction (past the read cache), 20 a transaction: the cost of
// counting forks per row shows here.
func BenchmarkListReposUncached(b *testing.B) {
	s := storetest.Open(b)
	ctx := context.Background()
	mona := &model.Account{Login: "mona", Type: model.TypeUser}
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, mona); err != nil {
			return err
		}
		for i := range 100 {
			if err := tx.CreateRepo(ctx, &model.Repo{OwnerID: mona.ID, Owner: mona, Name: fmt.Sprintf("r%d", i), Visibility: model.Public}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		err := s.Tx(ctx, func(tx store.Q) error {
			// Many pages a transaction, so that its cost does not hide theirs.
			for range 20 {
				list, _, err := tx.ListRepos(ctx, store.RepoQuery{Viewer: store.Viewer{UserID: mona.ID}, OwnedBy: mona.ID, Limit: 30})
				if err == nil && len(list) != 30 {
					err = fmt.Errorf("%d repositories", len(list))
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
