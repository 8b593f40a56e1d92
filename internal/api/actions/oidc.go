package actions

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/actionspolicy"
	appsvc "github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// The OIDC operations (subject templates, custom property inclusions, the
// enterprise's issuer policy), hubd's issuer endpoints under
// /_services/token (discovery, JWKS, the jobs' token endpoint), and the
// wiring of the policies into runs.

// claimKeys are the claims a subject template may include.
var claimKeys = []string{"repo", "context", "ref", "sha", "repository", "repository_id", "repository_owner", "repository_owner_id",
	"repository_visibility", "run_id", "run_number", "run_attempt", "actor", "actor_id", "workflow", "workflow_ref", "workflow_sha",
	"head_ref", "base_ref", "event_name", "ref_type", "ref_protected", "environment", "job_workflow_ref", "job_workflow_sha",
	"runner_environment", "enterprise"}

// checkClaimKeys answers GitHub's simple validation error for a key that
// is no claim.
func checkClaimKeys(keys []string) error {
	for _, k := range keys {
		if !slices.Contains(claimKeys, k) {
			return &model.HTTPError{Status: http.StatusUnprocessableEntity, Message: "Validation Failed",
				Reasons: []string{fmt.Sprintf("Invalid claim key: %s", k)}}
		}
	}
	return nil
}

type subBody struct {
	UseDefault *bool     `json:"use_default"`
	Keys       *[]string `json:"include_claim_keys"`
	Immutable  *bool     `json:"use_immutable_subject"`
}

var subSetting = setting{name: "oidc-sub", created: true,
	show: func(a *API, t target, s *actionspolicy.Settings, c actionspolicy.Chain) any {
		keys := s.OIDC.IncludeClaimKeys
		if keys == nil {
			keys = []string{}
		}
		if t.scope.Kind == actionspolicy.Org {
			return map[string]any{"include_claim_keys": keys, "use_immutable_subject": s.OIDC.Immutable}
		}
		useDefault := s.OIDC.UseDefault == nil || *s.OIDC.UseDefault
		out := map[string]any{"use_default": useDefault, "use_immutable_subject": s.OIDC.Immutable}
		if !useDefault {
			out["include_claim_keys"] = keys
		}
		return out
	},
	body: func() any { return &subBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		in := b.(*subBody)
		if t.scope.Kind == actionspolicy.Repo {
			if in.UseDefault == nil {
				return &model.HTTPError{Status: http.StatusUnprocessableEntity, Message: "Validation Failed", Reasons: []string{"use_default is required"}}
			}
			s.OIDC.UseDefault = in.UseDefault
			if !*in.UseDefault && (in.Keys == nil || len(*in.Keys) == 0) {
				return &model.HTTPError{Status: http.StatusUnprocessableEntity, Message: "Validation Failed",
					Reasons: []string{"include_claim_keys is required when use_default is false"}}
			}
		}
		if in.Keys != nil {
			if err := checkClaimKeys(*in.Keys); err != nil {
				return err
			}
			s.OIDC.IncludeClaimKeys = *in.Keys
		}
		if in.Immutable != nil {
			s.OIDC.Immutable = *in.Immutable
		}
		return nil
	}}

type issuerBody struct {
	IncludeSlug *bool `json:"include_enterprise_slug"`
}

var issuerSetting = setting{name: "oidc-issuer",
	body: func() any { return &issuerBody{} },
	apply: func(t target, b any, s *actionspolicy.Settings, c actionspolicy.Chain) error {
		if in := b.(*issuerBody); in.IncludeSlug != nil {
			s.OIDC.IncludeEnterpriseSlug = *in.IncludeSlug
		}
		return nil
	}}

// inclusionSource names a scope as inclusion_source does.
func inclusionSource(kind string) string {
	if kind == actionspolicy.Enterprise {
		return "enterprise"
	}
	return "organization"
}

var propertyName = regexp.MustCompile(`^[A-Za-z0-9_.$#-]{1,75}$`)

// GET .../actions/oidc/customization/properties/repo: the inclusions of
// the scope (an organization's include its enterprise's).
func (a *API) listInclusions(w http.ResponseWriter, r *http.Request) error {
	t, err := a.policyTarget(r)
	if err != nil {
		return err
	}
	c, err := a.policy.Chain(r.Context(), t.scope, 0)
	if err != nil {
		return err
	}
	out := []map[string]string{}
	for _, s := range []*actionspolicy.Settings{&c.Enterprise, c.Org} {
		if s == nil {
			continue
		}
		src := "enterprise"
		if s == c.Org {
			src = "organization"
		}
		for _, p := range s.OIDC.Properties {
			out = append(out, map[string]string{"custom_property_name": p, "inclusion_source": src})
		}
	}
	return rest.JSON(w, http.StatusOK, out)
}

// POST .../actions/oidc/customization/properties/repo
func (a *API) addInclusion(w http.ResponseWriter, r *http.Request) error {
	t, err := a.policyTarget(r)
	if err != nil {
		return err
	}
	var body struct {
		Name string `json:"custom_property_name"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	if !propertyName.MatchString(body.Name) {
		return model.BadRequest("Invalid custom property name.")
	}
	err = a.policy.Update(r.Context(), t.scope, 0, t.actor, "oidc-properties", func(s *actionspolicy.Settings, _ actionspolicy.Chain) error {
		if slices.Contains(s.OIDC.Properties, body.Name) {
			return model.Unprocessable("Property inclusion already exists")
		}
		s.OIDC.Properties = append(s.OIDC.Properties, body.Name)
		return nil
	})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, map[string]string{"custom_property_name": body.Name, "inclusion_source": inclusionSource(t.scope.Kind)})
}

// DELETE .../actions/oidc/customization/properties/repo/{custom_property_name}
func (a *API) removeInclusion(w http.ResponseWriter, r *http.Request) error {
	t, err := a.policyTarget(r)
	if err != nil {
		return err
	}
	name := r.PathValue("custom_property_name")
	err = a.policy.Update(r.Context(), t.scope, 0, t.actor, "oidc-properties", func(s *actionspolicy.Settings, _ actionspolicy.Chain) error {
		i := slices.Index(s.OIDC.Properties, name)
		if i < 0 {
			return model.ErrNotFound
		}
		s.OIDC.Properties = slices.Delete(s.OIDC.Properties, i, i+1)
		return nil
	})
	if err != nil {
		return err
	}
	return rest.NoContent(w)
}

// issuerBase is the issuer of hubd's job tokens.
func (a *API) issuerBase() string { return a.d.URLs.Web + "/_services/token" }

// GET /_services/token/.well-known/openid-configuration (and under the
// enterprise's slug, the custom issuer)
func (a *API) oidcConfiguration(w http.ResponseWriter, r *http.Request) error {
	iss := a.issuerBase()
	if slug := r.PathValue("enterprise"); slug != "" {
		if slug != a.d.URLs.EnterpriseSlug() {
			return model.ErrNotFound
		}
		iss += "/" + slug
	}
	return rest.JSON(w, http.StatusOK, actionspolicy.Configuration(iss))
}

// GET /_services/token/.well-known/jwks
func (a *API) oidcJWKS(w http.ResponseWriter, r *http.Request) error {
	if slug := r.PathValue("enterprise"); slug != "" && slug != a.d.URLs.EnterpriseSlug() {
		return model.ErrNotFound
	}
	set, err := a.issuer.JWKS(r.Context())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, set)
}

// GET /_services/token/idtoken?audience=...: a running job's OIDC token.
// The request token is the job's GITHUB_TOKEN, which identifies the job
// and dies with it; the job's workflow must grant id-token: write.
func (a *API) oidcToken(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return rest.ErrRequiresAuth
	}
	ctx := r.Context()
	q := a.d.Store.R()
	repoID, jobID, err := q.JobByTokenID(ctx, c.TokenID)
	if err != nil || c.Kind != authz.Installation {
		return model.Forbidden("The token is not a running job's.")
	}
	v, err := q.RepoByID(ctx, repoID, 0)
	if err != nil {
		return err
	}
	j, err := q.Job(ctx, repoID, jobID)
	if err != nil {
		return err
	}
	run, err := q.Run(ctx, repoID, j.RunID)
	if err != nil {
		return err
	}
	if !actions.IDTokenWritable(run.WorkflowPath, run.Source, j.Key) {
		return model.Forbidden("The job's permissions do not include id-token: write.")
	}
	t := actionspolicy.JobToken{Repo: v.Repo, Run: run, Job: j, Audience: r.URL.Query().Get("audience"), Web: a.d.URLs.Web}
	t.Environment, _ = actions.JobEnvironment(run.Source, j.Key)
	if actor, err := q.AccountByID(ctx, run.TriggeringActorID); err == nil {
		t.Actor = actor
	}
	tok, err := a.policy.Token(ctx, a.issuer, t)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, map[string]string{"value": tok})
}

// wirePolicy hooks the policies into runs: Actions disabled starts no
// run, the default workflow permissions make the GITHUB_TOKEN of a
// workflow without permissions:, a job's uses: must be allowed, and a job
// allowed id-token: write gets the OIDC request variables.
func (a *API) wirePolicy() {
	a.policy = &actionspolicy.Service{Store: a.d.Store}
	a.issuer = &actionspolicy.Issuer{Store: a.d.Store, URL: a.issuerBase(), Enterprise: a.d.URLs.EnterpriseSlug()}
	a.svc.Enabled = func(ctx context.Context, repo *model.Repo) (bool, error) {
		e, err := a.policy.For(ctx, repo)
		return err == nil && e.Enabled, err
	}
	a.svc.Exec.DefaultPermissions = func(ctx context.Context, repo *model.Repo) (string, error) {
		e, err := a.policy.For(ctx, repo)
		if err != nil {
			return "", err
		}
		return e.DefaultPermissions, nil
	}
	// can_approve_pull_request_reviews: the GitHub Actions bot may create
	// and approve pull requests only where the policy allows it.
	d := a.d
	d.Guards = append(d.Guards, func(ctx context.Context, repo *model.Repo, userID int64, kind string) error {
		if kind != "pull" && kind != "draft_pull" {
			return nil
		}
		return a.mayActionsApprove(ctx, repo, userID)
	})
	d.MayApprove = a.mayActionsApprove
	// The policies other parts of Actions read: fork pull requests'
	// approval (triggers.go) and artifacts' retention (artifacts.go).
	a.svc.ApprovalPolicy = func(ctx context.Context, repo *model.Repo) string {
		if p, err := a.policy.ForkPRContributorApproval(ctx, repo); err == nil && p != "" {
			return p
		}
		return actions.ApprovalPolicy
	}
	if a.storage != nil {
		a.storage.Retention = a.policy.RetentionDays
	}
	a.svc.Exec.SpecHooks = append(a.svc.Exec.SpecHooks, func(ctx context.Context, jc actions.JobContext, spec *actions.Spec) error {
		e, err := a.policy.For(ctx, jc.Repo)
		if err != nil {
			return err
		}
		uses, err := actions.JobUses(jc.Run.WorkflowPath, jc.Run.Source, jc.Job.Key)
		if err != nil {
			return err
		}
		hubdOwner := func(login string) bool {
			_, err := a.d.Store.R().AccountByLogin(ctx, login)
			return err == nil
		}
		if err := e.CheckUses(jc.Repo, uses, hubdOwner); err != nil {
			return err
		}
		if spec.Token != "" && actions.IDTokenWritable(jc.Run.WorkflowPath, jc.Run.Source, jc.Job.Key) && !actions.FromFork(jc.Repo, jc.Run) {
			// A fork's pull request gets no OIDC token.
			if err := a.issuer.Ensure(ctx); err != nil {
				return err
			}
			spec.Env["ACTIONS_ID_TOKEN_REQUEST_URL"] = a.issuerBase() + "/idtoken?api-version=2.0"
			spec.Env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = spec.Token
		}
		return nil
	})
}

// Policy is the Actions policies service (artifacts read the retention,
// approvals the fork pull request policy, runners the self-hosted policy).
func (a *API) Policy() *actionspolicy.Service { return a.policy }

const (
	notePolicy    = "Stored and enforced on hubd's runs where hubd has the feature (see internal/actionspolicy)."
	noteForkPR    = "Stored (and readable by the fork pull request runs); hubd runs no workflows for pull requests from forks yet, so it changes no run."
	noteSelfHost  = "Stored; hubd's own runner is used whatever the setting (the self-hosted runners read it)."
	noteAccess    = "Stored; hubd runs no reusable workflows or actions from other private repositories yet, so the level changes no run."
	noteInclusion = "Stored; hubd has no repository custom properties, so the inclusions add no claims to the OIDC tokens."
	noteImmutable = "use_immutable_subject is stored but does not change the sub claim."
	noteIssuer    = "The iss of the job tokens and the discovery document move to /_services/token/{enterprise} as on GitHub."
	noteVerified  = "verified_allowed is stored; hubd has no Marketplace, so no action counts as verified."
)

// policyRoutes are the permissions and OIDC operations and hubd's issuer.
func (a *API) policyRoutes() []rest.Route {
	repo, org, ent := "/repos/{owner}/{repo}/actions", "/orgs/{org}/actions", "/enterprises/{enterprise}/actions"
	rs, os, es := []string{"repo"}, []string{"admin:org"}, []string{"admin:enterprise"}
	type pair struct {
		path string
		get  string
		put  string
		st   setting
		note string
	}
	var out []rest.Route
	add := func(base string, scopes []string, ps []pair) {
		for _, p := range ps {
			if p.get != "" {
				out = append(out, rest.Route{Method: "GET", Pattern: base + p.path, OperationID: p.get, Handler: a.getSetting(p.st), Scopes: scopes, Note: p.note})
			}
			out = append(out, rest.Route{Method: "PUT", Pattern: base + p.path, OperationID: p.put, Handler: a.putSetting(p.st), Scopes: scopes, Note: p.note})
		}
	}
	add(repo, rs, []pair{
		{"/permissions", "actions/get-github-actions-permissions-repository", "actions/set-github-actions-permissions-repository", permissionsSetting, ""},
		{"/permissions/access", "actions/get-workflow-access-to-repository", "actions/set-workflow-access-to-repository", accessSetting, noteAccess},
		{"/permissions/artifact-and-log-retention", "actions/get-artifact-and-log-retention-settings-repository", "actions/set-artifact-and-log-retention-settings-repository", retentionSetting, ""},
		{"/permissions/fork-pr-contributor-approval", "actions/get-fork-pr-contributor-approval-permissions-repository", "actions/set-fork-pr-contributor-approval-permissions-repository", forkApprovalSetting, ""},
		{"/permissions/fork-pr-workflows-private-repos", "actions/get-private-repo-fork-pr-workflows-settings-repository", "actions/set-private-repo-fork-pr-workflows-settings-repository", forkPrivateSetting, noteForkPR},
		{"/permissions/selected-actions", "actions/get-allowed-actions-repository", "actions/set-allowed-actions-repository", selectedActionsSetting, noteVerified},
		{"/permissions/workflow", "actions/get-github-actions-default-workflow-permissions-repository", "actions/set-github-actions-default-workflow-permissions-repository", workflowSetting, ""},
		{"/oidc/customization/sub", "actions/get-custom-oidc-sub-claim-for-repo", "actions/set-custom-oidc-sub-claim-for-repo", subSetting, noteImmutable},
	})
	add(org, os, []pair{
		{"/permissions", "actions/get-github-actions-permissions-organization", "actions/set-github-actions-permissions-organization", permissionsSetting, ""},
		{"/permissions/artifact-and-log-retention", "actions/get-artifact-and-log-retention-settings-organization", "actions/set-artifact-and-log-retention-settings-organization", retentionSetting, ""},
		{"/permissions/fork-pr-contributor-approval", "actions/get-fork-pr-contributor-approval-permissions-organization", "actions/set-fork-pr-contributor-approval-permissions-organization", forkApprovalSetting, ""},
		{"/permissions/fork-pr-workflows-private-repos", "actions/get-private-repo-fork-pr-workflows-settings-organization", "actions/set-private-repo-fork-pr-workflows-settings-organization", forkPrivateSetting, noteForkPR},
		{"/permissions/selected-actions", "actions/get-allowed-actions-organization", "actions/set-allowed-actions-organization", selectedActionsSetting, noteVerified},
		{"/permissions/self-hosted-runners", "actions/get-self-hosted-runners-permissions-organization", "actions/set-self-hosted-runners-permissions-organization", selfHostedSetting, noteSelfHost},
		{"/permissions/workflow", "actions/get-github-actions-default-workflow-permissions-organization", "actions/set-github-actions-default-workflow-permissions-organization", workflowSetting, ""},
		{"/oidc/customization/sub", "oidc/get-oidc-custom-sub-template-for-org", "oidc/update-oidc-custom-sub-template-for-org", subSetting, noteImmutable},
	})
	add(ent, es, []pair{
		{"/permissions", "enterprise-admin/get-github-actions-permissions-enterprise", "enterprise-admin/set-github-actions-permissions-enterprise", permissionsSetting, ""},
		{"/permissions/artifact-and-log-retention", "enterprise-admin/get-artifact-and-log-retention-settings", "enterprise-admin/set-artifact-and-log-retention-settings", retentionSetting, ""},
		{"/permissions/fork-pr-contributor-approval", "enterprise-admin/get-fork-pr-contributor-approval-permissions", "enterprise-admin/set-fork-pr-contributor-approval-permissions", forkApprovalSetting, ""},
		{"/permissions/fork-pr-workflows-private-repos", "enterprise-admin/get-private-repo-fork-pr-workflows-settings", "enterprise-admin/set-private-repo-fork-pr-workflows-settings", forkPrivateSetting, noteForkPR},
		{"/permissions/selected-actions", "enterprise-admin/get-allowed-actions-enterprise", "enterprise-admin/set-allowed-actions-enterprise", selectedActionsSetting, noteVerified},
		{"/permissions/self-hosted-runners", "enterprise-admin/get-self-hosted-runners-permissions", "enterprise-admin/set-self-hosted-runners-permissions", selfHostedSetting, noteSelfHost},
		{"/permissions/workflow", "actions/get-github-actions-default-workflow-permissions-enterprise", "actions/set-github-actions-default-workflow-permissions-enterprise", workflowSetting, ""},
		{"/oidc/customization/issuer", "", "actions/set-actions-oidc-custom-issuer-policy-for-enterprise", issuerSetting, noteIssuer},
	})
	lists := []struct {
		base, path, idName, list, set, enable, disable string
		l                                              list
		scopes                                         []string
		note                                           string
	}{
		{org, "/permissions/repositories", "{repository_id}", "actions/list-selected-repositories-enabled-github-actions-organization", "actions/set-selected-repositories-enabled-github-actions-organization",
			"actions/enable-selected-repository-github-actions-organization", "actions/disable-selected-repository-github-actions-organization", enabledList, os, ""},
		{org, "/permissions/self-hosted-runners/repositories", "{repository_id}", "actions/list-selected-repositories-self-hosted-runners-organization", "actions/set-selected-repositories-self-hosted-runners-organization",
			"actions/enable-selected-repository-self-hosted-runners-organization", "actions/disable-selected-repository-self-hosted-runners-organization", selfHostedList, os, noteSelfHost},
		{ent, "/permissions/organizations", "{org_id}", "enterprise-admin/list-selected-organizations-enabled-github-actions-enterprise", "enterprise-admin/set-selected-organizations-enabled-github-actions-enterprise",
			"enterprise-admin/enable-selected-organization-github-actions-enterprise", "enterprise-admin/disable-selected-organization-github-actions-enterprise", enabledList, es, ""},
	}
	for _, l := range lists {
		out = append(out,
			rest.Route{Method: "GET", Pattern: l.base + l.path, OperationID: l.list, Handler: a.listTargets(l.l), Scopes: l.scopes, Note: l.note},
			rest.Route{Method: "PUT", Pattern: l.base + l.path, OperationID: l.set, Handler: a.setTargets(l.l), Scopes: l.scopes, Note: l.note},
			rest.Route{Method: "PUT", Pattern: l.base + l.path + "/" + l.idName, OperationID: l.enable, Handler: a.oneTarget(l.l, "add"), Scopes: l.scopes, Note: l.note},
			rest.Route{Method: "DELETE", Pattern: l.base + l.path + "/" + l.idName, OperationID: l.disable, Handler: a.oneTarget(l.l, "remove"), Scopes: l.scopes, Note: l.note})
	}
	props := func(base, prefix string, scopes []string) {
		p := base + "/oidc/customization/properties/repo"
		out = append(out,
			rest.Route{Method: "GET", Pattern: p, OperationID: "oidc/list-oidc-custom-property-inclusions-for-" + prefix, Handler: a.listInclusions, Scopes: scopes, Note: noteInclusion},
			rest.Route{Method: "POST", Pattern: p, OperationID: "oidc/create-oidc-custom-property-inclusion-for-" + prefix, Handler: a.addInclusion, Scopes: scopes, Note: noteInclusion},
			rest.Route{Method: "DELETE", Pattern: p + "/{custom_property_name}", OperationID: "oidc/delete-oidc-custom-property-inclusion-for-" + prefix, Handler: a.removeInclusion, Scopes: scopes, Note: noteInclusion})
	}
	props(org, "org", os)
	props(ent, "enterprise", es)
	// hubd's OIDC issuer (GHES's /_services/token).
	out = append(out,
		rest.Route{Method: "GET", Pattern: "/_services/token/.well-known/openid-configuration", OperationID: "hubd/actions-oidc-configuration", Handler: a.oidcConfiguration, Extension: true, NoRateLimit: true},
		rest.Route{Method: "GET", Pattern: "/_services/token/.well-known/jwks", OperationID: "hubd/actions-oidc-jwks", Handler: a.oidcJWKS, Extension: true, NoRateLimit: true},
		rest.Route{Method: "GET", Pattern: "/_services/token/{enterprise}/.well-known/openid-configuration", OperationID: "hubd/actions-oidc-enterprise-configuration", Handler: a.oidcConfiguration, Extension: true, NoRateLimit: true},
		rest.Route{Method: "GET", Pattern: "/_services/token/{enterprise}/.well-known/jwks", OperationID: "hubd/actions-oidc-enterprise-jwks", Handler: a.oidcJWKS, Extension: true, NoRateLimit: true},
		rest.Route{Method: "GET", Pattern: "/_services/token/idtoken", OperationID: "hubd/actions-oidc-token", Handler: a.oidcToken, Extension: true})
	return out
}

// errActionsApprove is GitHub's refusal of the Actions bot's pull request
// or approval where the policy does not allow them.
var errActionsApprove = model.Forbidden("GitHub Actions is not permitted to create or approve pull requests.")

// mayActionsApprove refuses the GitHub Actions bot's pull requests and
// approvals unless the repository's can_approve_pull_request_reviews.
func (a *API) mayActionsApprove(ctx context.Context, repo *model.Repo, userID int64) error {
	if userID == 0 {
		return nil
	}
	u, err := a.d.Store.R().AccountByID(ctx, userID)
	if err != nil || u.Type != model.TypeBot || u.Login != appsvc.Slug(actions.ActionsAppName)+"[bot]" {
		return err
	}
	e, err := a.policy.For(ctx, repo)
	if err != nil {
		return err
	}
	if !e.CanApprove {
		return errActionsApprove
	}
	return nil
}
