// Package scim provisions the enterprise's users and groups from an
// identity provider (SCIM 2.0, RFC 7643/7644), as GitHub Enterprise
// Server does: a provisioned identity creates a hubd user (no password;
// an administrator issues their token); "active": false suspends the user
// and obfuscates their login and email, and "active": true restores them;
// deleting the identity suspends and obfuscates the user for good; roles
// set the user's enterprise role (enterprise_owner is a site
// administrator). Groups are enterprise teams (internal/enterpriseteams)
// with their members. Transports parse and render; the rules live here.
package scim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/enterpriseteams"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/store"
)

// Service is the SCIM service.
type Service struct {
	st *store.Store
	// Changed runs after a commit that changed accounts (token caches).
	Changed func()
}

// New makes the service.
func New(st *store.Store) *Service { return &Service{st: st, Changed: func() {}} }

// User is a SCIM user with the groups it belongs to.
type User struct {
	*model.SCIMUser
	Groups []*model.EnterpriseTeam
}

// Group is a SCIM group (an enterprise team) with its SCIM members.
type Group struct {
	*model.EnterpriseTeam
	Members []*model.SCIMUser
}

// MaxCount bounds a page of a list.
const MaxCount = 100

// Page turns SCIM's startIndex (1-based) and count into a limit and offset
// (RFC 7644 3.4.2.4: below 1 is 1, a negative count is 0).
func Page(startIndex, count int) (limit, offset int) {
	if startIndex < 1 {
		startIndex = 1
	}
	if count < 0 {
		count = 0
	}
	if count > MaxCount {
		count = MaxCount
	}
	return count, startIndex - 1
}

// LoginFor is the login a userName makes: an email's local part, then
// GHES's normalization.
func LoginFor(userName string) string {
	local, _, _ := strings.Cut(strings.TrimSpace(userName), "@")
	return names.NormalizeLogin(local)
}

// obfuscated is the login of a deprovisioned user: a hash of the login
// (GitHub: "obfuscated with a hash of the original username").
func obfuscated(login, uuid string) string {
	h := sha256.Sum256([]byte(strings.ToLower(login) + "\x00" + uuid))
	return "x" + hex.EncodeToString(h[:])[:19]
}

func displayName(a UserAttrs) string {
	switch {
	case a.DisplayName != "":
		return a.DisplayName
	case a.Name.Formatted != "":
		return a.Name.Formatted
	}
	return strings.TrimSpace(a.Name.GivenName + " " + a.Name.FamilyName)
}

// Attrs is the writable part of an identity.
func Attrs(u *model.SCIMUser) UserAttrs {
	return UserAttrs{ExternalID: u.ExternalID, UserName: u.UserName, DisplayName: u.DisplayName,
		Name:   Name{Formatted: u.Formatted, FamilyName: u.FamilyName, GivenName: u.GivenName, MiddleName: u.MiddleName},
		Emails: u.Emails, Roles: u.Roles, Active: u.Active}
}

func put(u *model.SCIMUser, a UserAttrs) {
	u.ExternalID, u.UserName, u.DisplayName = a.ExternalID, a.UserName, a.DisplayName
	u.Formatted, u.FamilyName, u.GivenName, u.MiddleName = a.Name.Formatted, a.Name.FamilyName, a.Name.GivenName, a.Name.MiddleName
	u.Emails, u.Roles, u.Active = a.Emails, a.Roles, a.Active
	if u.Emails == nil {
		u.Emails = []model.SCIMEmail{}
	}
	if u.Roles == nil {
		u.Roles = []string{}
	}
}

// Provision creates an identity and its user (POST .../Users).
func (s *Service) Provision(ctx context.Context, actorID int64, a UserAttrs) (*User, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	login := LoginFor(a.UserName)
	if err := names.ValidLogin(login); err != nil {
		return nil, badRequest(InvalidValue, "userName %q makes no valid login: %v.", a.UserName, err)
	}
	su := &model.SCIMUser{UUID: randid.UUID(), Login: login, Email: a.PrimaryEmail()}
	put(su, a)
	err := s.st.Tx(ctx, func(tx store.Q) error {
		if _, total, err := tx.SCIMUsers(ctx, store.SCIMFilter{Attr: "userName", Value: a.UserName}, 1, 0); err != nil || total > 0 {
			if err == nil {
				err = conflict("User with userName %q already exists.", a.UserName)
			}
			return err
		}
		acct := &model.Account{Login: login, Type: model.TypeUser}
		if err := tx.CreateAccount(ctx, acct); err != nil {
			if errors.Is(err, store.ErrDuplicate) {
				return conflict("The login %q (from userName %q) is taken.", login, a.UserName)
			}
			return err
		}
		su.UserID = acct.ID
		if err := s.sync(ctx, tx, actorID, su, acct); err != nil {
			return err
		}
		if err := tx.CreateSCIMUser(ctx, su); err != nil {
			if errors.Is(err, store.ErrDuplicate) {
				return conflict("User with userName %q already exists.", a.UserName)
			}
			return err
		}
		return tx.AppendEvent(ctx, "scim.user_provisioned", actorID, 0, 0, map[string]any{"scim_id": su.UUID, "user_id": acct.ID, "login": login})
	})
	if err != nil {
		return nil, err
	}
	s.Changed()
	return &User{SCIMUser: su, Groups: []*model.EnterpriseTeam{}}, nil
}

// sync writes an identity's attributes onto its user: name, email, role,
// and suspension with the obfuscated login and email while inactive. A
// suspended user keeps their enterprise teams but not the organization
// memberships those give; reactivated, they have them again.
func (s *Service) sync(ctx context.Context, tx store.Q, actorID int64, su *model.SCIMUser, acct *model.Account) error {
	wasSuspended := acct.SuspendedAt != nil
	su.Email = Attrs(su).PrimaryEmail()
	if su.Email != "" {
		taken, err := tx.EmailTaken(ctx, su.Email, acct.ID)
		if err != nil {
			return err
		}
		if taken {
			return conflict("The email %q belongs to another user.", su.Email)
		}
	}
	acct.Name = displayName(Attrs(su))
	acct.SiteAdmin = contains(su.Roles, "enterprise_owner")
	if su.Active {
		acct.Login, acct.Email, acct.SuspendedAt = su.Login, su.Email, nil
	} else {
		if acct.SuspendedAt == nil {
			now := tx.Now()
			acct.SuspendedAt = &now
		}
		acct.Login, acct.Email = obfuscated(su.Login, su.UUID), ""
	}
	if err := tx.UpdateAccount(ctx, acct); err != nil {
		if errors.Is(err, store.ErrDuplicate) {
			return conflict("The login %q is taken.", acct.Login)
		}
		return err
	}
	if wasSuspended != (acct.SuspendedAt != nil) {
		return enterpriseteams.SyncUserOrgs(ctx, tx, actorID, acct.ID)
	}
	return nil
}

// GetUser is one identity.
func (s *Service) GetUser(ctx context.Context, uuid string) (*User, error) {
	q := s.st.R()
	su, err := q.SCIMUserByUUID(ctx, uuid)
	if errors.Is(err, model.ErrNotFound) {
		return nil, ErrUserNotFound
	}
	if err != nil {
		return nil, err
	}
	out, err := withGroups(ctx, q, []*model.SCIMUser{su})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func withGroups(ctx context.Context, q store.Q, list []*model.SCIMUser) ([]*User, error) {
	ids := make([]int64, len(list))
	for i, u := range list {
		ids[i] = u.UserID
	}
	of, err := q.EnterpriseTeamsOfUsers(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*User, len(list))
	for i, u := range list {
		gs := []*model.EnterpriseTeam{}
		for _, t := range of[u.UserID] {
			if t.GroupID != "" {
				gs = append(gs, t)
			}
		}
		out[i] = &User{SCIMUser: u, Groups: gs}
	}
	return out, nil
}

// Users is a page of identities (filter: userName, externalId, id,
// displayName eq) and how many match.
func (s *Service) Users(ctx context.Context, filter string, startIndex, count int) ([]*User, int, error) {
	f, err := ParseFilter(filter, "userName", "externalId", "id", "displayName")
	if err != nil {
		return nil, 0, err
	}
	limit, offset := Page(startIndex, count)
	q := s.st.R()
	list, total, err := q.SCIMUsers(ctx, f, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := withGroups(ctx, q, list)
	return out, total, err
}

// Replace sets every attribute of an identity (PUT).
func (s *Service) Replace(ctx context.Context, actorID int64, uuid string, a UserAttrs) (*User, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	return s.update(ctx, actorID, uuid, func(UserAttrs) (UserAttrs, error) { return a, nil })
}

// Patch applies PATCH operations to an identity.
func (s *Service) Patch(ctx context.Context, actorID int64, uuid string, ops []Op) (*User, error) {
	return s.update(ctx, actorID, uuid, func(cur UserAttrs) (UserAttrs, error) { return PatchUser(cur, ops) })
}

func (s *Service) update(ctx context.Context, actorID int64, uuid string, change func(UserAttrs) (UserAttrs, error)) (*User, error) {
	var su *model.SCIMUser
	err := s.st.Tx(ctx, func(tx store.Q) error {
		var err error
		if su, err = tx.SCIMUserByUUID(ctx, uuid); err != nil {
			if errors.Is(err, model.ErrNotFound) {
				return ErrUserNotFound
			}
			return err
		}
		was := su.Active
		a, err := change(Attrs(su))
		if err != nil {
			return err
		}
		if !strings.EqualFold(a.UserName, su.UserName) {
			login := LoginFor(a.UserName)
			if err := names.ValidLogin(login); err != nil {
				return badRequest(InvalidValue, "userName %q makes no valid login: %v.", a.UserName, err)
			}
			su.Login = login
		}
		put(su, a)
		acct, err := tx.AccountByID(ctx, su.UserID)
		if err != nil {
			return err
		}
		if err := s.sync(ctx, tx, actorID, su, acct); err != nil {
			return err
		}
		if err := tx.UpdateSCIMUser(ctx, su); err != nil {
			if errors.Is(err, store.ErrDuplicate) {
				return conflict("User with userName %q already exists.", a.UserName)
			}
			return err
		}
		typ := "scim.user_updated"
		switch {
		case was && !su.Active:
			typ = "scim.user_deactivated"
		case !was && su.Active:
			typ = "scim.user_reactivated"
		}
		return tx.AppendEvent(ctx, typ, actorID, 0, 0, map[string]any{"scim_id": su.UUID, "user_id": su.UserID})
	})
	if err != nil {
		return nil, err
	}
	s.Changed()
	return s.GetUser(ctx, uuid)
}

// DeleteUser removes an identity (hard deprovisioning): the user stays
// suspended with an obfuscated login and email, and leaves every
// enterprise team.
func (s *Service) DeleteUser(ctx context.Context, actorID int64, uuid string) error {
	err := s.st.Tx(ctx, func(tx store.Q) error {
		su, err := tx.SCIMUserByUUID(ctx, uuid)
		if errors.Is(err, model.ErrNotFound) {
			return ErrUserNotFound
		}
		if err != nil {
			return err
		}
		acct, err := tx.AccountByID(ctx, su.UserID)
		if err != nil {
			return err
		}
		su.Active = false
		if err := s.sync(ctx, tx, actorID, su, acct); err != nil {
			return err
		}
		if err := enterpriseteams.RemoveUserEverywhere(ctx, tx, actorID, su.UserID); err != nil {
			return err
		}
		if err := tx.DeleteSCIMUser(ctx, su.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "scim.user_deleted", actorID, 0, 0, map[string]any{"scim_id": su.UUID, "user_id": su.UserID})
	})
	if err == nil {
		s.Changed()
	}
	return err
}
