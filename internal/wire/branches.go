package wire

import (
	"github.com/hubd/hubd/internal/model"
)

// ShortBranch is components/schemas/short-branch (GET .../branches).
type ShortBranch struct {
	Name          string           `json:"name"`
	Commit        SHAURL           `json:"commit"`
	Protected     bool             `json:"protected"`
	Protection    BranchProtection `json:"protection"`
	ProtectionURL string           `json:"protection_url"`
}

// BranchWithProtection is components/schemas/branch-with-protection
// (GET .../branches/{branch}).
type BranchWithProtection struct {
	Name          string           `json:"name"`
	Commit        Commit           `json:"commit"`
	Links         BranchLinks      `json:"_links"`
	Protected     bool             `json:"protected"`
	Protection    BranchProtection `json:"protection"`
	ProtectionURL string           `json:"protection_url"`
}

// BranchLinks are a branch's _links.
type BranchLinks struct {
	HTML string `json:"html"`
	Self string `json:"self"`
}

// BranchProtection is components/schemas/branch-protection as GitHub shows
// it inside a branch: for an unprotected branch, disabled with status
// checks off.
type BranchProtection struct {
	Enabled              bool                 `json:"enabled"`
	RequiredStatusChecks RequiredStatusChecks `json:"required_status_checks"`
}

// RequiredStatusChecks is components/schemas/protected-branch-required-status-check.
type RequiredStatusChecks struct {
	EnforcementLevel string        `json:"enforcement_level"`
	Contexts         []string      `json:"contexts"`
	Checks           []StatusCheck `json:"checks"`
}

// StatusCheck is one required check.
type StatusCheck struct {
	Context string `json:"context"`
	AppID   *int64 `json:"app_id"`
}

// BranchAPIURL is the API URL of a branch (names keep their slashes).
func (u URLs) BranchAPIURL(r *model.Repo, name string) string {
	return u.RepoAPIURL(r) + "/branches/" + escapePath(name)
}

// unprotected is the protection object of a branch without protection.
func unprotected() BranchProtection {
	return BranchProtection{RequiredStatusChecks: RequiredStatusChecks{
		EnforcementLevel: "off", Contexts: []string{}, Checks: []StatusCheck{},
	}}
}

// ToShortBranch converts a branch of a list with its protection (nil:
// unprotected).
func (u URLs) ToShortBranch(r *model.Repo, name, sha string, p *model.BranchProtection) ShortBranch {
	return ShortBranch{Name: name, Commit: SHAURL{SHA: sha, URL: u.CommitAPIURL(r, sha)},
		Protected: p != nil, Protection: ToBranchProtectionSummary(p), ProtectionURL: u.BranchAPIURL(r, name) + "/protection"}
}

// ToBranch converts a single branch with its head commit and protection
// (nil: unprotected).
func (u URLs) ToBranch(r *model.Repo, name string, head Commit, p *model.BranchProtection) BranchWithProtection {
	self := u.BranchAPIURL(r, name)
	return BranchWithProtection{
		Name: name, Commit: head,
		Links:     BranchLinks{HTML: u.RepoHTMLURL(r) + "/tree/" + escapePath(name), Self: self},
		Protected: p != nil, Protection: ToBranchProtectionSummary(p), ProtectionURL: self + "/protection",
	}
}
