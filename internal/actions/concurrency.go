package actions

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/nektos/act/pkg/exprparser"
	actmodel "github.com/nektos/act/pkg/model"
	"gopkg.in/yaml.v3"
)

// Concurrency groups (concurrency: of a workflow or a job): at most one
// member of a group runs and one waits (status pending); a newer member
// replaces (cancels) the one waiting, and with cancel-in-progress cancels
// the running one too. A member leaving the group (completed, cancelled)
// lets the one waiting start.

// concurrency is a concurrency: setting as written.
type concurrency struct {
	Group, Cancel string
}

// readConcurrency reads a concurrency: node: a group name or a mapping of
// group and cancel-in-progress.
func readConcurrency(n *yaml.Node) concurrency {
	switch {
	case n == nil:
	case n.Kind == yaml.ScalarNode:
		return concurrency{Group: n.Value}
	case n.Kind == yaml.MappingNode:
		var c struct {
			Group  string `yaml:"group"`
			Cancel string `yaml:"cancel-in-progress"`
		}
		if n.Decode(&c) == nil {
			return concurrency{c.Group, c.Cancel}
		}
	}
	return concurrency{}
}

// concurrencyOf reads the workflow's concurrency: and that of its jobs.
func concurrencyOf(src string) (concurrency, map[string]concurrency) {
	var doc struct {
		Concurrency yaml.Node `yaml:"concurrency"`
		Jobs        map[string]struct {
			Concurrency yaml.Node `yaml:"concurrency"`
		} `yaml:"jobs"`
	}
	jobsC := map[string]concurrency{}
	if yaml.Unmarshal([]byte(src), &doc) != nil {
		return concurrency{}, jobsC
	}
	for k, j := range doc.Jobs {
		if c := readConcurrency(&j.Concurrency); c.Group != "" {
			jobsC[k] = c
		}
	}
	return readConcurrency(&doc.Concurrency), jobsC
}

// exprEnv is the expression environment of a run (github, inputs and, for
// a job, matrix contexts) for concurrency groups.
func (s *Service) exprEnv(ctx context.Context, repo *model.Repo, run *model.WorkflowRun, matrix map[string]any) *exprparser.EvaluationEnvironment {
	gh := &actmodel.GithubContext{Event: run.EventPayload, Workflow: run.Name, RunAttempt: strconv.FormatInt(run.RunAttempt, 10),
		RunID: strconv.FormatInt(run.ID, 10), RunNumber: strconv.FormatInt(run.RunNumber, 10), EventName: run.Event, Sha: run.CheckoutSHA(),
		Ref: run.Ref, RefName: deref(branchOf(run.Ref)), RepositoryOwner: repo.Owner.Login, Repository: repo.Owner.Login + "/" + repo.Name}
	if strings.HasPrefix(run.Event, "pull_request") {
		if pr, ok := run.EventPayload["pull_request"].(map[string]any); ok {
			h, _ := pr["head"].(map[string]any)
			b, _ := pr["base"].(map[string]any)
			gh.HeadRef, _ = h["ref"].(string)
			gh.BaseRef, _ = b["ref"].(string)
		}
	}
	if gh.Event == nil {
		gh.Event = map[string]any{}
	}
	inputs := map[string]any{}
	for k, v := range run.Inputs {
		inputs[k] = v
	}
	return &exprparser.EvaluationEnvironment{Github: gh, Inputs: inputs, Matrix: matrix, Env: map[string]string{}, Vars: map[string]string{},
		Secrets: map[string]string{}, Needs: map[string]exprparser.Needs{}, Strategy: map[string]any{}, Steps: map[string]*actmodel.StepResult{}}
}

// interpolate replaces the ${{ }} expressions of s with their values.
func interpolate(env *exprparser.EvaluationEnvironment, s string) string {
	var out strings.Builder
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			out.WriteString(s)
			return out.String()
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			out.WriteString(s)
			return out.String()
		}
		out.WriteString(s[:i])
		v, err := exprparser.NewInterpeter(env, exprparser.Config{}).Evaluate(strings.TrimSpace(s[i+3:i+j]), exprparser.DefaultStatusCheckNone)
		if err == nil && v != nil {
			switch x := v.(type) {
			case float64:
				out.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
			default:
				out.WriteString(fmt.Sprint(x))
			}
		}
		s = s[i+j+2:]
	}
}

// resolve evaluates a concurrency setting: its group and cancel-in-progress.
func (c concurrency) resolve(env *exprparser.EvaluationEnvironment) (string, bool) {
	if c.Group == "" {
		return "", false
	}
	return interpolate(env, c.Group), strings.TrimSpace(interpolate(env, c.Cancel)) == "true"
}

// holding reports whether a member holds its group (queued to run or
// running).
func holding(status string) bool {
	return status == model.ActionsQueued || status == model.ActionsInProgress
}

// enterGroup puts a new run (or attempt) in its workflow's concurrency
// group: it cancels the members cancel-in-progress or replacement
// cancels, and leaves the run pending when another member holds the group.
func (s *Service) enterGroup(ctx context.Context, tx store.Q, repo *model.Repo, run *model.WorkflowRun) error {
	wc, _ := concurrencyOf(run.Source)
	group, cancel := wc.resolve(s.exprEnv(ctx, repo, run, nil))
	before := run.ConcurrencyGroup
	run.ConcurrencyGroup = group
	if group == "" {
		if before == "" {
			return nil
		}
		return tx.SetRunConcurrency(ctx, run.ID, "", run.Status)
	}
	if err := tx.LockConcurrencyGroup(ctx, repo.ID, group); err != nil {
		return err
	}
	members, err := tx.GroupRuns(ctx, repo.ID, group)
	if err != nil {
		return err
	}
	busy := false
	for _, m := range members {
		if m.ID == run.ID {
			continue
		}
		if cancel || m.Status == model.ActionsPending {
			if err := s.cancelTx(ctx, tx, repo, m); err != nil {
				return err
			}
			continue
		}
		busy = busy || holding(m.Status)
	}
	if busy {
		run.Status = model.ActionsPending
		return tx.SetRunConcurrency(ctx, run.ID, group, run.Status)
	}
	if err := tx.SetRunConcurrency(ctx, run.ID, group, run.Status); err != nil {
		return err
	}
	return tx.AcquireRunGroup(ctx, run.ID)
}

// releaseRun lets the run waiting in a completed run's group start.
func (s *Service) releaseRun(ctx context.Context, tx store.Q, run *model.WorkflowRun) error {
	if run.ConcurrencyGroup == "" {
		return nil
	}
	members, err := tx.GroupRuns(ctx, run.RepoID, run.ConcurrencyGroup)
	if err != nil {
		return err
	}
	for _, m := range members {
		if m.ID != run.ID && holding(m.Status) {
			return nil
		}
	}
	for _, m := range members {
		if m.Status == model.ActionsPending {
			if err := tx.AcquireRunGroup(ctx, m.ID); err != nil {
				return err
			}
			m.Status = model.ActionsQueued
			if err := s.advance(ctx, tx, m); err != nil {
				return err
			}
			s.Runner.Notify()
			return nil
		}
	}
	return nil
}

// enqueueJob queues a job for a worker.
func enqueueJob(ctx context.Context, tx store.Q, j *model.WorkflowJob) error {
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindJob, Key: fmt.Sprintf("actions.job:%d", j.ID),
		Payload: runJob{JobID: j.ID, RepoID: j.RepoID}, MaxAttempts: 2})
}

// jobGate puts a job about to be queued in its concurrency group; wait
// reports that it is pending behind another member.
func (s *Service) jobGate(ctx context.Context, tx store.Q, run *model.WorkflowRun, j *model.WorkflowJob) (bool, error) {
	if j.ConcurrencyGroup != "" {
		return false, nil // it took (or was given) its group already
	}
	_, jc := concurrencyOf(run.Source)
	c, ok := jc[j.Key]
	if !ok {
		return false, nil
	}
	repo, err := tx.RepoByID(ctx, run.RepoID, 0)
	if err != nil {
		return false, err
	}
	group, cancel := c.resolve(s.exprEnv(ctx, repo.Repo, run, j.Matrix))
	if group == "" {
		return false, nil
	}
	if err := tx.LockConcurrencyGroup(ctx, run.RepoID, group); err != nil {
		return false, err
	}
	members, err := tx.GroupJobs(ctx, run.RepoID, group)
	if err != nil {
		return false, err
	}
	busy := false
	for _, m := range members {
		if m.ID == j.ID {
			continue
		}
		if cancel || m.Status == model.ActionsPending {
			if err := s.cancelJob(ctx, tx, m); err != nil {
				return false, err
			}
			continue
		}
		busy = busy || holding(m.Status)
	}
	j.ConcurrencyGroup = group
	if busy {
		j.Status = model.ActionsPending
	}
	return busy, tx.SetJobConcurrency(ctx, j.ID, group, j.Status)
}

// cancelJob cancels one job (of another run) and moves its run on.
func (s *Service) cancelJob(ctx context.Context, tx store.Q, j *model.WorkflowJob) error {
	c := model.ConclusionCancelled
	j.Conclusion = &c
	moved, err := tx.FinishJob(ctx, j)
	if err != nil || !moved {
		return err
	}
	j.Status = model.ActionsCompleted
	run, err := tx.Run(ctx, j.RepoID, j.RunID)
	if err != nil {
		return err
	}
	if err := s.jobEvent(ctx, tx, run, j, "completed"); err != nil {
		return err
	}
	if run.RunAttempt != j.RunAttempt {
		return nil
	}
	return s.advance(ctx, tx, run)
}

// releaseJob lets the job waiting in a completed job's group start.
func (s *Service) releaseJob(ctx context.Context, tx store.Q, j *model.WorkflowJob) error {
	if j.ConcurrencyGroup == "" {
		return nil
	}
	members, err := tx.GroupJobs(ctx, j.RepoID, j.ConcurrencyGroup)
	if err != nil {
		return err
	}
	for _, m := range members {
		if m.ID != j.ID && holding(m.Status) {
			return nil
		}
	}
	for _, m := range members {
		if m.Status == model.ActionsPending {
			if err := tx.SetJobConcurrency(ctx, m.ID, m.ConcurrencyGroup, model.ActionsQueued); err != nil {
				return err
			}
			s.Runner.Notify()
			return enqueueJob(ctx, tx, m)
		}
	}
	return nil
}

// GroupMember is a run or job holding or waiting for a group.
type GroupMember struct {
	Run      *model.WorkflowRun
	Job      *model.WorkflowJob // nil for a run-level member
	Status   string             // in_progress (holds the group) or pending
	Position int                // 0: holds it; 1...: waiting
}

// GroupMembers lists the members of a repository's concurrency group: the
// one holding it first, then those waiting.
func (s *Service) GroupMembers(ctx context.Context, repoID int64, group string) ([]GroupMember, error) {
	q := s.Store.R()
	runs, err := q.GroupRuns(ctx, repoID, group)
	if err != nil {
		return nil, err
	}
	list, err := q.GroupJobs(ctx, repoID, group)
	if err != nil {
		return nil, err
	}
	var out []GroupMember
	for _, r := range runs {
		out = append(out, GroupMember{Run: r, Status: memberStatus(r.Status)})
	}
	if len(list) > 0 {
		ids := make([]int64, 0, len(list))
		for _, j := range list {
			ids = append(ids, j.RunID)
		}
		byID, err := q.RunsByIDs(ctx, repoID, ids)
		if err != nil {
			return nil, err
		}
		for _, j := range list {
			if r := byID[j.RunID]; r != nil {
				out = append(out, GroupMember{Run: r, Job: j, Status: memberStatus(j.Status)})
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		return out[a].Status == model.ActionsInProgress && out[b].Status != model.ActionsInProgress
	})
	pos := 1
	for i := range out {
		if out[i].Status == model.ActionsInProgress {
			out[i].Position = 0
		} else {
			out[i].Position = pos
			pos++
		}
	}
	return out, nil
}

// memberStatus is a member's status in its group: holding it (queued to
// run counts) or waiting.
func memberStatus(status string) string {
	if holding(status) {
		return model.ActionsInProgress
	}
	return model.ActionsPending
}

// RunGroups are the concurrency groups a run belongs to by its
// configuration: the workflow's and its jobs' (as evaluated).
func (s *Service) RunGroups(ctx context.Context, repo *model.Repo, run *model.WorkflowRun) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(g string) {
		if g != "" && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	add(run.ConcurrencyGroup)
	_, jc := concurrencyOf(run.Source)
	if len(jc) > 0 {
		list, _, err := s.Store.R().RunJobs(ctx, run.ID, run.RunAttempt, 1<<30, 0)
		if err != nil {
			return nil, err
		}
		for _, j := range list {
			if j.ConcurrencyGroup != "" {
				add(j.ConcurrencyGroup)
			} else if c, ok := jc[j.Key]; ok {
				g, _ := c.resolve(s.exprEnv(ctx, repo, run, j.Matrix))
				add(g)
			}
		}
	}
	return out, nil
}
