package outside_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world is the organization octo (base permission read) owned by olga, with
// members mel and tina, the private repositories octo/core and octo/docs;
// otto is an outside collaborator (write on core), pat has a pending
// invitation to docs, mel also has a direct grant (triage on docs), tina's
// team "devs" has maintain on core; nobody has no relation.
type world struct {
	e                                *apitest.Env
	org                              *model.Account
	olga, mel, tina, otto, pat, nobo *model.Account
	tok                              map[string]string
	core, docs                       int64
	team                             int64
}

func (w *world) gh(login string) *github.Client { return w.e.GitHub(w.tok[login]) }

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	w := &world{e: e, tok: map[string]string{}}
	mk := func(login string) *model.Account {
		u, tok := e.NewUser(login, false)
		w.tok[login] = tok
		return u
	}
	w.olga, w.mel, w.tina, w.otto, w.pat, w.nobo = mk("olga"), mk("mel"), mk("tina"), mk("otto"), mk("pat"), mk("nobody")
	w.org = store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, w.org, w.olga.ID); err != nil {
			return err
		}
		for _, u := range []*model.Account{w.mel, w.tina} {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: w.org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"core", "docs"} {
		r, _, err := w.gh("olga").Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if name == "core" {
			w.core = r.GetID()
		} else {
			w.docs = r.GetID()
		}
	}
	err = e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetCollaborator(ctx, w.core, w.otto.ID, authz.Write); err != nil {
			return err
		}
		if err := tx.SetCollaborator(ctx, w.docs, w.mel.ID, authz.Triage); err != nil {
			return err
		}
		team := &model.Team{OrgID: w.org.ID, Name: "devs", Slug: "devs", Privacy: "closed",
			NotificationSetting: "notifications_enabled", Permission: "pull"}
		if err := tx.CreateTeam(ctx, team); err != nil {
			return err
		}
		w.team = team.ID
		if err := tx.SetTeamMember(ctx, &model.TeamMembership{TeamID: team.ID, UserID: w.tina.ID, Role: "member", State: store.StateActive}); err != nil {
			return err
		}
		return tx.SetTeamRepo(ctx, team.ID, w.core, authz.Maintain)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, resp, err := w.gh("olga").Repositories.AddCollaborator(ctx, "octo", "docs", "pat", &github.RepositoryAddCollaboratorOptions{Permission: "pull"}); err != nil || resp.StatusCode != 201 {
		t.Fatalf("invite pat: %v", err)
	}
	return w
}

func logins(list []*github.User) []string {
	out := []string{}
	for _, u := range list {
		out = append(out, u.GetLogin())
	}
	return out
}

func status(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// errMessage is the message of a go-github error.
func errMessage(err error) string {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Message
	}
	return ""
}

func (w *world) grant(t *testing.T, repoID, userID int64) authz.Permission {
	t.Helper()
	p, err := w.e.Store.R().Collaborator(ctx, repoID, userID)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// events are the domain events of type typ appended since the world was
// made.
func (w *world) events(t *testing.T, typ string) []map[string]any {
	t.Helper()
	list, err := w.e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range list {
		if ev.Type != typ || ev.OrgID != w.org.ID {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(ev.Payload, &m); err != nil {
			t.Fatal(err)
		}
		m["_repo"] = float64(ev.RepoID)
		out = append(out, m)
	}
	return out
}

func TestList(t *testing.T) {
	w := newWorld(t)
	for _, who := range []string{"olga", "mel"} {
		list, resp, err := w.gh(who).Organizations.ListOutsideCollaborators(ctx, "octo", nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v", who, err)
		}
		// mel has a direct grant but is a member; pat is only invited.
		if got := logins(list); !slices.Equal(got, []string{"otto"}) {
			t.Errorf("%s sees %v, want [otto]", who, got)
		}
	}
	list, _, err := w.gh("olga").Organizations.ListOutsideCollaborators(ctx, "OCTO", &github.ListOutsideCollaboratorsOptions{Filter: "2fa_disabled"})
	if err != nil || !slices.Equal(logins(list), []string{"otto"}) {
		t.Errorf("2fa_disabled: %v %v", logins(list), err)
	}
	list, _, err = w.gh("olga").Organizations.ListOutsideCollaborators(ctx, "octo", &github.ListOutsideCollaboratorsOptions{Filter: "2fa_insecure"})
	if err != nil || len(list) != 0 {
		t.Errorf("2fa_insecure: %v %v", logins(list), err)
	}
	// A simple-user object.
	r := w.e.Must(200, "GET", "/orgs/octo/outside_collaborators", w.tok["olga"], nil)
	var raw []map[string]any
	r.JSON(t, &raw)
	if len(raw) != 1 || raw[0]["login"] != "otto" || raw[0]["type"] != "User" || raw[0]["id"] != float64(w.otto.ID) {
		t.Errorf("body %s", r.Body)
	}

	// Pagination in SQL with Link: pat accepts, nobody gets a grant.
	err = w.e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetCollaborator(ctx, w.docs, w.pat.ID, authz.Read); err != nil {
			return err
		}
		return tx.SetCollaborator(ctx, w.core, w.nobo.ID, authz.Read)
	})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	opts := &github.ListOutsideCollaboratorsOptions{ListOptions: github.ListOptions{PerPage: 2}}
	pages := 0
	for {
		list, resp, err := w.gh("olga").Organizations.ListOutsideCollaborators(ctx, "octo", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, logins(list)...)
		if resp.NextPage == 0 {
			if pages == 1 {
				t.Fatal("no Link to a next page")
			}
			break
		}
		opts.Page = resp.NextPage
	}
	if !slices.Equal(all, []string{"otto", "pat", "nobody"}) || pages != 2 {
		t.Errorf("pages %d: %v", pages, all)
	}

	cases := []struct {
		name, path, token string
		want              int
		msg               string
	}{
		{"anonymous", "/orgs/octo/outside_collaborators", "", 401, "Requires authentication"},
		{"non-member", "/orgs/octo/outside_collaborators", w.tok["nobody"], 403, "Must be an organization member to view outside collaborators."},
		{"outside collaborator", "/orgs/octo/outside_collaborators", w.tok["otto"], 403, "Must be an organization member to view outside collaborators."},
		{"no read:org scope", "/orgs/octo/outside_collaborators", w.e.Token(w.olga, "repo"), 403, "Resource not accessible by personal access token"},
		{"unknown org", "/orgs/nope/outside_collaborators", w.tok["olga"], 404, "Not Found"},
		{"a user is no org", "/orgs/olga/outside_collaborators", w.tok["olga"], 404, "Not Found"},
		{"bad filter", "/orgs/octo/outside_collaborators?filter=owners", w.tok["olga"], 422, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := w.e.Do("GET", c.path, c.token, nil)
			if r.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, c.want, r.Body)
			}
			if c.msg != "" && r.Map(t)["message"] != c.msg {
				t.Errorf("message %s", r.Body)
			}
		})
	}
}

func TestConvert(t *testing.T) {
	w := newWorld(t)
	// mel: a member with a direct grant; base-permission access is not kept.
	resp, err := w.gh("olga").Organizations.ConvertMemberToOutsideCollaborator(ctx, "octo", "mel")
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("convert mel: %d %v", status(resp), err)
	}
	if _, err := w.e.Store.R().Membership(ctx, w.org.ID, w.mel.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("mel still a member: %v", err)
	}
	if g := w.grant(t, w.docs, w.mel.ID); g != authz.Triage {
		t.Errorf("mel's grant on docs %v, want triage", g)
	}
	if g := w.grant(t, w.core, w.mel.ID); g != authz.None {
		t.Errorf("mel got %v on core", g)
	}
	// The private repository she only read through the base permission is
	// hidden now.
	if _, resp, _ := w.gh("mel").Repositories.Get(ctx, "octo", "core"); status(resp) != 404 {
		t.Errorf("mel sees octo/core: %d", status(resp))
	}
	if _, resp, _ := w.gh("mel").Repositories.Get(ctx, "octo", "docs"); status(resp) != 200 {
		t.Errorf("mel lost octo/docs: %d", status(resp))
	}
	list, _, err := w.gh("olga").Organizations.ListOutsideCollaborators(ctx, "octo", nil)
	if err != nil || !slices.Equal(logins(list), []string{"mel", "otto"}) {
		t.Errorf("list after convert: %v %v", logins(list), err)
	}
	// Now outside, mel may not list them any more.
	if _, resp, _ := w.gh("mel").Organizations.ListOutsideCollaborators(ctx, "octo", nil); status(resp) != 403 {
		t.Errorf("mel lists: %d", status(resp))
	}

	// tina: her team's maintain on core becomes a direct grant, the team
	// membership goes; async asks for 202.
	r := w.e.Do("PUT", "/orgs/octo/outside_collaborators/tina", w.tok["olga"], map[string]any{"async": true})
	if r.StatusCode != 202 {
		t.Fatalf("async convert: %d %s", r.StatusCode, r.Body)
	}
	if g := w.grant(t, w.core, w.tina.ID); g != authz.Maintain {
		t.Errorf("tina's grant on core %v, want maintain", g)
	}
	if _, err := w.e.Store.R().TeamMember(ctx, w.team, w.tina.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("tina still in the team: %v", err)
	}
	if _, resp, _ := w.gh("tina").Repositories.Get(ctx, "octo", "core"); status(resp) != 200 {
		t.Errorf("tina lost octo/core: %d", status(resp))
	}
	ev := w.events(t, "organization.member_converted")
	if len(ev) != 2 || ev[0]["user_id"] != float64(w.mel.ID) || ev[1]["user_id"] != float64(w.tina.ID) {
		t.Errorf("converted events %v", ev)
	}
	added := w.events(t, "member")
	if len(added) != 1 || added[0]["action"] != "added" || added[0]["member"] != float64(w.tina.ID) ||
		added[0]["permission"] != "maintain" || added[0]["_repo"] != float64(w.core) {
		t.Errorf("member events %v", added)
	}

	// A second owner may be converted; the last one may not.
	oscar, oscarTok := w.e.NewUser("oscar", false)
	w.tok["oscar"] = oscarTok
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.SetMembership(ctx, &model.Membership{OrgID: w.org.ID, UserID: oscar.ID, Role: model.RoleAdmin, State: store.StateActive})
	}); err != nil {
		t.Fatal(err)
	}
	if resp, err := w.gh("olga").Organizations.ConvertMemberToOutsideCollaborator(ctx, "octo", "oscar"); err != nil || resp.StatusCode != 204 {
		t.Fatalf("convert oscar: %v", err)
	}
	// A pending invitee is no member.
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.SetMembership(ctx, &model.Membership{OrgID: w.org.ID, UserID: w.pat.ID, Role: model.RoleMember, State: store.StatePending})
	}); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, who, user string
		want            int
		msg             string
	}{
		{"last owner", "olga", "olga", 403, "Cannot convert the last owner to an outside collaborator."},
		{"not a member", "olga", "otto", 403, "otto is not a member of the octo organization."},
		{"pending member", "olga", "pat", 403, "pat is not a member of the octo organization."},
		{"former member", "olga", "mel", 403, "mel is not a member of the octo organization."},
		{"unknown user", "olga", "ghost", 404, "Not Found"},
		{"an org is no user", "olga", "octo", 404, "Not Found"},
		{"a member is no owner", "tina", "olga", 403, "Must have admin rights to Repository."},
		{"outsider", "nobody", "olga", 403, "Must have admin rights to Repository."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := w.gh(c.who).Organizations.ConvertMemberToOutsideCollaborator(ctx, "octo", c.user)
			if status(resp) != c.want || errMessage(err) != c.msg {
				t.Errorf("got %d %q, want %d %q", status(resp), errMessage(err), c.want, c.msg)
			}
		})
	}
	if r := w.e.Do("PUT", "/orgs/octo/outside_collaborators/olga", "", nil); r.StatusCode != 401 {
		t.Errorf("anonymous: %d", r.StatusCode)
	}
	if r := w.e.Do("PUT", "/orgs/octo/outside_collaborators/olga", w.e.Token(w.olga, "read:org"), nil); r.StatusCode != 403 {
		t.Errorf("read:org token: %d", r.StatusCode)
	}
	if r := w.e.Do("PUT", "/orgs/nope/outside_collaborators/olga", w.tok["olga"], nil); r.StatusCode != 404 {
		t.Errorf("unknown org: %d", r.StatusCode)
	}
	// olga is still the owner after all the refusals.
	if m, err := w.e.Store.R().Membership(ctx, w.org.ID, w.olga.ID); err != nil || m.Role != model.RoleAdmin {
		t.Errorf("olga: %v %v", m, err)
	}
}

func TestRemove(t *testing.T) {
	w := newWorld(t)
	// otto also gets a grant on docs and an invitation to it is pending for
	// pat, who has no grant.
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, w.docs, w.otto.ID, authz.Read) }); err != nil {
		t.Fatal(err)
	}
	resp, err := w.gh("olga").Organizations.RemoveOutsideCollaborator(ctx, "octo", "otto")
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("remove otto: %d %v", status(resp), err)
	}
	for _, id := range []int64{w.core, w.docs} {
		if g := w.grant(t, id, w.otto.ID); g != authz.None {
			t.Errorf("otto keeps %v on %d", g, id)
		}
	}
	if _, resp, _ := w.gh("otto").Repositories.Get(ctx, "octo", "core"); status(resp) != 404 {
		t.Errorf("otto sees octo/core: %d", status(resp))
	}
	removed := w.events(t, "member")
	if len(removed) != 2 || removed[0]["action"] != "removed" || removed[0]["_repo"] != float64(w.core) || removed[1]["_repo"] != float64(w.docs) {
		t.Errorf("member events %v", removed)
	}

	if resp, err := w.gh("olga").Organizations.RemoveOutsideCollaborator(ctx, "octo", "pat"); err != nil || resp.StatusCode != 204 {
		t.Fatalf("remove pat: %v", err)
	}
	if _, err := w.e.Store.R().RepoInvitationFor(ctx, w.docs, w.pat.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("pat's invitation stays: %v", err)
	}
	if inv := w.events(t, "repository_invitation"); len(inv) == 0 || inv[len(inv)-1]["action"] != "deleted" {
		t.Errorf("invitation events %v", inv)
	}
	list, _, err := w.gh("olga").Organizations.ListOutsideCollaborators(ctx, "octo", nil)
	if err != nil || len(list) != 0 {
		t.Errorf("list after remove: %v %v", logins(list), err)
	}

	if err := w.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, w.core, w.otto.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, who, user string
		want            int
		msg             string
	}{
		{"a member", "olga", "mel", 422, "You cannot specify an organization member to remove as an outside collaborator."},
		{"an owner", "olga", "olga", 422, "You cannot specify an organization member to remove as an outside collaborator."},
		{"unknown user", "olga", "ghost", 404, "Not Found"},
		{"a member is no owner", "mel", "otto", 403, "Must have admin rights to Repository."},
		{"the collaborator themselves", "otto", "otto", 403, "Must have admin rights to Repository."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := w.gh(c.who).Organizations.RemoveOutsideCollaborator(ctx, "octo", c.user)
			if status(resp) != c.want || errMessage(err) != c.msg {
				t.Errorf("got %d %q, want %d %q", status(resp), errMessage(err), c.want, c.msg)
			}
		})
	}
	if r := w.e.Do("DELETE", "/orgs/octo/outside_collaborators/otto", "", nil); r.StatusCode != 401 {
		t.Errorf("anonymous: %d", r.StatusCode)
	}
	if r := w.e.Do("DELETE", "/orgs/octo/outside_collaborators/otto", w.e.Token(w.olga, "repo,read:org"), nil); r.StatusCode != 403 ||
		!strings.Contains(string(r.Body), "personal access token") {
		t.Errorf("read:org token: %d %s", r.StatusCode, r.Body)
	}
	// Nothing refused changed anything.
	if g := w.grant(t, w.core, w.otto.ID); g != authz.Write {
		t.Errorf("otto's grant %v after refusals", g)
	}
	if m, err := w.e.Store.R().Membership(ctx, w.org.ID, w.mel.ID); err != nil || m.State != store.StateActive {
		t.Errorf("mel: %v %v", m, err)
	}
	_ = http.StatusOK
}
