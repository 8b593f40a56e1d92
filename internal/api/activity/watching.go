package activity

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/stars"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/subscribers
func (a *API) watchers(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Watchers(r.Context(), repo, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.SimpleUser, len(list))
	for i, u := range list {
		out[i] = a.d.URLs.ToSimpleUser(u)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /user/subscriptions
func (a *API) myWatched(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.MyWatched(r.Context(), c, stars.ListQuery{Viewer: api.ViewerOf(c), Limit: p.Limit(), Offset: p.Offset()})
	if err != nil {
		return err
	}
	return a.writeWatched(w, r, p, list, total)
}

// GET /users/{username}/subscriptions
func (a *API) userWatched(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	q := stars.ListQuery{Viewer: api.ViewerOf(rest.Caller(r)), Limit: p.Limit(), Offset: p.Offset()}
	list, total, err := a.svc.Watched(r.Context(), u, q)
	if err != nil {
		return err
	}
	return a.writeWatched(w, r, p, list, total)
}

// writeWatched answers a page of watched repositories as minimal-repository
// objects.
func (a *API) writeWatched(w http.ResponseWriter, r *http.Request, p rest.Page, list []*store.RepoView, total int) error {
	objs, err := a.repositories(r.Context(), rest.Caller(r), list, true)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, objs)
}

// GET /repos/{owner}/{repo}/subscription: 404 when the caller neither
// watches nor ignores the repository.
func (a *API) getSubscription(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	sub, repo, err := a.svc.Subscription(r.Context(), c, repo.ID)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToRepositorySubscription(sub, repo))
}

type subscriptionBody struct {
	Subscribed rest.Opt[bool] `json:"subscribed"`
	Ignored    rest.Opt[bool] `json:"ignored"`
}

// PUT /repos/{owner}/{repo}/subscription
func (a *API) setSubscription(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	var in subscriptionBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	subscribed, _ := in.Subscribed.Get()
	ignored, _ := in.Ignored.Get()
	sub, repo, err := a.svc.SetSubscription(r.Context(), c, repo.ID, subscribed, ignored)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToRepositorySubscription(sub, repo))
}

// DELETE /repos/{owner}/{repo}/subscription
func (a *API) deleteSubscription(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteSubscription(r.Context(), c, repo.ID); err != nil {
		return err
	}
	return rest.NoContent(w)
}
