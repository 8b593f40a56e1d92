package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// A domain event of the outbox becomes zero or more webhook events, each
// with an action or none. resolve decides which (it may need the issue a
// domain event names: issue events of pull requests are pull_request
// webhooks), build makes the body from the state as it is now.

type pair struct{ event, action string }

// built is one payload ready to store.
type built struct {
	event, action  string
	body           []byte
	repoID         int64
	installationID int64
}

// errSkip marks an event whose payload cannot be built (what it names is
// gone, or hubd has no payload for it): logged, never delivered.
var errSkip = errors.New("no payload")

func skip(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errSkip}, args...)...)
}

// builder builds the payloads of one batch of events, loading each
// repository, account and issue once.
type builder struct {
	s        *Service
	q        store.Q
	w        *wire.IssueWriter
	repos    map[int64]*model.Repo
	repoJSON map[int64]map[string]any
	accounts map[int64]*model.Account
	issues   map[int64]*model.Issue
}

func (s *Service) newBuilder() *builder {
	return &builder{s: s, q: s.Store.R(), w: s.URLs.NewIssueWriter(wire.BodyFormat{Raw: true}),
		repos: map[int64]*model.Repo{}, repoJSON: map[int64]map[string]any{}, accounts: map[int64]*model.Account{},
		issues: map[int64]*model.Issue{}}
}

// domain is a domain event's payload.
type domain map[string]any

func (d domain) int(k string) int64 {
	switch v := d[k].(type) {
	case float64:
		return int64(v)
	case json.Number:
		n, _ := v.Int64()
		return n
	}
	return 0
}

func (d domain) str(k string) string {
	s, _ := d[k].(string)
	return s
}

func (d domain) bool(k string) bool {
	b, _ := d[k].(bool)
	return b
}

func parse(e model.Event) domain {
	var d domain
	json.Unmarshal(e.Payload, &d)
	return d
}

// issueActions are the issue events that are webhook actions of issues
// (and, for pull requests, of pull_request).
var issueActions = map[string]bool{"opened": true, "edited": true, "closed": true, "reopened": true, "labeled": true,
	"unlabeled": true, "assigned": true, "unassigned": true, "milestoned": true, "demilestoned": true, "locked": true,
	"unlocked": true, "renamed": true, "transferred": true}

// pullOnly are issue events of a pull request the pull_request webhook
// carries (its opened, edited, closed and reopened come from the pull
// request service's own events).
var pullIssueActions = map[string]bool{"labeled": true, "unlabeled": true, "assigned": true, "unassigned": true,
	"milestoned": true, "demilestoned": true, "locked": true, "unlocked": true, "review_requested": true,
	"review_request_removed": true}

// resolve lists the webhook events of a domain event.
func (b *builder) resolve(ctx context.Context, e model.Event) ([]pair, error) {
	typ, sub, _ := strings.Cut(e.Type, ".")
	d := parse(e)
	if e.Type == "repository.publicized" {
		return []pair{{"repository", "publicized"}, {"public", ""}}, nil
	}
	switch typ {
	case "push":
		out := []pair{{"push", ""}}
		ref := d.str("ref")
		if strings.HasPrefix(ref, "refs/heads/") || strings.HasPrefix(ref, "refs/tags/") {
			if d.bool("created") {
				out = append(out, pair{"create", ""})
			}
			if d.bool("deleted") {
				out = append(out, pair{"delete", ""})
			}
		}
		return out, nil
	case "issues":
		if sub == "deleted" {
			// The issue is gone: its event carries a copy.
			return []pair{{"issues", "deleted"}}, nil
		}
		if !issueActions[sub] && !pullIssueActions[sub] && sub != "commented" {
			return nil, nil
		}
		if sub == "commented" {
			return []pair{{"issue_comment", "created"}}, nil
		}
		is, err := b.issue(ctx, d.int("issue_id"))
		if errors.Is(err, model.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if is.IsPull {
			if pullIssueActions[sub] {
				return []pair{{"pull_request", sub}}, nil
			}
			return nil, nil
		}
		if !issueActions[sub] {
			return nil, nil
		}
		if sub == "renamed" {
			sub = "edited"
		}
		return []pair{{"issues", sub}}, nil
	case "issue_comment", "pull_request", "label", "repository", "pull_request_review", "star", "milestone",
		"commit_comment", "pull_request_review_comment":
		if sub == "" {
			return nil, nil
		}
		return []pair{{typ, sub}}, nil
	case "release", "member":
		if a := d.str("action"); a != "" {
			return []pair{{typ, a}}, nil
		}
	case "watch":
		return []pair{{"watch", "started"}}, nil
	case "team":
		return teamPairs(d.str("action")), nil
	case "organization":
		return organizationPairs(sub), nil
	case "repository_ruleset":
		if a := d.str("action"); a == "created" || a == "edited" || a == "deleted" {
			return []pair{{typ, a}}, nil
		}
		return nil, nil
	case "exemption_request_push_ruleset":
		if a := d.str("action"); a == "created" || a == "completed" || a == "response_submitted" {
			return []pair{{typ, a}}, nil
		}
		return nil, nil
	case "membership":
		if a := d.str("action"); a == "added" || a == "removed" {
			return []pair{{"membership", a}}, nil
		}
		return nil, nil
	case "fork":
		return []pair{{"fork", ""}}, nil
	case "status", "check_run", "check_suite", "workflow_run", "workflow_job", "branch_protection_rule":
		return ciPairs(typ, sub, d), nil
	case "installation", "installation_repositories":
		return appPairs(typ, sub), nil
	case "repository_advisory":
		return advisoryPairs(sub), nil
	case "projects_v2", "projects_v2_item":
		return projectPairs(e, typ, sub), nil
	}
	if Events[typ] {
		// A webhook event hubd has no payload for yet: build logs and
		// skips it when a hook subscribed to it.
		if sub == "" {
			sub = d.str("action")
		}
		return []pair{{typ, sub}}, nil
	}
	return nil, nil
}

// build makes the payload of webhook event (event, action) of domain event
// e; nil with a nil error when the event has no payload after all.
func (b *builder) build(ctx context.Context, e model.Event, event, action string) (*built, error) {
	out := map[string]any{}
	if action != "" {
		out["action"] = action
	}
	d := parse(e)
	var repo *model.Repo
	if e.RepoID != 0 {
		var err error
		repo, err = b.repo(ctx, e.RepoID)
		switch {
		case errors.Is(err, model.ErrNotFound) && event == "repository" && action == "deleted" && d.snapshot("repository") != nil:
			out["repository"] = d.snapshot("repository")
		case errors.Is(err, model.ErrNotFound):
			return nil, skip("%s: repository %d is gone", e.Type, e.RepoID)
		case err != nil:
			return nil, err
		default:
			out["repository"] = b.repoJSON[repo.ID]
		}
	}
	if e.OrgID != 0 {
		org, err := b.account(ctx, e.OrgID)
		if err != nil {
			return nil, err
		}
		if org != nil {
			out["organization"] = b.s.URLs.ToOrgSimple(org)
		}
	}
	sender, err := b.account(ctx, e.ActorID)
	if err != nil {
		return nil, err
	}
	if sender == nil {
		sender = &model.Account{ID: 10137, Login: "ghost", Type: model.TypeUser}
	}
	out["sender"] = b.s.URLs.ToSimpleUser(sender)

	var installationID int64
	switch event {
	case "push":
		err = b.push(ctx, repo, sender, d, out)
	case "create", "delete":
		err = b.refEvent(event, repo, d, out)
	case "issues":
		if action == "deleted" {
			if out["issue"] = d.snapshot("issue"); out["issue"] == nil {
				return nil, skip("issues deleted: the issue is gone and its event has no copy")
			}
			break
		}
		err = b.issueEvent(ctx, repo, e, d, action, out)
	case "issue_comment":
		err = b.commentEvent(ctx, repo, e, d, action, out)
	case "pull_request":
		err = b.pullEvent(ctx, repo, e, d, action, out)
	case "pull_request_review":
		err = b.reviewEvent(ctx, repo, d, action, out)
	case "label":
		err = b.labelEvent(ctx, repo, d, action, out)
	case "release":
		err = b.releaseEvent(ctx, repo, d, out)
	case "repository":
		if d["changes"] != nil {
			out["changes"] = d["changes"]
		}
	case "star":
		out["starred_at"] = d["starred_at"]
	case "watch":
	case "milestone":
		err = b.milestoneEvent(ctx, repo, d, action, out)
	case "commit_comment":
		err = b.commitCommentEvent(ctx, repo, d, out)
	case "pull_request_review_comment":
		err = b.reviewCommentEvent(ctx, repo, d, action, out)
	case "fork":
		err = b.forkEvent(ctx, d, out)
	case "member":
		err = b.memberEvent(ctx, d, out)
	case "team", "team_add":
		err = b.teamEvent(ctx, e, d, action, out)
	case "membership":
		err = b.membershipEvent(ctx, e, d, action, out)
	case "organization":
		err = b.organizationEvent(ctx, e, d, action, out)
	case "repository_ruleset":
		err = b.rulesetEvent(ctx, d, action, out)
	case "exemption_request_push_ruleset":
		err = b.exemptionEvent(ctx, repo, d, action, out)
	case "status":
		err = b.statusEvent(ctx, repo, d, out)
	case "check_run":
		err = b.checkRunEvent(ctx, repo, d, out)
	case "check_suite":
		err = b.checkSuiteEvent(ctx, repo, d, out)
	case "workflow_run":
		err = b.workflowRunEvent(ctx, repo, d, out)
	case "workflow_job":
		err = b.workflowJobEvent(ctx, repo, d, out)
	case "workflow_dispatch":
		err = b.workflowDispatchEvent(ctx, repo, d, out)
	case "branch_protection_rule":
		err = b.protectionEvent(ctx, repo, d, action, out)
	case "public":
	case "repository_advisory":
		err = b.advisoryEvent(ctx, repo, d, out)
	case "installation", "installation_repositories":
		installationID, err = b.installationEvent(ctx, e, d, event, action, out)
	case "discussion":
		err = b.discussionEvent(ctx, repo, d, action, out)
	case "discussion_comment":
		err = b.discussionCommentEvent(ctx, repo, d, action, out)
	case "projects_v2":
		err = b.projectEvent(ctx, e, d, out)
	case "projects_v2_item":
		err = b.projectItemEvent(ctx, d, action, out)
	default:
		return nil, skip("%s %s has no payload", event, action)
	}
	if err != nil {
		if errors.Is(err, model.ErrNotFound) {
			return nil, skip("%s %s of event %d: %v", event, action, e.ID, err)
		}
		return nil, err
	}
	body, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &built{event: event, action: action, body: body, repoID: e.RepoID, installationID: installationID}, nil
}

// repo loads a repository and its webhook object.
func (b *builder) repo(ctx context.Context, id int64) (*model.Repo, error) {
	if r := b.repos[id]; r != nil {
		return r, nil
	}
	r, obj, err := RepoObject(ctx, b.q, b.s.URLs, b.s.License, id)
	if err != nil {
		return nil, err
	}
	b.repos[id], b.repoJSON[id] = r, obj
	return r, nil
}

// RepoObject loads repository id and makes its object as webhook payloads
// carry it (license names the license object of a key; nil: none). A
// repository's deletion stores it in its event, for the payload that
// follows.
func RepoObject(ctx context.Context, q store.Q, urls wire.URLs, license func(string) *wire.LicenseSimple, id int64) (*model.Repo, map[string]any, error) {
	v, err := q.RepoByID(ctx, id, 0)
	if err != nil {
		return nil, nil, err
	}
	facts, err := q.RepoFacts(ctx, []int64{id})
	if err != nil {
		return nil, nil, err
	}
	counts := wire.RepoCounts{OpenIssues: v.Repo.OpenIssues, Forks: v.Repo.ForksCount, Language: facts[id].Language}
	if license != nil {
		counts.License = license(facts[id].License)
	}
	obj, err := toMap(urls.ToRepository(v.Repo, counts, wire.Access{}))
	if err != nil {
		return nil, nil, err
	}
	if v.Repo.Owner.IsOrg() {
		obj["organization"] = urls.ToSimpleUser(v.Repo.Owner)
	}
	return v.Repo, obj, nil
}

// changes is the changes object of an edit ({} when the event has none).
func (d domain) changes() any {
	if ch := d["changes"]; ch != nil {
		return ch
	}
	return map[string]any{}
}

// row decodes the model copy key of a deletion's event into dst; false
// when the event has none.
func (d domain) row(key string, dst any) (bool, error) {
	m := d.snapshot(key)
	if m == nil {
		return false, nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(raw, dst)
}

// snapshot is the object key of a deletion's event (the issue, comment,
// milestone, label or repository as it was), nil when it has none.
func (d domain) snapshot(key string) map[string]any {
	w, _ := d["webhook"].(map[string]any)
	m, _ := w[key].(map[string]any)
	return m
}

// account loads an account (nil for id 0 or one that is gone).
func (b *builder) account(ctx context.Context, id int64) (*model.Account, error) {
	if id == 0 {
		return nil, nil
	}
	if a, ok := b.accounts[id]; ok {
		return a, nil
	}
	a, err := b.q.AccountByID(ctx, id)
	if errors.Is(err, model.ErrNotFound) {
		a, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	b.accounts[id] = a
	return a, nil
}

func (b *builder) issue(ctx context.Context, id int64) (*model.Issue, error) {
	if is := b.issues[id]; is != nil {
		return is, nil
	}
	is, err := b.q.IssueByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := b.q.IssueDetails(ctx, []*model.Issue{is}, true); err != nil {
		return nil, err
	}
	b.issues[id] = is
	return is, nil
}

func toMap(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(raw, &m)
	return m, err
}

func (b *builder) issueObject(repo *model.Repo, is *model.Issue) wire.Issue {
	out := b.w.ToIssue(repo, is, nil)
	b.w.WithClosedBy(&out, is)
	return out
}

func (b *builder) issueEvent(ctx context.Context, repo *model.Repo, e model.Event, d domain, action string, out map[string]any) error {
	is, err := b.issue(ctx, d.int("issue_id"))
	if err != nil {
		return err
	}
	out["issue"] = b.issueObject(repo, is)
	typ, sub, _ := strings.Cut(e.Type, ".")
	_ = typ
	switch {
	case sub == "transferred":
		return b.transferredIssue(ctx, repo, is, d, out)
	case sub == "renamed":
		ev, err := b.q.IssueEventByID(ctx, repo.ID, d.int("issue_event_id"))
		if err != nil {
			return err
		}
		out["changes"] = map[string]any{"title": map[string]any{"from": ev.RenameFrom}}
	case sub == "edited":
		if d["changes"] != nil {
			out["changes"] = d["changes"]
		} else {
			out["changes"] = map[string]any{}
		}
	case action == "labeled" || action == "unlabeled":
		return b.eventLabel(ctx, repo, d, out)
	case action == "assigned" || action == "unassigned":
		u, err := b.q.AccountByLogin(ctx, d.str("assignee"))
		if err != nil {
			return err
		}
		out["assignee"] = b.s.URLs.ToSimpleUser(u)
	case action == "milestoned" || action == "demilestoned":
		if is.Milestone != nil {
			out["milestone"] = b.w.ToMilestone(repo, is.Milestone)
		} else if action == "milestoned" {
			return skip("milestone of issue %d is gone", is.ID)
		}
	}
	return nil
}

// transferredIssue makes the payload of issues.transferred, sent to the
// repository the issue left: the issue as it was there, and where it went
// (changes.new_issue, changes.new_repository).
func (b *builder) transferredIssue(ctx context.Context, repo *model.Repo, is *model.Issue, d domain, out map[string]any) error {
	to, err := b.repo(ctx, d.int("new_repository_id"))
	if err != nil {
		return err
	}
	old := *is
	old.RepoID, old.Number = repo.ID, d.int("number")
	out["issue"] = b.issueObject(repo, &old)
	out["changes"] = map[string]any{"new_issue": b.issueObject(to, is), "new_repository": b.repoJSON[to.ID]}
	return nil
}

// eventLabel adds the label of a labeled or unlabeled event.
func (b *builder) eventLabel(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	l, err := b.q.LabelByName(ctx, repo.ID, d.str("label"))
	if errors.Is(err, model.ErrNotFound) {
		return nil // deleted since: the label is optional
	}
	if err != nil {
		return err
	}
	out["label"] = b.s.URLs.ToLabel(repo, l)
	return nil
}

func (b *builder) commentEvent(ctx context.Context, repo *model.Repo, e model.Event, d domain, action string, out map[string]any) error {
	if action == "deleted" {
		// The comment is gone; its event keeps a copy.
		if out["comment"] = d.snapshot("comment"); out["comment"] == nil {
			return skip("issue_comment deleted: the comment is gone and its event has no copy")
		}
		is, err := b.issue(ctx, d.int("issue_id"))
		if err != nil {
			return err
		}
		out["issue"] = b.issueObject(repo, is)
		return nil
	}
	c, err := b.q.CommentByID(ctx, repo.ID, d.int("comment_id"))
	if err != nil {
		return err
	}
	is, err := b.issue(ctx, c.IssueID)
	if err != nil {
		return err
	}
	out["issue"] = b.issueObject(repo, is)
	out["comment"] = b.w.ToComment(repo, c)
	if action == "edited" {
		out["changes"] = d.changes()
	}
	return nil
}

func (b *builder) labelEvent(ctx context.Context, repo *model.Repo, d domain, action string, out map[string]any) error {
	id := d.int("label_id")
	if action == "deleted" {
		if out["label"] = d.snapshot("label"); out["label"] == nil {
			// An event from before deletions kept a copy.
			out["label"] = b.s.URLs.ToLabel(repo, &model.Label{ID: id, Name: d.str("name"), Color: d.str("color")})
		}
		return nil
	}
	ls, err := b.q.LabelsByID(ctx, []int64{id})
	if err != nil {
		return err
	}
	l := ls[id]
	if l == nil {
		return model.ErrNotFound
	}
	out["label"] = b.s.URLs.ToLabel(repo, l)
	if action == "edited" {
		out["changes"] = d.changes()
	}
	return nil
}

func (b *builder) releaseEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	r, err := b.q.ReleaseByID(ctx, repo.ID, d.int("release_id"))
	if err != nil {
		return err
	}
	assets, err := b.q.AssetsOfReleases(ctx, []int64{r.ID})
	if err != nil {
		return err
	}
	r.Assets = assets[r.ID]
	out["release"] = b.s.URLs.ToRelease(repo, r, wire.BodyFormat{Raw: true})
	return nil
}

func (b *builder) milestoneEvent(ctx context.Context, repo *model.Repo, d domain, action string, out map[string]any) error {
	if action == "deleted" {
		if out["milestone"] = d.snapshot("milestone"); out["milestone"] == nil {
			return skip("milestone deleted: the milestone is gone and its event has no copy")
		}
		return nil
	}
	m, err := b.q.MilestoneByID(ctx, d.int("milestone_id"))
	if err != nil {
		return err
	}
	out["milestone"] = b.w.ToMilestone(repo, m)
	if action == "edited" {
		out["changes"] = d.changes()
	}
	return nil
}

func (b *builder) commitCommentEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	c, err := b.q.CommitCommentByID(ctx, repo.ID, d.int("comment_id"))
	if err != nil {
		return err
	}
	out["comment"] = b.w.ToCommitComment(repo, c)
	return nil
}

// forkEvent: the fork as forkee, a full repository object.
func (b *builder) forkEvent(ctx context.Context, d domain, out map[string]any) error {
	forkee, _ := d["forkee"].(map[string]any)
	id := domain(forkee).int("id")
	if _, err := b.repo(ctx, id); err != nil {
		return err
	}
	out["forkee"] = b.repoJSON[id]
	return nil
}

func (b *builder) memberEvent(ctx context.Context, d domain, out map[string]any) error {
	u, err := b.account(ctx, d.int("member"))
	if err != nil {
		return err
	}
	if u == nil {
		return model.ErrNotFound
	}
	out["member"] = b.s.URLs.ToSimpleUser(u)
	if d.str("action") == "edited" {
		out["changes"] = map[string]any{"permission": map[string]any{"from": d.str("previous"), "to": d.str("permission")}}
	}
	return nil
}

// pingPayload is the body of a ping of h.
func (s *Service) pingPayload(ctx context.Context, t Target, h *model.Hook, sender *model.Account) ([]byte, error) {
	var hook map[string]any
	if t.App != nil {
		// An app's hook as GitHub's app pings show it.
		events := h.Events
		if events == nil {
			events = []string{}
		}
		hook = map[string]any{"type": "App", "id": h.ID, "name": h.Name, "active": h.Active, "events": events,
			"config": wire.ToHookConfig(h), "updated_at": wire.Time(h.UpdatedAt), "created_at": wire.Time(h.CreatedAt),
			"app_id": t.App.ID, "deliveries_url": s.URLs.API + "/app/hook/deliveries"}
	} else {
		var err error
		if hook, err = toMap(s.URLs.ToHook(t.Repo, t.Org, h)); err != nil {
			return nil, err
		}
	}
	out := map[string]any{"zen": zen(h.ID), "hook_id": h.ID, "hook": hook}
	b := s.newBuilder()
	if t.Repo != nil {
		if _, err := b.repo(ctx, t.Repo.ID); err != nil {
			return nil, err
		}
		out["repository"] = b.repoJSON[t.Repo.ID]
		if t.Repo.Owner.IsOrg() {
			out["organization"] = s.URLs.ToOrgSimple(t.Repo.Owner)
		}
	}
	if t.Org != nil {
		out["organization"] = s.URLs.ToOrgSimple(t.Org)
	}
	if sender != nil {
		out["sender"] = s.URLs.ToSimpleUser(sender)
	}
	return json.Marshal(out)
}

// zen is one of GitHub's design principles, as a ping carries.
func zen(n int64) string {
	list := []string{"Keep it logically awesome.", "Design for failure.", "Practicality beats purity.",
		"Speak like a human.", "Mind your words, they are important.", "Non-blocking is better than blocking.",
		"Half measures are as bad as nothing at all.", "Approachable is better than simple.",
		"Anything added dilutes everything else.", "Favor focus over features.", "Avoid administrative distraction.",
		"Responsive is better than fast.", "It's not fully shipped until it's fast.", "Encourage flow."}
	return list[n%int64(len(list))]
}

// queuePing queues a ping delivery of h in tx.
func (s *Service) queuePing(ctx context.Context, tx store.Q, t Target, h *model.Hook, sender *model.Account) error {
	body, err := s.pingPayload(ctx, t, h, sender)
	if err != nil {
		return err
	}
	p := &model.HookPayload{Event: "ping", Body: body}
	if err := tx.InsertHookPayload(ctx, p); err != nil {
		return err
	}
	d := &model.HookDelivery{HookID: h.ID, PayloadID: p.ID, GUID: randid.UUID(), Event: "ping"}
	if t.Repo != nil {
		d.RepoID = t.Repo.ID
	}
	if err := tx.InsertHookDelivery(ctx, d); err != nil {
		return err
	}
	return enqueueDeliver(ctx, tx, h.ID)
}

func logSkip(e model.Event, err error) {
	slog.Info("webhook payload skipped", "event_id", e.ID, "type", e.Type, "reason", err.Error())
}
