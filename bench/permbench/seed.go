// Package permbench holds the permission benchmarks (permbench_test.go,
// run by bench/perms.sh) and the seeding that bench/permseed and the
// benchmarks share.
package permbench

import (
	"context"
	"errors"
	"fmt"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Options sizes the seed.
type Options struct {
	Teams   int // teams teamster is a member of (a multiple of 5)
	Repos   int // acme repositories teamster reaches through teams (even, at least Teams)
	Hidden  int // acme repositories teamster does not reach
	Nested  int // repositories granted to gg, which deep reaches through gp and gc
	Others  int // other teams of acme, granted on hidden repositories
	Members int // other members of acme, each in 5 teams
	Noise   int // repositories of 20 other organizations
	Users   int // other users, in no organization
	Issues  int // open issues in each acme repository (GET /issues across them)
}

// Defaults are the sizes of the benchmark: 50 teams, 2,000 reachable
// repositories.
var Defaults = Options{Teams: 50, Repos: 2000, Hidden: 2000, Nested: 1000, Others: 50, Members: 200, Noise: 5000, Users: 20000, Issues: 1}

// Seeded is what Seed made: the bench users and a classic token (repo,
// read:org, user) of each.
type Seeded struct {
	Teamster, Deep, Owner          *model.Account
	TeamsterTok, DeepTok, OwnerTok string
	Grants                         int
}

// Seed fills st, straight through the store, with:
//
//   - the organization acme (base permission none) owned by acme-owner, with
//     o.Repos repositories teamster can reach (acme/r00001 ...) and o.Hidden
//     more it cannot;
//   - the user teamster, a member of o.Teams teams: two fifths of them
//     children of parent teams teamster is not in, one fifth grandchildren
//     of those, two fifths top-level. Half of the reachable repositories
//     are granted to the parent teams (reached through nesting only), half
//     to the top-level teams, and the nested teams hold ten grants each on
//     repositories their ancestors already grant (at admin);
//   - the user deep, whose only access is a grant on the team gg to the
//     first o.Nested repositories, reached as a member of gc, child of gp,
//     child of gg;
//   - o.Members other members in o.Others other teams with grants on the
//     hidden repositories, o.Noise repositories of 20 other organizations
//     and o.Users users in none, so the tables are not the bench users'
//     alone (with a few hundred accounts PostgreSQL's planner takes
//     shortcuts through the accounts index that no real instance would);
//   - o.Issues open issues in every acme repository.
//
// acme-owner's access to every acme repository comes from owning the
// organization: the control, with no team involved. On PostgreSQL the seed
// ends with ANALYZE, as autovacuum would do within a minute of such a bulk
// load in production (without statistics the planner guesses its way into
// nested loops); hubd never analyzes SQLite, so neither does the seed.
func Seed(ctx context.Context, st *store.Store, o Options) (*Seeded, error) {
	if o.Teams%5 != 0 || o.Teams == 0 || o.Repos%2 != 0 || o.Repos < o.Teams || o.Nested > o.Repos+o.Hidden {
		return nil, errors.New("permbench: Teams must be a positive multiple of 5, Repos even and at least Teams, Nested at most Repos + Hidden")
	}
	s := &seeder{ctx: ctx}
	out := &Seeded{}
	err := st.Tx(ctx, func(tx store.Q) error {
		s.tx = tx
		owner := s.user("acme-owner")
		teamster, deep := s.user("teamster"), s.user("deep")
		out.Teamster, out.Deep, out.Owner = teamster, deep, owner
		acme := s.org("acme", owner)
		s.join(acme, teamster)
		s.join(acme, deep)

		all := s.repos(acme, "r", o.Repos+o.Hidden)
		reach, hide := all[:o.Repos], all[o.Repos:]

		// Teamster's teams: parents (not a member), children of the parents,
		// grandchildren (children of the first children), top-level teams.
		fifth := o.Teams / 5
		parents := make([]*model.Team, 2*fifth)
		for i := range parents {
			parents[i] = s.team(acme, fmt.Sprintf("parent-%02d", i+1), 0)
		}
		var children, grandchildren, top []*model.Team
		for i := 0; i < 2*fifth; i++ {
			children = append(children, s.team(acme, fmt.Sprintf("team-%02d", i+1), parents[i].ID))
		}
		for i := 0; i < fifth; i++ {
			grandchildren = append(grandchildren, s.team(acme, fmt.Sprintf("team-%02d", 2*fifth+i+1), children[i].ID))
		}
		for i := 3 * fifth; i < o.Teams; i++ {
			top = append(top, s.team(acme, fmt.Sprintf("team-%02d", i+1), 0))
		}
		nested := append(append([]*model.Team{}, children...), grandchildren...)
		mine := append(append([]*model.Team{}, nested...), top...)
		for _, t := range mine {
			s.member(t, teamster)
		}

		// Half of the reachable repositories through the parents, half
		// through the top-level teams; levels cycle from read to maintain.
		half := reach[:o.Repos/2]
		for i, r := range half {
			s.grant(parents[i%len(parents)], r, authz.Permission(1+i%4))
		}
		for i, r := range reach[o.Repos/2:] {
			s.grant(top[i%len(top)], r, authz.Permission(1+i%4))
		}
		// The nested teams also hold grants on repositories an ancestor
		// already grants, at admin.
		for i, t := range nested {
			for k := 0; k < 10; k++ {
				s.grant(t, half[(i*37+k*len(parents))%len(half)], authz.Admin)
			}
		}

		// deep: gg (granted) > gp > gc (deep is a member of gc only).
		gg := s.team(acme, "gg", 0)
		gp := s.team(acme, "gp", gg.ID)
		gc := s.team(acme, "gc", gp.ID)
		s.member(gc, deep)
		for _, r := range all[:o.Nested] {
			s.grant(gg, r, authz.Write)
		}

		// Everyone else: members in other teams with grants on the hidden
		// repositories, and in some of teamster's teams too.
		var other []*model.Team
		for i := 0; i < o.Others; i++ {
			t := s.team(acme, fmt.Sprintf("other-%02d", i+1), 0)
			other = append(other, t)
			for k := 0; k < 40 && len(hide) > 0; k++ {
				s.grant(t, hide[(i*40+k)%len(hide)], authz.Permission(1+k%5))
			}
		}
		pool := append(append([]*model.Team{}, other...), mine...)
		for i := 0; i < o.Members; i++ {
			u := s.user(fmt.Sprintf("dev-%03d", i+1))
			s.join(acme, u)
			for k := 0; k < 5; k++ {
				s.member(pool[(i*7+k*13)%len(pool)], u)
			}
		}

		// Repositories of other organizations, which teamster does not
		// reach, and users in no organization.
		for n := 0; n < 20; n++ {
			s.repos(s.org(fmt.Sprintf("noise-%02d", n+1), owner), "n", o.Noise/20)
		}
		for i := 0; i < o.Users; i++ {
			s.user(fmt.Sprintf("user-%06d", i+1))
		}
		// o.Issues open issues in every acme repository, by acme-owner:
		// teamster's GET /issues?filter=all lists those of the reachable
		// ones.
		for _, r := range all {
			for k := 0; k < o.Issues; k++ {
				s.check(tx.CreateIssue(ctx, &model.Issue{RepoID: r.ID, Title: fmt.Sprintf("issue %d of %s", k+1, r.Name), UserID: owner.ID}))
			}
		}
		if s.err != nil {
			return s.err
		}
		scopes := authz.ParseScopes("repo,read:org,user")
		for _, x := range []struct {
			u   *model.Account
			tok *string
		}{{teamster, &out.TeamsterTok}, {deep, &out.DeepTok}, {owner, &out.OwnerTok}} {
			var err error
			if *x.tok, _, err = tx.CreateToken(ctx, x.u.ID, authz.ClassicPAT, scopes, "bench", nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Grants = s.grants
	if st.Postgres() {
		if err := st.ExecRaw(ctx, "ANALYZE"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// seeder makes rows in one transaction, keeping the first error.
type seeder struct {
	ctx    context.Context
	tx     store.Q
	err    error
	grants int
}

func (s *seeder) check(err error) {
	if s.err == nil && err != nil {
		s.err = err
	}
}

func (s *seeder) user(login string) *model.Account {
	u := &model.Account{Login: login, Type: model.TypeUser}
	s.check(s.tx.CreateAccount(s.ctx, u))
	return u
}

func (s *seeder) org(login string, owner *model.Account) *model.Account {
	org := store.NewOrg(login)
	org.DefaultRepoPermission = "none"
	s.check(s.tx.CreateOrg(s.ctx, org, owner.ID))
	return org
}

func (s *seeder) join(org, u *model.Account) {
	s.check(s.tx.SetMembership(s.ctx, &model.Membership{OrgID: org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive}))
}

// repos makes n private repositories of owner named prefix00001 ... with
// the settings a repository created through the API gets.
func (s *seeder) repos(owner *model.Account, prefix string, n int) []*model.Repo {
	out := make([]*model.Repo, 0, n)
	for i := 1; i <= n; i++ {
		r := &model.Repo{OwnerID: owner.ID, Owner: owner, Name: fmt.Sprintf("%s%05d", prefix, i),
			Description: fmt.Sprintf("benchmark repository %d of %s", i, owner.Login),
			Visibility:  model.Private, DefaultBranch: "main",
			HasIssues: true, HasProjects: true, HasWiki: true, HasDownloads: true,
			AllowSquashMerge: true, AllowMergeCommit: true, AllowRebaseMerge: true, AllowForking: true,
			SquashMergeCommitTitle: "COMMIT_OR_PR_TITLE", SquashMergeCommitMessage: "COMMIT_MESSAGES",
			MergeCommitTitle: "MERGE_MESSAGE", MergeCommitMessage: "PR_TITLE", Topics: []string{}}
		s.check(s.tx.CreateRepo(s.ctx, r))
		out = append(out, r)
	}
	return out
}

func (s *seeder) team(org *model.Account, slug string, parent int64) *model.Team {
	t := &model.Team{OrgID: org.ID, Name: slug, Slug: slug, Privacy: model.TeamClosed,
		NotificationSetting: "notifications_enabled", ParentID: parent, Permission: "pull"}
	s.check(s.tx.CreateTeam(s.ctx, t))
	return t
}

func (s *seeder) member(t *model.Team, u *model.Account) {
	s.check(s.tx.SetTeamMember(s.ctx, &model.TeamMembership{TeamID: t.ID, UserID: u.ID, Role: model.TeamMember, State: store.StateActive}))
}

func (s *seeder) grant(t *model.Team, r *model.Repo, p authz.Permission) {
	s.grants++
	s.check(s.tx.SetTeamRepo(s.ctx, t.ID, r.ID, p))
}
