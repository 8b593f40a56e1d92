package wire

// APIOverview is components/schemas/api-overview (GET /meta), in the form
// GitHub Enterprise Server sends it: its version, and address lists that
// describe this instance rather than GitHub's networks.
type APIOverview struct {
	VerifiablePasswordAuthentication bool                `json:"verifiable_password_authentication"`
	InstalledVersion                 string              `json:"installed_version,omitempty"`
	Hooks                            []string            `json:"hooks"`
	Web                              []string            `json:"web"`
	API                              []string            `json:"api"`
	Git                              []string            `json:"git"`
	Packages                         []string            `json:"packages"`
	Pages                            []string            `json:"pages"`
	Importer                         []string            `json:"importer"`
	Actions                          []string            `json:"actions"`
	Dependabot                       []string            `json:"dependabot"`
	Domains                          *APIOverviewDomains `json:"domains,omitempty"`
}

// APIOverviewDomains is api-overview's domains.
type APIOverviewDomains struct {
	Website    []string `json:"website"`
	Codespaces []string `json:"codespaces"`
	Copilot    []string `json:"copilot"`
	Packages   []string `json:"packages"`
	Actions    []string `json:"actions"`
}
