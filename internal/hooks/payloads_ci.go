package hooks

import (
	"context"
	"errors"
	"hash/fnv"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// CI payloads: status, check_run, check_suite, workflow_run, workflow_job,
// workflow_dispatch, and branch_protection_rule. Each is built from the
// state as it is when the dispatcher reaches the event (as the other
// payloads), with the action the domain event recorded.

// ciPairs are the webhook events of a CI domain event; check suites that
// hubd makes when asked (created) have no webhook on GitHub.
func ciPairs(typ, sub string, d domain) []pair {
	switch typ {
	case "status":
		return []pair{{"status", ""}}
	case "check_run":
		switch a := d.str("action"); a {
		case "created", "completed", "rerequested", "requested_action":
			return []pair{{"check_run", a}}
		}
	case "check_suite":
		switch a := d.str("action"); a {
		case "requested", "rerequested", "completed":
			return []pair{{"check_suite", a}}
		}
	case "workflow_run":
		switch sub {
		case "requested", "in_progress", "completed":
			out := []pair{{"workflow_run", sub}}
			if sub == "requested" && d.str("event") == "workflow_dispatch" && d.int("run_attempt") <= 1 {
				out = append(out, pair{"workflow_dispatch", ""})
			}
			return out
		}
	case "workflow_job":
		switch sub {
		case "queued", "in_progress", "completed", "waiting":
			return []pair{{"workflow_job", sub}}
		}
	case "branch_protection_rule":
		switch sub {
		case "created", "edited", "deleted":
			return []pair{{"branch_protection_rule", sub}}
		}
	}
	return nil
}

// app is the integration object of app id. A run or suite made with a
// user's token (hubd allows it; GitHub has an app behind every check) is
// shown as hubd's own app, id 0, owned by the repository's owner: the
// webhook schema has no null app.
func (b *builder) app(ctx context.Context, repo *model.Repo, id int64) (any, error) {
	if id != 0 {
		a, err := b.q.AppByID(ctx, id)
		if err == nil {
			return b.s.URLs.ToIntegration(a, nil), nil
		}
		if !errors.Is(err, model.ErrNotFound) {
			return nil, err
		}
	}
	desc := "Checks posted to hubd without an app"
	return b.s.URLs.ToIntegration(&model.App{Slug: "hubd", Name: "hubd", Description: &desc, Owner: repo.Owner,
		CreatedAt: repo.CreatedAt, UpdatedAt: repo.CreatedAt}, nil), nil
}

// simpleCommits reads the head commits of suites and runs.
func (b *builder) simpleCommit(ctx context.Context, repo *model.Repo, sha string) *model.SimpleCommit {
	if b.s.Git == nil {
		return nil
	}
	c, err := b.s.Git.Open(repo.ID).Commit(ctx, sha)
	if err != nil {
		return nil
	}
	return &model.SimpleCommit{ID: sha, TreeID: c.Tree, Message: strings.TrimRight(c.Message, "\n"), Timestamp: c.Committer.When,
		AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, CommitterName: c.Committer.Name, CommitterEmail: c.Committer.Email}
}

// statusEvent: the status with its commit (a full commit object) and the
// branches whose head it is.
func (b *builder) statusEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	st, err := b.q.CommitStatusByID(ctx, d.int("id"))
	if err != nil {
		return err
	}
	if b.s.Git == nil {
		return skip("status: no git storage")
	}
	g := b.s.Git.Open(repo.ID)
	c, err := g.Commit(ctx, st.SHA)
	if err != nil {
		return skip("status: commit %s: %v", st.SHA, err)
	}
	users := map[string]*model.Account{}
	if b.s.CommitUsers != nil {
		if users, err = b.s.CommitUsers(ctx, []string{c.Author.Email, c.Committer.Email}); err != nil {
			return err
		}
	}
	commit, err := toMap(b.s.URLs.ToCommit(repo, c, func(email string) *model.Account { return users[strings.ToLower(email)] }))
	if err != nil {
		return err
	}
	for _, k := range []string{"stats", "files"} {
		delete(commit, k)
	}
	out["id"], out["sha"], out["name"] = st.ID, st.SHA, repo.FullName()
	out["target_url"], out["context"], out["description"], out["state"] = st.TargetURL, st.Context, st.Description, string(st.State)
	out["avatar_url"] = nil
	if st.Creator != nil {
		out["avatar_url"] = b.s.URLs.ToSimpleUser(st.Creator).AvatarURL
	}
	out["commit"] = commit
	out["created_at"], out["updated_at"] = wire.Time(st.CreatedAt), wire.Time(st.UpdatedAt)
	branches := []map[string]any{}
	heads, err := g.Refs(ctx, "refs/heads/")
	if err != nil {
		return err
	}
	for _, ref := range heads {
		if ref.OID != st.SHA {
			continue
		}
		name := strings.TrimPrefix(ref.Name, "refs/heads/")
		_, perr := b.q.BranchProtection(ctx, repo.ID, name)
		branches = append(branches, map[string]any{"name": name, "protected": perr == nil,
			"commit": map[string]any{"sha": st.SHA, "url": b.s.URLs.CommitAPIURL(repo, st.SHA)}})
	}
	out["branches"] = branches
	return nil
}

// checkSuiteObject is a suite as check_suite payloads carry it: with its
// app and head commit.
func (b *builder) checkSuiteObject(ctx context.Context, repo *model.Repo, id int64) (map[string]any, error) {
	su, err := b.q.CheckSuiteByID(ctx, repo.ID, id)
	if err != nil {
		return nil, err
	}
	pulls, err := b.q.OpenPullsByHeadSHA(ctx, repo.ID, []string{su.HeadSHA})
	if err != nil {
		return nil, err
	}
	obj, err := toMap(b.s.URLs.ToCheckSuite(repo, su, b.simpleCommit(ctx, repo, su.HeadSHA), pulls[su.HeadSHA], nil))
	if err != nil {
		return nil, err
	}
	if obj["app"], err = b.app(ctx, repo, su.AppID); err != nil {
		return nil, err
	}
	delete(obj, "repository")
	return obj, nil
}

func (b *builder) checkSuiteEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	obj, err := b.checkSuiteObject(ctx, repo, d.int("id"))
	if err != nil {
		return err
	}
	out["check_suite"] = obj
	return nil
}

func (b *builder) checkRunEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	run, err := b.q.CheckRunByID(ctx, repo.ID, d.int("id"))
	if err != nil {
		return err
	}
	pulls, err := b.q.OpenPullsByHeadSHA(ctx, repo.ID, []string{run.HeadSHA})
	if err != nil {
		return err
	}
	obj, err := toMap(b.s.URLs.ToCheckRun(repo, run, pulls[run.HeadSHA], nil))
	if err != nil {
		return err
	}
	if obj["app"], err = b.app(ctx, repo, run.AppID); err != nil {
		return err
	}
	suite, err := b.checkSuiteObject(ctx, repo, run.SuiteID)
	if err != nil {
		return err
	}
	obj["check_suite"] = suite
	if run.DetailsURL == nil {
		obj["details_url"] = obj["html_url"]
	}
	if run.ExternalID == nil {
		obj["external_id"] = ""
	}
	out["check_run"] = obj
	return nil
}

// run loads a workflow run and its workflow.
func (b *builder) workflowRun(ctx context.Context, repo *model.Repo, id int64) (*model.WorkflowRun, map[string]any, error) {
	run, err := b.q.Run(ctx, repo.ID, id)
	if err != nil {
		return nil, nil, err
	}
	accounts, err := b.q.AccountsByID(ctx, []int64{run.ActorID, run.TriggeringActorID})
	if err != nil {
		return nil, nil, err
	}
	min, err := toMap(b.s.URLs.ToMinimalRepository(repo, wire.RepoCounts{}, wire.Access{}))
	if err != nil {
		return nil, nil, err
	}
	obj, err := toMap(b.s.URLs.ToWorkflowRun(repo, wire.MinimalRepository{}, run, accounts[run.ActorID], accounts[run.TriggeringActorID],
		b.simpleCommit(ctx, repo, run.HeadSHA)))
	if err != nil {
		return nil, nil, err
	}
	obj["repository"], obj["head_repository"] = min, min
	obj["check_suite_id"], obj["check_suite_node_id"] = run.CheckSuiteID, wire.NodeID("CS_", run.CheckSuiteID)
	return run, obj, nil
}

func (b *builder) workflowObject(ctx context.Context, repo *model.Repo, id int64) (wire.Workflow, error) {
	wf, err := b.q.WorkflowByID(ctx, repo.ID, id)
	if err != nil {
		return wire.Workflow{}, err
	}
	return b.s.URLs.ToWorkflow(repo, wf, repo.DefaultBranch), nil
}

func (b *builder) workflowRunEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	run, obj, err := b.workflowRun(ctx, repo, d.int("run_id"))
	if err != nil {
		return err
	}
	// The run as the event saw it: a later state would contradict the
	// action (a requested run that has completed since).
	obj["status"], obj["conclusion"] = d["status"], d["conclusion"]
	out["workflow_run"] = obj
	wf, err := b.workflowObject(ctx, repo, run.WorkflowID)
	if err != nil {
		return err
	}
	out["workflow"] = wf
	return nil
}

func (b *builder) workflowDispatchEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	run, err := b.q.Run(ctx, repo.ID, d.int("run_id"))
	if err != nil {
		return err
	}
	inputs := map[string]any{}
	for k, v := range run.Inputs {
		inputs[k] = v
	}
	out["inputs"], out["ref"], out["workflow"] = inputs, run.Ref, run.WorkflowPath
	return nil
}

func (b *builder) workflowJobEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	j, err := b.q.Job(ctx, repo.ID, d.int("job_id"))
	if err != nil {
		return err
	}
	run, err := b.q.Run(ctx, repo.ID, j.RunID)
	if err != nil {
		return err
	}
	var labels []string
	if b.s.JobLabels != nil {
		labels = b.s.JobLabels(run)[j.Key]
	}
	if labels == nil {
		labels = []string{}
	}
	obj, err := toMap(b.s.URLs.ToJob(repo, j, run.Name, labels))
	if err != nil {
		return err
	}
	obj["status"], obj["conclusion"] = d["status"], d["conclusion"]
	if obj["head_branch"] == nil {
		obj["head_branch"] = run.HeadBranch
	}
	for _, k := range []string{"runner_id", "runner_name", "runner_group_id", "runner_group_name"} {
		if _, ok := obj[k]; !ok {
			obj[k] = nil
		}
	}
	out["workflow_job"] = obj
	return nil
}

// protectionID is the id of a branch's protection rule: hubd keys
// protections by repository and branch, so the id is a hash of both that
// stays the same across edits (53 bits, exact in JSON numbers).
func protectionID(repoID int64, branch string) int64 {
	h := fnv.New64a()
	h.Write([]byte(branch))
	return int64(h.Sum64()&(1<<53-1)) ^ repoID
}

// protectionEvent: a branch's protection as GitHub's rule object (a
// deleted one from the copy its event keeps). hubd
// enforces status checks, reviews and admin enforcement; the levels of
// what it does not have are "off".
func (b *builder) protectionEvent(ctx context.Context, repo *model.Repo, d domain, action string, out map[string]any) error {
	branch := d.str("branch")
	p := &model.BranchProtection{RepoID: repo.ID, Branch: branch, CreatedAt: repo.UpdatedAt, UpdatedAt: repo.UpdatedAt}
	if action == "deleted" {
		// The protection as it was, when its event kept it.
		if _, err := d.row("protection", p); err != nil {
			return err
		}
	} else {
		var err error
		if p, err = b.q.BranchProtection(ctx, repo.ID, branch); err != nil {
			return err
		}
	}
	level := func(on bool) string {
		switch {
		case !on:
			return "off"
		case p.EnforceAdmins:
			return "everyone"
		}
		return "non_admins"
	}
	checks := p.RequiredContexts
	if checks == nil {
		checks = []string{}
	}
	off := "off"
	forcePush, deletions := off, off
	if !p.AllowForcePushes {
		forcePush = level(true)
	}
	if !p.AllowDeletions {
		deletions = level(true)
	}
	out["rule"] = map[string]any{
		"id": protectionID(repo.ID, branch), "repository_id": repo.ID, "name": branch,
		"created_at": wire.Time(p.CreatedAt), "updated_at": wire.Time(p.UpdatedAt),
		"pull_request_reviews_enforcement_level": level(p.Reviews), "required_approving_review_count": p.RequiredApprovals,
		"dismiss_stale_reviews_on_push": p.DismissStaleReviews, "require_code_owner_review": p.RequireCodeOwnerReviews,
		"authorized_dismissal_actors_only": p.DismissalRestricted, "ignore_approvals_from_contributors": false,
		"required_status_checks": checks, "required_status_checks_enforcement_level": level(p.StatusChecks),
		"strict_required_status_checks_policy": p.Strict, "signature_requirement_enforcement_level": off,
		"linear_history_requirement_enforcement_level": off, "lock_branch_enforcement_level": off,
		"admin_enforced": p.EnforceAdmins, "allow_force_pushes_enforcement_level": forcePush,
		"allow_deletions_enforcement_level": deletions, "merge_queue_enforcement_level": off,
		"required_deployments_enforcement_level": off, "required_conversation_resolution_level": off,
		"authorized_actors_only": p.Restricted, "authorized_actor_names": []string{},
	}
	if action == "edited" {
		out["changes"] = map[string]any{}
	}
	return nil
}
