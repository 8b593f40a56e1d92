package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/tarball"
)

// Runner runs jobs it polls from hubd.
type Runner struct {
	Client *Client
	Name   string
	// Work is the runner's work root: each job gets a directory job-N-*
	// there, removed when the job ends; stale ones are removed at start.
	Work string
	// Worker is the command of one job's worker (`hubd actions-worker`);
	// it reads the job's spec from its standard input.
	Worker []string
	// Isolation is how the worker is isolated (isolate.go).
	Isolation *Isolation
	// Ephemeral runners stop after one job.
	Ephemeral bool
	// LogEvery is how long log lines are batched before they are posted
	// (default 200 ms).
	LogEvery time.Duration
	// Logf, when set, reports what the runner does (hubd runner prints it).
	Logf func(format string, args ...any)
	// CA is the PEM of a private CA hubd's https certificate chains to
	// (hubd runner --ca-file): every job gets a bundle of the system's CAs
	// and it, named by NODE_EXTRA_CA_CERTS, SSL_CERT_FILE and
	// GIT_SSL_CAINFO, so node actions, curl and git in steps trust hubd.
	CA []byte
}

// SystemCABundle is where the system's CAs are (Debian's, the Go
// toolchain's first guess); a job's bundle starts with them.
var SystemCABundle = "/etc/ssl/certs/ca-certificates.crt"

// caEnv writes the job's CA bundle into its directory dir and adds the
// variables that name it to env.
func (r *Runner) caEnv(dir string, env map[string]string) error {
	if len(r.CA) == 0 {
		return nil
	}
	bundle, err := os.ReadFile(SystemCABundle)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if len(bundle) > 0 && bundle[len(bundle)-1] != '\n' {
		bundle = append(bundle, '\n')
	}
	all := filepath.Join(dir, "ca-certificates.pem")
	own := filepath.Join(dir, "hubd-ca.pem")
	if err := os.WriteFile(all, append(bundle, r.CA...), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(own, r.CA, 0o644); err != nil {
		return err
	}
	// Node adds NODE_EXTRA_CA_CERTS to its own list; OpenSSL and git
	// replace theirs with the file named, hence the whole bundle.
	env["NODE_EXTRA_CA_CERTS"], env["SSL_CERT_FILE"], env["GIT_SSL_CAINFO"] = own, all, all
	return nil
}

func (r *Runner) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

// Run polls for jobs and runs them one at a time until ctx ends, the
// runner's one job ended (Ephemeral) or hubd rejects its credential.
func (r *Runner) Run(ctx context.Context) error {
	if r.Isolation == nil {
		r.Isolation = &Isolation{}
	}
	if err := r.clean(); err != nil {
		return err
	}
	// The isolation is verified before the first job: a runner told to
	// use bubblewrap does not start without it; otherwise each job fails
	// naming the fix until it works.
	if note, err := r.Isolation.Check(r.Work); err != nil {
		if r.Isolation.Mode == SandboxBwrap {
			return fmt.Errorf("runner %s: %w", r.Name, err)
		}
		r.logf("WARNING: jobs will fail until the sandbox works: %v", err)
	} else {
		r.logf("%s", note)
	}
	defer func() {
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = r.Client.Goodbye(gctx)
	}()
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		a, err := r.Client.Poll(ctx)
		var rej ErrRejected
		switch {
		case errors.As(err, &rej):
			return fmt.Errorf("runner %s: hubd rejected its credential (removed?): %w", r.Name, err)
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			backoff = min(max(2*backoff, 500*time.Millisecond), 30*time.Second)
			r.logf("poll: %v (again in %v)", err, backoff)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			continue
		}
		backoff = 0
		if a == nil {
			continue
		}
		r.logf("job %d (%s): started", a.JobID, a.Name)
		conclusion := r.runJob(ctx, a)
		r.logf("job %d (%s): %s", a.JobID, a.Name, conclusion)
		if r.Ephemeral {
			return nil
		}
	}
	return nil
}

// clean removes what jobs left in the work root (a runner that died
// mid-job).
func (r *Runner) clean() error {
	if err := os.MkdirAll(r.Work, 0o700); err != nil {
		return err
	}
	if r.Isolation.Credential != nil {
		// Its jobs run as another user, who must reach their directories
		// (each its own, 0700) but not list them.
		if err := os.Chmod(r.Work, 0o711); err != nil {
			return err
		}
	}
	stale, _ := filepath.Glob(filepath.Join(r.Work, "job-*"))
	for _, d := range stale {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("runner: stale job directory: %v", err)
		}
	}
	return nil
}

// runJob runs one job to its end and reports it; its directory goes
// whatever happens.
func (r *Runner) runJob(ctx context.Context, a *actions.Assignment) string {
	jc := jobClient{c: r.Client, id: a.JobID, cred: a.Credential}
	masks := actions.SecretMasks(actions.JobSecrets(&a.Spec))
	out := &logPoster{jc: jc, masks: masks, every: r.LogEvery}
	out.start(ctx)
	res := r.execute(ctx, a, jc, out)
	out.stop()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := jc.result(rctx, res); err != nil {
		r.logf("job %d: result: %v", a.JobID, err)
	}
	return res.Conclusion
}

// execute prepares the job's directory, runs its worker and returns its
// result; everything it writes to the log goes through out.
func (r *Runner) execute(ctx context.Context, a *actions.Assignment, jc jobClient, out *logPoster) actions.Result {
	fail := func(format string, args ...any) actions.Result {
		out.line("##[error]" + fmt.Sprintf(format, args...))
		return actions.Result{Conclusion: model.ConclusionFailure}
	}
	dir, err := os.MkdirTemp(r.Work, fmt.Sprintf("job-%d-", a.JobID))
	if err != nil {
		return fail("work directory: %v", err)
	}
	defer os.RemoveAll(dir)
	for _, part := range a.Files {
		body, err := jc.files(ctx, part)
		if err == nil {
			err = tarball.Extract(body, actions.PartDir(dir, part))
			body.Close()
		}
		if err != nil {
			return fail("fetching the job's %s: %v", part, err)
		}
	}
	for _, d := range []string{"tmp", "toolcache", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return fail("work directory: %v", err)
		}
	}
	spec := a.Spec
	spec.Locate(dir)
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	if err := r.caEnv(dir, spec.Env); err != nil {
		return fail("CA bundle: %v", err)
	}
	if cred := r.Isolation.Credential; cred != nil {
		// The worker runs as the runner user: the job's directory is its.
		if err := chownTree(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail("work directory: %v", err)
		}
	}
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return fail("spec: %v", err)
	}
	// A clean environment: never the runner's.
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + actions.JobHome(dir),
		"LANG=C.UTF-8", "TMPDIR=" + filepath.Join(dir, "tmp"), "HUBD_ACTIONS_WORKER=1"}
	defer clear(specJSON) // the secrets stay in memory no longer than the job
	proc, note, err := isolate(ctx, r.Isolation, r.Work, dir, r.Worker, env, bytes.NewReader(specJSON), out)
	if err != nil {
		return fail("%v", err)
	}
	out.line(note)
	defer proc.Kill() // whatever the job left behind in its process group
	timeout := time.Duration(a.TimeoutMinutes * float64(time.Minute))
	if timeout <= 0 {
		timeout = 360 * time.Minute
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	// Heartbeats are long polls: the answer comes at once when the job is
	// to stop (cancelled, timed out), else after heartbeat_seconds.
	hctx, hstop := context.WithCancel(ctx)
	defer hstop()
	stopc := make(chan string, 1)
	go r.heartbeats(hctx, jc, stopc)
	type ended struct {
		limit string
		err   error
	}
	done := make(chan ended, 1)
	go func() {
		limit, err := proc.Wait()
		done <- ended{limit, err}
	}()
	steps := &stepReporter{jc: jc, path: filepath.Join(dir, actions.StepsFile), masks: out.masks}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	stopped := ""
	var werr error
	limit := ""
wait:
	for {
		select {
		case <-tick.C:
			steps.report(ctx)
		case e := <-done:
			werr, limit = e.err, e.limit
			break wait
		case <-deadline.C:
			stopped = model.ConclusionTimedOut
			proc.Kill()
		case <-ctx.Done():
			stopped = model.ConclusionCancelled
			proc.Kill()
		case stop := <-stopc:
			stopped = stop
			proc.Kill()
		}
	}
	hstop()
	proc.Kill()
	out.flush()
	var res actions.Result
	b, rerr := os.ReadFile(filepath.Join(dir, "result.json"))
	switch {
	case limit != "" && stopped == "":
		out.line(fmt.Sprintf("##[error]The job was stopped: it exceeded its %s.", limit))
		res.Conclusion = model.ConclusionFailure
	case stopped == model.ConclusionTimedOut && a.TimeoutMinutes > 0:
		out.line(fmt.Sprintf("##[error]The job running on runner %s has exceeded the maximum execution time of %d minutes.", a.Runner, int(timeout/time.Minute)))
		res.Conclusion = stopped
	case stopped != "":
		res.Conclusion = stopped
	case rerr != nil || json.Unmarshal(b, &res) != nil:
		out.line(fmt.Sprintf("##[error]The worker process of this job ended without a result (%v).", werr))
		res.Conclusion = model.ConclusionFailure
	}
	for _, part := range a.Upload {
		if err := r.upload(ctx, jc, part, actions.PartDir(dir, part)); err != nil {
			out.line(fmt.Sprintf("##[warning]Sending the job's %s back failed: %v", part, err))
		}
	}
	return res
}

// stepReporter posts the steps the worker keeps in its steps file when
// they change.
type stepReporter struct {
	jc    jobClient
	path  string
	masks []string
	last  []byte
}

func (s *stepReporter) report(ctx context.Context) {
	b, err := os.ReadFile(s.path)
	if err != nil || bytes.Equal(b, s.last) {
		return
	}
	var steps []model.WorkflowStep
	if json.Unmarshal(b, &steps) != nil {
		return
	}
	for i := range steps {
		steps[i].Name = actions.Mask(steps[i].Name, s.masks)
	}
	body, _ := json.Marshal(steps)
	if err := s.jc.post(ctx, "steps", bytes.NewReader(body), nil); err == nil {
		s.last = b
	}
}

// heartbeats keeps heartbeating a job until ctx ends; the conclusion hubd
// says the job is to stop with goes to stopc (cancelled when hubd no
// longer knows the job: it restarted).
func (r *Runner) heartbeats(ctx context.Context, jc jobClient, stopc chan<- string) {
	for ctx.Err() == nil {
		stop, err := jc.heartbeat(ctx)
		var rej ErrRejected
		switch {
		case errors.As(err, &rej):
			stopc <- model.ConclusionCancelled
			return
		case err != nil:
			slog.Debug("runner: heartbeat", "job", jc.id, "err", err)
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
		case stop != "":
			stopc <- stop
			return
		}
	}
}

// upload sends a tree of the job back to hubd.
func (r *Runner) upload(ctx context.Context, jc jobClient, part, dir string) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(tarball.Write(pw, dir)) }()
	err := jc.upload(ctx, part, pr)
	pr.CloseWithError(io.ErrClosedPipe)
	return err
}

// chownTree gives a tree to uid:gid.
func chownTree(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// logPoster masks what the worker writes and posts it, in batches, to the
// job's log.
type logPoster struct {
	jc    jobClient
	masks []string
	every time.Duration

	mu      sync.Mutex
	partial []byte
	batch   bytes.Buffer
	stopc   chan struct{}
	stopped chan struct{}
}

func (l *logPoster) start(ctx context.Context) {
	if l.every <= 0 {
		l.every = 200 * time.Millisecond
	}
	l.stopc, l.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.stopped)
		t := time.NewTicker(l.every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				l.send(ctx)
			case <-l.stopc:
				l.send(ctx)
				return
			}
		}
	}()
}

// Write takes the worker's output: whole lines are masked and batched.
func (l *logPoster) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 && len(l.partial) < 64<<10 {
			break
		}
		n := i + 1
		if i < 0 {
			n = len(l.partial)
		}
		l.batch.WriteString(actions.Mask(string(l.partial[:n]), l.masks))
		l.partial = l.partial[n:]
	}
	return len(p), nil
}

// line adds a line of the runner's own, timestamped.
func (l *logPoster) line(s string) {
	l.flush()
	l.Write([]byte(time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z") + " " + strings.TrimRight(s, "\n") + "\n"))
}

// flush ends a partial last line.
func (l *logPoster) flush() {
	l.mu.Lock()
	if len(l.partial) > 0 {
		l.partial = append(l.partial, '\n')
	}
	l.mu.Unlock()
	l.Write(nil)
}

func (l *logPoster) send(ctx context.Context) {
	l.mu.Lock()
	if l.batch.Len() == 0 {
		l.mu.Unlock()
		return
	}
	b := bytes.Clone(l.batch.Bytes())
	l.batch.Reset()
	l.mu.Unlock()
	for len(b) > 0 {
		n := min(len(b), 512<<10)
		if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 && n < len(b) {
			n = i + 1
		}
		if err := l.jc.log(context.WithoutCancel(ctx), b[:n]); err != nil {
			slog.Debug("runner: log", "job", l.jc.id, "err", err)
		}
		b = b[n:]
	}
}

// stop posts what is left and ends the poster.
func (l *logPoster) stop() {
	l.flush()
	close(l.stopc)
	<-l.stopped
}
