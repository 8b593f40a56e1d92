package model

import "time"

// InteractionLimit is a temporary restriction of who may open issues and
// pull requests, comment and react: on one repository, or on every public
// repository of a user or organization.
type InteractionLimit struct {
	// Origin is "repository", "organization" or "user".
	Origin string
	// RepoID is set for a repository's limit, AccountID for an owner's.
	RepoID, AccountID int64
	// Limit is existing_users, contributors_only or collaborators_only.
	Limit     string
	Expiry    string // the duration asked for (one_day, ...)
	ExpiresAt time.Time
	CreatorID int64
	CreatedAt time.Time
}

// Interaction limit kinds, loosest first.
const (
	LimitExistingUsers     = "existing_users"
	LimitContributorsOnly  = "contributors_only"
	LimitCollaboratorsOnly = "collaborators_only"
)

// Origins of an interaction limit.
const (
	OriginRepository   = "repository"
	OriginOrganization = "organization"
	OriginUser         = "user"
)

// PullCreationCap caps the open (non-draft) pull requests a user without
// write access may have: in one repository, or across the public
// repositories of an organization. Set is false when nothing was ever
// configured (the defaults apply).
type PullCreationCap struct {
	RepoID, AccountID int64
	Enabled           bool
	MaxOpen           int
	Set               bool
	UpdatedAt         time.Time
}
