package actions

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/tarball"
)

// Jobs run on runners that connect to hubd (the runner protocol:
// internal/api/runnerproto, docs/runner-protocol.md). A runner long-polls
// (Poll); the queue handler of a job (Executor.handle) admits the job to
// one of the waiting runners, starts it and hands the runner its
// Assignment, which holds the job's spec with its secrets and tokens (in
// memory only) and the job's own credential for its endpoints (LiveJob):
// the files of its checkout and actions, its log lines, heartbeats and its
// result. The handler waits for the result, the runner's silence (lost
// communication), a cancellation or the timeout, then finishes the job
// and revokes its tokens.

// JobDirVar stands for the job's directory on its runner in an
// Assignment's spec: the runner replaces it with the directory it made.
const JobDirVar = "${HUBD_JOB_DIR}"

// Job file trees an Assignment lists (Files, Upload): sent as tar streams.
const (
	FilesWorkspace = "workspace" // the checkout: a git working tree with its .git
	FilesActions   = "actions"   // the remote actions, as tar.gz files
	FilesToolCache = "toolcache" // RUNNER_TOOL_CACHE (custom images)
	FilesHome      = "home"      // HOME (custom images)
)

// Assignment is the job message a runner receives.
type Assignment struct {
	JobID  int64  `json:"job_id"`
	RunID  int64  `json:"run_id"`
	Name   string `json:"name"`
	Runner string `json:"runner"` // the runner name the job runs under
	// Credential authenticates the job's endpoints while the job runs.
	Credential string `json:"credential"`
	Spec       Spec   `json:"spec"`
	// Files are the trees to fetch into the job directory before the
	// worker starts; Upload the trees to send back after it ended.
	Files  []string `json:"files"`
	Upload []string `json:"upload,omitempty"`
	// TimeoutMinutes is the job's timeout-minutes (capped by the server);
	// HeartbeatSeconds how often the runner must heartbeat the job.
	TimeoutMinutes   float64 `json:"timeout_minutes"`
	HeartbeatSeconds float64 `json:"heartbeat_seconds"`
}

// Locate puts a spec's paths into dir, the job's directory on its runner.
func (s *Spec) Locate(dir string) {
	s.relocate(JobDirVar, dir)
}

// relocate moves the spec's paths from under dir from to under to.
func (s *Spec) relocate(from, to string) {
	move := func(p string) string {
		if rest, ok := strings.CutPrefix(p, from); ok && (rest == "" || rest[0] == '/') {
			return to + rest
		}
		return p
	}
	s.Workdir, s.Result, s.ActionsDir = move(s.Workdir), move(s.Result), move(s.ActionsDir)
	for k, v := range s.Env {
		s.Env[k] = move(v)
	}
}

// waiter is a runner's long-poll.
type waiter struct {
	runner *model.Runner
	offer  chan *Assignment // one, sent under the dispatcher's lock
}

// dispatcher knows the runners waiting for a job and the jobs running on
// runners.
type dispatcher struct {
	mu      sync.Mutex
	waiting map[int64]*waiter // runner id → its poll
	arrived chan struct{}     // closed (and replaced) when a runner starts waiting
	live    map[int64]*LiveJob
	closing chan struct{} // closed when hubd stops: polls answer at once
}

func (d *dispatcher) init() {
	if d.waiting == nil {
		d.waiting, d.live, d.arrived, d.closing = map[int64]*waiter{}, map[int64]*LiveJob{}, make(chan struct{}), make(chan struct{})
	}
}

// StopPolls answers the runners' polls at once, now and from now on:
// hubd is stopping and does not wait out their long polls.
func (e *Executor) StopPolls() {
	d := &e.dispatch
	d.mu.Lock()
	defer d.mu.Unlock()
	d.init()
	select {
	case <-d.closing:
	default:
		close(d.closing)
	}
}

// WaitForJob waits up to wait for a job for runner r: nil when none came.
func (e *Executor) WaitForJob(ctx context.Context, r *model.Runner, wait time.Duration) *Assignment {
	d := &e.dispatch
	w := &waiter{runner: r, offer: make(chan *Assignment, 1)}
	d.mu.Lock()
	d.init()
	d.waiting[r.ID] = w // a runner polls once at a time: a newer poll wins
	close(d.arrived)
	d.arrived = make(chan struct{})
	closing := d.closing
	d.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case a := <-w.offer:
		return a
	case <-t.C:
	case <-ctx.Done():
	case <-closing:
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.waiting[r.ID] == w {
		delete(d.waiting, r.ID)
		return nil
	}
	select {
	case a := <-w.offer: // taken meanwhile: the job is this runner's
		return a
	default:
		return nil
	}
}

// waitingRunners are the ids of the runners polling now, and a channel
// closed when another starts polling.
func (d *dispatcher) waitingRunners() ([]int64, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.init()
	ids := make([]int64, 0, len(d.waiting))
	for id := range d.waiting {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, d.arrived
}

// take claims a waiting runner among ok (any local one when hosted):
// nil when none is waiting any more.
func (d *dispatcher) take(ok map[int64]bool, hosted bool) *waiter {
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := make([]int64, 0, len(d.waiting))
	for id, w := range d.waiting {
		if ok[id] || (hosted && w.runner.Worker) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	w := d.waiting[ids[0]]
	delete(d.waiting, ids[0])
	return w
}

// give hands a claimed runner its job (or, a nil a, nothing: it polls
// again).
func (d *dispatcher) give(w *waiter, a *Assignment) {
	d.mu.Lock()
	defer d.mu.Unlock()
	w.offer <- a
}

// LiveJob is a job running on a runner, as its endpoints see it.
type LiveJob struct {
	JobID    int64
	RunnerID int64
	credHash [32]byte
	dir      string // the job's files on hubd's side (checkout, actions, images)
	out      *cappedBuffer
	store    *store.Store

	mu       sync.Mutex
	lastBeat time.Time
	stop     string        // the conclusion the runner is told to stop with
	stopped  chan struct{} // closed when stop is set
	result   chan Result
	done     bool
}

// newCredential is a job credential.
func newCredential() string {
	b := make([]byte, 30)
	rand.Read(b)
	return "hubdj_" + base64.RawURLEncoding.EncodeToString(b)
}

// Job finds the running job id whose credential is cred: nil when none
// (it ended, or the credential is not its).
func (e *Executor) Job(id int64, cred string) *LiveJob {
	d := &e.dispatch
	d.mu.Lock()
	d.init()
	j := d.live[id]
	d.mu.Unlock()
	h := sha256.Sum256([]byte(cred))
	if j == nil || subtle.ConstantTimeCompare(h[:], j.credHash[:]) != 1 {
		return nil
	}
	return j
}

// Log takes lines the runner read from the job's worker: masked again
// with the job's secrets, then kept in the job's live log.
func (j *LiveJob) Log(text []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.done {
		j.out.Write(text)
	}
}

// Heartbeat notes the runner is alive and tells it the conclusion to stop
// with ("": go on). It is a long poll: it answers as soon as the job is to
// stop, else after wait (the runner calls again at once), so a
// cancellation reaches the runner at once.
func (j *LiveJob) Heartbeat(ctx context.Context, wait time.Duration) string {
	j.mu.Lock()
	j.lastBeat = time.Now()
	stop, stopped := j.stop, j.stopped
	j.mu.Unlock()
	if stop != "" || wait <= 0 {
		return stop
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-stopped:
	case <-t.C:
	case <-ctx.Done():
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lastBeat = time.Now()
	return j.stop
}

// HeartbeatWait is how long a heartbeat waits for a stop.
func (e *Executor) HeartbeatWait() time.Duration { return e.heartbeat() }

// Finish takes the job's result (the first one counts).
func (j *LiveJob) Finish(res Result) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lastBeat = time.Now()
	select {
	case j.result <- res:
	default:
	}
}

// Steps takes the job's steps as they stand (the jobs API shows them
// while the job runs).
func (j *LiveJob) Steps(ctx context.Context, steps []model.WorkflowStep) error {
	j.mu.Lock()
	done := j.done
	j.mu.Unlock()
	if done {
		return nil
	}
	return j.store.Tx(ctx, func(tx store.Q) error { return tx.SetRunningJobSteps(ctx, j.JobID, steps) })
}

// Files writes the job's file tree part (Assignment.Files) as a tar.
func (j *LiveJob) Files(part string, w io.Writer) error {
	if !validPart(part) {
		return model.ErrNotFound
	}
	return tarball.Write(w, PartDir(j.dir, part))
}

// Upload takes back a tree the assignment asked for (Upload): custom
// image snapshots.
func (j *LiveJob) Upload(part string, r io.Reader) error {
	if part != FilesToolCache && part != FilesHome {
		return model.ErrNotFound
	}
	dst := PartDir(j.dir, part)
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return tarball.Extract(r, dst)
}

// PartDir is where a job's tree part is in its directory dir.
func PartDir(dir, part string) string {
	switch part {
	case FilesToolCache:
		return JobToolCache(dir)
	case FilesHome:
		return JobHome(dir)
	}
	return filepath.Join(dir, part)
}

func validPart(p string) bool {
	switch p {
	case FilesWorkspace, FilesActions, FilesToolCache, FilesHome:
		return true
	}
	return false
}

// Recover fails the jobs left in progress on the runners named (this
// host's local runners, when hubd starts again after it died): their
// tokens are revoked first, then each job fails with a line saying why.
// hubd runs it before it serves.
func (e *Executor) Recover(ctx context.Context, runners []string) error {
	list, err := e.svc.Store.R().JobsInProgressOn(ctx, runners)
	if err != nil {
		return err
	}
	for _, j := range list {
		if err := e.revokeJobToken(ctx, j.ID); err != nil {
			return err
		}
		log := ""
		if prev, err := e.svc.JobLog(ctx, j); err == nil {
			log = prev // what it wrote before hubd stopped
		}
		log += e.stamp("##[error]" + stoppedRunner + "\n")
		if err := e.finish(ctx, j, model.ConclusionFailure, nil, nil, log); err != nil {
			return err
		}
		e.dropLiveLog(j.ID)
	}
	return nil
}

// stoppedRunner is the log line of a job whose hubd process ended while
// the job ran.
const stoppedRunner = "The runner of this job stopped responding (its hubd process ended) and the job was failed."

// revokeJobToken revokes the GITHUB_TOKEN of a job in progress (its
// runtime token stops working when the job ends).
func (e *Executor) revokeJobToken(ctx context.Context, jobID int64) error {
	id, err := e.svc.Store.R().JobTokenID(ctx, jobID)
	if err != nil || id == 0 || e.Revoke == nil {
		return err
	}
	return e.Revoke(ctx, id)
}
