package stars_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/stars"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// The service as GraphQL calls it (addStar, removeStar, viewerHasStarred):
// by repository id, with the caller's token, answering not found for a
// repository the caller may not see and appending the star's events.
func TestServiceByRepositoryID(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	svc := stars.New(st)
	var mona, hubot *model.Account
	var app, secret *model.Repo
	err := st.Tx(ctx, func(tx store.Q) error {
		mona, hubot = &model.Account{Login: "mona", Type: model.TypeUser}, &model.Account{Login: "hubot", Type: model.TypeUser}
		for _, a := range []*model.Account{mona, hubot} {
			if err := tx.CreateAccount(ctx, a); err != nil {
				return err
			}
		}
		app = &model.Repo{OwnerID: mona.ID, Owner: mona, Name: "app", Visibility: model.Public}
		secret = &model.Repo{OwnerID: mona.ID, Owner: mona, Name: "secret", Visibility: model.Private}
		for _, r := range []*model.Repo{app, secret} {
			if err := tx.CreateRepo(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	caller := func(u *model.Account, kind authz.TokenKind, scopes string) *authz.Caller {
		return &authz.Caller{Kind: kind, User: u, Scopes: authz.ParseScopes(scopes)}
	}
	hub := caller(hubot, authz.ClassicPAT, "repo")

	if err := svc.Star(ctx, hub, app.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.Star(ctx, hub, secret.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("star a hidden repository: %v", err)
	}
	if err := svc.Star(ctx, &authz.Caller{}, app.ID); err != stars.ErrRequiresAuth {
		t.Errorf("anonymous star: %v", err)
	}
	if err := svc.Star(ctx, caller(hubot, authz.Installation, ""), app.ID); err == nil {
		t.Error("an installation token starred for a user")
	}
	uat := caller(hubot, authz.UserToServer, "")
	if err := svc.Unstar(ctx, uat, app.ID); err == nil {
		t.Error("a user access token without the starring permission unstarred")
	}
	uat.Permissions = map[string]string{"starring": "read"}
	if ok, err := svc.IsStarred(ctx, uat, app.ID); err != nil || !ok {
		t.Errorf("IsStarred with starring read: %v %v", ok, err)
	}
	if err := svc.Unstar(ctx, uat, app.ID); err == nil {
		t.Error("starring read unstarred")
	}
	got, err := svc.StarredBy(ctx, hubot.ID, []int64{app.ID, secret.ID})
	if err != nil || !got[app.ID] || got[secret.ID] {
		t.Errorf("StarredBy: %v %v", got, err)
	}
	v, err := st.R().RepoByID(ctx, app.ID, 0)
	if err != nil || v.Repo.StargazersCount != 1 {
		t.Fatalf("stargazers_count: %+v %v", v, err)
	}

	// A star appends "watch" (WatchEvent, action started) and
	// "star.created"; removing it "star.deleted".
	uat.Permissions["starring"] = "write"
	if err := svc.Unstar(ctx, uat, app.ID); err != nil {
		t.Fatal(err)
	}
	evs, err := st.R().EventsAfter(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range evs {
		if e.RepoID == app.ID && e.ActorID == hubot.ID {
			types = append(types, e.Type)
		}
	}
	if len(types) != 3 || types[0] != stars.EventWatch || types[1] != stars.EventStarCreated || types[2] != stars.EventStarDeleted {
		t.Errorf("events: %v", types)
	}
}
