// Package model holds hubd's domain types. They carry no JSON tags: the wire
// package owns GitHub's shapes and converts from these.
package model

import "time"

// AccountType tells users and organizations apart; they share one id space
// and one namespace of logins, as on GitHub.
type AccountType string

const (
	TypeUser         AccountType = "User"
	TypeOrganization AccountType = "Organization"
)

// Account is a user or an organization.
type Account struct {
	ID              int64
	Login           string
	Type            AccountType
	Name            string
	Email           string
	Company         string
	Blog            string
	Location        string
	Bio             string
	TwitterUsername string
	Hireable        *bool
	SiteAdmin       bool
	SuspendedAt     *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time

	// Organization settings (zero for users).
	Description                 string
	BillingEmail                string
	DefaultRepoPermission       string // read, write, admin, none
	MembersCanCreateRepos       bool
	MembersCanCreatePublicRepos bool
	MembersCanCreatePrivRepos   bool
	MembersCanCreateIntRepos    bool
	HasOrgProjects              bool
	HasRepoProjects             bool
	WebCommitSignoffRequired    bool
}

// IsOrg reports whether the account is an organization.
func (a *Account) IsOrg() bool { return a.Type == TypeOrganization }

// MemberMayCreate reports whether an organization's settings let its
// members (who are not admins) create repositories of visibility v.
func (a *Account) MemberMayCreate(v Visibility) bool {
	if !a.MembersCanCreateRepos {
		return false
	}
	switch v {
	case Public:
		return a.MembersCanCreatePublicRepos
	case Private:
		return a.MembersCanCreatePrivRepos
	case Internal:
		return a.MembersCanCreateIntRepos
	}
	return false
}

// OrgRole is a member's role in an organization.
type OrgRole string

const (
	RoleMember OrgRole = "member"
	RoleAdmin  OrgRole = "admin"
)

// Membership is a user's membership of an organization.
type Membership struct {
	OrgID     int64
	UserID    int64
	Role      OrgRole
	State     string // active, pending
	CreatedAt time.Time
}

// Visibility of a repository.
type Visibility string

const (
	Public   Visibility = "public"
	Private  Visibility = "private"
	Internal Visibility = "internal"
)

// Repo is a repository. Files live on disk under ID, so renames and transfers
// only touch rows.
type Repo struct {
	ID            int64
	OwnerID       int64
	Owner         *Account // loaded with the repository
	Name          string
	Description   string
	Homepage      string
	Visibility    Visibility
	DefaultBranch string
	Topics        []string

	HasIssues, HasProjects, HasWiki, HasDiscussions, HasDownloads bool
	IsTemplate, Archived, Disabled                                bool
	LockedForMigration                                            bool // a migration locked it (internal/migrations)

	AllowSquashMerge, AllowMergeCommit, AllowRebaseMerge bool
	AllowAutoMerge, DeleteBranchOnMerge                  bool
	AllowUpdateBranch, AllowForking                      bool
	WebCommitSignoffRequired                             bool
	SquashMergeCommitTitle, SquashMergeCommitMessage     string
	MergeCommitTitle, MergeCommitMessage                 string

	Size       int64
	OpenIssues int // open issues and pull requests (maintained by the issues store)
	CreatedAt  time.Time
	UpdatedAt  time.Time
	PushedAt   *time.Time

	// Forks: ParentID is the repository this one was forked from and
	// SourceID the root of its fork network (0 both for a repository that
	// is not a fork); ForksCount counts its direct forks.
	ParentID, SourceID int64
	ForksCount         int
	// TemplateID is the template repository this one was generated from
	// (0: none, or the template is gone).
	TemplateID int64

	// StargazersCount and SubscribersCount are the repository's stars and
	// watchers (maintained by the stars store with each star and
	// subscription).
	StargazersCount, SubscribersCount int
}

// FullName is owner/name.
func (r *Repo) FullName() string { return r.Owner.Login + "/" + r.Name }

// Private reports whether the repository is not public.
func (r *Repo) Private() bool { return r.Visibility != Public }

// Event is a domain event appended in the same transaction as the write that
// caused it (an outbox). Activity feeds, webhooks and audit logs read it.
type Event struct {
	ID        int64
	Type      string
	ActorID   int64
	RepoID    int64
	OrgID     int64
	Payload   []byte // JSON
	CreatedAt time.Time
}

// OrgSettings are the organization settings of PATCH /orgs/{org} that
// Account does not hold: hubd records and reports them, and applies
// MembersCanForkPrivateRepos to forks (it has no Pages or security products
// to apply the others to yet).
type OrgSettings struct {
	MembersCanCreatePages, MembersCanCreatePublicPages, MembersCanCreatePrivatePages bool
	MembersCanForkPrivateRepos                                                       bool

	AdvancedSecurityForNew, DependabotAlertsForNew, DependabotSecurityUpdatesForNew bool
	DependencyGraphForNew, SecretScanningForNew, SecretScanningPushProtectionForNew bool
	SecretScanningValidityChecks                                                    bool
	PushProtectionCustomLinkEnabled                                                 bool
	PushProtectionCustomLink                                                        *string

	DeployKeysEnabled bool
}

// RepoTransfer is a repository offered to another user's account: it moves
// when that user accepts before ExpiresAt.
type RepoTransfer struct {
	ID, RepoID, FromID, ToID, RequesterID int64
	NewName                               string
	CreatedAt, ExpiresAt                  time.Time
}
