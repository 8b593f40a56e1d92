package wire

// APIOverview is components/schemas/api-overview (GET /meta) in GitHub
// Enterprise Server's form: the keys of ghes-3.19's schema and nothing else
// (api.github.com's address lists — hooks, web, git, actions... — do not
// exist on a GHES instance).
type APIOverview struct {
	VerifiablePasswordAuthentication bool               `json:"verifiable_password_authentication"`
	Packages                         []string           `json:"packages"`
	Domains                          APIOverviewDomains `json:"domains"`
	InstalledVersion                 string             `json:"installed_version"`
}

// APIOverviewDomains is api-overview's domains, as GHES sends them.
type APIOverviewDomains struct {
	Website    []string `json:"website"`
	Codespaces []string `json:"codespaces"`
	Copilot    []string `json:"copilot"`
	Packages   []string `json:"packages"`
}
