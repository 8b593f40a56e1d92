package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Integration is components/schemas/integration (a GitHub App).
type Integration struct {
	ID                 int64             `json:"id"`
	ClientID           string            `json:"client_id"`
	Slug               string            `json:"slug"`
	NodeID             string            `json:"node_id"`
	Owner              SimpleUser        `json:"owner"`
	Name               string            `json:"name"`
	Description        *string           `json:"description"`
	ExternalURL        string            `json:"external_url"`
	HTMLURL            string            `json:"html_url"`
	CreatedAt          string            `json:"created_at"`
	UpdatedAt          string            `json:"updated_at"`
	Permissions        map[string]string `json:"permissions"`
	Events             []string          `json:"events"`
	InstallationsCount *int              `json:"installations_count,omitempty"`
}

// AppHTMLURL is an app's page.
func (u URLs) AppHTMLURL(a *model.App) string { return u.Web + "/apps/" + a.Slug }

// ToIntegration converts an app (with its owner). installations is shown
// only to the app itself (nil leaves installations_count out).
func (u URLs) ToIntegration(a *model.App, installations *int) Integration {
	ext := a.ExternalURL
	if ext == "" {
		ext = u.AppHTMLURL(a)
	}
	perms := a.Permissions
	if perms == nil {
		perms = map[string]string{}
	}
	events := a.Events
	if events == nil {
		events = []string{}
	}
	return Integration{
		ID: a.ID, ClientID: a.ClientID, Slug: a.Slug, NodeID: NodeID("A", a.ID), Owner: u.ToSimpleUser(a.Owner),
		Name: a.Name, Description: a.Description, ExternalURL: ext, HTMLURL: u.AppHTMLURL(a),
		CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt), Permissions: perms, Events: events,
		InstallationsCount: installations,
	}
}

// Installation is components/schemas/installation.
type Installation struct {
	ID                     int64             `json:"id"`
	Account                any               `json:"account"` // *SimpleUser, or *Enterprise
	RepositorySelection    string            `json:"repository_selection"`
	AccessTokensURL        string            `json:"access_tokens_url"`
	RepositoriesURL        string            `json:"repositories_url"`
	HTMLURL                string            `json:"html_url"`
	AppID                  int64             `json:"app_id"`
	AppSlug                string            `json:"app_slug"`
	ClientID               string            `json:"client_id"`
	TargetID               int64             `json:"target_id"`
	TargetType             string            `json:"target_type"`
	Permissions            map[string]string `json:"permissions"`
	Events                 []string          `json:"events"`
	CreatedAt              string            `json:"created_at"`
	UpdatedAt              string            `json:"updated_at"`
	SingleFileName         *string           `json:"single_file_name"`
	HasMultipleSingleFiles bool              `json:"has_multiple_single_files"`
	SingleFilePaths        []string          `json:"single_file_paths"`
	SuspendedBy            *SimpleUser       `json:"suspended_by"`
	SuspendedAt            *string           `json:"suspended_at"`
}

// ToInstallation converts an installation (with its app and account).
func (u URLs) ToInstallation(in *model.Installation) Installation {
	id := strconv.FormatInt(in.ID, 10)
	var account any
	html := u.Web + "/settings/installations/" + id
	targetID, targetType := in.AccountID, string(in.Account.Type)
	switch {
	case in.Enterprise:
		e := u.ToEnterprise()
		account, targetID, targetType = &e, e.ID, "Enterprise"
		html = e.HTMLURL + "/settings/apps/installations/" + id
	case in.Account.IsOrg():
		html = u.Web + "/organizations/" + in.Account.Login + "/settings/installations/" + id
		fallthrough
	default:
		a := u.ToSimpleUser(in.Account)
		account = &a
	}
	perms := in.Permissions
	if perms == nil {
		perms = map[string]string{}
	}
	events := in.Events
	if events == nil {
		events = []string{}
	}
	out := Installation{
		ID: in.ID, Account: account, RepositorySelection: in.Selection,
		AccessTokensURL: u.API + "/app/installations/" + id + "/access_tokens",
		RepositoriesURL: u.API + "/installation/repositories", HTMLURL: html,
		AppID: in.AppID, AppSlug: in.App.Slug, ClientID: in.App.ClientID,
		TargetID: targetID, TargetType: targetType,
		Permissions: perms, Events: events, CreatedAt: Time(in.CreatedAt), UpdatedAt: Time(in.UpdatedAt),
		SingleFilePaths: []string{}, SuspendedAt: TimePtr(in.SuspendedAt),
	}
	if in.SuspendedBy != nil {
		by := u.ToSimpleUser(in.SuspendedBy)
		out.SuspendedBy = &by
	}
	return out
}

// InstallationToken is components/schemas/installation-token.
type InstallationToken struct {
	Token               string            `json:"token"`
	ExpiresAt           string            `json:"expires_at"`
	Permissions         map[string]string `json:"permissions"`
	RepositorySelection string            `json:"repository_selection"`
	Repositories        []Repository      `json:"repositories,omitempty"`
}

// InstallationRepositories is the answer of GET /installation/repositories
// and GET /user/installations/{installation_id}/repositories.
type InstallationRepositories struct {
	TotalCount          int          `json:"total_count"`
	RepositorySelection string       `json:"repository_selection"`
	Repositories        []Repository `json:"repositories"`
}

// InstallationList is the answer of GET /user/installations and GET
// /orgs/{org}/installations.
type InstallationList struct {
	TotalCount    int            `json:"total_count"`
	Installations []Installation `json:"installations"`
}

// EnterpriseID is the id of hubd's one enterprise.
const EnterpriseID = 1

// DefaultEnterprise is the enterprise's slug when none is configured.
const DefaultEnterprise = "hubd"

// Enterprise is components/schemas/enterprise.
type Enterprise struct {
	Description *string `json:"description"`
	HTMLURL     string  `json:"html_url"`
	WebsiteURL  *string `json:"website_url"`
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	Name        string  `json:"name"`
	Slug        string  `json:"slug"`
	CreatedAt   *string `json:"created_at"`
	UpdatedAt   *string `json:"updated_at"`
	AvatarURL   string  `json:"avatar_url"`
}

// EnterpriseSlug is the slug of hubd's enterprise.
func (u URLs) EnterpriseSlug() string {
	if u.Enterprise == "" {
		return DefaultEnterprise
	}
	return u.Enterprise
}

// ToEnterprise is hubd's one enterprise, GitHub Enterprise Server style:
// its slug is its name, and the site administrators own it.
func (u URLs) ToEnterprise() Enterprise {
	slug := u.EnterpriseSlug()
	return Enterprise{HTMLURL: u.Web + "/enterprises/" + slug, ID: EnterpriseID, NodeID: NodeID("Enterprise", EnterpriseID),
		Name: slug, Slug: slug, AvatarURL: u.Web + "/avatars/e/" + strconv.Itoa(EnterpriseID)}
}

// InstallableOrganization is components/schemas/installable-organization.
type InstallableOrganization struct {
	ID                        int64  `json:"id"`
	Login                     string `json:"login"`
	AccessibleRepositoriesURL string `json:"accessible_repositories_url"`
}

// AccessibleRepository is components/schemas/accessible-repository.
type AccessibleRepository struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	FullName string `json:"full_name"`
}

// EnterpriseOrgInstallation is
// components/schemas/enterprise-organization-installation.
type EnterpriseOrgInstallation struct {
	ID                  int64             `json:"id"`
	AppSlug             string            `json:"app_slug"`
	ClientID            string            `json:"client_id"`
	RepositorySelection string            `json:"repository_selection"`
	RepositoriesURL     string            `json:"repositories_url"`
	Permissions         map[string]string `json:"permissions"`
	Events              []string          `json:"events"`
	CreatedAt           string            `json:"created_at"`
	UpdatedAt           string            `json:"updated_at"`
}

// ToEnterpriseOrgInstallation converts an installation on an organization
// as the enterprise's operations show it.
func (u URLs) ToEnterpriseOrgInstallation(in *model.Installation) EnterpriseOrgInstallation {
	full := u.ToInstallation(in)
	return EnterpriseOrgInstallation{ID: in.ID, AppSlug: in.App.Slug, ClientID: in.App.ClientID, RepositorySelection: in.Selection,
		RepositoriesURL: u.API + "/enterprises/" + u.EnterpriseSlug() + "/apps/organizations/" + in.Account.Login + "/installations/" +
			strconv.FormatInt(in.ID, 10) + "/repositories",
		Permissions: full.Permissions, Events: full.Events, CreatedAt: full.CreatedAt, UpdatedAt: full.UpdatedAt}
}
