package enterprise

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// ConsumedLicenses is one page of the users who consume a seat (active,
// not suspended users who are members of an organization or collaborators
// on an organization's repository) and their count.
func (s *Service) ConsumedLicenses(ctx context.Context, limit, offset int) ([]store.SeatHolder, int, error) {
	return s.st.R().SeatHolders(ctx, limit, offset)
}

// VSSubscriptions is one page of the enterprise's Visual Studio
// subscriptions and their count.
func (s *Service) VSSubscriptions(ctx context.Context, unmatchedOnly bool, limit, offset int) ([]*store.VSSubscription, int, error) {
	return s.st.R().VSSubscriptions(ctx, unmatchedOnly, limit, offset)
}

var guid = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

const vssResource = "VisualStudioSubscription"

// MatchVSSubscription matches a subscription (a GUID) to the user a login
// or account email names, recording the subscription if it is new.
func (s *Service) MatchVSSubscription(ctx context.Context, actorID int64, id, userIdentifier string) (*store.VSSubscription, error) {
	if !guid.MatchString(id) {
		return nil, model.ErrNotFound
	}
	id = strings.ToLower(id)
	ident := strings.TrimSpace(userIdentifier)
	if ident == "" {
		return nil, model.Invalid(vssResource, "user_identifier", "missing_field")
	}
	q := s.st.R()
	var u *model.Account
	var err error
	if strings.Contains(ident, "@") {
		u, err = q.UserByEmail(ctx, ident)
	} else if u, err = q.AccountByLogin(ctx, ident); err == nil && u.Type != model.TypeUser {
		err = model.ErrNotFound
	}
	if errors.Is(err, model.ErrNotFound) {
		return nil, model.Custom(vssResource, "user_identifier", "no user has the login or email "+ident)
	}
	if err != nil {
		return nil, err
	}
	email := u.Email
	if strings.Contains(ident, "@") {
		email = ident
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.MatchVSSubscription(ctx, id, u.ID, email); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "visual_studio_subscription.matched", actorID, 0, 0, map[string]any{"subscription_id": id, "user_id": u.ID})
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().VSSubscription(ctx, id)
}

// UnmatchVSSubscription removes a subscription's match (the subscription
// stays, unmatched); not found when hubd has no such subscription.
func (s *Service) UnmatchVSSubscription(ctx context.Context, actorID int64, id string) (*store.VSSubscription, error) {
	if !guid.MatchString(id) {
		return nil, model.ErrNotFound
	}
	id = strings.ToLower(id)
	v, err := s.st.R().VSSubscription(ctx, id)
	if err != nil {
		return nil, err
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.MatchVSSubscription(ctx, id, 0, v.Email); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "visual_studio_subscription.unmatched", actorID, 0, 0, map[string]any{"subscription_id": id})
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().VSSubscription(ctx, id)
}
