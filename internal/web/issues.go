package web

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"sort"
	"strconv"

	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/markdown/linked"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

const (
	issuesPerPage = 25
	labelsPerPage = 100
	// maxComments are the comments of one issue page: enough that every
	// comment's html_url anchor (#issuecomment-ID, on the first page) is
	// there for all but the longest threads, which page on.
	maxComments = 500
)

// pager is the previous and next page addresses of a list (self is the
// escaped path; q the rest of the query, "" or "a=b&").
func pager(self, q string, page, total, per int) (prev, next string) {
	if page > 1 {
		prev = self + "?" + q + "page=" + strconv.Itoa(page-1)
		if page == 2 && q == "" {
			prev = self
		}
	}
	if page*per < total {
		next = self + "?" + q + "page=" + strconv.Itoa(page+1)
	}
	return prev, next
}

type issueListView struct {
	Head
	Intro         template.HTML // a milestone's description
	Milestone     *model.Milestone
	Label         *model.Label
	State         string
	Open, Closed  int
	OpenHref      string
	ClosedHref    string
	Issues        []*model.Issue
	Prev, Next    string
	LabelsHref    string
	MilestoneHref string
}

// issues fills a list of the issues f selects (its state and page from the
// request) with the counts of both states.
func (x *req) issues(f store.IssueQuery, v *issueListView) error {
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	v.State = "open"
	if x.query("state") == "closed" {
		v.State = "closed"
	}
	n := pageNumber(x.r)
	f.RepoID, f.State, f.Sort, f.Desc = x.repo.ID, v.State, "created", true
	f.Limit, f.Offset = issuesPerPage, (n-1)*issuesPerPage
	list, total, err := st.ListIssues(ctx, f)
	if err != nil {
		return err
	}
	other := f
	other.State, other.Limit, other.Offset = "closed", 1, 0
	if v.State == "closed" {
		other.State = "open"
	}
	_, count, err := st.ListIssueIDs(ctx, other)
	if err != nil {
		return err
	}
	v.Open, v.Closed = total, count
	if v.State == "closed" {
		v.Open, v.Closed = count, total
	}
	if err := st.IssueDetails(ctx, list, false); err != nil {
		return err
	}
	v.Issues = list
	self := x.r.URL.EscapedPath()
	v.OpenHref, v.ClosedHref = self, self+"?state=closed"
	q := ""
	if v.State == "closed" {
		q = "state=closed&"
	}
	v.Prev, v.Next = pager(self, q, n, total, issuesPerPage)
	v.LabelsHref, v.MilestoneHref = x.base+"/labels", x.base+"/milestones"
	return nil
}

// issueList serves /issues: issues and pull requests, newest first.
func (x *req) issueList() bool {
	if !x.repo.HasIssues {
		return x.redirect(x.base) // as GitHub, when issues are disabled
	}
	v := issueListView{Head: x.head("issues")}
	if err := x.issues(store.IssueQuery{}, &v); err != nil {
		return x.fail(err)
	}
	return x.ok("Issues · "+x.repo.FullName(), "issues", v)
}

// labelPage serves /labels/{name}: the issues with the label.
func (x *req) labelPage() bool {
	l, err := x.h.d.Store.R().LabelByName(x.r.Context(), x.repo.ID, x.pg.rest[0])
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	v := issueListView{Head: x.head("issues"), Label: l}
	if err := x.issues(store.IssueQuery{Labels: []string{l.Name}}, &v); err != nil {
		return x.fail(err)
	}
	return x.ok(l.Name+" · Label · "+x.repo.FullName(), "issues", v)
}

// milestonePage serves /milestone/{number}: its progress and its issues.
func (x *req) milestonePage() bool {
	m, err := x.h.d.Store.R().MilestoneByNumber(x.r.Context(), x.repo.ID, x.pg.number)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	v := issueListView{Head: x.head("issues"), Milestone: m}
	if m.Description != nil && *m.Description != "" {
		out, err := linked.Render(x.r.Context(), x.h.d, x.caller(), x.repo, *m.Description, true)
		if err != nil {
			return x.fail(err)
		}
		v.Intro = template.HTML(out)
	}
	if err := x.issues(store.IssueQuery{MilestoneID: m.ID}, &v); err != nil {
		return x.fail(err)
	}
	return x.ok(m.Title+" · Milestone · "+x.repo.FullName(), "issues", v)
}

type labelsView struct {
	Head
	Labels     []*model.Label
	Total      int
	Prev, Next string
}

// labelList serves /labels.
func (x *req) labelList() bool {
	n := pageNumber(x.r)
	list, total, err := x.h.d.Store.R().ListLabels(x.r.Context(), x.repo.ID, labelsPerPage, (n-1)*labelsPerPage)
	if err != nil {
		return x.fail(err)
	}
	v := labelsView{Head: x.head("issues"), Labels: list, Total: total}
	v.Prev, v.Next = pager(x.r.URL.EscapedPath(), "", n, total, labelsPerPage)
	return x.ok("Labels · "+x.repo.FullName(), "labels", v)
}

type milestonesView struct {
	Head
	State        string
	Milestones   []*model.Milestone
	OpenHref     string
	ClosedHref   string
	Prev, Next   string
	Open, Closed int
}

// milestoneList serves /milestones (?state=closed for the closed ones).
func (x *req) milestoneList() bool {
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	v := milestonesView{Head: x.head("issues"), State: "open"}
	if x.query("state") == "closed" {
		v.State = "closed"
	}
	n := pageNumber(x.r)
	list, total, err := st.ListMilestones(ctx, store.MilestoneQuery{RepoID: x.repo.ID, State: v.State, Limit: issuesPerPage, Offset: (n - 1) * issuesPerPage})
	if err != nil {
		return x.fail(err)
	}
	other := "closed"
	if v.State == "closed" {
		other = "open"
	}
	_, count, err := st.ListMilestones(ctx, store.MilestoneQuery{RepoID: x.repo.ID, State: other, Limit: 1})
	if err != nil {
		return x.fail(err)
	}
	v.Milestones, v.Open, v.Closed = list, total, count
	if v.State == "closed" {
		v.Open, v.Closed = count, total
	}
	self := x.r.URL.EscapedPath()
	v.OpenHref, v.ClosedHref = self, self+"?state=closed"
	q := ""
	if v.State == "closed" {
		q = "state=closed&"
	}
	v.Prev, v.Next = pager(self, q, n, total, issuesPerPage)
	return x.ok("Milestones · "+x.repo.FullName(), "milestones", v)
}

type comment struct {
	*model.IssueComment
	Body template.HTML
}

type issueView struct {
	Head
	Issue      *model.Issue
	Kind       string // "Issue" or "Pull request"
	Body       template.HTML
	Comments   []comment
	Timeline   []item // the comments and events, in time order
	Prev, Next string
	// The forms: comment (and close or reopen) for signed-in readers.
	Href, CSRF, Flash    string
	SignedIn, CanComment bool
}

// issuePage serves /issues/{number} and /pull/{number} with the comments.
func (x *req) issuePage() bool {
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	is, err := st.IssueByNumber(ctx, x.repo.ID, x.pg.number)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	kind := "issues"
	if is.IsPull {
		kind = "pull"
	}
	if !is.IsPull && !x.repo.HasIssues {
		return x.redirect(x.base)
	}
	canonical := x.base + "/" + kind + "/" + strconv.FormatInt(is.Number, 10)
	if x.r.URL.EscapedPath() != canonical {
		// A pull request's page is under /pull, an issue's under /issues,
		// as on GitHub; the fragment (#issuecomment-ID) survives redirects.
		http.Redirect(x.w, x.r, x.h.d.URLs.Web+canonical+query(x.r), http.StatusMovedPermanently)
		return true
	}
	if err := st.IssueDetails(ctx, []*model.Issue{is}, true); err != nil {
		return x.fail(err)
	}
	v := issueView{Head: x.head("issues"), Issue: is, Kind: "Issue"}
	if is.IsPull {
		v.Kind = "Pull request"
	}
	// References (#1, @mona, owner/repo#2) link only to what the reader
	// may see, as in the API's body_html; one resolver serves the page, so
	// a reference repeated across comments is looked up once.
	o := markdown.Options{Comment: true, Web: x.h.d.URLs.Web, Context: x.repo.FullName(),
		Resolver: newMemo(linked.Resolver(x.h.d, x.caller()))}
	render := func(src string) (template.HTML, error) {
		out, err := markdown.Render(ctx, src, o)
		return template.HTML(out), err
	}
	if is.Body != nil && *is.Body != "" {
		if v.Body, err = render(*is.Body); err != nil {
			return x.fail(err)
		}
	}
	n := pageNumber(x.r)
	list, total, err := st.ListComments(ctx, store.CommentQuery{RepoID: x.repo.ID, IssueID: is.ID, Limit: maxComments, Offset: (n - 1) * maxComments})
	if err != nil {
		return x.fail(err)
	}
	for _, c := range list {
		body, err := render(c.Body)
		if err != nil {
			return x.fail(err)
		}
		v.Comments = append(v.Comments, comment{IssueComment: c, Body: body})
	}
	v.Prev, v.Next = pager(canonical, "", n, total, maxComments)
	for i := range v.Comments {
		v.Timeline = append(v.Timeline, item{At: v.Comments[i].CreatedAt, Kind: "comment", Comment: &v.Comments[i]})
	}
	if n == 1 {
		events, _, err := st.ListIssueEvents(ctx, store.EventQuery{RepoID: x.repo.ID, IssueID: is.ID, Limit: maxEvents})
		if err != nil {
			return x.fail(err)
		}
		for _, e := range events {
			if shownEvents[e.Event] {
				v.Timeline = append(v.Timeline, item{At: e.CreatedAt, Kind: "event", Event: e})
			}
		}
		sort.SliceStable(v.Timeline, func(i, j int) bool { return v.Timeline[i].At.Before(v.Timeline[j].At) })
	}
	v.Href, v.Flash, v.SignedIn = canonical, x.query("flash"), x.caller().UserID() != 0
	if v.SignedIn && !is.IsPull {
		v.CSRF, v.CanComment = x.csrf(), x.repo.WriteRefusal() == nil
	}
	title := is.Title + " · " + v.Kind + " #" + strconv.FormatInt(is.Number, 10) + " · " + x.repo.FullName()
	return x.ok(title, "issue", v)
}

// memo remembers a resolver's answers for the documents of one page.
type memo struct {
	next     markdown.Resolver
	accounts map[string]memoAccount
	repos    map[string]memoRepo
	issues   map[memoIssueKey][2]bool
	commits  map[[2]string]memoRepo
}

type memoAccount struct {
	name    string
	org, ok bool
}

type memoRepo struct {
	name string
	ok   bool
}

type memoIssueKey struct {
	repo string
	n    int64
}

func newMemo(next markdown.Resolver) *memo {
	return &memo{next: next, accounts: map[string]memoAccount{}, repos: map[string]memoRepo{},
		issues: map[memoIssueKey][2]bool{}, commits: map[[2]string]memoRepo{}}
}

func (m *memo) Account(ctx context.Context, login string) (string, bool, bool, error) {
	if a, ok := m.accounts[login]; ok {
		return a.name, a.org, a.ok, nil
	}
	name, org, ok, err := m.next.Account(ctx, login)
	if err == nil {
		m.accounts[login] = memoAccount{name, org, ok}
	}
	return name, org, ok, err
}

func (m *memo) Repo(ctx context.Context, full string) (string, bool, error) {
	if r, ok := m.repos[full]; ok {
		return r.name, r.ok, nil
	}
	name, ok, err := m.next.Repo(ctx, full)
	if err == nil {
		m.repos[full] = memoRepo{name, ok}
	}
	return name, ok, err
}

func (m *memo) Issue(ctx context.Context, full string, n int64) (bool, bool, error) {
	k := memoIssueKey{full, n}
	if v, ok := m.issues[k]; ok {
		return v[0], v[1], nil
	}
	pull, ok, err := m.next.Issue(ctx, full, n)
	if err == nil {
		m.issues[k] = [2]bool{pull, ok}
	}
	return pull, ok, err
}

func (m *memo) Commit(ctx context.Context, full, sha string) (string, bool, error) {
	k := [2]string{full, sha}
	if v, ok := m.commits[k]; ok {
		return v.name, v.ok, nil
	}
	s, ok, err := m.next.Commit(ctx, full, sha)
	if err == nil {
		m.commits[k] = memoRepo{s, ok}
	}
	return s, ok, err
}
