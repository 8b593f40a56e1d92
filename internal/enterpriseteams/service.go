package enterpriseteams

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service serves the enterprise teams REST operations.
type Service struct{ st *store.Store }

// New makes the service.
func New(st *store.Store) *Service { return &Service{st: st} }

// Input is a create or update body.
type Input struct {
	Name         *string
	Description  *string
	OrgSelection *string
}

var orgSelections = map[string]bool{"disabled": true, "selected": true, "all": true}

// apply validates in and sets it on t.
func apply(t *model.EnterpriseTeam, in Input, creating bool) error {
	if in.Name != nil || creating {
		if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
			return model.Invalid("EnterpriseTeam", "name", "missing_field")
		}
		t.Name = *in.Name
	}
	if in.Description != nil {
		t.Description = *in.Description
	}
	if in.OrgSelection != nil {
		if !orgSelections[*in.OrgSelection] {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "EnterpriseTeam", Field: "organization_selection_type", Code: "invalid", Value: *in.OrgSelection}}}
		}
		t.OrgSelection = *in.OrgSelection
	}
	return nil
}

func restError(err error) error {
	switch {
	case errors.Is(err, ErrNameTaken):
		return model.Invalid("EnterpriseTeam", "name", "already_exists")
	case errors.Is(err, ErrNameInvalid):
		return model.Invalid("EnterpriseTeam", "name", "invalid")
	}
	return err
}

// List is a page of the enterprise's teams and how many there are.
func (s *Service) List(ctx context.Context, limit, offset int) ([]*model.EnterpriseTeam, int, error) {
	return s.st.R().EnterpriseTeams(ctx, store.EnterpriseTeamFilter{}, limit, offset)
}

// Get finds a team by slug (with or without "ent:").
func (s *Service) Get(ctx context.Context, ref string) (*model.EnterpriseTeam, error) {
	return lookup(ctx, s.st.R(), ref)
}

func lookup(ctx context.Context, q store.Q, ref string) (*model.EnterpriseTeam, error) {
	if !strings.HasPrefix(strings.ToLower(ref), SlugPrefix) {
		ref = SlugPrefix + ref
	}
	return q.EnterpriseTeamBySlug(ctx, ref)
}

// Create makes a team.
func (s *Service) Create(ctx context.Context, actorID int64, in Input) (*model.EnterpriseTeam, error) {
	t := &model.EnterpriseTeam{}
	if err := apply(t, in, true); err != nil {
		return nil, err
	}
	err := s.st.Tx(ctx, func(tx store.Q) error { return Create(ctx, tx, actorID, t) })
	return t, restError(err)
}

// Update changes a team's name, description or organization selection.
func (s *Service) Update(ctx context.Context, actorID int64, ref string, in Input) (*model.EnterpriseTeam, error) {
	var t *model.EnterpriseTeam
	err := s.st.Tx(ctx, func(tx store.Q) error {
		var err error
		if t, err = lookup(ctx, tx, ref); err != nil {
			return err
		}
		if err := apply(t, in, false); err != nil {
			return err
		}
		return Update(ctx, tx, actorID, t)
	})
	return t, restError(err)
}

// Remove deletes a team and its memberships.
func (s *Service) Remove(ctx context.Context, actorID int64, ref string) error {
	return s.st.Tx(ctx, func(tx store.Q) error {
		t, err := lookup(ctx, tx, ref)
		if err != nil {
			return err
		}
		return Delete(ctx, tx, actorID, t)
	})
}
