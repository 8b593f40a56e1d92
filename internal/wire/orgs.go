package wire

import (
	"github.com/hubd/hubd/internal/model"
)

// OrganizationSimple is components/schemas/organization-simple.
type OrganizationSimple struct {
	Login            string  `json:"login"`
	ID               int64   `json:"id"`
	NodeID           string  `json:"node_id"`
	URL              string  `json:"url"`
	ReposURL         string  `json:"repos_url"`
	EventsURL        string  `json:"events_url"`
	HooksURL         string  `json:"hooks_url"`
	IssuesURL        string  `json:"issues_url"`
	MembersURL       string  `json:"members_url"`
	PublicMembersURL string  `json:"public_members_url"`
	AvatarURL        string  `json:"avatar_url"`
	Description      *string `json:"description"`
}

// OrganizationFull is components/schemas/organization-full. GitHub sends
// name, company, blog, location and email as null when unset, but the
// description types them as plain strings, so hubd omits them instead
// (clients read both as absent).
type OrganizationFull struct {
	OrganizationSimple
	Name                    *string `json:"name,omitempty"`
	Company                 *string `json:"company,omitempty"`
	Blog                    *string `json:"blog,omitempty"`
	Location                *string `json:"location,omitempty"`
	Email                   *string `json:"email,omitempty"`
	TwitterUsername         *string `json:"twitter_username"`
	IsVerified              bool    `json:"is_verified"`
	HasOrganizationProjects bool    `json:"has_organization_projects"`
	HasRepositoryProjects   bool    `json:"has_repository_projects"`
	PublicRepos             int     `json:"public_repos"`
	PublicGists             int     `json:"public_gists"`
	Followers               int     `json:"followers"`
	Following               int     `json:"following"`
	HTMLURL                 string  `json:"html_url"`
	Type                    string  `json:"type"`
	CreatedAt               string  `json:"created_at"`
	UpdatedAt               string  `json:"updated_at"`
	ArchivedAt              *string `json:"archived_at"`
	*OrgOwnerView
}

// OrgOwnerView holds the fields of organization-full that GitHub shows only
// to the organization's owners.
type OrgOwnerView struct {
	TotalPrivateRepos                    int      `json:"total_private_repos"`
	OwnedPrivateRepos                    int      `json:"owned_private_repos"`
	PrivateGists                         int      `json:"private_gists"`
	DiskUsage                            int      `json:"disk_usage"`
	Collaborators                        int      `json:"collaborators"`
	BillingEmail                         *string  `json:"billing_email"`
	Plan                                 *OrgPlan `json:"plan"`
	DefaultRepositoryPermission          string   `json:"default_repository_permission"`
	DefaultRepositoryBranch              string   `json:"default_repository_branch"`
	MembersCanCreateRepositories         bool     `json:"members_can_create_repositories"`
	TwoFactorRequirementEnabled          bool     `json:"two_factor_requirement_enabled"`
	MembersAllowedRepositoryCreationType string   `json:"members_allowed_repository_creation_type"`
	MembersCanCreatePublicRepositories   bool     `json:"members_can_create_public_repositories"`
	MembersCanCreatePrivateRepositories  bool     `json:"members_can_create_private_repositories"`
	MembersCanCreateInternalRepositories bool     `json:"members_can_create_internal_repositories"`
	MembersCanCreatePages                bool     `json:"members_can_create_pages"`
	MembersCanCreatePublicPages          bool     `json:"members_can_create_public_pages"`
	MembersCanCreatePrivatePages         bool     `json:"members_can_create_private_pages"`
	MembersCanDeleteRepositories         bool     `json:"members_can_delete_repositories"`
	MembersCanChangeRepoVisibility       bool     `json:"members_can_change_repo_visibility"`
	MembersCanInviteOutsideCollaborators bool     `json:"members_can_invite_outside_collaborators"`
	MembersCanDeleteIssues               bool     `json:"members_can_delete_issues"`
	DisplayCommenterFullNameEnabled      bool     `json:"display_commenter_full_name_setting_enabled"`
	ReadersCanCreateDiscussions          bool     `json:"readers_can_create_discussions"`
	MembersCanCreateTeams                bool     `json:"members_can_create_teams"`
	MembersCanViewDependencyInsights     bool     `json:"members_can_view_dependency_insights"`
	MembersCanForkPrivateRepositories    bool     `json:"members_can_fork_private_repositories"`
	WebCommitSignoffRequired             bool     `json:"web_commit_signoff_required"`
	DeployKeysEnabledForRepositories     bool     `json:"deploy_keys_enabled_for_repositories"`

	AdvancedSecurityEnabledForNewRepositories             bool    `json:"advanced_security_enabled_for_new_repositories"`
	DependabotAlertsEnabledForNewRepositories             bool    `json:"dependabot_alerts_enabled_for_new_repositories"`
	DependabotSecurityUpdatesEnabledForNewRepositories    bool    `json:"dependabot_security_updates_enabled_for_new_repositories"`
	DependencyGraphEnabledForNewRepositories              bool    `json:"dependency_graph_enabled_for_new_repositories"`
	SecretScanningEnabledForNewRepositories               bool    `json:"secret_scanning_enabled_for_new_repositories"`
	SecretScanningPushProtectionEnabledForNewRepositories bool    `json:"secret_scanning_push_protection_enabled_for_new_repositories"`
	SecretScanningPushProtectionCustomLinkEnabled         bool    `json:"secret_scanning_push_protection_custom_link_enabled"`
	SecretScanningPushProtectionCustomLink                *string `json:"secret_scanning_push_protection_custom_link"`
	SecretScanningValidityChecksEnabled                   bool    `json:"secret_scanning_validity_checks_enabled"`
}

// OrgPlan is the plan object of organization-full (no collaborators key,
// unlike a user's plan): seats are the active members, all of them filled.
type OrgPlan struct {
	Name         string `json:"name"`
	Space        int    `json:"space"`
	PrivateRepos int    `json:"private_repos"`
	FilledSeats  int    `json:"filled_seats"`
	Seats        int    `json:"seats"`
}

// OrgCounts are the repository and member counters of an organization.
type OrgCounts struct {
	PublicRepos, TotalPrivateRepos, OwnedPrivateRepos, Collaborators int
	Members                                                          int // active members: the plan's seats
}

// OrgURL is the API URL of an organization.
func (u URLs) OrgURL(login string) string { return u.API + "/orgs/" + login }

// ToOrgSimple converts an organization.
func (u URLs) ToOrgSimple(a *model.Account) OrganizationSimple {
	base := u.OrgURL(a.Login)
	return OrganizationSimple{
		Login: a.Login, ID: a.ID, NodeID: NodeID("O", a.ID), URL: base,
		ReposURL: base + "/repos", EventsURL: base + "/events", HooksURL: base + "/hooks",
		IssuesURL: base + "/issues", MembersURL: base + "/members{/member}",
		PublicMembersURL: base + "/public_members{/member}", AvatarURL: u.AvatarURL(a),
		Description: strPtr(a.Description),
	}
}

// ToOrgFull converts an organization; owner adds the owners' fields (s is
// only read for them). Settings hubd has no feature behind report what a
// new organization on GitHub has: members may delete and change the
// visibility of repositories they administer, invite outside
// collaborators, create teams and see dependency insights; they may not
// delete issues; readers may start discussions.
func (u URLs) ToOrgFull(a *model.Account, c OrgCounts, owner bool, s model.OrgSettings) OrganizationFull {
	o := OrganizationFull{
		OrganizationSimple: u.ToOrgSimple(a),
		Name:               strPtr(a.Name), Company: strPtr(a.Company), Blog: strPtr(a.Blog),
		Location: strPtr(a.Location), Email: strPtr(a.Email), TwitterUsername: strPtr(a.TwitterUsername),
		HasOrganizationProjects: a.HasOrgProjects, HasRepositoryProjects: a.HasRepoProjects,
		PublicRepos: c.PublicRepos, HTMLURL: u.Web + "/" + a.Login, Type: string(model.TypeOrganization),
		CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt),
	}
	if owner {
		o.OrgOwnerView = &OrgOwnerView{
			TotalPrivateRepos: c.TotalPrivateRepos, OwnedPrivateRepos: c.OwnedPrivateRepos,
			Collaborators: c.Collaborators, BillingEmail: strPtr(a.BillingEmail),
			Plan:                                 &OrgPlan{Name: "enterprise", Space: 976562499, PrivateRepos: 9999, FilledSeats: c.Members, Seats: c.Members},
			DefaultRepositoryPermission:          a.DefaultRepoPermission,
			DefaultRepositoryBranch:              "main",
			MembersCanCreateRepositories:         a.MembersCanCreateRepos,
			MembersAllowedRepositoryCreationType: CreationType(a),
			MembersCanCreatePublicRepositories:   a.MembersCanCreatePublicRepos,
			MembersCanCreatePrivateRepositories:  a.MembersCanCreatePrivRepos,
			MembersCanCreateInternalRepositories: a.MembersCanCreateIntRepos,
			WebCommitSignoffRequired:             a.WebCommitSignoffRequired,

			MembersCanCreatePages:                s.MembersCanCreatePages,
			MembersCanCreatePublicPages:          s.MembersCanCreatePublicPages,
			MembersCanCreatePrivatePages:         s.MembersCanCreatePrivatePages,
			MembersCanForkPrivateRepositories:    s.MembersCanForkPrivateRepos,
			DeployKeysEnabledForRepositories:     s.DeployKeysEnabled,
			MembersCanDeleteRepositories:         true,
			MembersCanChangeRepoVisibility:       true,
			MembersCanInviteOutsideCollaborators: true,
			ReadersCanCreateDiscussions:          true,
			MembersCanCreateTeams:                true,
			MembersCanViewDependencyInsights:     true,

			AdvancedSecurityEnabledForNewRepositories:             s.AdvancedSecurityForNew,
			DependabotAlertsEnabledForNewRepositories:             s.DependabotAlertsForNew,
			DependabotSecurityUpdatesEnabledForNewRepositories:    s.DependabotSecurityUpdatesForNew,
			DependencyGraphEnabledForNewRepositories:              s.DependencyGraphForNew,
			SecretScanningEnabledForNewRepositories:               s.SecretScanningForNew,
			SecretScanningPushProtectionEnabledForNewRepositories: s.SecretScanningPushProtectionForNew,
			SecretScanningPushProtectionCustomLinkEnabled:         s.PushProtectionCustomLinkEnabled,
			SecretScanningPushProtectionCustomLink:                s.PushProtectionCustomLink,
			SecretScanningValidityChecksEnabled:                   s.SecretScanningValidityChecks,
		}
	}
	return o
}

// CreationType is the legacy members_allowed_repository_creation_type.
func CreationType(a *model.Account) string {
	switch {
	case !a.MembersCanCreateRepos || !a.MembersCanCreatePrivRepos && !a.MembersCanCreatePublicRepos:
		return "none"
	case a.MembersCanCreatePublicRepos:
		return "all"
	default:
		return "private"
	}
}

// OrgMembership is components/schemas/org-membership.
type OrgMembership struct {
	URL             string                 `json:"url"`
	State           string                 `json:"state"`
	Role            string                 `json:"role"`
	OrganizationURL string                 `json:"organization_url"`
	Organization    OrganizationSimple     `json:"organization"`
	User            *SimpleUser            `json:"user"`
	Permissions     *MembershipPermissions `json:"permissions,omitempty"`
	// Whether the user is a member in their own right: an active
	// membership (hubd has no enterprise teams, so never indirectly); an
	// invitee (pending) is not a member yet.
	DirectMembership                           bool     `json:"direct_membership"`
	EnterpriseTeamsProvidingIndirectMembership []string `json:"enterprise_teams_providing_indirect_membership"`
}

// MembershipPermissions is the permissions object of the authenticated
// user's own memberships.
type MembershipPermissions struct {
	CanCreateRepository bool `json:"can_create_repository"`
}

// ToOrgMembership converts a membership of user in org; own adds the
// permissions the authenticated user sees on their own membership.
func (u URLs) ToOrgMembership(org, user *model.Account, m *model.Membership, own bool) OrgMembership {
	su := u.ToSimpleUser(user)
	out := OrgMembership{
		URL:   u.OrgURL(org.Login) + "/memberships/" + user.Login,
		State: m.State, Role: string(m.Role),
		OrganizationURL: u.OrgURL(org.Login), Organization: u.ToOrgSimple(org), User: &su,
		DirectMembership: m.State == "active", EnterpriseTeamsProvidingIndirectMembership: []string{},
	}
	if own {
		active := m.State == "active"
		out.Permissions = &MembershipPermissions{CanCreateRepository: active && (m.Role == model.RoleAdmin || org.MembersCanCreateRepos)}
	}
	return out
}
