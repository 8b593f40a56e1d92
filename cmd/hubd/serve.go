package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/hubd/hubd/internal/codespaces/ide"
	iofs "io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/codeindex"
	"github.com/hubd/hubd/internal/gitssh"
	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/runner"
	"github.com/hubd/hubd/internal/secrets"
	"github.com/hubd/hubd/internal/server"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
	gossh "golang.org/x/crypto/ssh"
)

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	addr := fs.String("addr", envOr("HUBD_ADDR", "127.0.0.1:8080"), "listen address")
	external := fs.String("external-url", os.Getenv("HUBD_EXTERNAL_URL"), "URL clients use to reach hubd (default http://ADDR)")
	sshAddr := fs.String("ssh-addr", os.Getenv("HUBD_SSH_ADDR"), "listen address of git over SSH, e.g. 127.0.0.1:2222 (env HUBD_SSH_ADDR; empty: no SSH)")
	sshExternal := fs.String("ssh-external", os.Getenv("HUBD_SSH_EXTERNAL"), "host[:port] clients use to reach the SSH server, for ssh_url (env HUBD_SSH_EXTERNAL; default: the --external-url host and the --ssh-addr port)")
	adminLogin := fs.String("admin-login", "hubadmin", "login of the site administrator created on first start")
	limits := ratelimit.DefaultLimits()
	fs.IntVar(&limits.Anonymous, "rate-limit-anonymous", limits.Anonymous, "requests per hour per address without a token")
	fs.IntVar(&limits.Authenticated, "rate-limit-authenticated", limits.Authenticated, "requests per hour per user")
	fs.IntVar(&limits.Installation, "rate-limit-installation", limits.Installation, "requests per hour per app installation")
	fs.IntVar(&limits.LoginFailures, "login-failures", limits.LoginFailures, "failed authentications per client address within --login-window after which its bad credentials get 403 instead of 401 until the window ends (0: no limit)")
	fs.DurationVar(&limits.LoginWindow, "login-window", limits.LoginWindow, "window of --login-failures")
	maxBody := fs.Int64("max-body", 25<<20, "largest request body in bytes (413 above it)")
	maxPush := fs.Int64("max-push", 2<<30, "largest pack a git push may send, in bytes (0: no limit)")
	maxAsset := fs.Int64("max-asset", releases.MaxAssetSize, "largest release asset an upload may send, in bytes (GitHub's limit, under 2 GiB, by default)")
	enterprise := fs.String("enterprise", "hubd", "slug of hubd's one enterprise (GitHub Enterprise Server style: the site administrators own it)")
	hookAllow := fs.String("hook-allow", os.Getenv("HUBD_HOOK_ALLOW"), "comma separated CIDR prefixes or addresses webhooks may deliver to besides public addresses, e.g. 127.0.0.0/8,::1 (env HUBD_HOOK_ALLOW)")
	to := server.DefaultTimeouts()
	fs.DurationVar(&to.Read, "read-timeout", to.Read, "longest time to read a request, body included (git transfers and archives: longest pause between reads)")
	fs.DurationVar(&to.Write, "write-timeout", to.Write, "longest time to write a response (git transfers and archives: longest pause between writes)")
	fs.DurationVar(&to.Idle, "idle-timeout", to.Idle, "how long an idle keep-alive connection stays open")
	actionsWorkers := fs.Int("actions-workers", 1, "local runners: `hubd runner` children as --runner-user, each running one workflow job at a time (0: none)")
	actionsSandbox := fs.String("actions-sandbox", "auto", "sandbox of workflow jobs: auto (bubblewrap: own user namespace without capabilities, seccomp filter, read-only system, hubd's data directory hidden, limits; where it does not work, jobs fail with a message naming the fix), bwrap (the same, but hubd refuses to start where it does not work), or none (no isolation: only for trusted workflows, warned at start and in every job's log)")
	csAddr := fs.String("codespaces-addr", envOr("HUBD_CODESPACES_ADDR", "auto"), "listen address of the codespaces' browser IDEs, an origin apart from hubd's so that what runs in an IDE cannot act on hubd's pages as its owner (env HUBD_CODESPACES_ADDR; auto: a free port of --addr's host; none: at hubd's own origin, only where every repository is trusted)")
	csURL := fs.String("codespaces-url", os.Getenv("HUBD_CODESPACES_URL"), "URL browsers use to reach --codespaces-addr (env HUBD_CODESPACES_URL; default: the --external-url with that listener's port)")
	codeServer := fs.String("code-server", ide.DefaultBinary(), "code-server's bin/code-server, the browser IDE of codespaces (scripts/deps.sh installs it; none: codespaces run without one)")
	runnerUser := fs.String("runner-user", defaultRunnerUser, "the Unix user the local runners and their jobs run as (hubd must be root to switch to it)")
	runnerWork := fs.String("runner-work", filepath.Join(os.TempDir(), "hubd-runners"), "the local runners' work root (a directory per runner, one per job inside)")
	runnerOffline := fs.Duration("runner-offline", time.Minute, "a runner silent this long is offline and its job fails (lost communication)")
	maxJobTimeout := fs.Duration("actions-max-timeout", 360*time.Minute, "the longest a job may run (caps timeout-minutes; GitHub's 360 minutes at most)")
	actionsJobs := fs.Int("actions-jobs", 0, "jobs this process dispatches to runners at once (default: --actions-workers + 4)")
	strictReads := fs.Bool("strict-reads", false, "several nodes on PostgreSQL (set it on every node): every request first checks the database's write generation (one small query, shared by concurrent requests), so that it reads every write any node answered before it; off (the default; one node needs no check, its own writes empty its caches at once): another node's write reaches this node's read caches by notification, a few milliseconds late at most")
	jobLease := fs.Duration("job-lease", 2*time.Minute, "how long a background job claimed by a node is its own: a job of a node that died is taken over by another this long after its claim")
	var jobLimits jobLimitFlags
	jobLimits.register(fs)
	nodeName := fs.String("node-name", os.Getenv("HUBD_NODE_NAME"), "this node's name among the hubd serve processes sharing a PostgreSQL database (env HUBD_NODE_NAME; default: the host name; several nodes on one host need one each): names its node directory and its local runners")
	nodeDir := fs.String("node-dir", os.Getenv("HUBD_NODE_DIR"), "this node's own directory (its lock), on PostgreSQL (env HUBD_NODE_DIR; default DATA/nodes/NODE-NAME)")
	secretsKey := fs.String("secrets-key", os.Getenv("HUBD_SECRETS_KEY"), "key that encrypts secrets at rest: base64 of 32 random bytes (openssl rand -base64 32), then former keys after commas while rotating (env HUBD_SECRETS_KEY; default: a key kept in the database)")
	fs.Parse(args)
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}

	// Everything is checked, and the address bound, before anything is
	// created: a typo in --addr must not leave a data directory and an
	// administrator whose one-time token was printed for nothing.
	dsn, d, err := sf.dsn()
	if err != nil {
		return err
	}
	if err := runner.ValidSandbox(*actionsSandbox); err != nil {
		return fmt.Errorf("--actions-sandbox: %w", err)
	}
	if _, err := jobLimits.limits(); err != nil {
		return err
	}
	sandboxNote, sandboxErr := runner.CheckSandbox(*actionsSandbox)
	if sandboxErr != nil && *actionsSandbox == runner.SandboxBwrap {
		return fmt.Errorf("--actions-sandbox bwrap: %w", sandboxErr)
	}
	policy, err := hooks.ParsePolicy(*hookAllow)
	if err != nil {
		return fmt.Errorf("--hook-allow: %w", err)
	}
	if *maxAsset <= 0 || *maxAsset > releases.MaxAssetSize {
		return fmt.Errorf("--max-asset %d: want 1 to %d bytes", *maxAsset, int64(releases.MaxAssetSize))
	}
	if *jobLease < time.Second {
		return fmt.Errorf("--job-lease %v: want a second or more", *jobLease)
	}
	var secretsKeys [][]byte
	if *secretsKey != "" {
		if secretsKeys, err = secrets.ParseKeys(*secretsKey); err != nil {
			return fmt.Errorf("--secrets-key: %w", err)
		}
	}
	if *external != "" {
		if u, err := url.Parse(*external); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--external-url %q: want an http:// or https:// URL", *external)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	defer ln.Close()
	var sshLn net.Listener
	if *sshAddr != "" {
		if sshLn, err = net.Listen("tcp", *sshAddr); err != nil {
			return fmt.Errorf("--ssh-addr %s: %w", *sshAddr, err)
		}
		defer sshLn.Close()
	} else if *sshExternal != "" {
		return fmt.Errorf("--ssh-external needs --ssh-addr")
	}

	abs, _ := filepath.Abs(sf.data)
	if _, err := os.Stat(sf.data); errors.Is(err, iofs.ErrNotExist) {
		if err := os.MkdirAll(sf.data, 0o755); err != nil {
			return fmt.Errorf("create data directory: %w", err)
		}
		fmt.Fprintf(os.Stderr, "hubd: created data directory %s\n", abs)
	} else {
		fmt.Fprintf(os.Stderr, "hubd: data directory %s\n", abs)
	}
	if d.Postgres {
		fmt.Fprintf(os.Stderr, "hubd: %s\n", d)
	}
	// SQLite: one server per data directory. PostgreSQL: any number of
	// nodes share it (and the database), each with a directory of its own.
	if d.Postgres {
		if *nodeName == "" {
			// One node per host is the usual topology; several on one
			// host each need their own --node-name.
			*nodeName, _ = os.Hostname()
			if *nodeName == "" {
				*nodeName = "localhost"
			}
		}
		if strings.ContainsAny(*nodeName, "/\\ ") || strings.HasPrefix(*nodeName, ".") {
			return fmt.Errorf("--node-name %q: want a name without slashes or spaces", *nodeName)
		}
		if *nodeDir == "" {
			*nodeDir = filepath.Join(abs, "nodes", *nodeName)
		}
		release, err := lockShared(sf.data)
		if err != nil {
			return err
		}
		defer release()
		releaseNode, err := lockNode(*nodeDir)
		if err != nil {
			return err
		}
		defer releaseNode()
		fmt.Fprintf(os.Stderr, "hubd: node %s, node directory %s\n", *nodeName, *nodeDir)
	} else {
		if *nodeName != "" || *nodeDir != "" {
			return fmt.Errorf("--node-name and --node-dir are for several nodes on one PostgreSQL database; SQLite has one server per data directory")
		}
		release, err := lockData(sf.data)
		if err != nil {
			return err
		}
		defer release()
	}

	if os.Getenv("GOGC") == "" {
		// A server's live heap is small and its garbage is per request:
		// collecting less often buys throughput and tail latency for a
		// little memory. GOGC in the environment overrides this.
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	// The other nodes' writes invalidate this one's read caches.
	if err := st.Listen(ctx, dsn); err != nil {
		return err
	}
	st.StrictReads(*strictReads)
	if *external == "" {
		*external = "http://" + ln.Addr().String()
	}
	var sshBase string
	if sshLn != nil {
		if sshBase, err = sshURLBase(*sshExternal, *external, sshLn.Addr()); err != nil {
			return err
		}
	}
	cs, err := codespacesConfig(*codeServer, *runnerUser, runner.SandboxInUse(*actionsSandbox), abs, *nodeName)
	if err != nil {
		return err
	}
	defer releaseCodespaceCgroups(cs.Cgroups) // after the IDEs stop (deferred below)
	var csLn net.Listener
	if cs.IDE != nil {
		defer cs.IDE.StopAll()
		if csLn, cs.URL, err = codespacesListener(*csAddr, *csURL, ln.Addr(), *external); err != nil {
			return err
		}
		if csLn != nil {
			defer csLn.Close()
		} else {
			fmt.Fprintf(os.Stderr, "hubd: WARNING: --codespaces-addr none: the codespaces' IDEs share hubd's origin\n")
		}
	}
	srv, deps, err := server.Build(server.Config{Codespaces: cs, Store: st, ExternalURL: *external, Limits: limits, MaxBody: *maxBody,
		TokenTTL: 5 * time.Second, Version: version, GitRoot: filepath.Join(abs, "git"), MaxPush: *maxPush,
		HookPolicy: &policy, MaxAsset: *maxAsset, Enterprise: *enterprise,
		SecretsKeys: secretsKeys, RunnerOffline: *runnerOffline, MaxJobTimeout: *maxJobTimeout, SSHBase: sshBase,
		NodeName: *nodeName})
	if err != nil {
		return err
	}
	defer deps.Git.Close()
	// Rate-limit counts still in memory are written on the way out (after
	// the last request: see stopped below).
	defer deps.Limiter.Close()
	defer deps.Insights.Close() // the API insights counters still in memory
	if deps.Metrics != nil {
		defer deps.Metrics.Close() // writes the traffic counts still in memory
	}
	if err := bootstrap(ctx, st, *adminLogin); err != nil {
		return err
	}
	// The GitHub Actions app and its system owner, made once.
	if err := (&actions.Tokens{Apps: &apps.Service{Store: st}}).Provision(ctx); err != nil {
		return fmt.Errorf("provision the GitHub Actions app: %w", err)
	}
	// Background work (mergeability, forks, ...) runs beside the requests;
	// jobs left from an earlier run are picked up here.
	// Repositories pushed before hubd indexed code are indexed now.
	if err := codeindex.Backfill(ctx, deps.Jobs, 0); err != nil {
		return fmt.Errorf("queue the code index backfill: %w", err)
	}
	deps.Jobs.Lease = *jobLease
	deps.Jobs.Start(2)
	defer deps.Jobs.Stop()
	// Jobs are dispatched to the runners that poll (local or not); the
	// local runners start after the jobs a dead hubd left on them failed.
	if *actionsWorkers > 0 {
		fmt.Fprintf(os.Stderr, "hubd: %s\n", sandboxNote)
		if sandboxErr != nil {
			fmt.Fprintf(os.Stderr, "hubd: WARNING: workflow jobs will fail until the sandbox works: %v\n", sandboxErr)
		}
		local, err := newLocalRunners(*runnerUser)
		if err != nil {
			fmt.Fprintf(os.Stderr, "hubd: %v\n", err)
		} else {
			local.URL, local.Sandbox, local.DataDir, local.Work = "http://"+ln.Addr().String(), *actionsSandbox, abs, *runnerWork
			local.Limits = jobLimits.args()
			local.Node = *nodeName
			if err := local.start(ctx, deps, *actionsWorkers); err != nil {
				return err
			}
			defer local.wait()
			fmt.Fprintf(os.Stderr, "hubd: %d local runners as %s, sandbox %s\n", *actionsWorkers, *runnerUser, runner.SandboxInUse(*actionsSandbox))
		}
	}
	if *actionsJobs <= 0 {
		*actionsJobs = *actionsWorkers + 4
	}
	deps.Runner.Start(*actionsJobs)
	defer deps.Runner.Stop()

	fmt.Printf("hubd %s listening on %s\nAPI: %s/ and %s/api/v3/\n", version, ln.Addr(), *external, *external)
	sshSrv := srv.SSH()
	sshDone := make(chan struct{})
	if sshLn != nil {
		hostKey, err := gitssh.HostKey(filepath.Join(abs, "ssh_host_ed25519_key"))
		if err != nil {
			return fmt.Errorf("ssh host key: %w", err)
		}
		fmt.Printf("SSH: %s (host key %s)\n", sshLn.Addr(), gossh.FingerprintSHA256(hostKey.PublicKey()))
		go func() {
			defer close(sshDone)
			if err := sshSrv.Serve(sshLn, hostKey); err != nil {
				slog.Error("ssh", "err", err)
			}
		}()
	} else {
		close(sshDone)
	}
	hs := srv.HTTPServer(to)
	var ideSrv *http.Server
	if csLn != nil {
		// The IDEs' websockets last as long as their window: no read or
		// write timeout, only the header's and idle connections'.
		ideSrv = &http.Server{Handler: srv.CodespacesHandler(), ReadHeaderTimeout: to.ReadHeader, IdleTimeout: to.Idle}
		fmt.Printf("Codespaces: %s (IDEs at %s)\n", csLn.Addr(), cs.URL)
		go func() {
			if err := ideSrv.Serve(csLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				slog.Error("codespaces listener", "err", err)
			}
		}()
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		deps.StopRunnerPolls() // the runners' long polls end now
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sshSrv.Shutdown(sctx)
		if ideSrv != nil {
			ideSrv.Shutdown(sctx)
		}
		hs.Shutdown(sctx)
		<-sshDone
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	// Serve returns as soon as shutdown begins: wait for the requests in
	// flight, so that what they counted is written before the store closes.
	<-stopped
	slog.Info("hubd stopped")
	return nil
}

// sshURLBase is where ssh_url points: --ssh-external (host, or host:port),
// else the host of the external URL with the SSH listener's port.
func sshURLBase(sshExternal, external string, ln net.Addr) (string, error) {
	_, port, _ := net.SplitHostPort(ln.String())
	if sshExternal != "" {
		host, p, err := net.SplitHostPort(sshExternal)
		if err != nil {
			host, p = sshExternal, "22"
		}
		if host == "" || strings.ContainsAny(host, "/@ ") {
			return "", fmt.Errorf("--ssh-external %q: want host or host:port", sshExternal)
		}
		return wire.SSHBaseFor(host, p), nil
	}
	u, err := url.Parse(external)
	if err != nil {
		return "", err
	}
	return wire.SSHBaseFor(u.Hostname(), port), nil
}

// bootstrap creates the site administrator on the first start and prints its
// token once; only the token's hash is stored.
func bootstrap(ctx context.Context, st *store.Store, login string) error {
	n, err := st.R().CountAccounts(ctx, model.TypeUser)
	if err != nil || n > 0 {
		return err
	}
	var plain string
	err = st.Tx(ctx, func(tx store.Q) error {
		u := &model.Account{Login: login, Type: model.TypeUser, SiteAdmin: true}
		if err := tx.CreateAccount(ctx, u); err != nil {
			return err
		}
		scopes := authz.ParseScopes("repo,admin:org,admin:public_key,admin:repo_hook,admin:org_hook,gist,notifications,user,delete_repo,workflow,site_admin,admin:enterprise,admin:gpg_key")
		plain, _, err = tx.CreateToken(ctx, u.ID, authz.ClassicPAT, scopes, "created on first start", nil)
		if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user.created", u.ID, 0, 0, map[string]any{"login": u.Login, "site_admin": true})
	})
	if err != nil {
		return err
	}
	fmt.Printf("First start: created the site administrator.\nlogin: %s\ntoken: %s\n(the token is shown only this once)\n", login, plain)
	return nil
}
