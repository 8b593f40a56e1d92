package issues

import (
	"context"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// refEvents are the events whose subject is another issue.
var refEvents = map[string]bool{
	"sub_issue_added": true, "sub_issue_removed": true, "parent_issue_added": true, "parent_issue_removed": true,
	"blocked_by_added": true, "blocked_by_removed": true, "blocking_added": true, "blocking_removed": true,
}

// visibleIssues loads issues by id with their repositories, keeping those
// in repositories the caller may see.
func (a *API) visibleIssues(ctx context.Context, r *http.Request, ids []int64) (map[int64]*model.Issue, map[int64]*store.RepoView, error) {
	c := rest.Caller(r)
	st := a.d.Store.R()
	list, err := st.IssuesByID(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	repoIDs := make([]int64, 0, len(list))
	for _, is := range list {
		repoIDs = append(repoIDs, is.RepoID)
	}
	repos, err := st.ReposByID(ctx, repoIDs, c.UserID())
	if err != nil {
		return nil, nil, err
	}
	out := map[int64]*model.Issue{}
	for _, is := range list {
		v := repos[is.RepoID]
		if v != nil && authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
			out[is.ID] = is
		}
	}
	return out, repos, nil
}

// refs resolves the other issues of sub-issue and dependency events (and
// loads the teams of team review request events, which every list of
// events passes through here).
func (a *API) refs(ctx context.Context, r *http.Request, events []*model.IssueEvent) (map[int64]*wire.IssueReference, error) {
	if err := a.d.Store.R().LoadEventTeams(ctx, events, rest.Caller(r).UserID()); err != nil {
		return nil, err
	}
	var ids []int64
	seen := map[int64]bool{}
	for _, e := range events {
		if refEvents[e.Event] && e.SubjectID != 0 && !seen[e.SubjectID] {
			seen[e.SubjectID] = true
			ids = append(ids, e.SubjectID)
		}
	}
	out := map[int64]*wire.IssueReference{}
	for start := 0; start < len(ids); start += 100 {
		issues, repos, err := a.visibleIssues(ctx, r, ids[start:min(start+100, len(ids))])
		if err != nil {
			return nil, err
		}
		for id, is := range issues {
			out[id] = a.d.URLs.ToIssueReference(repos[is.RepoID].Repo, is)
		}
	}
	return out, nil
}

// withIssues converts repository-level events, each with its issue.
func (a *API) withIssues(r *http.Request, x *access, events []*model.IssueEvent) ([]wire.IssueEvent, error) {
	ctx := r.Context()
	refs, err := a.refs(ctx, r, events)
	if err != nil {
		return nil, err
	}
	var ids []int64
	seen := map[int64]bool{}
	for _, e := range events {
		if !seen[e.IssueID] {
			seen[e.IssueID] = true
			ids = append(ids, e.IssueID)
		}
	}
	st := a.d.Store.R()
	list, err := st.IssuesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	if err := st.IssueDetails(ctx, list, false); err != nil {
		return nil, err
	}
	wr := a.writer(r)
	issues := map[int64]*wire.Issue{}
	for _, is := range list {
		v := wr.ToIssue(x.Repo, is, nil)
		issues[is.ID] = &v
	}
	out := make([]wire.IssueEvent, 0, len(events))
	for _, e := range events {
		ev := wr.ToIssueEvent(x.Repo, e, refs)
		ev.Issue = issues[e.IssueID]
		out = append(out, ev)
	}
	return out, nil
}

// GET /repos/{owner}/{repo}/issues/events: the repository's issue events,
// oldest first, each with its issue.
func (a *API) listRepoEvents(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListIssueEvents(r.Context(), store.EventQuery{RepoID: x.Repo.ID, Limit: p.Limit(), Offset: p.Offset()})
	if err != nil {
		return err
	}
	out, err := a.withIssues(r, x, list)
	if err != nil {
		return err
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/issues/events/{event_id}
func (a *API) getEvent(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathInt(r, "event_id")
	if err != nil {
		return err
	}
	e, err := a.d.Store.R().IssueEventByID(r.Context(), x.Repo.ID, id)
	if err != nil {
		return err
	}
	out, err := a.withIssues(r, x, []*model.IssueEvent{e})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

// GET /repos/{owner}/{repo}/issues/{issue_number}/events
func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	ctx := r.Context()
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListIssueEvents(ctx, store.EventQuery{IssueID: is.ID, Limit: p.Limit(), Offset: p.Offset()})
	if err != nil {
		return err
	}
	refs, err := a.refs(ctx, r, list)
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]wire.IssueEvent, 0, len(list))
	for _, e := range list {
		out = append(out, wr.ToIssueEvent(x.Repo, e, refs))
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// exclusions reads the timeline's exclude parameter.
func exclusions(r *http.Request) []string {
	var out []string
	for _, s := range strings.Split(r.URL.Query().Get("exclude"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
