package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rulesets"
)

// The branch ruleset editor of /settings/rules: a new ruleset, or one of
// the repository's own edited, through the rulesets service that REST's
// create and update use (so every rule and field is checked there).

// simpleRules are the rules without parameters the editor offers.
var simpleRules = []struct{ Type, Label string }{
	{"creation", "Restrict creations"},
	{"update", "Restrict updates"},
	{"deletion", "Restrict deletions"},
	{"required_linear_history", "Require linear history"},
	{"required_signatures", "Require signed commits"},
	{"non_fast_forward", "Block force pushes"},
}

// bypassRoles are the repository roles a ruleset's bypass list may name
// (GitHub's ids).
var bypassRoles = []struct {
	ID    int64
	Label string
}{{5, "Repository admin"}, {2, "Maintain"}, {4, "Write"}}

// rulesetForm is the editor's state: a ruleset's fields as the form
// shows them.
type rulesetForm struct {
	Name, Enforcement, Include, Exclude string
	Has                                 map[string]bool
	Approvals                           int
	DismissStale, CodeOwners            bool
	Checks                              string
	Strict                              bool
	Bypass                              map[int64]bool
	Rules                               any
	Roles                               any
}

// newRulesetForm fills the editor from a ruleset (nil: a new one, which
// targets the default branch and blocks deletions and force pushes).
func newRulesetForm(r *model.Ruleset) *rulesetForm {
	f := &rulesetForm{Enforcement: "active", Has: map[string]bool{}, Bypass: map[int64]bool{}, Rules: simpleRules, Roles: bypassRoles}
	if r == nil {
		f.Include, f.Has["deletion"], f.Has["non_fast_forward"] = "~DEFAULT_BRANCH", true, true
		return f
	}
	f.Name, f.Enforcement = r.Name, r.Enforcement
	if r.Conditions != nil && r.Conditions.RefName != nil {
		f.Include, f.Exclude = strings.Join(r.Conditions.RefName.Include, ", "), strings.Join(r.Conditions.RefName.Exclude, ", ")
	}
	for _, rule := range r.Rules {
		f.Has[rule.Type] = true
		if p := rule.PullRequest; p != nil {
			f.Approvals, f.DismissStale, f.CodeOwners = p.RequiredApprovals, p.DismissStaleReviewsOnPush, p.RequireCodeOwnerReview
		}
		if c := rule.StatusChecks; c != nil {
			var names []string
			for _, k := range c.Checks {
				names = append(names, k.Context)
			}
			f.Checks, f.Strict = strings.Join(names, ", "), c.Strict
		}
	}
	for _, b := range r.Bypass {
		if b.ActorType == model.BypassRepositoryRole {
			f.Bypass[b.ActorID] = true
		}
	}
	return f
}

// list splits a field of comma or space separated names.
func list(s string) []string {
	out := []string{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' }) {
		out = append(out, f)
	}
	return out
}

// rulesetInput reads the editor's form as the service's input: every
// field given, so an edit replaces what it shows. Bypass actors the
// editor does not show (teams, apps, users set through the API) are kept.
func rulesetInput(f url.Values, old *model.Ruleset) rulesets.Input {
	name, enf, target := strings.TrimSpace(f.Get("name")), f.Get("enforcement"), model.RulesetTargetBranch
	rules := []model.RulesetRule{}
	for _, r := range simpleRules {
		if f.Get("rule_"+r.Type) != "" {
			rules = append(rules, model.RulesetRule{Type: r.Type})
		}
	}
	if f.Get("rule_pull_request") != "" {
		n, _ := strconv.Atoi(f.Get("required_approvals"))
		rules = append(rules, model.RulesetRule{Type: "pull_request", PullRequest: &model.PullRequestRule{RequiredApprovals: n,
			DismissStaleReviewsOnPush: f.Get("dismiss_stale") != "", RequireCodeOwnerReview: f.Get("code_owners") != ""}})
	}
	if f.Get("rule_required_status_checks") != "" {
		c := &model.StatusChecksRule{Strict: f.Get("strict") != "", Checks: []model.RequiredCheck{}}
		for _, n := range list(f.Get("checks")) {
			c.Checks = append(c.Checks, model.RequiredCheck{Context: n})
		}
		rules = append(rules, model.RulesetRule{Type: "required_status_checks", StatusChecks: c})
	}
	bypass := []model.BypassActor{}
	if old != nil {
		for _, b := range old.Bypass {
			if b.ActorType != model.BypassRepositoryRole {
				bypass = append(bypass, b)
			}
		}
	}
	for _, role := range bypassRoles {
		if f.Get("bypass_"+strconv.FormatInt(role.ID, 10)) != "" {
			bypass = append(bypass, model.BypassActor{ActorID: role.ID, ActorType: model.BypassRepositoryRole, Mode: model.BypassAlways})
		}
	}
	cond := &model.RulesetConditions{RefName: &model.NamePatterns{Include: list(f.Get("include")), Exclude: list(f.Get("exclude"))}}
	return rulesets.Input{Name: &name, Target: &target, Enforcement: &enf, Bypass: &bypass, HasConditions: true, Conditions: cond, Rules: &rules}
}
