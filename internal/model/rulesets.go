package model

import "time"

// Ruleset targets, enforcement levels and sources (GitHub's words).
const (
	RulesetTargetBranch = "branch"
	RulesetTargetTag    = "tag"
	RulesetTargetPush   = "push"

	EnforcementDisabled = "disabled"
	EnforcementActive   = "active"
	EnforcementEvaluate = "evaluate"

	RulesetSourceRepository   = "Repository"
	RulesetSourceOrganization = "Organization"
	RulesetSourceEnterprise   = "Enterprise"
)

// Bypass actor types and modes.
const (
	BypassIntegration       = "Integration"
	BypassOrganizationAdmin = "OrganizationAdmin"
	BypassRepositoryRole    = "RepositoryRole"
	BypassTeam              = "Team"
	BypassDeployKey         = "DeployKey"
	BypassUser              = "User"
	BypassEnterpriseOwner   = "EnterpriseOwner"

	BypassAlways      = "always"
	BypassPullRequest = "pull_request"
	BypassExempt      = "exempt"
)

// Rule types hubd knows.
const (
	RuleCreation                 = "creation"
	RuleUpdate                   = "update"
	RuleDeletion                 = "deletion"
	RuleRequiredLinearHistory    = "required_linear_history"
	RuleRequiredSignatures       = "required_signatures"
	RulePullRequest              = "pull_request"
	RuleRequiredStatusChecks     = "required_status_checks"
	RuleNonFastForward           = "non_fast_forward"
	RuleCommitMessagePattern     = "commit_message_pattern"
	RuleCommitAuthorEmailPattern = "commit_author_email_pattern"
	RuleCommitterEmailPattern    = "committer_email_pattern"
	RuleBranchNamePattern        = "branch_name_pattern"
	RuleTagNamePattern           = "tag_name_pattern"

	// Push rules (push rulesets): every file a push adds is checked.
	RuleFilePathRestriction      = "file_path_restriction"
	RuleMaxFilePathLength        = "max_file_path_length"
	RuleFileExtensionRestriction = "file_extension_restriction"
	RuleMaxFileSize              = "max_file_size"
)

// MaxFilePathLengthLimit and MaxFileSizeLimit are GitHub's bounds of the
// max_file_path_length (characters) and max_file_size (MB) rules.
const (
	MaxFilePathLengthLimit = 32767
	MaxFileSizeLimit       = 100
)

// Ruleset is a named set of rules that applies to the refs its conditions
// select: a repository's own (RepoID set), an organization's (OrgID set),
// which applies to the organization's repositories its repository name
// condition selects, or the enterprise's (neither set), which applies to
// the repositories of the organizations its organization condition
// selects that its repository name condition selects.
type Ruleset struct {
	ID          int64
	SourceType  string // RulesetSourceRepository, RulesetSourceOrganization or RulesetSourceEnterprise
	RepoID      int64
	OrgID       int64
	Source      string // "owner/name" of the repository, or the organization's login
	Name        string
	Target      string
	Enforcement string
	Bypass      []BypassActor
	Conditions  *RulesetConditions // nil: none given
	Rules       []RulesetRule
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// BypassActor may bypass a ruleset's rules: always, or only when merging
// pull requests (pull_request), or without the rules being evaluated at
// all (exempt). ActorID is 0 for types that have none.
type BypassActor struct {
	ActorID   int64
	ActorType string
	Mode      string
}

// RulesetConditions select the refs (and, for an organization's ruleset,
// the repositories) a ruleset applies to: one include pattern must match
// and no exclude pattern.
type RulesetConditions struct {
	RefName        *NamePatterns
	RepositoryName *NamePatterns
	// OrganizationName and OrganizationIDs select the organizations of an
	// enterprise ruleset (one of them; OrganizationIDs nil when not given).
	OrganizationName *NamePatterns
	OrganizationIDs  []int64
	// RepositoryProtected is repository_name.protected (stored; hubd does
	// not prevent renames).
	RepositoryProtected bool
}

// NamePatterns are include and exclude patterns.
type NamePatterns struct {
	Include []string
	Exclude []string
}

// RulesetRule is one rule; only the parameters of its type are set.
type RulesetRule struct {
	Type string
	// update
	UpdateAllowsFetchAndMerge bool
	// pull_request
	PullRequest *PullRequestRule
	// required_status_checks
	StatusChecks *StatusChecksRule
	// commit_message_pattern, commit_author_email_pattern,
	// committer_email_pattern, branch_name_pattern, tag_name_pattern
	Pattern *PatternRule
	// file_path_restriction (restricted_file_paths) and
	// file_extension_restriction (restricted_file_extensions); nil when
	// the parameter is missing
	Restricted []string
	// max_file_path_length (characters) and max_file_size (MB)
	Max int
}

// PullRequestRule is the pull_request rule's parameters.
type PullRequestRule struct {
	RequiredApprovals              int
	DismissStaleReviewsOnPush      bool
	RequireCodeOwnerReview         bool
	RequireLastPushApproval        bool
	RequiredReviewThreadResolution bool
	AllowedMergeMethods            []string // nil: not given
}

// StatusChecksRule is the required_status_checks rule's parameters.
type StatusChecksRule struct {
	Checks               []RequiredCheck
	Strict               bool
	DoNotEnforceOnCreate bool
}

// RequiredCheck is a required status check; IntegrationID 0 means any
// source.
type RequiredCheck struct {
	Context       string
	IntegrationID int64
}

// PatternRule is the parameters of the metadata pattern rules. Operator is
// starts_with, ends_with, contains or regex.
type PatternRule struct {
	Name     string
	Negate   bool
	Operator string
	Pattern  string
}

// RulesetVersion is a stored version of a ruleset: its state after a
// change, who made it and when.
type RulesetVersion struct {
	ID        int64
	RulesetID int64
	ActorID   int64
	CreatedAt time.Time
	State     *Ruleset
}

// Push rule bypass request statuses (GitHub's words; expired is worked
// out from ExpiresAt).
const (
	BypassRequestPending   = "pending"
	BypassRequestApproved  = "approved"
	BypassRequestDenied    = "denied"
	BypassRequestCompleted = "completed"
	BypassRequestCancelled = "cancelled"
	BypassRequestExpired   = "expired"
)

// PushBypassRequest is a request to bypass the push rules that refused a
// push: the requester, the repository, the pushed commit (Resource) and
// ref, what each ruleset refused, the status and the reviewers'
// responses.
type PushBypassRequest struct {
	ID             int64
	Number         int64
	RepoID         int64
	RepoName       string
	RepoOwner      string
	OrgID          int64 // 0: a user's repository
	RequesterID    int64
	RequesterLogin string
	Resource       string
	Ref            string
	Data           []BypassRuleData
	Status         string
	Comment        *string
	CreatedAt      time.Time
	ExpiresAt      time.Time
	Responses      []BypassResponse
}

// State is the status as GitHub shows it at now: pending and approved
// requests past ExpiresAt are expired.
func (r *PushBypassRequest) State(now time.Time) string {
	if (r.Status == BypassRequestPending || r.Status == BypassRequestApproved) && now.After(r.ExpiresAt) {
		return BypassRequestExpired
	}
	return r.Status
}

// BypassRuleData is one push rule of a ruleset a push broke, and how
// often.
type BypassRuleData struct {
	RulesetID   int64
	RulesetName string
	RuleType    string
	Total       int
}

// BypassResponse is a reviewer's answer to a bypass request.
type BypassResponse struct {
	ID            int64
	ReviewerID    int64
	ReviewerLogin string
	Status        string // approved or denied
	CreatedAt     time.Time
}

// BypassRequestFilter selects bypass requests (empty fields: any).
type BypassRequestFilter struct {
	OrgID, RepoID  int64
	RepositoryName string
	Reviewer       string
	Requester      string
	Since          time.Time // created at or after
	Status         string    // a status, "open" (pending or approved, not expired) or "" for all
}
