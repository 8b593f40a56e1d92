package rulesets

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/rulesets"
)

// rulesetBody is the body of the create and update operations (the
// server checked it against the operation's schema before).
type rulesetBody struct {
	Name         *string                   `json:"name"`
	Target       *string                   `json:"target"`
	Enforcement  *string                   `json:"enforcement"`
	BypassActors *[]bypassBody             `json:"bypass_actors"`
	Conditions   rest.Opt[*conditionsBody] `json:"conditions"`
	Rules        *[]ruleBody               `json:"rules"`
}

type bypassBody struct {
	ActorID    *int64 `json:"actor_id"`
	ActorType  string `json:"actor_type"`
	BypassMode string `json:"bypass_mode"`
}

type patternsBody struct {
	Include   []string `json:"include"`
	Exclude   []string `json:"exclude"`
	Protected *bool    `json:"protected"`
}

type conditionsBody struct {
	RefName            *patternsBody   `json:"ref_name"`
	RepositoryName     *patternsBody   `json:"repository_name"`
	RepositoryID       json.RawMessage `json:"repository_id"`
	RepositoryProperty json.RawMessage `json:"repository_property"`
	// An enterprise ruleset's organization condition.
	OrganizationName     *patternsBody   `json:"organization_name"`
	OrganizationID       *orgIDsBody     `json:"organization_id"`
	OrganizationProperty json.RawMessage `json:"organization_property"`
}

type orgIDsBody struct {
	OrganizationIDs []int64 `json:"organization_ids"`
}

type ruleBody struct {
	Type       string          `json:"type"`
	Parameters json.RawMessage `json:"parameters"`
}

type pullRequestParams struct {
	RequiredApprovals    int             `json:"required_approving_review_count"`
	DismissStale         bool            `json:"dismiss_stale_reviews_on_push"`
	CodeOwner            bool            `json:"require_code_owner_review"`
	LastPush             bool            `json:"require_last_push_approval"`
	ThreadResolution     bool            `json:"required_review_thread_resolution"`
	AllowedMergeMethods  []string        `json:"allowed_merge_methods"`
	RequiredReviewers    json.RawMessage `json:"required_reviewers"`
	DismissalRestriction json.RawMessage `json:"dismissal_restriction"`
}

type statusChecksParams struct {
	Checks []struct {
		Context       string `json:"context"`
		IntegrationID *int64 `json:"integration_id"`
	} `json:"required_status_checks"`
	Strict               bool `json:"strict_required_status_checks_policy"`
	DoNotEnforceOnCreate bool `json:"do_not_enforce_on_create"`
}

type patternParams struct {
	Name     string `json:"name"`
	Negate   bool   `json:"negate"`
	Operator string `json:"operator"`
	Pattern  string `json:"pattern"`
}

func unsupported(field string) error {
	return model.Custom("Ruleset", field, field+" is not supported: hubd does not enforce it")
}

// given reports whether a raw JSON value is there and says something
// (not null, not an empty list or object).
func given(raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "", "null", "[]", "{}", "false":
		return false
	}
	return true
}

// input converts the body to the service's input.
func (b *rulesetBody) input() (svc.Input, error) {
	in := svc.Input{Name: b.Name, Target: b.Target, Enforcement: b.Enforcement}
	if b.BypassActors != nil {
		list := make([]model.BypassActor, len(*b.BypassActors))
		for i, x := range *b.BypassActors {
			list[i] = model.BypassActor{ActorType: x.ActorType, Mode: x.BypassMode}
			if x.ActorID != nil {
				list[i].ActorID = *x.ActorID
			}
		}
		in.Bypass = &list
	}
	if b.Conditions.Set {
		in.HasConditions = true
		if c := b.Conditions.Value; c != nil && !b.Conditions.Null {
			if given(c.RepositoryID) {
				return in, unsupported("conditions.repository_id")
			}
			if given(c.RepositoryProperty) {
				return in, model.Custom("Ruleset", "conditions.repository_property",
					"conditions.repository_property is not supported: hubd keeps no custom repository properties")
			}
			if given(c.OrganizationProperty) {
				return in, model.Custom("Ruleset", "conditions.organization_property",
					"conditions.organization_property is not supported: hubd keeps no custom organization properties")
			}
			mc := &model.RulesetConditions{}
			if p := c.OrganizationName; p != nil {
				mc.OrganizationName = &model.NamePatterns{Include: p.Include, Exclude: p.Exclude}
			}
			if p := c.OrganizationID; p != nil {
				mc.OrganizationIDs = p.OrganizationIDs
				if mc.OrganizationIDs == nil {
					mc.OrganizationIDs = []int64{}
				}
			}
			if p := c.RefName; p != nil {
				mc.RefName = &model.NamePatterns{Include: p.Include, Exclude: p.Exclude}
			}
			if p := c.RepositoryName; p != nil {
				mc.RepositoryName = &model.NamePatterns{Include: p.Include, Exclude: p.Exclude}
				mc.RepositoryProtected = p.Protected != nil && *p.Protected
			}
			in.Conditions = mc
		}
	}
	if b.Rules != nil {
		list := make([]model.RulesetRule, len(*b.Rules))
		for i, x := range *b.Rules {
			rule, err := x.rule()
			if err != nil {
				return in, err
			}
			list[i] = rule
		}
		in.Rules = &list
	}
	return in, nil
}

func (x ruleBody) rule() (model.RulesetRule, error) {
	r := model.RulesetRule{Type: x.Type}
	params := x.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	bad := model.Invalid("Ruleset", "rules."+x.Type+".parameters", "invalid")
	switch x.Type {
	case model.RuleUpdate:
		var p struct {
			UpdateAllowsFetchAndMerge bool `json:"update_allows_fetch_and_merge"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return r, bad
		}
		r.UpdateAllowsFetchAndMerge = p.UpdateAllowsFetchAndMerge
	case model.RulePullRequest:
		var p pullRequestParams
		if err := json.Unmarshal(params, &p); err != nil {
			return r, bad
		}
		if given(p.RequiredReviewers) {
			return r, unsupported("rules.pull_request.required_reviewers")
		}
		if given(p.DismissalRestriction) {
			return r, unsupported("rules.pull_request.dismissal_restriction")
		}
		r.PullRequest = &model.PullRequestRule{RequiredApprovals: p.RequiredApprovals, DismissStaleReviewsOnPush: p.DismissStale,
			RequireCodeOwnerReview: p.CodeOwner, RequireLastPushApproval: p.LastPush, RequiredReviewThreadResolution: p.ThreadResolution,
			AllowedMergeMethods: p.AllowedMergeMethods}
	case model.RuleRequiredStatusChecks:
		var p statusChecksParams
		if err := json.Unmarshal(params, &p); err != nil {
			return r, bad
		}
		r.StatusChecks = &model.StatusChecksRule{Strict: p.Strict, DoNotEnforceOnCreate: p.DoNotEnforceOnCreate,
			Checks: make([]model.RequiredCheck, len(p.Checks))}
		for i, c := range p.Checks {
			r.StatusChecks.Checks[i] = model.RequiredCheck{Context: c.Context}
			if c.IntegrationID != nil {
				r.StatusChecks.Checks[i].IntegrationID = *c.IntegrationID
			}
		}
	case model.RuleCommitMessagePattern, model.RuleCommitAuthorEmailPattern, model.RuleCommitterEmailPattern,
		model.RuleBranchNamePattern, model.RuleTagNamePattern:
		if len(x.Parameters) == 0 || string(x.Parameters) == "null" {
			break // the service asks for them
		}
		var p patternParams
		if err := json.Unmarshal(params, &p); err != nil {
			return r, bad
		}
		r.Pattern = &model.PatternRule{Name: p.Name, Negate: p.Negate, Operator: p.Operator, Pattern: p.Pattern}
	case model.RuleFilePathRestriction, model.RuleFileExtensionRestriction, model.RuleMaxFilePathLength, model.RuleMaxFileSize:
		// A missing parameter stays nil or 0: the service names it.
		var p struct {
			Paths      []string `json:"restricted_file_paths"`
			Extensions []string `json:"restricted_file_extensions"`
			PathLength int      `json:"max_file_path_length"`
			Size       int      `json:"max_file_size"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return r, bad
		}
		switch x.Type {
		case model.RuleFilePathRestriction:
			r.Restricted = p.Paths
		case model.RuleFileExtensionRestriction:
			r.Restricted = p.Extensions
		case model.RuleMaxFilePathLength:
			r.Max = p.PathLength
		default:
			r.Max = p.Size
		}
	}
	return r, nil
}

// decode reads a create or update body.
func decode(r *http.Request) (svc.Input, error) {
	var b rulesetBody
	if err := rest.Decode(r, &b); err != nil {
		return svc.Input{}, err
	}
	return b.input()
}

// targets reads the targets parameter ("branch,tag"): nil for all.
func targets(r *http.Request) []string {
	var out []string
	for _, t := range strings.Split(r.URL.Query().Get("targets"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// includesParents reads includes_parents (true unless "false").
func includesParents(r *http.Request) bool {
	return r.URL.Query().Get("includes_parents") != "false"
}
