// Package advisories is the REST adapter of repository security advisories
// and private vulnerability reporting (/repos/{owner}/{repo}/security-
// advisories..., /orgs/{org}/security-advisories,
// /repos/{owner}/{repo}/private-vulnerability-reporting); the rules live in
// internal/advisories.
package advisories

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	svc "github.com/hubd/hubd/internal/advisories"
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/forks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// API is the advisories package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package; temporary private forks are made by f.
func New(d *api.Deps, f *forks.Service) *API { return &API{d: d, svc: svc.New(d.Store, f)} }

const (
	cnaNote = "hubd is not a CVE Numbering Authority: a CVE request is recorded on the advisory (and answered 202 as GitHub does) but sent nowhere, so no CVE id is ever assigned; set cve_id by hand."
	v4Note  = "CVSS v3.0/v3.1 vectors are validated and scored with the specification's formulas; a CVSS v4.0 vector is validated and stored but hubd computes no v4 score (score is null) and takes no severity from it. CWE names come from a built-in list of common weaknesses (others are named by their id). GitHub withdraws advisories and reviews them into the global database; hubd has neither."
)

const forkNote = "The temporary private fork is a private repository of the owner in the repository's fork network (so GET .../forks lists it to those who may see it, which GitHub does not); it is not deleted or merged when the advisory is published."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	scopes := []string{"repo", "repository_advisories:write"}
	read := []string{"repo", "repository_advisories:read", "repository_advisories:write"}
	base := "/repos/{owner}/{repo}/security-advisories"
	return []rest.Route{
		{Method: "GET", Pattern: "/orgs/{org}/security-advisories", OperationID: "security-advisories/list-org-repository-advisories", Handler: a.listOrg, Scopes: read},
		{Method: "GET", Pattern: base, OperationID: "security-advisories/list-repository-advisories", Handler: a.list, Scopes: read},
		{Method: "POST", Pattern: base, OperationID: "security-advisories/create-repository-advisory", Handler: a.create, Scopes: scopes, Note: v4Note},
		{Method: "POST", Pattern: base + "/reports", OperationID: "security-advisories/create-private-vulnerability-report", Handler: a.report, Scopes: []string{"repo", "public_repo", "repository_advisories:write"}},
		{Method: "GET", Pattern: base + "/{ghsa_id}", OperationID: "security-advisories/get-repository-advisory", Handler: a.get, Scopes: read},
		{Method: "PATCH", Pattern: base + "/{ghsa_id}", OperationID: "security-advisories/update-repository-advisory", Handler: a.update, Scopes: scopes, Note: v4Note},
		{Method: "POST", Pattern: base + "/{ghsa_id}/cve", OperationID: "security-advisories/create-repository-advisory-cve-request", Handler: a.requestCVE, Scopes: scopes, Note: cnaNote},
		{Method: "POST", Pattern: base + "/{ghsa_id}/forks", OperationID: "security-advisories/create-fork", Handler: a.fork, Scopes: scopes, Note: forkNote},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/private-vulnerability-reporting", OperationID: "repos/check-private-vulnerability-reporting", Handler: a.checkReporting, Scopes: []string{"repo"}},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/private-vulnerability-reporting", OperationID: "repos/enable-private-vulnerability-reporting", Handler: a.enableReporting, Scopes: []string{"repo"}},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/private-vulnerability-reporting", OperationID: "repos/disable-private-vulnerability-reporting", Handler: a.disableReporting, Scopes: []string{"repo"}},
	}
}

// viewer is the path's repository (404 when the caller may not see it)
// and the caller as its advisories see them.
func (a *API) viewer(r *http.Request) (svc.Viewer, error) {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return svc.Viewer{}, err
	}
	return a.svc.ViewerOf(r.Context(), rest.Caller(r), repo, perm)
}

// listQuery reads sort, direction, state, per_page and the before/after
// cursors; 400 for a cursor hubd did not make.
func listQuery(r *http.Request) (store.AdvisoryQuery, error) {
	q := r.URL.Query()
	f := store.AdvisoryQuery{Sort: q.Get("sort"), State: q.Get("state"), Limit: rest.ParsePage(r).PerPage}
	switch f.Sort {
	case "", "created", "updated", "published":
	default:
		return f, model.Invalid("", "sort", "invalid")
	}
	switch q.Get("direction") {
	case "", "desc":
	case "asc":
		f.Asc = true
	default:
		return f, model.Invalid("", "direction", "invalid")
	}
	switch f.State {
	case "", model.AdvisoryTriage, model.AdvisoryDraft, model.AdvisoryPublished, model.AdvisoryClosed:
	default:
		return f, model.Invalid("", "state", "invalid")
	}
	var err error
	if f.After, err = cursor(q.Get("after")); err != nil {
		return f, err
	}
	if f.Before, err = cursor(q.Get("before")); err != nil {
		return f, err
	}
	return f, nil
}

var errCursor = model.BadRequest("Invalid cursor")

func cursor(s string) (*store.AdvisoryCursor, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errCursor
	}
	k, id, ok := strings.Cut(string(b), ":")
	key, err1 := strconv.ParseInt(k, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return nil, errCursor
	}
	return &store.AdvisoryCursor{Key: key, ID: n}, nil
}

func encodeCursor(a *model.Advisory, sort string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(store.AdvisorySortKey(a, sort), 10) + ":" + strconv.FormatInt(a.ID, 10)))
}

// setLink writes the cursor Link header: next after the page's last item
// when more follow (or the page was read backwards), prev before its first
// when the page is not the first.
func (a *API) setLink(w http.ResponseWriter, r *http.Request, f store.AdvisoryQuery, list []*svc.Advisory, more bool) {
	if len(list) == 0 {
		return
	}
	var next, prev string
	if f.Before != nil || more {
		next = encodeCursor(list[len(list)-1].Advisory, f.Sort)
	}
	if f.After != nil || f.Before != nil && more {
		prev = encodeCursor(list[0].Advisory, f.Sort)
	}
	rest.SetCursorLink(w, r, a.d.URLs.API, next, prev)
}

// writeList answers a page of advisories.
func (a *API) writeList(w http.ResponseWriter, r *http.Request, f store.AdvisoryQuery, list []*svc.Advisory, more bool, repoOf func(*model.Advisory) *model.Repo) error {
	out, err := svc.Render(r.Context(), a.d.Store.R(), a.d.URLs, list, rest.Caller(r).UserID(), repoOf)
	if err != nil {
		return err
	}
	a.setLink(w, r, f, list, more)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/security-advisories
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	v, err := a.viewer(r)
	if err != nil {
		return err
	}
	f, err := listQuery(r)
	if err != nil {
		return err
	}
	list, more, err := a.svc.List(r.Context(), v, f)
	if err != nil {
		return err
	}
	return a.writeList(w, r, f, list, more, func(*model.Advisory) *model.Repo { return v.Repo })
}

// GET /orgs/{org}/security-advisories (owners and security managers).
func (a *API) listOrg(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	org, err := a.d.Store.R().OrgByLogin(ctx, r.PathValue("org"))
	if err != nil {
		return err
	}
	f, err := listQuery(r)
	if err != nil {
		return err
	}
	m, err := a.d.Store.R().Membership(ctx, org.ID, c.UserID())
	if err != nil && err != model.ErrNotFound {
		return err
	}
	owner := m != nil && m.State == "active" && m.Role == model.RoleAdmin
	list, more, err := a.svc.ListOrg(ctx, org, c, owner, f)
	if err != nil {
		return err
	}
	ids := make([]int64, 0, len(list))
	for _, adv := range list {
		ids = append(ids, adv.RepoID)
	}
	views, err := a.d.Store.R().ReposByID(ctx, ids, c.UserID())
	if err != nil {
		return err
	}
	return a.writeList(w, r, f, list, more, func(adv *model.Advisory) *model.Repo {
		if v := views[adv.RepoID]; v != nil {
			return v.Repo
		}
		return &model.Repo{ID: adv.RepoID, Owner: org, OwnerID: org.ID}
	})
}

// writeOne answers one advisory.
func (a *API) writeOne(w http.ResponseWriter, r *http.Request, status int, repo *model.Repo, adv *svc.Advisory) error {
	out, err := svc.Render(r.Context(), a.d.Store.R(), a.d.URLs, []*svc.Advisory{adv}, rest.Caller(r).UserID(), func(*model.Advisory) *model.Repo { return repo })
	if err != nil {
		return err
	}
	return rest.JSON(w, status, out[0])
}

type vulnBody struct {
	Package struct {
		Ecosystem string  `json:"ecosystem"`
		Name      *string `json:"name"`
	} `json:"package"`
	VulnerableRange *string  `json:"vulnerable_version_range"`
	Patched         *string  `json:"patched_versions"`
	Functions       []string `json:"vulnerable_functions"`
}

type body struct {
	Summary         rest.Opt[string]            `json:"summary"`
	Description     rest.Opt[string]            `json:"description"`
	CVEID           rest.Opt[string]            `json:"cve_id"`
	Vulnerabilities rest.Opt[[]vulnBody]        `json:"vulnerabilities"`
	CWEIDs          rest.Opt[[]string]          `json:"cwe_ids"`
	Credits         rest.Opt[[]svc.CreditInput] `json:"credits"`
	Severity        rest.Opt[string]            `json:"severity"`
	CVSS            rest.Opt[string]            `json:"cvss_vector_string"`
	State           rest.Opt[string]            `json:"state"`
	CollabUsers     rest.Opt[[]string]          `json:"collaborating_users"`
	CollabTeams     rest.Opt[[]string]          `json:"collaborating_teams"`
	StartFork       rest.Opt[bool]              `json:"start_private_fork"`
}

func ptr[T any](o rest.Opt[T]) *T {
	if v, ok := o.Get(); ok {
		return &v
	}
	return nil
}

// input turns a decoded body into the service's input.
func (b body) input() svc.Input {
	in := svc.Input{
		Summary: ptr(b.Summary), Description: ptr(b.Description),
		SetCVE: b.CVEID.Set, CVEID: ptr(b.CVEID), CWEIDs: ptr(b.CWEIDs),
		SetSeverity: b.Severity.Set, Severity: ptr(b.Severity), SetCVSS: b.CVSS.Set, CVSS: ptr(b.CVSS),
		CollabUsers: ptr(b.CollabUsers), CollabTeams: ptr(b.CollabTeams),
	}
	if b.Credits.Set {
		c := b.Credits.Value
		if c == nil {
			c = []svc.CreditInput{}
		}
		in.Credits = &c
	}
	in.State, _ = b.State.Get()
	in.StartFork, _ = b.StartFork.Get()
	if b.Vulnerabilities.Set {
		vs := make([]model.AdvisoryVulnerability, len(b.Vulnerabilities.Value))
		for i, v := range b.Vulnerabilities.Value {
			vs[i] = model.AdvisoryVulnerability{Ecosystem: v.Package.Ecosystem, Name: v.Package.Name,
				VulnerableRange: v.VulnerableRange, Patched: v.Patched, Functions: v.Functions}
		}
		in.Vulnerabilities = &vs
	}
	return in
}

// POST /repos/{owner}/{repo}/security-advisories
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	return a.edit(w, r, http.StatusCreated, a.svc.Create)
}

// POST /repos/{owner}/{repo}/security-advisories/reports
func (a *API) report(w http.ResponseWriter, r *http.Request) error {
	return a.edit(w, r, http.StatusCreated, a.svc.Report)
}

// PATCH /repos/{owner}/{repo}/security-advisories/{ghsa_id}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	return a.edit(w, r, http.StatusOK, func(ctx context.Context, v svc.Viewer, in svc.Input) (*svc.Advisory, error) {
		return a.svc.Update(ctx, v, r.PathValue("ghsa_id"), in)
	})
}

// signedIn is viewer for operations that need a signed-in user (401
// before anything else).
func (a *API) signedIn(r *http.Request) (svc.Viewer, error) {
	if _, err := api.RequireUser(r); err != nil {
		return svc.Viewer{}, err
	}
	return a.viewer(r)
}

// edit decodes the body, hands it to fn and answers the advisory fn made
// or changed with status.
func (a *API) edit(w http.ResponseWriter, r *http.Request, status int, fn func(ctx context.Context, v svc.Viewer, in svc.Input) (*svc.Advisory, error)) error {
	v, err := a.signedIn(r)
	if err != nil {
		return err
	}
	var b body
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	adv, err := fn(r.Context(), v, b.input())
	if err != nil {
		return err
	}
	return a.writeOne(w, r, status, v.Repo, adv)
}

// GET /repos/{owner}/{repo}/security-advisories/{ghsa_id}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	v, err := a.viewer(r)
	if err != nil {
		return err
	}
	adv, _, err := a.svc.Get(r.Context(), v, r.PathValue("ghsa_id"))
	if err != nil {
		return err
	}
	return a.writeOne(w, r, http.StatusOK, v.Repo, adv)
}

// POST /repos/{owner}/{repo}/security-advisories/{ghsa_id}/cve: 202 with
// an empty object, as GitHub answers; the request is only recorded.
func (a *API) requestCVE(w http.ResponseWriter, r *http.Request) error {
	v, err := a.signedIn(r)
	if err != nil {
		return err
	}
	if err := a.svc.RequestCVE(r.Context(), v, r.PathValue("ghsa_id")); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, map[string]any{})
}

// POST /repos/{owner}/{repo}/security-advisories/{ghsa_id}/forks: 202 with
// the temporary private fork; its git follows in a job.
func (a *API) fork(w http.ResponseWriter, r *http.Request) error {
	v, err := a.signedIn(r)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	fork, err := a.svc.CreateFork(r.Context(), v, r.PathValue("ghsa_id"))
	if err != nil {
		return err
	}
	fv, err := a.d.Store.R().RepoByID(r.Context(), fork.ID, c.UserID())
	if err != nil {
		return err
	}
	out, err := repos.Full(r.Context(), a.d, c, fv.Repo, authz.RepoPermission(c, fv.Repo, fv.Facts))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, out)
}

// GET /repos/{owner}/{repo}/private-vulnerability-reporting
func (a *API) checkReporting(w http.ResponseWriter, r *http.Request) error {
	v, err := a.viewer(r)
	if err != nil {
		return err
	}
	on, err := a.svc.PrivateReporting(r.Context(), v)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, map[string]bool{"enabled": on})
}

// PUT /repos/{owner}/{repo}/private-vulnerability-reporting
func (a *API) enableReporting(w http.ResponseWriter, r *http.Request) error {
	return a.setReporting(w, r, true)
}

// DELETE /repos/{owner}/{repo}/private-vulnerability-reporting
func (a *API) disableReporting(w http.ResponseWriter, r *http.Request) error {
	return a.setReporting(w, r, false)
}

func (a *API) setReporting(w http.ResponseWriter, r *http.Request, on bool) error {
	v, err := a.viewer(r)
	if err != nil {
		return err
	}
	if err := a.svc.SetPrivateReporting(r.Context(), v, on); err != nil {
		return err
	}
	return rest.NoContent(w)
}
