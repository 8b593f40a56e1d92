// Package oauth is the REST adapter of the user authorization service
// (internal/oauth): the /applications/{client_id}/... operations an OAuth
// app or a GitHub App calls with its client id and secret, and hubd's
// site-administration routes that register OAuth apps and set a user's
// password for the web sign-in. The flow pages themselves are served by
// internal/oauthweb.
package oauth

import (
	"errors"
	"net/http"
	"sort"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/oauth"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package and its service; revoked tokens leave the
// authentication cache at once.
func New(d *api.Deps) *API {
	return &API{d: d, svc: &svc.Service{Store: d.Store, Revoked: func() {
		if d.Tokens != nil {
			d.Tokens.Flush()
		}
	}}}
}

// Service is the authorization service.
func (a *API) Service() *svc.Service { return a.svc }

// Clients authenticates a client's id and secret (server.Server.Clients).
func (a *API) Clients(r *http.Request, id, secret string) (*authz.Caller, bool, error) {
	return a.svc.Caller(r.Context(), id, secret)
}

// noteScope says what apps/scope-token answers differently.
const noteScope = "The answer's installation is null (GitHub describes the scoped installation there); the scoped token works as described, narrowed to the target's installation, its repositories and permissions."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	const tok = "/applications/{client_id}/token"
	site := []string{"site_admin"}
	return []rest.Route{
		{Method: "POST", Pattern: tok, OperationID: "apps/check-token", Handler: a.check, Scopes: []string{}},
		{Method: "PATCH", Pattern: tok, OperationID: "apps/reset-token", Handler: a.reset, Scopes: []string{}},
		{Method: "DELETE", Pattern: tok, OperationID: "apps/delete-token", Handler: a.deleteToken, Scopes: []string{}},
		{Method: "POST", Pattern: tok + "/scoped", OperationID: "apps/scope-token", Handler: a.scope, Scopes: []string{}, Note: noteScope},
		{Method: "DELETE", Pattern: "/applications/{client_id}/grant", OperationID: "apps/delete-authorization", Handler: a.deleteGrant, Scopes: []string{}},

		// hubd's own site administration: GitHub registers OAuth apps and
		// sets passwords in its web interface, which hubd does not have.
		{Method: "POST", Pattern: "/admin/oauth-apps", OperationID: "hubd/create-oauth-app", Handler: a.adminCreate, Scopes: site, Extension: true},
		{Method: "GET", Pattern: "/admin/oauth-apps", OperationID: "hubd/list-oauth-apps", Handler: a.adminList, Scopes: site, Extension: true},
		{Method: "GET", Pattern: "/admin/oauth-apps/{client_id}", OperationID: "hubd/get-oauth-app", Handler: a.adminGet, Scopes: site, Extension: true},
		{Method: "DELETE", Pattern: "/admin/oauth-apps/{client_id}", OperationID: "hubd/delete-oauth-app", Handler: a.adminDelete, Scopes: site, Extension: true},
		{Method: "PUT", Pattern: "/admin/users/{username}/password", OperationID: "hubd/set-user-password", Handler: a.adminPassword, Scopes: site, Extension: true},
	}
}

// client is the client calling with its id and secret for the path's
// client id: 401 without them, 404 for another client's path.
func (a *API) client(r *http.Request) (*model.OAuthClient, error) {
	c := rest.Caller(r)
	if c.Kind != authz.ClientCredentials {
		if c.Authenticated() {
			return nil, rest.ErrNotFound
		}
		return nil, rest.ErrRequiresAuth
	}
	if c.ClientID != r.PathValue("client_id") {
		return nil, rest.ErrNotFound
	}
	return a.svc.Client(r.Context(), c.ClientID)
}

type tokenBody struct {
	AccessToken *string `json:"access_token"`
}

// clientToken is the calling client and the access_token of the body.
func (a *API) clientToken(r *http.Request) (*model.OAuthClient, string, error) {
	c, err := a.client(r)
	if err != nil {
		return nil, "", err
	}
	tok, err := a.body(r)
	return c, tok, err
}

func (a *API) body(r *http.Request) (string, error) {
	var in tokenBody
	if err := rest.Decode(r, &in); err != nil {
		return "", err
	}
	if in.AccessToken == nil || *in.AccessToken == "" {
		return "", model.Invalid("Authorization", "access_token", "missing_field")
	}
	return *in.AccessToken, nil
}

// authorization is the authorization object of a client's token; plain is
// the token (GitHub shows it to the client that holds it).
func (a *API) authorization(c *model.OAuthClient, t *store.ClientToken, u *model.Account, plain string) wire.Authorization {
	last, hashed := t.LastEight, store.HashToken(plain)
	user := a.d.URLs.ToSimpleUser(u)
	created := wire.Time(t.CreatedAt)
	scopes := make([]string, 0, len(t.Scopes))
	for s := range t.Scopes {
		scopes = append(scopes, s)
	}
	sort.Strings(scopes)
	return wire.Authorization{ID: t.ID, URL: a.d.URLs.API + "/authorizations/" + strconv.FormatInt(t.ID, 10), Scopes: scopes,
		Token: plain, TokenLastEight: &last, HashedToken: &hashed,
		App:       wire.AuthorizationApp{ClientID: c.ClientID, Name: c.Name, URL: c.URL},
		CreatedAt: created, UpdatedAt: created, User: &user, ExpiresAt: wire.TimePtr(t.ExpiresAt)}
}

// POST /applications/{client_id}/token
func (a *API) check(w http.ResponseWriter, r *http.Request) error {
	c, tok, err := a.clientToken(r)
	if err != nil {
		return err
	}
	t, u, err := a.svc.CheckToken(r.Context(), c, tok)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.authorization(c, t, u, tok))
}

// PATCH /applications/{client_id}/token
func (a *API) reset(w http.ResponseWriter, r *http.Request) error {
	c, tok, err := a.clientToken(r)
	if err != nil {
		return err
	}
	t, u, plain, err := a.svc.ResetToken(r.Context(), c, tok)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.authorization(c, t, u, plain))
}

// DELETE /applications/{client_id}/token
func (a *API) deleteToken(w http.ResponseWriter, r *http.Request) error {
	c, tok, err := a.clientToken(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteToken(r.Context(), c, tok); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /applications/{client_id}/grant
func (a *API) deleteGrant(w http.ResponseWriter, r *http.Request) error {
	c, tok, err := a.clientToken(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteGrant(r.Context(), c, tok); err != nil {
		return err
	}
	return rest.NoContent(w)
}

type scopeBody struct {
	AccessToken   *string           `json:"access_token"`
	Target        string            `json:"target"`
	TargetID      int64             `json:"target_id"`
	Repositories  []string          `json:"repositories"`
	RepositoryIDs []int64           `json:"repository_ids"`
	Permissions   map[string]string `json:"permissions"`
}

// POST /applications/{client_id}/token/scoped
func (a *API) scope(w http.ResponseWriter, r *http.Request) error {
	c, err := a.client(r)
	if err != nil {
		return err
	}
	var in scopeBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.AccessToken == nil || *in.AccessToken == "" {
		return model.Invalid("Authorization", "access_token", "missing_field")
	}
	t, u, plain, _, err := a.svc.ScopeToken(r.Context(), c, svc.ScopeRequest{AccessToken: *in.AccessToken, Target: in.Target, TargetID: in.TargetID,
		Repositories: in.Repositories, RepositoryIDs: in.RepositoryIDs, Permissions: in.Permissions})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.authorization(c, t, u, plain))
}

type createBody struct {
	Owner       *string `json:"owner"`
	Name        *string `json:"name"`
	URL         string  `json:"url"`
	CallbackURL string  `json:"callback_url"`
	DeviceFlow  bool    `json:"device_flow"`
}

// createdApp is the answer of POST /admin/oauth-apps: the app and its
// secret, shown once.
type createdApp struct {
	ID           int64            `json:"id"`
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret"`
	Name         string           `json:"name"`
	URL          string           `json:"url"`
	CallbackURL  string           `json:"callback_url"`
	DeviceFlow   bool             `json:"device_flow"`
	Owner        *wire.SimpleUser `json:"owner"`
}

// POST /admin/oauth-apps: a site administrator registers an OAuth app.
func (a *API) adminCreate(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	var in createBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Owner == nil || *in.Owner == "" {
		return model.Invalid("OauthApplication", "owner", "missing_field")
	}
	if in.Name == nil {
		return model.Invalid("OauthApplication", "name", "missing_field")
	}
	owner, err := a.d.Store.R().AccountByLogin(r.Context(), *in.Owner)
	if errors.Is(err, model.ErrNotFound) {
		return model.Invalid("OauthApplication", "owner", "invalid")
	}
	if err != nil {
		return err
	}
	app, secret, err := a.svc.CreateApp(r.Context(), c.UserID(), svc.CreateInput{Owner: owner, Name: *in.Name, URL: in.URL,
		CallbackURL: in.CallbackURL, DeviceFlow: in.DeviceFlow})
	if err != nil {
		return err
	}
	o := a.d.URLs.ToSimpleUser(owner)
	return rest.JSON(w, http.StatusCreated, createdApp{ID: app.OAuthAppID, ClientID: app.ClientID, ClientSecret: secret, Name: app.Name,
		URL: app.URL, CallbackURL: app.CallbackURL, DeviceFlow: app.DeviceFlow, Owner: &o})
}

// oauthApp is an OAuth app as the admin routes show it (no secret).
type oauthApp struct {
	ID          int64            `json:"id"`
	ClientID    string           `json:"client_id"`
	Name        string           `json:"name"`
	URL         string           `json:"url"`
	CallbackURL string           `json:"callback_url"`
	DeviceFlow  bool             `json:"device_flow"`
	Owner       *wire.SimpleUser `json:"owner"`
	CreatedAt   string           `json:"created_at"`
	UpdatedAt   string           `json:"updated_at"`
}

// shown converts apps, their owners loaded at once (nil for the apps hubd
// ships).
func (a *API) shown(r *http.Request, list []*model.OAuthClient) ([]oauthApp, error) {
	var ids []int64
	for _, c := range list {
		if c.OwnerID != 0 {
			ids = append(ids, c.OwnerID)
		}
	}
	owners, err := a.d.Store.R().AccountsByID(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	out := make([]oauthApp, len(list))
	for i, c := range list {
		out[i] = oauthApp{ID: c.OAuthAppID, ClientID: c.ClientID, Name: c.Name, URL: c.URL, CallbackURL: c.CallbackURL, DeviceFlow: c.DeviceFlow,
			CreatedAt: wire.Time(c.CreatedAt), UpdatedAt: wire.Time(c.UpdatedAt)}
		if o := owners[c.OwnerID]; o != nil {
			su := a.d.URLs.ToSimpleUser(o)
			out[i].Owner = &su
		}
	}
	return out, nil
}

// GET /admin/oauth-apps: the OAuth apps, for a site administrator.
func (a *API) adminList(w http.ResponseWriter, r *http.Request) error {
	if _, err := api.RequireSiteAdmin(r); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Apps(r.Context(), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out, err := a.shown(r, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// adminApp is the path's OAuth app (404 for a GitHub App's client id).
func (a *API) adminApp(r *http.Request) (*model.OAuthClient, error) {
	if _, err := api.RequireSiteAdmin(r); err != nil {
		return nil, err
	}
	c, err := a.svc.Client(r.Context(), r.PathValue("client_id"))
	if err != nil {
		return nil, err
	}
	if c.GitHubApp() {
		return nil, rest.ErrNotFound
	}
	return c, nil
}

// GET /admin/oauth-apps/{client_id}
func (a *API) adminGet(w http.ResponseWriter, r *http.Request) error {
	c, err := a.adminApp(r)
	if err != nil {
		return err
	}
	out, err := a.shown(r, []*model.OAuthClient{c})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

// DELETE /admin/oauth-apps/{client_id}: the app and everything it holds.
func (a *API) adminDelete(w http.ResponseWriter, r *http.Request) error {
	c, err := a.adminApp(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteApp(r.Context(), rest.Caller(r).UserID(), c.ClientID); err != nil {
		return err
	}
	return rest.NoContent(w)
}

type passwordBody struct {
	Password *string `json:"password"`
}

// PUT /admin/users/{username}/password: a site administrator sets a user's
// password for the web sign-in (hubd's flows need one).
func (a *API) adminPassword(w http.ResponseWriter, r *http.Request) error {
	if _, err := api.RequireSiteAdmin(r); err != nil {
		return err
	}
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	if u.Type != model.TypeUser {
		return rest.ErrNotFound
	}
	var in passwordBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Password == nil || len(*in.Password) < 8 {
		return model.Invalid("User", "password", "invalid")
	}
	if err := a.svc.SetPassword(r.Context(), u, *in.Password); err != nil {
		return err
	}
	return rest.NoContent(w)
}
