// Package notifications is the service of GitHub's notifications: an
// outbox consumer turns the domain events log into notification threads
// (one per user and subject: an issue, a pull request, a release) when
// the events happen, and the REST adapter (internal/api/notifications)
// lists and marks them. The consumer reads the webhook payloads of the
// events (internal/hooks), which name the subject, its author, the
// comment, the assignee and the requested reviewer.
package notifications

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Consumer is the service's name among the outbox consumers.
const Consumer = "notifications"

// Service makes and lists notification threads.
type Service struct {
	Store *store.Store
	URLs  wire.URLs
	// Render builds the webhook payloads of a batch of domain events (the
	// webhook service's NewRenderer).
	Render func() *hooks.Renderer
	// Jobs runs the marking of many threads read.
	Jobs *jobs.Queue

	consumer *outbox.Consumer
}

// New makes the service, registers its consumer, which starts at the end
// of the log (no notifications for what happened before), and its job.
func New(st *store.Store, urls wire.URLs, o *outbox.Outbox, q *jobs.Queue) *Service {
	s := &Service{Store: st, URLs: urls, Jobs: q}
	s.consumer = o.Register(Consumer, false, s.step)
	if q != nil {
		q.Handle(jobMarkRead, s.runMarkRead)
	}
	return s
}

// Start runs the consumer in the background.
func (s *Service) Start(ctx context.Context) { s.consumer.Start(ctx) }

// Sync consumes what the log holds now (tests).
func (s *Service) Sync(ctx context.Context) error { return s.consumer.Sync(ctx) }

const (
	batch = 100
	// chunk is how many threads one transaction writes: a subject with
	// many watchers is written in several.
	chunk = 500
)

// rank orders the reasons: a thread keeps the strongest reason it got.
var rank = map[string]int{
	"subscribed": 1, "manual": 2, "state_change": 3, "comment": 4, "author": 5,
	"assign": 6, "team_mention": 7, "mention": 8, "review_requested": 9, "ci_activity": 10,
}

// subject is the thing a thread is about, from a webhook payload.
type subject struct {
	repoID     int64
	private    bool
	typ        string
	key        int64
	title, url string
	commentURL string
	authorID   int64
}

type threadKey struct {
	user, repo int64
	typ        string
	key        int64
}

// run is the state of one batch: the threads it loaded and changed.
type run struct {
	s       *Service
	q       store.Q
	loaded  map[threadKey]bool // subjects loaded (user 0)
	threads map[threadKey]*store.Thread
	dirty   map[threadKey]bool
	order   []threadKey
}

func (s *Service) step(ctx context.Context) (int, time.Duration, error) {
	if s.Render == nil {
		return 0, time.Minute, nil
	}
	b, err := s.consumer.Read(ctx, 0, batch)
	if err != nil || !b.Moves() {
		return 0, 0, err
	}
	r := s.Render()
	rn := &run{s: s, q: s.Store.Background(), loaded: map[threadKey]bool{}, threads: map[threadKey]*store.Thread{},
		dirty: map[threadKey]bool{}}
	for _, e := range b.Events {
		if err := rn.event(ctx, r, e); err != nil {
			return 0, 0, err
		}
	}
	var list []*store.Thread
	for _, k := range rn.order {
		list = append(list, rn.threads[k])
	}
	// Large fan-outs: every chunk but the last in a transaction of its
	// own (rewriting a thread is idempotent, so a crash in between only
	// repeats them), the last with the cursor.
	for len(list) > chunk {
		part := list[:chunk]
		list = list[chunk:]
		if err := s.Store.Tx(ctx, func(tx store.Q) error { return tx.UpsertThreads(ctx, part) }); err != nil {
			return 0, 0, err
		}
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := b.Commit(ctx, tx); err != nil {
			return err
		}
		return tx.UpsertThreads(ctx, list)
	})
	return len(b.Events), 0, err
}

// payload is the part of a webhook payload the consumer reads.
type payload struct {
	Action     string `json:"action"`
	Repository *struct {
		ID       int64  `json:"id"`
		FullName string `json:"full_name"`
		URL      string `json:"url"`
		Private  bool   `json:"private"`
	} `json:"repository"`
	Sender *struct {
		ID int64 `json:"id"`
	} `json:"sender"`
	Issue       *item `json:"issue"`
	Discussion  *item `json:"discussion"`
	PullRequest *item `json:"pull_request"`
	Comment     *struct {
		URL      string `json:"url"`
		HTMLURL  string `json:"html_url"`
		Body     string `json:"body"`
		CommitID string `json:"commit_id"`
	} `json:"comment"`
	Changes *struct {
		Body *struct {
			From string `json:"from"`
		} `json:"body"`
	} `json:"changes"`
	WorkflowRun *struct {
		ID         int64   `json:"id"`
		Name       string  `json:"name"`
		URL        string  `json:"url"`
		Conclusion *string `json:"conclusion"`
		HeadBranch *string `json:"head_branch"`
		Event      string  `json:"event"`
	} `json:"workflow_run"`
	Review *struct {
		Body string `json:"body"`
	} `json:"review"`
	Assignee          *struct{ ID int64 } `json:"assignee"`
	RequestedReviewer *struct{ ID int64 } `json:"requested_reviewer"`
	Release           *struct {
		ID      int64  `json:"id"`
		Name    string `json:"name"`
		TagName string `json:"tag_name"`
		URL     string `json:"url"`
	} `json:"release"`
}

type item struct {
	Number      int64               `json:"number"`
	Title       string              `json:"title"`
	URL         string              `json:"url"`
	Body        string              `json:"body"`
	User        *struct{ ID int64 } `json:"user"`
	PullRequest json.RawMessage     `json:"pull_request"`
}

// event makes the threads of one domain event.
func (rn *run) event(ctx context.Context, r *hooks.Renderer, e model.Event) error {
	if e.RepoID == 0 || !relevant(e.Type) {
		return nil
	}
	if e.Type == "issues.review_requested" {
		if err := rn.teamRequest(ctx, e); err != nil {
			return err
		}
	}
	list, err := r.Render(ctx, e)
	if err != nil {
		return err
	}
	for _, h := range list {
		var p payload
		if err := json.Unmarshal(h.Body, &p); err != nil {
			return err
		}
		if p.Repository == nil || p.Sender == nil {
			continue
		}
		if err := rn.hook(ctx, h.Event, p); err != nil {
			return err
		}
	}
	return nil
}

// teamRequest notifies the members of a team asked for a review (the
// webhook payloads leave team requests out).
func (rn *run) teamRequest(ctx context.Context, e model.Event) error {
	var d struct {
		IssueID int64 `json:"issue_id"`
		TeamID  int64 `json:"requested_team_id"`
	}
	if json.Unmarshal(e.Payload, &d) != nil || d.TeamID == 0 {
		return nil
	}
	p, err := rn.q.PullByIssueID(ctx, d.IssueID)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	v, err := rn.q.RepoByID(ctx, e.RepoID, 0)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	members, err := rn.q.TeamMemberIDs(ctx, d.TeamID)
	if err != nil {
		return err
	}
	url := rn.s.URLs.RepoAPIURL(v.Repo) + "/pulls/" + strconv.FormatInt(p.Number, 10)
	sub := subject{repoID: e.RepoID, private: v.Repo.Visibility != model.Public, typ: "PullRequest", key: p.Number,
		title: p.Issue.Title, url: url, commentURL: url, authorID: p.Issue.UserID}
	direct := map[int64]string{}
	for _, id := range members {
		direct[id] = "review_requested"
	}
	return rn.deliver(ctx, sub, e.ActorID, "", direct, false)
}

func relevant(typ string) bool {
	t, _, _ := strings.Cut(typ, ".")
	switch t {
	case "issues", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment", "release",
		"commit_comment", "discussion", "discussion_comment":
		return true
	case "workflow_run":
		return typ == "workflow_run.completed"
	}
	return false
}

// hook makes the threads of one webhook payload.
func (rn *run) hook(ctx context.Context, event string, p payload) error {
	sub := subject{repoID: p.Repository.ID, private: p.Repository.Private}
	actor := p.Sender.ID
	direct := map[int64]string{} // users this activity is addressed to, and why
	add := func(id int64, reason string) {
		if id != 0 && rank[reason] > rank[direct[id]] {
			direct[id] = reason
		}
	}
	var body string
	actorReason := "" // the actor's participation, when it is one
	notify := false   // whether subscribers and watchers hear of it
	it := p.Issue
	if p.PullRequest != nil {
		it = p.PullRequest
	}
	switch event {
	case "issues", "pull_request", "issue_comment", "pull_request_review", "pull_request_review_comment":
		if it == nil {
			return nil
		}
		sub.typ, sub.key, sub.title, sub.url = "Issue", it.Number, it.Title, it.URL
		if p.PullRequest != nil || len(it.PullRequest) > 0 && string(it.PullRequest) != "null" {
			sub.typ = "PullRequest"
			sub.url = p.Repository.URL + "/pulls/" + strconv.FormatInt(it.Number, 10)
		}
		sub.commentURL = sub.url
		if it.User != nil {
			sub.authorID = it.User.ID
		}
	case "release":
		if p.Action != "published" || p.Release == nil {
			return nil
		}
		title := p.Release.Name
		if title == "" {
			title = p.Release.TagName
		}
		sub = subject{repoID: p.Repository.ID, private: p.Repository.Private, typ: "Release", key: p.Release.ID,
			title: title, url: p.Release.URL, commentURL: p.Release.URL}
		return rn.deliver(ctx, sub, actor, "", direct, true)
	case "commit_comment":
		if p.Action != "created" || p.Comment == nil || p.Comment.CommitID == "" {
			return nil
		}
		sha := p.Comment.CommitID
		sub = subject{repoID: p.Repository.ID, private: p.Repository.Private, typ: "Commit", key: commitKey(sha),
			title: "Commit " + sha[:min(7, len(sha))], url: p.Repository.URL + "/commits/" + sha, commentURL: p.Comment.URL}
		body, actorReason, notify = p.Comment.Body, "comment", true
	case "workflow_run":
		return rn.ciActivity(ctx, p)
	case "discussion", "discussion_comment":
		// GitHub's threads of discussions are of type Discussion; their
		// url is the discussion's under the repository's API URL (there
		// is no REST resource behind it).
		it = p.Discussion
		if it == nil {
			return nil
		}
		sub.typ, sub.key, sub.title = "Discussion", it.Number, it.Title
		sub.url = p.Repository.URL + "/discussions/" + strconv.FormatInt(it.Number, 10)
		sub.commentURL = sub.url
		if it.User != nil {
			sub.authorID = it.User.ID
		}
	default:
		return nil
	}
	switch event + "." + p.Action {
	case "issues.opened", "pull_request.opened", "discussion.created":
		body, actorReason, notify = it.Body, "author", true
	case "issues.closed", "issues.reopened", "pull_request.closed", "pull_request.reopened", "discussion.closed", "discussion.reopened":
		actorReason, notify = "state_change", true
	case "issues.assigned", "pull_request.assigned":
		if p.Assignee != nil {
			add(p.Assignee.ID, "assign")
		}
	case "pull_request.review_requested":
		if p.RequestedReviewer != nil {
			add(p.RequestedReviewer.ID, "review_requested")
		}
	case "issue_comment.created", "pull_request_review_comment.created":
		if p.Comment == nil {
			return nil
		}
		body, actorReason, notify, sub.commentURL = p.Comment.Body, "comment", true, p.Comment.URL
		add(sub.authorID, "author")
	case "discussion_comment.created":
		if p.Comment == nil {
			return nil
		}
		body, actorReason, notify = p.Comment.Body, "comment", true
		add(sub.authorID, "author")
	case "discussion.answered":
		// The author hears that their question has an answer.
		add(sub.authorID, "author")
	case "pull_request_review.submitted":
		if p.Review != nil {
			body = p.Review.Body
		}
		actorReason, notify = "comment", true
		add(sub.authorID, "author")
	case "commit_comment.created":
	case "issues.edited", "pull_request.edited", "issue_comment.edited", "discussion.edited", "discussion_comment.edited":
		// An edit notifies the users it newly mentions, no one else.
		if p.Changes == nil || p.Changes.Body == nil {
			return nil
		}
		body = it.Body
		if event == "issue_comment" || event == "discussion_comment" {
			if p.Comment == nil {
				return nil
			}
			body = p.Comment.Body
			if event == "issue_comment" {
				sub.commentURL = p.Comment.URL
			}
		}
		body = newMentions(p.Changes.Body.From, body)
	default:
		return nil
	}
	for _, login := range Mentions(body) {
		u, err := rn.q.AccountByLogin(ctx, login)
		if err == nil && u.Type == model.TypeUser {
			add(u.ID, "mention")
		}
	}
	for _, tm := range TeamMentions(body) {
		org, err := rn.q.AccountByLogin(ctx, tm[0])
		if err != nil || org.Type != model.TypeOrganization {
			continue
		}
		team, err := rn.q.TeamBySlug(ctx, org.ID, tm[1])
		if err != nil {
			continue
		}
		members, err := rn.q.TeamMemberIDs(ctx, team.ID)
		if err != nil {
			return err
		}
		for _, id := range members {
			add(id, "team_mention")
		}
	}
	return rn.deliver(ctx, sub, actor, actorReason, direct, notify)
}

// newMentions is the @mentions of an edited body that its previous
// version did not have, as a body of mentions.
func newMentions(from, to string) string {
	had := map[string]bool{}
	for _, l := range Mentions(from) {
		had[strings.ToLower(l)] = true
	}
	for _, tm := range TeamMentions(from) {
		had[tm[0]+"/"+tm[1]] = true
	}
	var out []string
	for _, l := range Mentions(to) {
		if !had[strings.ToLower(l)] {
			out = append(out, "@"+l)
		}
	}
	for _, tm := range TeamMentions(to) {
		if !had[tm[0]+"/"+tm[1]] {
			out = append(out, "@"+tm[0]+"/"+tm[1])
		}
	}
	return strings.Join(out, " ")
}

// commitKey is the subject key of a commit's thread: the first 60 bits of
// its id (threads are keyed by number; a collision within one repository
// is out of reach).
func commitKey(sha string) int64 {
	if len(sha) < 15 {
		return 0
	}
	v, err := strconv.ParseInt(sha[:15], 16, 64)
	if err != nil {
		return 0
	}
	return v
}

// ciActivity notifies the user who triggered a workflow run that failed
// (reason ci_activity; GitHub's default sends failed runs only), never
// watchers. The subject is the run's check suite, as on GitHub.
func (rn *run) ciActivity(ctx context.Context, p payload) error {
	r := p.WorkflowRun
	if r == nil || p.Action != "completed" || r.Conclusion == nil {
		return nil
	}
	switch *r.Conclusion {
	case "failure", "timed_out", "startup_failure":
	default:
		return nil
	}
	branch := ""
	if r.HeadBranch != nil {
		branch = " for " + *r.HeadBranch + " branch"
	}
	title := r.Name + " workflow run failed" + branch
	sub := subject{repoID: p.Repository.ID, private: p.Repository.Private, typ: "CheckSuite", key: r.ID, title: title,
		url: r.URL, commentURL: r.URL}
	// The actor is the recipient here: no one is left out as the actor.
	return rn.deliver(ctx, sub, 0, "", map[int64]string{p.Sender.ID: "ci_activity"}, false)
}

// deliver updates the threads of sub: the direct recipients with their
// reasons, and (notify) the users subscribed to the thread and the
// repository's watchers; the actor's participation (actorReason) is
// recorded without notifying them. Ignored threads and repositories and
// users who may not read the repository get nothing.
func (rn *run) deliver(ctx context.Context, sub subject, actor int64, actorReason string, direct map[int64]string, notify bool) error {
	existing, err := rn.subjectThreads(ctx, sub)
	if err != nil {
		return err
	}
	want := map[int64]string{}
	for id, reason := range direct {
		want[id] = reason
	}
	if notify {
		for id, t := range existing {
			if t.Sub == "subscribed" && want[id] == "" {
				want[id] = t.Reason
			}
		}
	}
	watching, ignoring, err := rn.q.RepoWatchers(ctx, sub.repoID)
	if err != nil {
		return err
	}
	if notify {
		for _, id := range watching {
			if want[id] == "" {
				want[id] = "subscribed"
			}
		}
	}
	for _, id := range ignoring {
		delete(want, id)
	}
	delete(want, actor)
	if sub.private {
		ids := make([]int64, 0, len(want))
		for id := range want {
			ids = append(ids, id)
		}
		readers, err := rn.q.RepoReaders(ctx, sub.repoID, ids)
		if err != nil {
			return err
		}
		for id := range want {
			if !readers[id] {
				delete(want, id)
			}
		}
	}
	now := rn.q.Now()
	for id, reason := range want {
		t := existing[id]
		if t != nil && t.Sub == "ignored" {
			continue
		}
		t = rn.thread(sub, id, t)
		if rank[reason] > rank[t.Reason] || t.Reason == "" {
			t.Reason = reason
		}
		t.Unread, t.Done, t.UpdatedAt = true, false, now
		if reason != "subscribed" && t.Sub == "" {
			t.Sub, t.SubAt = "subscribed", &now
		}
	}
	if actorReason != "" && actor != 0 {
		// The actor takes part: later activity notifies them, this one
		// does not (a new thread of theirs waits out of the inbox).
		t := existing[actor]
		if t == nil || t.Sub != "ignored" {
			fresh := t == nil
			t = rn.thread(sub, actor, t)
			if rank[actorReason] > rank[t.Reason] {
				t.Reason = actorReason
			}
			if fresh {
				t.Done, t.UpdatedAt = true, now
			}
			t.Unread = false
			if t.Sub == "" {
				t.Sub, t.SubAt = "subscribed", &now
			}
		}
	}
	return nil
}

// subjectThreads is the threads of sub by user, loaded once a batch.
func (rn *run) subjectThreads(ctx context.Context, sub subject) (map[int64]*store.Thread, error) {
	sk := threadKey{repo: sub.repoID, typ: sub.typ, key: sub.key}
	if !rn.loaded[sk] {
		list, err := rn.q.SubjectThreads(ctx, sub.repoID, sub.typ, sub.key)
		if err != nil {
			return nil, err
		}
		for _, t := range list {
			rn.threads[threadKey{t.UserID, t.RepoID, t.SubjectType, t.SubjectKey}] = t
		}
		rn.loaded[sk] = true
	}
	out := map[int64]*store.Thread{}
	for k, t := range rn.threads {
		if k.repo == sub.repoID && k.typ == sub.typ && k.key == sub.key {
			out[k.user] = t
		}
	}
	return out, nil
}

// thread is user's thread of sub (t, or a new one), marked for writing
// with sub's current title and urls.
func (rn *run) thread(sub subject, user int64, t *store.Thread) *store.Thread {
	k := threadKey{user, sub.repoID, sub.typ, sub.key}
	if t == nil {
		t = &store.Thread{UserID: user, RepoID: sub.repoID, SubjectType: sub.typ, SubjectKey: sub.key}
		rn.threads[k] = t
	}
	t.Title, t.SubjectURL, t.LatestCommentURL = sub.title, sub.url, sub.commentURL
	if !rn.dirty[k] {
		rn.dirty[k] = true
		rn.order = append(rn.order, k)
	}
	return t
}

var mention = regexp.MustCompile(`(?:^|[^\w/` + "`" + `])@([A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38})\b`)

var teamMention = regexp.MustCompile(`(?:^|[^\w/` + "`" + `])@([A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38})/([A-Za-z0-9][A-Za-z0-9_.-]*)`)

// TeamMentions is the teams (organization login, slug) @mentioned in a
// Markdown body, once each.
func TeamMentions(body string) [][2]string {
	var out [][2]string
	seen := map[[2]string]bool{}
	for _, line := range mentionLines(body) {
		for _, m := range teamMention.FindAllStringSubmatch(line, -1) {
			k := [2]string{strings.ToLower(m[1]), strings.ToLower(m[2])}
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// mentionLines is the lines of body that may mention (not indented code
// or quotes), with code spans blanked.
func mentionLines(body string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(body, "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(line, "    ") || strings.HasPrefix(trim, ">") {
			continue
		}
		out = append(out, codeSpan.ReplaceAllString(line, ""))
	}
	return out
}

var codeSpan = regexp.MustCompile("`[^`]*`")

// Mentions is the logins @mentioned in a Markdown body (outside code
// spans), once each.
func Mentions(body string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range mentionLines(body) {
		for _, m := range mention.FindAllStringSubmatch(line, -1) {
			l := strings.ToLower(m[1])
			if !seen[l] {
				seen[l] = true
				out = append(out, m[1])
			}
		}
	}
	return out
}
