// Package notifications is the REST adapter of GitHub's notifications
// (the notifications service, internal/notifications): threads, marking
// them read or done, and thread subscriptions.
package notifications

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/notifications"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// API is the notifications package.
type API struct {
	d   *api.Deps
	svc *notifications.Service
}

// New makes the package and its service.
func New(d *api.Deps) *API {
	return &API{d: d, svc: notifications.New(d.Store, d.URLs, d.Outbox, d.Jobs)}
}

// UseHooks makes threads from the webhook service's payloads; the
// consumer starts with a serving hubd (one with git storage).
func (a *API) UseHooks(h *hooks.Service) *API {
	a.svc.Render = h.NewRenderer
	if a.d.Git != nil && a.d.Jobs != nil {
		a.svc.Start(context.Background())
	}
	return a
}

// Service is the notifications service.
func (a *API) Service() *notifications.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	sc := []string{"notifications", "repo"}
	note := "Threads are made for issues, pull requests, releases and commit comments (subject Commit, titled by the short commit id, not its message), " +
		"with reasons assign, author, comment, mention (edits notify only the mentions they add), team_mention, review_requested, state_change, subscribed, " +
		"and ci_activity (subject CheckSuite) for a failed workflow run the user triggered (GitHub's default: failed runs only; no per-user setting); " +
		"discussions, security alerts, invitations and a commit's author are not notified yet."
	return []rest.Route{
		{Method: "GET", Pattern: "/notifications", OperationID: "activity/list-notifications-for-authenticated-user", Handler: a.list, Scopes: sc, Note: note},
		{Method: "PUT", Pattern: "/notifications", OperationID: "activity/mark-notifications-as-read", Handler: a.markAll, Scopes: sc},
		{Method: "GET", Pattern: "/notifications/threads/{thread_id}", OperationID: "activity/get-thread", Handler: a.get, Scopes: sc},
		{Method: "PATCH", Pattern: "/notifications/threads/{thread_id}", OperationID: "activity/mark-thread-as-read", Handler: a.markRead, Scopes: sc},
		{Method: "DELETE", Pattern: "/notifications/threads/{thread_id}", OperationID: "activity/mark-thread-as-done", Handler: a.markDone, Scopes: sc},
		{Method: "GET", Pattern: "/notifications/threads/{thread_id}/subscription", OperationID: "activity/get-thread-subscription-for-authenticated-user", Handler: a.getSub, Scopes: sc},
		{Method: "PUT", Pattern: "/notifications/threads/{thread_id}/subscription", OperationID: "activity/set-thread-subscription", Handler: a.setSub, Scopes: sc},
		{Method: "DELETE", Pattern: "/notifications/threads/{thread_id}/subscription", OperationID: "activity/delete-thread-subscription", Handler: a.deleteSub, Scopes: sc},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/notifications", OperationID: "activity/list-repo-notifications-for-authenticated-user", Handler: a.listRepo, Scopes: sc, Note: note},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/notifications", OperationID: "activity/mark-repo-notifications-as-read", Handler: a.markRepo, Scopes: sc},
	}
}

// Thread is GitHub's thread object.
type Thread struct {
	ID              string                 `json:"id"`
	Repository      wire.MinimalRepository `json:"repository"`
	Subject         Subject                `json:"subject"`
	Reason          string                 `json:"reason"`
	Unread          bool                   `json:"unread"`
	UpdatedAt       string                 `json:"updated_at"`
	LastReadAt      *string                `json:"last_read_at"`
	URL             string                 `json:"url"`
	SubscriptionURL string                 `json:"subscription_url"`
}

// Subject is a thread's subject.
type Subject struct {
	Title            string `json:"title"`
	URL              string `json:"url"`
	LatestCommentURL string `json:"latest_comment_url"`
	Type             string `json:"type"`
}

// Subscription is GitHub's thread-subscription object.
type Subscription struct {
	Subscribed bool    `json:"subscribed"`
	Ignored    bool    `json:"ignored"`
	Reason     *string `json:"reason"`
	CreatedAt  *string `json:"created_at"`
	URL        string  `json:"url"`
	ThreadURL  string  `json:"thread_url"`
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (a *API) threadURL(id int64) string {
	return a.d.URLs.API + "/notifications/threads/" + strconv.FormatInt(id, 10)
}

// render renders threads with their repositories loaded in one batch.
func (a *API) render(ctx context.Context, c *authz.Caller, list []*store.Thread) ([]Thread, error) {
	var ids []int64
	for _, t := range list {
		ids = append(ids, t.RepoID)
	}
	q := a.d.Store.R()
	views, err := q.ReposByID(ctx, ids, c.UserID())
	if err != nil {
		return nil, err
	}
	facts, err := q.RepoFacts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Thread, 0, len(list))
	for _, t := range list {
		v := views[t.RepoID]
		if v == nil {
			continue // deleted meanwhile
		}
		access := wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: true}
		th := Thread{ID: strconv.FormatInt(t.ID, 10),
			Repository: a.d.URLs.ToMinimalRepository(v.Repo, repos.Counts(a.d, v.Repo, facts[v.Repo.ID]), access),
			Subject:    Subject{Title: t.Title, URL: t.SubjectURL, LatestCommentURL: t.LatestCommentURL, Type: t.SubjectType},
			Reason:     t.Reason, Unread: t.Unread, UpdatedAt: stamp(t.UpdatedAt),
			URL: a.threadURL(t.ID), SubscriptionURL: a.threadURL(t.ID) + "/subscription"}
		if t.LastReadAt != nil {
			s := stamp(*t.LastReadAt)
			th.LastReadAt = &s
		}
		out = append(out, th)
	}
	return out, nil
}

func boolParam(r *http.Request, name string) bool { return r.URL.Query().Get(name) == "true" }

// GET /notifications
func (a *API) list(w http.ResponseWriter, r *http.Request) error { return a.writeList(w, r, 0) }

// GET /repos/{owner}/{repo}/notifications
func (a *API) listRepo(w http.ResponseWriter, r *http.Request) error {
	if err := a.userFirst(r); err != nil {
		return err
	}
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	return a.writeList(w, r, repo.ID)
}

// userFirst answers 401 before the repository is looked up.
func (a *API) userFirst(r *http.Request) error {
	if !rest.Caller(r).Authenticated() {
		return notifications.ErrRequiresAuth
	}
	return nil
}

// writeList answers a page of the caller's threads with GitHub's polling
// headers: Last-Modified (the latest update listed) and 304 when it is
// not after If-Modified-Since.
func (a *API) writeList(w http.ResponseWriter, r *http.Request, repoID int64) error {
	c := rest.Caller(r)
	q := r.URL.Query()
	since, err := rest.TimeParam(q, "since")
	if err != nil {
		return err
	}
	before, err := rest.TimeParam(q, "before")
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	f := notifications.ListQuery{Viewer: api.ViewerOf(c), RepoID: repoID, All: boolParam(r, "all"),
		Participating: boolParam(r, "participating"), Since: since, Before: before, Limit: p.Limit(), Offset: p.Offset()}
	list, total, last, err := a.svc.List(r.Context(), c, f)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("X-Poll-Interval", "60")
	if !last.IsZero() {
		h.Set("Last-Modified", last.UTC().Format(http.TimeFormat))
		if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !last.After(ims) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	out, err := a.render(r.Context(), c, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

type markInput struct {
	LastReadAt *string `json:"last_read_at"`
	Read       *bool   `json:"read"`
}

// PUT /notifications
func (a *API) markAll(w http.ResponseWriter, r *http.Request) error { return a.mark(w, r, 0) }

// PUT /repos/{owner}/{repo}/notifications
func (a *API) markRepo(w http.ResponseWriter, r *http.Request) error {
	if err := a.userFirst(r); err != nil {
		return err
	}
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	return a.mark(w, r, repo.ID)
}

// mark marks threads read up to last_read_at (now when absent) and
// answers 205 Reset Content, or 202 with GitHub's message when there were
// too many for one request and a job marks the rest. read: false changes
// nothing.
func (a *API) mark(w http.ResponseWriter, r *http.Request, repoID int64) error {
	var in markInput
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	at := a.d.Store.R().Now()
	if in.LastReadAt != nil && *in.LastReadAt != "" {
		t, err := time.Parse(time.RFC3339, *in.LastReadAt)
		if err != nil {
			return model.Unprocessable("Invalid value for 'last_read_at': use ISO 8601 format, YYYY-MM-DDTHH:MM:SSZ.")
		}
		at = t
	}
	c := rest.Caller(r)
	queued, err := a.svc.MarkRead(r.Context(), c, repoID, at, in.Read == nil || *in.Read)
	if err != nil {
		return err
	}
	if queued {
		return rest.JSON(w, http.StatusAccepted, map[string]string{"message": "Unread notifications couldn't be marked in a single request. Notifications are being marked as read in the background."})
	}
	w.WriteHeader(http.StatusResetContent)
	return nil
}

// threadID is the {thread_id} path value (404 when it is no id).
func threadID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("thread_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// GET /notifications/threads/{thread_id}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	id, err := threadID(r)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	t, err := a.svc.Thread(r.Context(), c, api.ViewerOf(c), id)
	if err != nil {
		return err
	}
	out, err := a.render(r.Context(), c, []*store.Thread{t})
	if err != nil {
		return err
	}
	if len(out) == 0 {
		return model.ErrNotFound
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

// PATCH /notifications/threads/{thread_id}: 205.
func (a *API) markRead(w http.ResponseWriter, r *http.Request) error {
	return a.markThread(w, r, false, http.StatusResetContent)
}

// DELETE /notifications/threads/{thread_id}: done, 204.
func (a *API) markDone(w http.ResponseWriter, r *http.Request) error {
	return a.markThread(w, r, true, http.StatusNoContent)
}

func (a *API) markThread(w http.ResponseWriter, r *http.Request, done bool, status int) error {
	id, err := threadID(r)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	if err := a.svc.MarkThread(r.Context(), c, api.ViewerOf(c), id, done); err != nil {
		return err
	}
	w.WriteHeader(status)
	return nil
}

func (a *API) subscription(t *store.Thread) Subscription {
	s := Subscription{Subscribed: t.Sub == "subscribed", Ignored: t.Sub == "ignored",
		URL: a.threadURL(t.ID) + "/subscription", ThreadURL: a.threadURL(t.ID)}
	if t.SubAt != nil {
		at := stamp(*t.SubAt)
		s.CreatedAt = &at
	}
	return s
}

// GET /notifications/threads/{thread_id}/subscription
func (a *API) getSub(w http.ResponseWriter, r *http.Request) error {
	id, err := threadID(r)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	t, err := a.svc.Subscription(r.Context(), c, api.ViewerOf(c), id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.subscription(t))
}

// PUT /notifications/threads/{thread_id}/subscription
func (a *API) setSub(w http.ResponseWriter, r *http.Request) error {
	id, err := threadID(r)
	if err != nil {
		return err
	}
	var in struct {
		Ignored bool `json:"ignored"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	c := rest.Caller(r)
	t, err := a.svc.SetSubscription(r.Context(), c, api.ViewerOf(c), id, in.Ignored)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.subscription(t))
}

// DELETE /notifications/threads/{thread_id}/subscription
func (a *API) deleteSub(w http.ResponseWriter, r *http.Request) error {
	id, err := threadID(r)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	if err := a.svc.DeleteSubscription(r.Context(), c, api.ViewerOf(c), id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
