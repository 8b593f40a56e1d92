package forks_test

import (
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// Changing a repository between public and private erases its stars and
// watchers and detaches its forks, as GitHub documents ("Setting
// repository visibility"): made private, the public forks stay one network
// under the oldest fork; made public, each private fork stands alone.
func TestVisibilityChangeErasesStarsAndDetachesForks(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	bob, bobTok := e.NewUser("bob", false)
	_, carolTok := e.NewUser("carol", false)
	seeded(t, e, "mona", monaTok, "app", false)
	fork(t, e.GitHub(bobTok), "mona", "app", nil)
	e.RunJobs()
	fork(t, e.GitHub(carolTok), "bob", "app", nil) // a fork of the fork
	e.RunJobs()
	for _, tok := range []string{bobTok, carolTok} {
		if _, err := e.GitHub(tok).Activity.Star(ctx, "mona", "app"); err != nil {
			t.Fatal(err)
		}
	}
	mona2 := e.GitHub(monaTok)
	if r, _, err := mona2.Repositories.Get(ctx, "mona", "app"); err != nil || r.GetStargazersCount() != 2 || r.GetSubscribersCount() != 1 || r.GetForksCount() != 1 {
		t.Fatalf("before: %v stars %d watchers %d forks %d", err, r.GetStargazersCount(), r.GetSubscribersCount(), r.GetForksCount())
	}

	r, _, err := mona2.Repositories.Edit(ctx, "mona", "app", &github.Repository{Private: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if r.GetStargazersCount() != 0 || r.GetSubscribersCount() != 0 || r.GetWatchersCount() != 0 || r.GetForksCount() != 0 {
		t.Errorf("made private: stars %d watchers %d/%d forks %d", r.GetStargazersCount(), r.GetSubscribersCount(), r.GetWatchersCount(), r.GetForksCount())
	}
	if got := list(t, e.Must(200, "GET", "/user/starred", bobTok, nil)); len(got) != 0 {
		t.Errorf("bob's stars: %v", got)
	}
	e.Must(404, "GET", "/user/starred/mona/app", bobTok, nil)
	e.Must(404, "GET", "/repos/mona/app/subscription", monaTok, nil)
	// bob's fork is the root of the public network now, carol's its fork.
	b, _, err := e.GitHub(bobTok).Repositories.Get(ctx, "bob", "app")
	if err != nil || b.GetFork() || b.Parent != nil || b.GetPrivate() || b.GetForksCount() != 1 {
		t.Errorf("bob/app: %v fork %v parent %v private %v forks %d", err, b.GetFork(), b.GetParent().GetFullName(), b.GetPrivate(), b.GetForksCount())
	}
	c, _, err := e.GitHub(carolTok).Repositories.Get(ctx, "carol", "app")
	if err != nil || c.GetParent().GetFullName() != "bob/app" || c.GetSource().GetFullName() != "bob/app" {
		t.Errorf("carol/app: %v parent %s source %s", err, c.GetParent().GetFullName(), c.GetSource().GetFullName())
	}

	// Private back to public: stars given meanwhile go too, and each
	// private fork stands alone with its own forks under it.
	if _, err := mona2.Activity.Star(ctx, "mona", "app"); err != nil {
		t.Fatal(err)
	}
	v, err := e.Store.R().RepoByName(ctx, "mona", "app", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, v.Repo.ID, bob.ID, authz.Read) }); err != nil {
		t.Fatal(err)
	}
	fork(t, e.GitHub(bobTok), "mona", "app", &github.RepositoryCreateForkOptions{Name: "private-app"})
	e.RunJobs()
	r, _, err = mona2.Repositories.Edit(ctx, "mona", "app", &github.Repository{Private: github.Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if r.GetStargazersCount() != 0 || r.GetForksCount() != 0 {
		t.Errorf("made public: stars %d forks %d", r.GetStargazersCount(), r.GetForksCount())
	}
	p, _, err := e.GitHub(bobTok).Repositories.Get(ctx, "bob", "private-app")
	if err != nil || p.GetFork() || !p.GetPrivate() {
		t.Errorf("bob/private-app: %v fork %v private %v", err, p.GetFork(), p.GetPrivate())
	}
	_ = mona
}
