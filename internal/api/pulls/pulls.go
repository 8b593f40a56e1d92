package pulls

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// caller is the service's view of the request's caller.
func (a *API) caller(r *http.Request, perm authz.Permission) svc.Caller {
	return svc.CallerFor(a.d.Store, rest.Caller(r), perm)
}

// participate: opening or editing a pull request needs a user whose token
// may write to public repositories, on a repository that is not archived.
func participate(r *http.Request, repo *model.Repo) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := api.RequireScope(c, "public_repo"); err != nil {
		return err
	}
	if err := repo.WriteRefusal(); err != nil {
		return err
	}
	return nil
}

func number(r *http.Request) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue("pull_number"), 10, 64)
	if err != nil || n <= 0 {
		return 0, model.ErrNotFound
	}
	return n, nil
}

// render converts pull requests of repo for the caller: issue details and
// pull details are loaded for the whole list at once.
func (a *API) render(r *http.Request, repo *model.Repo, perm authz.Permission, list []*model.Pull) (*wire.IssueWriter, *wire.PullRepos, error) {
	ctx := r.Context()
	c := rest.Caller(r)
	q := a.d.Store.R()
	rs := &wire.PullRepos{Base: repo, BaseAccess: wire.Access{Perm: perm, Authenticated: c.Authenticated()}}
	wr := a.d.URLs.NewIssueWriter(a.d.Bodies(r))
	if len(list) == 0 {
		return wr, rs, nil
	}
	issues := make([]*model.Issue, len(list))
	for i, p := range list {
		issues[i] = p.Issue
	}
	if err := q.IssueDetails(ctx, issues, false); err != nil {
		return nil, nil, err
	}
	if err := a.svc.Details(ctx, list, c.UserID()); err != nil {
		return nil, nil, err
	}
	if err := requestedTeams(ctx, q, list, c.UserID()); err != nil {
		return nil, nil, err
	}
	heads := map[int64]*store.RepoView{}
	var ids []int64
	for _, p := range list {
		if p.HeadRepoID != 0 && p.HeadRepoID != repo.ID {
			ids = append(ids, p.HeadRepoID)
		}
	}
	if len(ids) > 0 {
		var err error
		if heads, err = q.ReposByID(ctx, ids, c.UserID()); err != nil {
			return nil, nil, err
		}
	}
	rs.HeadAccess = func(h *model.Repo) wire.Access {
		if v := heads[h.ID]; v != nil {
			return wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: c.Authenticated()}
		}
		return wire.Access{Authenticated: c.Authenticated()}
	}
	return wr, rs, nil
}

// requestedTeams loads the teams whose review is requested on the pull
// requests of list, those the viewer is shown, in one query.
func requestedTeams(ctx context.Context, q store.Q, list []*model.Pull, viewerID int64) error {
	ids := make([]int64, len(list))
	for i, p := range list {
		ids[i] = p.IssueID
	}
	teams, err := q.RequestedTeams(ctx, ids, viewerID)
	if err != nil {
		return err
	}
	for _, p := range list {
		p.RequestedTeams = teams[p.IssueID]
	}
	return nil
}

// RenderSimple is the pull-request-simple object of p for the request's
// caller, who has perm on repo.
func (a *API) RenderSimple(r *http.Request, repo *model.Repo, perm authz.Permission, p *model.Pull) (wire.PullSimple, error) {
	wr, rs, err := a.render(r, repo, perm, []*model.Pull{p})
	if err != nil {
		return wire.PullSimple{}, err
	}
	return wr.ToPullSimple(rs, p), nil
}

// respond answers with one pull request as it is now.
func (a *API) respond(w http.ResponseWriter, r *http.Request, repo *model.Repo, perm authz.Permission, p *model.Pull, status int) error {
	wr, rs, err := a.render(r, repo, perm, []*model.Pull{p})
	if err != nil {
		return err
	}
	return rest.JSON(w, status, wr.ToPull(rs, p))
}

type createBody struct {
	Title               *string `json:"title"`
	Head                string  `json:"head"`
	HeadRepo            *string `json:"head_repo"`
	Base                string  `json:"base"`
	Body                *string `json:"body"`
	MaintainerCanModify *bool   `json:"maintainer_can_modify"`
	Draft               *bool   `json:"draft"`
	Issue               *int64  `json:"issue"`
}

// POST /repos/{owner}/{repo}/pulls
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(r, repo); err != nil {
		return err
	}
	var in createBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	ci := svc.CreateInput{Body: in.Body, Head: in.Head, Base: in.Base, MaintainerCanModify: in.MaintainerCanModify}
	if in.Title != nil {
		ci.Title = *in.Title
	}
	if in.HeadRepo != nil {
		ci.HeadRepo = *in.HeadRepo
		if i := strings.IndexByte(ci.HeadRepo, '/'); i >= 0 {
			ci.HeadRepo = ci.HeadRepo[i+1:]
		}
	}
	if in.Draft != nil {
		ci.Draft = *in.Draft
	}
	if in.Issue != nil {
		ci.Issue = *in.Issue
	}
	p, err := a.svc.Create(r.Context(), repo, a.caller(r, perm), ci)
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.d.URLs.PullURL(repo, p.Number))
	return a.respond(w, r, repo, perm, p, http.StatusCreated)
}

// GET /repos/{owner}/{repo}/pulls/{pull_number} (also as a diff or patch)
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	n, err := number(r)
	if err != nil {
		return err
	}
	p, err := a.d.Store.R().PullByNumber(r.Context(), repo.ID, n)
	if err != nil {
		return err
	}
	switch rest.From(r).Media.Param {
	case "diff", "patch":
		return a.text(w, r, repo, p, rest.From(r).Media.Param)
	}
	return a.respond(w, r, repo, perm, p, http.StatusOK)
}

// GET /repos/{owner}/{repo}/pulls
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	q := r.URL.Query()
	pg := rest.ParsePage(r)
	f := store.PullQuery{RepoID: repo.ID, State: "open", Sort: "created", Desc: true, Limit: pg.Limit(), Offset: pg.Offset()}
	if s := q.Get("state"); s != "" {
		if s != "open" && s != "closed" && s != "all" {
			return model.Invalid("PullRequest", "state", "invalid")
		}
		f.State = s
	}
	if s := q.Get("sort"); s != "" {
		switch s {
		case "created", "updated", "popularity", "long-running":
			f.Sort = s
		default:
			return model.Invalid("PullRequest", "sort", "invalid")
		}
	}
	// GitHub sorts newest first by default, except for popularity and
	// long-running, which answer the most popular or oldest first too.
	switch q.Get("direction") {
	case "asc":
		f.Desc = false
	case "desc", "":
	default:
		return model.Invalid("PullRequest", "direction", "invalid")
	}
	f.BaseRef = q.Get("base")
	empty := false
	if h := q.Get("head"); h != "" {
		owner, branch, hasBranch := strings.Cut(h, ":")
		acct, err := a.d.Store.R().AccountByLogin(ctx, owner)
		switch {
		case errors.Is(err, model.ErrNotFound):
			empty = true
		case err != nil:
			return err
		default:
			f.HeadOwnerID = acct.ID
			if hasBranch {
				f.HeadRef = branch
			}
		}
	}
	var list []*model.Pull
	total := 0
	if !empty {
		if list, total, err = a.d.Store.R().ListPulls(ctx, f); err != nil {
			return err
		}
	}
	wr, rs, err := a.render(r, repo, perm, list)
	if err != nil {
		return err
	}
	out := make([]wire.PullSimple, 0, len(list))
	for _, p := range list {
		out = append(out, wr.ToPullSimple(rs, p))
	}
	rest.SetLink(w, r, a.d.URLs.API, pg, total)
	bp := listBuffers.Get().(*[]byte)
	b, err := wire.AppendPulls((*bp)[:0], out)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	if cap(b) <= 8<<20 {
		*bp = b
		listBuffers.Put(bp)
	}
	return err
}

// listBuffers are the byte buffers of list answers (a page of pull
// requests is about half a megabyte).
var listBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1<<20); return &b }}

// updateBody distinguishes an absent body from a null one.
type updateBody struct {
	Title               *string         `json:"title"`
	Body                json.RawMessage `json:"body"`
	State               *string         `json:"state"`
	Base                *string         `json:"base"`
	MaintainerCanModify *bool           `json:"maintainer_can_modify"`
}

// PATCH /repos/{owner}/{repo}/pulls/{pull_number}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(r, repo); err != nil {
		return err
	}
	n, err := number(r)
	if err != nil {
		return err
	}
	var in updateBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	ui := svc.UpdateInput{Title: in.Title, State: in.State, Base: in.Base, MaintainerCanModify: in.MaintainerCanModify}
	if in.Body != nil {
		ui.BodySet = true
		if string(in.Body) != "null" {
			var s string
			if err := json.Unmarshal(in.Body, &s); err != nil {
				return model.Invalid("PullRequest", "body", "invalid")
			}
			ui.Body = &s
		}
	}
	p, err := a.svc.Update(r.Context(), repo, a.caller(r, perm), n, ui)
	if err != nil {
		return err
	}
	return a.respond(w, r, repo, perm, p, http.StatusOK)
}

// GET /repos/{owner}/{repo}/pulls/{pull_number}/merge
func (a *API) checkMerged(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	n, err := number(r)
	if err != nil {
		return err
	}
	p, err := a.d.Store.R().PullByNumber(r.Context(), repo.ID, n)
	if err != nil {
		return err
	}
	if !p.Merged() {
		return model.ErrNotFound
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type mergeBody struct {
	CommitTitle   *string `json:"commit_title"`
	CommitMessage *string `json:"commit_message"`
	SHA           *string `json:"sha"`
	MergeMethod   *string `json:"merge_method"`
}

func (in mergeBody) input() svc.MergeInput {
	mi := svc.MergeInput{CommitTitle: in.CommitTitle, CommitMessage: in.CommitMessage}
	if in.SHA != nil {
		mi.SHA = *in.SHA
	}
	if in.MergeMethod != nil {
		mi.Method = *in.MergeMethod
	}
	return mi
}

// PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge
func (a *API) merge(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	n, err := number(r)
	if err != nil {
		return err
	}
	var in mergeBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	res, err := a.svc.Merge(r.Context(), repo, a.caller(r, perm), n, in.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.PullMergeResult{SHA: res.SHA, Merged: true, Message: res.Message})
}

type updateBranchBody struct {
	ExpectedHeadSHA *string `json:"expected_head_sha"`
}

// PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch
func (a *API) updateBranch(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(r, repo); err != nil {
		return err
	}
	n, err := number(r)
	if err != nil {
		return err
	}
	var in updateBranchBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	expected := ""
	if in.ExpectedHeadSHA != nil {
		expected = *in.ExpectedHeadSHA
	}
	if err := a.svc.UpdateBranch(r.Context(), repo, a.caller(r, perm), n, expected); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, map[string]string{"message": "Updating pull request branch.",
		"url": a.d.URLs.RepoHTMLURL(repo) + "/pull/" + strconv.FormatInt(n, 10)})
}
