// Package teams is the organization-teams service: teams of an
// organization's members, nested under parent teams, holding roles
// (member, maintainer) and repository grants that flow into the members'
// repository permissions (see authz.RepoFacts.Team). It holds who may see
// and manage a team, the nesting rules and the validation for every
// transport.
package teams

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/orgmembers"
	"github.com/hubd/hubd/internal/roles"
	"github.com/hubd/hubd/internal/store"
)

// Service is the teams service.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Actor is who acts on an organization's teams: a user (nil when
// anonymous) and their active role in the organization ("" when none).
type Actor struct {
	User *model.Account
	Role model.OrgRole
}

// Owner reports whether the actor is an owner of the organization.
func (a Actor) Owner() bool { return a.Role == model.RoleAdmin }

// Member reports whether the actor is an active member of the organization.
func (a Actor) Member() bool { return a.Role != "" }

func (a Actor) id() int64 {
	if a.User == nil {
		return 0
	}
	return a.User.ID
}

// ActorIn is u's standing in org.
func (s *Service) ActorIn(ctx context.Context, org *model.Account, u *model.Account) (Actor, error) {
	a := Actor{User: u}
	if u == nil {
		return a, nil
	}
	m, err := s.Store.R().Membership(ctx, org.ID, u.ID)
	if errors.Is(err, model.ErrNotFound) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	if m.State == store.StateActive {
		a.Role = m.Role
	}
	return a, nil
}

// errNotMember is GitHub's answer to someone outside the organization.
func errNotMember(org *model.Account) error {
	return model.Forbidden("You must be a member of " + org.Login + " to access its teams.")
}

// errManage is the answer to a member who may see a team but not manage it.
var errManage = model.Forbidden("You must be an organization owner or team maintainer to perform this action.")

// Team finds a team the actor may see by slug: organization owners see
// every team, members closed teams and the secret teams they belong to;
// anyone else finds nothing.
func (s *Service) Team(ctx context.Context, org *model.Account, a Actor, slug string) (*model.Team, error) {
	t, err := s.Store.R().TeamBySlug(ctx, org.ID, slug)
	if err != nil {
		return nil, err
	}
	return t, s.visible(ctx, t, a)
}

// TeamByID finds a team the actor may see by id (the legacy routes).
func (s *Service) TeamByID(ctx context.Context, a func(org *model.Account) (Actor, error), id int64) (*model.Team, Actor, error) {
	t, err := s.Store.R().TeamByID(ctx, id)
	if err != nil {
		return nil, Actor{}, err
	}
	act, err := a(t.Org)
	if err != nil {
		return nil, Actor{}, err
	}
	return t, act, s.visible(ctx, t, act)
}

func (s *Service) visible(ctx context.Context, t *model.Team, a Actor) error {
	switch {
	case a.Owner():
		return nil
	case !a.Member():
		return model.ErrNotFound
	case t.Privacy == model.TeamClosed:
		return nil
	}
	_, err := s.Store.R().TeamMember(ctx, t.ID, a.id())
	return err // not a member of a secret team: not found
}

// mayManage is nil when the actor owns the organization or maintains the
// team.
func (s *Service) mayManage(ctx context.Context, q store.Q, t *model.Team, a Actor) error {
	if a.Owner() {
		return nil
	}
	m, err := q.TeamMember(ctx, t.ID, a.id())
	if err == nil && m.Role == model.TeamMaintainer && m.State == store.StateActive {
		return nil
	}
	if err != nil && !errors.Is(err, model.ErrNotFound) {
		return err
	}
	return errManage
}

// List is a page of the organization's teams the actor may see.
func (s *Service) List(ctx context.Context, org *model.Account, a Actor, limit, offset int) ([]*model.Team, int, error) {
	if !a.Member() {
		return nil, 0, errNotMember(org)
	}
	return s.Store.R().Teams(ctx, store.TeamQuery{OrgID: org.ID, ViewerID: a.id(), All: a.Owner(), Limit: limit, Offset: offset})
}

// Children is a page of a team's child teams the actor may see.
func (s *Service) Children(ctx context.Context, t *model.Team, a Actor, limit, offset int) ([]*model.Team, int, error) {
	return s.Store.R().Teams(ctx, store.TeamQuery{OrgID: t.OrgID, ViewerID: a.id(), All: a.Owner(), ParentID: t.ID, Limit: limit, Offset: offset})
}

// OfUser is a page of the teams the user belongs to, across organizations.
func (s *Service) OfUser(ctx context.Context, userID int64, limit, offset int) ([]*model.Team, int, error) {
	return s.Store.R().TeamsOfUser(ctx, userID, limit, offset)
}

// Opt is an optional value of a request: Set when present, Null when sent
// as null.
type Opt[T any] struct {
	Set, Null bool
	Value     T
}

// Input is a team's fields as a client sends them on create or update.
type Input struct {
	Name                Opt[string]
	Description         Opt[string]
	Privacy             Opt[string]
	NotificationSetting Opt[string]
	Permission          Opt[string] // deprecated: the grant given to repo_names
	ParentTeamID        Opt[int64]
	ParentTeamSlug      Opt[string] // ignored when ParentTeamID is set
	Maintainers         []string    // create only
	RepoNames           []string    // create only: "org/repo" or "repo"
}

var slugJunk = regexp.MustCompile(`[^a-z0-9_]+`)

// Slug is GitHub's slug of a team name: lower case, runs of anything but
// letters, digits and underscores become one hyphen.
func Slug(name string) string {
	return strings.Trim(slugJunk.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

func invalid(field string, value any) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "Team", Field: field, Code: "invalid", Value: value}}}
}

// apply validates in and sets it on t.
func apply(t *model.Team, in Input, creating bool) error {
	// A null name on update leaves it alone (go-github always sends the key).
	if (in.Name.Set && !in.Name.Null) || creating {
		name := strings.TrimSpace(in.Name.Value)
		if name == "" {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Team", Field: "name", Code: "missing_field"}}}
		}
		slug := Slug(name)
		if slug == "" {
			return invalid("name", name)
		}
		t.Name, t.Slug = name, slug
	}
	if in.Description.Set {
		if in.Description.Null || in.Description.Value == "" {
			t.Description = nil
		} else {
			d := in.Description.Value
			t.Description = &d
		}
	}
	if in.Privacy.Set && !in.Privacy.Null {
		switch in.Privacy.Value {
		case model.TeamSecret, model.TeamClosed:
			t.Privacy = in.Privacy.Value
		default:
			return invalid("privacy", in.Privacy.Value)
		}
	}
	if in.NotificationSetting.Set && !in.NotificationSetting.Null {
		switch in.NotificationSetting.Value {
		case "notifications_enabled", "notifications_disabled":
			t.NotificationSetting = in.NotificationSetting.Value
		default:
			return invalid("notification_setting", in.NotificationSetting.Value)
		}
	}
	if in.Permission.Set && !in.Permission.Null {
		switch in.Permission.Value {
		case "pull", "push":
			t.Permission = in.Permission.Value
		default:
			return invalid("permission", in.Permission.Value)
		}
	}
	return nil
}

// nesting checks that parentID may be t's parent: a team of the same
// organization, not t or one of its descendants, not secret, and the
// resulting tree no deeper than store.TeamMaxDepth (the depth that
// repository grants are followed to).
func nesting(ctx context.Context, q store.Q, t *model.Team, parentID int64) error {
	if parentID == 0 {
		return nil
	}
	parents, err := q.TeamParents(ctx, t.OrgID)
	if err != nil {
		return err
	}
	if _, ok := parents[parentID]; !ok {
		return model.Custom("Team", "parent_team_id", "Parent team must be a team of this organization.")
	}
	depth := 1 // the parent's depth from the root
	for p := parentID; ; p = parents[p] {
		if t.ID != 0 && p == t.ID {
			return model.Custom("Team", "parent_team_id", "A team cannot be its own ancestor.")
		}
		if parents[p] == 0 {
			break
		}
		depth++
	}
	// How deep t's own subtree goes below it.
	below := 0
	if t.ID != 0 {
		for id := range parents {
			d := 0
			for p := id; p != 0 && p != t.ID; p = parents[p] {
				d++
			}
			if d > below && isUnder(parents, id, t.ID) {
				below = d
			}
		}
	}
	if depth+1+below > store.TeamMaxDepth {
		return model.Custom("Team", "parent_team_id", "Teams cannot be nested more than "+itoa(store.TeamMaxDepth)+" levels deep.")
	}
	return nil
}

func isUnder(parents map[int64]int64, id, root int64) bool {
	for p := parents[id]; p != 0; p = parents[p] {
		if p == root {
			return true
		}
	}
	return false
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// parent resolves the parent named by in: set reports whether one was
// named at all (a null clears it), id 0 means none.
func parent(ctx context.Context, q store.Q, orgID int64, in Input) (id int64, set bool, err error) {
	if in.ParentTeamID.Set {
		if in.ParentTeamID.Null {
			return 0, true, nil
		}
		return in.ParentTeamID.Value, true, nil
	}
	if !in.ParentTeamSlug.Set {
		return 0, false, nil
	}
	if in.ParentTeamSlug.Null || in.ParentTeamSlug.Value == "" {
		return 0, true, nil
	}
	t, err := q.TeamBySlug(ctx, orgID, in.ParentTeamSlug.Value)
	if errors.Is(err, model.ErrNotFound) {
		return 0, true, model.Custom("Team", "parent_team_slug", "Parent team must be a team of this organization.")
	}
	if err != nil {
		return 0, true, err
	}
	return t.ID, true, nil
}

// Create makes a team of org; the creator becomes its maintainer, as do the
// named maintainers, and the named repositories get its permission.
func (s *Service) Create(ctx context.Context, org *model.Account, a Actor, in Input) (*model.Team, error) {
	if !a.Member() {
		return nil, errNotMember(org)
	}
	t := &model.Team{OrgID: org.ID, Privacy: "", NotificationSetting: "notifications_enabled", Permission: "pull"}
	if err := apply(t, in, true); err != nil {
		return nil, err
	}
	pid, _, err := parent(ctx, s.Store.R(), org.ID, in)
	if err != nil {
		return nil, err
	}
	t.ParentID = pid
	if t.Privacy == "" {
		t.Privacy = model.TeamSecret
		if t.ParentID != 0 {
			t.Privacy = model.TeamClosed
		}
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.checkTree(ctx, tx, t); err != nil {
			return err
		}
		if _, err := tx.TeamBySlug(ctx, org.ID, t.Slug); err == nil {
			return model.Custom("Team", "name", "Name must be unique for this org")
		} else if !errors.Is(err, model.ErrNotFound) {
			return err
		}
		var maintainers []*model.Account
		for _, login := range in.Maintainers {
			u, err := orgUser(ctx, tx, org, login)
			if err != nil {
				return err
			}
			maintainers = append(maintainers, u)
		}
		perm, _ := authz.ParsePermission(t.Permission)
		var repos []*model.Repo
		for _, full := range in.RepoNames {
			name := full
			if i := strings.IndexByte(full, '/'); i >= 0 {
				if !strings.EqualFold(full[:i], org.Login) {
					return model.Custom("Team", "repo_names", "Repository "+full+" is not owned by "+org.Login+".")
				}
				name = full[i+1:]
			}
			v, err := tx.RepoByName(ctx, org.Login, name, 0)
			if errors.Is(err, model.ErrNotFound) {
				return model.Custom("Team", "repo_names", "Repository "+full+" does not exist.")
			} else if err != nil {
				return err
			}
			repos = append(repos, v.Repo)
		}
		if err := tx.CreateTeam(ctx, t); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "team", a.id(), 0, org.ID, map[string]any{"action": "created", "team_id": t.ID, "slug": t.Slug}); err != nil {
			return err
		}
		if a.User != nil {
			maintainers = append([]*model.Account{a.User}, maintainers...)
		}
		for _, u := range maintainers {
			if err := s.addMember(ctx, tx, t, a, u, model.TeamMaintainer); err != nil {
				return err
			}
		}
		for _, r := range repos {
			if err := tx.SetTeamRepo(ctx, t.ID, r.ID, perm); err != nil {
				return err
			}
			if err := tx.AppendEvent(ctx, "team", a.id(), r.ID, org.ID, map[string]any{"action": "added_to_repository",
				"team_id": t.ID, "permission": perm.String()}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().TeamByID(ctx, t.ID)
}

// checkTree enforces the nesting rules on t's parent and privacy: secret
// teams can have neither parents nor children.
func (s *Service) checkTree(ctx context.Context, q store.Q, t *model.Team) error {
	if t.ParentID != 0 {
		if t.Privacy == model.TeamSecret {
			return model.Custom("Team", "privacy", "A team with a parent must be closed, secret teams cannot be nested.")
		}
		if err := nesting(ctx, q, t, t.ParentID); err != nil {
			return err
		}
		parent, err := q.TeamByID(ctx, t.ParentID)
		if err != nil {
			return err
		}
		if parent.Privacy == model.TeamSecret {
			return model.Custom("Team", "parent_team_id", "A secret team cannot be a parent team.")
		}
	}
	if t.ID != 0 && t.Privacy == model.TeamSecret {
		kids, n, err := q.Teams(ctx, store.TeamQuery{OrgID: t.OrgID, All: true, ParentID: t.ID, Limit: 1})
		if err != nil {
			return err
		}
		if n > 0 && len(kids) > 0 {
			return model.Custom("Team", "privacy", "A team with child teams cannot be secret.")
		}
	}
	return nil
}

// orgUser finds a user to add to an organization's team.
func orgUser(ctx context.Context, q store.Q, org *model.Account, login string) (*model.Account, error) {
	u, err := q.AccountByLogin(ctx, login)
	if errors.Is(err, model.ErrNotFound) || (err == nil && u.IsOrg()) {
		return nil, model.Custom("Team", "maintainers", "User "+login+" does not exist.")
	}
	return u, err
}

// addMember adds u with role. An active member of the organization joins
// at once; anyone else is invited to the organization with the team (only
// owners may invite): the team membership stays pending until they accept.
func (s *Service) addMember(ctx context.Context, q store.Q, t *model.Team, a Actor, u *model.Account, role string) error {
	state := store.StateActive
	om, err := q.Membership(ctx, t.OrgID, u.ID)
	switch {
	case err != nil && !errors.Is(err, model.ErrNotFound):
		return err
	case err == nil && om.State == store.StateActive:
		if err := q.SetTeamMember(ctx, &model.TeamMembership{TeamID: t.ID, UserID: u.ID, Role: role, State: state}); err != nil {
			return err
		}
	default:
		if !a.Owner() {
			return model.Forbidden("Only organization owners can add people outside the organization to a team.")
		}
		org := t.Org
		if org == nil { // a team being created
			if org, err = q.AccountByID(ctx, t.OrgID); err != nil {
				return err
			}
		}
		if err := orgmembers.RefuseBlocked(ctx, q, org, u); err != nil {
			return err
		}
		state = store.StatePending
		if _, _, err := orgmembers.Invite(ctx, q, orgmembers.Invitation{Org: org, Inviter: a.User, User: u,
			Teams: []orgmembers.TeamRole{{TeamID: t.ID, Role: role}}}); err != nil {
			return err
		}
	}
	return q.AppendEvent(ctx, "membership", a.id(), 0, t.OrgID, map[string]any{"action": "added", "team_id": t.ID,
		"user_id": u.ID, "role": role, "state": state})
}

// Update edits a team.
func (s *Service) Update(ctx context.Context, t *model.Team, a Actor, in Input) (*model.Team, error) {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.mayManage(ctx, tx, t, a); err != nil {
			return err
		}
		oldSlug := t.Slug
		if err := apply(t, in, false); err != nil {
			return err
		}
		pid, set, err := parent(ctx, tx, t.OrgID, in)
		if err != nil {
			return err
		}
		if set {
			t.ParentID = pid
			if t.ParentID != 0 && !in.Privacy.Set && t.Privacy == model.TeamSecret {
				t.Privacy = model.TeamClosed // GitHub closes a secret team that gets a parent
			}
		}
		if err := s.checkTree(ctx, tx, t); err != nil {
			return err
		}
		if t.Slug != oldSlug {
			if other, err := tx.TeamBySlug(ctx, t.OrgID, t.Slug); err == nil && other.ID != t.ID {
				return model.Custom("Team", "name", "Name must be unique for this org")
			} else if err != nil && !errors.Is(err, model.ErrNotFound) {
				return err
			}
		}
		if err := tx.UpdateTeam(ctx, t); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "team", a.id(), 0, t.OrgID, map[string]any{"action": "edited", "team_id": t.ID, "slug": t.Slug})
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().TeamByID(ctx, t.ID)
}

// Delete removes a team, its child teams, memberships and grants.
func (s *Service) Delete(ctx context.Context, t *model.Team, a Actor) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.mayManage(ctx, tx, t, a); err != nil {
			return err
		}
		if err := tx.DeleteTeam(ctx, t.ID); err != nil {
			return err
		}
		// The team webhook's "deleted" carries the team as it was.
		row := *t
		row.Org, row.Parent = nil, nil
		return tx.AppendEvent(ctx, "team", a.id(), 0, t.OrgID, map[string]any{"action": "deleted", "team_id": t.ID, "slug": t.Slug,
			"webhook": map[string]any{"team_row": row}})
	})
}

// Members is a page of a team's active members (role "all", "member" or
// "maintainer").
func (s *Service) Members(ctx context.Context, t *model.Team, role string, limit, offset int) ([]*model.Account, int, error) {
	switch role {
	case "", "all":
		role = ""
	case model.TeamMember, model.TeamMaintainer:
	default:
		return nil, 0, invalid("role", role)
	}
	return s.Store.R().TeamMembers(ctx, t.ID, role, limit, offset)
}

// Membership is u's membership of t: active, or pending through their
// pending invitation to the organization.
func (s *Service) Membership(ctx context.Context, t *model.Team, u *model.Account) (*model.TeamMembership, error) {
	return membership(ctx, s.Store.R(), t, u)
}

func membership(ctx context.Context, q store.Q, t *model.Team, u *model.Account) (*model.TeamMembership, error) {
	m, err := q.TeamMember(ctx, t.ID, u.ID)
	if errors.Is(err, model.ErrNotFound) {
		return q.PendingTeamMembership(ctx, t.ID, u.ID)
	}
	return m, err
}

// SetMembership adds u to t with role (default member) or changes their
// role; a pending membership's role is the invitation's.
func (s *Service) SetMembership(ctx context.Context, t *model.Team, a Actor, u *model.Account, role string) (*model.TeamMembership, error) {
	if role == "" {
		role = model.TeamMember
	}
	if role != model.TeamMember && role != model.TeamMaintainer {
		return nil, invalid("role", role)
	}
	if u.IsOrg() {
		return nil, model.Unprocessable("An organization cannot be a member of a team.")
	}
	var out *model.TeamMembership
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.mayManage(ctx, tx, t, a); err != nil {
			return err
		}
		old, err := membership(ctx, tx, t, u)
		switch {
		case err == nil && old.State == store.StatePending:
			if old.Role != role {
				inv, err := tx.PendingOrgInvitation(ctx, t.OrgID, u.ID)
				if err != nil {
					return err
				}
				if err := tx.SetOrgInvitationTeam(ctx, inv.ID, t.ID, role); err != nil {
					return err
				}
				if err := tx.AppendEvent(ctx, "membership", a.id(), 0, t.OrgID, map[string]any{"action": "role_changed",
					"team_id": t.ID, "user_id": u.ID, "role": role, "state": store.StatePending}); err != nil {
					return err
				}
			}
		case err == nil:
			if old.Role != role {
				if err := tx.SetTeamMember(ctx, &model.TeamMembership{TeamID: t.ID, UserID: u.ID, Role: role, State: old.State}); err != nil {
					return err
				}
				if err := tx.AppendEvent(ctx, "membership", a.id(), 0, t.OrgID, map[string]any{"action": "role_changed",
					"team_id": t.ID, "user_id": u.ID, "role": role}); err != nil {
					return err
				}
			}
		case errors.Is(err, model.ErrNotFound):
			if err := s.addMember(ctx, tx, t, a, u, role); err != nil {
				return err
			}
		default:
			return err
		}
		out, err = membership(ctx, tx, t, u)
		return err
	})
	return out, err
}

// RemoveMembership takes u out of t, or t off their pending invitation;
// maintainers, owners and u themselves may. GitHub answers 204 when there
// was neither.
func (s *Service) RemoveMembership(ctx context.Context, t *model.Team, a Actor, u *model.Account) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if a.id() != u.ID {
			if err := s.mayManage(ctx, tx, t, a); err != nil {
				return err
			}
		}
		err := tx.RemoveTeamMember(ctx, t.ID, u.ID)
		if errors.Is(err, model.ErrNotFound) {
			inv, ierr := tx.PendingOrgInvitation(ctx, t.OrgID, u.ID)
			if ierr != nil {
				return ignoreNotFound(ierr)
			}
			if err := tx.RemoveOrgInvitationTeam(ctx, inv.ID, t.ID); err != nil {
				return ignoreNotFound(err)
			}
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "membership", a.id(), 0, t.OrgID, map[string]any{"action": "removed", "team_id": t.ID, "user_id": u.ID})
	})
}

// Repos is a page of a team's repository grants.
func (s *Service) Repos(ctx context.Context, t *model.Team, limit, offset int) ([]store.TeamGrant, int, error) {
	return s.Store.R().TeamRepos(ctx, t.ID, limit, offset)
}

// RepoGrant is t's own grant on repo (model.ErrNotFound when none).
func (s *Service) RepoGrant(ctx context.Context, t *model.Team, repo *model.Repo) (store.TeamGrant, error) {
	return s.Store.R().TeamRepoGrant(ctx, t.ID, repo.ID)
}

// ParseGrant reads a team grant's permission (default push).
func ParseGrant(s string) (authz.Permission, error) {
	switch s {
	case "":
		return authz.Write, nil
	case "pull", "triage", "push", "maintain", "admin":
		p, _ := authz.ParsePermission(s)
		return p, nil
	}
	return authz.None, invalid("permission", s)
}

// Grant resolves a team grant's permission as PUT .../repos/{owner}/{repo}
// sends it: a level ParseGrant reads, or the name of one of the
// organization's custom repository roles, which the team gets with the
// role's base level.
func (s *Service) Grant(ctx context.Context, orgID int64, name string) (roles.Grant, error) {
	p, err := ParseGrant(name)
	if err == nil {
		return roles.Grant{Perm: p}, nil
	}
	g, cerr := roles.CustomGrant(ctx, s.Store.R(), orgID, name)
	if errors.Is(cerr, model.ErrNotFound) {
		return roles.Grant{}, err
	}
	return g, cerr
}

// GrantName is the name GitHub gives a grant in lists ("pull", "push").
func GrantName(p authz.Permission) string {
	switch p {
	case authz.Read:
		return "pull"
	case authz.Write:
		return "push"
	}
	return p.String()
}

// AddRepo gives t the grant g on repo; the actor needs admin access to the
// repository (actorPerm is theirs), which must belong to the team's
// organization.
func (s *Service) AddRepo(ctx context.Context, t *model.Team, a Actor, repo *model.Repo, actorPerm authz.Permission, g roles.Grant) error {
	if repo.OwnerID != t.OrgID {
		// A direct fork of one of the organization's repositories will do.
		owned := false
		if repo.ParentID != 0 {
			v, err := s.Store.R().RepoByID(ctx, repo.ParentID, 0)
			if err != nil && !errors.Is(err, model.ErrNotFound) {
				return err
			}
			owned = err == nil && v.Repo.OwnerID == t.OrgID
		}
		if !owned {
			return model.Unprocessable("Validation Failed: the repository must be owned by the team's organization.")
		}
	}
	if actorPerm < authz.Admin {
		return model.Forbidden("You must have administrative rights on this repository.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetTeamRepoRole(ctx, t.ID, repo.ID, g.Perm, g.RoleID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "team", a.id(), repo.ID, t.OrgID, map[string]any{"action": "added_to_repository",
			"team_id": t.ID, "permission": g.Perm.String(), "role_name": g.Name()})
	})
}

// RemoveRepo drops t's grant on repo; repository admins and the team's
// maintainers may.
func (s *Service) RemoveRepo(ctx context.Context, t *model.Team, a Actor, repo *model.Repo, actorPerm authz.Permission) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if actorPerm < authz.Admin {
			if err := s.mayManage(ctx, tx, t, a); err != nil {
				return err
			}
		}
		if err := tx.RemoveTeamRepo(ctx, t.ID, repo.ID); errors.Is(err, model.ErrNotFound) {
			return nil // GitHub answers 204 whether or not there was a grant
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "team", a.id(), repo.ID, t.OrgID, map[string]any{"action": "removed_from_repository", "team_id": t.ID})
	})
}

// RepoTeam is a team granted access to a repository, with its grant.
type RepoTeam struct {
	Team  *model.Team
	Grant store.TeamGrant
}

// OfRepo is a page of the teams granted access to an organization's
// repository that u may see, with the total: organization owners see every
// team, members the closed teams and the secret teams they belong to, and
// anyone else (or any user-owned repository) none. The caller has already
// been found to see the repository.
func (s *Service) OfRepo(ctx context.Context, repo *model.Repo, u *model.Account, limit, offset int) ([]RepoTeam, int, error) {
	if repo.Owner == nil || !repo.Owner.IsOrg() || u == nil {
		return nil, 0, nil
	}
	a, err := s.ActorIn(ctx, repo.Owner, u)
	if err != nil || !a.Member() {
		return nil, 0, err
	}
	q := s.Store.R()
	grants, total, err := q.RepoTeamGrantsPage(ctx, store.RepoTeamQuery{RepoID: repo.ID, ViewerID: u.ID, All: a.Owner(),
		Limit: limit, Offset: offset})
	if err != nil {
		return nil, 0, err
	}
	ids := make([]int64, len(grants))
	for i, g := range grants {
		ids[i] = g.TeamID
	}
	teams, err := q.TeamsByID(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	out := make([]RepoTeam, 0, len(grants))
	for _, g := range grants {
		if t := teams[g.TeamID]; t != nil {
			out = append(out, RepoTeam{Team: t, Grant: g.TeamGrant})
		}
	}
	return out, total, nil
}
