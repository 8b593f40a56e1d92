// Package runners is the REST adapter of self-hosted runners and runner
// groups (internal/runners) at repository, organization and enterprise
// level. Registration shapes are GitHub's; jobs run on hubd's workers.
package runners

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/runners"
)

// API is the runners package.
type API struct {
	d    *api.Deps
	svc  *svc.Service
	root string // where jobs work (the machine size's storage)
	imgs *svc.CustomImages
}

// New makes the package: each job is admitted by the runner groups and
// labels to one of the runners waiting for a job (exec), and an ephemeral
// runner goes after its job.
func New(d *api.Deps, exec *actions.Executor) *API {
	a := &API{d: d, svc: svc.New(d.Store)}
	if exec != nil {
		a.root = exec.Root
		exec.Admit = func(ctx context.Context, jc actions.JobContext, labels []string, ids []int64) (map[int64]bool, string, error) {
			wref := jc.Repo.Owner.Login + "/" + jc.Repo.Name + "/" + jc.Run.WorkflowPath + "@" + jc.Run.Ref
			return a.svc.Admit(ctx, jc.Repo, wref, svc.ResolveLabels(labels, jc.Job.Matrix), ids)
		}
		exec.Released = func(ctx context.Context, r *model.Runner) {
			if err := a.svc.JobDone(ctx, r); err != nil {
				slog.Warn("runners: ephemeral runner", "runner", r.ID, "err", err)
			}
		}
	}
	a.wireImages(exec) // custom images: snapshots and restores (images.go)
	return a
}

// Service is the runners service.
func (a *API) Service() *svc.Service { return a.svc }

const (
	noteRunners = "Registration shapes are GitHub's, but GitHub's runner application cannot connect to hubd: jobs run on runners that speak hubd's runner protocol (hubd runner --url --token, or --jitconfig: docs/runner-protocol.md), " +
		"among them hubd serve's local runners (--actions-workers), listed as enterprise runners (labels self-hosted, Linux, X64 and the custom ubuntu-latest, ubuntu-24.04, ubuntu-22.04) and, in every organization, in its default group unless placed in another."
	noteDownloads   = "Lists GitHub's runner application downloads (github.com URLs); hubd does not host them and the application cannot connect to hubd."
	noteDeprecation = "hubd runs no GitHub runner application: every version answers without a deprecation schedule."
	noteOrgGroups   = "Enforced when a worker claims a job: the job runs only on a worker whose group admits the repository (visibility, allows_public_repositories, restricted_to_workflows with owner/repo/path@ref or @* patterns); otherwise it stays queued. visible_to_repository is ignored; network_configuration_id is not supported."
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	var out []rest.Route
	levels := []struct {
		kind, base, prefix, note string
		scopes                   []string
	}{
		{model.RunnerRepo, "/repos/{owner}/{repo}/actions/runners", "actions/", "-for-repo", []string{"repo"}},
		{model.RunnerOrg, "/orgs/{org}/actions/runners", "actions/", "-for-org", []string{"admin:org", "manage_runners:org"}},
		{model.RunnerEnterprise, "/enterprises/{enterprise}/actions/runners", "enterprise-admin/", "-for-enterprise", []string{"manage_runners:enterprise"}},
	}
	for _, l := range levels {
		k, b, sfx, sc := l.kind, l.base, l.note, l.scopes
		p := l.prefix
		jit := "actions/generate-runner-jitconfig" + sfx
		dep := "actions/get-runner-version-deprecation" + sfx
		if k == model.RunnerEnterprise {
			dep = "enterprise-admin/get-runner-version-deprecation" + sfx
		}
		lp := func(op string) string {
			if k == model.RunnerEnterprise {
				return p + op + "-for-enterprise"
			}
			return p + op + sfx
		}
		regTok, remTok := "actions/create-registration-token"+sfx, "actions/create-remove-token"+sfx
		if k == model.RunnerEnterprise {
			regTok, remTok = "enterprise-admin/create-registration-token-for-enterprise", "enterprise-admin/create-remove-token-for-enterprise"
		}
		delOp := "actions/delete-self-hosted-runner-from-" + strings.TrimPrefix(sfx, "-for-")
		if k == model.RunnerEnterprise {
			delOp = "enterprise-admin/delete-self-hosted-runner-from-enterprise"
		}
		out = append(out,
			rest.Route{Method: "GET", Pattern: b, OperationID: lp("list-self-hosted-runners"), Handler: a.list(k), Scopes: sc, Note: noteRunners},
			rest.Route{Method: "GET", Pattern: b + "/downloads", OperationID: lp("list-runner-applications"), Handler: a.downloads(k), Scopes: sc, Note: noteDownloads},
			rest.Route{Method: "POST", Pattern: b + "/generate-jitconfig", OperationID: jit, Handler: a.jit(k), Scopes: sc, Note: noteRunners},
			rest.Route{Method: "POST", Pattern: b + "/registration-token", OperationID: regTok, Handler: a.token(k, "registration"), Scopes: sc, Note: noteRunners},
			rest.Route{Method: "POST", Pattern: b + "/remove-token", OperationID: remTok, Handler: a.token(k, "remove"), Scopes: sc, Note: noteRunners},
			rest.Route{Method: "GET", Pattern: b + "/deprecations/{version}", OperationID: dep, Handler: a.deprecation(k), Scopes: sc, Note: noteDeprecation},
			rest.Route{Method: "GET", Pattern: b + "/{runner_id}", OperationID: lp("get-self-hosted-runner"), Handler: a.get(k), Scopes: sc},
			rest.Route{Method: "DELETE", Pattern: b + "/{runner_id}", OperationID: delOp, Handler: a.del(k), Scopes: sc},
			rest.Route{Method: "GET", Pattern: b + "/{runner_id}/labels", OperationID: lp("list-labels-for-self-hosted-runner"), Handler: a.labels(k, ""), Scopes: sc},
			rest.Route{Method: "POST", Pattern: b + "/{runner_id}/labels", OperationID: lp("add-custom-labels-to-self-hosted-runner"), Handler: a.labels(k, "add"), Scopes: sc},
			rest.Route{Method: "PUT", Pattern: b + "/{runner_id}/labels", OperationID: lp("set-custom-labels-for-self-hosted-runner"), Handler: a.labels(k, "set"), Scopes: sc},
			rest.Route{Method: "DELETE", Pattern: b + "/{runner_id}/labels", OperationID: lp("remove-all-custom-labels-from-self-hosted-runner"), Handler: a.labels(k, "remove"), Scopes: sc},
			rest.Route{Method: "DELETE", Pattern: b + "/{runner_id}/labels/{name}", OperationID: lp("remove-custom-label-from-self-hosted-runner"), Handler: a.labels(k, "remove-one"), Scopes: sc},
		)
	}
	return append(append(append(out, a.groupRoutes()...), a.hostedRoutes()...), a.imageRoutes()...)
}

// scope authorizes the caller for a level's runners: a repository
// administrator, an organization owner (or an app installed on it), a
// site administrator for the enterprise.
func (a *API) scope(r *http.Request, kind string) (svc.Scope, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return svc.Scope{}, rest.ErrRequiresAuth
	}
	sc := svc.Scope{Kind: kind, ActorID: c.UserID()}
	switch kind {
	case model.RunnerRepo:
		repo, _, err := a.d.Repo(r, authz.Admin)
		sc.Repo = repo
		return sc, err
	case model.RunnerOrg:
		org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
		if err != nil {
			return sc, err
		}
		sc.Org = org
		if c.Kind == authz.Installation {
			if c.InstallationTargetID != org.ID {
				return sc, model.Forbidden("Resource not accessible by integration")
			}
			return sc, nil
		}
		if c.User == nil {
			return sc, model.Forbidden("Resource not accessible by integration")
		}
		if !c.HasScope("admin:org") && !c.HasScope("manage_runners:org") {
			return sc, model.Forbidden("Resource not accessible by personal access token")
		}
		if c.SiteAdmin() {
			return sc, nil
		}
		m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.User.ID)
		if errors.Is(err, model.ErrNotFound) || (err == nil && (m.Role != model.RoleAdmin || m.State != "active")) {
			return sc, model.Forbidden("You must be an organization owner to manage its self-hosted runners.")
		}
		return sc, err
	default:
		if !strings.EqualFold(r.PathValue("enterprise"), a.d.URLs.EnterpriseSlug()) {
			return sc, model.ErrNotFound
		}
		if c.Kind == authz.FineGrained || c.User == nil {
			return sc, model.Forbidden(authz.ErrPATMessage)
		}
		if !c.SiteAdmin() {
			return sc, model.Forbidden("You must be an enterprise administrator (a site administrator) to manage its runners.")
		}
		if !c.HasScope("manage_runners:enterprise") {
			return sc, model.Forbidden("Resource not accessible by personal access token")
		}
		return sc, nil
	}
}

// id reads a positive integer path value; anything else is not found.
func id(r *http.Request, name string) (int64, error) {
	v, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || v <= 0 {
		return 0, model.ErrNotFound
	}
	return v, nil
}
