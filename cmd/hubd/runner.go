package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hubd/hubd/internal/runner"
)

// defaultRunnerUser is the user jobs run as when their runner is root
// (scripts/deps.sh creates it).
const defaultRunnerUser = "hubd-runner"

// runnerCmd is `hubd runner`: a runner of hubd's runner protocol. It
// registers with a registration token (or connects with a JIT
// configuration), keeps its credential in memory only, and runs the jobs
// hubd gives it, one at a time.
func runnerCmd(args []string) error {
	fs := flag.NewFlagSet("runner", flag.ExitOnError)
	url := fs.String("url", os.Getenv("HUBD_URL"), "hubd's URL, e.g. https://hubd.example (env HUBD_URL)")
	token := fs.String("token", "", "a registration token (POST .../actions/runners/registration-token)")
	jit := fs.String("jitconfig", "", "a JIT configuration (generate-jitconfig's encoded_jit_config) instead of --token")
	name := fs.String("name", "", "the runner's name (default: the host name)")
	labels := fs.String("labels", "self-hosted,Linux,X64", "comma-separated labels")
	cache, _ := os.UserCacheDir()
	work := fs.String("work", filepath.Join(cache, "hubd-runner"), "the work root: one directory per job, removed when the job ends")
	ephemeral := fs.Bool("ephemeral", false, "run one job, then stop (the runner is removed)")
	sandbox := fs.String("sandbox", runner.SandboxAuto, "isolation of jobs: bwrap, none, or auto (bwrap when it works)")
	runAs := fs.String("user", defaultRunnerUser, "as root: the user jobs run as (never root)")
	credFD := fs.Int("credential-fd", -1, "read the runner's credential from this inherited file descriptor (hubd serve's local runners)")
	hide := fs.String("hide", "", "comma-separated directories jobs may not see (hubd serve's data directory)")
	cgroupRoot := fs.String("cgroup-root", "", "a cgroup delegated to this runner's user, where each job's limits are set (hubd serve's local runners get one); without it, jobs' limits are rlimits")
	caFile := fs.String("ca-file", os.Getenv("HUBD_CA_FILE"), "PEM of a private CA that hubd's https certificate chains to: the runner trusts it, and its jobs get NODE_EXTRA_CA_CERTS, SSL_CERT_FILE and GIT_SSL_CAINFO naming it (env HUBD_CA_FILE)")
	var jobLimits jobLimitFlags
	jobLimits.register(fs)
	fs.Parse(args)
	if fs.NArg() > 0 {
		return fmt.Errorf("runner: unexpected argument %q", fs.Arg(0))
	}
	if err := runner.ValidSandbox(*sandbox); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	limits, err := jobLimits.limits()
	if err != nil {
		return err
	}
	iso := &runner.Isolation{Mode: *sandbox, Limits: limits, CgroupRoot: *cgroupRoot}
	if *hide != "" {
		iso.Hide = strings.Split(*hide, ",")
	}
	if os.Geteuid() == 0 {
		if iso.Credential, err = lookupCredential(*runAs); err != nil {
			return fmt.Errorf("runner: running as root, jobs run as --user %s: %w", *runAs, err)
		}
		// The jobs' user must be able to run the worker binary.
		if exe, err = runner.InstallWorker(exe, ""); err != nil {
			return fmt.Errorf("runner: %w", err)
		}
		defer os.RemoveAll(filepath.Dir(exe))
	}
	if *name == "" {
		*name, _ = os.Hostname()
	}
	c := &runner.Client{URL: *url}
	var ca []byte
	if *caFile != "" {
		if ca, c.HTTP, err = trustingClient(*caFile); err != nil {
			return fmt.Errorf("runner: --ca-file: %w", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case *credFD >= 0:
		f := os.NewFile(uintptr(*credFD), "credential")
		b, err := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if err != nil {
			return fmt.Errorf("runner: credential: %w", err)
		}
		c.Credential = strings.TrimSpace(string(b))
	case *jit != "":
		if c.URL, *name, c.Credential, err = runner.ParseJIT(*jit); err != nil {
			return err
		}
		*ephemeral = true
	case *token != "":
		if c.URL == "" {
			return errors.New("runner: --url is required")
		}
		reg, err := c.Register(ctx, *token, *name, strings.Split(*labels, ","), *ephemeral)
		if err != nil {
			return fmt.Errorf("runner: register: %w", err)
		}
		*name = reg.Name
		fmt.Fprintf(os.Stderr, "hubd runner: registered as %s (id %d)\n", reg.Name, reg.ID)
	default:
		return errors.New("runner: --token or --jitconfig is required")
	}
	if c.URL == "" || c.Credential == "" {
		return errors.New("runner: no URL or credential")
	}
	r := &runner.Runner{Client: c, Name: *name, Work: *work, Worker: []string{exe, "actions-worker"}, Isolation: iso, Ephemeral: *ephemeral, CA: ca,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "hubd runner "+*name+": "+format+"\n", args...)
		}}
	fmt.Fprintf(os.Stderr, "hubd runner %s: polling %s for jobs (work %s, sandbox %s)\n", *name, c.URL, *work, runner.SandboxInUse(*sandbox))
	return r.Run(ctx)
}

// trustingClient is an HTTP client that trusts the system's CAs and the
// ones of the PEM file caFile, which it returns.
func trustingClient(caFile string) ([]byte, *http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	return pem, &http.Client{Transport: tr}, nil
}

// lookupCredential is a user's uid and gid; root is refused.
func lookupCredential(name string) (*syscall.Credential, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	if uid == 0 {
		return nil, fmt.Errorf("user %s is root: jobs never run as root", name)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
