// Package enterprise is the service of hubd's one enterprise's settings
// that have no domain of their own: its announcement banner and its
// roles (GitHub's predefined enterprise roles, assigned to users and to
// enterprise teams). Only the enterprise's owners reach its writes (the
// transports check it); every change appends an event.
package enterprise

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the enterprise service.
type Service struct{ st *store.Store }

// New makes the service.
func New(st *store.Store) *Service { return &Service{st: st} }

// Announcement is the enterprise's banner; Message "" when none is set.
type Announcement = store.Announcement

// AnnouncementInput is a banner as a client sets it. ExpiresAt "" (or
// absent, or null) never expires.
type AnnouncementInput struct {
	Message         *string
	ExpiresAt       string
	UserDismissible bool
}

const annResource = "Announcement"

// GetAnnouncement is the banner as set (expired or not); a zero one when
// none is.
func (s *Service) GetAnnouncement(ctx context.Context) (*Announcement, error) {
	a, err := s.st.R().EnterpriseAnnouncement(ctx)
	if errors.Is(err, model.ErrNotFound) {
		return &Announcement{}, nil
	}
	return a, err
}

// ShownAnnouncement is the banner the web shows now: nil when none is
// set or it has expired.
func (s *Service) ShownAnnouncement(ctx context.Context, now time.Time) (*Announcement, error) {
	a, err := s.st.R().EnterpriseAnnouncement(ctx)
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if a.ExpiresAt != nil && !a.ExpiresAt.After(now) {
		return nil, nil
	}
	return a, nil
}

// SetAnnouncement validates and stores the banner: a message is required;
// expires_at is an ISO 8601 time in the future, or empty for never.
func (s *Service) SetAnnouncement(ctx context.Context, actorID int64, in AnnouncementInput) (*Announcement, error) {
	if in.Message == nil || strings.TrimSpace(*in.Message) == "" {
		return nil, model.Invalid(annResource, "announcement", "missing_field")
	}
	a := &Announcement{Message: *in.Message, UserDismissible: in.UserDismissible}
	if in.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339, in.ExpiresAt)
		if err != nil {
			return nil, model.Custom(annResource, "expires_at", "expires_at must be an ISO 8601 time (YYYY-MM-DDTHH:MM:SSZ)")
		}
		if !t.After(s.st.R().Now()) {
			return nil, model.Custom(annResource, "expires_at", "expires_at must be in the future")
		}
		t = t.UTC().Truncate(time.Second)
		a.ExpiresAt = &t
	}
	err := s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetEnterpriseAnnouncement(ctx, a, actorID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "enterprise_announcement.set", actorID, 0, 0,
			map[string]any{"announcement": a.Message, "user_dismissible": a.UserDismissible})
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// RemoveAnnouncement removes the banner.
func (s *Service) RemoveAnnouncement(ctx context.Context, actorID int64) error {
	return s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteEnterpriseAnnouncement(ctx); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "enterprise_announcement.removed", actorID, 0, 0, map[string]any{})
	})
}
