package server

import (
	"context"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/api"
	actionsapi "github.com/hubd/hubd/internal/api/actions"
	activityapi "github.com/hubd/hubd/internal/api/activity"
	"github.com/hubd/hubd/internal/api/admin"
	advisoriesapi "github.com/hubd/hubd/internal/api/advisories"
	appsapi "github.com/hubd/hubd/internal/api/apps"
	attestationsapi "github.com/hubd/hubd/internal/api/attestations"
	"github.com/hubd/hubd/internal/api/auditlog"
	autolinksapi "github.com/hubd/hubd/internal/api/autolinks"
	blocksapi "github.com/hubd/hubd/internal/api/blocks"
	cataloguepage "github.com/hubd/hubd/internal/api/catalogue"
	checksapi "github.com/hubd/hubd/internal/api/checks"
	codespacesapi "github.com/hubd/hubd/internal/api/codespaces"
	codespacesecretsapi "github.com/hubd/hubd/internal/api/codespacesecrets"
	collaboratorsapi "github.com/hubd/hubd/internal/api/collaborators"
	"github.com/hubd/hubd/internal/api/commitcomments"
	"github.com/hubd/hubd/internal/api/commits"
	"github.com/hubd/hubd/internal/api/contents"
	enterpriseapi "github.com/hubd/hubd/internal/api/enterprise"
	enterpriseteamsapi "github.com/hubd/hubd/internal/api/enterpriseteams"
	environmentsapi "github.com/hubd/hubd/internal/api/environments"
	forksapi "github.com/hubd/hubd/internal/api/forks"
	gistsapi "github.com/hubd/hubd/internal/api/gists"
	"github.com/hubd/hubd/internal/api/gitdb"
	hooksapi "github.com/hubd/hubd/internal/api/hooks"
	insightsapi "github.com/hubd/hubd/internal/api/insights"
	interactionsapi "github.com/hubd/hubd/internal/api/interactions"
	"github.com/hubd/hubd/internal/api/issues"
	"github.com/hubd/hubd/internal/api/licenses"
	markdownapi "github.com/hubd/hubd/internal/api/markdown"
	"github.com/hubd/hubd/internal/api/meta"
	"github.com/hubd/hubd/internal/api/metrics"
	migrationsapi "github.com/hubd/hubd/internal/api/migrations"
	notificationsapi "github.com/hubd/hubd/internal/api/notifications"
	oauthapi "github.com/hubd/hubd/internal/api/oauth"
	"github.com/hubd/hubd/internal/api/orgs"
	outsideapi "github.com/hubd/hubd/internal/api/outside"
	patokensapi "github.com/hubd/hubd/internal/api/patokens"
	projectsapi "github.com/hubd/hubd/internal/api/projects"
	protectionapi "github.com/hubd/hubd/internal/api/protection"
	pullreviewsapi "github.com/hubd/hubd/internal/api/pullreviews"
	pullsapi "github.com/hubd/hubd/internal/api/pulls"
	pullstacksapi "github.com/hubd/hubd/internal/api/pullstacks"
	releasesapi "github.com/hubd/hubd/internal/api/releases"
	"github.com/hubd/hubd/internal/api/repos"
	rolesapi "github.com/hubd/hubd/internal/api/roles"
	rulesetsapi "github.com/hubd/hubd/internal/api/rulesets"
	"github.com/hubd/hubd/internal/api/runnerproto"
	runnersapi "github.com/hubd/hubd/internal/api/runners"
	scimapi "github.com/hubd/hubd/internal/api/scim"
	searchapi "github.com/hubd/hubd/internal/api/search"
	secretsapi "github.com/hubd/hubd/internal/api/secrets"
	signingkeysapi "github.com/hubd/hubd/internal/api/signingkeys"
	sshkeysapi "github.com/hubd/hubd/internal/api/sshkeys"
	"github.com/hubd/hubd/internal/api/statuses"
	teamsapi "github.com/hubd/hubd/internal/api/teams"
	transfersapi "github.com/hubd/hubd/internal/api/transfers"
	"github.com/hubd/hubd/internal/api/users"
	variablesapi "github.com/hubd/hubd/internal/api/variables"
	appsvc "github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/codespaces"
	"github.com/hubd/hubd/internal/collaborators"
	"github.com/hubd/hubd/internal/gitrepo"
	graphqlapi "github.com/hubd/hubd/internal/graphql"
	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/insights"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/oauthweb"
	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/refs"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/signatures"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/teams"
	"github.com/hubd/hubd/internal/tempclone"
	"github.com/hubd/hubd/internal/web"
	"github.com/hubd/hubd/internal/wire"
)

// Config is what Build needs.
type Config struct {
	Store       *store.Store
	ExternalURL string // e.g. http://127.0.0.1:8080
	Limits      ratelimit.Limits
	MaxBody     int64         // request body limit in bytes; 0 keeps the default
	TokenTTL    time.Duration // authentication cache; 0 disables it
	GitRoot     string        // directory of the git repositories ("": route table only, no git)
	MaxPush     int64         // largest pack a git push may send (0: no limit)
	Version     string
	HookPolicy  *hooks.Policy // where webhooks may deliver (nil: HUBD_HOOK_ALLOW)
	MaxAsset    int64         // largest release asset in bytes (0: GitHub's limit)
	Enterprise  string        // slug of hubd's one enterprise ("": "hubd")
	// RunnerOffline is how long a silent runner stays online (and its job
	// goes on); MaxJobTimeout caps timeout-minutes (0: the defaults, a
	// minute and 360 minutes).
	RunnerOffline, MaxJobTimeout time.Duration
	// Codespaces is how codespaces run on this host.
	Codespaces CodespacesConfig
	// SecretsKeys encrypt secrets at rest (hubd serve --secrets-key): the
	// first seals, the others are former keys; none: a key kept in the
	// database.
	SecretsKeys [][]byte
	// SSHBase is where ssh_url points when the SSH server runs
	// (wire.SSHBaseFor); "" when it does not.
	SSHBase string
	// NodeName names this process among the hubd nodes sharing a
	// PostgreSQL database (its local runners are named after it; "": the
	// host name).
	NodeName string
}

// Build wires every api package into a server.
func Build(cfg Config) (*Server, *api.Deps, error) {
	// An empty GitRoot builds the route table only (hubd catalogue, route
	// tests): no git storage, so nothing is created in the working
	// directory. A server that serves requests always has one.
	var git *gitrepo.Manager
	if cfg.GitRoot != "" {
		var err error
		if git, err = gitrepo.New(cfg.GitRoot); err != nil {
			return nil, nil, err
		}
	}
	d := &api.Deps{
		Git:     git,
		Store:   cfg.Store,
		URLs:    wire.NewURLs(cfg.ExternalURL),
		Limiter: ratelimit.NewStored(cfg.Limits, cfg.Store),
		Version: cfg.Version,
		Tokens:  api.NewTokenCache(cfg.TokenTTL),
		Jobs:    jobs.New(cfg.Store),
		Outbox:  outbox.New(cfg.Store),
	}
	if cfg.Store != nil {
		d.Insights = insights.NewRecorder(cfg.Store, d.Jobs)
		// Another node's token revocation or user change flushes this
		// node's authentication cache too (internal/store/cluster.go).
		tokens, st := d.Tokens, cfg.Store
		tokens.Publish = func() { st.Broadcast(context.Background(), "tokens") }
		st.OnBroadcast("tokens", tokens.FlushLocal)
	}
	d.URLs.Enterprise = cfg.Enterprise
	d.URLs.SSHBase = cfg.SSHBase
	d.Signatures = signatures.New(cfg.Store, d.AccountsByCommitEmail)
	if cfg.Store != nil && cfg.GitRoot != "" {
		var err error
		if d.CloneTokens, err = tempclone.New(context.Background(), cfg.Store); err != nil {
			return nil, nil, err
		}
		if d.DownloadKeys, err = api.LoadDownloadSigner(context.Background(), cfg.Store); err != nil {
			return nil, nil, err
		}
	}
	wireClosing(d)
	var s *Server // the catalogue reads the final route table on its first request
	// Reviews follow pull requests: comments move when a head moves, and
	// pull request objects show requested reviewers.
	pullsAPI, reviewsAPI := pullsapi.New(d), pullreviewsapi.New(d)
	forksAPI := forksapi.New(d)
	noteBodies(d, pullsAPI.Service())
	pullsAPI.Service().HeadMoved = append(pullsAPI.Service().HeadMoved, reviewsAPI.Service().HeadMoved)
	// Code owners are asked for their review when a pull request opens,
	// becomes ready or its head moves.
	pullsAPI.Service().Opened = append(pullsAPI.Service().Opened, reviewsAPI.Service().RequestCodeOwners)
	pullsAPI.Service().HeadMoved = append(pullsAPI.Service().HeadMoved, reviewsAPI.Service().RequestCodeOwners)
	pullsAPI.Service().ReviewersOf = d.Store.R().RequestedReviewers
	reviewsAPI.RenderPull = pullsAPI.RenderSimple
	// A protection change re-evaluates the pull requests into the branch.
	protAPI := protectionapi.New(d)
	protAPI.Service().Changed = pulls.RulesChanged
	// GraphQL's issue mutations run the issues service of the REST routes.
	issuesAPI, reposAPI, activityAPI := issues.New(d), repos.New(d), activityapi.New(d)
	rulesetsAPI, gistsAPI, oauthAPI := rulesetsapi.New(d), gistsapi.New(d), oauthapi.New(d)
	transfersAPI := transfersapi.New(d)
	hooksAPI := hooksapi.New(d, pullsAPI.Service(), cfg.HookPolicy)
	activityAPI.UseHooks(hooksAPI.Service()) // activity events reuse the webhook payloads
	checksAPI := checksapi.New(d)
	// Jobs create the environment they name and see their vars context.
	actionsAPI := actionsapi.New(d, checksAPI.Service(), cfg.GitRoot)
	hooksAPI.Service().JobLabels = actionsAPI.Service().Labels // workflow_job payloads' labels
	envAPI := environmentsapi.New(d)
	secretsAPI := secretsapi.New(d, cfg.SecretsKeys, actionsAPI.Service())
	varsAPI := variablesapi.New(d, envAPI.Service())
	// Codespaces secrets keep their values in the one secrets store; a
	// codespace's environment is csSecretsAPI.Service().EnvFor.
	csSecretsAPI := codespacesecretsapi.New(d, secretsAPI.Service())
	exec := &actionsAPI.Service().Exec
	exec.SpecHooks = append(exec.SpecHooks, envAPI.Service().JobHook, varsAPI.Service().JobHook)
	envAPI.Service().UseActions(actionsAPI.Service()) // protection rules hold jobs (pending deployments)
	runnersAPI := runnersapi.New(d, exec)             // runner groups and labels admit jobs
	runnersAPI.Service().Node = cfg.NodeName
	if cfg.RunnerOffline > 0 {
		exec.Offline, runnersAPI.Service().Offline = cfg.RunnerOffline, cfg.RunnerOffline
		exec.Heartbeat = min(10*time.Second, cfg.RunnerOffline/4)
	}
	exec.MaxTimeout = cfg.MaxJobTimeout
	sshKeysAPI := sshkeysapi.New(d)
	patAPI := patokensapi.New(d)
	refsSvc := refs.New(d) // REST's git refs and GraphQL's linked branches
	// A codespace's repository token is an installation token of the
	// GitHub Actions app narrowed to its repository (as a job's).
	csTokens := &actions.Tokens{Apps: &appsvc.Service{Store: d.Store, Revoked: func() {
		if d.Tokens != nil {
			d.Tokens.Flush()
		}
	}}}
	codespacesAPI := codespacesapi.New(d, cfg.GitRoot, codespaces.Tokens{Mint: csTokens.Mint, Revoke: csTokens.Revoke}, reposAPI.Service())
	cs := codespacesAPI.Service()
	cs.Env, cs.Policy = csSecretsAPI.Service(), csSecretsAPI.Service() // secrets in the environment; the organization's policy
	cs.Credential, cs.Sandbox = cfg.Codespaces.Credential, cfg.Codespaces.Sandbox
	if cfg.Codespaces.Root != "" {
		cs.Root = cfg.Codespaces.Root
	}
	if cfg.Codespaces.IDE != nil {
		cs.IDE = cfg.Codespaces.IDE
	}
	cs.Cgroups, cs.CPUPeriod, cs.MachineTypes = cfg.Codespaces.Cgroups, cfg.Codespaces.CPUPeriod, cfg.Codespaces.Machines
	cs.SweepGroups() // the groups a previous hubd left: nothing of a codespace runs yet
	notificationsAPI := notificationsapi.New(d).UseHooks(hooksAPI.Service())
	sets := [][]rest.Route{
		cataloguepage.New(func() []*rest.Route { return s.Routes() }).Routes(),
		users.New(d).Routes(),
		reposAPI.Routes(),
		admin.New(d).Routes(),
		scimapi.New(d).Routes(),
		enterpriseteamsapi.New(d).Routes(),
		enterpriseapi.New(d).Routes(),
		auditlog.New(d, secretsAPI.Service(), hooksAPI.Service().Client).Routes(),
		meta.New(d, APIVersions...).Routes(),
		markdownapi.New(d).Routes(),
		autolinksapi.New(d).Routes(),
		licenses.New(d).Routes(),
		orgs.New(d).Routes(),
		patAPI.Routes(),
		issuesAPI.Routes(),
		gitdb.New(d, refsSvc).Routes(),
		contents.New(d).Routes(),
		commits.New(d).Routes(),
		commitcomments.New(d).Routes(),
		metrics.New(d).Routes(),
		insightsapi.New(d).Routes(),
		projectsapi.New(d).Routes(),
		statuses.New(d).Routes(),
		pullsAPI.Routes(),
		reviewsAPI.Routes(),
		forksAPI.Routes(),
		advisoriesapi.New(d, forksAPI.Service()).Routes(),
		attestationsapi.New(d).Routes(),
		checksAPI.Routes(),
		pullstacksapi.New(d).Routes(),
		protAPI.Routes(),
		blocksapi.New(d).Routes(),
		collaboratorsapi.New(d).Routes(),
		interactionsapi.New(d).Routes(),
		outsideapi.New(d).Routes(),
		teamsapi.New(d).Routes(),
		rolesapi.New(d).Routes(),
		graphqlapi.New(d, graphqlapi.Services{Issues: issuesAPI.Service(), Pulls: pullsAPI.Service(),
			Reviews: reviewsAPI.Service(), Repos: reposAPI.Service(), Stars: activityAPI.Service(),
			Rulesets: rulesetsAPI.Service(), Gists: gistsAPI.Service(), Forks: forksAPI.Service(), Transfers: transfersAPI.Service(),
			Refs: refsSvc}).Routes(),
		transfersAPI.Routes(),
		releasesapi.New(d, cfg.MaxAsset).Routes(),
		searchapi.New(d).Routes(),
		appsapi.New(d).Routes(),
		activityAPI.Routes(),
		notificationsAPI.Routes(),
		rulesetsAPI.Routes(),
		hooksAPI.Routes(),
		gistsAPI.Routes(),
		oauthAPI.Routes(),
		actionsAPI.Routes(),
		envAPI.Routes(),
		envAPI.RunRoutes(),
		varsAPI.Routes(),
		runnersAPI.Routes(),
		runnerproto.New(d, exec, runnersAPI.Service()).Routes(),
		secretsAPI.Routes(),
		secretsAPI.EnvironmentRoutes(envAPI.Service()),
		csSecretsAPI.Routes(),
		sshKeysAPI.Routes(),
		signingkeysapi.New(d).Routes(),
		migrationsapi.New(d, cfg.GitRoot).Routes(),
		codespacesAPI.Routes(),
		// Each api package adds its route set here, one line each.
	}
	s, err := New(*d, sets...)
	if err != nil {
		return nil, nil, err
	}
	if cfg.MaxBody > 0 {
		s.MaxBody = cfg.MaxBody
	}
	s.gitsvc.MaxPush = cfg.MaxPush
	s.sshKeys = sshKeysAPI.Service()
	// Workflow files need the workflow scope or permission; then the
	// repository rules decide pushes (after branch push restrictions).
	s.gitsvc.Check = workflowPushCheck(protectionPush(protAPI.Service(), rulesetPush{urls: d.URLs, svc: rulesetsAPI.Service()}.PushCheck))
	s.git.Resolver = gitResolver{d: &s.deps, gist: gistGit{d: d, svc: gistsAPI.Service()}.GitAccess}
	// The sign-in and flow pages; failed sign-ins count in the server's
	// failed-authentication lockout.
	pages := oauthweb.New(oauthAPI.Service(), d.URLs.Web)
	pages.Logins = s.LoginLimiter()
	s.Pages, s.Clients = pages, oauthAPI.Clients
	if cfg.Codespaces.IDE != nil {
		s.codespaces = newCodespaceProxy(cfg.Codespaces.IDE, cs, oauthAPI.Service().SessionUser, s.authenticate)
		s.codespaces.origin, s.codespaces.signer = strings.TrimSuffix(cfg.Codespaces.URL, "/"), d.Downloads()
	}
	// The pages' forms run the services REST and GraphQL run.
	s.web.Use(web.Services{Sessions: oauthAPI.Service(), Issues: issuesAPI.Service(), Pulls: pullsAPI.Service(), Reviews: reviewsAPI.Service(), Refs: refsSvc, Actions: actionsAPI.Service(), Artifacts: actionsAPI.Storage(),
		Notifications: notificationsAPI.Service(), Teams: teams.New(d.Store), SSHKeys: sshKeysAPI.Service(), Hooks: hooksAPI.Service(),
		Secrets: secretsAPI.Service(), Variables: varsAPI.Service(), Runners: runnersAPI.Service(), Protection: protAPI.Service(),
		Rulesets: rulesetsAPI.Service(), Collaborators: collaborators.New(d.Store), PATokens: patAPI.Service()})
	s.Feeds = activityAPI.Feeds()
	s.Settled = func() { <-reposAPI.Service().BackfillDone() }
	return s, d, nil
}
