package issues

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	issuesvc "github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// access is a request's repository and what the caller may do on it.
type access = issuesvc.Access

// open starts every /repos/{owner}/{repo}/issues... handler: the
// repository with the caller's permission (404, 403 and redirects from
// api.Deps.Repo), and 410 when its issues are disabled.
func (a *API) open(r *http.Request, need authz.Permission) (*access, error) {
	repo, perm, err := a.d.Repo(r, need)
	if err != nil {
		return nil, err
	}
	if !repo.HasIssues {
		return nil, issuesvc.ErrDisabled
	}
	return &access{Repo: repo, Perm: perm, Caller: rest.Caller(r)}, nil
}

// openRepo is open for the repository-level resources (labels,
// milestones, assignees) that exist whether or not issues are enabled.
func (a *API) openRepo(r *http.Request, need authz.Permission) (*access, error) {
	repo, perm, err := a.d.Repo(r, need)
	if err != nil {
		return nil, err
	}
	return &access{Repo: repo, Perm: perm, Caller: rest.Caller(r)}, nil
}

// openWritable is open for changes: archived repositories refuse them.
func (a *API) openWritable(r *http.Request, need authz.Permission) (*access, error) {
	x, err := a.open(r, need)
	if err != nil {
		return nil, err
	}
	return x, x.Writable()
}

// openRepoWritable is openRepo for changes.
func (a *API) openRepoWritable(r *http.Request, need authz.Permission) (*access, error) {
	x, err := a.openRepo(r, need)
	if err != nil {
		return nil, err
	}
	return x, x.Writable()
}

// participate is what writing an issue, a comment or a reaction needs: a
// user behind the request, a token that may write to public repositories,
// and a repository that is not archived.
func participate(x *access, r *http.Request) error {
	if _, err := api.RequireUser(r); err != nil {
		return err
	}
	if err := api.RequireScope(x.Caller, "public_repo"); err != nil {
		return err
	}
	return x.Writable()
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
	is, err := a.svc.IssueByNumber(r.Context(), q, x, n)
	if errors.Is(err, model.ErrNotFound) {
		// A transferred issue's old number redirects to where it went.
		return nil, a.d.IssueRedirect(r, x.Repo.ID, n)
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
	out := w.ToIssue(x.Repo, is, nil)
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

// page writes the Link header for a list.
func (a *API) link(w http.ResponseWriter, r *http.Request, p rest.Page, total int) {
	rest.SetLink(w, r, a.d.URLs.API, p, total)
}
