// Package activity is the REST adapter of GitHub's Activity category:
// events (the activity service, internal/activity), starring and watching
// (the stars service, internal/stars). It parses requests, calls the
// services and writes GitHub's shapes.
package activity

import (
	"context"
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/activity"
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/stars"
	"github.com/hubd/hubd/internal/store"
)

// API is the activity package.
type API struct {
	d      *api.Deps
	svc    *stars.Service
	events *activity.Service
}

// New makes the package and its services; the activity events consumer
// starts with a serving hubd (one with git storage) once UseHooks gave it
// the webhook payload builder.
func New(d *api.Deps) *API {
	ev := activity.New(d.Store, d.URLs, d.Outbox)
	ev.UseJobs(d.Jobs) // the pruning of events past the 90 days
	return &API{d: d, svc: stars.New(d.Store), events: ev}
}

// UseHooks renders activity events with the webhook service's payloads.
func (a *API) UseHooks(h *hooks.Service) {
	a.events.Render = h.NewRenderer
	if a.d.Git != nil && a.d.Jobs != nil {
		a.events.Start(context.Background())
	}
}

// Events is the activity events service.
func (a *API) Events() *activity.Service { return a.events }

// Service is the stars service (GraphQL's addStar, removeStar and
// viewerHasStarred call it).
func (a *API) Service() *stars.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	star := []string{"public_repo", "repo"}
	watch := []string{"notifications"}
	return []rest.Route{
		// Events
		{Method: "GET", Pattern: "/events", OperationID: "activity/list-public-events", Handler: a.publicEvents},
		{Method: "GET", Pattern: "/networks/{owner}/{repo}/events", OperationID: "activity/list-public-events-for-repo-network", Handler: a.networkEvents},
		{Method: "GET", Pattern: "/orgs/{org}/events", OperationID: "activity/list-public-org-events", Handler: a.orgEvents},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/events", OperationID: "activity/list-repo-events", Handler: a.repoEvents},
		{Method: "GET", Pattern: "/users/{username}/events", OperationID: "activity/list-events-for-authenticated-user", Handler: a.userEvents},
		{Method: "GET", Pattern: "/users/{username}/events/orgs/{org}", OperationID: "activity/list-org-events-for-authenticated-user", Handler: a.userOrgEvents},
		{Method: "GET", Pattern: "/users/{username}/events/public", OperationID: "activity/list-public-events-for-user", Handler: a.userPublicEvents},
		{Method: "GET", Pattern: "/users/{username}/received_events", OperationID: "activity/list-received-events-for-user", Handler: a.receivedEvents},
		{Method: "GET", Pattern: "/users/{username}/received_events/public", OperationID: "activity/list-received-public-events-for-user", Handler: a.receivedPublicEvents},
		// Feeds
		{Method: "GET", Pattern: "/feeds", OperationID: "activity/get-feeds", Handler: a.getFeeds,
			Note: "No security_advisories_url nor repository discussions feeds: hubd keeps no global advisory database and no discussions. " +
				"The private feed URLs (with the user's feed token) are listed for classic and OAuth tokens with the repo scope, where GitHub lists them for password (Basic) authentication only."},
		// Starring
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stargazers", OperationID: "activity/list-stargazers-for-repo", Handler: a.stargazers},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stargazers/count", OperationID: "activity/get-stargazer-count-for-repo", Handler: a.stargazerCount},
		{Method: "GET", Pattern: "/user/starred", OperationID: "activity/list-repos-starred-by-authenticated-user", Handler: a.myStarred},
		{Method: "GET", Pattern: "/user/starred/{owner}/{repo}", OperationID: "activity/check-repo-is-starred-by-authenticated-user", Handler: a.isStarred},
		{Method: "PUT", Pattern: "/user/starred/{owner}/{repo}", OperationID: "activity/star-repo-for-authenticated-user", Handler: a.star, Scopes: star},
		{Method: "DELETE", Pattern: "/user/starred/{owner}/{repo}", OperationID: "activity/unstar-repo-for-authenticated-user", Handler: a.unstar, Scopes: star},
		{Method: "GET", Pattern: "/users/{username}/starred", OperationID: "activity/list-repos-starred-by-user", Handler: a.userStarred},
		// Watching
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/subscribers", OperationID: "activity/list-watchers-for-repo", Handler: a.watchers},
		{Method: "GET", Pattern: "/user/subscriptions", OperationID: "activity/list-watched-repos-for-authenticated-user", Handler: a.myWatched},
		{Method: "GET", Pattern: "/users/{username}/subscriptions", OperationID: "activity/list-repos-watched-by-user", Handler: a.userWatched},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/subscription", OperationID: "activity/get-repo-subscription", Handler: a.getSubscription, Scopes: watch},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/subscription", OperationID: "activity/set-repo-subscription", Handler: a.setSubscription, Scopes: watch},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/subscription", OperationID: "activity/delete-repo-subscription", Handler: a.deleteSubscription, Scopes: watch},
	}
}

// repoIDByPath finds the repository the {owner} and {repo} path values of
// /user/starred/{owner}/{repo} name, or once named (a renamed repository
// is starred under its old name too). Whether the caller may see it is the
// service's to check; a name that never existed is not found.
func (a *API) repoIDByPath(r *http.Request) (int64, error) {
	owner, name := r.PathValue("owner"), r.PathValue("repo")
	if !plausibleName(owner) || !plausibleName(name) {
		return 0, model.ErrNotFound
	}
	ctx := r.Context()
	q := a.d.Store.R()
	v, err := q.RepoByName(ctx, owner, name, rest.Caller(r).UserID())
	if err == nil {
		return v.Repo.ID, nil
	}
	if !errors.Is(err, model.ErrNotFound) {
		return 0, err
	}
	return q.RepoRedirect(ctx, owner, name)
}

// plausibleName keeps path values no login or repository name can have
// (control characters, over 100 bytes) away from the database.
func plausibleName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// user is the account of the {username} path value.
func (a *API) user(r *http.Request) (*model.Account, error) {
	login := r.PathValue("username")
	if !plausibleName(login) {
		return nil, model.ErrNotFound
	}
	return a.d.Store.R().AccountByLogin(r.Context(), login)
}

// repositories renders views as objects of the repository schema (shape
// "repository") or minimal-repository, for caller c, with their counters
// and detected facts loaded in one batch.
func (a *API) repositories(ctx context.Context, c *authz.Caller, views []*store.RepoView, minimal bool) ([]any, error) {
	out := make([]any, 0, len(views))
	if minimal {
		list, err := repos.MinimalList(ctx, a.d, c, views)
		for _, r := range list {
			out = append(out, r)
		}
		return out, err
	}
	list, err := repos.RepositoryList(ctx, a.d, c, views)
	for _, r := range list {
		out = append(out, r)
	}
	return out, err
}
