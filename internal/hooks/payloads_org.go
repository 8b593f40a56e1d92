package hooks

import (
	"context"
	"encoding/json"

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
	var t *model.Team
	if row := d.snapshot("team_row"); action == "deleted" && row != nil {
		raw, err := json.Marshal(row)
		if err != nil {
			return nil, err
		}
		t = &model.Team{}
		if err := json.Unmarshal(raw, t); err != nil {
			return nil, err
		}
	} else {
		var err error
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
		ch := d["changes"]
		if ch == nil {
			ch = map[string]any{}
		}
		out["changes"] = ch
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
