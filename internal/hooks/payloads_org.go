package hooks

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// Organization payloads: team (and team_add) and membership.

// teamPairs are the webhook events of a team domain event: a team added
// to a repository is also team_add, as on GitHub.
func teamPairs(action string) []pair {
	switch action {
	case "created", "edited", "deleted", "removed_from_repository":
		return []pair{{"team", action}}
	case "added_to_repository":
		return []pair{{"team", action}, {"team_add", ""}}
	}
	return nil
}

// team loads the team of a team or membership event; a deleted team comes
// from the copy its event keeps.
func (b *builder) team(ctx context.Context, orgID int64, d domain, action string) (*model.Team, error) {
	t := &model.Team{}
	found, err := d.row("team_row", t)
	if err != nil {
		return nil, err
	}
	if action != "deleted" || !found {
		if t, err = b.q.TeamByID(ctx, d.int("team_id")); err != nil {
			return nil, err
		}
	}
	if t.Org == nil {
		org, err := b.account(ctx, orgID)
		if err != nil {
			return nil, err
		}
		if org == nil {
			return nil, model.ErrNotFound
		}
		t.Org = org
	}
	return t, nil
}

func (b *builder) teamEvent(ctx context.Context, e model.Event, d domain, action string, out map[string]any) error {
	t, err := b.team(ctx, e.OrgID, d, action)
	if err != nil {
		return err
	}
	out["team"] = b.s.URLs.ToTeamWithParent(t)
	if repo, ok := out["repository"].(map[string]any); ok {
		// The repository of team events has no organization object
		// (GitHub's schema types the field as a string).
		cp := make(map[string]any, len(repo))
		for k, v := range repo {
			if k != "organization" {
				cp[k] = v
			}
		}
		out["repository"] = cp
	}
	if action == "edited" {
		out["changes"] = d.changes()
	}
	return nil
}

// membershipEvent: a user added to or removed from a team.
func (b *builder) membershipEvent(ctx context.Context, e model.Event, d domain, action string, out map[string]any) error {
	t, err := b.team(ctx, e.OrgID, d, action)
	if err != nil {
		return err
	}
	u, err := b.account(ctx, d.int("user_id"))
	if err != nil {
		return err
	}
	if u == nil {
		return model.ErrNotFound
	}
	out["scope"] = "team"
	out["team"] = b.s.URLs.ToTeamWithParent(t)
	out["member"] = b.s.URLs.ToSimpleUser(u)
	return nil
}

// organizationPairs are the organization webhook events of the
// organization's membership domain events.
func organizationPairs(sub string) []pair {
	switch sub {
	case "member_added", "member_removed", "member_invited":
		return []pair{{"organization", sub}}
	}
	return nil
}

// organizationEvent: a member added (an invitation accepted), removed or
// invited. A removed member's membership is the one they had.
func (b *builder) organizationEvent(ctx context.Context, e model.Event, d domain, action string, out map[string]any) error {
	org, err := b.account(ctx, e.OrgID)
	if err != nil {
		return err
	}
	if org == nil {
		return model.ErrNotFound
	}
	if action == "member_invited" {
		inv, err := b.q.OrgInvitation(ctx, org.ID, d.int("invitation_id"))
		if err != nil {
			return err
		}
		obj, err := toMap(b.s.URLs.ToOrgInvitation(inv, false))
		if err != nil {
			return err
		}
		// The webhook's invitation names no failure yet.
		for _, k := range []string{"failed_at", "failed_reason", "email", "login"} {
			if _, ok := obj[k]; !ok {
				obj[k] = nil
			}
		}
		out["invitation"] = obj
		if u, err := b.account(ctx, d.int("user_id")); err != nil {
			return err
		} else if u != nil {
			out["user"] = b.s.URLs.ToSimpleUser(u)
		}
		return nil
	}
	u, err := b.account(ctx, d.int("user_id"))
	if err != nil {
		return err
	}
	if u == nil {
		return model.ErrNotFound
	}
	m := &model.Membership{OrgID: org.ID, UserID: u.ID, Role: model.OrgRole(d.str("role")), State: "active"}
	if action == "member_added" {
		if m, err = b.q.Membership(ctx, org.ID, u.ID); err != nil {
			return err
		}
	}
	ms := b.s.URLs.ToOrgMembership(org, u, m, false)
	out["membership"] = map[string]any{"url": ms.URL, "state": ms.State, "role": ms.Role,
		"organization_url": ms.OrganizationURL, "user": ms.User}
	return nil
}

// rulesetEvent: a repository's or an organization's ruleset created,
// edited or deleted (the deleted one from the copy its event keeps).
func (b *builder) rulesetEvent(ctx context.Context, d domain, action string, out map[string]any) error {
	r := &model.Ruleset{}
	if action == "deleted" {
		if found, err := d.row("ruleset_row", r); err != nil {
			return err
		} else if !found {
			return skip("repository_ruleset deleted: the ruleset is gone and its event has no copy")
		}
	} else {
		var err error
		if r, err = b.q.RulesetByID(ctx, d.int("ruleset_id")); err != nil {
			return err
		}
	}
	out["repository_ruleset"] = b.s.URLs.ToRepositoryRuleset(r, true, "")
	return nil
}
