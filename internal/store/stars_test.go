package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// The stars migration, applied to a database that already has
// repositories, makes the creator of each watch it: the actor of its
// repository.created event, else its owner when that is a user; an
// organization's repository without such an event gets no watcher. The
// counters start from what it wrote.
func TestStarsMigrationBackfillsCreators(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	accts := map[string]*model.Account{}
	repos := map[string]*model.Repo{}
	err := s.Tx(ctx, func(tx store.Q) error {
		for _, a := range []*model.Account{
			{Login: "mona", Type: model.TypeUser}, {Login: "hubot", Type: model.TypeUser}, {Login: "acme", Type: model.TypeOrganization},
		} {
			if err := tx.CreateAccount(ctx, a); err != nil {
				return err
			}
			accts[a.Login] = a
		}
		for _, n := range []string{"mona/app", "acme/lib", "acme/old"} {
			owner := accts[n[:4]]
			r := &model.Repo{OwnerID: owner.ID, Owner: owner, Name: n[5:], Visibility: model.Public}
			if err := tx.CreateRepo(ctx, r); err != nil {
				return err
			}
			repos[n] = r
		}
		// hubot created acme/lib; mona/app has no event (made before
		// events were recorded): its owner created it.
		return tx.AppendEvent(ctx, "repository.created", accts["hubot"].ID, repos["acme/lib"].ID, accts["acme"].ID, map[string]any{})
	})
	if err != nil {
		t.Fatal(err)
	}
	v := store.MigrationVersion("CREATE TABLE repo_stars")
	if v == 0 {
		t.Fatal("no migration creates repo_stars")
	}
	// Undo the migration and apply it again, now over these rows.
	for _, stmt := range []string{
		"DROP TABLE repo_stars", "DROP TABLE repo_subscriptions",
		"ALTER TABLE repos DROP COLUMN stargazers_count", "ALTER TABLE repos DROP COLUMN subscribers_count",
		fmt.Sprintf("DELETE FROM schema_migrations WHERE version = %d", v),
	} {
		if err := s.ExecRaw(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := store.Migrate(ctx, s); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"mona/app": "mona", "acme/lib": "hubot", "acme/old": ""}
	for name, watcher := range want {
		r := repos[name]
		users, total, err := s.R().Watchers(ctx, r.ID, 30, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, u := range users {
			got += u.Login
		}
		if got != watcher || (watcher == "") != (total == 0) || len(users) != total {
			t.Errorf("%s: watchers %q (total %d), want %q", name, got, total, watcher)
		}
		view, err := s.R().RepoByID(ctx, r.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if view.Repo.SubscribersCount != total || view.Repo.StargazersCount != 0 {
			t.Errorf("%s: counters %d stars %d watchers, want 0 and %d", name, view.Repo.StargazersCount, view.Repo.SubscribersCount, total)
		}
		if watcher != "" {
			sub, err := s.R().SubscriptionOf(ctx, accts[watcher].ID, r.ID)
			if err != nil || !sub.Subscribed || sub.Ignored || !sub.CreatedAt.Equal(r.CreatedAt) {
				t.Errorf("%s: subscription of %s: %+v %v", name, watcher, sub, err)
			}
		}
	}
}

// Stars and subscriptions keep the counters exact through repeated and
// undone changes, and leave them when their user is deleted.
func TestStarAndSubscriptionCounters(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	var mona, hubot *model.Account
	var repo *model.Repo
	tx := func(fn func(tx store.Q) error) {
		t.Helper()
		if err := s.Tx(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	counts := func() (int, int) {
		t.Helper()
		v, err := s.R().RepoByID(ctx, repo.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		return v.Repo.StargazersCount, v.Repo.SubscribersCount
	}
	tx(func(tx store.Q) error {
		mona, hubot = &model.Account{Login: "mona", Type: model.TypeUser}, &model.Account{Login: "hubot", Type: model.TypeUser}
		for _, a := range []*model.Account{mona, hubot} {
			if err := tx.CreateAccount(ctx, a); err != nil {
				return err
			}
		}
		repo = &model.Repo{OwnerID: mona.ID, Owner: mona, Name: "app", Visibility: model.Public}
		if err := tx.CreateRepo(ctx, repo); err != nil {
			return err
		}
		return tx.WatchRepo(ctx, mona.ID, repo.ID)
	})
	steps := []struct {
		name         string
		fn           func(tx store.Q) (bool, error)
		changed      bool
		stars, watch int
	}{
		{"star", func(tx store.Q) (bool, error) { _, c, err := tx.StarRepo(ctx, hubot.ID, repo.ID); return c, err }, true, 1, 1},
		{"star again", func(tx store.Q) (bool, error) { _, c, err := tx.StarRepo(ctx, hubot.ID, repo.ID); return c, err }, false, 1, 1},
		{"owner stars", func(tx store.Q) (bool, error) { _, c, err := tx.StarRepo(ctx, mona.ID, repo.ID); return c, err }, true, 2, 1},
		{"unstar", func(tx store.Q) (bool, error) { return tx.UnstarRepo(ctx, mona.ID, repo.ID) }, true, 1, 1},
		{"unstar again", func(tx store.Q) (bool, error) { return tx.UnstarRepo(ctx, mona.ID, repo.ID) }, false, 1, 1},
		{"watch", func(tx store.Q) (bool, error) {
			_, c, err := tx.SetSubscription(ctx, hubot.ID, repo.ID, false)
			return c, err
		}, true, 1, 2},
		{"watch again", func(tx store.Q) (bool, error) {
			_, c, err := tx.SetSubscription(ctx, hubot.ID, repo.ID, false)
			return c, err
		}, false, 1, 2},
		{"ignore", func(tx store.Q) (bool, error) {
			_, c, err := tx.SetSubscription(ctx, hubot.ID, repo.ID, true)
			return c, err
		}, true, 1, 1},
		{"ignore again", func(tx store.Q) (bool, error) {
			_, c, err := tx.SetSubscription(ctx, hubot.ID, repo.ID, true)
			return c, err
		}, false, 1, 1},
		{"delete ignoring", func(tx store.Q) (bool, error) { return tx.DeleteSubscription(ctx, hubot.ID, repo.ID) }, true, 1, 1},
		{"ignore anew", func(tx store.Q) (bool, error) {
			_, c, err := tx.SetSubscription(ctx, hubot.ID, repo.ID, true)
			return c, err
		}, true, 1, 1},
		{"watch after ignoring", func(tx store.Q) (bool, error) {
			_, c, err := tx.SetSubscription(ctx, hubot.ID, repo.ID, false)
			return c, err
		}, true, 1, 2},
		{"delete owner's", func(tx store.Q) (bool, error) { return tx.DeleteSubscription(ctx, mona.ID, repo.ID) }, true, 1, 1},
		{"delete again", func(tx store.Q) (bool, error) { return tx.DeleteSubscription(ctx, mona.ID, repo.ID) }, false, 1, 1},
	}
	for _, st := range steps {
		var changed bool
		tx(func(tx store.Q) error {
			var err error
			changed, err = st.fn(tx)
			return err
		})
		stars, watch := counts()
		if changed != st.changed || stars != st.stars || watch != st.watch {
			t.Errorf("%s: changed %v, %d stars, %d watchers; want %v, %d, %d", st.name, changed, stars, watch, st.changed, st.stars, st.watch)
		}
	}
	got, err := s.R().StarredBy(ctx, hubot.ID, []int64{repo.ID, repo.ID + 1000})
	if err != nil || !got[repo.ID] || got[repo.ID+1000] || len(got) != 1 {
		t.Errorf("StarredBy: %v %v", got, err)
	}
	if got, err := s.R().StarredBy(ctx, 0, []int64{repo.ID}); err != nil || len(got) != 0 {
		t.Errorf("StarredBy anonymous: %v %v", got, err)
	}
	// Deleting hubot takes their star and watch off the counters.
	tx(func(tx store.Q) error { return tx.DeleteAccount(ctx, hubot.ID) })
	if stars, watch := counts(); stars != 0 || watch != 0 {
		t.Errorf("after deleting the stargazer: %d stars, %d watchers", stars, watch)
	}
}
