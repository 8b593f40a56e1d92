// Package issues serves the Issues category: issues (which pull requests
// share: one number sequence and one row per repository), labels,
// milestones, assignees, comments with pins, reactions to issues and
// comments, the issue event log and timeline, sub-issues, dependencies and
// organization issue field values. Every change appends an issue event and
// a domain event in its transaction (store.AddIssueEvent).
package issues

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	issuesvc "github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// API is the issues package.
type API struct {
	d     *api.Deps
	svc   *issuesvc.Service
	frags *fragments // rendered issue objects of repository lists
}

// New makes the package with its issue service.
func New(d *api.Deps) *API {
	return &API{d: d, svc: issuesvc.New(d), frags: newFragments()}
}

// Service is the issue service the package runs, for the other transports.
func (a *API) Service() *issuesvc.Service { return a.svc }

// Classic scopes of the route table.
var (
	read  = []string{"repo"}
	write = []string{"public_repo", "repo"}
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	const fieldsNote = "The issue_field_values filter is not supported."
	return append([]rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues", OperationID: "issues/list-for-repo", Handler: a.listForRepo, Scopes: read, Note: fieldsNote},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues", OperationID: "issues/create", Handler: a.create, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}", OperationID: "issues/get", Handler: a.get, Scopes: read},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}", OperationID: "issues/update", Handler: a.update, Scopes: write},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/lock", OperationID: "issues/lock", Handler: a.lock, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/lock", OperationID: "issues/unlock", Handler: a.unlock, Scopes: write},
		{Method: "GET", Pattern: "/issues", OperationID: "issues/list", Handler: a.listAll, Scopes: read,
			Note: "The collab, orgs and owned parameters are not honoured (pulls=true lists pull requests only)."},
		{Method: "GET", Pattern: "/user/issues", OperationID: "issues/list-for-authenticated-user", Handler: a.listForUser, Scopes: read},
		{Method: "GET", Pattern: "/orgs/{org}/issues", OperationID: "issues/list-for-org", Handler: a.listForOrg, Scopes: read},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/labels", OperationID: "issues/list-labels-for-repo", Handler: a.listLabels, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/labels", OperationID: "issues/create-label", Handler: a.createLabel, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/labels/{name}", OperationID: "issues/get-label", Handler: a.getLabel, Scopes: read},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/labels/{name}", OperationID: "issues/update-label", Handler: a.updateLabel, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/labels/{name}", OperationID: "issues/delete-label", Handler: a.deleteLabel, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/labels", OperationID: "issues/list-labels-on-issue", Handler: a.listIssueLabels, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/labels", OperationID: "issues/add-labels", Handler: a.addLabels, Scopes: write},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/labels", OperationID: "issues/set-labels", Handler: a.replaceLabels, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/labels", OperationID: "issues/remove-all-labels", Handler: a.removeAllLabels, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", OperationID: "issues/remove-label", Handler: a.removeLabel, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/milestones/{milestone_number}/labels", OperationID: "issues/list-labels-for-milestone", Handler: a.listMilestoneLabels, Scopes: read},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/milestones", OperationID: "issues/list-milestones", Handler: a.listMilestones, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/milestones", OperationID: "issues/create-milestone", Handler: a.createMilestone, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/milestones/{milestone_number}", OperationID: "issues/get-milestone", Handler: a.getMilestone, Scopes: read},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/milestones/{milestone_number}", OperationID: "issues/update-milestone", Handler: a.updateMilestone, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/milestones/{milestone_number}", OperationID: "issues/delete-milestone", Handler: a.deleteMilestone, Scopes: write},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/assignees", OperationID: "issues/list-assignees", Handler: a.listAssignees, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/assignees/{assignee}", OperationID: "issues/check-user-can-be-assigned", Handler: a.checkAssignee, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/assignees", OperationID: "issues/add-assignees", Handler: a.addAssignees, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/assignees", OperationID: "issues/remove-assignees", Handler: a.removeAssignees, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/assignees/{assignee}", OperationID: "issues/check-user-can-be-assigned-to-issue", Handler: a.checkIssueAssignee, Scopes: read},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/comments", OperationID: "issues/list-comments-for-repo", Handler: a.listRepoComments, Scopes: read},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/issues/comments/{comment_id}", OperationID: "issues/update-comment", Handler: a.updateComment, Scopes: write},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/issues/comments/{comment_id}/pin", OperationID: "issues/pin-comment", Handler: a.pinComment, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/comments", OperationID: "issues/list-comments", Handler: a.listComments, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/comments", OperationID: "issues/create-comment", Handler: a.createComment, Scopes: write},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/reactions", OperationID: "reactions/list-for-issue", Handler: a.listIssueReactions, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/reactions", OperationID: "reactions/create-for-issue", Handler: a.createIssueReaction, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/reactions/{reaction_id}", OperationID: "reactions/delete-for-issue", Handler: a.deleteIssueReaction, Scopes: write},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", OperationID: "reactions/create-for-issue-comment", Handler: a.createCommentReaction, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions/{reaction_id}", OperationID: "reactions/delete-for-issue-comment", Handler: a.deleteCommentReaction, Scopes: write},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/events", OperationID: "issues/list-events-for-repo", Handler: a.listRepoEvents, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/events", OperationID: "issues/list-events", Handler: a.listEvents, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/timeline", OperationID: "issues/list-events-for-timeline", Handler: a.timeline, Scopes: read},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/parent", OperationID: "issues/get-parent", Handler: a.getParent, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues", OperationID: "issues/list-sub-issues", Handler: a.listSubIssues, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues", OperationID: "issues/add-sub-issue", Handler: a.addSubIssue, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issue", OperationID: "issues/remove-sub-issue", Handler: a.removeSubIssue, Scopes: write},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues/priority", OperationID: "issues/reprioritize-sub-issue", Handler: a.reprioritizeSubIssue, Scopes: write},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", OperationID: "issues/list-dependencies-blocked-by", Handler: a.listBlockedBy, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", OperationID: "issues/add-blocked-by-dependency", Handler: a.addBlockedBy, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by/{issue_id}", OperationID: "issues/remove-dependency-blocked-by", Handler: a.removeBlockedBy, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocking", OperationID: "issues/list-dependencies-blocking", Handler: a.listBlocking, Scopes: read},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/issue-field-values", OperationID: "issues/list-issue-field-values-for-issue", Handler: a.listFieldValues, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/issue-field-values", OperationID: "issues/add-issue-field-values", Handler: a.addFieldValues, Scopes: write},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/issue-field-values", OperationID: "issues/set-issue-field-values", Handler: a.setFieldValues, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/{issue_number}/issue-field-values/{issue_field_id}", OperationID: "issues/delete-issue-field-value", Handler: a.deleteFieldValue, Scopes: write},
	}, append(a.literalFirst(), a.typeRoutes()...)...)
}

// literalFirst are the operations whose paths overlap others of Routes
// (GET /repos/{owner}/{repo}/issues/comments/{comment_id} and GET
// /repos/{owner}/{repo}/issues/{issue_number}/labels both match
// .../issues/comments/labels); the server ranks their literal segment first,
// as GitHub's router does.
func (a *API) literalFirst() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/comments/{comment_id}", OperationID: "issues/get-comment", Handler: a.getComment, Scopes: read},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/comments/{comment_id}", OperationID: "issues/delete-comment", Handler: a.deleteComment, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/issues/comments/{comment_id}/pin", OperationID: "issues/unpin-comment", Handler: a.unpinComment, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", OperationID: "reactions/list-for-issue-comment", Handler: a.listCommentReactions, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issues/events/{event_id}", OperationID: "issues/get-event", Handler: a.getEvent, Scopes: read},
	}
}

// titleIn is a title: a string, or a number GitHub turns into one.
type titleIn struct {
	Set, IsNull bool
	V           string
}

func (t *titleIn) UnmarshalJSON(b []byte) error {
	t.Set = true
	if string(b) == "null" {
		t.IsNull = true
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &t.V)
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return &rest.FieldTypeError{Field: "title", Want: "a string"}
	}
	t.V = n.String()
	return nil
}

// milestoneIn is a milestone number (a number or a numeric string), or
// null to remove the milestone.
type milestoneIn struct {
	Set, Null bool
	N         int64
	Raw       string
}

func (m *milestoneIn) UnmarshalJSON(b []byte) error {
	m.Set, m.Raw = true, strings.Trim(string(b), `"`)
	if string(b) == "null" {
		m.Null = true
		return nil
	}
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else {
		s = string(b)
	}
	if s == "" {
		m.Null = true
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if len(b) > 0 && b[0] != '"' {
			return &rest.FieldTypeError{Field: "milestone", Want: "an integer"}
		}
		n = 0 // a non-numeric string names no milestone
	}
	m.N = n
	return nil
}

// resolveMilestone finds the milestone a body names; unknown ones are
// GitHub's 422.
func resolveMilestone(ctx context.Context, q store.Q, repoID int64, m milestoneIn) (*model.Milestone, error) {
	if !m.Set || m.Null {
		return nil, nil
	}
	ms, err := q.MilestoneByNumber(ctx, repoID, m.N)
	if err == model.ErrNotFound {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "milestone", Code: "invalid", Value: m.Raw}}}
	}
	return ms, err
}

type createBody struct {
	Title            titleIn          `json:"title"`
	Body             *string          `json:"body"`
	Assignee         rest.Opt[string] `json:"assignee"`
	Milestone        milestoneIn      `json:"milestone"`
	Labels           []nameIn         `json:"labels"`
	Assignees        []loginIn        `json:"assignees"`
	IssueFieldValues []fieldValueIn   `json:"issue_field_values"`
	Type             rest.Opt[string] `json:"type"`
}

// POST /repos/{owner}/{repo}/issues: anyone who can read the repository
// opens issues; labels, assignees, milestone and field values are set for
// those with triage access and silently dropped for others.
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(x, r); err != nil {
		return err
	}
	if err := a.d.MayParticipate(r.Context(), x.Repo, x.Caller.UserID(), "issue"); err != nil {
		return err
	}
	var in createBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Title.V) == "" {
		return model.Invalid("Issue", "title", "missing_field")
	}
	if err := issuesvc.CheckIssueText(&in.Title.V, in.Body); err != nil {
		return err
	}
	ctx := r.Context()
	var milestone *model.Milestone
	var assignees []*model.Account
	var labelNames []string
	var fields []*model.IssueFieldValue
	var typ *model.IssueType
	if x.Triage() {
		q := a.d.Store.R()
		if milestone, err = resolveMilestone(ctx, q, x.Repo.ID, in.Milestone); err != nil {
			return err
		}
		list := logins(in.Assignees)
		if len(list) == 0 && in.Assignee.Value != "" {
			list = []string{in.Assignee.Value}
		}
		if assignees, err = a.svc.ResolveAssignees(ctx, q, x.Repo.ID, list); err != nil {
			return err
		}
		labelNames = names(in.Labels)
		if t, ok := in.Type.Get(); ok {
			if typ, err = a.svc.ResolveIssueType(ctx, x.Repo, t); err != nil {
				return err
			}
		}
		if fields, err = a.svc.ResolveFieldValues(ctx, x, fieldInputs(in.IssueFieldValues)); err != nil {
			return err
		}
	}
	is, err := a.svc.Open(ctx, x, issuesvc.NewIssue{Title: in.Title.V, Body: in.Body, Milestone: milestone, Assignees: assignees, Labels: labelNames, Type: typ}, fields)
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.d.URLs.IssueAPIURL(x.Repo, is.Number))
	return a.respond(w, r, x, is.ID, http.StatusCreated)
}

// GET /repos/{owner}/{repo}/issues/{issue_number}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	out, err := a.render(r, x, is, true)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

type updateBody struct {
	Title            titleIn                  `json:"title"`
	Body             rest.Opt[string]         `json:"body"`
	Assignee         rest.Opt[string]         `json:"assignee"`
	State            rest.Opt[string]         `json:"state"`
	StateReason      rest.Opt[string]         `json:"state_reason"`
	DuplicateIssueID rest.Opt[int64]          `json:"duplicate_issue_id"`
	Milestone        milestoneIn              `json:"milestone"`
	Labels           rest.Opt[[]nameIn]       `json:"labels"`
	Assignees        rest.Opt[[]loginIn]      `json:"assignees"`
	IssueFieldValues rest.Opt[[]fieldValueIn] `json:"issue_field_values"`
	Type             rest.Opt[string]         `json:"type"`
}

// PATCH /repos/{owner}/{repo}/issues/{issue_number}: authors edit the
// title, body and state of their own issues; triage access edits any issue
// and its labels, assignees and milestone (changes to those are dropped
// for authors without it).
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(x, r); err != nil {
		return err
	}
	ctx := r.Context()
	found, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	actor := x.Caller.UserID()
	if !x.Triage() && found.UserID != actor {
		return api.NeedPermission(authz.Triage)
	}
	var in updateBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Title.Set && !in.Title.IsNull && strings.TrimSpace(in.Title.V) == "" {
		return model.Invalid("Issue", "title", "missing_field")
	}
	if err := issuesvc.CheckIssueText(updateText(&in)); err != nil {
		return err
	}
	state, stateSet := in.State.Get()
	if stateSet && state != "open" && state != "closed" {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "state", Code: "invalid", Value: state}}}
	}
	reason, reasonSet := in.StateReason.Get()
	if reasonSet {
		switch reason {
		case "completed", "not_planned", "duplicate", "reopened":
		default:
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "state_reason", Code: "invalid", Value: reason}}}
		}
		if stateSet && (state == "closed") == (reason == "reopened") {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "state_reason", Code: "invalid", Value: reason}}}
		}
	}
	var duplicate int64
	if id, ok := in.DuplicateIssueID.Get(); ok && stateSet && state == "closed" && reason == "duplicate" {
		if duplicate, err = a.visibleIssue(r, id, "duplicate_issue_id"); err != nil {
			return err
		}
	}
	var milestone *model.Milestone
	var assignees []*model.Account
	var labelNames []string
	var fields []*model.IssueFieldValue
	var ch issuesvc.IssueChange
	setMilestone, setAssigneeList, setLabelList := false, false, false
	if x.Triage() {
		q := a.d.Store.R()
		if in.Milestone.Set {
			setMilestone = true
			if milestone, err = resolveMilestone(ctx, q, x.Repo.ID, in.Milestone); err != nil {
				return err
			}
		}
		if list, ok := in.Assignees.Get(); ok || in.Assignees.Set || in.Assignee.Set {
			setAssigneeList = true
			names := logins(list)
			if !in.Assignees.Set && in.Assignee.Value != "" {
				names = []string{in.Assignee.Value}
			}
			if assignees, err = a.svc.ResolveAssignees(ctx, q, x.Repo.ID, names); err != nil {
				return err
			}
		}
		if list, ok := in.Labels.Get(); ok || in.Labels.Set {
			setLabelList, labelNames = true, names(list)
		}
		if in.Type.Set {
			// A name, or null to clear the type.
			if ch.Type, err = a.svc.ResolveIssueType(ctx, x.Repo, in.Type.Value); err != nil {
				return err
			}
			ch.SetType = true
		}
		if list, ok := in.IssueFieldValues.Get(); ok {
			if fields, err = a.svc.ResolveFieldValues(ctx, x, fieldInputs(list)); err != nil {
				return err
			}
		}
	}
	ch.State, ch.StateSet, ch.Reason, ch.Duplicate = state, stateSet, reason, duplicate
	ch.Milestone, ch.SetMilestone, ch.Assignees, ch.SetAssignees = milestone, setMilestone, assignees, setAssigneeList
	ch.LabelNames, ch.SetLabels, ch.Fields, ch.FieldsSet = labelNames, setLabelList, fields, in.IssueFieldValues.Set && fields != nil
	if in.Title.Set && !in.Title.IsNull {
		ch.Title = &in.Title.V
	}
	if in.Body.Set {
		ch.BodySet = true
		if !in.Body.Null {
			b := in.Body.Value
			ch.Body = &b
		}
	}
	if err := a.svc.Change(ctx, x, found.ID, ch); err != nil {
		return err
	}
	return a.respond(w, r, x, found.ID, http.StatusOK)
}

// visibleIssue checks that an issue id names an issue the caller may see;
// otherwise field gets GitHub's 422.
func (a *API) visibleIssue(r *http.Request, id int64, field string) (int64, error) {
	ctx := r.Context()
	invalid := &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: field, Code: "invalid", Value: id}}}
	is, err := a.d.Store.R().IssueByID(ctx, id)
	if err == model.ErrNotFound {
		return 0, invalid
	}
	if err != nil {
		return 0, err
	}
	c := rest.Caller(r)
	v, err := a.d.Store.R().RepoByID(ctx, is.RepoID, c.UserID())
	if err != nil {
		return 0, err
	}
	if !authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
		return 0, invalid
	}
	return is.ID, nil
}

var lockReasons = map[string]bool{"off-topic": true, "too heated": true, "resolved": true, "spam": true}

// PUT /repos/{owner}/{repo}/issues/{issue_number}/lock: write access.
func (a *API) lock(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in struct {
		LockReason rest.Opt[string] `json:"lock_reason"`
	}
	if err := decodeOptional(r, &in); err != nil {
		return err
	}
	var reason *string
	if v, ok := in.LockReason.Get(); ok {
		if !lockReasons[v] {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "lock_reason", Code: "invalid", Value: v}}}
		}
		reason = &v
	}
	n, err := pathInt(r, "issue_number")
	if err != nil {
		return err
	}
	if err := a.svc.Lock(r.Context(), x, n, reason); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /repos/{owner}/{repo}/issues/{issue_number}/lock: write access.
func (a *API) unlock(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Write)
	if err != nil {
		return err
	}
	n, err := pathInt(r, "issue_number")
	if err != nil {
		return err
	}
	if err := a.svc.Unlock(r.Context(), x, n); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// sortParams reads sort and direction (desc by default).
func sortParams(q map[string][]string, f *store.IssueQuery) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	switch s := get("sort"); s {
	case "created", "updated", "comments":
		f.Sort = s
	default:
		f.Sort = "created"
	}
	f.Desc = get("direction") != "asc"
	switch s := get("state"); s {
	case "open", "closed", "all":
		f.State = s
	default:
		f.State = "open"
	}
	if ls := get("labels"); ls != "" {
		for _, l := range strings.Split(ls, ",") {
			if l = strings.TrimSpace(l); l != "" {
				f.Labels = append(f.Labels, l)
			}
		}
	}
}

// since reads the since parameter; a malformed one is GitHub's 422.
func since(r *http.Request) (*time.Time, error) {
	s := r.URL.Query().Get("since")
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t, nil
		}
	}
	return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "since", Code: "invalid", Value: s}}}
}

// userFilter resolves a login filter; an unknown login selects nothing.
func (a *API) userFilter(ctx context.Context, login string, f *store.IssueQuery) int64 {
	acc, err := a.d.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		f.Nothing = true
		return 0
	}
	return acc.ID
}

// GET /repos/{owner}/{repo}/issues: every filter and sort of GitHub's
// except issue_field_values.
func (a *API) listForRepo(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	q := r.URL.Query()
	f := store.IssueQuery{RepoID: x.Repo.ID}
	sortParams(q, &f)
	if f.Since, err = since(r); err != nil {
		return err
	}
	switch m := q.Get("milestone"); m {
	case "":
	case "none":
		f.MilestoneNone = true
	case "*":
		f.MilestoneAny = true
	default:
		n, err := strconv.ParseInt(m, 10, 64)
		ms, err2 := a.d.Store.R().MilestoneByNumber(ctx, x.Repo.ID, n)
		if err != nil || err2 != nil {
			f.Nothing = true
		} else {
			f.MilestoneID = ms.ID
		}
	}
	switch as := q.Get("assignee"); as {
	case "":
	case "none":
		f.AssigneeNone = true
	case "*":
		f.AssigneeAny = true
	default:
		f.AssigneeID = a.userFilter(ctx, as, &f)
	}
	if c := q.Get("creator"); c != "" {
		f.CreatorID = a.userFilter(ctx, c, &f)
	}
	if m := q.Get("mentioned"); m != "" {
		f.MentionedID = a.userFilter(ctx, m, &f)
	}
	f.Type = q.Get("type") // a type's name, "*" or "none"
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	gen := a.d.Store.WriteGen() // before reading: a write meanwhile makes what is read stale
	ids, total, err := a.d.Store.R().ListIssueIDs(ctx, f)
	if err != nil {
		return err
	}
	a.link(w, r, p, total)
	return a.listPage(w, r, x, ids, gen)
}

// GET /issues: issues of the repositories the caller owns, collaborates on
// or reaches as an organization member, assigned to them by default.
func (a *API) listAll(w http.ResponseWriter, r *http.Request) error {
	return a.listAcross(w, r, store.RepoQuery{ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true})
}

// GET /user/issues: the same across owned and member repositories.
func (a *API) listForUser(w http.ResponseWriter, r *http.Request) error {
	return a.listAcross(w, r, store.RepoQuery{ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true})
}

// GET /orgs/{org}/issues: the same within one organization's repositories
// the caller can see.
func (a *API) listForOrg(w http.ResponseWriter, r *http.Request) error {
	if _, err := api.RequireUser(r); err != nil {
		return err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	return a.listAcross(w, r, store.RepoQuery{OwnerID: org.ID})
}

// listAcross lists issues across the repositories rq selects for the
// caller, with GitHub's filter parameter.
func (a *API) listAcross(w http.ResponseWriter, r *http.Request, rq store.RepoQuery) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	q := r.URL.Query()
	rq.Viewer = api.ViewerOf(c)
	f := store.IssueQuery{Repos: &rq}
	sortParams(q, &f)
	if f.Since, err = since(r); err != nil {
		return err
	}
	me := c.User.ID
	switch q.Get("filter") {
	case "created":
		f.CreatorID = me
	case "mentioned":
		f.MentionedID = me
	case "subscribed":
		f.Involves = me
	case "repos", "all":
	default:
		f.AssigneeID = me
	}
	f.Type = q.Get("type")
	// pulls=true lists only pull requests; by default issues and pull
	// requests come together, as every pull request is an issue.
	f.Pulls = q.Get("pulls") == "true"
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	st := a.d.Store.R()
	list, total, err := st.ListIssues(ctx, f)
	if err != nil {
		return err
	}
	if err := st.IssueDetails(ctx, list, false); err != nil {
		return err
	}
	ids := make([]int64, 0, len(list))
	for _, is := range list {
		ids = append(ids, is.RepoID)
	}
	repos, err := st.ReposByID(ctx, ids, me)
	if err != nil {
		return err
	}
	out := &issueList{wr: a.writer(r), items: make([]wire.Issue, 0, len(list))}
	for _, is := range list {
		v := repos[is.RepoID]
		if v == nil {
			continue
		}
		acc := wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: true}
		out.items = append(out.items, out.wr.ToIssue(v.Repo, is, &acc))
	}
	a.link(w, r, p, total)
	return out.send(w)
}

// updateText is the title and body an update sets (nil for unset or null).
func updateText(in *updateBody) (title, body *string) {
	if in.Title.Set && !in.Title.IsNull {
		title = &in.Title.V
	}
	if in.Body.Set && !in.Body.Null {
		body = &in.Body.Value
	}
	return title, body
}
