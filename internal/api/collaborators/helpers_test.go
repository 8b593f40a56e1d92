package collaborators_test

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

// world is mona with a public mona/app and a private mona/secret (both
// auto-initialised), and an organization octo (base permission read)
// administered by olga with member mel, owning the private octo/core.
type world struct {
	e               *apitest.Env
	mona            *model.Account
	monaTok         string
	gh              *github.Client
	org             *model.Account
	olgaTok, melTok string
	olga, mel       *model.Account
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	w := &world{e: e}
	w.mona, w.monaTok = e.NewUser("mona", false)
	w.gh = e.GitHub(w.monaTok)
	for _, r := range []*github.Repository{
		{Name: github.Ptr("app"), AutoInit: github.Ptr(true)},
		{Name: github.Ptr("secret"), Private: github.Ptr(true), AutoInit: github.Ptr(true)},
	} {
		if _, _, err := w.gh.Repositories.Create(ctx, "", r); err != nil {
			t.Fatal(err)
		}
	}
	w.olga, w.olgaTok = e.NewUser("olga", false)
	w.mel, w.melTok = e.NewUser("mel", false)
	w.org = &model.Account{Login: "octo", DefaultRepoPermission: "read", MembersCanCreateRepos: true,
		MembersCanCreatePublicRepos: true, MembersCanCreatePrivRepos: true}
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, w.org, w.olga.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: w.org.ID, UserID: w.mel.ID, Role: model.RoleMember, State: "active"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.GitHub(w.olgaTok).Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("core"),
		Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return w
}

// user makes a user with a client.
func (w *world) user(t *testing.T, login string) (*model.Account, string, *github.Client) {
	t.Helper()
	u, tok := w.e.NewUser(login, false)
	return u, tok, w.e.GitHub(tok)
}

// invite invites login to owner/repo with perm as tok's user and returns
// the invitation.
func invite(t *testing.T, gh *github.Client, owner, repo, login, perm string) *github.CollaboratorInvitation {
	t.Helper()
	inv, resp, err := gh.Repositories.AddCollaborator(ctx, owner, repo, login, &github.RepositoryAddCollaboratorOptions{Permission: perm})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("invite %s to %s/%s: %v", login, owner, repo, err)
	}
	if loc := resp.Header.Get("Location"); loc == "" || loc != inv.GetURL() {
		t.Fatalf("invitation's Location %q, url %q", loc, inv.GetURL())
	}
	return inv
}

// events are the domain events appended so far, as "type/action".
func events(t *testing.T, e *apitest.Env) []string {
	t.Helper()
	list, err := e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range list {
		if ev.Type != "member" && ev.Type != "repository_invitation" {
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

func status(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}
