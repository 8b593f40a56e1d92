package wire

import "github.com/hubd/hubd/internal/model"

// ProtectedBranch is components/schemas/protected-branch (PUT and GET
// .../protection). Parts that are off are left out, as GitHub does.
type ProtectedBranch struct {
	URL                            string                   `json:"url"`
	RequiredStatusChecks           *StatusCheckPolicy       `json:"required_status_checks,omitempty"`
	RequiredPullRequestReviews     *ProtectedBranchReviews  `json:"required_pull_request_reviews,omitempty"`
	Restrictions                   *BranchRestrictionPolicy `json:"restrictions,omitempty"`
	RequiredSignatures             URLEnabled               `json:"required_signatures"`
	EnforceAdmins                  URLEnabled               `json:"enforce_admins"`
	RequiredLinearHistory          Enabled                  `json:"required_linear_history"`
	AllowForcePushes               Enabled                  `json:"allow_force_pushes"`
	AllowDeletions                 Enabled                  `json:"allow_deletions"`
	BlockCreations                 Enabled                  `json:"block_creations"`
	RequiredConversationResolution Enabled                  `json:"required_conversation_resolution"`
	LockBranch                     Enabled                  `json:"lock_branch"`
	AllowForkSyncing               Enabled                  `json:"allow_fork_syncing"`
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
	// Left out when off, as GitHub does.
	DismissalRestrictions *DismissalRestrictions `json:"dismissal_restrictions,omitempty"`
	Bypass                *BypassAllowances      `json:"bypass_pull_request_allowances,omitempty"`
}

// DismissalRestrictions is protected-branch-pull-request-review's
// dismissal_restrictions.
type DismissalRestrictions struct {
	URL      string           `json:"url"`
	UsersURL string           `json:"users_url"`
	TeamsURL string           `json:"teams_url"`
	Users    []SimpleUser     `json:"users"`
	Teams    []TeamWithParent `json:"teams"`
	Apps     []Integration    `json:"apps"`
}

// BypassAllowances is protected-branch-pull-request-review's
// bypass_pull_request_allowances.
type BypassAllowances struct {
	Users []SimpleUser     `json:"users"`
	Teams []TeamWithParent `json:"teams"`
	Apps  []Integration    `json:"apps"`
}

// BranchRestrictionPolicy is components/schemas/branch-restriction-policy.
type BranchRestrictionPolicy struct {
	URL      string           `json:"url"`
	UsersURL string           `json:"users_url"`
	TeamsURL string           `json:"teams_url"`
	AppsURL  string           `json:"apps_url"`
	Users    []SimpleUser     `json:"users"`
	Teams    []TeamWithParent `json:"teams"`
	Apps     []Integration    `json:"apps"`
}

// ActorLists are the users, teams and apps of one list, converted.
type ActorLists struct {
	Users []SimpleUser
	Teams []TeamWithParent
	Apps  []Integration
}

// ToActorLists converts a list with the loaded actors (ids gone since
// are left out).
func (u URLs) ToActorLists(a model.Allowed, actors *model.ProtectionActors) ActorLists {
	out := ActorLists{Users: []SimpleUser{}, Teams: []TeamWithParent{}, Apps: []Integration{}}
	if actors == nil {
		return out
	}
	for _, id := range a.Users {
		if x := actors.Users[id]; x != nil {
			out.Users = append(out.Users, u.ToSimpleUser(x))
		}
	}
	for _, id := range a.Teams {
		if x := actors.Teams[id]; x != nil {
			out.Teams = append(out.Teams, u.ToTeamWithParent(x))
		}
	}
	for _, id := range a.Apps {
		if x := actors.Apps[id]; x != nil && x.Owner != nil {
			out.Apps = append(out.Apps, u.ToIntegration(x, nil))
		}
	}
	return out
}

// ToBranchRestrictionPolicy converts a branch's push restrictions.
func (u URLs) ToBranchRestrictionPolicy(r *model.Repo, p *model.BranchProtection, actors *model.ProtectionActors) BranchRestrictionPolicy {
	base := u.ProtectionURL(r, p.Branch) + "/restrictions"
	l := u.ToActorLists(p.Push, actors)
	return BranchRestrictionPolicy{URL: base, UsersURL: base + "/users", TeamsURL: base + "/teams", AppsURL: base + "/apps",
		Users: l.Users, Teams: l.Teams, Apps: l.Apps}
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

// ToProtectedBranch converts a branch's protection with the actors its
// lists name.
func (u URLs) ToProtectedBranch(r *model.Repo, p *model.BranchProtection, actors *model.ProtectionActors) ProtectedBranch {
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
		rv := u.ToProtectedBranchReviews(r, p, actors)
		out.RequiredPullRequestReviews = &rv
	}
	if p.Restricted {
		rp := u.ToBranchRestrictionPolicy(r, p, actors)
		out.Restrictions = &rp
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
func (u URLs) ToProtectedBranchReviews(r *model.Repo, p *model.BranchProtection, actors *model.ProtectionActors) ProtectedBranchReviews {
	base := u.ProtectionURL(r, p.Branch)
	out := ProtectedBranchReviews{URL: base + "/required_pull_request_reviews",
		DismissStaleReviews: p.DismissStaleReviews, RequiredApprovingReviewCount: p.RequiredApprovals,
		RequireCodeOwnerReviews: p.RequireCodeOwnerReviews}
	if p.DismissalRestricted {
		l := u.ToActorLists(p.Dismiss, actors)
		out.DismissalRestrictions = &DismissalRestrictions{URL: base + "/dismissal_restrictions",
			UsersURL: base + "/dismissal_restrictions/users", TeamsURL: base + "/dismissal_restrictions/teams",
			Users: l.Users, Teams: l.Teams, Apps: l.Apps}
	}
	if !p.Bypass.Empty() {
		l := u.ToActorLists(p.Bypass, actors)
		out.Bypass = &BypassAllowances{Users: l.Users, Teams: l.Teams, Apps: l.Apps}
	}
	return out
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
