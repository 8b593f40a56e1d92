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
	Account                *SimpleUser       `json:"account"`
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
	account := u.ToSimpleUser(in.Account)
	html := u.Web + "/settings/installations/" + id
	if in.Account.IsOrg() {
		html = u.Web + "/organizations/" + in.Account.Login + "/settings/installations/" + id
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
		ID: in.ID, Account: &account, RepositorySelection: in.Selection,
		AccessTokensURL: u.API + "/app/installations/" + id + "/access_tokens",
		RepositoriesURL: u.API + "/installation/repositories", HTMLURL: html,
		AppID: in.AppID, AppSlug: in.App.Slug, ClientID: in.App.ClientID,
		TargetID: in.AccountID, TargetType: string(in.Account.Type),
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
