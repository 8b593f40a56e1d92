package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// Collaborator is components/schemas/collaborator.
type Collaborator struct {
	SimpleUser
	Permissions *RepoPermissions `json:"permissions"`
	RoleName    string           `json:"role_name"`
}

// ToCollaborator is a user with their effective permission on a
// repository; roleName is its role_name (a custom repository role's name,
// or the level's).
func (u URLs) ToCollaborator(a *model.Account, p authz.Permission, roleName string) Collaborator {
	return Collaborator{SimpleUser: u.ToSimpleUser(a), Permissions: ToRepoPermissions(p), RoleName: roleName}
}

// CollaboratorPermission is components/schemas/repository-collaborator-permission.
type CollaboratorPermission struct {
	Permission string       `json:"permission"`
	RoleName   string       `json:"role_name"`
	User       Collaborator `json:"user"`
}

// LegacyPermission is the level of the permission key: GitHub reports
// maintain as write and triage as read there (role_name holds the exact one).
func LegacyPermission(p authz.Permission) string {
	switch p {
	case authz.Maintain:
		return "write"
	case authz.Triage:
		return "read"
	}
	return p.String()
}

// ToCollaboratorPermission is GET .../collaborators/{username}/permission.
func (u URLs) ToCollaboratorPermission(a *model.Account, p authz.Permission, roleName string) CollaboratorPermission {
	return CollaboratorPermission{Permission: LegacyPermission(p), RoleName: roleName, User: u.ToCollaborator(a, p, roleName)}
}

// RepositoryInvitation is components/schemas/repository-invitation.
type RepositoryInvitation struct {
	ID          int64             `json:"id"`
	NodeID      string            `json:"node_id"`
	Repository  MinimalRepository `json:"repository"`
	Invitee     *SimpleUser       `json:"invitee"`
	Inviter     *SimpleUser       `json:"inviter"`
	Permissions string            `json:"permissions"`
	CreatedAt   string            `json:"created_at"`
	Expired     bool              `json:"expired"`
	URL         string            `json:"url"`
	HTMLURL     string            `json:"html_url"`
}

// ToRepositoryInvitation converts an invitation of repo; repository is the
// repository object as the reader sees it.
func (u URLs) ToRepositoryInvitation(inv *model.RepoInvitation, repo *model.Repo, repository MinimalRepository) RepositoryInvitation {
	out := RepositoryInvitation{
		ID: inv.ID, NodeID: NodeID("RI", inv.ID), Repository: repository,
		Permissions: inv.Permission, CreatedAt: Time(inv.CreatedAt), Expired: inv.Expired,
		URL:     u.API + "/user/repository_invitations/" + strconv.FormatInt(inv.ID, 10),
		HTMLURL: u.RepoHTMLURL(repo) + "/invitations",
	}
	if inv.Invitee != nil {
		s := u.ToSimpleUser(inv.Invitee)
		out.Invitee = &s
	}
	if inv.Inviter != nil {
		s := u.ToSimpleUser(inv.Inviter)
		out.Inviter = &s
	}
	return out
}
