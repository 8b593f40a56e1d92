package wire

import "github.com/hubd/hubd/internal/model"

// ProtectedBranch is components/schemas/protected-branch (PUT and GET
// .../protection). Parts that are off are left out, as GitHub does;
// restrictions are always null in hubd and so never sent.
type ProtectedBranch struct {
	URL                            string                  `json:"url"`
	RequiredStatusChecks           *StatusCheckPolicy      `json:"required_status_checks,omitempty"`
	RequiredPullRequestReviews     *ProtectedBranchReviews `json:"required_pull_request_reviews,omitempty"`
	RequiredSignatures             URLEnabled              `json:"required_signatures"`
	EnforceAdmins                  URLEnabled              `json:"enforce_admins"`
	RequiredLinearHistory          Enabled                 `json:"required_linear_history"`
	AllowForcePushes               Enabled                 `json:"allow_force_pushes"`
	AllowDeletions                 Enabled                 `json:"allow_deletions"`
	BlockCreations                 Enabled                 `json:"block_creations"`
	RequiredConversationResolution Enabled                 `json:"required_conversation_resolution"`
	LockBranch                     Enabled                 `json:"lock_branch"`
	AllowForkSyncing               Enabled                 `json:"allow_fork_syncing"`
}

// StatusCheckPolicy is components/schemas/status-check-policy.
type StatusCheckPolicy struct {
	URL         string        `json:"url"`
	Strict      bool          `json:"strict"`
	Contexts    []string      `json:"contexts"`
	Checks      []StatusCheck `json:"checks"`
	ContextsURL string        `json:"contexts_url"`
}

// ProtectedBranchReviews is components/schemas/protected-branch-pull-request-review.
type ProtectedBranchReviews struct {
	URL                          string `json:"url"`
	DismissStaleReviews          bool   `json:"dismiss_stale_reviews"`
	RequireCodeOwnerReviews      bool   `json:"require_code_owner_reviews"`
	RequiredApprovingReviewCount int    `json:"required_approving_review_count"`
	RequireLastPushApproval      bool   `json:"require_last_push_approval"`
}

// URLEnabled is components/schemas/protected-branch-admin-enforced (and
// required_signatures).
type URLEnabled struct {
	URL     string `json:"url"`
	Enabled bool   `json:"enabled"`
}

// Enabled is a protection setting that is only on or off.
type Enabled struct {
	Enabled bool `json:"enabled"`
}

// ProtectionURL is the API URL of a branch's protection.
func (u URLs) ProtectionURL(r *model.Repo, branch string) string {
	return u.BranchAPIURL(r, branch) + "/protection"
}

// ToProtectedBranch converts a branch's protection.
func (u URLs) ToProtectedBranch(r *model.Repo, p *model.BranchProtection) ProtectedBranch {
	base := u.ProtectionURL(r, p.Branch)
	out := ProtectedBranch{
		URL:                base,
		RequiredSignatures: URLEnabled{URL: base + "/required_signatures"},
		EnforceAdmins:      u.ToAdminEnforced(r, p),
		AllowForcePushes:   Enabled{p.AllowForcePushes},
		AllowDeletions:     Enabled{p.AllowDeletions},
	}
	if p.StatusChecks {
		sc := u.ToStatusCheckPolicy(r, p)
		out.RequiredStatusChecks = &sc
	}
	if p.Reviews {
		rv := u.ToProtectedBranchReviews(r, p)
		out.RequiredPullRequestReviews = &rv
	}
	return out
}

// ToStatusCheckPolicy converts a branch's required status checks; every
// check may come from any app (app_id null).
func (u URLs) ToStatusCheckPolicy(r *model.Repo, p *model.BranchProtection) StatusCheckPolicy {
	base := u.ProtectionURL(r, p.Branch) + "/required_status_checks"
	return StatusCheckPolicy{URL: base, Strict: p.Strict, Contexts: contextsOf(p), Checks: checksOf(p), ContextsURL: base + "/contexts"}
}

func contextsOf(p *model.BranchProtection) []string {
	if p.RequiredContexts == nil {
		return []string{}
	}
	return p.RequiredContexts
}

func checksOf(p *model.BranchProtection) []StatusCheck {
	out := make([]StatusCheck, len(p.RequiredContexts))
	for i, c := range p.RequiredContexts {
		out[i] = StatusCheck{Context: c}
	}
	return out
}

// ToProtectedBranchReviews converts a branch's review requirement.
func (u URLs) ToProtectedBranchReviews(r *model.Repo, p *model.BranchProtection) ProtectedBranchReviews {
	return ProtectedBranchReviews{URL: u.ProtectionURL(r, p.Branch) + "/required_pull_request_reviews",
		DismissStaleReviews: p.DismissStaleReviews, RequiredApprovingReviewCount: p.RequiredApprovals}
}

// ToAdminEnforced converts enforce_admins.
func (u URLs) ToAdminEnforced(r *model.Repo, p *model.BranchProtection) URLEnabled {
	return URLEnabled{URL: u.ProtectionURL(r, p.Branch) + "/enforce_admins", Enabled: p.EnforceAdmins}
}

// ToBranchProtectionSummary is the protection object GitHub shows inside a
// branch (GET .../branches and .../branches/{branch}): nil p is an
// unprotected branch.
func ToBranchProtectionSummary(p *model.BranchProtection) BranchProtection {
	if p == nil {
		return unprotected()
	}
	level := "off"
	if p.StatusChecks {
		level = "non_admins"
		if p.EnforceAdmins {
			level = "everyone"
		}
	}
	return BranchProtection{Enabled: true, RequiredStatusChecks: RequiredStatusChecks{
		EnforcementLevel: level, Contexts: contextsOf(p), Checks: checksOf(p)}}
}
