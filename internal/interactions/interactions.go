// Package interactions is the interaction-limits service: temporary limits
// on who may open issues and pull requests, comment and react in public
// repositories (set on one repository, or on every repository of a user or
// organization), the pull request creation cap for users without write
// access, and the list of users a repository lets past that cap. It holds
// the rules for every transport, and MayInteract enforces them for the code
// paths that create issues, comments, reactions and pull requests.
package interactions

import (
	"context"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Limits of the bypass list (GitHub's documented maxima).
const (
	MaxBypassPerRequest = 100
	MaxBypassList       = 100
)

// DefaultMaxOpen is the cap a repository or organization reports before
// anyone configured one (disabled).
const DefaultMaxOpen = 5

// NewAccountAge is how young an account is "new" for existing_users.
const NewAccountAge = 24 * time.Hour

// Service is the interaction-limits service.
type Service struct{ Store *store.Store }

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// expiries are the durations a limit may be set for.
var expiries = map[string]func(time.Time) time.Time{
	"one_day":    func(t time.Time) time.Time { return t.Add(24 * time.Hour) },
	"three_days": func(t time.Time) time.Time { return t.Add(72 * time.Hour) },
	"one_week":   func(t time.Time) time.Time { return t.Add(7 * 24 * time.Hour) },
	"one_month":  func(t time.Time) time.Time { return t.AddDate(0, 1, 0) },
	"six_months": func(t time.Time) time.Time { return t.AddDate(0, 6, 0) },
}

// Input is a limit as a client asks for it.
type Input struct {
	Limit  string
	Expiry string // "" means one_day
}

func validLimit(s string) bool {
	return s == model.LimitExistingUsers || s == model.LimitContributorsOnly || s == model.LimitCollaboratorsOnly
}

// build checks in and makes the limit it asks for, starting now.
func (s *Service) build(in Input, origin string, actorID int64) (*model.InteractionLimit, error) {
	if in.Limit == "" {
		return nil, model.Invalid("InteractionLimit", "limit", "missing_field")
	}
	if !validLimit(in.Limit) {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "InteractionLimit", Field: "limit", Code: "invalid", Value: in.Limit}}}
	}
	if in.Expiry == "" {
		in.Expiry = "one_day"
	}
	until, ok := expiries[in.Expiry]
	if !ok {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "InteractionLimit", Field: "expiry", Code: "invalid", Value: in.Expiry}}}
	}
	now := s.Store.Now().UTC().Truncate(time.Second)
	return &model.InteractionLimit{Origin: origin, Limit: in.Limit, Expiry: in.Expiry, ExpiresAt: until(now), CreatorID: actorID}, nil
}

// orNil turns "no limit" into nil.
func orNil(l *model.InteractionLimit, err error) (*model.InteractionLimit, error) {
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil
	}
	return l, err
}

func ownerOrigin(a *model.Account) string {
	if a.IsOrg() {
		return model.OriginOrganization
	}
	return model.OriginUser
}

func orgID(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

func limitEvent(action string, l *model.InteractionLimit) map[string]any {
	p := map[string]any{"action": action}
	if l != nil {
		p["origin"], p["limit"], p["expiry"], p["expires_at"] = l.Origin, l.Limit, l.Expiry, l.ExpiresAt.Unix()
	}
	return p
}

// errAdmin is GitHub's 403 for a repository setting changed without admin
// rights; organizations answer the same words.
var errAdmin = model.Forbidden("Must have admin rights to Repository.")

func need(perm, want authz.Permission) error {
	if perm >= want {
		return nil
	}
	if want >= authz.Admin {
		return errAdmin
	}
	return model.Forbidden("Must have " + want.String() + " access to Repository.")
}

// errOwnerLimit is the 409 for a repository whose owner has a limit in
// force: the owner's limit governs and must be changed instead.
var errOwnerLimit = model.Conflict("Interaction limits are set on the owner of this repository: change them on the user or organization instead.")

// --- repositories ---

// RepoLimit is the limit governing repo now (its owner's, which overrides
// the repository's own, or its own), nil when there is none.
func (s *Service) RepoLimit(ctx context.Context, repo *model.Repo) (*model.InteractionLimit, error) {
	return orNil(s.Store.R().EffectiveInteractionLimit(ctx, repo.ID, repo.OwnerID, s.Store.Now()))
}

// SetRepoLimit limits interactions on repo; the caller has perm on it.
func (s *Service) SetRepoLimit(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, in Input) (*model.InteractionLimit, error) {
	if err := need(perm, authz.Admin); err != nil {
		return nil, err
	}
	l, err := s.build(in, model.OriginRepository, actorID)
	if err != nil {
		return nil, err
	}
	l.RepoID = repo.ID
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if _, err := tx.AccountInteractionLimit(ctx, repo.OwnerID, tx.Now()); err == nil {
			return errOwnerLimit
		} else if !errors.Is(err, model.ErrNotFound) {
			return err
		}
		if err := tx.SetInteractionLimit(ctx, l); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "interaction_limit", actorID, repo.ID, orgID(repo), limitEvent("set", l))
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// RemoveRepoLimit lifts repo's own limit.
func (s *Service) RemoveRepoLimit(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64) error {
	if err := need(perm, authz.Admin); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		now := tx.Now()
		if _, err := tx.AccountInteractionLimit(ctx, repo.OwnerID, now); err == nil {
			return errOwnerLimit
		} else if !errors.Is(err, model.ErrNotFound) {
			return err
		}
		had, err := tx.DeleteRepoInteractionLimit(ctx, repo.ID, now)
		if err != nil || !had {
			return err
		}
		return tx.AppendEvent(ctx, "interaction_limit", actorID, repo.ID, orgID(repo),
			map[string]any{"action": "removed", "origin": model.OriginRepository})
	})
}

// --- organizations and users ---

// IsOrgOwner reports whether the user is an active owner of org.
func (s *Service) IsOrgOwner(ctx context.Context, org *model.Account, userID int64) (bool, error) {
	if userID == 0 {
		return false, nil
	}
	m, err := s.Store.R().Membership(ctx, org.ID, userID)
	if errors.Is(err, model.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m.Role == model.RoleAdmin && m.State == store.StateActive, nil
}

// accountAdmin answers 403 unless the actor manages the account: the user
// themself, or an owner of the organization.
func (s *Service) accountAdmin(ctx context.Context, account *model.Account, actorID int64) error {
	if !account.IsOrg() {
		if account.ID == actorID {
			return nil
		}
		return errAdmin
	}
	ok, err := s.IsOrgOwner(ctx, account, actorID)
	if err != nil {
		return err
	}
	if !ok {
		return errAdmin
	}
	return nil
}

// AccountLimit is the limit a user or organization set on all its
// repositories, nil when none is in force; the actor must manage it.
func (s *Service) AccountLimit(ctx context.Context, account *model.Account, actorID int64) (*model.InteractionLimit, error) {
	if err := s.accountAdmin(ctx, account, actorID); err != nil {
		return nil, err
	}
	return orNil(s.Store.R().AccountInteractionLimit(ctx, account.ID, s.Store.Now()))
}

// SetAccountLimit limits interactions on every public repository of the
// account; the limits of its single repositories are overwritten.
func (s *Service) SetAccountLimit(ctx context.Context, account *model.Account, actorID int64, in Input) (*model.InteractionLimit, error) {
	if err := s.accountAdmin(ctx, account, actorID); err != nil {
		return nil, err
	}
	l, err := s.build(in, ownerOrigin(account), actorID)
	if err != nil {
		return nil, err
	}
	l.AccountID = account.ID
	org := int64(0)
	if account.IsOrg() {
		org = account.ID
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetInteractionLimit(ctx, l); err != nil {
			return err
		}
		n, err := tx.DeleteOwnedReposInteractionLimits(ctx, account.ID)
		if err != nil {
			return err
		}
		p := limitEvent("set", l)
		p["account_id"], p["repository_limits_removed"] = account.ID, n
		return tx.AppendEvent(ctx, "interaction_limit", actorID, 0, org, p)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// RemoveAccountLimit lifts the account-wide limit.
func (s *Service) RemoveAccountLimit(ctx context.Context, account *model.Account, actorID int64) error {
	if err := s.accountAdmin(ctx, account, actorID); err != nil {
		return err
	}
	org := int64(0)
	if account.IsOrg() {
		org = account.ID
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		had, err := tx.DeleteAccountInteractionLimit(ctx, account.ID, tx.Now())
		if err != nil || !had {
			return err
		}
		return tx.AppendEvent(ctx, "interaction_limit", actorID, 0, org,
			map[string]any{"action": "removed", "origin": ownerOrigin(account), "account_id": account.ID})
	})
}
