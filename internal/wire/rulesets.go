package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// RepositoryRuleset is GitHub's repository-ruleset. BypassActors is nil
// (left out) for callers who may not change the ruleset;
// CurrentUserCanBypass is set by the repository endpoints only.
type RepositoryRuleset struct {
	ID                   int64                 `json:"id"`
	Name                 string                `json:"name"`
	Target               string                `json:"target"`
	SourceType           string                `json:"source_type"`
	Source               string                `json:"source"`
	Enforcement          string                `json:"enforcement"`
	BypassActors         *[]RulesetBypassActor `json:"bypass_actors,omitempty"`
	CurrentUserCanBypass string                `json:"current_user_can_bypass,omitempty"`
	NodeID               string                `json:"node_id"`
	Links                RulesetLinks          `json:"_links"`
	Conditions           *RulesetConditions    `json:"conditions"`
	Rules                []RepositoryRule      `json:"rules"`
	CreatedAt            string                `json:"created_at"`
	UpdatedAt            string                `json:"updated_at"`
}

// RulesetBypassActor is repository-ruleset-bypass-actor; actor_id is null
// for the types that name no actor (OrganizationAdmin, DeployKey).
type RulesetBypassActor struct {
	ActorID    *int64 `json:"actor_id"`
	ActorType  string `json:"actor_type"`
	BypassMode string `json:"bypass_mode"`
}

// RulesetLinks is a ruleset's _links.
type RulesetLinks struct {
	Self Href `json:"self"`
	HTML Href `json:"html"`
}

// Href is a link object.
type Href struct {
	Href string `json:"href"`
}

// RulesetConditions is repository-ruleset-conditions, and for an
// organization's ruleset org-ruleset-conditions' repository_name form.
type RulesetConditions struct {
	RefName        *RulesetNamePatterns `json:"ref_name,omitempty"`
	RepositoryName *RulesetRepoPatterns `json:"repository_name,omitempty"`
	// An enterprise ruleset's organization condition.
	OrganizationName *RulesetNamePatterns `json:"organization_name,omitempty"`
	OrganizationID   *RulesetOrgIDs       `json:"organization_id,omitempty"`
}

// RulesetOrgIDs is an enterprise ruleset's organization_id condition.
type RulesetOrgIDs struct {
	OrganizationIDs []int64 `json:"organization_ids"`
}

// RulesetNamePatterns are include and exclude patterns.
type RulesetNamePatterns struct {
	Include []string `json:"include"`
	Exclude []string `json:"exclude"`
}

// RulesetRepoPatterns are repository_name's patterns.
type RulesetRepoPatterns struct {
	Include   []string `json:"include"`
	Exclude   []string `json:"exclude"`
	Protected bool     `json:"protected"`
}

// RepositoryRule is repository-rule: a type and the parameters of the
// types that have them.
type RepositoryRule struct {
	Type       string `json:"type"`
	Parameters any    `json:"parameters,omitempty"`
}

// RepositoryRuleDetailed is repository-rule-detailed: a rule and the
// ruleset it comes from.
type RepositoryRuleDetailed struct {
	Type              string `json:"type"`
	Parameters        any    `json:"parameters,omitempty"`
	RulesetSourceType string `json:"ruleset_source_type"`
	RulesetSource     string `json:"ruleset_source"`
	RulesetID         int64  `json:"ruleset_id"`
}

// UpdateRuleParameters is the update rule's parameters.
type UpdateRuleParameters struct {
	UpdateAllowsFetchAndMerge bool `json:"update_allows_fetch_and_merge"`
}

// PullRequestRuleParameters is the pull_request rule's parameters.
type PullRequestRuleParameters struct {
	AllowedMergeMethods            []string `json:"allowed_merge_methods,omitempty"`
	DismissStaleReviewsOnPush      bool     `json:"dismiss_stale_reviews_on_push"`
	RequireCodeOwnerReview         bool     `json:"require_code_owner_review"`
	RequireLastPushApproval        bool     `json:"require_last_push_approval"`
	RequiredApprovingReviewCount   int      `json:"required_approving_review_count"`
	RequiredReviewThreadResolution bool     `json:"required_review_thread_resolution"`
}

// StatusCheckConfiguration is a required status check.
type StatusCheckConfiguration struct {
	Context       string `json:"context"`
	IntegrationID *int64 `json:"integration_id,omitempty"`
}

// StatusChecksRuleParameters is the required_status_checks rule's
// parameters.
type StatusChecksRuleParameters struct {
	DoNotEnforceOnCreate             bool                       `json:"do_not_enforce_on_create"`
	RequiredStatusChecks             []StatusCheckConfiguration `json:"required_status_checks"`
	StrictRequiredStatusChecksPolicy bool                       `json:"strict_required_status_checks_policy"`
}

// PatternRuleParameters is the parameters of the pattern rules.
type PatternRuleParameters struct {
	Name     string `json:"name,omitempty"`
	Negate   bool   `json:"negate"`
	Operator string `json:"operator"`
	Pattern  string `json:"pattern"`
}

// The push rules' parameters (repository-rule-file-path-restriction,
// -max-file-path-length, -file-extension-restriction, -max-file-size).
type (
	FilePathRestrictionParameters struct {
		RestrictedFilePaths []string `json:"restricted_file_paths"`
	}
	MaxFilePathLengthParameters struct {
		MaxFilePathLength int `json:"max_file_path_length"`
	}
	FileExtensionRestrictionParameters struct {
		RestrictedFileExtensions []string `json:"restricted_file_extensions"`
	}
	MaxFileSizeParameters struct {
		MaxFileSize int `json:"max_file_size"`
	}
)

// RulesetVersion is ruleset-version; State is set for one version
// (ruleset-version-with-state).
type RulesetVersion struct {
	VersionID int64               `json:"version_id"`
	Actor     RulesetVersionActor `json:"actor"`
	UpdatedAt string              `json:"updated_at"`
	State     *RepositoryRuleset  `json:"state,omitempty"`
}

// RulesetVersionActor is who made a version.
type RulesetVersionActor struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
}

// RulesetAPIURL is a ruleset's API URL at its source.
func (u URLs) RulesetAPIURL(r *model.Ruleset) string {
	id := strconv.FormatInt(r.ID, 10)
	switch r.SourceType {
	case model.RulesetSourceOrganization:
		return u.API + "/orgs/" + r.Source + "/rulesets/" + id
	case model.RulesetSourceEnterprise:
		return u.API + "/enterprises/" + u.EnterpriseSlug() + "/rulesets/" + id
	}
	return u.API + "/repos/" + r.Source + "/rulesets/" + id
}

// RulesetHTMLURL is a ruleset's settings page (GitHub's paths).
func (u URLs) RulesetHTMLURL(r *model.Ruleset) string {
	id := strconv.FormatInt(r.ID, 10)
	switch r.SourceType {
	case model.RulesetSourceOrganization:
		return u.Web + "/organizations/" + r.Source + "/settings/rules/" + id
	case model.RulesetSourceEnterprise:
		return u.Web + "/enterprises/" + u.EnterpriseSlug() + "/settings/policies/repositories/" + id
	}
	return u.Web + "/" + r.Source + "/rules/" + id
}

// ToRepositoryRuleset converts a ruleset: showBypass when the caller may
// change it (GitHub hides the bypass list from others), canBypass the
// caller's current_user_can_bypass ("" to leave it out).
func (u URLs) ToRepositoryRuleset(r *model.Ruleset, showBypass bool, canBypass string) RepositoryRuleset {
	out := RepositoryRuleset{ID: r.ID, Name: r.Name, Target: r.Target, SourceType: r.SourceType, Source: u.RulesetSource(r),
		Enforcement: r.Enforcement, CurrentUserCanBypass: canBypass, NodeID: NodeID("RRS", r.ID),
		Links:      RulesetLinks{Self: Href{u.RulesetAPIURL(r)}, HTML: Href{u.RulesetHTMLURL(r)}},
		Conditions: ToRulesetConditions(r.Conditions), Rules: make([]RepositoryRule, len(r.Rules)),
		CreatedAt: Time(r.CreatedAt), UpdatedAt: Time(r.UpdatedAt)}
	if showBypass {
		list := make([]RulesetBypassActor, len(r.Bypass))
		for i, b := range r.Bypass {
			list[i] = ToRulesetBypassActor(b)
		}
		out.BypassActors = &list
	}
	for i, rule := range r.Rules {
		out.Rules[i] = RepositoryRule{Type: rule.Type, Parameters: RuleParameters(rule)}
	}
	return out
}

// ToRulesetBypassActor converts a bypass actor.
func ToRulesetBypassActor(b model.BypassActor) RulesetBypassActor {
	out := RulesetBypassActor{ActorType: b.ActorType, BypassMode: b.Mode}
	if b.ActorID != 0 {
		id := b.ActorID
		out.ActorID = &id
	}
	return out
}

// ToRulesetConditions converts conditions (nil stays null).
func ToRulesetConditions(c *model.RulesetConditions) *RulesetConditions {
	if c == nil {
		return nil
	}
	out := &RulesetConditions{}
	if p := c.RefName; p != nil {
		out.RefName = &RulesetNamePatterns{Include: nonNilStrings(p.Include), Exclude: nonNilStrings(p.Exclude)}
	}
	if p := c.RepositoryName; p != nil {
		out.RepositoryName = &RulesetRepoPatterns{Include: nonNilStrings(p.Include), Exclude: nonNilStrings(p.Exclude),
			Protected: c.RepositoryProtected}
	}
	if p := c.OrganizationName; p != nil {
		out.OrganizationName = &RulesetNamePatterns{Include: nonNilStrings(p.Include), Exclude: nonNilStrings(p.Exclude)}
	}
	if c.OrganizationIDs != nil {
		out.OrganizationID = &RulesetOrgIDs{OrganizationIDs: c.OrganizationIDs}
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RuleParameters is a rule's parameters object, nil for the types that
// have none.
func RuleParameters(r model.RulesetRule) any {
	switch {
	case r.Type == model.RuleUpdate:
		return UpdateRuleParameters{UpdateAllowsFetchAndMerge: r.UpdateAllowsFetchAndMerge}
	case r.PullRequest != nil:
		p := r.PullRequest
		return PullRequestRuleParameters{AllowedMergeMethods: p.AllowedMergeMethods, DismissStaleReviewsOnPush: p.DismissStaleReviewsOnPush,
			RequireCodeOwnerReview: p.RequireCodeOwnerReview, RequireLastPushApproval: p.RequireLastPushApproval,
			RequiredApprovingReviewCount: p.RequiredApprovals, RequiredReviewThreadResolution: p.RequiredReviewThreadResolution}
	case r.StatusChecks != nil:
		s := r.StatusChecks
		checks := make([]StatusCheckConfiguration, len(s.Checks))
		for i, c := range s.Checks {
			checks[i] = StatusCheckConfiguration{Context: c.Context}
			if c.IntegrationID != 0 {
				id := c.IntegrationID
				checks[i].IntegrationID = &id
			}
		}
		return StatusChecksRuleParameters{DoNotEnforceOnCreate: s.DoNotEnforceOnCreate, RequiredStatusChecks: checks,
			StrictRequiredStatusChecksPolicy: s.Strict}
	case r.Pattern != nil:
		p := r.Pattern
		return PatternRuleParameters{Name: p.Name, Negate: p.Negate, Operator: p.Operator, Pattern: p.Pattern}
	case r.Type == model.RuleFilePathRestriction:
		return FilePathRestrictionParameters{RestrictedFilePaths: nonNilStrings(r.Restricted)}
	case r.Type == model.RuleFileExtensionRestriction:
		return FileExtensionRestrictionParameters{RestrictedFileExtensions: nonNilStrings(r.Restricted)}
	case r.Type == model.RuleMaxFilePathLength:
		return MaxFilePathLengthParameters{MaxFilePathLength: r.Max}
	case r.Type == model.RuleMaxFileSize:
		return MaxFileSizeParameters{MaxFileSize: r.Max}
	}
	return nil
}

// RulesetSource is a ruleset's source: "owner/name", the organization's
// login, or the enterprise's slug.
func (u URLs) RulesetSource(r *model.Ruleset) string {
	if r.SourceType == model.RulesetSourceEnterprise {
		return u.EnterpriseSlug()
	}
	return r.Source
}

// ToRuleDetailed converts a rule with the ruleset it comes from.
func (u URLs) ToRuleDetailed(rule model.RulesetRule, rs *model.Ruleset) RepositoryRuleDetailed {
	return RepositoryRuleDetailed{Type: rule.Type, Parameters: RuleParameters(rule), RulesetSourceType: rs.SourceType,
		RulesetSource: u.RulesetSource(rs), RulesetID: rs.ID}
}

// ToRulesetVersion converts a version; its state when it has one
// (showBypass as ToRepositoryRuleset).
func (u URLs) ToRulesetVersion(v *model.RulesetVersion, showBypass bool) RulesetVersion {
	out := RulesetVersion{VersionID: v.ID, Actor: RulesetVersionActor{ID: v.ActorID, Type: "User"}, UpdatedAt: Time(v.CreatedAt)}
	if v.State != nil {
		st := u.ToRepositoryRuleset(v.State, showBypass, "")
		out.State = &st
	}
	return out
}
