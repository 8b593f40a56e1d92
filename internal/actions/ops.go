package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// SetWorkflowEnabled enables or disables a workflow (a disabled workflow
// is not triggered).
func (s *Service) SetWorkflowEnabled(ctx context.Context, repo *model.Repo, actorID int64, wf *model.Workflow, on bool) error {
	state := model.WorkflowDisabledManually
	if on {
		state = model.WorkflowActive
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetWorkflowState(ctx, wf.ID, state); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "workflow."+map[bool]string{true: "enabled", false: "disabled"}[on], actorID, repo.ID, orgID(repo),
			map[string]any{"workflow_id": wf.ID, "path": wf.Path})
	})
}

// resolveDispatchRef resolves a dispatch's ref (a branch or tag name, or a
// full ref) to its ref and commit.
func resolveDispatchRef(ctx context.Context, g *gitrepo.Repo, ref string) (string, string, error) {
	var cands []string
	if strings.HasPrefix(ref, "refs/") {
		cands = []string{ref}
	} else {
		cands = []string{"refs/heads/" + ref, "refs/tags/" + ref}
	}
	for _, c := range cands {
		if !gitrepo.ValidRefName(c) {
			continue
		}
		sha, err := g.ResolveRef(ctx, c+"^{commit}")
		if err == nil {
			return c, sha, nil
		}
	}
	return "", "", model.Unprocessable("No ref found for: " + ref)
}

// Dispatch runs a workflow_dispatch of the workflow at ref with inputs,
// checked against the workflow's declared inputs as GitHub checks them.
func (s *Service) Dispatch(ctx context.Context, repo *model.Repo, actorID int64, wf *model.Workflow, ref string, inputs map[string]any) error {
	if ref == "" {
		return model.Invalid("", "ref", "missing_field")
	}
	g := s.Git.Open(repo.ID)
	full, sha, err := resolveDispatchRef(ctx, g, ref)
	if err != nil {
		return err
	}
	_, src, err := g.Read(ctx, sha+":"+wf.Path, maxWorkflowFile)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return model.Unprocessable("Workflow does not have 'workflow_dispatch' trigger")
	}
	if err != nil {
		return err
	}
	w, perr := parseWorkflow(wf.Path, src)
	if perr != nil {
		return model.Unprocessable("Workflow does not have 'workflow_dispatch' trigger")
	}
	decl, ok := w.dispatchInputs()
	if !ok {
		return model.Unprocessable("Workflow does not have 'workflow_dispatch' trigger")
	}
	vals, err := checkInputs(decl, inputs)
	if err != nil {
		return err
	}
	if wf.State == model.WorkflowDisabledManually {
		return model.Forbidden("Cannot trigger a 'workflow_dispatch' on a disabled workflow")
	}
	_, err = s.createRun(ctx, repo, wf.Path, src, w, nil, trigger{Event: "workflow_dispatch", Ref: full, SHA: sha, ActorID: actorID,
		Inputs: vals})
	return err
}

// checkInputs validates dispatch inputs against their declarations and
// fills in defaults; values keep their declared types.
func checkInputs(decl []dispatchInput, in map[string]any) (map[string]any, error) {
	known := map[string]bool{}
	for _, d := range decl {
		known[d.Name] = true
	}
	var unexpected []string
	for k := range in {
		if !known[k] {
			unexpected = append(unexpected, k)
		}
	}
	if len(unexpected) > 0 {
		sort.Strings(unexpected)
		b, _ := json.Marshal(unexpected)
		return nil, model.Unprocessable("Unexpected inputs provided: " + string(b))
	}
	if len(in) > 10 && len(decl) > 10 {
		return nil, model.Unprocessable("you may only define up to 10 `inputs` for a `workflow_dispatch` event")
	}
	out := map[string]any{}
	for _, d := range decl {
		v, given := in[d.Name]
		var str string
		switch x := v.(type) {
		case nil:
			given = false
		case string:
			str = x
		case bool:
			str = strconv.FormatBool(x)
		case float64:
			str = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			return nil, model.Unprocessable(fmt.Sprintf("Provided value for input '%s' must be a string", d.Name))
		}
		if !given {
			if d.Required && d.Default == nil {
				return nil, model.Unprocessable(fmt.Sprintf("Required input '%s' not provided", d.Name))
			}
			if d.Default == nil {
				if d.Type == "boolean" {
					out[d.Name] = false
				} else {
					out[d.Name] = ""
				}
				continue
			}
			str = *d.Default
		}
		switch d.Type {
		case "boolean":
			if str != "true" && str != "false" {
				return nil, model.Unprocessable(fmt.Sprintf("Provided value '%s' for input '%s' not in the list of allowed values", str, d.Name))
			}
			out[d.Name] = str == "true"
		case "number":
			n, err := strconv.ParseFloat(str, 64)
			if err != nil {
				return nil, model.Unprocessable(fmt.Sprintf("Provided value '%s' for input '%s' is not a valid number", str, d.Name))
			}
			out[d.Name] = n
		case "choice":
			okv := false
			for _, o := range d.Options {
				okv = okv || o == str
			}
			if !okv {
				return nil, model.Unprocessable(fmt.Sprintf("Provided value '%s' for input '%s' not in the list of allowed values", str, d.Name))
			}
			out[d.Name] = str
		default:
			out[d.Name] = str
		}
	}
	return out, nil
}

// Cancel cancels a run that has not completed: its queued jobs complete
// cancelled at once and its running jobs' processes are stopped.
func (s *Service) Cancel(ctx context.Context, repo *model.Repo, actorID int64, run *model.WorkflowRun) error {
	if run.Status == model.ActionsCompleted {
		return model.Conflict("Cannot cancel a workflow run that is completed.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error { return s.cancelTx(ctx, tx, repo, run) })
}

// cancelTx cancels a run in tx (a cancellation, or its concurrency group
// replacing it).
func (s *Service) cancelTx(ctx context.Context, tx store.Q, repo *model.Repo, run *model.WorkflowRun) error {
	list, _, err := tx.RunJobs(ctx, run.ID, run.RunAttempt, 1<<30, 0)
	if err != nil {
		return err
	}
	for _, j := range list {
		if j.Status == model.ActionsCompleted {
			continue
		}
		c := model.ConclusionCancelled
		j.Conclusion = &c
		if moved, err := tx.FinishJob(ctx, j); err != nil {
			return err
		} else if moved {
			j.Status = model.ActionsCompleted
			if err := s.jobEvent(ctx, tx, run, j, "completed"); err != nil {
				return err
			}
		}
	}
	c := model.ConclusionCancelled
	run.Status, run.Conclusion = model.ActionsCompleted, &c
	if err := tx.SetRunState(ctx, run.ID, run.Status, run.Conclusion); err != nil {
		return err
	}
	return s.runEvent(ctx, tx, repo, run, "completed")
}

// Rerun starts a new attempt of a completed run: every job again, or
// (failedOnly) the jobs that did not succeed and those that need them,
// the others copied from the last attempt.
func (s *Service) Rerun(ctx context.Context, repo *model.Repo, actorID int64, run *model.WorkflowRun, failedOnly bool) error {
	if !failedOnly {
		return s.rerun(ctx, repo, actorID, run, nil)
	}
	return s.rerun(ctx, repo, actorID, run, func(pj plannedJob, old []*model.WorkflowJob) bool {
		ok := len(old) > 0
		for _, j := range old {
			ok = ok && deref(j.Conclusion) == model.ConclusionSuccess
		}
		return ok
	})
}

// rerun starts a new attempt of a completed run; keep (nil: none) tells
// which jobs of the last attempt are copied rather than run again, in
// dependency order (a job that needs one run again runs again).
func (s *Service) rerun(ctx context.Context, repo *model.Repo, actorID int64, run *model.WorkflowRun,
	keepJob func(pj plannedJob, old []*model.WorkflowJob) bool) error {
	if run.Status != model.ActionsCompleted {
		return model.Forbidden("This workflow is already running")
	}
	w, perr := parseWorkflow(run.WorkflowPath, []byte(run.Source))
	if perr != nil {
		return model.Forbidden("This workflow run cannot be rerun: " + perr.Error())
	}
	planned, err := w.planJobs()
	if err != nil {
		return model.Forbidden("This workflow run cannot be rerun: " + err.Error())
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		var keep map[string][]*model.WorkflowJob
		if keepJob != nil {
			old, _, err := tx.RunJobs(ctx, run.ID, run.RunAttempt, 1<<30, 0)
			if err != nil {
				return err
			}
			byKey := map[string][]*model.WorkflowJob{}
			for _, j := range old {
				byKey[j.Key] = append(byKey[j.Key], j)
			}
			// A job is kept when keepJob keeps it and every job it needs
			// is kept.
			keep = map[string][]*model.WorkflowJob{}
			for _, pj := range planned { // in dependency order
				ok := keepJob(pj, byKey[pj.Key])
				for _, n := range pj.Needs {
					_, kept := keep[n]
					ok = ok && kept
				}
				if ok {
					keep[pj.Key] = byKey[pj.Key]
				}
			}
		}
		run.RunAttempt++
		if err := tx.NewRunAttempt(ctx, run.ID, run.RunAttempt, actorID); err != nil {
			return err
		}
		run.Status, run.Conclusion, run.TriggeringActorID = model.ActionsQueued, nil, actorID
		if err := s.enterGroup(ctx, tx, repo, run); err != nil {
			return err
		}
		if err := s.createJobs(ctx, tx, run, planned, keep); err != nil {
			return err
		}
		return s.runEvent(ctx, tx, repo, run, "requested")
	})
	if err == nil {
		s.Runner.Notify()
	}
	return err
}

// DeleteRun deletes a completed run (GitHub refuses a running one).
func (s *Service) DeleteRun(ctx context.Context, repo *model.Repo, actorID int64, run *model.WorkflowRun) error {
	if run.Status != model.ActionsCompleted {
		return model.Forbidden("Cannot delete a workflow run that is not completed.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteRun(ctx, run.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "workflow_run.deleted", actorID, repo.ID, orgID(repo), map[string]any{"run_id": run.ID})
	})
}

// DeleteLogs deletes the logs of a completed run.
func (s *Service) DeleteLogs(ctx context.Context, repo *model.Repo, actorID int64, run *model.WorkflowRun) error {
	if run.Status != model.ActionsCompleted {
		return model.Forbidden("Cannot delete logs of a workflow run that is not completed.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteRunLogs(ctx, run.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "workflow_run.logs_deleted", actorID, repo.ID, orgID(repo), map[string]any{"run_id": run.ID})
	})
}

// Labels are the runs-on labels of a run's jobs, by job key.
func (s *Service) Labels(run *model.WorkflowRun) map[string][]string {
	out := map[string][]string{}
	w, err := parseWorkflow(run.WorkflowPath, []byte(run.Source))
	if err != nil {
		return out
	}
	for k, j := range w.wf.Jobs {
		out[k] = j.RunsOn()
	}
	return out
}
