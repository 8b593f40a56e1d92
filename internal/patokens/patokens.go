// Package patokens is the fine-grained personal access token service: a
// user's tokens (github_pat_) reaching one resource owner (themselves or an
// organization they belong to) with a repository selection and
// fine-grained permissions, each organization's policy for them, and the
// organization's requests and grants (an owner approves or denies a
// request, revokes a grant). Every write appends a domain event in its
// transaction.
package patokens

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service applies GitHub's rules for fine-grained tokens.
type Service struct {
	Store *store.Store
	// Revoked is called after tokens lose or gain access (a request
	// reviewed, a grant revoked, a policy changed): the server's
	// authentication cache forgets them. Nil does nothing.
	Revoked func()
}

// GitHub's limits.
const (
	MaxLifetime       = 366 * 24 * time.Hour // and at least a day
	MaxNameLength     = 40
	MaxDescription    = 1024
	DefaultLifetime   = 30 * 24 * time.Hour
	MaxSelectedRepos  = 50
	maxReasonLength   = 1024
	messageRestricted = "This organization has restricted access via fine-grained personal access tokens"
)

// CreateInput is a new token.
type CreateInput struct {
	User        *model.Account
	Owner       *model.Account // the resource owner: User or an organization
	Name        string
	Description string
	// Selection is authz.SelectionNone, SelectionAll or SelectionSubset
	// (with Repositories, names in the owner's namespace).
	Selection    string
	Repositories []string
	Permissions  map[string]string
	// ExpiresIn is the lifetime (0: GitHub's default of 30 days; Never:
	// no expiry, for a token on the user's own resources).
	ExpiresIn time.Duration
	Never     bool
	Reason    string // why the organization should grant it
}

// Created is a new token, its plaintext (shown once) and, for an
// organization, its grant (pending or approved).
type Created struct {
	Plain string
	Token *store.FineGrainedToken
	Grant *store.PATGrant
}

// Create validates and stores a token, and asks its organization for
// access.
func (s *Service) Create(ctx context.Context, in CreateInput) (*Created, error) {
	const res = "PersonalAccessToken"
	in.Name = strings.TrimSpace(in.Name)
	switch {
	case in.Name == "":
		return nil, model.Invalid(res, "name", "missing_field")
	case utf8.RuneCountInString(in.Name) > MaxNameLength:
		return nil, model.Invalid(res, "name", "invalid")
	case utf8.RuneCountInString(in.Description) > MaxDescription:
		return nil, model.Invalid(res, "description", "invalid")
	case utf8.RuneCountInString(in.Reason) > maxReasonLength:
		return nil, model.Invalid(res, "reason", "invalid")
	}
	if in.Owner == nil {
		in.Owner = in.User
	}
	isOrg := in.Owner.ID != in.User.ID
	if isOrg && !in.Owner.IsOrg() {
		return nil, model.Invalid(res, "resource_owner", "invalid")
	}
	if in.Selection == "" {
		in.Selection = authz.SelectionNone
		if len(in.Repositories) > 0 {
			in.Selection = authz.SelectionSubset
		}
	}
	switch in.Selection {
	case authz.SelectionNone, authz.SelectionAll:
		if len(in.Repositories) > 0 {
			return nil, model.Invalid(res, "repositories", "invalid")
		}
	case authz.SelectionSubset:
		if len(in.Repositories) == 0 || len(in.Repositories) > MaxSelectedRepos {
			return nil, model.Invalid(res, "repositories", "invalid")
		}
	default:
		return nil, model.Invalid(res, "repository_selection", "invalid")
	}
	perms := map[string]string{}
	for name, level := range in.Permissions {
		if !authz.ValidPermission(name, level) {
			return nil, model.Invalid(res, "permissions", "invalid")
		}
		switch authz.PermissionClass(name) {
		case "repository":
			if in.Selection == authz.SelectionNone {
				// Public repositories are reached read-only, without
				// repository permissions.
				return nil, model.Invalid(res, "permissions", "invalid")
			}
		case "organization":
			if !isOrg {
				return nil, model.Invalid(res, "permissions", "invalid")
			}
		case "enterprise":
			return nil, model.Invalid(res, "permissions", "invalid")
		}
		perms[name] = level
	}
	if in.Selection != authz.SelectionNone && perms["metadata"] == "" {
		perms["metadata"] = "read" // mandatory with repositories
	}
	now := s.Store.Now()
	var expires *time.Time
	switch {
	case in.Never && isOrg:
		// The organization's maximum lifetime (GitHub's default policy:
		// 366 days) would keep it out.
		return nil, model.Invalid(res, "expires_at", "invalid")
	case in.Never:
	case in.ExpiresIn == 0:
		t := now.Add(DefaultLifetime)
		expires = &t
	case in.ExpiresIn < 24*time.Hour || in.ExpiresIn > MaxLifetime:
		return nil, model.Invalid(res, "expires_at", "invalid")
	default:
		t := now.Add(in.ExpiresIn)
		expires = &t
	}
	out := &Created{}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if taken, err := tx.FineGrainedTokenNameTaken(ctx, in.User.ID, in.Name); err != nil {
			return err
		} else if taken {
			return model.Invalid(res, "name", "already_exists")
		}
		var policy store.PATPolicy
		if isOrg {
			m, err := tx.Membership(ctx, in.Owner.ID, in.User.ID)
			if err != nil && !errors.Is(err, model.ErrNotFound) {
				return err
			}
			if m == nil || m.State != "active" {
				return model.Invalid(res, "resource_owner", "invalid")
			}
			if policy, err = tx.OrgPATPolicy(ctx, in.Owner.ID); err != nil {
				return err
			}
			if !policy.Allowed {
				return model.Forbidden(messageRestricted)
			}
		}
		var repoIDs []int64
		if in.Selection == authz.SelectionSubset {
			found, err := tx.ReposOfAccountByName(ctx, in.Owner.ID, in.Repositories)
			if err != nil {
				return err
			}
			for _, n := range in.Repositories {
				id, ok := found[strings.ToLower(n)]
				if !ok {
					return model.Invalid(res, "repositories", "invalid")
				}
				repoIDs = append(repoIDs, id)
			}
			sort.Slice(repoIDs, func(i, j int) bool { return repoIDs[i] < repoIDs[j] })
		}
		t := &store.FineGrainedToken{Name: in.Name, Description: in.Description, ResourceOwnerID: in.Owner.ID,
			Selection: in.Selection, RepoIDs: repoIDs, Permissions: perms}
		t.UserID, t.ExpiresAt = in.User.ID, expires
		plain, err := tx.CreateFineGrainedToken(ctx, t)
		if err != nil {
			return err
		}
		out.Plain, out.Token = plain, t
		payload := map[string]any{"token_id": t.ID, "name": t.Name, "resource_owner_id": in.Owner.ID,
			"repository_selection": t.Selection, "permissions": perms}
		if err := tx.AppendEvent(ctx, "personal_access_token.created", in.User.ID, 0, 0, payload); err != nil {
			return err
		}
		if !isOrg {
			return nil
		}
		g := &store.PATGrant{OrgID: in.Owner.ID, UserID: in.User.ID, Status: store.PATPending, Token: *t}
		if in.Reason != "" {
			g.Reason = &in.Reason
		}
		if !policy.ApprovalRequired {
			g.Status, g.GrantedAt = store.PATApproved, &now
		}
		if err := tx.CreatePATGrant(ctx, g); err != nil {
			return err
		}
		out.Grant = g
		typ := "personal_access_token_request.created"
		if g.Status == store.PATApproved {
			typ = "personal_access_token.access_granted"
		}
		return tx.AppendEvent(ctx, typ, in.User.ID, 0, in.Owner.ID, map[string]any{"grant_id": g.ID, "token_id": t.ID})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Review approves or denies an organization's pending requests (action
// "approve" or "deny"); every id must be one. It returns the requests as
// they were.
func (s *Service) Review(ctx context.Context, org *model.Account, actorID int64, ids []int64, action string, reason *string) error {
	const res = "PersonalAccessTokenRequest"
	to := ""
	switch action {
	case "approve":
		to = store.PATApproved
	case "deny":
		to = store.PATDenied
	default:
		return model.Invalid(res, "action", "invalid")
	}
	if reason != nil && utf8.RuneCountInString(*reason) > maxReasonLength {
		return model.Invalid(res, "reason", "invalid")
	}
	ids = dedupe(ids)
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		n, err := tx.SetPATGrantStatus(ctx, org.ID, ids, store.PATPending, to, actorID, reason)
		if err != nil {
			return err
		}
		if int(n) != len(ids) {
			return model.ErrNotFound // one of them is no pending request of the organization
		}
		typ := "personal_access_token_request.approved"
		if to == store.PATDenied {
			typ = "personal_access_token_request.denied"
		}
		return tx.AppendEvent(ctx, typ, actorID, 0, org.ID, map[string]any{"grant_ids": ids, "reason": reason})
	})
	if err == nil {
		s.revoked()
	}
	return err
}

// Revoke takes away an organization's grants (approved tokens lose access
// to its resources).
func (s *Service) Revoke(ctx context.Context, org *model.Account, actorID int64, ids []int64) error {
	ids = dedupe(ids)
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		n, err := tx.SetPATGrantStatus(ctx, org.ID, ids, store.PATApproved, store.PATRevoked, actorID, nil)
		if err != nil {
			return err
		}
		if int(n) != len(ids) {
			return model.ErrNotFound
		}
		return tx.AppendEvent(ctx, "personal_access_token.access_revoked", actorID, 0, org.ID, map[string]any{"grant_ids": ids})
	})
	if err == nil {
		s.revoked()
	}
	return err
}

// SetPolicy stores an organization's policy.
func (s *Service) SetPolicy(ctx context.Context, org *model.Account, actorID int64, p store.PATPolicy) error {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetOrgPATPolicy(ctx, org.ID, p); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "organization.personal_access_token_policy_updated", actorID, 0, org.ID,
			map[string]any{"fine_grained_allowed": p.Allowed, "approval_required": p.ApprovalRequired})
	})
	if err == nil {
		s.revoked()
	}
	return err
}

func (s *Service) revoked() {
	if s.Revoked != nil {
		s.Revoked()
	}
}

func dedupe(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
