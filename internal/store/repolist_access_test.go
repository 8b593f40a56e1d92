package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// accessWorld has every source of access a repository list weighs, for
// TestListsAgreeWithRepoFacts.
type accessWorld struct {
	s       *store.Store
	viewers []*model.Account
	repos   []*model.Repo
	noIssue int64 // the repository without issues
}

func newAccessWorld(t *testing.T) *accessWorld {
	t.Helper()
	ctx := context.Background()
	w := &accessWorld{s: storetest.Open(t)}
	err := w.s.Tx(ctx, func(tx store.Q) error {
		var err error
		check := func(e error) {
			if err == nil && e != nil {
				err = e
			}
		}
		user := func(login string) *model.Account {
			u := &model.Account{Login: login, Type: model.TypeUser}
			check(tx.CreateAccount(ctx, u))
			w.viewers = append(w.viewers, u)
			return u
		}
		org := func(login, base string, owner *model.Account) *model.Account {
			o := store.NewOrg(login)
			o.DefaultRepoPermission = base
			check(tx.CreateOrg(ctx, o, owner.ID))
			return o
		}
		join := func(o, u *model.Account, role model.OrgRole) {
			check(tx.SetMembership(ctx, &model.Membership{OrgID: o.ID, UserID: u.ID, Role: role, State: store.StateActive}))
		}
		repo := func(owner *model.Account, name string, vis model.Visibility, parent int64) *model.Repo {
			r := &model.Repo{OwnerID: owner.ID, Owner: owner, Name: name, Visibility: vis, HasIssues: true, ParentID: parent, Topics: []string{}}
			check(tx.CreateRepo(ctx, r))
			w.repos = append(w.repos, r)
			return r
		}
		team := func(o *model.Account, slug string, parent int64) *model.Team {
			t := &model.Team{OrgID: o.ID, Name: slug, Slug: slug, Privacy: model.TeamClosed,
				NotificationSetting: "notifications_enabled", ParentID: parent, Permission: "pull"}
			check(tx.CreateTeam(ctx, t))
			return t
		}
		member := func(t *model.Team, u *model.Account, state string) {
			check(tx.SetTeamMember(ctx, &model.TeamMembership{TeamID: t.ID, UserID: u.ID, Role: model.TeamMember, State: state}))
		}

		owner := user("Zed-owner") // owns the organizations; sorts after the others
		solo := user("solo")
		admin, plain, nested, teamed, pending := user("admin"), user("plain"), user("nested"), user("teamed"), user("pending")
		roled, roleless, roleteam, collab, outside := user("roled"), user("roleless"), user("roleteam"), user("collab"), user("outside")
		forkteam, readorg, forker := user("forkteam"), user("readorg"), user("forker")

		none := org("acme", "none", owner)
		read := org("beta", "read", owner)
		other := org("Gamma", "none", owner)
		for _, u := range []*model.Account{admin} {
			join(none, u, model.RoleAdmin)
		}
		for _, u := range []*model.Account{plain, nested, teamed, roled, roleless, roleteam, collab, forkteam} {
			join(none, u, model.RoleMember)
		}
		join(read, readorg, model.RoleMember)
		join(read, collab, model.RoleMember)

		repo(solo, "Mine", model.Private, 0)
		repo(solo, "open", model.Public, 0)
		pub := repo(none, "pub", model.Public, 0)
		_ = pub
		src := repo(none, "src", model.Private, 0)
		repo(none, "inside", model.Internal, 0)
		viaParent := repo(none, "via-parent", model.Private, 0)
		viaTeam := repo(none, "Via-Team", model.Private, 0)
		direct := repo(none, "direct", model.Private, 0)
		quiet := repo(none, "quiet", model.Private, 0)
		w.noIssue = quiet.ID
		repo(read, "b1", model.Private, 0)
		repo(read, "b-inside", model.Internal, 0)
		foreign := repo(other, "foreign", model.Private, 0)
		fork := repo(forker, "src", model.Private, src.ID)

		// Nested teams: a grant on the grandparent reaches the grandchild.
		gp := team(none, "gp", 0)
		p := team(none, "p", gp.ID)
		c := team(none, "c", p.ID)
		member(c, nested, store.StateActive)
		check(tx.SetTeamRepo(ctx, gp.ID, viaParent.ID, authz.Write))
		d := team(none, "d", 0)
		member(d, teamed, store.StateActive)
		member(d, pending, store.StatePending) // not a member of acme: no access
		check(tx.SetTeamRepo(ctx, d.ID, viaTeam.ID, authz.Read))
		// A team granted a fork its organization does not own: the grant
		// counts only where the viewer is a member of the owner.
		e := team(none, "e", 0)
		member(e, forkteam, store.StateActive)
		check(tx.SetTeamRepo(ctx, e.ID, fork.ID, authz.Write))
		// Organization roles: to a user, to a team, and one without a base
		// level.
		if _, e := tx.AssignOrgRole(ctx, none.ID, 8134, store.OrgRoleHolder{UserID: roled.ID}, authz.Write); e != nil {
			return e
		}
		rt := team(none, "rt", 0)
		child := team(none, "rt-child", rt.ID)
		member(child, roleteam, store.StateActive)
		if _, e := tx.AssignOrgRole(ctx, none.ID, 8133, store.OrgRoleHolder{TeamID: rt.ID}, authz.Read); e != nil {
			return e
		}
		if _, e := tx.AssignOrgRole(ctx, none.ID, 8132, store.OrgRoleHolder{UserID: roleless.ID}, authz.None); e != nil {
			return e
		}
		// Collaborators: a member with a direct grant, an outside one.
		check(tx.SetCollaborator(ctx, direct.ID, collab.ID, authz.Triage))
		check(tx.SetCollaborator(ctx, foreign.ID, outside.ID, authz.Read))
		check(tx.SetCollaborator(ctx, fork.ID, outside.ID, authz.Admin))
		if err != nil {
			return err
		}
		for _, r := range w.repos {
			if r.ID == quiet.ID {
				r.HasIssues = false
				if err := tx.UpdateRepo(ctx, r, ""); err != nil {
					return err
				}
			}
			if err := tx.CreateIssue(ctx, &model.Issue{RepoID: r.ID, Title: "issue of " + r.Name, UserID: owner.ID}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w.viewers = append(w.viewers, &model.Account{}) // anonymous
	return w
}

// expected is what the rules say of one repository for a viewer, from the
// facts RepoByID computes row by row (teamGrant, orgRoleGrant).
type expected struct {
	repo                          *model.Repo
	visible, owner, collab, orgIn bool
}

func (w *accessWorld) facts(t *testing.T, viewer int64) []expected {
	t.Helper()
	var out []expected
	for _, r := range w.repos {
		v, err := w.s.R().RepoByID(context.Background(), r.ID, viewer)
		if err != nil {
			t.Fatal(err)
		}
		f := v.Facts
		orgIn := f.OrgRole == model.RoleAdmin || f.OrgRole == model.RoleMember &&
			(f.OrgDefault > authz.None || v.Repo.Visibility == model.Internal || f.Team > authz.None || f.OrgRoles > authz.None)
		e := expected{repo: v.Repo, owner: viewer != 0 && v.Repo.OwnerID == viewer, collab: f.Collab > authz.None, orgIn: orgIn}
		e.visible = v.Repo.Visibility == model.Public || e.owner || e.collab || orgIn
		out = append(out, e)
	}
	// GitHub's full-name order, owner first, both ignoring case.
	slices.SortFunc(out, func(a, b expected) int {
		return strings.Compare(strings.ToLower(a.repo.Owner.Login)+"/"+strings.ToLower(a.repo.Name),
			strings.ToLower(b.repo.Owner.Login)+"/"+strings.ToLower(b.repo.Name))
	})
	return out
}

// Every repository list and the issue lists across repositories hold
// exactly what the viewer's facts on each repository (RepoByID, the
// lookup behind every permission check) say they reach: lists compute the
// viewer's teams, roles and accessible set once per query, and must not
// drift from the row-by-row rule. Pages of two add up to the whole list.
func TestListsAgreeWithRepoFacts(t *testing.T) {
	w := newAccessWorld(t)
	ctx := context.Background()
	type variant struct {
		name string
		q    store.RepoQuery
		keep func(e expected) bool
	}
	for _, viewer := range w.viewers {
		all := w.facts(t, viewer.ID)
		v := store.Viewer{UserID: viewer.ID}
		var ids []int64
		for _, e := range all {
			if e.repo.Name == "src" || e.repo.Name == "Mine" {
				ids = append(ids, e.repo.ID)
			}
		}
		variants := []variant{
			{"visible", store.RepoQuery{Viewer: v}, func(e expected) bool { return e.visible }},
			{"owner", store.RepoQuery{Viewer: v, ViewerOwner: true}, func(e expected) bool { return e.owner }},
			{"collaborator", store.RepoQuery{Viewer: v, ViewerCollaborator: true}, func(e expected) bool { return e.collab }},
			{"organization_member", store.RepoQuery{Viewer: v, ViewerOrgMember: true}, func(e expected) bool { return e.orgIn }},
			{"affiliations", store.RepoQuery{Viewer: v, ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true},
				func(e expected) bool { return e.owner || e.collab || e.orgIn }},
			{"affiliations private", store.RepoQuery{Viewer: v, ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true, Visibility: "private"},
				func(e expected) bool { return (e.owner || e.collab || e.orgIn) && e.repo.Visibility != model.Public }},
			{"affiliations public token", store.RepoQuery{Viewer: store.Viewer{UserID: viewer.ID, PublicOnly: true}, ViewerCollaborator: true, ViewerOrgMember: true},
				func(e expected) bool { return (e.collab || e.orgIn) && e.repo.Visibility == model.Public }},
			{"affiliations selected", store.RepoQuery{Viewer: store.Viewer{UserID: viewer.ID, RepoIDs: ids}, ViewerOwner: true, ViewerOrgMember: true},
				func(e expected) bool {
					return (e.owner || e.orgIn) && (e.repo.Visibility == model.Public || slices.Contains(ids, e.repo.ID))
				}},
			{"forks", store.RepoQuery{Viewer: v, ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true, Forks: true},
				func(e expected) bool { return (e.owner || e.collab || e.orgIn) && e.repo.ParentID != 0 }},
			{"organization acme", store.RepoQuery{Viewer: v, OwnerID: w.repos[2].OwnerID},
				func(e expected) bool { return e.visible && e.repo.OwnerID == w.repos[2].OwnerID }},
			{"owned by solo", store.RepoQuery{Viewer: v, OwnedBy: w.repos[0].OwnerID},
				func(e expected) bool { return e.visible && e.repo.OwnerID == w.repos[0].OwnerID }},
		}
		for _, c := range variants {
			var want []string
			for _, e := range all {
				if c.keep(e) {
					want = append(want, e.repo.FullName())
				}
			}
			name := fmt.Sprintf("%s/%s", viewer.Login, c.name)
			q := c.q
			q.Sort, q.Limit = "full_name", 100
			list, total, err := w.s.R().ListRepos(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var got []string
			for _, r := range list {
				got = append(got, r.Repo.FullName())
			}
			if !slices.Equal(got, want) || total != len(want) {
				t.Errorf("%s: %v (total %d), want %v", name, got, total, want)
				continue
			}
			// Pages of two, in a transaction (no read cache) and out of it.
			var paged []string
			for off := 0; off < len(want)+2; off += 2 {
				q.Limit, q.Offset = 2, off
				err := w.s.Tx(ctx, func(tx store.Q) error {
					list, total, err := tx.ListRepos(ctx, q)
					if err == nil && total != len(want) {
						err = fmt.Errorf("offset %d: total %d", off, total)
					}
					for _, r := range list {
						paged = append(paged, r.Repo.FullName())
					}
					return err
				})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if !slices.Equal(paged, want) {
				t.Errorf("%s: pages hold %v, want %v", name, paged, want)
			}
			// The viewer's facts on each listed repository are RepoByID's.
			for i, r := range list {
				byID, err := w.s.R().RepoByID(ctx, r.Repo.ID, viewer.ID)
				if err != nil {
					t.Fatal(err)
				}
				if r.Facts != byID.Facts {
					t.Errorf("%s: %s facts %+v, RepoByID %+v", name, got[i], r.Facts, byID.Facts)
				}
			}
			// The issues across the same repositories (GET /issues and
			// friends): one issue in each, none where issues are off.
			if viewer.ID == 0 {
				continue
			}
			rq := c.q
			issues, total, err := w.s.R().ListIssues(ctx, store.IssueQuery{Repos: &rq, State: "all", Limit: 100})
			if err != nil {
				t.Fatalf("%s issues: %v", name, err)
			}
			var wantIssues []string
			for _, e := range all {
				if c.keep(e) && e.repo.ID != w.noIssue {
					wantIssues = append(wantIssues, "issue of "+e.repo.Name)
				}
			}
			var gotIssues []string
			for _, is := range issues {
				gotIssues = append(gotIssues, is.Title)
			}
			slices.Sort(gotIssues)
			slices.Sort(wantIssues)
			if !slices.Equal(gotIssues, wantIssues) || total != len(wantIssues) {
				t.Errorf("%s issues: %v (total %d), want %v", name, gotIssues, total, wantIssues)
			}
		}
	}
}
