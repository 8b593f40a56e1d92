package issues

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

var (
	errDisabled = model.Gone("Issues are disabled for this repo")
	errLocked   = model.Forbidden("Unable to create comment because issue is locked.")
)

// access is a request's repository and what the caller may do on it.
type access struct {
	repo *model.Repo
	perm authz.Permission
	c    *authz.Caller
}

// open starts every /repos/{owner}/{repo}/issues... handler: the
// repository with the caller's permission (404, 403 and redirects from
// api.Deps.Repo), and 410 when its issues are disabled.
func (a *API) open(r *http.Request, need authz.Permission) (*access, error) {
	repo, perm, err := a.d.Repo(r, need)
	if err != nil {
		return nil, err
	}
	if !repo.HasIssues {
		return nil, errDisabled
	}
	return &access{repo: repo, perm: perm, c: rest.Caller(r)}, nil
}

// openRepo is open for the repository-level resources (labels,
// milestones, assignees) that exist whether or not issues are enabled.
func (a *API) openRepo(r *http.Request, need authz.Permission) (*access, error) {
	repo, perm, err := a.d.Repo(r, need)
	if err != nil {
		return nil, err
	}
	return &access{repo: repo, perm: perm, c: rest.Caller(r)}, nil
}

// writable refuses writes to archived repositories.
func (x *access) writable() error {
	if x.repo.Archived {
		return api.ErrArchived
	}
	return nil
}

// openWritable is open for changes: archived repositories refuse them.
func (a *API) openWritable(r *http.Request, need authz.Permission) (*access, error) {
	x, err := a.open(r, need)
	if err != nil {
		return nil, err
	}
	return x, x.writable()
}

// openRepoWritable is openRepo for changes.
func (a *API) openRepoWritable(r *http.Request, need authz.Permission) (*access, error) {
	x, err := a.openRepo(r, need)
	if err != nil {
		return nil, err
	}
	return x, x.writable()
}

// participate is what writing an issue, a comment or a reaction needs: a
// user behind the request, a token that may write to public repositories,
// and a repository that is not archived.
func (x *access) participate(r *http.Request) error {
	if _, err := api.RequireUser(r); err != nil {
		return err
	}
	if err := api.RequireScope(x.c, "public_repo"); err != nil {
		return err
	}
	return x.writable()
}

func (x *access) triage() bool { return x.perm >= authz.Triage }

func (x *access) org() int64 {
	if x.repo.Owner != nil && x.repo.Owner.IsOrg() {
		return x.repo.Owner.ID
	}
	return 0
}

// pathInt reads an integer path value; anything else is not found.
func pathInt(r *http.Request, name string) (int64, error) {
	v, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || v <= 0 {
		return 0, model.ErrNotFound
	}
	return v, nil
}

// issue loads the issue of the {issue_number} path value.
func (a *API) issue(r *http.Request, q store.Q, x *access) (*model.Issue, error) {
	n, err := pathInt(r, "issue_number")
	if err != nil {
		return nil, err
	}
	is, err := q.IssueByNumber(r.Context(), x.repo.ID, n)
	if errors.Is(err, model.ErrNotFound) {
		// A deleted issue's number answers 410, as on GitHub.
		if gone, derr := q.IssueDeleted(r.Context(), x.repo.ID, n); derr != nil {
			return nil, derr
		} else if gone {
			return nil, model.Gone("This issue was deleted")
		}
		// A transferred issue's old number redirects to where it went.
		return nil, a.d.IssueRedirect(r, x.repo.ID, n)
	}
	return is, err
}

func (a *API) writer(r *http.Request) *wire.IssueWriter {
	return a.d.URLs.NewIssueWriter(a.d.Bodies(r))
}

// render converts one issue after loading its details; single adds the
// fields only single-issue responses carry.
func (a *API) render(r *http.Request, x *access, is *model.Issue, single bool) (wire.Issue, error) {
	if err := a.d.Store.R().IssueDetails(r.Context(), []*model.Issue{is}, single); err != nil {
		return wire.Issue{}, err
	}
	w := a.writer(r)
	out := w.ToIssue(x.repo, is, nil)
	if single {
		w.WithClosedBy(&out, is)
	}
	return out, nil
}

// respond answers with the issue as it is now.
func (a *API) respond(w http.ResponseWriter, r *http.Request, x *access, id int64, status int) error {
	is, err := a.d.Store.R().IssueByID(r.Context(), id)
	if err != nil {
		return err
	}
	out, err := a.render(r, x, is, true)
	if err != nil {
		return err
	}
	return rest.JSON(w, status, out)
}

// issueList is a list response of issues with the writer that converted
// them, which also encodes them (wire.IssueWriter.AppendIssues).
type issueList struct {
	wr    *wire.IssueWriter
	items []wire.Issue
}

var listBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// send answers 200 with the list.
func (l *issueList) send(w http.ResponseWriter) error {
	bp := listBuffers.Get().(*[]byte)
	b := l.wr.AppendIssues((*bp)[:0], l.items)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	if cap(b) <= 4<<20 {
		*bp = b
		listBuffers.Put(bp)
	}
	return err
}

// decodeOptional decodes a body that may be absent or the literal null
// (lock, for one).
func decodeOptional(r *http.Request, v any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &model.HTTPError{Status: http.StatusRequestEntityTooLarge, Message: "Payload Too Large"}
		}
		return model.BadRequest("Problems parsing JSON")
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || string(t) == "null" {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	return rest.Decode(r, v)
}

// nameIn is an item of a labels array: a name, or an object with a name.
type nameIn struct{ Name string }

func (n *nameIn) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &n.Name)
	}
	var o struct {
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(b, &o); err != nil || o.Name == nil {
		return &rest.FieldTypeError{Field: "labels", Want: "a string"}
	}
	n.Name = *o.Name
	return nil
}

// loginIn is an item of an assignees array: a login, or an object with one.
type loginIn struct{ Login string }

func (l *loginIn) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &l.Login)
	}
	var o struct {
		Login *string `json:"login"`
	}
	if err := json.Unmarshal(b, &o); err != nil || o.Login == nil {
		return &rest.FieldTypeError{Field: "assignees", Want: "a string"}
	}
	l.Login = *o.Login
	return nil
}

// names flattens label items, dropping blanks and repeats (ignoring case).
func names(in []nameIn) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range in {
		s := strings.TrimSpace(n.Name)
		if s == "" || seen[strings.ToLower(s)] {
			continue
		}
		seen[strings.ToLower(s)] = true
		out = append(out, s)
	}
	return out
}

func logins(in []loginIn) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range in {
		s := strings.TrimSpace(l.Login)
		if s == "" || seen[strings.ToLower(s)] {
			continue
		}
		seen[strings.ToLower(s)] = true
		out = append(out, s)
	}
	return out
}

// maxAssignees is GitHub's limit of assignees per issue.
const maxAssignees = 10

// resolveAssignees finds the accounts of logins who may be assigned; a
// login that may not be is a 422 naming it, as are more than ten.
func (a *API) resolveAssignees(ctx context.Context, q store.Q, repoID int64, list []string) ([]*model.Account, error) {
	if len(list) > maxAssignees {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "assignees", Code: "invalid",
			Message: "You can assign up to 10 users to an issue."}}}
	}
	found, err := q.AssignableByLogin(ctx, repoID, list)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Account, 0, len(list))
	for _, l := range list {
		acc := found[strings.ToLower(l)]
		if acc == nil {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "assignees", Code: "invalid", Value: l}}}
		}
		out = append(out, acc)
	}
	return out, nil
}

// ensureLabels finds labels by name and creates the missing ones with
// GitHub's default colour, as applying an unknown label does on GitHub.
func ensureLabels(ctx context.Context, tx store.Q, x *access, actor int64, list []string) ([]*model.Label, error) {
	found, err := tx.LabelsByName(ctx, x.repo.ID, list)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Label, 0, len(list))
	for _, n := range list {
		l := found[strings.ToLower(n)]
		if l == nil {
			if err := validLabelName(n); err != nil {
				return nil, err
			}
			l = &model.Label{RepoID: x.repo.ID, Name: n, Color: defaultColor}
			if err := tx.CreateLabel(ctx, l); err != nil {
				return nil, err
			}
			if err := tx.AppendEvent(ctx, "label.created", actor, x.repo.ID, x.org(), labelPayload(l)); err != nil {
				return nil, err
			}
			found[strings.ToLower(n)] = l
		}
		out = append(out, l)
	}
	return out, nil
}

// event appends an issue event (and its domain event).
func event(ctx context.Context, tx store.Q, x *access, is *model.Issue, e model.IssueEvent, details map[string]any) error {
	e.RepoID, e.IssueID = x.repo.ID, is.ID
	if details == nil {
		details = map[string]any{}
	}
	details["number"] = is.Number
	return tx.AddIssueEvent(ctx, &e, x.org(), details)
}

// setLabels makes an issue's labels exactly list, recording labeled and
// unlabeled events; it reports whether anything changed.
func setLabels(ctx context.Context, tx store.Q, x *access, is *model.Issue, actor int64, list []*model.Label) (bool, error) {
	cur, err := tx.IssueLabels(ctx, is.ID)
	if err != nil {
		return false, err
	}
	want := map[int64]bool{}
	for _, l := range list {
		want[l.ID] = true
	}
	changed := false
	for _, l := range cur {
		if want[l.ID] {
			continue
		}
		ok, err := unlabel(ctx, tx, x, is, actor, l)
		if err != nil {
			return false, err
		}
		changed = changed || ok
	}
	for _, l := range list {
		ok, err := label(ctx, tx, x, is, actor, l)
		if err != nil {
			return false, err
		}
		changed = changed || ok
	}
	return changed, nil
}

func label(ctx context.Context, tx store.Q, x *access, is *model.Issue, actor int64, l *model.Label) (bool, error) {
	ok, err := tx.AddIssueLabel(ctx, is.ID, l.ID)
	if err != nil || !ok {
		return false, err
	}
	return true, event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "labeled", LabelName: l.Name, LabelColor: l.Color},
		map[string]any{"label": l.Name})
}

func unlabel(ctx context.Context, tx store.Q, x *access, is *model.Issue, actor int64, l *model.Label) (bool, error) {
	ok, err := tx.RemoveIssueLabel(ctx, is.ID, l.ID)
	if err != nil || !ok {
		return false, err
	}
	return true, event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "unlabeled", LabelName: l.Name, LabelColor: l.Color},
		map[string]any{"label": l.Name})
}

// setAssignees makes an issue's assignees exactly list, recording events.
func setAssignees(ctx context.Context, tx store.Q, x *access, is *model.Issue, actor int64, list []*model.Account) (bool, error) {
	cur, err := tx.IssueAssignees(ctx, is.ID)
	if err != nil {
		return false, err
	}
	want := map[int64]bool{}
	for _, u := range list {
		want[u.ID] = true
	}
	changed := false
	for _, u := range cur {
		if want[u.ID] {
			continue
		}
		ok, err := unassign(ctx, tx, x, is, actor, u)
		if err != nil {
			return false, err
		}
		changed = changed || ok
	}
	for _, u := range list {
		ok, err := assign(ctx, tx, x, is, actor, u)
		if err != nil {
			return false, err
		}
		changed = changed || ok
	}
	return changed, nil
}

func assign(ctx context.Context, tx store.Q, x *access, is *model.Issue, actor int64, u *model.Account) (bool, error) {
	ok, err := tx.AddIssueAssignee(ctx, is.ID, u.ID)
	if err != nil || !ok {
		return false, err
	}
	return true, event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "assigned", AssigneeID: u.ID, AssignerID: actor},
		map[string]any{"assignee": u.Login})
}

func unassign(ctx context.Context, tx store.Q, x *access, is *model.Issue, actor int64, u *model.Account) (bool, error) {
	ok, err := tx.RemoveIssueAssignee(ctx, is.ID, u.ID)
	if err != nil || !ok {
		return false, err
	}
	return true, event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "unassigned", AssigneeID: u.ID, AssignerID: actor},
		map[string]any{"assignee": u.Login})
}

// issuePayload is the domain payload of issue-level events.
func issuePayload(is *model.Issue, action string) map[string]any {
	return map[string]any{"action": action, "issue_id": is.ID, "number": is.Number}
}

// page writes the Link header for a list.
func (a *API) link(w http.ResponseWriter, r *http.Request, p rest.Page, total int) {
	rest.SetLink(w, r, a.d.URLs.API, p, total)
}
