package graphql

import (
	"context"
	"errors"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// issueObj is an issue of a repository the viewer sees.
type issueObj struct {
	is   *model.Issue
	repo *repoObj
}

type labelObj struct {
	l    *model.Label
	repo *repoObj
}

type milestoneObj struct {
	m    *model.Milestone
	repo *repoObj
}

type commentObj struct {
	c     *model.IssueComment
	issue *issueObj
}

func (a *API) issueURL(o *issueObj) string {
	var buf [20]byte
	n := strconv.AppendInt(buf[:0], o.is.Number, 10)
	if o.is.IsPull {
		return a.repoURL(o.repo) + "/pull/" + string(n)
	}
	return a.repoURL(o.repo) + "/issues/" + string(n)
}

// issuePath is /issues/N, or /pull/N for a pull request.
func issuePath(o *issueObj) string {
	if o.is.IsPull {
		return "/pull/" + strconv.FormatInt(o.is.Number, 10)
	}
	return "/issues/" + strconv.FormatInt(o.is.Number, 10)
}

// asIssue is the issue half of an Issue or a PullRequest parent.
func asIssue(p any) *issueObj {
	if pr, ok := p.(*pullObj); ok {
		return pr.iss
	}
	return p.(*issueObj)
}

// issueIDsOf is the ids of a batch of issues and pull requests.
func issueIDsOf(parents []any) []int64 {
	ids := make([]int64, len(parents))
	for i, p := range parents {
		ids[i] = asIssue(p).is.ID
	}
	return ids
}

// details loads labels, assignees, milestones and authors of every issue
// in the batch that does not have them yet, in one query per kind.
func (a *API) details(ctx context.Context, parents []any) error {
	var todo []*model.Issue
	seen := map[*model.Issue]bool{}
	for _, p := range parents {
		is := asIssue(p).is
		if is.Labels == nil && !seen[is] {
			seen[is] = true
			todo = append(todo, is)
		}
	}
	return a.d.Store.R().IssueDetails(ctx, todo, false)
}

// issueStates reads [IssueState!] into the store's state filter.
func issueStates(v any) string {
	list := asList(v)
	open, closed := false, false
	for _, s := range list {
		switch s {
		case "OPEN":
			open = true
		case "CLOSED":
			closed = true
		}
	}
	switch {
	case open && !closed:
		return "open"
	case closed && !open:
		return "closed"
	}
	return "all"
}

// asList reads a list argument; a single value is a list of one (GraphQL's
// input coercion: `$states: [IssueState!] = OPEN`).
func asList(v any) []any {
	switch t := v.(type) {
	case nil:
		return nil
	case []any:
		return t
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).Interface()
		}
		return out
	}
	return []any{v}
}

func stringList(v any) []string {
	list := asList(v)
	out := make([]string, 0, len(list))
	for _, s := range list {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// issueQuery turns Repository.issues' arguments into the store's filter;
// names of users or milestones that do not exist select nothing.
func (a *API) issueQuery(ctx context.Context, repo *model.Repo, args map[string]any) (store.IssueQuery, error) {
	f := store.IssueQuery{RepoID: repo.ID, NoPulls: true, State: issueStates(args["states"]), Labels: stringList(args["labels"])}
	if o, ok := args["orderBy"].(map[string]any); ok {
		switch o["field"] {
		case "UPDATED_AT":
			f.Sort = "updated"
		case "COMMENTS":
			f.Sort = "comments"
		default:
			f.Sort = "created"
		}
		f.Desc = o["direction"] == "DESC"
	}
	fb, _ := args["filterBy"].(map[string]any)
	if fb == nil {
		return f, nil
	}
	if _, ok := fb["states"]; ok && fb["states"] != nil {
		f.State = issueStates(fb["states"])
	}
	f.Labels = append(f.Labels, stringList(fb["labels"])...)
	user := func(key string) (int64, bool, error) {
		login, _ := fb[key].(string)
		if login == "" {
			return 0, false, nil
		}
		acc, err := a.d.Store.R().AccountByLogin(ctx, login)
		if errors.Is(err, model.ErrNotFound) {
			f.Nothing = true
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		return acc.ID, true, nil
	}
	switch v, _ := fb["assignee"].(string); v {
	case "":
	case "*":
		f.AssigneeAny = true
	default:
		id, _, err := user("assignee")
		if err != nil {
			return f, err
		}
		f.AssigneeID = id
	}
	id, _, err := user("createdBy")
	if err != nil {
		return f, err
	}
	f.CreatorID = id
	if id, _, err = user("mentioned"); err != nil {
		return f, err
	}
	f.MentionedID = id
	if s, ok := fb["since"].(string); ok && s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return f, engine.Errorf("INVALID_ARGUMENTS", "Argument 'since' on InputObject 'IssueFilters' has an invalid value (%q). Expected type 'DateTime'.", s)
		}
		f.Since = &t
	}
	if v, _ := fb["viewerSubscribed"].(bool); v {
		f.Involves = from(ctx).caller.UserID()
		if f.Involves == 0 {
			f.Nothing = true
		}
	}
	milestone, _ := fb["milestone"].(string)
	if n, _ := fb["milestoneNumber"].(string); n != "" {
		milestone = n
	}
	switch milestone {
	case "":
	case "*":
		f.MilestoneAny = true
	case "none":
		f.MilestoneNone = true
	default:
		n, err := strconv.ParseInt(milestone, 10, 64)
		if err != nil {
			f.Nothing = true
			break
		}
		m, err := a.d.Store.R().MilestoneByNumber(ctx, repo.ID, n)
		if errors.Is(err, model.ErrNotFound) {
			f.Nothing = true
			break
		}
		if err != nil {
			return f, err
		}
		f.MilestoneID = m.ID
	}
	return f, nil
}

func (a *API) registerIssues() {
	a.connectionTypes("IssueConnection", "IssueEdge")
	a.connectionTypes("LabelConnection", "LabelEdge")
	a.connectionTypes("UserConnection", "UserEdge")
	a.connectionTypes("IssueCommentConnection", "IssueCommentEdge")
	a.registerPageInfo()

	a.schema.Resolve("Repository", "issues", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o, args := p.(*repoObj), b.Args
		w, err := pageWindow(args, "issues", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		f, err := a.issueQuery(ctx, o.v.Repo, args)
		if err != nil {
			return nil, err
		}
		q := a.d.Store.R()
		total := -1
		if w.needTotal {
			f.Limit, f.Offset = 1, 0
			if _, total, err = q.ListIssueIDs(ctx, f); err != nil {
				return nil, err
			}
		}
		start, end := w.bounds(total)
		c := &connection{offset: start}
		if end <= start {
			f.Limit, f.Offset = 1, 0
			_, c.total, err = q.ListIssueIDs(ctx, f)
			return c, err
		}
		// The page's ids, then the issues with their details from the read
		// cache (a hot list page is one query).
		f.Limit, f.Offset = end-start, start
		ids, n, err := q.ListIssueIDs(ctx, f)
		if err != nil {
			return nil, err
		}
		list, err := q.DetailedIssues(ctx, ids)
		if err != nil {
			return nil, err
		}
		c.total = n
		objs := make([]issueObj, len(list))
		c.nodes = make([]any, len(list))
		for i, is := range list {
			objs[i] = issueObj{is: is, repo: o}
			c.nodes[i] = &objs[i]
		}
		return c, nil
	}))
	a.field("Repository", "issue", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		n, _ := intArg(args, "number")
		is, err := a.d.Store.R().IssueByNumber(ctx, o.v.Repo.ID, int64(n))
		if errors.Is(err, model.ErrNotFound) || (err == nil && is.IsPull) {
			return nil, notFound("Could not resolve to an Issue with the number of %d.", n)
		}
		if err != nil {
			return nil, err
		}
		return &issueObj{is: is, repo: o}, nil
	})
	a.schema.Resolve("Repository", "labels", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o, args := p.(*repoObj), b.Args
		// A repository's labels are few: filter and order them here.
		list, _, err := a.d.Store.R().ListLabels(ctx, o.v.Repo.ID, 10000, 0)
		if err != nil {
			return nil, err
		}
		if s, _ := args["query"].(string); s != "" {
			kept := list[:0]
			for _, l := range list {
				if strings.Contains(strings.ToLower(l.Name), strings.ToLower(s)) ||
					(l.Description != nil && strings.Contains(strings.ToLower(*l.Description), strings.ToLower(s))) {
					kept = append(kept, l)
				}
			}
			list = kept
		}
		if ob, ok := args["orderBy"].(map[string]any); ok {
			desc := ob["direction"] == "DESC"
			by := func(i, j int) bool { return strings.ToLower(list[i].Name) < strings.ToLower(list[j].Name) }
			if ob["field"] == "CREATED_AT" {
				by = func(i, j int) bool {
					return list[i].CreatedAt.Before(list[j].CreatedAt) || list[i].CreatedAt.Equal(list[j].CreatedAt) && list[i].ID < list[j].ID
				}
			}
			sort.SliceStable(list, func(i, j int) bool {
				if desc {
					return by(j, i)
				}
				return by(i, j)
			})
		}
		objs := make([]*labelObj, len(list))
		for i, l := range list {
			objs[i] = &labelObj{l: l, repo: o}
		}
		return slicePage(objs, b, "labels")
	}))
	a.field("Repository", "label", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		name, _ := args["name"].(string)
		l, err := a.d.Store.R().LabelByName(ctx, o.v.Repo.ID, name)
		if errors.Is(err, model.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &labelObj{l: l, repo: o}, nil
	})

	for _, typ := range []string{"Issue", "PullRequest"} {
		a.registerIssueLike(typ)
	}
	a.registerSubIssues()

	a.field("IssueComment", "isMinimized", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return false, nil // hubd cannot minimize comments
	})
	a.field("IssueComment", "minimizedReason", func(_ context.Context, p any, _ map[string]any) (any, error) { return nil, nil })
	a.field("IssueComment", "includesCreatedEdit", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return false, nil // hubd keeps no edit history of comments
	})

	la := func(name string, f func(o *labelObj) any) {
		a.field("Label", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*labelObj)), nil })
	}
	la("id", func(o *labelObj) any { return wire.NodeID("LA", o.l.ID) })
	// Pointers into the (cached, unchanging) rows cost no allocation to
	// return.
	la("name", func(o *labelObj) any { return &o.l.Name })
	la("color", func(o *labelObj) any { return &o.l.Color })
	la("description", func(o *labelObj) any { return o.l.Description })
	la("isDefault", func(o *labelObj) any { return o.l.Default })
	la("createdAt", func(o *labelObj) any { return o.l.CreatedAt })
	la("updatedAt", func(o *labelObj) any { return o.l.UpdatedAt })
	la("url", func(o *labelObj) any {
		return a.repoURL(o.repo) + "/labels/" + pathEscape(o.l.Name)
	})
	la("resourcePath", func(o *labelObj) any { return "/" + o.repo.v.Repo.FullName() + "/labels/" + pathEscape(o.l.Name) })
	la("repository", func(o *labelObj) any { return o.repo })

	mi := func(name string, f func(o *milestoneObj) any) {
		a.field("Milestone", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*milestoneObj)), nil })
	}
	mi("id", func(o *milestoneObj) any { return wire.NodeID("MI", o.m.ID) })
	mi("number", func(o *milestoneObj) any { return o.m.Number })
	mi("title", func(o *milestoneObj) any { return o.m.Title })
	mi("description", func(o *milestoneObj) any { return o.m.Description })
	mi("dueOn", func(o *milestoneObj) any { return o.m.DueOn })
	mi("state", func(o *milestoneObj) any { return strings.ToUpper(o.m.State) })
	mi("closed", func(o *milestoneObj) any { return o.m.State == "closed" })
	mi("closedAt", func(o *milestoneObj) any { return o.m.ClosedAt })
	mi("createdAt", func(o *milestoneObj) any { return o.m.CreatedAt })
	mi("updatedAt", func(o *milestoneObj) any { return o.m.UpdatedAt })
	mi("url", func(o *milestoneObj) any {
		return a.repoURL(o.repo) + "/milestone/" + strconv.FormatInt(o.m.Number, 10)
	})
	mi("resourcePath", func(o *milestoneObj) any {
		return "/" + o.repo.v.Repo.FullName() + "/milestone/" + strconv.FormatInt(o.m.Number, 10)
	})
	mi("repository", func(o *milestoneObj) any { return o.repo })

	co := func(name string, f func(o *commentObj) any) {
		a.field("IssueComment", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*commentObj)), nil })
	}
	co("id", func(o *commentObj) any { return wire.NodeID("IC", o.c.ID) })
	co("databaseId", func(o *commentObj) any { return o.c.ID })
	co("body", func(o *commentObj) any { return o.c.Body })
	co("createdAt", func(o *commentObj) any { return o.c.CreatedAt })
	co("updatedAt", func(o *commentObj) any { return o.c.UpdatedAt })
	co("author", func(o *commentObj) any {
		if o.c.User == nil {
			return nil
		}
		return o.c.User
	})
	co("authorAssociation", func(o *commentObj) any {
		if o.c.Association == "" {
			return "NONE"
		}
		return o.c.Association
	})
	co("url", func(o *commentObj) any {
		return a.issueURL(o.issue) + "#issuecomment-" + strconv.FormatInt(o.c.ID, 10)
	})
	co("issue", func(o *commentObj) any { return o.issue })
	co("repository", func(o *commentObj) any { return o.issue.repo })
	a.field("IssueComment", "viewerDidAuthor", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*commentObj)
		return o.c.UserID != 0 && o.c.UserID == from(ctx).caller.UserID(), nil
	})
}

type subSummary struct{ total, completed int }

func (a *API) registerSubIssues() {
	a.schema.Resolve("Issue", "parent", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		var ids []int64
		for _, p := range b.Parents {
			if id := asIssue(p).is.ParentID; id != 0 {
				ids = append(ids, id)
			}
		}
		out := make([]any, len(b.Parents))
		objs, err := a.issuesByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		for i, p := range b.Parents {
			if o := objs[asIssue(p).is.ParentID]; o != nil {
				out[i] = o
			}
		}
		return out, nil
	})
	a.schema.Resolve("Issue", "subIssues", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := asIssue(p)
		w, err := pageWindow(b.Args, "subIssues", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		total := o.is.SubIssues
		start, end := w.bounds(total)
		start, end = min(start, total), min(end, total)
		c := &connection{offset: start, total: total}
		if end <= start {
			return c, nil
		}
		list, n, err := a.d.Store.R().ListSubIssues(ctx, o.is.ID, end-start, start)
		if err != nil {
			return nil, err
		}
		c.total = n
		ids := make([]int64, len(list))
		for i, is := range list {
			ids[i] = is.RepoID
		}
		repos, err := a.reposByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, is := range list {
			// Sub-issues in repositories the viewer may not see are left
			// out of the page (the count still includes them).
			if r := repos[is.RepoID]; r != nil {
				c.nodes = append(c.nodes, &issueObj{is: is, repo: r})
			}
		}
		return c, nil
	}))
	a.schema.Resolve("Issue", "subIssuesSummary", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.details(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			s := asIssue(p).is.SubSummary
			out[i] = &subSummary{total: s.Total, completed: s.Completed}
		}
		return out, nil
	})
	a.field("SubIssuesSummary", "total", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*subSummary).total, nil })
	a.field("SubIssuesSummary", "completed", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*subSummary).completed, nil
	})
	a.field("SubIssuesSummary", "percentCompleted", func(_ context.Context, p any, _ map[string]any) (any, error) {
		s := p.(*subSummary)
		if s.total == 0 {
			return 0, nil
		}
		return s.completed * 100 / s.total, nil
	})
}

// issuesByID loads issues (not pull requests) the viewer may see, by id.
func (a *API) issuesByID(ctx context.Context, ids []int64) (map[int64]*issueObj, error) {
	out := map[int64]*issueObj{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := a.d.Store.R().IssuesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	repoIDs := make([]int64, len(list))
	for i, is := range list {
		repoIDs[i] = is.RepoID
	}
	repos, err := a.reposByID(ctx, repoIDs)
	if err != nil {
		return nil, err
	}
	for _, is := range list {
		if r := repos[is.RepoID]; r != nil && !is.IsPull {
			out[is.ID] = &issueObj{is: is, repo: r}
		}
	}
	return out, nil
}

// registerIssueLike registers the fields issues and pull requests share
// (a pull request is the pull half of an issue row).
func (a *API) registerIssueLike(typ string) {
	is := func(name string, f func(o *issueObj) any) {
		a.field(typ, name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(asIssue(p)), nil })
	}
	if typ == "Issue" {
		is("id", func(o *issueObj) any { return wire.NodeID("I", o.is.ID) })
		is("databaseId", func(o *issueObj) any { return o.is.ID })
	}
	is("number", func(o *issueObj) any { return &o.is.Number })
	is("title", func(o *issueObj) any { return &o.is.Title })
	is("body", func(o *issueObj) any {
		if o.is.Body == nil {
			return ""
		}
		return *o.is.Body
	})
	is("url", func(o *issueObj) any { return a.issueURL(o) })
	is("resourcePath", func(o *issueObj) any {
		return "/" + o.repo.v.Repo.FullName() + issuePath(o)
	})
	if typ == "Issue" {
		is("state", func(o *issueObj) any {
			switch o.is.State { // constants: no allocation
			case "open":
				return "OPEN"
			case "closed":
				return "CLOSED"
			}
			return strings.ToUpper(o.is.State)
		})
	}
	if typ == "Issue" {
		a.field(typ, "stateReason", func(_ context.Context, p any, args map[string]any) (any, error) {
			o := asIssue(p)
			if o.is.StateReason == nil {
				return nil, nil
			}
			r := strings.ToUpper(*o.is.StateReason)
			if dup, _ := args["enableDuplicate"].(bool); r == "DUPLICATE" && !dup {
				r = "NOT_PLANNED"
			}
			return r, nil
		})
	}
	is("closed", func(o *issueObj) any { return o.is.State == "closed" })
	is("closedAt", func(o *issueObj) any { return o.is.ClosedAt })
	is("createdAt", func(o *issueObj) any { return &o.is.CreatedAt })
	is("updatedAt", func(o *issueObj) any { return &o.is.UpdatedAt })
	is("locked", func(o *issueObj) any { return o.is.Locked })
	is("activeLockReason", func(o *issueObj) any {
		if o.is.LockReason == nil || !o.is.Locked {
			return nil
		}
		return strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(*o.is.LockReason)) // "too heated": TOO_HEATED
	})
	a.schema.Resolve(typ, "authorAssociation", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.details(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			out[i] = "NONE"
			if as := asIssue(p).is.Association; as != "" {
				out[i] = as
			}
		}
		return out, nil
	})
	is("repository", func(o *issueObj) any { return o.repo })
	is("viewerCanLabel", func(o *issueObj) any { return o.repo.perm >= authz.Triage })
	a.field(typ, "viewerCanClose", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		o := asIssue(p)
		return o.repo.perm >= authz.Triage || (o.is.UserID != 0 && o.is.UserID == from(ctx).caller.UserID()), nil
	})
	a.field(typ, "viewerCanReopen", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		o := asIssue(p)
		return o.repo.perm >= authz.Triage || (o.is.UserID != 0 && o.is.UserID == from(ctx).caller.UserID()), nil
	})
	a.schema.Resolve(typ, "author", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		// Authors come slim with the issues' details.
		if err := a.details(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			if u := asIssue(p).is.User; u != nil {
				out[i] = u
			}
		}
		return out, nil
	})
	a.schema.Resolve(typ, "labels", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.details(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := asIssue(p)
			objs := make([]labelObj, len(o.is.Labels))
			list := make([]*labelObj, len(o.is.Labels))
			for j, l := range o.is.Labels {
				objs[j] = labelObj{l: l, repo: o.repo}
				list[j] = &objs[j]
			}
			c, err := slicePage(list, b, "labels")
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	})
	a.schema.Resolve(typ, "assignees", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.details(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			c, err := slicePage(asIssue(p).is.Assignees, b, "assignees")
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	})
	a.schema.Resolve(typ, "milestone", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.details(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := asIssue(p)
			if o.is.Milestone != nil {
				out[i] = &milestoneObj{m: o.is.Milestone, repo: o.repo}
			}
		}
		return out, nil
	})
	a.schema.Resolve(typ, "comments", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o, args := asIssue(p), b.Args
		w, err := pageWindow(args, "comments", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		total := o.is.Comments
		start, end := w.bounds(total)
		start, end = min(start, total), min(end, total)
		c := &connection{offset: start, total: total}
		if end <= start {
			return c, nil
		}
		f := store.CommentQuery{RepoID: o.repo.v.Repo.ID, IssueID: o.is.ID, Limit: end - start, Offset: start}
		if ob, ok := args["orderBy"].(map[string]any); ok && ob["field"] == "UPDATED_AT" {
			f.Sort = "updated"
			f.Desc = ob["direction"] == "DESC"
		}
		list, n, err := a.d.Store.R().ListComments(ctx, f)
		if err != nil {
			return nil, err
		}
		c.total = n
		for _, cm := range list {
			c.nodes = append(c.nodes, &commentObj{c: cm, issue: o})
		}
		return c, nil
	}))

}

// pathEscape escapes a label name for a URL path.
func pathEscape(s string) string { return url.PathEscape(s) }
