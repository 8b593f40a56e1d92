package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hubd/hubd/internal/model"
	actmodel "github.com/nektos/act/pkg/model"
	"github.com/nektos/act/pkg/runner"
	"github.com/sirupsen/logrus"
)

// Spec is what hubd hands the worker process of one job (as JSON, over the
// runner protocol and then the worker's standard input: never a file).
type Spec struct {
	Path     string            `json:"path"`   // .github/workflows/ci.yml
	Source   string            `json:"source"` // the file at the run's commit
	JobKey   string            `json:"job"`
	Matrix   map[string]any    `json:"matrix,omitempty"`
	Needs    map[string]Need   `json:"needs,omitempty"`
	Event    string            `json:"event"`
	Payload  map[string]any    `json:"payload"` // the event's payload
	Inputs   map[string]string `json:"inputs,omitempty"`
	Actor    string            `json:"actor"`
	Workdir  string            `json:"workdir"` // the checkout
	Instance string            `json:"instance"`
	Env      map[string]string `json:"env"` // GITHUB_* of the run
	Token    string            `json:"token"`
	// Secrets are masked in the log (GITHUB_TOKEN among them; repository
	// and organization secrets come with their own issue).
	Secrets map[string]string `json:"secrets,omitempty"`
	// Vars is the vars context: the configuration variables the job may
	// see (internal/variables' spec hook).
	Vars   map[string]string `json:"vars,omitempty"`
	Result string            `json:"result"` // where the worker writes its Result
	// Actions are the remote actions hubd resolved for the job
	// (owner/repo@ref → commit), their trees kept in ActionsDir.
	Actions    map[string]string `json:"actions,omitempty"`
	ActionsDir string            `json:"actions_dir,omitempty"`
}

// Need is a completed job another one needs.
type Need struct {
	Result  string            `json:"result"`
	Outputs map[string]string `json:"outputs"`
}

// Result is what the worker reports of its job.
type Result struct {
	Conclusion string               `json:"conclusion"`
	Outputs    map[string]string    `json:"outputs"`
	Steps      []model.WorkflowStep `json:"steps"`
}

// Work runs the job whose spec it reads from in (the worker's standard
// input) with nektos/act's host executor, writing the job's log to out; it
// is the body of the `hubd actions-worker` process.
func Work(ctx context.Context, in io.Reader, out io.Writer) error {
	b, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	lw := &logWriter{out: out, masks: SecretMasks(s.Secrets), stepsPath: filepath.Join(filepath.Dir(s.Result), StepsFile)}
	res := lw.run(ctx, &s)
	rb, _ := json.Marshal(res)
	return os.WriteFile(s.Result, rb, 0o600)
}

func (lw *logWriter) run(ctx context.Context, s *Spec) Result {
	fail := func(format string, args ...any) Result {
		lw.line("##[error]" + fmt.Sprintf(format, args...))
		return Result{Conclusion: model.ConclusionFailure, Steps: lw.steps}
	}
	p, err := parseWorkflow(s.Path, []byte(s.Source))
	if err != nil {
		return fail("%v", err)
	}
	job := p.wf.Jobs[s.JobKey]
	if job == nil {
		return fail("job %q is not in %s", s.JobKey, s.Path)
	}
	if job.Container() != nil || len(job.Services) > 0 {
		return fail("hubd runs jobs on the host without Docker: container: and services: are not supported")
	}
	// The jobs this one needs ran in their own processes: their results
	// and outputs are what they reported.
	for k, n := range s.Needs {
		if j := p.wf.Jobs[k]; j != nil {
			j.Outputs, j.Result = n.Outputs, n.Result
		}
	}
	evPath := filepath.Join(filepath.Dir(s.Result), "event.json")
	eb, _ := json.Marshal(s.Payload)
	if err := os.WriteFile(evPath, eb, 0o600); err != nil {
		return fail("%v", err)
	}
	cfg := &runner.Config{
		Actor: s.Actor, Workdir: s.Workdir, EventName: s.Event, EventPath: evPath,
		DefaultBranch: s.Env["GITHUB_DEFAULT_BRANCH"], LogOutput: true, Env: s.Env, Inputs: s.Inputs,
		Secrets: s.Secrets, Vars: s.Vars, Token: s.Token, GitHubInstance: s.Instance, ActionOfflineMode: true,
		Platforms: map[string]string{}, NoSkipCheckout: false, UseGitIgnore: false, ConcurrentJobs: 1,
		ContainerDaemonSocket: "-", ActionCacheDir: filepath.Join(filepath.Dir(s.Result), "act"),
		// Actions come from hubd's repositories only (uses.go).
		ActionCache: &offlineActions{dir: s.ActionsDir, actions: s.Actions},
	}
	// Every runs-on label runs on this host.
	for _, l := range job.RunsOn() {
		cfg.Platforms[strings.ToLower(l)] = "-self-hosted"
	}
	if len(cfg.Platforms) == 0 {
		return fail("job %q has no runs-on", s.JobKey)
	}
	if s.Matrix != nil {
		cfg.Matrix = map[string]map[string]bool{}
		for k, v := range s.Matrix {
			cfg.Matrix[k] = map[string]bool{fmt.Sprint(v): true}
		}
	}
	r, err := runner.New(cfg)
	if err != nil {
		return fail("%v", err)
	}
	plan := &actmodel.Plan{Stages: []*actmodel.Stage{{Runs: []*actmodel.Run{{Workflow: p.wf, JobID: s.JobKey}}}}}
	ctx = runner.WithJobLoggerFactory(ctx, lw)
	runErr := r.NewPlanExecutor(plan)(ctx)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	res := Result{Outputs: job.Outputs, Steps: lw.steps}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Conclusion = model.ConclusionTimedOut
	case ctx.Err() != nil:
		res.Conclusion = model.ConclusionCancelled
	case lw.jobResult == "skipped":
		res.Conclusion = model.ConclusionSkipped
	case runErr != nil || lw.jobResult == "failure" || job.Result == "failure":
		res.Conclusion = model.ConclusionFailure
	default:
		res.Conclusion = model.ConclusionSuccess
	}
	for i := range res.Steps {
		if res.Steps[i].Status != model.ActionsCompleted {
			res.Steps[i].Status = model.ActionsCompleted
			c := res.Conclusion
			res.Steps[i].Conclusion = &c
		}
	}
	return res
}

// logWriter turns act's log entries into GitHub's log text (each line
// prefixed with its time) and follows the steps.
type logWriter struct {
	mu        sync.Mutex
	out       io.Writer
	steps     []model.WorkflowStep
	jobResult string
	masks     []string // SecretMasks of the job's secrets
	// stepsPath is where the steps as they stand are written whenever one
	// starts or ends (the runner reports them while the job runs).
	stepsPath string
	// lastOutput is when a step's output last came (unix nanoseconds).
	lastOutput atomic.Int64
}

// drainHook holds back the entry that ends a failed step until the step's
// output has stopped coming. act copies a step's output from a pseudo-
// terminal in a goroutine, and when the step's process fails it reports the
// step over before that copy has drained: the last lines (often the error
// itself) would land after the step's end, in the next step's group. Hooks
// run before the logger takes its lock, so the copy's lines are written
// meanwhile.
type drainHook struct{ lw *logWriter }

// Output that stops for drainQuiet is over; a step waits drainMost at most.
const (
	drainQuiet = 30 * time.Millisecond
	drainMost  = 300 * time.Millisecond
)

func (drainHook) Levels() []logrus.Level { return logrus.AllLevels }

func (h drainHook) Fire(e *logrus.Entry) error {
	if _, ok := e.Data["stepResult"]; !ok || fmt.Sprint(e.Data["stepResult"]) != "failure" {
		if !strings.Contains(e.Message, "Failure - ") {
			return nil
		}
	}
	// The copy may not have written anything yet: quiet is counted from
	// the failure at the earliest.
	start := time.Now()
	for time.Since(start) < drainMost {
		last := max(start.UnixNano(), h.lw.lastOutput.Load())
		if time.Since(time.Unix(0, last)) >= drainQuiet {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// StepsFile is the file of a job's directory where its worker keeps its
// steps as they stand (JSON).
const StepsFile = "steps.json"

// saveSteps writes the steps as they stand (replacing the file at once).
func (lw *logWriter) saveSteps() {
	if lw.stepsPath == "" {
		return
	}
	b, _ := json.Marshal(lw.steps)
	tmp := lw.stepsPath + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, lw.stepsPath)
	}
}

func (lw *logWriter) line(s string) {
	ts := time.Now().UTC().Format(stampLayout)
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		fmt.Fprintf(lw.out, "%s %s\n", ts, Mask(l, lw.masks))
	}
}

// WithJobLogger is act's hook for the logger of a job.
func (lw *logWriter) WithJobLogger() *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.SetLevel(logrus.DebugLevel)
	l.SetFormatter(lw)
	l.SetOutput(lwOut{lw})
	l.AddHook(drainHook{lw})
	return l
}

type lwOut struct{ lw *logWriter }

func (o lwOut) Write(b []byte) (int, error) {
	o.lw.mu.Lock()
	defer o.lw.mu.Unlock()
	if len(b) > 0 {
		o.lw.line(string(b))
	}
	return len(b), nil
}

// Format renders one entry (act masks secrets in what this returns); it
// returns nothing for act's debug chatter.
func (lw *logWriter) Format(e *logrus.Entry) ([]byte, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	now := e.Time.UTC()
	if r, ok := e.Data["jobResult"].(string); ok {
		lw.jobResult = r
	}
	before := len(lw.steps)
	changed := false
	defer func() {
		if changed || len(lw.steps) != before {
			lw.saveSteps()
		}
	}()
	if res, ok := e.Data["stepResult"]; ok && len(lw.steps) > 0 {
		st := &lw.steps[len(lw.steps)-1]
		if st.Status != model.ActionsCompleted {
			c := fmt.Sprint(res)
			if c == "skipped" {
				c = model.ConclusionSkipped
			}
			st.Status, st.Conclusion, st.CompletedAt = model.ActionsCompleted, &c, &now
			changed = true
		}
	}
	if raw, _ := e.Data["raw_output"].(bool); raw {
		lw.lastOutput.Store(time.Now().UnixNano())
		return []byte(e.Message + "\n"), nil
	}
	if e.Level > logrus.InfoLevel {
		return nil, nil
	}
	if line, ok := annotationLine(e.Data); ok {
		return []byte(line + "\n"), nil
	}
	msg := strings.TrimSpace(e.Message)
	if name, ok := strings.CutPrefix(msg, "\u2B50 Run "); ok {
		name = strings.TrimPrefix(name, "Main ")
		if len(lw.steps) > 0 && lw.steps[len(lw.steps)-1].Status != model.ActionsCompleted {
			st := &lw.steps[len(lw.steps)-1]
			c := model.ConclusionSuccess
			st.Status, st.Conclusion, st.CompletedAt = model.ActionsCompleted, &c, &now
			changed = true
		}
		if !strings.HasPrefix(name, "Pre ") && !strings.HasPrefix(name, "Post ") {
			lw.steps = append(lw.steps, model.WorkflowStep{Name: name, Number: len(lw.steps) + 1, Status: model.ActionsInProgress, StartedAt: &now})
		}
		if name == "Set up job" || name == "Complete job" {
			return []byte("##[group]" + name + "\n"), nil
		}
		return []byte("##[group]Run " + name + "\n"), nil
	}
	if strings.Contains(msg, "Success - ") || strings.Contains(msg, "Failure - ") {
		return []byte("##[endgroup]\n"), nil
	}
	if e.Level <= logrus.ErrorLevel {
		if m := exitCode.FindStringSubmatch(msg); m != nil {
			msg = "Process completed with exit code " + m[1] + m[2] + "."
		}
		return []byte("##[error]" + msg + "\n"), nil
	}
	return []byte(msg + "\n"), nil
}
