package actions

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/store"
	"gopkg.in/yaml.v3"
)

// Triggers other than push and workflow_dispatch: an outbox consumer reads
// the domain events log and queues, in the transaction that moves its
// cursor, one job per event that may trigger workflows (pull requests,
// issues, comments, releases, repository dispatches, completed runs); the
// job evaluates the repository's workflows off the request path.

// Consumer is the triggers' name among the outbox consumers.
const Consumer = "actions.triggers"

const kindEvent = "actions.event"

// eventJob is a domain event to evaluate.
type eventJob struct {
	Type    string          `json:"type"`
	RepoID  int64           `json:"repo_id"`
	ActorID int64           `json:"actor_id"`
	Payload json.RawMessage `json:"payload"`
	Tries   int             `json:"tries,omitempty"`
}

// issuesTypes are the activity types of the issues trigger.
var issuesTypes = map[string]bool{"opened": true, "edited": true, "deleted": true, "transferred": true, "pinned": true, "unpinned": true,
	"closed": true, "reopened": true, "assigned": true, "unassigned": true, "labeled": true, "unlabeled": true, "locked": true,
	"unlocked": true, "milestoned": true, "demilestoned": true}

// triggering reports whether a domain event type may trigger workflows.
func triggering(typ string) bool {
	ev, action, _ := strings.Cut(typ, ".")
	switch ev {
	case "pull_request", "issue_comment":
		return action != ""
	case "issues":
		return issuesTypes[action] || action == "commented"
	case "release", "repository_dispatch":
		return action == ""
	case "workflow_run":
		return action == "completed" || action == "requested"
	}
	return false
}

// UseOutbox registers the triggers' consumer; start runs it in the
// background.
func (s *Service) UseOutbox(o *outbox.Outbox, start bool) {
	if o == nil || s.Queue == nil {
		return
	}
	s.events = o.Register(Consumer, false, s.eventStep)
	s.Queue.Handle(kindEvent, s.handleEvent)
	if start {
		s.events.Start(context.Background())
		s.wakeSchedules(context.Background())
	}
}

// SyncTriggers consumes the events appended so far (tests).
func (s *Service) SyncTriggers(ctx context.Context) error {
	if s.events == nil {
		return nil
	}
	return s.events.Sync(ctx)
}

func (s *Service) eventStep(ctx context.Context) (int, time.Duration, error) {
	b, err := s.events.Read(ctx, 0, 200)
	if err != nil || !b.Moves() {
		return 0, 0, err
	}
	// Only repositories with a workflow on record (found on their default
	// branch or run before) are evaluated.
	var ids []int64
	for _, e := range b.Events {
		if e.RepoID != 0 && triggering(e.Type) {
			ids = append(ids, e.RepoID)
		}
	}
	known, err := s.Store.R().ReposWithWorkflows(ctx, ids)
	if err != nil {
		return 0, 0, err
	}
	queued := false
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		for _, e := range b.Events {
			if !known[e.RepoID] || !triggering(e.Type) {
				continue
			}
			queued = true
			if err := jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindEvent, Payload: eventJob{Type: e.Type, RepoID: e.RepoID, ActorID: e.ActorID,
				Payload: e.Payload}}); err != nil {
				return err
			}
		}
		return b.Commit(ctx, tx)
	})
	if err == nil && queued {
		s.Queue.Notify()
	}
	return len(b.Events), 0, err
}

// mergeWait is how often, and mergeTries how many times, a pull request
// event waits for the pull request's merge commit.
const (
	mergeWait  = 250 * time.Millisecond
	mergeTries = 240
)

func (s *Service) handleEvent(ctx context.Context, payload []byte) error {
	var ev eventJob
	if err := json.Unmarshal(payload, &ev); err != nil {
		return jobs.Permanent(err)
	}
	v, err := s.Store.R().RepoByID(ctx, ev.RepoID, 0)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var body map[string]any
	_ = json.Unmarshal(ev.Payload, &body)
	if body == nil {
		body = map[string]any{}
	}
	name, action, _ := strings.Cut(ev.Type, ".")
	if ev.Type == "issues.commented" {
		// A new comment is recorded as the issue's "commented" event.
		name, action = "issue_comment", "created"
	}
	if name == "pull_request" {
		return s.pullRequestEvent(ctx, v.Repo, ev, action, body)
	}
	return s.defaultBranchEvent(ctx, v.Repo, ev, name, action, body)
}

// candidate is a workflow file a trigger considers.
type candidate struct {
	path string
	src  []byte
	w    *parsed
}

// candidates are the workflow files of a commit that parse and declare
// event (a file that does not parse triggers nothing but a push).
func (s *Service) candidates(ctx context.Context, g *gitrepo.Repo, sha, event string) ([]candidate, error) {
	files, err := s.workflowFiles(ctx, g, sha)
	if err != nil {
		return nil, err
	}
	var out []candidate
	for _, p := range sortedKeys(files) {
		w, err := parseWorkflow(p, files[p])
		if err != nil {
			continue
		}
		if _, ok := w.on[event]; ok {
			out = append(out, candidate{p, files[p], w})
		}
	}
	return out, nil
}

// defaultBranchEvent runs the workflows of the default branch's head that
// an event other than a pull request's triggers.
func (s *Service) defaultBranchEvent(ctx context.Context, repo *model.Repo, ev eventJob, name, action string, body map[string]any) error {
	q := s.Store.R()
	switch name {
	case "repository_dispatch":
		action, _ = body["action"].(string)
	case "release":
		action, _ = body["action"].(string)
	case "issues":
		if id, ok := body["issue_id"].(float64); ok {
			is, err := q.IssueByID(ctx, int64(id))
			if err != nil || is.IsPull {
				return nil // gone, or a pull request (no issues trigger)
			}
		}
	}
	ref := "refs/heads/" + repo.DefaultBranch
	g := s.Git.Open(repo.ID)
	sha, err := g.ResolveRef(ctx, ref+"^{commit}")
	if err != nil {
		return nil // an empty repository
	}
	list, err := s.candidates(ctx, g, sha, name)
	if err != nil {
		return err
	}
	var source *model.WorkflowRun
	if name == "workflow_run" {
		id, _ := body["run_id"].(float64)
		if source, err = q.Run(ctx, repo.ID, int64(id)); err != nil {
			return nil
		}
		if chainDepth(ctx, q, source) >= maxChain-1 {
			return nil // GitHub chains at most three levels of workflows
		}
		body = map[string]any{"workflow_run": map[string]any{"id": source.ID, "name": source.Name, "event": source.Event,
			"status": source.Status, "conclusion": source.Conclusion, "head_branch": source.HeadBranch, "head_sha": source.HeadSHA,
			"run_number": source.RunNumber, "run_attempt": source.RunAttempt, "workflow_id": source.WorkflowID}}
	}
	for _, c := range list {
		n := c.w.on[name]
		if !typeMatches(n, action, nil) {
			continue
		}
		if source != nil {
			names, _ := patterns(n, "workflows")
			found := false
			for _, wn := range names {
				found = found || (wn == source.Name && source.WorkflowPath != c.path)
			}
			if !found || (source.HeadBranch != nil && skipBy(n, "branches", []string{*source.HeadBranch})) {
				continue
			}
		}
		payload := map[string]any{"action": action}
		for k, v := range body {
			payload[k] = v
		}
		if name == "repository_dispatch" {
			payload["branch"] = repo.DefaultBranch
		}
		t := trigger{Event: name, Ref: ref, SHA: sha, ActorID: ev.ActorID, Payload: payload}
		if _, err := s.createRun(ctx, repo, c.path, c.src, c.w, nil, t); err != nil {
			return err
		}
	}
	return nil
}

// maxChain is how many workflows workflow_run chains: a run triggered by
// the completion of a run triggered by ... stops at three levels.
const maxChain = 3

// chainDepth is how many workflow_run triggers led to run.
func chainDepth(ctx context.Context, q store.Q, run *model.WorkflowRun) int {
	d := 0
	for run != nil && run.Event == "workflow_run" && d < maxChain {
		d++
		src, _ := run.EventPayload["workflow_run"].(map[string]any)
		id, _ := src["id"].(float64)
		next, err := q.Run(ctx, run.RepoID, int64(id))
		if err != nil {
			break
		}
		run = next
	}
	return d
}

// typeMatches applies an event's types: filter (def: the default types;
// nil: every type).
func typeMatches(n *yaml.Node, action string, def []string) bool {
	types, ok := patterns(n, "types")
	if !ok {
		types = def
	}
	if types == nil {
		return true
	}
	for _, t := range types {
		if t == action {
			return true
		}
	}
	return false
}

// prDefaultTypes are the types pull_request and pull_request_target
// trigger on without a types: filter.
var prDefaultTypes = []string{"opened", "synchronize", "reopened"}

// pullRequestEvent runs pull_request workflows on the pull request's merge
// commit (refs/pull/N/merge, from the workflow files of that commit) and
// pull_request_target workflows on the base branch's head.
func (s *Service) pullRequestEvent(ctx context.Context, repo *model.Repo, ev eventJob, action string, body map[string]any) error {
	num, _ := body["number"].(float64)
	q := s.Store.R()
	p, err := q.PullByNumber(ctx, repo.ID, int64(num))
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	headSHA, _ := body["head_sha"].(string)
	if after, _ := body["after"].(string); after != "" {
		headSHA = after // synchronize: the new head
	}
	if headSHA == "" {
		headSHA = p.HeadSHA
	}
	g := s.Git.Open(repo.ID)
	// The merge commit: the background check writes it for the head the
	// event saw; wait for it a little.
	mergeSHA := ""
	switch {
	case p.Merged():
		mergeSHA = deref(p.MergeCommitSHA)
	case action == "closed":
		if p.Mergeable != nil && *p.Mergeable {
			mergeSHA = deref(p.MergeCommitSHA)
		}
	default:
		if p.CheckedHeadSHA != headSHA || p.Mergeable == nil {
			if p.HeadSHA == headSHA && ev.Tries < mergeTries {
				ev.Tries++
				return s.Queue.Enqueue(ctx, jobs.Job{Kind: kindEvent, Payload: ev, Delay: mergeWait})
			}
		} else if *p.Mergeable {
			mergeSHA = deref(p.MergeCommitSHA)
		}
	}
	var changed []string
	if mergeSHA != "" && p.BaseSHA != "" {
		if diff, err := g.DiffStats(ctx, p.BaseSHA, mergeSHA); err == nil {
			changed = []string{}
			for _, f := range diff {
				changed = append(changed, f.Path)
				if f.OldPath != "" {
					changed = append(changed, f.OldPath)
				}
			}
		}
	}
	payload := map[string]any{"action": action, "number": p.Number, "pull_request": map[string]any{
		"number": p.Number, "head": map[string]any{"ref": p.HeadRef, "sha": headSHA, "repo": map[string]any{"id": p.HeadRepoID}},
		"base":   map[string]any{"ref": p.BaseRef, "sha": p.BaseSHA, "repo": map[string]any{"id": repo.ID}},
		"merged": p.Merged(), "title": p.Issue.Title}}
	var pulls []int64
	if p.HeadRepoID == repo.ID {
		pulls = []int64{p.Number} // GitHub lists no pull request of a fork
	}
	head := p.HeadRef
	approval := p.HeadRepoID != repo.ID && s.needsApproval(ctx, repo, p)
	base := func(n *yaml.Node) bool {
		return typeMatches(n, action, prDefaultTypes) && !skipBy(n, "branches", []string{p.BaseRef}) &&
			(changed == nil || !skipBy(n, "paths", changed))
	}
	// pull_request: the workflows of the merge commit (none when the pull
	// request does not merge cleanly, as on GitHub).
	if mergeSHA != "" {
		list, err := s.candidates(ctx, g, mergeSHA, "pull_request")
		if err != nil {
			return err
		}
		for _, c := range list {
			if !base(c.w.on["pull_request"]) {
				continue
			}
			t := trigger{Event: "pull_request", Ref: "refs/pull/" + itoa(p.Number) + "/merge", SHA: headSHA, Checkout: mergeSHA,
				ActorID: ev.ActorID, Payload: payload, Pulls: pulls, HeadBranch: &head, Approval: approval,
				Title: p.Issue.Title}
			if _, err := s.createRun(ctx, repo, c.path, c.src, c.w, nil, t); err != nil {
				return err
			}
		}
	}
	// pull_request_target: the base branch's workflows, with the base's
	// rights (no approval needed).
	baseRef := "refs/heads/" + p.BaseRef
	baseSHA, err := g.ResolveRef(ctx, baseRef+"^{commit}")
	if err != nil {
		return nil
	}
	list, err := s.candidates(ctx, g, baseSHA, "pull_request_target")
	if err != nil {
		return err
	}
	for _, c := range list {
		if !base(c.w.on["pull_request_target"]) {
			continue
		}
		t := trigger{Event: "pull_request_target", Ref: baseRef, SHA: baseSHA, ActorID: ev.ActorID, Payload: payload, Pulls: pulls,
			Title: p.Issue.Title}
		if _, err := s.createRun(ctx, repo, c.path, c.src, c.w, nil, t); err != nil {
			return err
		}
	}
	return nil
}

// ApprovalPolicy is GitHub's default of the repository setting
// fork-pr-contributor-approval: runs of fork pull requests by first-time
// contributors wait for approval.
const ApprovalPolicy = "first_time_contributors"

// needsApproval reports whether a fork pull request's pull_request runs
// wait for a maintainer's approval: its author has write access to the
// repository or had a pull request merged in it before, or they wait.
func (s *Service) needsApproval(ctx context.Context, repo *model.Repo, p *model.Pull) bool {
	policy := ApprovalPolicy
	if s.ApprovalPolicy != nil {
		policy = s.ApprovalPolicy(ctx, repo)
	}
	author := p.Issue.UserID
	if author == 0 {
		return true
	}
	q := s.Store.R()
	acc, err := q.AccountByID(ctx, author)
	if err != nil {
		return true
	}
	if v, err := q.RepoByID(ctx, repo.ID, author); err == nil && authz.RepoPermission(&authz.Caller{Kind: authz.ClassicPAT, User: acc,
		Scopes: authz.Scopes{"repo": true}}, v.Repo, v.Facts) >= authz.Write {
		return false
	}
	switch policy {
	case "all_external_contributors":
		return true
	case "first_time_contributors_new_to_github":
		return time.Since(acc.CreatedAt) < 30*24*time.Hour
	}
	n, err := q.MergedPullsBy(ctx, repo.ID, author)
	return err != nil || n == 0
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// sortedKeys are a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// prepareRun completes a new run with what its trigger knows: the commit
// it checks out, its head branch, pull requests and event payload, and
// the approval it waits for.
func (s *Service) prepareRun(run *model.WorkflowRun, ev *trigger) {
	run.SHA, run.PullNumbers, run.EventPayload = ev.Checkout, ev.Pulls, ev.Payload
	if ev.HeadBranch != nil {
		run.HeadBranch = ev.HeadBranch
	}
	if ev.Approval && run.Status != model.ActionsCompleted {
		c := model.ConclusionActionRequired
		run.Status, run.Conclusion = model.ActionsCompleted, &c
	}
}

// branchPulls are the open pull requests whose head is a pushed branch of
// the same repository (a push run's pull_requests, as GitHub lists them).
func (s *Service) branchPulls(ctx context.Context, repo *model.Repo, ref string) ([]int64, error) {
	b, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok {
		return nil, nil
	}
	list, _, err := s.Store.R().ListPulls(ctx, store.PullQuery{RepoID: repo.ID, State: "open", HeadRepoID: repo.ID, HeadRef: b, Limit: 30})
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, p := range list {
		out = append(out, p.Number)
	}
	return out, nil
}

// RepositoryDispatch records a repository_dispatch event (POST
// /repos/{owner}/{repo}/dispatches): the workflows of the default branch
// that listen for its event type run.
func (s *Service) RepositoryDispatch(ctx context.Context, repo *model.Repo, actorID int64, eventType string, payload map[string]any) error {
	if payload == nil {
		payload = map[string]any{}
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		return tx.AppendEvent(ctx, "repository_dispatch", actorID, repo.ID, orgID(repo), map[string]any{
			"action": eventType, "client_payload": payload})
	})
}

// EventPayloadHook is the spec hook giving a job its run's event payload
// (github.event) and the commit and refs of a pull request's run.
func (s *Service) EventPayloadHook(ctx context.Context, jc JobContext, spec *Spec) error {
	run := jc.Run
	for k, v := range run.EventPayload {
		if _, ok := spec.Payload[k]; !ok {
			spec.Payload[k] = v
		}
	}
	spec.Env["GITHUB_SHA"], spec.Env["SHA_REF"] = run.CheckoutSHA(), run.CheckoutSHA()
	if strings.HasPrefix(run.Event, "pull_request") {
		if pr, ok := run.EventPayload["pull_request"].(map[string]any); ok {
			h, _ := pr["head"].(map[string]any)
			b, _ := pr["base"].(map[string]any)
			spec.Env["GITHUB_HEAD_REF"], _ = h["ref"].(string)
			spec.Env["GITHUB_BASE_REF"], _ = b["ref"].(string)
		}
	}
	return nil
}
