// Package collaborators is the service of a repository's collaborators and
// their invitations: who may see and manage them, inviting a user (or
// granting an organization member directly), accepting and declining, and
// the permission a user has — always the one authz.RepoPermission computes,
// since the grants written here are the repo_collaborators rows authz reads.
package collaborators

import (
	"context"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/roles"
	"github.com/hubd/hubd/internal/store"
)

// Service applies the rules; each write is one transaction with its
// domain events.
type Service struct {
	st *store.Store
}

// New makes the service.
func New(st *store.Store) *Service { return &Service{st: st} }

// Access is who acts on which repository: the transport found the
// repository (404 when hidden) and computed the caller's permission.
type Access struct {
	Repo   *model.Repo
	Perm   authz.Permission
	UserID int64
	// TokenWrites: the caller's credential may change the repository at
	// all (a classic token without repo or public_repo may not), whatever
	// the user's own permission.
	TokenWrites bool
}

func (a Access) org() int64 {
	if a.Repo.Owner != nil && a.Repo.Owner.IsOrg() {
		return a.Repo.Owner.ID
	}
	return 0
}

// errViewNeedsPush is GitHub's 403 for reading collaborators without push
// access.
var errViewNeedsPush = model.Forbidden("Must have push access to view repository collaborators.")

func (a Access) mayView() error {
	if a.Perm < authz.Write {
		return errViewNeedsPush
	}
	return nil
}

func (a Access) mayManage() error {
	if a.Perm < authz.Admin {
		return model.Forbidden("Must have admin rights to Repository.")
	}
	return nil
}

// Collaborator is a user with their effective permission on a repository
// and GitHub's role_name for it (a custom repository role's name when one
// gives the permission).
type Collaborator struct {
	User     *model.Account
	Perm     authz.Permission
	RoleName string
}

// userPermission is authz's decision for user on repo from the store's
// facts: a Caller without a token kind is the user themselves, with no
// token limits applied.
func userPermission(repo *model.Repo, user *model.Account, f authz.RepoFacts) authz.Permission {
	return authz.RepoPermission(&authz.Caller{User: user}, repo, f)
}

// memberLevel is what active members of the owning organization get through
// it (None for a user-owned repository), as authz decides.
func memberLevel(repo *model.Repo) authz.Permission {
	if repo.Owner == nil || !repo.Owner.IsOrg() {
		return authz.None
	}
	p, _ := authz.ParsePermission(repo.Owner.DefaultRepoPermission)
	if repo.Visibility == model.Internal {
		p = max(p, authz.Read)
	}
	return p
}

// ParseAffiliation reads the affiliation parameter ("" is all).
func ParseAffiliation(s string) (model.CollaboratorAffiliation, error) {
	switch s {
	case "", "all":
		return model.AffiliationAll, nil
	case "direct":
		return model.AffiliationDirect, nil
	case "outside":
		return model.AffiliationOutside, nil
	}
	return "", model.Invalid("Collaborator", "affiliation", "invalid")
}

// ParseLevelFilter reads the permission filter of the list ("" is any).
func ParseLevelFilter(s string) (authz.Permission, error) {
	switch s {
	case "":
		return authz.None, nil
	case "pull", "triage", "push", "maintain", "admin":
		p, _ := authz.ParsePermission(s)
		return p, nil
	}
	return authz.None, model.Invalid("Collaborator", "permission", "invalid")
}

// List is one page of the repository's collaborators and their total.
func (s *Service) List(ctx context.Context, a Access, aff model.CollaboratorAffiliation, level authz.Permission, limit, offset int) ([]Collaborator, int, error) {
	if err := a.mayView(); err != nil {
		return nil, 0, err
	}
	if org := a.org(); org != 0 && a.Perm < authz.Admin {
		// GitHub lists an organization's collaborators to its members
		// only (outside collaborators with push access get a 403).
		m, err := s.st.R().Membership(ctx, org, a.UserID)
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return nil, 0, err
		}
		if err != nil || m.State != "active" {
			return nil, 0, model.Forbidden("Must be an organization member to view repository collaborators.")
		}
	}
	base := authz.None
	if !a.Repo.Private() {
		base = authz.Read
	}
	q := s.st.R()
	rows, total, err := q.ListCollaborators(ctx, store.CollaboratorQuery{Repo: a.Repo, Affiliation: aff,
		MemberLevel: memberLevel(a.Repo), BaseLevel: base, Level: level, Limit: limit, Offset: offset})
	if err != nil {
		return nil, 0, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.User.ID
	}
	custom, err := q.CustomRoleGrants(ctx, a.Repo, ids)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Collaborator, len(rows))
	for i, r := range rows {
		f := authz.RepoFacts{OrgRole: r.OrgRole, Collab: r.Collab, Team: r.Team, OrgRoles: r.OrgRoles}
		if r.OrgRole != "" {
			f.OrgDefault, _ = authz.ParsePermission(a.Repo.Owner.DefaultRepoPermission)
		}
		p := userPermission(a.Repo, r.User, f)
		out[i] = Collaborator{User: r.User, Perm: p, RoleName: authz.RoleName(p, custom[r.User.ID])}
	}
	return out, total, nil
}

// user finds a user by login (organizations are not users: 404).
func (s *Service) user(ctx context.Context, q store.Q, login string) (*model.Account, error) {
	u, err := q.AccountByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	if u.IsOrg() {
		return nil, model.ErrNotFound
	}
	return u, nil
}

// facts is what authz knows about user on repo.
func (s *Service) facts(ctx context.Context, q store.Q, repo *model.Repo, userID int64) (authz.RepoFacts, error) {
	v, err := q.RepoByID(ctx, repo.ID, userID)
	if err != nil {
		return authz.RepoFacts{}, err
	}
	return v.Facts, nil
}

// listed reports whether a user is one of the repository's collaborators
// in the sense of the "all" list: the owner, a direct grant, an org admin
// or a member the organization gives access to (its base permission, their
// teams or their organization roles).
func listed(repo *model.Repo, userID int64, f authz.RepoFacts) bool {
	return repo.OwnerID == userID || f.Collab > authz.None || f.OrgRole == model.RoleAdmin ||
		(f.OrgRole == model.RoleMember && (memberLevel(repo) > authz.None || f.Team > authz.None || f.OrgRoles > authz.None))
}

// Check reports whether login is a collaborator (model.ErrNotFound when
// not, GitHub's 404).
func (s *Service) Check(ctx context.Context, a Access, login string) error {
	if err := a.mayView(); err != nil {
		return err
	}
	q := s.st.R()
	u, err := s.user(ctx, q, login)
	if err != nil {
		return err
	}
	f, err := s.facts(ctx, q, a.Repo, u.ID)
	if err != nil {
		return err
	}
	if !listed(a.Repo, u.ID, f) {
		return model.ErrNotFound
	}
	return nil
}

// Permission is login's permission on the repository as authz decides it.
func (s *Service) Permission(ctx context.Context, a Access, login string) (*Collaborator, error) {
	if err := a.mayView(); err != nil {
		return nil, err
	}
	q := s.st.R()
	u, err := s.user(ctx, q, login)
	if err != nil {
		return nil, err
	}
	f, err := s.facts(ctx, q, a.Repo, u.ID)
	if err != nil {
		return nil, err
	}
	custom, err := q.CustomRoleGrants(ctx, a.Repo, []int64{u.ID})
	if err != nil {
		return nil, err
	}
	p := userPermission(a.Repo, u, f)
	return &Collaborator{User: u, Perm: p, RoleName: authz.RoleName(p, custom[u.ID])}, nil
}

// grant reads the permission of PUT .../collaborators/{username}: GitHub's
// names (pull, triage, push, maintain, admin; read and write are accepted
// too), push by default, or on an organization's repository the name of
// one of its custom repository roles.
func (s *Service) grant(ctx context.Context, q store.Q, a Access, name *string) (roles.Grant, error) {
	if name == nil || *name == "" {
		return roles.Grant{Perm: authz.Write}, nil
	}
	if p, ok := authz.ParsePermission(*name); ok && p != authz.None {
		if err := personalLevel(a.Repo, p); err != nil {
			return roles.Grant{}, err
		}
		return roles.Grant{Perm: p}, nil
	}
	g, err := roles.CustomGrant(ctx, q, a.org(), *name)
	if errors.Is(err, model.ErrNotFound) {
		return roles.Grant{}, &model.ValidationError{Errors: []model.FieldError{{Resource: "Repository", Field: "permission",
			Code: "invalid", Value: *name}}}
	}
	return g, err
}

// personalLevel refuses triage and maintain on a repository a user owns:
// GitHub grants a personal repository's collaborators read, write or admin
// only, and answers the two organization levels with 422 Validation Failed
// rather than granting another level (github/rest-api-description#7010;
// the message is hubd's own).
func personalLevel(repo *model.Repo, p authz.Permission) error {
	if (p == authz.Triage || p == authz.Maintain) && (repo.Owner == nil || !repo.Owner.IsOrg()) {
		return model.Custom("Repository", "permission", "The "+p.String()+
			" permission is only available on organization-owned repositories; use pull, push or admin.")
	}
	return nil
}

// MaxInvitationsPerDay is how many invitations a repository may send in 24
// hours (organization members are granted without one, so they do not
// count).
const MaxInvitationsPerDay = 50

// errInvitationCap is GitHub's refusal of the 51st invitation of a day.
var errInvitationCap = model.Custom("RepositoryInvitation", "invitee",
	"You are limited to sending 50 invitations to a repository per 24 hour period.")

// errInviteeBlocked refuses inviting a user the repository's owner (the
// user, or the owning organization) has blocked.
var errInviteeBlocked = model.Custom("RepositoryInvitation", "invitee", "The user is blocked by the owner of this repository.")

// errInviterBlocked refuses inviting a user who has blocked the inviter or
// the user owning the repository: GitHub's blocked user cannot invite the
// blocker to their repositories. GitHub answers 422 Validation Failed; the
// message is the one GitHub support quoted for a blocked invitation
// ("User is blocked"), as GitHub does not tell who blocked whom.
var errInviterBlocked = model.Custom("RepositoryInvitation", "invitee", "User is blocked")

// refuseBlocked checks the blocks between the invitee and the inviting
// side: the owner (a user or the organization) blocking the invitee, and
// the invitee blocking the inviter or the owning user.
func refuseBlocked(ctx context.Context, tx store.Q, a Access, inviteeID int64) error {
	if blocked, err := tx.IsBlocked(ctx, a.Repo.OwnerID, inviteeID); err != nil || blocked {
		if err == nil {
			err = errInviteeBlocked
		}
		return err
	}
	blockers := []int64{a.UserID}
	if a.org() == 0 && a.Repo.OwnerID != a.UserID {
		blockers = append(blockers, a.Repo.OwnerID)
	}
	for _, id := range blockers {
		if blocked, err := tx.IsBlocked(ctx, inviteeID, id); err != nil || blocked {
			if err == nil {
				err = errInviterBlocked
			}
			return err
		}
	}
	return nil
}

// AddResult is what PUT did: Invitation is set when an invitation was
// created (or renewed), nil when the user got (or kept) a direct grant.
type AddResult struct {
	Invitation *model.RepoInvitation
}

// Add invites login to the repository with a permission, or changes the
// permission of an existing collaborator, or grants an organization member
// directly, as GitHub does.
func (s *Service) Add(ctx context.Context, a Access, login string, permission *string) (*AddResult, error) {
	if err := a.mayManage(); err != nil {
		return nil, err
	}
	q := s.st.R()
	g, err := s.grant(ctx, q, a, permission)
	if err != nil {
		return nil, err
	}
	u, err := s.user(ctx, q, login)
	if err != nil {
		return nil, err
	}
	if u.ID == a.Repo.OwnerID {
		return nil, model.Custom("Repository", "collaborator", "Repository owner cannot be a collaborator")
	}
	if u.ID == a.UserID {
		return nil, model.Custom("Repository", "collaborator", "You cannot invite yourself to this repository")
	}
	res := &AddResult{}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		current, currentRole, err := tx.CollaboratorGrant(ctx, a.Repo.ID, u.ID)
		if err != nil {
			return err
		}
		member := false
		if org := a.org(); org != 0 {
			m, err := tx.Membership(ctx, org, u.ID)
			if err != nil && !errors.Is(err, model.ErrNotFound) {
				return err
			}
			member = err == nil && m.State == "active"
		}
		if member {
			// With a base permission in place, a member's grant must
			// not be below it.
			if base, _ := authz.ParsePermission(a.Repo.Owner.DefaultRepoPermission); g.Perm < base {
				return model.Unprocessable("Cannot assign " + u.Login + " permission of " + g.Name())
			}
		}
		if current > authz.None || member {
			// A collaborator's permission changes; an org member is
			// granted at once, without an invitation.
			if current == g.Perm && currentRole == g.RoleID {
				return nil
			}
			if err := tx.SetCollaboratorRole(ctx, a.Repo.ID, u.ID, g.Perm, g.RoleID); err != nil {
				return err
			}
			action := "added"
			if current > authz.None {
				action = "edited"
			}
			return tx.AppendEvent(ctx, "member", a.UserID, a.Repo.ID, a.org(), map[string]any{
				"action": action, "member": u.ID, "permission": g.Perm.String(), "role_name": g.Name(), "previous": current.String()})
		}
		if err := refuseBlocked(ctx, tx, a, u.ID); err != nil {
			return err
		}
		sent, err := tx.InvitationsSentSince(ctx, a.Repo.ID, tx.Now().Add(-24*time.Hour))
		if err != nil {
			return err
		}
		if sent >= MaxInvitationsPerDay {
			return errInvitationCap
		}
		if err := tx.RecordInvitationSent(ctx, a.Repo.ID); err != nil {
			return err
		}
		inv, err := tx.RepoInvitationFor(ctx, a.Repo.ID, u.ID)
		switch {
		case errors.Is(err, model.ErrNotFound):
			inv = &model.RepoInvitation{RepoID: a.Repo.ID, InviteeID: u.ID, InviterID: a.UserID, Permission: g.Perm.String(), RoleID: g.RoleID}
			if err := tx.CreateRepoInvitation(ctx, inv); err != nil {
				return err
			}
			if err := tx.AppendEvent(ctx, "repository_invitation", a.UserID, a.Repo.ID, a.org(), map[string]any{
				"action": "created", "invitation": inv.ID, "invitee": u.ID, "permission": inv.Permission, "role_name": g.Name()}); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			// Inviting again renews the open invitation.
			if err := tx.RenewRepoInvitation(ctx, inv.ID, g.Perm.String(), g.RoleID, true, a.UserID); err != nil {
				return err
			}
			if err := tx.AppendEvent(ctx, "repository_invitation", a.UserID, a.Repo.ID, a.org(), map[string]any{
				"action": "edited", "invitation": inv.ID, "invitee": u.ID, "permission": g.Perm.String(), "role_name": g.Name()}); err != nil {
				return err
			}
		}
		res.Invitation, err = tx.RepoInvitationByID(ctx, inv.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Remove drops login's direct grant and their open invitations to the
// repository. Admins remove anyone; a collaborator may remove themselves.
func (s *Service) Remove(ctx context.Context, a Access, login string) error {
	u, err := s.user(ctx, s.st.R(), login)
	if err != nil {
		if errors.Is(err, model.ErrNotFound) && a.Perm < authz.Admin {
			return a.mayManage()
		}
		return err
	}
	if u.ID != a.UserID || a.Perm >= authz.Admin {
		if err := a.mayManage(); err != nil {
			return err
		}
	} else {
		// A collaborator leaving: they need a grant to give up and a
		// credential that may write.
		grant, err := s.st.R().Collaborator(ctx, a.Repo.ID, u.ID)
		if err != nil {
			return err
		}
		if grant == authz.None || !a.TokenWrites {
			return a.mayManage()
		}
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		had, err := tx.RemoveCollaborator(ctx, a.Repo.ID, u.ID)
		if err != nil {
			return err
		}
		if had {
			if err := tx.AppendEvent(ctx, "member", a.UserID, a.Repo.ID, a.org(), map[string]any{
				"action": "removed", "member": u.ID}); err != nil {
				return err
			}
		}
		// Their own open invitation goes, and so do the invitations they
		// sent as a collaborator (as GitHub cancels them).
		var gone []int64
		inv, err := tx.RepoInvitationFor(ctx, a.Repo.ID, u.ID)
		switch {
		case err == nil:
			if err := tx.DeleteRepoInvitation(ctx, inv.ID); err != nil {
				return err
			}
			gone = append(gone, inv.ID)
		case !errors.Is(err, model.ErrNotFound):
			return err
		}
		if had {
			sent, err := tx.DeleteRepoInvitationsBy(ctx, a.Repo.ID, u.ID)
			if err != nil {
				return err
			}
			gone = append(gone, sent...)
		}
		for _, id := range gone {
			if err := tx.AppendEvent(ctx, "repository_invitation", a.UserID, a.Repo.ID, a.org(), map[string]any{
				"action": "deleted", "invitation": id}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Invitations is one page of the repository's open invitations.
func (s *Service) Invitations(ctx context.Context, a Access, limit, offset int) ([]*model.RepoInvitation, int, error) {
	if err := a.mayManage(); err != nil {
		return nil, 0, err
	}
	return s.st.R().RepoInvitations(ctx, a.Repo.ID, limit, offset)
}

// repoInvitation finds an invitation of the repository (404 otherwise).
func repoInvitation(ctx context.Context, q store.Q, repoID, id int64) (*model.RepoInvitation, error) {
	inv, err := q.RepoInvitationByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if inv.RepoID != repoID {
		return nil, model.ErrNotFound
	}
	return inv, nil
}

// UpdateInvitation changes an invitation's permission (nil keeps it).
func (s *Service) UpdateInvitation(ctx context.Context, a Access, id int64, permissions *string) (*model.RepoInvitation, error) {
	if err := a.mayManage(); err != nil {
		return nil, err
	}
	var perm authz.Permission
	if permissions != nil {
		p, ok := authz.ParsePermission(*permissions)
		if !ok || p == authz.None || (*permissions != p.String()) {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "RepositoryInvitation", Field: "permissions",
				Code: "invalid", Value: *permissions}}}
		}
		if err := personalLevel(a.Repo, p); err != nil {
			return nil, err
		}
		perm = p
	}
	var out *model.RepoInvitation
	err := s.st.Tx(ctx, func(tx store.Q) error {
		inv, err := repoInvitation(ctx, tx, a.Repo.ID, id)
		if err != nil {
			return err
		}
		if permissions != nil && (perm.String() != inv.Permission || inv.RoleID != 0) {
			if err := tx.RenewRepoInvitation(ctx, inv.ID, perm.String(), 0, false, 0); err != nil {
				return err
			}
			if err := tx.AppendEvent(ctx, "repository_invitation", a.UserID, a.Repo.ID, a.org(), map[string]any{
				"action": "edited", "invitation": inv.ID, "invitee": inv.InviteeID, "permission": perm.String()}); err != nil {
				return err
			}
		}
		out, err = tx.RepoInvitationByID(ctx, inv.ID)
		return err
	})
	return out, err
}

// DeleteInvitation withdraws an invitation.
func (s *Service) DeleteInvitation(ctx context.Context, a Access, id int64) error {
	if err := a.mayManage(); err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		inv, err := repoInvitation(ctx, tx, a.Repo.ID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteRepoInvitation(ctx, inv.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "repository_invitation", a.UserID, a.Repo.ID, a.org(), map[string]any{
			"action": "deleted", "invitation": inv.ID, "invitee": inv.InviteeID})
	})
}

// UserInvitation is an invitation with its repository as the invitee sees
// it.
type UserInvitation struct {
	*model.RepoInvitation
	Repo  *model.Repo
	Facts authz.RepoFacts // the invitee's relation to Repo
}

// WithRepos attaches the repositories of invitations as viewerID sees them
// (one query for the page).
func (s *Service) WithRepos(ctx context.Context, list []*model.RepoInvitation, viewerID int64) ([]UserInvitation, error) {
	ids := make([]int64, 0, len(list))
	for _, inv := range list {
		ids = append(ids, inv.RepoID)
	}
	repos, err := s.st.R().ReposByID(ctx, ids, viewerID)
	if err != nil {
		return nil, err
	}
	out := make([]UserInvitation, 0, len(list))
	for _, inv := range list {
		v, ok := repos[inv.RepoID]
		if !ok {
			continue // deleted meanwhile (its invitations go with it)
		}
		out = append(out, UserInvitation{RepoInvitation: inv, Repo: v.Repo, Facts: v.Facts})
	}
	return out, nil
}

// MyInvitations is one page of userID's invitations, expired ones included
// (their expired flag is set).
func (s *Service) MyInvitations(ctx context.Context, userID int64, limit, offset int) ([]UserInvitation, int, error) {
	list, total, err := s.st.R().UserRepoInvitations(ctx, userID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := s.WithRepos(ctx, list, userID)
	return out, total, err
}

// myInvitation finds an invitation addressed to userID (404 otherwise: the
// invitations of others are not seen).
func myInvitation(ctx context.Context, q store.Q, userID, id int64) (*model.RepoInvitation, error) {
	inv, err := q.RepoInvitationByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if inv.InviteeID != userID {
		return nil, model.ErrNotFound
	}
	return inv, nil
}

func orgOfRepo(ctx context.Context, q store.Q, repoID int64) (int64, error) {
	v, err := q.RepoByID(ctx, repoID, 0)
	if err != nil {
		return 0, err
	}
	if v.Repo.Owner != nil && v.Repo.Owner.IsOrg() {
		return v.Repo.Owner.ID, nil
	}
	return 0, nil
}

// Accept makes the invitee a collaborator with the invitation's
// permission. An expired invitation is not found, as on GitHub.
func (s *Service) Accept(ctx context.Context, userID, id int64) error {
	return s.st.Tx(ctx, func(tx store.Q) error {
		inv, err := myInvitation(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if inv.Expired {
			return model.ErrNotFound
		}
		perm, _ := authz.ParsePermission(inv.Permission)
		org, err := orgOfRepo(ctx, tx, inv.RepoID)
		if err != nil {
			return err
		}
		if err := tx.SetCollaboratorRole(ctx, inv.RepoID, userID, perm, inv.RoleID); err != nil {
			return err
		}
		if err := tx.DeleteRepoInvitation(ctx, inv.ID); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "repository_invitation", userID, inv.RepoID, org, map[string]any{
			"action": "accepted", "invitation": inv.ID, "invitee": userID, "permission": inv.Permission}); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "member", userID, inv.RepoID, org, map[string]any{
			"action": "added", "member": userID, "permission": inv.Permission, "invitation": inv.ID})
	})
}

// Decline drops an invitation addressed to userID (expired ones too).
func (s *Service) Decline(ctx context.Context, userID, id int64) error {
	return s.st.Tx(ctx, func(tx store.Q) error {
		inv, err := myInvitation(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		org, err := orgOfRepo(ctx, tx, inv.RepoID)
		if err != nil {
			return err
		}
		if err := tx.DeleteRepoInvitation(ctx, inv.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "repository_invitation", userID, inv.RepoID, org, map[string]any{
			"action": "declined", "invitation": inv.ID, "invitee": userID})
	})
}
