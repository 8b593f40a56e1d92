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

// Members is a page of a team's members and how many there are.
func (s *Service) Members(ctx context.Context, ref string, limit, offset int) ([]*model.Account, int, error) {
	q := s.st.R()
	t, err := lookup(ctx, q, ref)
	if err != nil {
		return nil, 0, err
	}
	return q.EnterpriseTeamMembers(ctx, t.ID, limit, offset)
}

// Orgs is a page of the organizations a team is assigned to.
func (s *Service) Orgs(ctx context.Context, ref string, limit, offset int) ([]*model.Account, int, error) {
	q := s.st.R()
	t, err := lookup(ctx, q, ref)
	if err != nil {
		return nil, 0, err
	}
	return q.EnterpriseTeamOrgs(ctx, t.ID, limit, offset)
}

// Member is one of a team's members (not found when the user is not one).
func (s *Service) Member(ctx context.Context, ref, login string) (*model.Account, error) {
	return s.related(ctx, ref, login, false)
}

// Org is one of the organizations a team is assigned to (not found when
// it is not assigned).
func (s *Service) Org(ctx context.Context, ref, login string) (*model.Account, error) {
	return s.related(ctx, ref, login, true)
}

func (s *Service) related(ctx context.Context, ref, login string, org bool) (*model.Account, error) {
	q := s.st.R()
	t, err := lookup(ctx, q, ref)
	if err != nil {
		return nil, err
	}
	a, err := q.AccountByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	var in bool
	if org {
		in, err = q.IsEnterpriseTeamOrg(ctx, t.ID, a.ID)
	} else {
		in, err = q.IsEnterpriseTeamMember(ctx, t.ID, a.ID)
	}
	if err == nil && (!in || a.IsOrg() != org) {
		err = model.ErrNotFound
	}
	return a, err
}

// accounts resolves logins to users (org false) or organizations; an
// unknown one is a 422 naming it.
func accounts(ctx context.Context, q store.Q, field string, logins []string, org bool) ([]*model.Account, error) {
	out := make([]*model.Account, 0, len(logins))
	for _, l := range logins {
		a, err := q.AccountByLogin(ctx, strings.TrimSpace(l))
		if errors.Is(err, model.ErrNotFound) || (err == nil && a.IsOrg() != org) {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "EnterpriseTeam", Field: field, Code: "invalid", Value: l}}}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// ChangeMembers adds ("add") or removes ("remove") users by login and
// returns them.
func (s *Service) ChangeMembers(ctx context.Context, actorID int64, ref string, logins []string, mode string) ([]*model.Account, error) {
	var users []*model.Account
	err := s.st.Tx(ctx, func(tx store.Q) error {
		t, err := lookup(ctx, tx, ref)
		if err != nil {
			return err
		}
		if users, err = accounts(ctx, tx, "usernames", logins, false); err != nil {
			return err
		}
		ids := make([]int64, len(users))
		for i, u := range users {
			ids[i] = u.ID
		}
		return SetMembers(ctx, tx, actorID, t, ids, mode)
	})
	return users, err
}

// ChangeOrgs assigns (on) or unassigns the team to organizations by login
// and returns them.
func (s *Service) ChangeOrgs(ctx context.Context, actorID int64, ref string, logins []string, on bool) ([]*model.Account, error) {
	var orgs []*model.Account
	err := s.st.Tx(ctx, func(tx store.Q) error {
		t, err := lookup(ctx, tx, ref)
		if err != nil {
			return err
		}
		if orgs, err = accounts(ctx, tx, "organization_slugs", logins, true); err != nil {
			return err
		}
		ids := make([]int64, len(orgs))
		for i, o := range orgs {
			ids[i] = o.ID
			if err := tx.SetEnterpriseTeamOrg(ctx, t.ID, o.ID, on); err != nil {
				return err
			}
		}
		if err := tx.AppendEvent(ctx, "enterprise_team.organizations_changed", actorID, 0, 0, map[string]any{"team_id": t.ID, "assigned": on, "org_ids": ids}); err != nil {
			return err
		}
		return syncOrgs(ctx, tx, actorID, t, ids)
	})
	return orgs, err
}
