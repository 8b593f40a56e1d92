// Package actionspolicy keeps GitHub Actions' policies of the enterprise,
// its organizations and their repositories — whether Actions is enabled,
// which actions may run, the GITHUB_TOKEN's default permissions, artifact
// and log retention, fork pull request rules, self-hosted runner access,
// OIDC subject templates — and decides what a repository's runs get:
// the enterprise limits an organization, an organization its repositories,
// as on GitHub. The REST adapter is internal/api/actions (permissions.go,
// oidc.go); the runner reads the effective policy (Effective) through the
// actions service's hooks (hooks.go).
package actionspolicy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Scope kinds.
const (
	Enterprise = "enterprise"
	Org        = "org"
	Repo       = "repo"
)

// Target kinds of a scope's selected lists.
const (
	TargetEnabled    = "enabled"     // organizations (enterprise) or repositories (org) with Actions enabled
	TargetSelfHosted = "self_hosted" // repositories that may use the organization's self-hosted runners
)

// Values of the settings.
const (
	All       = "all"
	None      = "none"
	Selected  = "selected"
	LocalOnly = "local_only"

	// DefaultRetentionDays is GitHub's default retention of artifacts and
	// logs; MaxRetentionDays the most the enterprise may keep them.
	DefaultRetentionDays = 90
	MaxRetentionDays     = 400
)

// ForkApprovalPolicies are the approval_policy values, least strict first.
var ForkApprovalPolicies = []string{"first_time_contributors_new_to_github", "first_time_contributors", "all_external_contributors"}

// AccessLevels are a private repository's workflow access levels.
var AccessLevels = []string{"none", "user", "organization", "enterprise"}

// Scope is one level of the hierarchy: the enterprise (ID 0), an
// organization or a repository.
type Scope struct {
	Kind string
	ID   int64
}

// Settings are one scope's stored policy; zero values are GitHub's
// defaults (see the accessors).
type Settings struct {
	Enabled        *bool    `json:"enabled,omitempty"`   // repository
	Selection      string   `json:"selection,omitempty"` // enabled_organizations / enabled_repositories
	AllowedActions string   `json:"allowed_actions,omitempty"`
	SHAPinning     bool     `json:"sha_pinning_required,omitempty"`
	GitHubOwned    *bool    `json:"github_owned_allowed,omitempty"`
	Verified       bool     `json:"verified_allowed,omitempty"`
	Patterns       []string `json:"patterns_allowed,omitempty"`

	DefaultPermissions string `json:"default_workflow_permissions,omitempty"`
	CanApprove         *bool  `json:"can_approve_pull_request_reviews,omitempty"`
	RetentionDays      int    `json:"retention_days,omitempty"`
	ForkApproval       string `json:"fork_pr_approval,omitempty"`
	ForkPrivate        Fork   `json:"fork_pr_private"`
	SelfHosted         string `json:"self_hosted,omitempty"` // organization: all, selected, none
	DisableSelfHosted  bool   `json:"disable_self_hosted,omitempty"`
	AccessLevel        string `json:"access_level,omitempty"`

	OIDC OIDC `json:"oidc"`
}

// Fork is the fork pull request policy of private repositories.
type Fork struct {
	Run             bool `json:"run"`
	WriteTokens     bool `json:"write_tokens"`
	Secrets         bool `json:"secrets"`
	RequireApproval bool `json:"require_approval"`
}

// OIDC is a scope's OIDC token customization.
type OIDC struct {
	// The subject template: organizations keep IncludeClaimKeys (empty:
	// the default subject); a repository uses its organization's template
	// (or the default) when UseDefault, else its own keys.
	UseDefault       *bool    `json:"use_default,omitempty"`
	IncludeClaimKeys []string `json:"include_claim_keys,omitempty"`
	Immutable        bool     `json:"use_immutable_subject,omitempty"`
	// Custom property inclusions (organization and enterprise).
	Properties []string `json:"properties,omitempty"`
	// The enterprise's custom issuer policy.
	IncludeEnterpriseSlug bool `json:"include_enterprise_slug,omitempty"`
}

// IsEnabled is a repository's enabled (true by default).
func (s *Settings) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// EnabledSelection is enabled_organizations / enabled_repositories.
func (s *Settings) EnabledSelection() string { return or(s.Selection, All) }

// Allowed is allowed_actions.
func (s *Settings) Allowed() string { return or(s.AllowedActions, All) }

// GitHubOwnedAllowed is github_owned_allowed (true by default).
func (s *Settings) GitHubOwnedAllowed() bool { return s.GitHubOwned == nil || *s.GitHubOwned }

// WorkflowPermissions is default_workflow_permissions (read by default).
func (s *Settings) WorkflowPermissions() string { return or(s.DefaultPermissions, "read") }

// CanApprovePullRequests is can_approve_pull_request_reviews.
func (s *Settings) CanApprovePullRequests() bool { return s.CanApprove != nil && *s.CanApprove }

// RestrictsPermissions reports whether the level explicitly chose the
// restricted token ("read") or forbade approvals: a level that chose
// nothing restricts nothing below it.
func (s *Settings) RestrictsPermissions() (read, noApprove bool) {
	return s.DefaultPermissions == "read", s.CanApprove != nil && !*s.CanApprove
}

// Retention is the retention of artifacts and logs in days.
func (s *Settings) Retention() int {
	if s.RetentionDays == 0 {
		return DefaultRetentionDays
	}
	return s.RetentionDays
}

// ForkPRApproval is approval_policy.
func (s *Settings) ForkPRApproval() string { return or(s.ForkApproval, "first_time_contributors") }

// SelfHostedRepositories is the organization's enabled_repositories of
// self-hosted runners.
func (s *Settings) SelfHostedRepositories() string { return or(s.SelfHosted, All) }

// Access is a repository's access_level.
func (s *Settings) Access() string { return or(s.AccessLevel, "none") }

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Service reads and changes the policies.
type Service struct {
	Store *store.Store
}

func decode(doc []byte) (Settings, error) {
	var s Settings
	if len(doc) == 0 {
		return s, nil
	}
	err := json.Unmarshal(doc, &s)
	return s, err
}

// Get is a scope's settings.
func (s *Service) Get(ctx context.Context, sc Scope) (Settings, error) {
	doc, err := s.Store.R().ActionsPolicy(ctx, sc.Kind, sc.ID)
	if err != nil {
		return Settings{}, err
	}
	return decode(doc)
}

// Chain is the settings of a scope and of the scopes above it.
type Chain struct {
	Enterprise Settings
	Org        *Settings // nil: a user's repository (or the enterprise)
	Repo       *Settings
	// OrgEnabled: the enterprise lets the organization use Actions;
	// RepoEnabled: the organization lets the repository.
	OrgEnabled, RepoEnabled bool
}

// chain loads the settings above and at a scope (repoOrg: the
// repository's organization, 0 for a user's) in one query.
func (s *Service) chain(ctx context.Context, q store.Q, sc Scope, repoOrg int64) (Chain, error) {
	keys := map[string]int64{Enterprise: 0}
	org := int64(0)
	switch sc.Kind {
	case Org:
		org = sc.ID
	case Repo:
		org = repoOrg
		keys[Repo] = sc.ID
	}
	if org != 0 {
		keys[Org] = org
	}
	docs, err := q.ActionsPolicies(ctx, keys)
	if err != nil {
		return Chain{}, err
	}
	var c Chain
	if c.Enterprise, err = decode(docs[Enterprise]); err != nil {
		return c, err
	}
	c.OrgEnabled, c.RepoEnabled = true, true
	if org != 0 {
		o, err := decode(docs[Org])
		if err != nil {
			return c, err
		}
		c.Org = &o
		switch c.Enterprise.EnabledSelection() {
		case None:
			c.OrgEnabled = false
		case Selected:
			if c.OrgEnabled, err = q.ActionsPolicyHasTarget(ctx, Enterprise, 0, TargetEnabled, org); err != nil {
				return c, err
			}
		}
	}
	if sc.Kind == Repo {
		r, err := decode(docs[Repo])
		if err != nil {
			return c, err
		}
		c.Repo = &r
		if c.Org != nil {
			switch c.Org.EnabledSelection() {
			case None:
				c.RepoEnabled = false
			case Selected:
				if c.RepoEnabled, err = q.ActionsPolicyHasTarget(ctx, Org, org, TargetEnabled, sc.ID); err != nil {
					return c, err
				}
			}
		}
	}
	return c, nil
}

// Update changes a scope's settings in one transaction: change sees the
// current settings and those above (to refuse what they forbid), and the
// write appends an actions_policy event.
func (s *Service) Update(ctx context.Context, sc Scope, repoOrg, actorID int64, what string, change func(cur *Settings, c Chain) error) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		c, err := s.chain(ctx, tx, sc, repoOrg)
		if err != nil {
			return err
		}
		cur := c.Enterprise
		switch sc.Kind {
		case Org:
			cur = *c.Org
		case Repo:
			cur = *c.Repo
		}
		if err := change(&cur, c); err != nil {
			return err
		}
		doc, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		if err := tx.SetActionsPolicy(ctx, sc.Kind, sc.ID, doc); err != nil {
			return err
		}
		return s.event(ctx, tx, sc, repoOrg, actorID, what)
	})
}

func (s *Service) event(ctx context.Context, tx store.Q, sc Scope, repoOrg, actorID int64, what string) error {
	var repoID, orgID int64
	switch sc.Kind {
	case Repo:
		repoID, orgID = sc.ID, repoOrg
	case Org:
		orgID = sc.ID
	}
	return tx.AppendEvent(ctx, "actions_policy.updated", actorID, repoID, orgID, map[string]any{"scope": sc.Kind, "scope_id": sc.ID, "setting": what})
}

// Chain is the settings at a scope and above it (repoOrg: a repository's
// organization, 0 for a user's repository).
func (s *Service) Chain(ctx context.Context, sc Scope, repoOrg int64) (Chain, error) {
	return s.chain(ctx, s.Store.R(), sc, repoOrg)
}

// Targets is one page of a scope's selected ids of a kind.
func (s *Service) Targets(ctx context.Context, sc Scope, kind string, limit, offset int) ([]int64, int, error) {
	return s.Store.R().ActionsPolicyTargets(ctx, sc.Kind, sc.ID, kind, limit, offset)
}

// SetTargets replaces, adds (add) or removes (remove) selected ids of a
// kind; check refuses a change the scope's settings do not allow (a
// selection that is not "selected").
func (s *Service) SetTargets(ctx context.Context, sc Scope, actorID int64, kind string, ids []int64, op string, check func(cur Settings, c Chain) error) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		c, err := s.chain(ctx, tx, sc, 0)
		if err != nil {
			return err
		}
		cur := c.Enterprise
		if sc.Kind == Org {
			cur = *c.Org
		}
		if err := check(cur, c); err != nil {
			return err
		}
		switch op {
		case "add":
			for _, id := range ids {
				if err := tx.AddActionsPolicyTarget(ctx, sc.Kind, sc.ID, kind, id); err != nil {
					return err
				}
			}
		case "remove":
			for _, id := range ids {
				if err := tx.RemoveActionsPolicyTarget(ctx, sc.Kind, sc.ID, kind, id); err != nil {
					return err
				}
			}
		default:
			if err := tx.SetActionsPolicyTargets(ctx, sc.Kind, sc.ID, kind, ids); err != nil {
				return err
			}
		}
		return s.event(ctx, tx, sc, 0, actorID, kind+"_targets")
	})
}

// Effective is what a repository's runs get of the policies.
type Effective struct {
	Chain
	Enabled bool
	// DefaultPermissions is the GITHUB_TOKEN's level ("read", "write")
	// when a workflow has no permissions:.
	DefaultPermissions string
	CanApprove         bool
	RetentionDays      int
	ForkPRApproval     string
}

// levels are the settings of a repository's chain, highest first.
func (c *Chain) levels() []*Settings {
	out := []*Settings{&c.Enterprise}
	if c.Org != nil {
		out = append(out, c.Org)
	}
	if c.Repo != nil {
		out = append(out, c.Repo)
	}
	return out
}

// For is the effective policy of a repository.
func (s *Service) For(ctx context.Context, repo *model.Repo) (*Effective, error) {
	org := int64(0)
	if repo.Owner != nil && repo.Owner.IsOrg() {
		org = repo.Owner.ID
	}
	c, err := s.chain(ctx, s.Store.R(), Scope{Repo, repo.ID}, org)
	if err != nil {
		return nil, err
	}
	e := &Effective{Chain: c, Enabled: c.OrgEnabled && c.RepoEnabled && c.Repo.IsEnabled(),
		DefaultPermissions: "read", RetentionDays: MaxRetentionDays}
	// The lowest level's choice holds unless a level above restricts it.
	var perms string
	var approve *bool
	read, noApprove := false, false
	for _, l := range c.levels() {
		r, n := l.RestrictsPermissions()
		read, noApprove = read || r, noApprove || n
		if l.DefaultPermissions != "" {
			perms = l.DefaultPermissions
		}
		if l.CanApprove != nil {
			approve = l.CanApprove
		}
		if l.RetentionDays != 0 {
			e.RetentionDays = min(e.RetentionDays, l.RetentionDays)
		}
	}
	if c.Repo.RetentionDays == 0 {
		e.RetentionDays = min(e.RetentionDays, DefaultRetentionDays)
	}
	if perms == "write" && !read {
		e.DefaultPermissions = "write"
	}
	e.CanApprove = approve != nil && *approve && !noApprove
	e.ForkPRApproval = c.Repo.ForkPRApproval()
	return e, nil
}

// RetentionDays is how many days a repository keeps its artifacts and
// logs (for the artifacts of internal/actions).
func (s *Service) RetentionDays(ctx context.Context, repo *model.Repo) (int, error) {
	e, err := s.For(ctx, repo)
	if err != nil {
		return 0, err
	}
	return e.RetentionDays, nil
}

// ForkPRContributorApproval is a repository's approval_policy for fork
// pull requests' workflows (for the approvals of internal/actions).
func (s *Service) ForkPRContributorApproval(ctx context.Context, repo *model.Repo) (string, error) {
	e, err := s.For(ctx, repo)
	if err != nil {
		return "", err
	}
	return e.ForkPRApproval, nil
}

// SelfHostedAllowed reports whether a repository may use its
// organization's self-hosted runners (for the runners of internal/actions).
func (s *Service) SelfHostedAllowed(ctx context.Context, repo *model.Repo) (bool, error) {
	e, err := s.For(ctx, repo)
	if err != nil || e.Org == nil {
		return err == nil, err
	}
	if e.Enterprise.DisableSelfHosted {
		return false, nil
	}
	switch e.Org.SelfHostedRepositories() {
	case None:
		return false, nil
	case Selected:
		return s.Store.R().ActionsPolicyHasTarget(ctx, Org, repo.Owner.ID, TargetSelfHosted, repo.ID)
	}
	return true, nil
}

// restrictiveness orders allowed_actions: all < selected < local_only.
func restrictiveness(v string) int {
	return slices.Index([]string{All, Selected, LocalOnly}, v)
}

// CheckAllowed refuses allowed_actions more permissive than a level above.
func CheckAllowed(v string, above ...*Settings) error {
	for _, a := range above {
		if a != nil && restrictiveness(v) < restrictiveness(a.Allowed()) {
			return model.Conflict(fmt.Sprintf("allowed_actions cannot be %q: a higher level (organization or enterprise) allows only %q.", v, a.Allowed()))
		}
	}
	return nil
}
