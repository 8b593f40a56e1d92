// Package hooks is the REST adapter of webhooks: repository and
// organization hooks, their config, their deliveries (list, one,
// redelivery), pings and tests. It parses requests, checks who may manage
// the hooks, calls the webhook service (internal/hooks) and writes
// GitHub's shapes. The service's dispatcher starts with the package when
// the server has git storage (a serving hubd, not a route table).
package hooks

import (
	"context"
	"log/slog"
	"os"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/licenses"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the hooks package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package and its service. Pull request payloads need the
// pulls service (nil: they are skipped). The delivery policy is the
// operator's (hubd serve --hook-allow); nil reads HUBD_HOOK_ALLOW (comma
// separated CIDR prefixes, e.g. 127.0.0.0/8 to deliver to receivers on
// this machine), where a malformed list allows nothing extra and is
// logged.
func New(d *api.Deps, pullSvc *pulls.Service, p *svc.Policy) *API {
	var policy svc.Policy
	if p != nil {
		policy = *p
	} else {
		var err error
		if policy, err = svc.ParsePolicy(os.Getenv("HUBD_HOOK_ALLOW")); err != nil {
			slog.Error("webhooks: HUBD_HOOK_ALLOW", "err", err)
		}
	}
	s := &svc.Service{Store: d.Store, Jobs: d.Jobs, Outbox: d.Outbox, URLs: d.URLs, Git: d.Git, Version: d.Version, Policy: policy,
		License:     func(key string) *wire.LicenseSimple { return licenses.SimpleByKey(d.URLs, key) },
		CommitUsers: d.AccountsByCommitEmail}
	if pullSvc != nil {
		s.PullDetails = pullSvc.Details
		s.ReviewersOf = func(ctx context.Context, ids []int64) (map[int64][]*model.Account, error) {
			if pullSvc.ReviewersOf == nil {
				return nil, nil
			}
			return pullSvc.ReviewersOf(ctx, ids)
		}
	}
	svc.New(s)
	if d.Git != nil && d.Jobs != nil {
		s.Start(context.Background())
	}
	return &API{d: d, svc: s}
}

// Service is the webhook service.
func (a *API) Service() *svc.Service { return a.svc }

const (
	noteCreate = "Hooks deliver to public addresses; loopback and private addresses only when the operator admits them (hubd serve --hook-allow). " +
		"GitHub does not retry a failed delivery on its own; hubd does, 4 times (after 15 s, 1 min, 4 min and 16 min), each retry in the delivery log as a redelivery with the same GUID. " +
		"Payloads exist for ping, push, create, delete, issues, issue_comment, pull_request, pull_request_review, pull_request_review_comment, " +
		"label, milestone, release, repository, public, member, fork, commit_comment, star, watch, team, team_add, membership, repository_ruleset, " +
		"organization (member_added, member_removed, member_invited), status, check_run (created, completed), check_suite (completed), " +
		"branch_protection_rule, workflow_run, workflow_job (queued, in_progress, completed; " +
		"no waiting yet) and workflow_dispatch, deletions included; " +
		"other events of GitHub's list (deployments, discussions, security alerts, packages, projects, ...) are accepted as subscriptions and not delivered (logged)."
	noteApp = "An app's webhook gets the repository and organization events its installations subscribed to, with the installation in the payload, " +
		"a ping when its URL is first set, and installation (created, deleted, suspend, unsuspend) and installation_repositories (added, removed) " +
		"events, one repository per delivery; a whole selection replaced at once sends none; check run and suite rerequests go to the run's or suite's own app when it has one, and to every subscribed app otherwise (hubd's checks service records no app for runs an installation token creates yet)."
	noteTest = "Sends the latest push recorded by hubd (pushes made before webhooks existed in hubd are not known)."
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"read:repo_hook", "repo"}
	write := []string{"write:repo_hook", "repo"}
	del := []string{"admin:repo_hook", "repo"}
	org := []string{"admin:org_hook"}
	const rh = "/repos/{owner}/{repo}/hooks"
	const oh = "/orgs/{org}/hooks"
	return []rest.Route{
		{Method: "GET", Pattern: rh, OperationID: "repos/list-webhooks", Handler: a.list(repoScope), Scopes: read},
		{Method: "POST", Pattern: rh, OperationID: "repos/create-webhook", Handler: a.create(repoScope), Scopes: write, Note: noteCreate},
		{Method: "GET", Pattern: rh + "/{hook_id}", OperationID: "repos/get-webhook", Handler: a.get(repoScope), Scopes: read},
		{Method: "PATCH", Pattern: rh + "/{hook_id}", OperationID: "repos/update-webhook", Handler: a.update(repoScope), Scopes: write},
		{Method: "DELETE", Pattern: rh + "/{hook_id}", OperationID: "repos/delete-webhook", Handler: a.delete(repoScope), Scopes: del},
		{Method: "GET", Pattern: rh + "/{hook_id}/config", OperationID: "repos/get-webhook-config-for-repo", Handler: a.getConfig(repoScope), Scopes: read},
		{Method: "PATCH", Pattern: rh + "/{hook_id}/config", OperationID: "repos/update-webhook-config-for-repo", Handler: a.updateConfig(repoScope), Scopes: write},
		{Method: "GET", Pattern: rh + "/{hook_id}/deliveries", OperationID: "repos/list-webhook-deliveries", Handler: a.deliveries(repoScope), Scopes: read},
		{Method: "GET", Pattern: rh + "/{hook_id}/deliveries/{delivery_id}", OperationID: "repos/get-webhook-delivery", Handler: a.delivery(repoScope), Scopes: read},
		{Method: "POST", Pattern: rh + "/{hook_id}/deliveries/{delivery_id}/attempts", OperationID: "repos/redeliver-webhook-delivery", Handler: a.redeliver(repoScope), Scopes: write},
		{Method: "POST", Pattern: rh + "/{hook_id}/pings", OperationID: "repos/ping-webhook", Handler: a.ping(repoScope), Scopes: write},
		{Method: "POST", Pattern: rh + "/{hook_id}/tests", OperationID: "repos/test-push-webhook", Handler: a.test, Scopes: write, Note: noteTest},

		{Method: "GET", Pattern: oh, OperationID: "orgs/list-webhooks", Handler: a.list(orgScope), Scopes: org},
		{Method: "POST", Pattern: oh, OperationID: "orgs/create-webhook", Handler: a.create(orgScope), Scopes: org, Note: noteCreate},
		{Method: "GET", Pattern: oh + "/{hook_id}", OperationID: "orgs/get-webhook", Handler: a.get(orgScope), Scopes: org},
		{Method: "PATCH", Pattern: oh + "/{hook_id}", OperationID: "orgs/update-webhook", Handler: a.update(orgScope), Scopes: org},
		{Method: "DELETE", Pattern: oh + "/{hook_id}", OperationID: "orgs/delete-webhook", Handler: a.delete(orgScope), Scopes: org},
		{Method: "GET", Pattern: oh + "/{hook_id}/config", OperationID: "orgs/get-webhook-config-for-org", Handler: a.getConfig(orgScope), Scopes: org},
		{Method: "PATCH", Pattern: oh + "/{hook_id}/config", OperationID: "orgs/update-webhook-config-for-org", Handler: a.updateConfig(orgScope), Scopes: org},
		{Method: "GET", Pattern: oh + "/{hook_id}/deliveries", OperationID: "orgs/list-webhook-deliveries", Handler: a.deliveries(orgScope), Scopes: org},
		{Method: "GET", Pattern: oh + "/{hook_id}/deliveries/{delivery_id}", OperationID: "orgs/get-webhook-delivery", Handler: a.delivery(orgScope), Scopes: org},
		{Method: "POST", Pattern: oh + "/{hook_id}/deliveries/{delivery_id}/attempts", OperationID: "orgs/redeliver-webhook-delivery", Handler: a.redeliver(orgScope), Scopes: org},
		{Method: "POST", Pattern: oh + "/{hook_id}/pings", OperationID: "orgs/ping-webhook", Handler: a.ping(orgScope), Scopes: org},

		// The app's own webhook, with its JWT.
		{Method: "GET", Pattern: "/app/hook/config", OperationID: "apps/get-webhook-config-for-app", Handler: a.appConfig},
		{Method: "PATCH", Pattern: "/app/hook/config", OperationID: "apps/update-webhook-config-for-app", Handler: a.updateAppConfig, Note: noteApp},
		{Method: "GET", Pattern: "/app/hook/deliveries", OperationID: "apps/list-webhook-deliveries", Handler: a.appDeliveries},
		{Method: "GET", Pattern: "/app/hook/deliveries/{delivery_id}", OperationID: "apps/get-webhook-delivery", Handler: a.appDelivery},
		{Method: "POST", Pattern: "/app/hook/deliveries/{delivery_id}/attempts", OperationID: "apps/redeliver-webhook-delivery", Handler: a.appRedeliver},
	}
}
