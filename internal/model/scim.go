package model

import "time"

// SCIMUser is an identity an identity provider provisioned through SCIM,
// linked to the hubd user it created. Login and Email keep the user's
// handle and address while a deprovisioned account carries obfuscated ones.
type SCIMUser struct {
	ID          int64
	UUID        string // the SCIM id
	UserID      int64
	ExternalID  string
	UserName    string
	DisplayName string
	GivenName   string
	FamilyName  string
	MiddleName  string
	Formatted   string
	Emails      []SCIMEmail
	Roles       []string
	Active      bool
	Login       string
	Email       string
	Version     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// SCIMEmail is one of a SCIM user's emails.
type SCIMEmail struct {
	Value   string
	Type    string
	Primary bool
}

// EnterpriseTeam is a team of the enterprise; a SCIM group is one whose
// GroupID is set (the SCIM id of the group).
type EnterpriseTeam struct {
	ID          int64
	Slug        string
	Name        string
	Description string
	GroupID     string // SCIM id ("" for a team made outside SCIM)
	ExternalID  string
	// OrgSelection is GitHub's organization_selection_type (disabled,
	// selected, all).
	OrgSelection string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}
