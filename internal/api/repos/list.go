package repos

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// sortOrder reads sort and direction: unknown values fall back to the
// default sort, and the direction defaults to asc for full_name and desc
// otherwise.
func sortOrder(q url.Values, def string) (sort string, desc bool) {
	sort = q.Get("sort")
	switch sort {
	case "created", "updated", "pushed", "full_name":
	default:
		sort = def
	}
	switch q.Get("direction") {
	case "asc":
		return sort, false
	case "desc":
		return sort, true
	}
	return sort, sort != "full_name"
}

// GET /user/repos: the repositories the caller owns, collaborates on or
// reaches through an organization.
func (a *API) listForAuthenticatedUser(w http.ResponseWriter, r *http.Request) error {
	if _, err := api.RequireUser(r); err != nil {
		return err
	}
	q := r.URL.Query()
	typ, vis, aff := q.Get("type"), q.Get("visibility"), q.Get("affiliation")
	if typ != "" && (vis != "" || aff != "") {
		return model.Unprocessable("If you specify visibility or affiliation, you cannot specify type.")
	}
	var f store.RepoQuery
	switch typ {
	case "owner":
		f.ViewerOwner = true
	case "member":
		f.ViewerCollaborator, f.ViewerOrgMember = true, true
	case "public", "private":
		f.Visibility = typ
	}
	switch vis {
	case "public", "private":
		f.Visibility = vis
	}
	for _, s := range strings.Split(aff, ",") {
		switch strings.TrimSpace(s) {
		case "owner":
			f.ViewerOwner = true
		case "collaborator":
			f.ViewerCollaborator = true
		case "organization_member":
			f.ViewerOrgMember = true
		}
	}
	if !f.ViewerOwner && !f.ViewerCollaborator && !f.ViewerOrgMember {
		f.ViewerOwner, f.ViewerCollaborator, f.ViewerOrgMember = true, true, true
	}
	var err error
	if f.UpdatedAfter, err = rest.TimeParam(q, "since"); err != nil {
		return err
	}
	if f.UpdatedBefore, err = rest.TimeParam(q, "before"); err != nil {
		return err
	}
	f.Sort, f.Desc = sortOrder(q, "full_name")
	return a.page(w, r, f, shapeRepository)
}

// GET /users/{username}/repos: the account's repositories the caller may see.
func (a *API) listForUser(w http.ResponseWriter, r *http.Request) error {
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var f store.RepoQuery
	switch q.Get("type") {
	case "all":
		f.OwnedBy, f.CollaboratorOf = u.ID, u.ID
	case "member":
		f.CollaboratorOf = u.ID
	default: // owner
		f.OwnedBy = u.ID
	}
	f.Sort, f.Desc = sortOrder(q, "full_name")
	return a.page(w, r, f, shapeMinimal)
}

// GET /orgs/{org}/repos
func (a *API) listForOrg(w http.ResponseWriter, r *http.Request) error {
	org, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	if !org.IsOrg() {
		return rest.ErrNotFound
	}
	q := r.URL.Query()
	f := store.RepoQuery{OwnerID: org.ID}
	switch q.Get("type") {
	case "public", "private":
		f.Visibility = q.Get("type")
	case "forks":
		f.Forks = true
	case "sources":
		f.Sources = true
	case "member":
		f.ViewerCollaborator, f.ViewerOrgMember = true, true
	}
	f.Sort, f.Desc = sortOrder(q, "created")
	return a.page(w, r, f, shapeMinimal)
}

// GET /repositories: every public repository in id order, paginated by since.
func (a *API) listPublic(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	since, _ := strconv.ParseInt(q.Get("since"), 10, 64)
	limit := 100 // GitHub's page size here
	if q.Get("per_page") != "" {
		limit = rest.ParsePage(r).PerPage
	}
	list, err := a.d.Store.R().PublicReposSince(r.Context(), since, limit)
	if err != nil {
		return err
	}
	out := make([]wire.MinimalRepository, 0, len(list))
	for _, v := range list {
		out = append(out, a.d.URLs.ToBareRepository(v.Repo))
	}
	if len(list) > 0 {
		rest.SetSinceLink(w, r, a.d.URLs.API, len(list) == limit, list[len(list)-1].Repo.ID)
	}
	return rest.JSON(w, http.StatusOK, out)
}
