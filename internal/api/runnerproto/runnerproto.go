// Package runnerproto is the transport of the runner protocol
// (docs/runner-protocol.md): the HTTP(S) endpoints that runners — `hubd
// runner`, hubd's own local runners among them — register at, long-poll
// for jobs at, and run their jobs through. Runners authenticate with their
// own credential (X-Hubd-Runner), a job's endpoints with the job's
// credential (X-Hubd-Job), never with a user's token. The routes are
// hubd's extensions: GitHub's runner application speaks another protocol.
package runnerproto

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/runners"
	"github.com/hubd/hubd/internal/runnerwire"
)

// API is the runner protocol's transport.
type API struct {
	d       *api.Deps
	exec    *actions.Executor
	runners *runners.Service
	// PollWait is how long a poll waits for a job before answering none.
	PollWait time.Duration

	mu       sync.Mutex
	lastSeen map[int64]time.Time // when each runner's last_seen was written
}

// New makes the transport and lets the program register local runners
// and recover their jobs after a crash (d.LocalRunners, d.RecoverJobs).
func New(d *api.Deps, exec *actions.Executor, rs *runners.Service) *API {
	a := &API{d: d, exec: exec, runners: rs, PollWait: 40 * time.Second, lastSeen: map[int64]time.Time{}}
	d.LocalRunners, d.RecoverJobs, d.StopRunnerPolls = rs.LocalRunners, exec.Recover, exec.StopPolls
	return a
}

// Routes is the protocol's route table.
func (a *API) Routes() []rest.Route {
	job := func(h func(w http.ResponseWriter, r *http.Request, j *actions.LiveJob) error) rest.Handler {
		return func(w http.ResponseWriter, r *http.Request) error {
			id, _ := strconv.ParseInt(r.PathValue("job_id"), 10, 64)
			j := a.exec.Job(id, r.Header.Get(runnerwire.JobHeader))
			if j == nil {
				return runners.ErrBadCredential // ended, or not this credential's
			}
			return h(w, r, j)
		}
	}
	jp := runnerwire.JobsPath + "{job_id}"
	return []rest.Route{
		{Method: "POST", Pattern: runnerwire.RegisterPath, OperationID: "hubd/runner-register", Handler: a.register, Extension: true, NoRateLimit: true},
		{Method: "POST", Pattern: runnerwire.PollPath, OperationID: "hubd/runner-poll", Handler: a.poll, Extension: true, NoRateLimit: true},
		{Method: "POST", Pattern: runnerwire.GoodbyePath, OperationID: "hubd/runner-goodbye", Handler: a.goodbye, Extension: true, NoRateLimit: true},
		{Method: "GET", Pattern: jp + "/files/{part}", OperationID: "hubd/runner-job-files", Handler: job(a.files), Extension: true, NoRateLimit: true, Stream: true},
		{Method: "POST", Pattern: jp + "/files/{part}", OperationID: "hubd/runner-job-upload", Handler: job(a.upload), Extension: true, NoRateLimit: true, Stream: true},
		{Method: "POST", Pattern: jp + "/log", OperationID: "hubd/runner-job-log", Handler: job(a.log), Extension: true, NoRateLimit: true},
		{Method: "POST", Pattern: jp + "/steps", OperationID: "hubd/runner-job-steps", Handler: job(a.steps), Extension: true, NoRateLimit: true},
		{Method: "POST", Pattern: jp + "/heartbeat", OperationID: "hubd/runner-job-heartbeat", Handler: job(a.heartbeat), Extension: true, NoRateLimit: true},
		{Method: "POST", Pattern: jp + "/result", OperationID: "hubd/runner-job-result", Handler: job(a.result), Extension: true, NoRateLimit: true},
	}
}

// POST /_runner/register: a registration token (or nothing but a JIT
// runner's credential, which is already registered) gives a credential.
func (a *API) register(w http.ResponseWriter, r *http.Request) error {
	var in runners.RegisterInput
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	run, cred, err := a.runners.Register(r.Context(), in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, runnerwire.RegisterResponse{ID: run.ID, Name: run.Name, Credential: cred})
}

// runner authenticates the runner of a request and marks it online.
func (a *API) runner(r *http.Request) (*model.Runner, error) {
	run, err := a.runners.Authenticate(r.Context(), r.Header.Get(runnerwire.RunnerHeader))
	if err != nil {
		return nil, err
	}
	return run, a.markSeen(r.Context(), run.ID)
}

// markSeen writes that a runner was heard of, at most a few times per
// offline window (a write per log post would load the database for
// nothing).
func (a *API) markSeen(ctx context.Context, id int64) error {
	now := time.Now()
	a.mu.Lock()
	if now.Sub(a.lastSeen[id]) < a.runners.Offline/6 {
		a.mu.Unlock()
		return nil
	}
	a.lastSeen[id] = now
	a.mu.Unlock()
	return a.runners.Seen(ctx, id)
}

// POST /_runner/poll: a job for the runner (200), or none within PollWait
// (204).
func (a *API) poll(w http.ResponseWriter, r *http.Request) error {
	run, err := a.runner(r)
	if err != nil {
		return err
	}
	job := a.exec.WaitForJob(r.Context(), run, a.PollWait)
	if job == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	return rest.JSON(w, http.StatusOK, job)
}

// POST /_runner/goodbye: the runner stops (offline at once).
func (a *API) goodbye(w http.ResponseWriter, r *http.Request) error {
	run, err := a.runners.Authenticate(r.Context(), r.Header.Get(runnerwire.RunnerHeader))
	if err != nil {
		return err
	}
	a.mu.Lock()
	delete(a.lastSeen, run.ID)
	a.mu.Unlock()
	if err := a.runners.Gone(r.Context(), run.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET .../files/{part}: a tree of the job as a tar.
func (a *API) files(w http.ResponseWriter, r *http.Request, j *actions.LiveJob) error {
	w.Header().Set("Content-Type", "application/x-tar")
	if err := j.Files(r.PathValue("part"), w); err != nil {
		if errors.Is(err, model.ErrNotFound) {
			return err
		}
		slog.Warn("runner protocol: files", "job", j.JobID, "err", err)
	}
	return nil
}

// POST .../files/{part}: a tree the job sends back (snapshots).
func (a *API) upload(w http.ResponseWriter, r *http.Request, j *actions.LiveJob) error {
	if err := j.Upload(r.PathValue("part"), r.Body); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// POST .../log: log lines (text), masked again before they are kept.
func (a *API) log(w http.ResponseWriter, r *http.Request, j *actions.LiveJob) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, runnerwire.MaxLogPost+1))
	if err != nil {
		return err
	}
	if len(b) > runnerwire.MaxLogPost {
		return &model.HTTPError{Status: http.StatusRequestEntityTooLarge, Message: "a log post holds at most 1 MiB"}
	}
	j.Log(b)
	a.seen(r.Context(), j)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// POST .../steps: the job's steps as they stand.
func (a *API) steps(w http.ResponseWriter, r *http.Request, j *actions.LiveJob) error {
	var steps []model.WorkflowStep
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&steps); err != nil {
		return model.Invalid("Steps", "body", "invalid")
	}
	if err := j.Steps(r.Context(), steps); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// POST .../heartbeat: the job goes on (after HeartbeatWait), or the runner
// is to stop it (at once).
func (a *API) heartbeat(w http.ResponseWriter, r *http.Request, j *actions.LiveJob) error {
	stop := j.Heartbeat(r.Context(), a.exec.HeartbeatWait())
	a.seen(r.Context(), j)
	return rest.JSON(w, http.StatusOK, runnerwire.HeartbeatResponse{Stop: stop})
}

// POST .../result: the job's conclusion, outputs and steps.
func (a *API) result(w http.ResponseWriter, r *http.Request, j *actions.LiveJob) error {
	var res actions.Result
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&res); err != nil {
		return model.Invalid("Result", "body", "invalid")
	}
	j.Finish(res)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// seen keeps a busy runner online.
func (a *API) seen(ctx context.Context, j *actions.LiveJob) {
	if err := a.markSeen(ctx, j.RunnerID); err != nil {
		slog.Warn("runner protocol: heartbeat", "runner", j.RunnerID, "err", err)
	}
}
