package actions

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/actionspolicy"
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// The Actions permissions operations of repositories, organizations and
// the enterprise (GitHub's "GitHub Actions permissions"): thin handlers
// over internal/actionspolicy, one GET and one PUT per setting at each
// level, the path telling the level.

// target is the scope a request addresses, with the acting user.
type target struct {
	scope   actionspolicy.Scope
	repo    *model.Repo    // repository scope
	org     *model.Account // organization scope
	repoOrg int64          // a repository's organization (0: a user's)
	actor   int64
}

var (
	errNotOwner    = model.Forbidden("You must be an org owner to access this resource.")
	errIntegration = model.Forbidden("Resource not accessible by integration")
	errPAT         = model.Forbidden("Resource not accessible by personal access token")
)

// policyTarget resolves the path's enterprise, organization or repository
// and checks the caller may manage its Actions policies: the
// repository's admins, the organization's owners (classic tokens with
// admin:org; an installation on the organization), site administrators
// for the enterprise (classic tokens with admin:enterprise).
func (a *API) policyTarget(r *http.Request) (target, error) {
	c := rest.Caller(r)
	switch {
	case r.PathValue("enterprise") != "":
		if !c.Authenticated() {
			return target{}, rest.ErrRequiresAuth
		}
		if !strings.EqualFold(r.PathValue("enterprise"), a.d.URLs.EnterpriseSlug()) {
			return target{}, model.ErrNotFound
		}
		switch c.Kind {
		case authz.FineGrained:
			return target{}, errPAT
		case authz.Installation, authz.UserToServer:
			return target{}, errIntegration
		}
		if !c.SiteAdmin() {
			return target{}, api.ErrNotSiteAdmin
		}
		if err := api.RequireScope(c, "admin:enterprise"); err != nil {
			return target{}, err
		}
		return target{scope: actionspolicy.Scope{Kind: actionspolicy.Enterprise}, actor: c.UserID()}, nil
	case r.PathValue("org") != "":
		if !c.Authenticated() {
			return target{}, rest.ErrRequiresAuth
		}
		org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
		if err != nil {
			return target{}, err
		}
		t := target{scope: actionspolicy.Scope{Kind: actionspolicy.Org, ID: org.ID}, org: org, actor: c.UserID()}
		if c.Kind == authz.Installation {
			// The gate checked organization_administration.
			if c.InstallationTargetID != org.ID {
				return target{}, errIntegration
			}
			return t, nil
		}
		if err := api.RequireScope(c, "admin:org"); err != nil {
			return target{}, err
		}
		m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.UserID())
		if errors.Is(err, model.ErrNotFound) || (err == nil && (m.Role != model.RoleAdmin || m.State != "active")) {
			return target{}, errNotOwner
		}
		return t, err
	}
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return target{}, err
	}
	t := target{scope: actionspolicy.Scope{Kind: actionspolicy.Repo, ID: repo.ID}, repo: repo, actor: c.UserID()}
	if repo.Owner.IsOrg() {
		t.repoOrg = repo.Owner.ID
	}
	return t, nil
}

// base is the API URL of the target's permissions.
func (a *API) base(t target) string {
	switch t.scope.Kind {
	case actionspolicy.Enterprise:
		return a.d.URLs.API + "/enterprises/" + a.d.URLs.EnterpriseSlug() + "/actions/permissions"
	case actionspolicy.Org:
		return a.d.URLs.API + "/orgs/" + t.org.Login + "/actions/permissions"
	}
	return a.d.URLs.API + "/repos/" + t.repo.FullName() + "/actions/permissions"
}

// setting is one GET/PUT pair: show renders the scope's settings (c: the
// chain above and at it), apply changes them after the body was decoded
// into body (refusing what the levels above forbid).
type setting struct {
	name  string
	show  func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any
	body  func() any
	apply func(t target, body any, s *actionspolicy.Settings, c actionspolicy.Chain) error
	// created: the PUT answers 201 {} (the OIDC templates) instead of 204.
	created bool
}

// current is the target's own settings in its chain.
func current(t target, c actionspolicy.Chain) *actionspolicy.Settings {
	switch t.scope.Kind {
	case actionspolicy.Org:
		return c.Org
	case actionspolicy.Repo:
		return c.Repo
	}
	return &c.Enterprise
}

// above are the settings of the levels above the target.
func above(t target, c actionspolicy.Chain) []*actionspolicy.Settings {
	switch t.scope.Kind {
	case actionspolicy.Org:
		return []*actionspolicy.Settings{&c.Enterprise}
	case actionspolicy.Repo:
		return []*actionspolicy.Settings{&c.Enterprise, c.Org}
	}
	return nil
}

func (a *API) getSetting(st setting) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := a.policyTarget(r)
		if err != nil {
			return err
		}
		c, err := a.policy.Chain(r.Context(), t.scope, t.repoOrg)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, st.show(a, t, current(t, c), c))
	}
}

func (a *API) putSetting(st setting) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := a.policyTarget(r)
		if err != nil {
			return err
		}
		body := st.body()
		if err := rest.Decode(r, body); err != nil {
			return err
		}
		err = a.policy.Update(r.Context(), t.scope, t.repoOrg, t.actor, st.name, func(cur *actionspolicy.Settings, c actionspolicy.Chain) error {
			return st.apply(t, body, cur, c)
		})
		if err != nil {
			return err
		}
		if st.created {
			return rest.JSON(w, http.StatusCreated, struct{}{})
		}
		return rest.NoContent(w)
	}
}

func restricted(level string) error {
	return model.Conflict("This setting is restricted by the " + level + "'s policy.")
}

// levelName names the lowest level above t that restricts it.
func levelName(t target) string {
	if t.scope.Kind == actionspolicy.Repo && t.repoOrg != 0 {
		return "organization"
	}
	return "enterprise"
}

type permissionsBody struct {
	Enabled        *bool   `json:"enabled"`
	EnabledOrgs    *string `json:"enabled_organizations"`
	EnabledRepos   *string `json:"enabled_repositories"`
	AllowedActions *string `json:"allowed_actions"`
	SHAPinning     *bool   `json:"sha_pinning_required"`
}

// permissions: enabled (or enabled_organizations / enabled_repositories)
// and allowed_actions.
var permissionsSetting = setting{name: "permissions",
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		out := map[string]any{}
		on := true
		switch t.scope.Kind {
		case actionspolicy.Enterprise:
			out["enabled_organizations"] = s.EnabledSelection()
			on = s.EnabledSelection() != actionspolicy.None
			if s.EnabledSelection() == actionspolicy.Selected {
				out["selected_organizations_url"] = a.base(t) + "/organizations"
			}
		case actionspolicy.Org:
			out["enabled_repositories"] = s.EnabledSelection()
			on = s.EnabledSelection() != actionspolicy.None
			if s.EnabledSelection() == actionspolicy.Selected {
				out["selected_repositories_url"] = a.base(t) + "/repositories"
			}
		default:
			out["enabled"] = s.IsEnabled()
			on = s.IsEnabled()
		}
		if on {
			out["allowed_actions"] = s.Allowed()
			out["sha_pinning_required"] = s.SHAPinning
			if s.Allowed() == actionspolicy.Selected {
				out["selected_actions_url"] = a.base(t) + "/selected-actions"
			}
		}
		return out
	},
	body: func() any { return &permissionsBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*permissionsBody)
		on := true
		switch t.scope.Kind {
		case actionspolicy.Enterprise:
			if in.EnabledOrgs == nil {
				return model.Invalid("Actions", "enabled_organizations", "missing_field")
			}
			s.Selection, on = *in.EnabledOrgs, *in.EnabledOrgs != actionspolicy.None
		case actionspolicy.Org:
			if in.EnabledRepos == nil {
				return model.Invalid("Actions", "enabled_repositories", "missing_field")
			}
			if *in.EnabledRepos != actionspolicy.None && !c.OrgEnabled {
				return restricted("enterprise")
			}
			s.Selection, on = *in.EnabledRepos, *in.EnabledRepos != actionspolicy.None
		default:
			if in.Enabled == nil {
				return model.Invalid("Actions", "enabled", "missing_field")
			}
			if *in.Enabled && !(c.OrgEnabled && c.RepoEnabled) {
				return restricted(levelName(t))
			}
			s.Enabled, on = in.Enabled, *in.Enabled
		}
		if in.AllowedActions != nil && on {
			if err := actionspolicy.CheckAllowed(*in.AllowedActions, above(t, c)...); err != nil {
				return err
			}
			s.AllowedActions = *in.AllowedActions
		}
		if in.SHAPinning != nil {
			s.SHAPinning = *in.SHAPinning
		}
		return nil
	}}

type selectedActionsBody struct {
	GitHubOwned *bool     `json:"github_owned_allowed"`
	Verified    *bool     `json:"verified_allowed"`
	Patterns    *[]string `json:"patterns_allowed"`
}

var selectedActionsSetting = setting{name: "selected-actions",
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		p := s.Patterns
		if p == nil {
			p = []string{}
		}
		return map[string]any{"github_owned_allowed": s.GitHubOwnedAllowed(), "verified_allowed": s.Verified, "patterns_allowed": p}
	},
	body: func() any { return &selectedActionsBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*selectedActionsBody)
		if s.Allowed() != actionspolicy.Selected {
			return model.Conflict("To set the selected actions, allowed_actions must be \"selected\".")
		}
		if in.GitHubOwned != nil {
			s.GitHubOwned = in.GitHubOwned
		}
		if in.Verified != nil {
			s.Verified = *in.Verified
		}
		if in.Patterns != nil {
			for _, p := range *in.Patterns {
				if strings.TrimSpace(p) == "" || !strings.Contains(p, "/") && !strings.HasSuffix(p, "*") {
					return model.Custom("Actions", "patterns_allowed", fmt.Sprintf("%q is not a valid pattern (owner/repo, owner/*, owner/repo@ref).", p))
				}
			}
			s.Patterns = *in.Patterns
		}
		return nil
	}}

type workflowBody struct {
	Default    *string `json:"default_workflow_permissions"`
	CanApprove *bool   `json:"can_approve_pull_request_reviews"`
}

var workflowSetting = setting{name: "workflow",
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		return map[string]any{"default_workflow_permissions": s.WorkflowPermissions(), "can_approve_pull_request_reviews": s.CanApprovePullRequests()}
	},
	body: func() any { return &workflowBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*workflowBody)
		for _, up := range above(t, c) {
			if up == nil {
				continue
			}
			read, noApprove := up.RestrictsPermissions()
			if (in.Default != nil && *in.Default == "write" && read) || (in.CanApprove != nil && *in.CanApprove && noApprove) {
				return restricted(levelName(t))
			}
		}
		if in.Default != nil {
			s.DefaultPermissions = *in.Default
		}
		if in.CanApprove != nil {
			s.CanApprove = in.CanApprove
		}
		return nil
	}}

// maxRetention is the most days the levels above t allow.
func maxRetention(t target, c actionspolicy.Chain) int {
	m := actionspolicy.MaxRetentionDays
	for _, up := range above(t, c) {
		if up != nil && up.RetentionDays != 0 {
			m = min(m, up.RetentionDays) // a level that chose nothing limits nothing
		}
	}
	return m
}

type retentionBody struct {
	Days *int `json:"days"`
}

var retentionSetting = setting{name: "artifact-and-log-retention",
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		m := maxRetention(t, c)
		return map[string]any{"days": min(s.Retention(), m), "maximum_allowed_days": m}
	},
	body: func() any { return &retentionBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*retentionBody)
		if in.Days == nil {
			return model.Invalid("Actions", "days", "missing_field")
		}
		if m := maxRetention(t, c); *in.Days < 1 || *in.Days > m {
			return model.Custom("Actions", "days", fmt.Sprintf("days must be between 1 and %d.", m))
		}
		s.RetentionDays = *in.Days
		return nil
	}}

type forkApprovalBody struct {
	Policy *string `json:"approval_policy"`
}

var forkApprovalSetting = setting{name: "fork-pr-contributor-approval",
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		return map[string]any{"approval_policy": s.ForkPRApproval()}
	},
	body: func() any { return &forkApprovalBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*forkApprovalBody)
		if in.Policy == nil {
			return model.Invalid("Actions", "approval_policy", "missing_field")
		}
		s.ForkApproval = *in.Policy
		return nil
	}}

type forkPrivateBody struct {
	Run             *bool `json:"run_workflows_from_fork_pull_requests"`
	WriteTokens     *bool `json:"send_write_tokens_to_workflows"`
	Secrets         *bool `json:"send_secrets_and_variables"`
	RequireApproval *bool `json:"require_approval_for_fork_pr_workflows"`
}

var forkPrivateSetting = setting{name: "fork-pr-workflows-private-repos",
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		f := s.ForkPrivate
		return map[string]any{"run_workflows_from_fork_pull_requests": f.Run, "send_write_tokens_to_workflows": f.WriteTokens,
			"send_secrets_and_variables": f.Secrets, "require_approval_for_fork_pr_workflows": f.RequireApproval}
	},
	body: func() any { return &forkPrivateBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*forkPrivateBody)
		if in.Run == nil {
			return model.Invalid("Actions", "run_workflows_from_fork_pull_requests", "missing_field")
		}
		set := func(dst *bool, v *bool) {
			if v != nil {
				*dst = *v
			}
		}
		set(&s.ForkPrivate.Run, in.Run)
		set(&s.ForkPrivate.WriteTokens, in.WriteTokens)
		set(&s.ForkPrivate.Secrets, in.Secrets)
		set(&s.ForkPrivate.RequireApproval, in.RequireApproval)
		return nil
	}}

type selfHostedBody struct {
	EnabledRepos *string `json:"enabled_repositories"`
	DisableAll   *bool   `json:"disable_self_hosted_runners_for_all_orgs"`
}

var selfHostedSetting = setting{name: "self-hosted-runners",
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		if t.scope.Kind == actionspolicy.Enterprise {
			return map[string]any{"disable_self_hosted_runners_for_all_orgs": s.DisableSelfHosted}
		}
		out := map[string]any{"enabled_repositories": s.SelfHostedRepositories()}
		if s.SelfHostedRepositories() == actionspolicy.Selected {
			out["selected_repositories_url"] = a.base(t) + "/self-hosted-runners/repositories"
		}
		return out
	},
	body: func() any { return &selfHostedBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*selfHostedBody)
		if t.scope.Kind == actionspolicy.Enterprise {
			if in.DisableAll == nil {
				return model.Invalid("Actions", "disable_self_hosted_runners_for_all_orgs", "missing_field")
			}
			s.DisableSelfHosted = *in.DisableAll
			return nil
		}
		if in.EnabledRepos == nil {
			return model.Invalid("Actions", "enabled_repositories", "missing_field")
		}
		if *in.EnabledRepos != actionspolicy.None && c.Enterprise.DisableSelfHosted {
			return restricted("enterprise")
		}
		s.SelfHosted = *in.EnabledRepos
		return nil
	}}

type accessBody struct {
	Level *string `json:"access_level"`
}

var accessSetting = setting{name: "access",
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		return map[string]any{"access_level": s.Access()}
	},
	body: func() any { return &accessBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*accessBody)
		if in.Level == nil {
			return model.Invalid("Actions", "access_level", "missing_field")
		}
		if t.repo.Visibility == model.Public {
			return model.Unprocessable("Access policy only applies to internal and private repositories.")
		}
		if *in.Level == "organization" && t.repoOrg == 0 {
			return model.Custom("Actions", "access_level", "A repository owned by a user cannot be shared with an organization.")
		}
		s.AccessLevel = *in.Level
		return nil
	}}

// --- the selected lists ---

// list is a selected list: the enterprise's organizations with Actions,
// an organization's repositories with Actions or with self-hosted runners.
type list struct {
	kind string
	// selection is the setting that must be "selected" to change the list.
	selection func(s actionspolicy.Settings) string
}

var (
	enabledList    = list{actionspolicy.TargetEnabled, func(s actionspolicy.Settings) string { return s.EnabledSelection() }}
	selfHostedList = list{actionspolicy.TargetSelfHosted, func(s actionspolicy.Settings) string { return s.SelfHostedRepositories() }}
)

func (a *API) listTargets(l list) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := a.policyTarget(r)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		ids, total, err := a.policy.Targets(r.Context(), t.scope, l.kind, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		if t.scope.Kind == actionspolicy.Enterprise {
			accounts, err := a.d.Store.R().AccountsByID(r.Context(), ids)
			if err != nil {
				return err
			}
			out := make([]wire.OrganizationSimple, 0, len(ids))
			for _, id := range ids {
				if o := accounts[id]; o != nil {
					out = append(out, a.d.URLs.ToOrgSimple(o))
				}
			}
			return rest.JSON(w, http.StatusOK, map[string]any{"total_count": total, "organizations": out})
		}
		views, err := a.d.Store.R().ReposByID(r.Context(), ids, rest.Caller(r).UserID())
		if err != nil {
			return err
		}
		list := make([]*store.RepoView, 0, len(ids))
		for _, id := range ids {
			if v := views[id]; v != nil {
				list = append(list, v)
			}
		}
		repos, err := repos.RepositoryList(r.Context(), a.d, rest.Caller(r), list)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, map[string]any{"total_count": total, "repositories": repos})
	}
}

// targetIDs checks ids are the target's: organizations of hubd (the
// enterprise) or repositories of the organization.
func (a *API) targetIDs(r *http.Request, t target, ids []int64) error {
	if t.scope.Kind == actionspolicy.Enterprise {
		found, err := a.d.Store.R().AccountsByID(r.Context(), ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if o := found[id]; o == nil || !o.IsOrg() {
				return model.Custom("Actions", "selected_organization_ids", fmt.Sprintf("%d is not an organization of the enterprise.", id))
			}
		}
		return nil
	}
	owners, err := a.d.Store.R().RepoOwners(r.Context(), ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if owners[id] != t.org.ID {
			return model.Custom("Actions", "selected_repository_ids", fmt.Sprintf("%d is not a repository of the organization.", id))
		}
	}
	return nil
}

func (a *API) changeTargets(l list, t target, r *http.Request, ids []int64, op string) error {
	return a.policy.SetTargets(r.Context(), t.scope, t.actor, l.kind, ids, op, func(cur actionspolicy.Settings, _ actionspolicy.Chain) error {
		if l.selection(cur) != actionspolicy.Selected {
			return model.Conflict("The policy must be set to \"selected\" to choose its organizations or repositories.")
		}
		return nil
	})
}

func (a *API) setTargets(l list) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := a.policyTarget(r)
		if err != nil {
			return err
		}
		var body struct {
			Repos []int64 `json:"selected_repository_ids"`
			Orgs  []int64 `json:"selected_organization_ids"`
		}
		if err := rest.Decode(r, &body); err != nil {
			return err
		}
		ids := body.Repos
		if t.scope.Kind == actionspolicy.Enterprise {
			ids = body.Orgs
		}
		if err := a.targetIDs(r, t, ids); err != nil {
			return err
		}
		if err := a.changeTargets(l, t, r, ids, "set"); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

func (a *API) oneTarget(l list, op string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := a.policyTarget(r)
		if err != nil {
			return err
		}
		name := "repository_id"
		if t.scope.Kind == actionspolicy.Enterprise {
			name = "org_id"
		}
		id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
		if err != nil || id <= 0 {
			return model.ErrNotFound
		}
		if err := a.targetIDs(r, t, []int64{id}); err != nil {
			return model.ErrNotFound
		}
		if err := a.changeTargets(l, t, r, []int64{id}, op); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}
