package hooks

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// scope finds the target of a request and checks that the caller may
// manage its hooks (write: change them).
type scope func(a *API, r *http.Request, write bool) (svc.Target, *authz.Caller, error)

// tokenMay checks the token's part: a classic or OAuth token needs one of
// scopes (without them the hooks are hidden, 404), the other kinds the
// fine-grained permission perm at level.
func tokenMay(c *authz.Caller, perm string, write bool, scopes ...string) error {
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		for _, s := range scopes {
			if c.HasScope(s) {
				return nil
			}
		}
		return model.ErrNotFound
	}
	got := c.Permissions[perm]
	if got == "write" || got == "admin" || !write && got == "read" {
		return nil
	}
	if c.Kind == authz.FineGrained {
		return model.Forbidden("Resource not accessible by personal access token")
	}
	return model.Forbidden("Resource not accessible by integration")
}

// repoScope: the repository of the path; its administrators manage its
// hooks. A classic token needs a repo hook scope or repo (the hook scopes
// reach public and private repositories alike, so they stand in for repo
// here); other tokens the repository_hooks permission.
func repoScope(a *API, r *http.Request, write bool) (svc.Target, *authz.Caller, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return svc.Target{}, nil, rest.ErrRequiresAuth
	}
	eff := c
	if c.Kind == authz.ClassicPAT || c.Kind == authz.OAuthApp {
		scopes := []string{"read:repo_hook", "repo"}
		if write {
			scopes = []string{"write:repo_hook", "repo"}
			if r.Method == http.MethodDelete {
				scopes = []string{"admin:repo_hook", "repo"}
			}
		}
		if err := tokenMay(c, "", write, scopes...); err != nil {
			return svc.Target{}, nil, err
		}
		if !c.Scopes.Has("repo") {
			widened := *c
			widened.Scopes = authz.Scopes{"repo": true}
			eff = &widened
		}
	}
	ctx := r.Context()
	v, err := a.d.Store.R().RepoByName(ctx, r.PathValue("owner"), r.PathValue("repo"), c.UserID())
	if errors.Is(err, model.ErrNotFound) {
		// A renamed repository redirects, as everywhere.
		_, _, err := a.d.Repo(r, authz.Admin)
		if err == nil {
			err = model.ErrNotFound
		}
		return svc.Target{}, nil, err
	}
	if err != nil {
		return svc.Target{}, nil, err
	}
	// The one resolver (classic tokens with their hook scopes widened to
	// repo above): a token's writes outside its grant are refused first.
	if _, err := authz.Authorize(eff, v.Repo, v.Facts, rest.From(r).Writes, authz.Admin); err != nil {
		return svc.Target{}, nil, err
	}
	if c.Kind != authz.ClassicPAT && c.Kind != authz.OAuthApp {
		if err := tokenMay(c, "repository_hooks", write); err != nil {
			return svc.Target{}, nil, err
		}
	}
	return svc.Target{Repo: v.Repo}, c, nil
}

// orgScope: the organization of the path; its owners manage its hooks,
// and everyone else finds none.
func orgScope(a *API, r *http.Request, write bool) (svc.Target, *authz.Caller, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return svc.Target{}, nil, err
	}
	ctx := r.Context()
	org, err := a.d.Store.R().OrgByLogin(ctx, r.PathValue("org"))
	if err != nil {
		return svc.Target{}, nil, err
	}
	m, err := a.d.Store.R().Membership(ctx, org.ID, c.UserID())
	if err != nil && !errors.Is(err, model.ErrNotFound) {
		return svc.Target{}, nil, err
	}
	if m == nil || m.Role != model.RoleAdmin || m.State != "active" {
		if c.SiteAdmin() {
			return svc.Target{}, nil, model.Forbidden("Must be an organization owner.")
		}
		return svc.Target{}, nil, model.ErrNotFound
	}
	if err := tokenMay(c, "organization_hooks", write, "admin:org_hook"); err != nil {
		return svc.Target{}, nil, err
	}
	return svc.Target{Org: org}, c, nil
}

// hook resolves the scope and the {hook_id} of a request on one hook.
func (sc scope) hook(a *API, r *http.Request, write bool) (svc.Target, *authz.Caller, int64, error) {
	t, c, err := sc(a, r, write)
	if err != nil {
		return t, nil, 0, err
	}
	id, err := pathID(r, "hook_id")
	return t, c, id, err
}

func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

func (a *API) render(t svc.Target, h *model.Hook) wire.Hook {
	return a.d.URLs.ToHook(t.Repo, t.Org, h)
}

// configBody is a config as sent: insecure_ssl may be a string or a
// number.
type configBody struct {
	URL         *string         `json:"url"`
	ContentType *string         `json:"content_type"`
	Secret      *string         `json:"secret"`
	InsecureSSL json.RawMessage `json:"insecure_ssl"`
}

func (b *configBody) input() (*svc.ConfigInput, error) {
	in := &svc.ConfigInput{URL: b.URL, ContentType: b.ContentType, Secret: b.Secret}
	raw := strings.TrimSpace(string(b.InsecureSSL))
	if raw != "" && raw != "null" {
		var s string
		if err := json.Unmarshal(b.InsecureSSL, &s); err != nil {
			var n json.Number
			if err := json.Unmarshal(b.InsecureSSL, &n); err != nil {
				return nil, model.Invalid("Hook", "insecure_ssl", "invalid")
			}
			s = n.String()
		}
		in.InsecureSSL = &s
	}
	return in, nil
}

type hookBody struct {
	Name         *string     `json:"name"`
	Config       *configBody `json:"config"`
	Events       *[]string   `json:"events"`
	AddEvents    []string    `json:"add_events"`
	RemoveEvents []string    `json:"remove_events"`
	Active       *bool       `json:"active"`
}

func decodeHook(r *http.Request) (svc.Input, error) {
	var b hookBody
	if err := rest.Decode(r, &b); err != nil {
		return svc.Input{}, err
	}
	in := svc.Input{Name: b.Name, Events: b.Events, AddEvents: b.AddEvents, RemoveEvents: b.RemoveEvents, Active: b.Active}
	if b.Config != nil {
		c, err := b.Config.input()
		if err != nil {
			return svc.Input{}, err
		}
		in.Config = c
	}
	return in, nil
}

// GET /repos/{owner}/{repo}/hooks, GET /orgs/{org}/hooks
func (a *API) list(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, _, err := sc(a, r, false)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.svc.List(r.Context(), t, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		out := make([]wire.Hook, len(list))
		for i, h := range list {
			out[i] = a.render(t, h)
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, out)
	}
}

// POST /repos/{owner}/{repo}/hooks, POST /orgs/{org}/hooks
func (a *API) create(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, c, err := sc(a, r, true)
		if err != nil {
			return err
		}
		in, err := decodeHook(r)
		if err != nil {
			return err
		}
		h, err := a.svc.Create(r.Context(), t, c.User, in)
		if err != nil {
			return err
		}
		out := a.render(t, h)
		w.Header().Set("Location", out.URL)
		return rest.JSON(w, http.StatusCreated, out)
	}
}

// GET .../hooks/{hook_id}
func (a *API) get(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, _, id, err := sc.hook(a, r, false)
		if err != nil {
			return err
		}
		h, err := a.svc.Get(r.Context(), t, id)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.render(t, h))
	}
}

// PATCH .../hooks/{hook_id}
func (a *API) update(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, c, id, err := sc.hook(a, r, true)
		if err != nil {
			return err
		}
		if _, err := a.svc.Get(r.Context(), t, id); err != nil {
			return err
		}
		in, err := decodeHook(r)
		if err != nil {
			return err
		}
		h, err := a.svc.Update(r.Context(), t, c.User, id, in)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.render(t, h))
	}
}

// DELETE .../hooks/{hook_id}
func (a *API) delete(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, c, id, err := sc.hook(a, r, true)
		if err != nil {
			return err
		}
		if err := a.svc.Delete(r.Context(), t, c.User, id); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// GET .../hooks/{hook_id}/config
func (a *API) getConfig(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, _, id, err := sc.hook(a, r, false)
		if err != nil {
			return err
		}
		h, err := a.svc.Get(r.Context(), t, id)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, wire.ToHookConfig(h))
	}
}

// PATCH .../hooks/{hook_id}/config
func (a *API) updateConfig(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, c, id, err := sc.hook(a, r, true)
		if err != nil {
			return err
		}
		if _, err := a.svc.Get(r.Context(), t, id); err != nil {
			return err
		}
		var b configBody
		if err := rest.Decode(r, &b); err != nil {
			return err
		}
		in, err := b.input()
		if err != nil {
			return err
		}
		h, err := a.svc.UpdateConfig(r.Context(), t, c.User, id, *in)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, wire.ToHookConfig(h))
	}
}

// cursorPrefix starts the cursors of delivery lists (opaque to clients).
const cursorPrefix = "v1_"

// GET .../hooks/{hook_id}/deliveries: newest first, cursor paginated.
func (a *API) deliveries(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, _, id, err := sc.hook(a, r, false)
		if err != nil {
			return err
		}
		return a.listDeliveries(w, r, t, id)
	}
}

// listDeliveries writes a page of a hook's deliveries with the cursor of
// the next page in Link.
func (a *API) listDeliveries(w http.ResponseWriter, r *http.Request, t svc.Target, id int64) error {
	q := r.URL.Query()
	per := 30
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		per = min(v, 100)
	}
	var before int64
	if cur := q.Get("cursor"); cur != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(cur, cursorPrefix), 10, 64)
		if err != nil || !strings.HasPrefix(cur, cursorPrefix) || n <= 0 {
			return model.BadRequest("Invalid cursor")
		}
		before = n
	}
	status := q.Get("status")
	if status != "" && status != "success" && status != "failure" {
		return model.Invalid("Delivery", "status", "invalid")
	}
	list, more, err := a.svc.Deliveries(r.Context(), t, id, before, status, per)
	if err != nil {
		return err
	}
	out := make([]wire.HookDeliveryItem, len(list))
	for i, d := range list {
		out[i] = wire.ToHookDeliveryItem(d)
	}
	if more {
		q.Set("cursor", cursorPrefix+strconv.FormatInt(list[len(list)-1].ID, 10))
		q.Set("per_page", strconv.Itoa(per))
		u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		w.Header().Set("Link", "<"+a.d.URLs.API+u.String()+`>; rel="next"`)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET .../hooks/{hook_id}/deliveries/{delivery_id}
func (a *API) delivery(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, _, id, err := sc.hook(a, r, false)
		if err != nil {
			return err
		}
		did, err := pathID(r, "delivery_id")
		if err != nil {
			return err
		}
		h, d, err := a.svc.Delivery(r.Context(), t, id, did)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, wire.ToHookDelivery(d, h.URL))
	}
}

// POST .../hooks/{hook_id}/deliveries/{delivery_id}/attempts: 202.
func (a *API) redeliver(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, _, id, err := sc.hook(a, r, true)
		if err != nil {
			return err
		}
		did, err := pathID(r, "delivery_id")
		if err != nil {
			return err
		}
		if err := a.svc.Redeliver(r.Context(), t, id, did); err != nil {
			return err
		}
		return rest.JSON(w, http.StatusAccepted, struct{}{})
	}
}

// POST .../hooks/{hook_id}/pings: 204, a ping is queued.
func (a *API) ping(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, c, id, err := sc.hook(a, r, true)
		if err != nil {
			return err
		}
		if err := a.svc.Ping(r.Context(), t, c.User, id); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// POST /repos/{owner}/{repo}/hooks/{hook_id}/tests: 204; the latest push
// is queued when the hook wants pushes.
func (a *API) test(w http.ResponseWriter, r *http.Request) error {
	t, c, err := repoScope(a, r, true)
	if err != nil {
		return err
	}
	id, err := pathID(r, "hook_id")
	if err != nil {
		return err
	}
	if err := a.svc.Test(r.Context(), t, c.User, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
