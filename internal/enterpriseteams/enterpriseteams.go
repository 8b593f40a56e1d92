// Package enterpriseteams owns the enterprise's teams: their names and
// slugs (GitHub's "ent:" prefix), their members, and the SCIM groups an
// identity provider maps onto them (internal/scim). Every write runs in
// the caller's transaction and appends its domain event, so SCIM can
// provision a group and its members in one.
package enterpriseteams

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/teams"
)

// SlugPrefix starts every enterprise team's slug, as on GitHub.
const SlugPrefix = "ent:"

// ErrNameTaken is returned when another enterprise team has the slug a
// name makes.
var ErrNameTaken = errors.New("an enterprise team with this name already exists")

// ErrNameInvalid is returned for a name that makes no slug.
var ErrNameInvalid = errors.New("name must contain a letter or digit")

// Slug is an enterprise team's slug for a name.
func Slug(name string) string {
	s := teams.Slug(name)
	if s == "" {
		return ""
	}
	return SlugPrefix + s
}

// Create inserts a team named t.Name (its slug derived from the name).
func Create(ctx context.Context, tx store.Q, actorID int64, t *model.EnterpriseTeam) error {
	if err := named(t, func() error { return tx.CreateEnterpriseTeam(ctx, t) }); err != nil {
		return err
	}
	return tx.AppendEvent(ctx, "enterprise_team.created", actorID, 0, 0, map[string]any{"team_id": t.ID, "slug": t.Slug, "group_id": t.GroupID})
}

// Update writes a team's name (and slug), description and external id.
func Update(ctx context.Context, tx store.Q, actorID int64, t *model.EnterpriseTeam) error {
	if err := named(t, func() error { return tx.UpdateEnterpriseTeam(ctx, t) }); err != nil {
		return err
	}
	if err := tx.AppendEvent(ctx, "enterprise_team.updated", actorID, 0, 0, map[string]any{"team_id": t.ID, "slug": t.Slug}); err != nil {
		return err
	}
	return SyncOrgs(ctx, tx, actorID, t)
}

// named derives t's slug from its name and runs write, turning a taken
// slug into ErrNameTaken.
func named(t *model.EnterpriseTeam, write func() error) error {
	t.Name = strings.TrimSpace(t.Name)
	if t.Slug = Slug(t.Name); t.Slug == "" {
		return ErrNameInvalid
	}
	if err := write(); errors.Is(err, store.ErrDuplicate) {
		return ErrNameTaken
	} else if err != nil {
		return err
	}
	return nil
}

// Delete removes a team and its memberships.
// The organizations it was assigned to lose its organization teams and
// the memberships that existed only through it.
func Delete(ctx context.Context, tx store.Q, actorID int64, t *model.EnterpriseTeam) error {
	orgs, err := tx.EnterpriseTeamOrgIDs(ctx, t.ID)
	if err != nil {
		return err
	}
	if err := tx.DeleteEnterpriseTeam(ctx, t.ID); err != nil {
		return err
	}
	if err := tx.AppendEvent(ctx, "enterprise_team.deleted", actorID, 0, 0, map[string]any{"team_id": t.ID, "slug": t.Slug}); err != nil {
		return err
	}
	return syncOrgs(ctx, tx, actorID, t, orgs)
}

// SyncOrgs brings every organization t is assigned to in line with it
// (store.SyncEnterpriseTeamOrg): its organization team and members there,
// and the organization memberships its members have through it. Each
// membership added or removed appends the organization's member event.
func SyncOrgs(ctx context.Context, tx store.Q, actorID int64, t *model.EnterpriseTeam) error {
	orgs, err := tx.EnterpriseTeamOrgIDs(ctx, t.ID)
	if err != nil {
		return err
	}
	return syncOrgs(ctx, tx, actorID, t, orgs)
}

func syncOrgs(ctx context.Context, tx store.Q, actorID int64, t *model.EnterpriseTeam, orgIDs []int64) error {
	for _, orgID := range orgIDs {
		res, err := tx.SyncEnterpriseTeamOrg(ctx, t, orgID)
		if err != nil {
			return err
		}
		for _, uid := range res.Added {
			if err := tx.AppendEvent(ctx, "organization.member_added", actorID, 0, orgID,
				map[string]any{"user_id": uid, "role": model.RoleMember, "enterprise_team_id": t.ID}); err != nil {
				return err
			}
		}
		for _, uid := range res.Removed {
			if err := tx.AppendEvent(ctx, "organization.member_removed", actorID, 0, orgID,
				map[string]any{"user_id": uid, "role": model.RoleMember, "enterprise_team_id": t.ID}); err != nil {
				return err
			}
		}
	}
	return nil
}

// SetMembers changes a team's members by mode: "add" puts userIDs in,
// "remove" takes them out, "set" makes them the whole list.
func SetMembers(ctx context.Context, tx store.Q, actorID int64, t *model.EnterpriseTeam, userIDs []int64, mode string) error {
	if mode == "set" {
		if err := tx.ClearEnterpriseTeamMembers(ctx, t.ID); err != nil {
			return err
		}
	}
	for _, id := range userIDs {
		var err error
		if mode == "remove" {
			err = tx.RemoveEnterpriseTeamMember(ctx, t.ID, id)
		} else {
			err = tx.AddEnterpriseTeamMember(ctx, t.ID, id)
		}
		if err != nil {
			return err
		}
	}
	if err := tx.TouchEnterpriseTeam(ctx, t.ID); err != nil {
		return err
	}
	if err := tx.AppendEvent(ctx, "enterprise_team.members_changed", actorID, 0, 0, map[string]any{"team_id": t.ID, "mode": mode, "user_ids": userIDs}); err != nil {
		return err
	}
	return SyncOrgs(ctx, tx, actorID, t)
}

// RemoveUserEverywhere takes a user out of every enterprise team (a
// deprovisioned identity).
func RemoveUserEverywhere(ctx context.Context, tx store.Q, actorID, userID int64) error {
	of, err := tx.EnterpriseTeamsOfUsers(ctx, []int64{userID})
	if err != nil {
		return err
	}
	for _, t := range of[userID] {
		if err := SetMembers(ctx, tx, actorID, t, []int64{userID}, "remove"); err != nil {
			return err
		}
	}
	return nil
}

// SyncUserOrgs brings the organizations of a user's enterprise teams in
// line with them (the user was suspended or reactivated).
func SyncUserOrgs(ctx context.Context, tx store.Q, actorID, userID int64) error {
	of, err := tx.EnterpriseTeamsOfUsers(ctx, []int64{userID})
	if err != nil {
		return err
	}
	for _, t := range of[userID] {
		if err := SyncOrgs(ctx, tx, actorID, t); err != nil {
			return err
		}
	}
	return nil
}
