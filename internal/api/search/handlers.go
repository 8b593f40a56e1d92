package search

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/search"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// errWindow is GitHub's answer to a page past the first 1,000 results.
var errWindow = model.Unprocessable("Only the first 1000 search results are available")

// window reads page and per_page within GitHub's 1,000-result window:
// the page's limit, its offset, and the page for the Link header.
func window(r *http.Request) (rest.Page, int, int, error) {
	p := rest.ParsePage(r)
	if p.Offset() >= svc.MaxResults {
		return p, 0, 0, errWindow
	}
	return p, min(p.Limit(), svc.MaxResults-p.Offset()), p.Offset(), nil
}

// finish writes the Link header (pages up to the window) and the answer.
func (a *API) finish(w http.ResponseWriter, r *http.Request, p rest.Page, total int, body any) error {
	rest.SetLink(w, r, a.d.URLs.API, p, min(total, svc.MaxResults))
	return rest.JSON(w, http.StatusOK, body)
}

// matching says whether the client asked for text matches: the
// text-match media type, anywhere in Accept (go-github sends it after a
// preview type).
func matching(r *http.Request, words []string) wire.Matching {
	on := rest.From(r).Media.Param == "text-match" || strings.Contains(r.Header.Get("Accept"), ".text-match")
	return wire.Matching{On: on, Words: words}
}

// GET /search/issues
func (a *API) issues(w http.ResponseWriter, r *http.Request) error {
	p, limit, offset, err := window(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	res, err := a.svc.Issues(r.Context(), rest.Caller(r), q.Get("q"), q.Get("sort"), q.Get("order"), limit, offset)
	if err != nil {
		return err
	}
	param := rest.From(r).Media.Param
	if param == "text-match" {
		param = ""
	}
	wr := a.d.URLs.NewIssueWriter(wire.Bodies(param))
	m := matching(r, res.Words)
	out := wire.SearchResult[wire.IssueSearchItem]{TotalCount: res.Total, SearchType: "lexical", Items: make([]wire.IssueSearchItem, 0, len(res.Issues))}
	for _, is := range res.Issues {
		v := res.Repos[is.RepoID]
		if v == nil {
			continue // deleted meanwhile
		}
		out.Items = append(out.Items, wr.ToIssueSearchItem(v.Repo, is, res.Drafts[is.ID], m))
	}
	return a.finish(w, r, p, res.Total, out)
}

// GET /search/repositories
func (a *API) repos(w http.ResponseWriter, r *http.Request) error {
	p, limit, offset, err := window(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	c := rest.Caller(r)
	res, err := a.svc.Repositories(r.Context(), c, q.Get("q"), q.Get("sort"), q.Get("order"), limit, offset)
	if err != nil {
		return err
	}
	m := matching(r, res.Words)
	out := wire.SearchResult[wire.RepoSearchItem]{TotalCount: res.Total, Items: make([]wire.RepoSearchItem, 0, len(res.Repos))}
	for _, v := range res.Repos {
		access := wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: c.Authenticated()}
		out.Items = append(out.Items, a.d.URLs.ToRepoSearchItem(v.Repo, repos.Counts(a.d, v.Repo, res.Facts[v.Repo.ID]), access, m))
	}
	return a.finish(w, r, p, res.Total, out)
}

// GET /search/users
func (a *API) users(w http.ResponseWriter, r *http.Request) error {
	p, limit, offset, err := window(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	res, err := a.svc.Users(r.Context(), rest.Caller(r), q.Get("q"), q.Get("sort"), q.Get("order"), limit, offset)
	if err != nil {
		return err
	}
	m := matching(r, res.Words)
	out := wire.SearchResult[wire.UserSearchItem]{TotalCount: res.Total, Items: make([]wire.UserSearchItem, 0, len(res.Users))}
	for _, u := range res.Users {
		out.Items = append(out.Items, a.d.URLs.ToUserSearchItem(u, m))
	}
	return a.finish(w, r, p, res.Total, out)
}

// errNoRepository is the 422 of a label search without repository_id.
var errNoRepository error = &model.ValidationError{Errors: []model.FieldError{{Resource: "Search", Field: "repository_id", Code: "missing"}}}

// GET /search/labels
func (a *API) labels(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	raw := q.Get("repository_id")
	if raw == "" {
		return errNoRepository
	}
	repoID, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || repoID <= 0 {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Search", Field: "repository_id", Code: "invalid", Value: raw}}}
	}
	p, limit, offset, err := window(r)
	if err != nil {
		return err
	}
	res, err := a.svc.Labels(r.Context(), rest.Caller(r), repoID, q.Get("q"), q.Get("sort"), q.Get("order"), limit, offset)
	if err != nil {
		return err
	}
	m := matching(r, res.Words)
	out := wire.SearchResult[wire.LabelSearchItem]{TotalCount: res.Total, Items: make([]wire.LabelSearchItem, 0, len(res.Labels))}
	for _, l := range res.Labels {
		out.Items = append(out.Items, a.d.URLs.ToLabelSearchItem(res.Repo, l, m))
	}
	return a.finish(w, r, p, res.Total, out)
}

// GET /search/code
func (a *API) code(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return rest.ErrRequiresAuth // GitHub's code search needs a signed-in caller
	}
	p, limit, offset, err := window(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	res, err := a.svc.Code(r.Context(), c, q.Get("q"), q.Get("sort"), q.Get("order"), limit, offset)
	if err != nil {
		return err
	}
	repoList, err := a.minimal(r, res.Repos, len(res.Hits), func(i int) int64 { return res.Hits[i].File.RepoID })
	if err != nil {
		return err
	}
	m := matching(r, res.Words)
	out := wire.SearchResult[wire.CodeSearchItem]{TotalCount: res.Total, Items: make([]wire.CodeSearchItem, 0, len(res.Hits))}
	for _, h := range res.Hits {
		if v := res.Repos[h.File.RepoID]; v != nil {
			out.Items = append(out.Items, a.d.URLs.ToCodeSearchItem(v.Repo, repoList[h.File.RepoID], h, m))
		}
	}
	return a.finish(w, r, p, res.Total, out)
}

// GET /search/commits
func (a *API) commits(w http.ResponseWriter, r *http.Request) error {
	p, limit, offset, err := window(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	c := rest.Caller(r)
	res, err := a.svc.Commits(r.Context(), c, q.Get("q"), q.Get("sort"), q.Get("order"), limit, offset)
	if err != nil {
		return err
	}
	repoList, err := a.minimal(r, res.Repos, len(res.Commits), func(i int) int64 { return res.Commits[i].RepoID })
	if err != nil {
		return err
	}
	m := matching(r, res.Words)
	out := wire.SearchResult[wire.CommitSearchItem]{TotalCount: res.Total, Items: make([]wire.CommitSearchItem, 0, len(res.Commits))}
	for _, cm := range res.Commits {
		if v := res.Repos[cm.RepoID]; v != nil {
			out.Items = append(out.Items, a.d.URLs.ToCommitSearchItem(v.Repo, repoList[cm.RepoID], cm, res.Accounts, m))
		}
	}
	return a.finish(w, r, p, res.Total, out)
}

// minimal renders the repositories of a page's n items (repoOf gives the
// i-th item's) as minimal-repository objects, in one batch.
func (a *API) minimal(r *http.Request, views map[int64]*store.RepoView, n int, repoOf func(int) int64) (map[int64]wire.MinimalRepository, error) {
	var list []*store.RepoView
	seen := map[int64]bool{}
	for i := 0; i < n; i++ {
		id := repoOf(i)
		if v := views[id]; v != nil && !seen[id] {
			seen[id] = true
			list = append(list, v)
		}
	}
	rendered, err := repos.MinimalList(r.Context(), a.d, rest.Caller(r), list)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]wire.MinimalRepository, len(list))
	for i, v := range list {
		out[v.Repo.ID] = rendered[i]
	}
	return out, nil
}
