package roles_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world is the organization octo (base permission none) owned by olga,
// with active members mia and max, an outsider zed, and the private
// repository octo/vault (auto-initialised). Teams: devs (mia) with the
// child team web (max).
type world struct {
	e                       *apitest.Env
	org                     *model.Account
	olga, mia, max, zed     *github.Client
	olgaTok, miaTok, maxTok string
	zedTok                  string
	miaU, maxU, zedU        *model.Account
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	olga, olgaTok := e.NewUser("olga", false)
	mia, miaTok := e.NewUser("mia", false)
	max, maxTok := e.NewUser("max", false)
	zed, zedTok := e.NewUser("zed", false)
	org := store.NewOrg("octo")
	org.DefaultRepoPermission = "none"
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		for _, u := range []*model.Account{mia, max} {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{e: e, org: org, olga: e.GitHub(olgaTok), mia: e.GitHub(miaTok), max: e.GitHub(maxTok), zed: e.GitHub(zedTok),
		olgaTok: olgaTok, miaTok: miaTok, maxTok: maxTok, zedTok: zedTok, miaU: mia, maxU: max, zedU: zed}
	if _, _, err := w.olga.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("vault"), Private: github.Ptr(true),
		AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	devs, _, err := w.olga.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "devs", Privacy: github.Ptr("closed")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.olga.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "web", Privacy: github.Ptr("closed"), ParentTeamID: devs.ID}); err != nil {
		t.Fatal(err)
	}
	for slug, login := range map[string]string{"devs": "mia", "web": "max"} {
		if _, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", slug, login, &github.TeamAddTeamMembershipOptions{Role: "member"}); err != nil {
			t.Fatal(err)
		}
	}
	// The creator olga is a maintainer of both; she owns the organization
	// anyway.
	return w
}

func status(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// events are the domain events of types, as "type/action".
func events(t *testing.T, e *apitest.Env, types ...string) []string {
	t.Helper()
	list, err := e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, ty := range types {
		want[ty] = true
	}
	var out []string
	for _, ev := range list {
		if !want[ev.Type] {
			continue
		}
		var p struct {
			Action string `json:"action"`
		}
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.Type+"/"+p.Action)
	}
	return out
}
