package web

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/markdown/linked"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

const (
	pullsPerPage = 25
	// maxPullCommits are the commits a pull request's pages show (GitHub
	// lists 250 on its commits tab).
	maxPullCommits = 250
	maxReviews     = 500
	maxThreads     = 1000
	maxEvents      = 1000
	maxChecks      = 100
)

// pullState is how a pull request's state is drawn: GitHub's words and
// colours (Open green, Draft grey, Merged purple, Closed red).
type pullState struct{ Name, Class, Icon string }

func stateOf(p *model.Pull) pullState {
	switch {
	case p.Merged():
		return pullState{"Merged", "merged", "pull"}
	case p.Issue.State == "closed":
		return pullState{"Closed", "closed-pr", "pull"}
	case p.Draft:
		return pullState{"Draft", "draft", "pull"}
	}
	return pullState{"Open", "open", "pull"}
}

// reviewSummary words the latest reviews of a pull request for lists.
func reviewSummary(latest []*model.PullReview) string {
	approved, changes := false, false
	for _, v := range latest {
		switch v.State {
		case model.ReviewChangesRequested:
			changes = true
		case model.ReviewApproved:
			approved = true
		}
	}
	switch {
	case changes:
		return "Changes requested"
	case approved:
		return "Approved"
	}
	return ""
}

type pullRow struct {
	*model.Pull
	State  pullState
	Review string
	Checks string
}

type pullListView struct {
	Head
	State        string
	Open, Closed int
	OpenHref     string
	ClosedHref   string
	Pulls        []pullRow
	Prev, Next   string
}

// pullList serves /pulls (?state=closed for closed and merged ones): each
// with its review decision and the state of its head's checks.
func (x *req) pullList() bool {
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	v := pullListView{Head: x.head("pulls"), State: "open"}
	if x.query("state") == "closed" {
		v.State = "closed"
	}
	n := pageNumber(x.r)
	list, total, err := st.ListPulls(ctx, store.PullQuery{RepoID: x.repo.ID, State: v.State, Sort: "created", Desc: true,
		Limit: pullsPerPage, Offset: (n - 1) * pullsPerPage})
	if err != nil {
		return x.fail(err)
	}
	other := "closed"
	if v.State == "closed" {
		other = "open"
	}
	_, count, err := st.ListPulls(ctx, store.PullQuery{RepoID: x.repo.ID, State: other, Limit: 1})
	if err != nil {
		return x.fail(err)
	}
	v.Open, v.Closed = total, count
	if v.State == "closed" {
		v.Open, v.Closed = count, total
	}
	ids := make([]int64, 0, len(list))
	issues := make([]*model.Issue, 0, len(list))
	shas := make([]string, 0, len(list))
	for _, p := range list {
		ids, issues, shas = append(ids, p.IssueID), append(issues, p.Issue), append(shas, p.HeadSHA)
	}
	if err := st.IssueDetails(ctx, issues, false); err != nil {
		return x.fail(err)
	}
	latest, err := st.LatestReviews(ctx, ids)
	if err != nil {
		return x.fail(err)
	}
	checks, err := st.ChecksSummary(ctx, x.repo.ID, shas)
	if err != nil {
		return x.fail(err)
	}
	for _, p := range list {
		v.Pulls = append(v.Pulls, pullRow{Pull: p, State: stateOf(p), Review: reviewSummary(latest[p.IssueID]), Checks: checks[p.HeadSHA]})
	}
	self := x.r.URL.EscapedPath()
	v.OpenHref, v.ClosedHref = self, self+"?state=closed"
	q := ""
	if v.State == "closed" {
		q = "state=closed&"
	}
	v.Prev, v.Next = pager(self, q, n, total, pullsPerPage)
	return x.ok("Pull requests · "+x.repo.FullName(), "pulls", v)
}

// item is one entry of a pull request's conversation timeline.
type item struct {
	At      time.Time
	Kind    string // comment, review, commit, event
	Comment *comment
	Review  *reviewItem
	Commit  *commitItem
	Event   *model.IssueEvent
}

type thread struct {
	Path     string
	Line     int64
	Outdated bool
	Hunk     []diffLine
	Comments []reviewComment
}

type reviewComment struct {
	*model.PullReviewComment
	Body template.HTML
}

type reviewItem struct {
	*model.PullReview
	Body    template.HTML
	Threads []*thread
}

type check struct {
	Name, State, Href string
	Log               string // a workflow job's raw log while it runs (the live view follows it)
}

type pullView struct {
	Head
	Pull      *model.Pull
	Issue     *model.Issue
	State     pullState
	HeadLabel string
	Href      string // /owner/repo/pull/N
	Sub       string // "", files, commits
	Body      template.HTML
	Timeline  []item
	Reviewers []reviewerState
	Checks    []check
	ChecksSum string
	// The merge box.
	CanMerge    bool
	Blocked     string // why the rules refuse a merge now ("" when they do not)
	Methods     []string
	HeadExists  bool
	CanDelete   bool // the merged head branch may be deleted here
	SignedIn    bool
	CanComment  bool
	Live        bool // the conversation of an open pull request follows its checks (live.js)
	CSRF        string
	Commits     []commitItem
	CommitCount int
	Diff        *pullDiff
	Flash       string
}

type reviewerState struct {
	Login, State string
}

// pull loads the pull request the page names with what every tab shows.
func (x *req) pull() (*pullView, bool) {
	if x.h.svc.Pulls == nil {
		// A server built without the services (Use) draws the issue page.
		return nil, x.issuePage()
	}
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	p, err := st.PullByNumber(ctx, x.repo.ID, x.pg.number)
	if errors.Is(err, model.ErrNotFound) {
		// An issue's number under /pull goes to the issue, as on GitHub.
		return nil, x.issuePage()
	}
	if err != nil {
		return nil, x.fail(err)
	}
	c := x.caller()
	if err := x.h.svc.Pulls.Details(ctx, []*model.Pull{p}, c.UserID()); err != nil {
		return nil, x.fail(err)
	}
	if err := st.IssueDetails(ctx, []*model.Issue{p.Issue}, true); err != nil {
		return nil, x.fail(err)
	}
	num := strconv.FormatInt(p.Number, 10)
	v := &pullView{Head: x.head("pulls"), Pull: p, Issue: p.Issue, State: stateOf(p), Href: x.base + "/pull/" + num,
		Sub: x.pg.tab, SignedIn: c.UserID() != 0, Flash: x.query("flash")}
	v.HeadLabel = p.HeadRef
	if p.HeadRepo != nil && p.HeadRepo.ID != x.repo.ID {
		v.HeadLabel = p.HeadRepo.Owner.Login + ":" + p.HeadRef
	} else if p.HeadRepo == nil {
		v.HeadLabel = "unknown repository"
	}
	if v.SignedIn {
		v.CSRF = x.csrf()
		v.CanComment = x.repo.WriteRefusal() == nil
	}
	return v, true
}

// pullPage serves a pull request: its conversation, /files or /commits.
func (x *req) pullPage() bool {
	switch x.pg.tab {
	case "", "files", "commits":
	case "checks":
		return x.pullChecksJSON()
	default:
		return x.notFound() // the forms' addresses take POSTs only
	}
	v, ok := x.pull()
	if v == nil {
		return ok
	}
	canonical := v.Href
	if x.pg.tab != "" {
		canonical += "/" + x.pg.tab
	}
	if x.r.URL.EscapedPath() != canonical {
		http.Redirect(x.w, x.r, x.h.d.URLs.Web+canonical+query(x.r), http.StatusMovedPermanently)
		return true
	}
	var err error
	switch x.pg.tab {
	case "":
		err = x.conversation(v)
	case "files":
		err = x.files(v)
	case "commits":
		err = x.pullCommits(v)
	}
	if err != nil {
		return x.fail(err)
	}
	title := v.Issue.Title + " · Pull request #" + strconv.FormatInt(v.Pull.Number, 10) + " · " + x.repo.FullName()
	return x.ok(title, "pull", v)
}

// renderer renders the markdown of one page's documents, resolving each
// reference once and linking only what the reader may see.
func (x *req) renderer() func(string) (template.HTML, error) {
	o := markdown.Options{Comment: true, Web: x.h.d.URLs.Web, Context: x.repo.FullName(),
		Resolver: newMemo(linked.Resolver(x.h.d, x.caller()))}
	ctx := x.r.Context()
	return func(src string) (template.HTML, error) {
		if src == "" {
			return "", nil
		}
		out, err := markdown.Render(ctx, src, o)
		return template.HTML(out), err
	}
}

// commits are the pull request's commits, oldest first.
func (x *req) commitsOf(p *model.Pull) ([]*gitrepo.Commit, int, error) {
	ctx := x.r.Context()
	g := x.h.d.Git.Open(x.repo.ID)
	if !g.Exists() {
		return nil, 0, nil
	}
	base := p.BaseSHA
	ids, total, err := g.RevList(ctx, gitrepo.LogOptions{Include: []string{p.HeadSHA}, Exclude: []string{base}, Reverse: true, Max: maxPullCommits})
	if errors.Is(err, gitrepo.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	list, err := g.Commits(ctx, ids)
	return list, total, err
}

// conversation fills the timeline: the comments, reviews with their
// inline threads, commits and events, in time order; the reviewers, the
// checks of the head and the merge box.
func (x *req) conversation(v *pullView) error {
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	p := v.Pull
	render := x.renderer()
	var err error
	if p.Issue.Body != nil {
		if v.Body, err = render(*p.Issue.Body); err != nil {
			return err
		}
	}
	comments, _, err := st.ListComments(ctx, store.CommentQuery{RepoID: x.repo.ID, IssueID: p.IssueID, Limit: maxComments})
	if err != nil {
		return err
	}
	for _, c := range comments {
		body, err := render(c.Body)
		if err != nil {
			return err
		}
		v.Timeline = append(v.Timeline, item{At: c.CreatedAt, Kind: "comment", Comment: &comment{IssueComment: c, Body: body}})
	}
	uid := x.caller().UserID()
	reviews, _, err := st.ListPullReviews(ctx, p.IssueID, uid, maxReviews, 0)
	if err != nil {
		return err
	}
	threads, err := x.threads(p, uid, render)
	if err != nil {
		return err
	}
	byReview := map[int64][]*thread{}
	for _, t := range threads {
		byReview[t.Comments[0].ReviewID] = append(byReview[t.Comments[0].ReviewID], t)
	}
	latest := map[int64]string{}
	for _, r := range reviews {
		if r.State == model.ReviewPending {
			continue
		}
		body, err := render(r.Body)
		if err != nil {
			return err
		}
		at := r.CreatedAt
		if r.SubmittedAt != nil {
			at = *r.SubmittedAt
		}
		v.Timeline = append(v.Timeline, item{At: at, Kind: "review", Review: &reviewItem{PullReview: r, Body: body, Threads: byReview[r.ID]}})
		if r.User != nil && r.State != model.ReviewCommented {
			latest[r.UserID] = r.State
		} else if r.User != nil && latest[r.UserID] == "" {
			latest[r.UserID] = r.State
		}
	}
	for _, r := range reviews {
		if r.User != nil && latest[r.UserID] != "" {
			v.Reviewers = append(v.Reviewers, reviewerState{Login: r.User.Login, State: latest[r.UserID]})
			delete(latest, r.UserID)
		}
	}
	for _, a := range p.RequestedReviewers {
		v.Reviewers = append(v.Reviewers, reviewerState{Login: a.Login, State: "REQUESTED"})
	}
	commits, _, err := x.commitsOf(p)
	if err != nil {
		return err
	}
	items, err := x.people(commits)
	if err != nil {
		return err
	}
	for i := range items {
		v.Timeline = append(v.Timeline, item{At: commits[i].Committer.When, Kind: "commit", Commit: &items[i]})
	}
	events, _, err := st.ListIssueEvents(ctx, store.EventQuery{RepoID: x.repo.ID, IssueID: p.IssueID, Limit: maxEvents})
	if err != nil {
		return err
	}
	for _, e := range events {
		if shownEvents[e.Event] {
			v.Timeline = append(v.Timeline, item{At: e.CreatedAt, Kind: "event", Event: e})
		}
	}
	sort.SliceStable(v.Timeline, func(i, j int) bool { return v.Timeline[i].At.Before(v.Timeline[j].At) })
	if err := x.checks(v); err != nil {
		return err
	}
	v.Live = p.Issue.State == "open"
	return x.mergeBox(v)
}

// shownEvents are the issue events the conversation draws.
var shownEvents = map[string]bool{
	"closed": true, "reopened": true, "merged": true, "labeled": true, "unlabeled": true, "assigned": true,
	"unassigned": true, "review_requested": true, "review_request_removed": true, "head_ref_deleted": true,
	"head_ref_restored": true, "head_ref_force_pushed": true, "base_ref_changed": true, "renamed": true,
	"ready_for_review": true, "convert_to_draft": true, "referenced": true, "cross-referenced": true,
	"milestoned": true, "demilestoned": true, "locked": true, "unlocked": true, "review_dismissed": true,
}

// threads are the pull request's inline review threads (each a first
// comment and its replies) the reader may see.
func (x *req) threads(p *model.Pull, viewerID int64, render func(string) (template.HTML, error)) ([]*thread, error) {
	list, _, err := x.h.d.Store.R().ListPullReviewComments(x.r.Context(), store.ReviewCommentQuery{RepoID: x.repo.ID, PullID: p.IssueID, ViewerID: viewerID, Limit: maxThreads})
	if err != nil {
		return nil, err
	}
	byID := map[int64]*thread{}
	var out []*thread
	for _, c := range list {
		body, err := render(c.Body)
		if err != nil {
			return nil, err
		}
		rc := reviewComment{PullReviewComment: c, Body: body}
		if t := byID[c.InReplyToID]; c.InReplyToID != 0 && t != nil {
			t.Comments = append(t.Comments, rc)
			continue
		}
		t := &thread{Path: c.Path, Outdated: c.Line == nil, Comments: []reviewComment{rc}}
		if c.Line != nil {
			t.Line = *c.Line
		} else if c.OriginalLine != nil {
			t.Line = *c.OriginalLine
		}
		t.Hunk = hunkTail(c.DiffHunk, 4)
		byID[c.ID] = t
		out = append(out, t)
	}
	return out, nil
}

// hunkTail is the last n lines of a comment's diff hunk, drawn above it.
func hunkTail(h string, n int) []diffLine {
	lines := strings.Split(strings.TrimSuffix(h, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := make([]diffLine, 0, len(lines))
	for _, l := range lines {
		out = append(out, diffLine{Class: lineClass(l), Text: l})
	}
	return out
}

func lineClass(l string) string {
	switch {
	case strings.HasPrefix(l, "@@"):
		return "hunk"
	case strings.HasPrefix(l, "+"):
		return "add"
	case strings.HasPrefix(l, "-"):
		return "del"
	}
	return ""
}

// checks fills the head commit's check runs and commit statuses.
func (x *req) checks(v *pullView) error {
	list, err := x.headChecks(v.Pull.HeadSHA)
	v.Checks, v.ChecksSum = list, summarize(list)
	return err
}

// headChecks are a commit's latest check runs and the latest status of
// each context, as the merge box and its live view show them.
func (x *req) headChecks(sha string) ([]check, error) {
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	runs, err := st.LatestCheckRuns(ctx, x.repo.ID, sha)
	if err != nil {
		return nil, err
	}
	var out []check
	for _, r := range runs {
		c := check{Name: r.Name, State: r.Status, Href: x.base + "/runs/" + strconv.FormatInt(r.ID, 10)}
		if r.Conclusion != nil && *r.Conclusion != "" {
			c.State = *r.Conclusion
		} else if r.Status == "in_progress" {
			c.Log = x.jobLogHref(r.DetailsURL)
		}
		out = append(out, c)
	}
	statuses, _, err := st.CommitStatuses(ctx, x.repo.ID, sha, maxChecks, 0)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, s := range statuses {
		if seen[s.Context] {
			continue // the latest of each context
		}
		seen[s.Context] = true
		href := ""
		if s.TargetURL != nil {
			href = *s.TargetURL
		}
		out = append(out, check{Name: s.Context, State: string(s.State), Href: href})
	}
	return out, nil
}

// summarize words a list of check states as GitHub's merge box does.
func summarize(list []check) string {
	if len(list) == 0 {
		return ""
	}
	failed, pending := 0, 0
	for _, c := range list {
		switch c.State {
		case "failure", "error", "timed_out", "cancelled", "action_required", "startup_failure":
			failed++
		case "queued", "in_progress", "pending", "waiting", "requested":
			pending++
		}
	}
	switch {
	case failed > 0:
		return plural(failed, "failing check")
	case pending > 0:
		return plural(pending, "pending check")
	}
	return "All checks have passed"
}

// mergeBox decides what the merge box offers the reader.
func (x *req) mergeBox(v *pullView) error {
	p := v.Pull
	ctx := x.r.Context()
	g := x.h.d.Git.Open(x.repo.ID)
	if p.HeadRepo != nil && p.HeadRepo.ID == x.repo.ID && g.Exists() {
		sha, err := g.ResolveRef(ctx, "refs/heads/"+p.HeadRef)
		switch {
		case err == nil:
			v.HeadExists = true
			v.CanDelete = p.Issue.State == "closed" && sha == p.HeadSHA && x.perm >= authz.Write && p.HeadRef != x.repo.DefaultBranch
		case !errors.Is(err, gitrepo.ErrNotFound):
			return err
		}
	}
	if p.Issue.State != "open" || !v.SignedIn {
		return nil
	}
	for _, m := range []struct {
		on   bool
		name string
	}{{x.repo.AllowMergeCommit, model.MergeMerge}, {x.repo.AllowSquashMerge, model.MergeSquash}, {x.repo.AllowRebaseMerge, model.MergeRebase}} {
		if m.on {
			v.Methods = append(v.Methods, m.name)
		}
	}
	if x.perm < authz.Write {
		return nil
	}
	v.CanMerge = true
	why, err := x.h.svc.Pulls.MergeBlocker(ctx, x.repo, pulls.CallerFor(x.h.d.Store, x.caller(), x.perm), p)
	v.Blocked = why
	return err
}

type pullDiff struct {
	Files                []pullFile
	Additions, Deletions int
	More                 int
	Line                 string // the line a comment form is open on: path:SIDE:n
}

type pullLine struct {
	Class, Text string
	Old, New    int
	Link        string // opens a comment form on this line
	Form        bool   // the comment form is here
	Side        string
	Number      int
	Threads     []*thread
}

type pullFile struct {
	Path, OldPath, Href, Anchor string
	Additions, Deletions        int
	Lines                       []pullLine
	HTML                        template.HTML // the lines, drawn (diffHTML)
	Note                        string
	Outdated                    []*thread // threads no longer on a line of this diff
}

// files fills /files: the diff from the merge base to the head with the
// review threads under their lines; ?line=path:SIDE:n opens a comment
// form under that line.
func (x *req) files(v *pullView) error {
	ctx := x.r.Context()
	p := v.Pull
	g := x.h.d.Git.Open(x.repo.ID)
	d := &pullDiff{Line: x.query("line")}
	v.Diff = d
	if !g.Exists() {
		return nil
	}
	mb, err := g.MergeBase(ctx, p.BaseSHA, p.HeadSHA)
	if errors.Is(err, gitrepo.ErrNotFound) {
		mb = p.BaseSHA
	} else if err != nil {
		return err
	}
	changes, err := g.Diff(ctx, mb, p.HeadSHA, gitrepo.DiffOptions{Max: maxDiffFiles, MaxPatch: maxPatch})
	if err != nil {
		return err
	}
	threads, err := x.threads(p, x.caller().UserID(), x.renderer())
	if err != nil {
		return err
	}
	byPath := map[string][]*thread{}
	for _, t := range threads {
		byPath[t.Path] = append(byPath[t.Path], t)
	}
	lines := 0
	for i, f := range changes {
		d.Additions += f.Additions
		d.Deletions += f.Deletions
		if i >= maxDiffFiles {
			d.More++
			continue
		}
		pf := pullFile{Path: f.Path, OldPath: f.OldPath, Additions: f.Additions, Deletions: f.Deletions,
			Href: x.base + "/blob/" + p.HeadSHA + "/" + wire.EscapeContentPath(f.Path), Anchor: "diff-" + strconv.Itoa(i)}
		pending := byPath[f.Path]
		switch {
		case f.Binary:
			pf.Note = "Binary file not shown."
		case f.PatchTooLarge:
			pf.Note = "Large diff not shown."
		case !f.HasPatch || f.Patch == "":
			pf.Note = "No changes to show."
		case lines > maxDiffLines:
			pf.Note = "Diff not shown: this page shows enough already."
		default:
			pf.Lines = numberLines(f.Patch, "?line="+url.QueryEscape(f.Path)+":", d.Line, f.Path)
			lines += len(pf.Lines)
			pending = place(pf.Lines, pending)
			if pf.HTML, err = diffHTML(&pf, v); err != nil {
				return err
			}
			pf.Lines = nil
		}
		pf.Outdated = pending
		d.Files = append(d.Files, pf)
	}
	return nil
}

// numberLines splits a patch into lines numbered on both sides; each
// line links to a comment form on it.
func numberLines(patch, link, open, path string) []pullLine {
	raw := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	out := make([]pullLine, 0, len(raw))
	oldN, newN := 0, 0
	for _, l := range raw {
		pl := pullLine{Class: lineClass(l), Text: l}
		switch pl.Class {
		case "hunk":
			oldN, newN = hunkStart(l)
		case "add":
			pl.New, pl.Side, pl.Number = newN, "RIGHT", newN
			newN++
		case "del":
			pl.Old, pl.Side, pl.Number = oldN, "LEFT", oldN
			oldN++
		default:
			if strings.HasPrefix(l, `\`) {
				break // "\ No newline at end of file"
			}
			pl.Old, pl.New, pl.Side, pl.Number = oldN, newN, "RIGHT", newN
			oldN++
			newN++
		}
		if pl.Side != "" {
			key := pl.Side + ":" + strconv.Itoa(pl.Number)
			pl.Link = link + key
			pl.Form = open == path+":"+key
		}
		out = append(out, pl)
	}
	return out
}

// hunkStart reads "@@ -a,b +c,d @@" (the first line numbers of each side).
func hunkStart(h string) (int, int) {
	f := strings.Fields(h)
	if len(f) < 3 {
		return 0, 0
	}
	num := func(s string) int {
		s = strings.TrimLeft(s, "-+")
		s, _, _ = strings.Cut(s, ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	return num(f[1]), num(f[2])
}

// place puts each thread under the line it comments on and answers the
// threads on no line of the diff.
func place(lines []pullLine, threads []*thread) []*thread {
	var left []*thread
	for _, t := range threads {
		side := "RIGHT"
		if s := t.Comments[0].Side; s != nil {
			side = *s
		}
		placed := false
		if !t.Outdated {
			for i := range lines {
				if lines[i].Side == side && int64(lines[i].Number) == t.Line ||
					(side == "LEFT" && lines[i].Old != 0 && int64(lines[i].Old) == t.Line && lines[i].Class == "") {
					lines[i].Threads = append(lines[i].Threads, t)
					placed = true
					break
				}
			}
		}
		if !placed {
			left = append(left, t)
		}
	}
	return left
}

// pullCommits fills /commits.
func (x *req) pullCommits(v *pullView) error {
	list, total, err := x.commitsOf(v.Pull)
	if err != nil {
		return err
	}
	v.Commits, err = x.people(list)
	v.CommitCount = total
	return err
}

// diffHTML draws a file's numbered diff lines. A diff of thousands of
// lines is written here rather than by the template, which would escape
// each of a line's fields through reflection (several times slower); the
// rare threads and the open comment form still come from the templates.
func diffHTML(f *pullFile, v *pullView) (template.HTML, error) {
	var b strings.Builder
	b.Grow(len(f.Lines) * 96)
	t := pages["pull"]
	num := func(n int) {
		if n != 0 {
			b.WriteString(strconv.Itoa(n))
		}
	}
	for i := range f.Lines {
		l := &f.Lines[i]
		b.WriteString(`<span class="row-line`)
		if l.Class != "" {
			b.WriteString(" " + l.Class)
		}
		b.WriteString(`">`)
		if v.SignedIn && l.Link != "" {
			id := "L" + l.Side + strconv.Itoa(l.Number) + "-" + f.Anchor
			side := "new"
			if l.Side == "LEFT" {
				side = "old"
			}
			// The link is the number of the side commented on, so an added
			// or removed line's link has its number to click.
			link := `<a class="ln" id="` + id + `" href="` + template.HTMLEscapeString(l.Link) + "#" + id +
				`" aria-label="Comment on ` + side + ` line ` + strconv.Itoa(l.Number) + `">`
			for _, n := range [2]struct {
				side string
				n    int
			}{{"LEFT", l.Old}, {"RIGHT", l.New}} {
				if n.side == l.Side {
					b.WriteString(link)
					num(n.n)
					b.WriteString(`</a>`)
				} else {
					b.WriteString(`<span class="ln">`)
					num(n.n)
					b.WriteString(`</span>`)
				}
			}
		} else {
			b.WriteString(`<span class="ln">`)
			num(l.Old)
			b.WriteString(`</span><span class="ln">`)
			num(l.New)
			b.WriteString(`</span>`)
		}
		b.WriteString(template.HTMLEscapeString(l.Text))
		b.WriteString(`</span>`)
		for _, th := range l.Threads {
			b.WriteString(`<span class="inline">`)
			if err := t.ExecuteTemplate(&b, "thread", th); err != nil {
				return "", err
			}
			b.WriteString(`</span>`)
		}
		if l.Form {
			b.WriteString(`<span class="inline">`)
			if err := t.ExecuteTemplate(&b, "lineform", lineForm{View: v, File: f, Line: l}); err != nil {
				return "", err
			}
			b.WriteString(`</span>`)
		}
	}
	return template.HTML(b.String()), nil
}

type lineForm struct {
	View *pullView
	File *pullFile
	Line *pullLine
}
