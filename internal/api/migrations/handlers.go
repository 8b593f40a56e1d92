package migrations

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/migrations"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// owner checks the caller and their token, and loads whose migrations the
// request names (the organization, or the caller).
func (a *API) owner(r *http.Request, k kind) (*authz.Caller, *model.Account, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, nil, err
	}
	if err := api.RequireScope(c, k.scope); err != nil {
		return nil, nil, err
	}
	o, err := a.svc.Owner(r.Context(), c, r.PathValue("org"), k.org)
	return c, o, err
}

// base is the collection of the owner's migrations.
func base(k kind, owner *model.Account) string {
	if k.org {
		return "/orgs/" + owner.Login + "/migrations"
	}
	return "/user/migrations"
}

// migration loads the migration of the path.
func (a *API) migration(r *http.Request, k kind) (*authz.Caller, *model.Migration, error) {
	c, o, err := a.owner(r, k)
	if err != nil {
		return nil, nil, err
	}
	id, err := strconv.ParseInt(r.PathValue("migration_id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, nil, model.ErrNotFound
	}
	m, err := a.svc.Get(r.Context(), o, id)
	return c, m, err
}

// excludeRepos reports whether the request asks to leave repositories out
// (exclude=repositories, or exclude[]=repositories).
func excludeRepos(vals []string) bool {
	for _, v := range vals {
		if slices.Contains(strings.Split(v, ","), "repositories") {
			return true
		}
	}
	return false
}

// render writes migrations with their repositories, loaded in one batch.
func (a *API) render(r *http.Request, c *authz.Caller, k kind, list []*model.Migration, withRepos bool) ([]wire.Migration, error) {
	ctx := r.Context()
	byMigration := map[int64][]int64{}
	views := map[int64]wire.Repository{}
	if withRepos && len(list) > 0 {
		ids := make([]int64, len(list))
		for i, m := range list {
			ids[i] = m.ID
		}
		var err error
		if byMigration, err = a.d.Store.R().MigrationRepoIDs(ctx, ids); err != nil {
			return nil, err
		}
		var all []int64
		for _, rs := range byMigration {
			all = append(all, rs...)
		}
		if views, err = a.repositories(r, c, all); err != nil {
			return nil, err
		}
	}
	out := make([]wire.Migration, len(list))
	for i, m := range list {
		var rs []wire.Repository
		for _, id := range byMigration[m.ID] {
			if v, ok := views[id]; ok {
				rs = append(rs, v)
			}
		}
		out[i] = a.d.URLs.ToMigration(m, base(k, m.Owner), rs)
	}
	return out, nil
}

// repositories renders repositories by id for the caller.
func (a *API) repositories(r *http.Request, c *authz.Caller, ids []int64) (map[int64]wire.Repository, error) {
	found, err := a.d.Store.R().ReposByID(r.Context(), ids, c.UserID())
	if err != nil {
		return nil, err
	}
	var views []*store.RepoView
	for _, id := range ids {
		if v := found[id]; v != nil {
			views = append(views, v)
		}
	}
	list, err := repos.RepositoryList(r.Context(), a.d, c, views)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]wire.Repository, len(list))
	for i, v := range views {
		out[v.Repo.ID] = list[i]
	}
	return out, nil
}

type migrationBody struct {
	Repositories []string `json:"repositories"`
	wire.MigrationOptions
	Exclude []string `json:"exclude"`
}

// POST /orgs/{org}/migrations, POST /user/migrations
func (a *API) start(k kind) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, o, err := a.owner(r, k)
		if err != nil {
			return err
		}
		var b migrationBody
		if err := rest.Decode(r, &b); err != nil {
			return err
		}
		m, err := a.svc.Start(r.Context(), c.User.ID, o, svc.Input{Repositories: b.Repositories,
			MigrationOptions: model.MigrationOptions(b.MigrationOptions)})
		if err != nil {
			return err
		}
		out, err := a.render(r, c, k, []*model.Migration{m}, !excludeRepos(b.Exclude))
		if err != nil {
			return err
		}
		if excludeRepos(b.Exclude) {
			out[0].Exclude = []string{"repositories"}
		}
		return rest.JSON(w, http.StatusCreated, out[0])
	}
}

// GET /orgs/{org}/migrations, GET /user/migrations
func (a *API) list(k kind) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, o, err := a.owner(r, k)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.d.Store.R().ListMigrations(r.Context(), o.ID, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		for _, m := range list {
			m.Owner = o
		}
		q := r.URL.Query()
		out, err := a.render(r, c, k, list, !excludeRepos(append(q["exclude"], q["exclude[]"]...)))
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, out)
	}
}

// GET /orgs/{org}/migrations/{migration_id}, GET /user/migrations/{migration_id}
func (a *API) get(k kind) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, m, err := a.migration(r, k)
		if err != nil {
			return err
		}
		q := r.URL.Query()
		out, err := a.render(r, c, k, []*model.Migration{m}, !excludeRepos(append(q["exclude"], q["exclude[]"]...)))
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, out[0])
	}
}

// GET /orgs/{org}/migrations/{migration_id}/repositories,
// GET /user/migrations/{migration_id}/repositories
func (a *API) repos(k kind) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, m, err := a.migration(r, k)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		ids, total, err := a.d.Store.R().ListMigrationRepoIDs(r.Context(), m.ID, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		views, err := a.d.Store.R().ReposByID(r.Context(), ids, c.UserID())
		if err != nil {
			return err
		}
		var list []*store.RepoView
		for _, id := range ids {
			if v := views[id]; v != nil {
				list = append(list, v)
			}
		}
		out, err := repos.MinimalList(r.Context(), a.d, c, list)
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, out)
	}
}

// GET .../migrations/{migration_id}/archive: a redirect to the archive,
// downloadable without credentials for a few minutes.
func (a *API) archive(k kind) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, m, err := a.migration(r, k)
		if err != nil {
			return err
		}
		f, err := a.svc.Archive(m)
		if err != nil {
			return err
		}
		f.Close()
		http.Redirect(w, r, a.archiveURL(m), http.StatusFound)
		return nil
	}
}

func resource(id int64) string { return "migration/" + strconv.FormatInt(id, 10) }

// archiveURL is the signed download URL of a migration's archive.
func (a *API) archiveURL(m *model.Migration) string {
	return fmt.Sprintf("%s/_migrations/%d/%d/archive.tar.gz?token=%s", a.d.URLs.Web, m.OwnerID, m.ID,
		a.sign.Token("migration", m.OwnerID, resource(m.ID), time.Now()))
}

// serveArchive answers a signed download URL with the archive.
func (a *API) serveArchive(w http.ResponseWriter, r *http.Request) error {
	ownerID, err1 := strconv.ParseInt(r.PathValue("owner_id"), 10, 64)
	id, err2 := strconv.ParseInt(r.PathValue("migration_id"), 10, 64)
	if err1 != nil || err2 != nil || !a.sign.Valid(r.URL.Query().Get("token"), "migration", ownerID, resource(id), time.Now()) {
		return model.ErrNotFound
	}
	m, err := a.d.Store.R().MigrationByID(r.Context(), ownerID, id)
	if err != nil {
		return err
	}
	f, err := a.svc.Archive(m)
	if err != nil {
		return err
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/gzip")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=migration-%d.tar.gz", m.ID))
	http.ServeContent(w, r, "", m.UpdatedAt, f)
	return nil
}

// DELETE .../migrations/{migration_id}/archive
func (a *API) deleteArchive(k kind) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, m, err := a.migration(r, k)
		if err != nil {
			return err
		}
		if err := a.svc.DeleteArchive(r.Context(), m); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// DELETE .../migrations/{migration_id}/repos/{repo_name}/lock
func (a *API) unlock(k kind) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, m, err := a.migration(r, k)
		if err != nil {
			return err
		}
		if err := a.svc.Unlock(r.Context(), m, r.PathValue("repo_name")); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}
