package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// Team is GitHub's team-simple (and nullable-team-simple, the parent of a
// team).
type Team struct {
	ID                  int64   `json:"id"`
	NodeID              string  `json:"node_id"`
	URL                 string  `json:"url"`
	HTMLURL             string  `json:"html_url"`
	Name                string  `json:"name"`
	Slug                string  `json:"slug"`
	Description         *string `json:"description"`
	Privacy             string  `json:"privacy"`
	NotificationSetting string  `json:"notification_setting"`
	Permission          string  `json:"permission"`
	MembersURL          string  `json:"members_url"`
	RepositoriesURL     string  `json:"repositories_url"`
	Type                string  `json:"type"`
	OrganizationID      int64   `json:"organization_id"`
}

// TeamWithParent is GitHub's team (list items): a team with its parent.
type TeamWithParent struct {
	Team
	Parent *Team `json:"parent"`
}

// TeamFull is GitHub's team-full.
type TeamFull struct {
	TeamWithParent
	MembersCount int              `json:"members_count"`
	ReposCount   int              `json:"repos_count"`
	CreatedAt    string           `json:"created_at"`
	UpdatedAt    string           `json:"updated_at"`
	Organization OrganizationFull `json:"organization"`
}

// TeamMembership is GitHub's team-membership.
type TeamMembership struct {
	URL   string `json:"url"`
	Role  string `json:"role"`
	State string `json:"state"`
}

// TeamURL is a team's API URL: GitHub names teams by id (/teams/{team_id}).
func (u URLs) TeamURL(t *model.Team) string {
	return u.API + "/teams/" + strconv.FormatInt(t.ID, 10)
}

// ToTeam is team-simple.
func (u URLs) ToTeam(t *model.Team) Team {
	base := u.TeamURL(t)
	login := ""
	if t.Org != nil {
		login = t.Org.Login
	}
	return Team{
		ID: t.ID, NodeID: NodeID("T", t.ID), URL: base, HTMLURL: u.Web + "/orgs/" + login + "/teams/" + t.Slug,
		Name: t.Name, Slug: t.Slug, Description: t.Description, Privacy: t.Privacy,
		NotificationSetting: t.NotificationSetting, Permission: t.Permission,
		MembersURL: base + "/members{/member}", RepositoriesURL: base + "/repos",
		Type: "organization", OrganizationID: t.OrgID,
	}
}

// ToTeamWithParent is GitHub's team object of lists.
func (u URLs) ToTeamWithParent(t *model.Team) TeamWithParent {
	out := TeamWithParent{Team: u.ToTeam(t)}
	if t.Parent != nil {
		p := u.ToTeam(t.Parent)
		out.Parent = &p
	}
	return out
}

// RepoTeam is a team of a repository's list: the team, its permission on
// the repository and that permission level by level.
type RepoTeam struct {
	TeamWithParent
	Permissions map[string]bool `json:"permissions"`
}

// ToRepoTeam is a team of GET /repos/{owner}/{repo}/teams; permission is
// the name of the team's grant on the repository.
func (u URLs) ToRepoTeam(t *model.Team, perm authz.Permission, permission string) RepoTeam {
	out := RepoTeam{TeamWithParent: u.ToTeamWithParent(t), Permissions: TeamRepoPermissions(perm)}
	out.Permission = permission
	return out
}

// ToTeams converts a list of teams.
func (u URLs) ToTeams(list []*model.Team) []TeamWithParent {
	out := make([]TeamWithParent, len(list))
	for i, t := range list {
		out[i] = u.ToTeamWithParent(t)
	}
	return out
}

// ToTeamFull is team-full; counts are the organization's (its public
// repositories).
func (u URLs) ToTeamFull(t *model.Team, org OrgCounts) TeamFull {
	return TeamFull{
		TeamWithParent: u.ToTeamWithParent(t), MembersCount: t.MembersCount, ReposCount: t.ReposCount,
		CreatedAt: Time(t.CreatedAt), UpdatedAt: Time(t.UpdatedAt),
		Organization: u.ToOrgFull(t.Org, org, false, model.OrgSettings{}),
	}
}

// ToTeamMembership is team-membership.
func (u URLs) ToTeamMembership(t *model.Team, login string, m *model.TeamMembership) TeamMembership {
	return TeamMembership{URL: u.TeamURL(t) + "/memberships/" + login, Role: m.Role, State: m.State}
}

// TeamRepoPermissions is the permissions object of a team's repository:
// what the team's grant allows, level by level.
func TeamRepoPermissions(p authz.Permission) map[string]bool {
	return map[string]bool{"pull": p >= authz.Read, "triage": p >= authz.Triage, "push": p >= authz.Write,
		"maintain": p >= authz.Maintain, "admin": p >= authz.Admin}
}
