// Package meta serves the API root (hypermedia links to the main resources),
// the caller's rate limit status, and the Meta category: the instance's
// overview (GET /meta), its API versions, and the Octocat and Zen toys.
package meta

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/rest"
)

// API is the meta package.
type API struct {
	d        *api.Deps
	versions []string
}

// New makes the package; versions are the REST API versions the server
// accepts (X-GitHub-Api-Version), oldest first.
func New(d *api.Deps, versions ...string) *API { return &API{d: d, versions: versions} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/{$}", OperationID: "meta/root", Handler: a.root},
		{Method: "GET", Pattern: "/rate_limit", OperationID: "rate-limit/get", Handler: a.rateLimit, NoRateLimit: true},
		{Method: "GET", Pattern: "/meta", OperationID: "meta/get", Handler: a.meta},
		{Method: "GET", Pattern: "/versions", OperationID: "meta/get-all-versions", Handler: a.listVersions},
		{Method: "GET", Pattern: "/octocat", OperationID: "meta/get-octocat", Handler: a.octocat},
		{Method: "GET", Pattern: "/zen", OperationID: "meta/get-zen", Handler: a.zen},
	}
}

// version20260310 is the API version that dropped authorizations_url and
// hub_url from the root and rate from /rate_limit.
const version20260310 = "2026-03-10"

// atLeast reports whether the request selected API version v or a later one
// (the server has already refused unknown versions; dates compare as text).
func atLeast(r *http.Request, v string) bool {
	return r.Header.Get("X-GitHub-Api-Version") >= v
}

// Root is components/schemas/root.
type Root struct {
	CurrentUserURL                   string `json:"current_user_url"`
	CurrentUserAuthorizationsHTMLURL string `json:"current_user_authorizations_html_url"`
	AuthorizationsURL                string `json:"authorizations_url,omitempty"`
	CodeSearchURL                    string `json:"code_search_url"`
	CommitSearchURL                  string `json:"commit_search_url"`
	EmailsURL                        string `json:"emails_url"`
	EmojisURL                        string `json:"emojis_url"`
	EventsURL                        string `json:"events_url"`
	FeedsURL                         string `json:"feeds_url"`
	FollowersURL                     string `json:"followers_url"`
	FollowingURL                     string `json:"following_url"`
	GistsURL                         string `json:"gists_url"`
	HubURL                           string `json:"hub_url,omitempty"`
	IssueSearchURL                   string `json:"issue_search_url"`
	IssuesURL                        string `json:"issues_url"`
	KeysURL                          string `json:"keys_url"`
	LabelSearchURL                   string `json:"label_search_url"`
	NotificationsURL                 string `json:"notifications_url"`
	OrganizationURL                  string `json:"organization_url"`
	OrganizationRepositoriesURL      string `json:"organization_repositories_url"`
	OrganizationTeamsURL             string `json:"organization_teams_url"`
	PublicGistsURL                   string `json:"public_gists_url"`
	RateLimitURL                     string `json:"rate_limit_url"`
	RepositoryURL                    string `json:"repository_url"`
	RepositorySearchURL              string `json:"repository_search_url"`
	CurrentUserRepositoriesURL       string `json:"current_user_repositories_url"`
	StarredURL                       string `json:"starred_url"`
	StarredGistsURL                  string `json:"starred_gists_url"`
	TopicSearchURL                   string `json:"topic_search_url"`
	UserURL                          string `json:"user_url"`
	UserOrganizationsURL             string `json:"user_organizations_url"`
	UserRepositoriesURL              string `json:"user_repositories_url"`
	UserSearchURL                    string `json:"user_search_url"`
}

const searchQuery = "?q={query}{&page,per_page,sort,order}"

// GET /: the API root.
func (a *API) root(w http.ResponseWriter, r *http.Request) error {
	api, web := a.d.URLs.API, a.d.URLs.Web
	out := Root{
		CurrentUserURL:                   api + "/user",
		CurrentUserAuthorizationsHTMLURL: web + "/settings/connections/applications{/client_id}",
		AuthorizationsURL:                api + "/authorizations",
		CodeSearchURL:                    api + "/search/code" + searchQuery,
		CommitSearchURL:                  api + "/search/commits" + searchQuery,
		EmailsURL:                        api + "/user/emails",
		EmojisURL:                        api + "/emojis",
		EventsURL:                        api + "/events",
		FeedsURL:                         api + "/feeds",
		FollowersURL:                     api + "/user/followers",
		FollowingURL:                     api + "/user/following{/target}",
		GistsURL:                         api + "/gists{/gist_id}",
		HubURL:                           api + "/hub",
		IssueSearchURL:                   api + "/search/issues" + searchQuery,
		IssuesURL:                        api + "/issues",
		KeysURL:                          api + "/user/keys",
		LabelSearchURL:                   api + "/search/labels?q={query}&repository_id={repository_id}{&page,per_page}",
		NotificationsURL:                 api + "/notifications",
		OrganizationURL:                  api + "/orgs/{org}",
		OrganizationRepositoriesURL:      api + "/orgs/{org}/repos{?type,page,per_page,sort}",
		OrganizationTeamsURL:             api + "/orgs/{org}/teams",
		PublicGistsURL:                   api + "/gists/public",
		RateLimitURL:                     api + "/rate_limit",
		RepositoryURL:                    api + "/repos/{owner}/{repo}",
		RepositorySearchURL:              api + "/search/repositories" + searchQuery,
		CurrentUserRepositoriesURL:       api + "/user/repos{?type,page,per_page,sort}",
		StarredURL:                       api + "/user/starred{/owner}{/repo}",
		StarredGistsURL:                  api + "/gists/starred",
		TopicSearchURL:                   api + "/search/topics?q={query}{&page,per_page}",
		UserURL:                          api + "/users/{user}",
		UserOrganizationsURL:             api + "/user/orgs",
		UserRepositoriesURL:              api + "/users/{user}/repos{?type,page,per_page,sort}",
		UserSearchURL:                    api + "/search/users" + searchQuery,
	}
	if atLeast(r, version20260310) {
		out.AuthorizationsURL, out.HubURL = "", ""
	}
	return rest.JSON(w, http.StatusOK, out)
}

// Rate is components/schemas/rate-limit.
type Rate struct {
	Limit     int   `json:"limit"`
	Used      int   `json:"used"`
	Remaining int   `json:"remaining"`
	Reset     int64 `json:"reset"`
}

// Resources are the rate limit buckets GitHub reports, in its order.
type Resources struct {
	Core                      Rate `json:"core"`
	Search                    Rate `json:"search"`
	GraphQL                   Rate `json:"graphql"`
	IntegrationManifest       Rate `json:"integration_manifest"`
	SourceImport              Rate `json:"source_import"`
	CodeScanningUpload        Rate `json:"code_scanning_upload"`
	CodeScanningAutofix       Rate `json:"code_scanning_autofix"`
	ActionsRunnerRegistration Rate `json:"actions_runner_registration"`
	SCIM                      Rate `json:"scim"`
	DependencySnapshots       Rate `json:"dependency_snapshots"`
	DependencySBOM            Rate `json:"dependency_sbom"`
	CodeSearch                Rate `json:"code_search"`
}

// Overview is components/schemas/rate-limit-overview.
type Overview struct {
	Resources Resources `json:"resources"`
	Rate      *Rate     `json:"rate,omitempty"` // dropped in 2026-03-10
}

// GET /rate_limit: the caller's windows, read without counting (the route
// is exempt from the limit).
func (a *API) rateLimit(w http.ResponseWriter, r *http.Request) error {
	key, class := ratelimit.KeyFor(rest.Caller(r), r.RemoteAddr)
	peek := func(resource string) Rate {
		st := a.d.Limiter.Peek(key, class, resource)
		rt := Rate{Limit: st.Limit, Used: st.Used, Remaining: st.Remaining, Reset: st.Reset.Unix()}
		if resource == "graphql" && class == "anonymous" {
			// GraphQL needs authentication: anonymous callers have none.
			rt.Limit, rt.Used, rt.Remaining = 0, 0, 0
		}
		return rt
	}
	res := Resources{
		Core:                      peek("core"),
		Search:                    peek("search"),
		GraphQL:                   peek("graphql"),
		IntegrationManifest:       peek("integration_manifest"),
		SourceImport:              peek("source_import"),
		CodeScanningUpload:        peek("code_scanning_upload"),
		CodeScanningAutofix:       peek("code_scanning_autofix"),
		ActionsRunnerRegistration: peek("actions_runner_registration"),
		SCIM:                      peek("scim"),
		DependencySnapshots:       peek("dependency_snapshots"),
		DependencySBOM:            peek("dependency_sbom"),
		CodeSearch:                peek("code_search"),
	}
	out := Overview{Resources: res}
	if !atLeast(r, version20260310) {
		core := res.Core
		out.Rate = &core
	}
	return rest.JSON(w, http.StatusOK, out)
}
