package activity

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// writeEvents answers a page of f's events with GitHub's polling header.
func (a *API) writeEvents(w http.ResponseWriter, r *http.Request, f store.ActivityQuery) error {
	p := rest.ParsePage(r)
	page, err := a.events.List(r.Context(), f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, page.Total)
	h := w.Header()
	h.Set("X-Poll-Interval", "60")
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(page.Body)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(page.Body)
	return err
}

// viewer limits private events to the repositories the caller can read.
func viewer(c *authz.Caller) *store.RepoQuery {
	return &store.RepoQuery{Viewer: api.ViewerOf(c), ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true}
}

// GET /events: public events.
func (a *API) publicEvents(w http.ResponseWriter, r *http.Request) error {
	return a.writeEvents(w, r, store.ActivityQuery{PublicOnly: true})
}

// GET /repos/{owner}/{repo}/events
func (a *API) repoEvents(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	return a.writeEvents(w, r, store.ActivityQuery{RepoIDs: []int64{repo.ID}})
}

// GET /networks/{owner}/{repo}/events: the public events of the fork
// network of a repository the caller can see.
func (a *API) networkEvents(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	root := repo.ID
	if repo.SourceID != 0 {
		root = repo.SourceID
	}
	return a.writeEvents(w, r, store.ActivityQuery{NetworkOf: root, PublicOnly: true})
}

// GET /orgs/{org}/events: the organization's public events.
func (a *API) orgEvents(w http.ResponseWriter, r *http.Request) error {
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	return a.writeEvents(w, r, store.ActivityQuery{OrgID: org.ID, PublicOnly: true})
}

// self reports whether the caller is u (who then sees u's private events
// in the repositories they can read).
func self(c *authz.Caller, u *model.Account) bool {
	return c.Authenticated() && c.UserID() == u.ID
}

// GET /users/{username}/events: the user's events; private ones only to
// the user.
func (a *API) userEvents(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r)
	if err != nil {
		return err
	}
	f := store.ActivityQuery{ActorID: u.ID, PublicOnly: true}
	if c := rest.Caller(r); self(c, u) {
		f.PublicOnly, f.Viewer = false, viewer(c)
	}
	return a.writeEvents(w, r, f)
}

// GET /users/{username}/events/public
func (a *API) userPublicEvents(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r)
	if err != nil {
		return err
	}
	return a.writeEvents(w, r, store.ActivityQuery{ActorID: u.ID, PublicOnly: true})
}

// GET /users/{username}/events/orgs/{org}: the user's organization
// dashboard, for the user alone (a member of the organization).
func (a *API) userOrgEvents(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	q := a.d.Store.R()
	org, err := q.OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	if !self(c, u) {
		return model.ErrNotFound
	}
	if err := a.activeMember(r.Context(), org.ID, u.ID); err != nil {
		return err
	}
	return a.writeEvents(w, r, store.ActivityQuery{OrgID: org.ID, Viewer: viewer(c)})
}

// activeMember is nil when the user is an active member of the
// organization, else not found (their organization feeds do not exist).
func (a *API) activeMember(ctx context.Context, orgID, userID int64) error {
	m, err := a.d.Store.R().Membership(ctx, orgID, userID)
	if err == nil && m.State != store.StateActive {
		err = model.ErrNotFound
	}
	return err
}

// GET /users/{username}/received_events: events of the repositories the
// user watches; private ones only to the user.
func (a *API) receivedEvents(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r)
	if err != nil {
		return err
	}
	f := store.ActivityQuery{ReceivedBy: u.ID, PublicOnly: true}
	if c := rest.Caller(r); self(c, u) {
		f.PublicOnly, f.Viewer = false, viewer(c)
	}
	return a.writeEvents(w, r, f)
}

// GET /users/{username}/received_events/public
func (a *API) receivedPublicEvents(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r)
	if err != nil {
		return err
	}
	return a.writeEvents(w, r, store.ActivityQuery{ReceivedBy: u.ID, PublicOnly: true})
}
