package scim

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/enterpriseteams"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/store"
)

// withMembers loads the SCIM members of teams.
func withMembers(ctx context.Context, q store.Q, teams []*model.EnterpriseTeam) ([]*Group, error) {
	ids := make([]int64, len(teams))
	for i, t := range teams {
		ids[i] = t.ID
	}
	members, err := q.EnterpriseTeamMemberIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	var users []int64
	for _, m := range members {
		users = append(users, m...)
	}
	byUser, err := q.SCIMUsersByUserID(ctx, users)
	if err != nil {
		return nil, err
	}
	out := make([]*Group, len(teams))
	for i, t := range teams {
		g := &Group{EnterpriseTeam: t, Members: []*model.SCIMUser{}}
		for _, uid := range members[t.ID] {
			if su := byUser[uid]; su != nil {
				g.Members = append(g.Members, su)
			}
		}
		out[i] = g
	}
	return out, nil
}

// GetGroup is one group.
func (s *Service) GetGroup(ctx context.Context, uuid string) (*Group, error) {
	q := s.st.R()
	t, err := q.EnterpriseTeamByGroupID(ctx, uuid)
	if errors.Is(err, model.ErrNotFound) {
		return nil, ErrGroupNotFound
	}
	if err != nil {
		return nil, err
	}
	out, err := withMembers(ctx, q, []*model.EnterpriseTeam{t})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Groups is a page of groups (filter: displayName, externalId, id eq) and
// how many match.
func (s *Service) Groups(ctx context.Context, filter string, startIndex, count int) ([]*Group, int, error) {
	f, err := ParseFilter(filter, "displayName", "externalId", "id")
	if err != nil {
		return nil, 0, err
	}
	limit, offset := Page(startIndex, count)
	q := s.st.R()
	list, total, err := q.EnterpriseTeams(ctx, store.EnterpriseTeamFilter{SCIMOnly: true, Attr: f.Attr, Value: f.Value}, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := withMembers(ctx, q, list)
	return out, total, err
}

// memberUserIDs resolves SCIM user ids to hubd users; an unknown id is a
// 400 invalidValue.
func memberUserIDs(ctx context.Context, tx store.Q, uuids []string) ([]int64, error) {
	found, err := tx.SCIMUsersByUUID(ctx, uuids)
	if err != nil {
		return nil, err
	}
	out := make([]int64, 0, len(uuids))
	for _, id := range uuids {
		su := found[id]
		if su == nil {
			return nil, badRequest(InvalidValue, "No provisioned user has the id %q.", id)
		}
		out = append(out, su.UserID)
	}
	return out, nil
}

func teamError(err error, name string) error {
	switch {
	case errors.Is(err, enterpriseteams.ErrNameTaken):
		return conflict("A group named %q already exists.", name)
	case errors.Is(err, enterpriseteams.ErrNameInvalid):
		return badRequest(InvalidValue, "displayName %q must contain a letter or digit.", name)
	}
	return err
}

// CreateGroup provisions a group as an enterprise team with its members.
func (s *Service) CreateGroup(ctx context.Context, actorID int64, a GroupAttrs) (*Group, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	t := &model.EnterpriseTeam{Name: a.DisplayName, ExternalID: a.ExternalID, GroupID: randid.UUID()}
	err := s.st.Tx(ctx, func(tx store.Q) error {
		ids, err := memberUserIDs(ctx, tx, a.Members)
		if err != nil {
			return err
		}
		if err := enterpriseteams.Create(ctx, tx, actorID, t); err != nil {
			return teamError(err, a.DisplayName)
		}
		if len(ids) > 0 {
			return enterpriseteams.SetMembers(ctx, tx, actorID, t, ids, "set")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.GetGroup(ctx, t.GroupID)
}

// ReplaceGroup sets every attribute of a group (PUT).
func (s *Service) ReplaceGroup(ctx context.Context, actorID int64, uuid string, a GroupAttrs) (*Group, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	return s.updateGroup(ctx, actorID, uuid, func(GroupAttrs) (GroupAttrs, error) { return a, nil })
}

// PatchGroup applies PATCH operations to a group.
func (s *Service) PatchGroup(ctx context.Context, actorID int64, uuid string, ops []Op) (*Group, error) {
	return s.updateGroup(ctx, actorID, uuid, func(cur GroupAttrs) (GroupAttrs, error) { return PatchGroup(cur, ops) })
}

func (s *Service) updateGroup(ctx context.Context, actorID int64, uuid string, change func(GroupAttrs) (GroupAttrs, error)) (*Group, error) {
	err := s.st.Tx(ctx, func(tx store.Q) error {
		t, err := tx.EnterpriseTeamByGroupID(ctx, uuid)
		if errors.Is(err, model.ErrNotFound) {
			return ErrGroupNotFound
		}
		if err != nil {
			return err
		}
		cur, err := withMembers(ctx, tx, []*model.EnterpriseTeam{t})
		if err != nil {
			return err
		}
		have := GroupAttrs{DisplayName: t.Name, ExternalID: t.ExternalID, Members: []string{}}
		for _, m := range cur[0].Members {
			have.Members = append(have.Members, m.UUID)
		}
		a, err := change(have)
		if err != nil {
			return err
		}
		if a.DisplayName != t.Name || a.ExternalID != t.ExternalID {
			t.Name, t.ExternalID = a.DisplayName, a.ExternalID
			if err := enterpriseteams.Update(ctx, tx, actorID, t); err != nil {
				return teamError(err, a.DisplayName)
			}
		}
		if !sameSet(have.Members, a.Members) {
			ids, err := memberUserIDs(ctx, tx, a.Members)
			if err != nil {
				return err
			}
			return enterpriseteams.SetMembers(ctx, tx, actorID, t, ids, "set")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.GetGroup(ctx, uuid)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

// DeleteGroup removes a group's enterprise team.
func (s *Service) DeleteGroup(ctx context.Context, actorID int64, uuid string) error {
	return s.st.Tx(ctx, func(tx store.Q) error {
		t, err := tx.EnterpriseTeamByGroupID(ctx, uuid)
		if errors.Is(err, model.ErrNotFound) {
			return ErrGroupNotFound
		}
		if err != nil {
			return err
		}
		return enterpriseteams.Delete(ctx, tx, actorID, t)
	})
}
