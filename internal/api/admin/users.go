// Package admin serves GitHub Enterprise Server's site administration API
// (the enterprise-admin category of ghes-3.19): creating, renaming and
// deleting users and minting impersonation OAuth tokens. Every operation
// needs a site administrator whose classic token carries the site_admin
// scope; other users get a 403, as on GHES.
package admin

import (
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// API is the admin package.
type API struct{ d *api.Deps }

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	site := []string{"site_admin"}
	return []rest.Route{
		{Method: "POST", Pattern: "/admin/users", OperationID: "enterprise-admin/create-user", Handler: a.createUser, Scopes: site},
		{Method: "PATCH", Pattern: "/admin/users/{username}", OperationID: "enterprise-admin/update-username-for-user", Handler: a.renameUser, Scopes: site},
		{Method: "DELETE", Pattern: "/admin/users/{username}", OperationID: "enterprise-admin/delete-user", Handler: a.deleteUser, Scopes: site},
		{Method: "POST", Pattern: "/admin/users/{username}/authorizations", OperationID: "enterprise-admin/create-impersonation-o-auth-token", Handler: a.createImpersonation, Scopes: site},
		{Method: "DELETE", Pattern: "/admin/users/{username}/authorizations", OperationID: "enterprise-admin/delete-impersonation-o-auth-token", Handler: a.deleteImpersonation, Scopes: site},
	}
}

// targetUser loads the {username} of the path; organizations are not users
// here (GHES has /admin/organizations for them), so they are not found.
func (a *API) targetUser(r *http.Request, q store.Q) (*model.Account, error) {
	u, err := q.AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return nil, err
	}
	if u.IsOrg() {
		return nil, model.ErrNotFound
	}
	return u, nil
}

// loginError turns a names error into GitHub's 422.
func loginError(err error) error {
	if errors.Is(err, names.ErrLoginEmpty) {
		return model.Invalid("User", "login", "missing_field")
	}
	return model.Custom("User", "login", err.Error())
}

type createUserBody struct {
	Login     *string `json:"login"`
	Email     *string `json:"email"`
	Suspended bool    `json:"suspended"`
}

// POST /admin/users
func (a *API) createUser(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	var in createUserBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Login == nil {
		return model.Invalid("User", "login", "missing_field")
	}
	login := names.NormalizeLogin(*in.Login)
	if login == "" && strings.TrimSpace(*in.Login) != "" {
		return loginError(names.ErrLoginInvalid)
	}
	if err := names.ValidLogin(login); err != nil {
		return loginError(err)
	}
	email := ""
	if in.Email != nil {
		email = strings.TrimSpace(*in.Email)
	}
	if email != "" && !api.ValidEmail(email) {
		return model.Invalid("User", "email", "invalid")
	}
	ctx := r.Context()
	u := &model.Account{Login: login, Type: model.TypeUser, Email: email}
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		if email != "" {
			taken, err := tx.EmailTaken(ctx, email, 0)
			if err != nil {
				return err
			}
			if taken {
				return model.Invalid("User", "email", "already_exists")
			}
		}
		if in.Suspended {
			now := tx.Now()
			u.SuspendedAt = &now
		}
		if err := tx.CreateAccount(ctx, u); err != nil {
			return err
		}
		if u.SuspendedAt != nil {
			// CreateAccount does not write suspended_at.
			if err := tx.UpdateAccount(ctx, u); err != nil {
				return err
			}
		}
		return tx.AppendEvent(ctx, "user.created", c.User.ID, 0, 0, map[string]any{"user_id": u.ID, "login": u.Login, "suspended": in.Suspended})
	})
	if errors.Is(err, store.ErrDuplicate) {
		return model.Invalid("User", "login", "already_exists")
	}
	if err != nil {
		return err
	}
	a.d.Tokens.Flush()
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToSimpleUser(u))
}

type renameBody struct {
	Login *string `json:"login"`
}

// renameAccepted is the 202 body of a rename. GHES queues a job; hubd renames
// at once (repositories live under immutable ids), but keeps GHES's words.
type renameAccepted struct {
	Message string `json:"message"`
	URL     string `json:"url"`
}

// PATCH /admin/users/{username}
func (a *API) renameUser(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := a.targetUser(r, a.d.Store.R())
	if err != nil {
		return err
	}
	var in renameBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Login == nil {
		return model.Invalid("User", "login", "missing_field")
	}
	login := strings.TrimSpace(*in.Login)
	if err := names.ValidLogin(login); err != nil {
		return loginError(err)
	}
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		cur, err := tx.AccountByID(ctx, u.ID)
		if err != nil {
			return err
		}
		old := cur.Login
		cur.Login = login
		if err := tx.UpdateAccount(ctx, cur); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user.renamed", c.User.ID, 0, 0, map[string]any{"user_id": cur.ID, "from": old, "to": login})
	})
	if errors.Is(err, store.ErrDuplicate) {
		return model.Invalid("User", "login", "already_exists")
	}
	if err != nil {
		return err
	}
	a.d.Tokens.Flush()
	return rest.JSON(w, http.StatusAccepted, renameAccepted{
		Message: "Job queued to rename user. It may take a few minutes to complete.",
		URL:     a.d.URLs.API + "/user/" + strconv.FormatInt(u.ID, 10),
	})
}

// DELETE /admin/users/{username}: the user's repositories, memberships,
// collaborations and tokens go with the row (foreign keys cascade).
func (a *API) deleteUser(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := a.targetUser(r, a.d.Store.R())
	if err != nil {
		return err
	}
	if u.ID == c.User.ID {
		// "You can delete any user account except your own."
		return model.Forbidden("You cannot delete your own account.")
	}
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteAccount(ctx, u.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user.deleted", c.User.ID, 0, 0, map[string]any{"user_id": u.ID, "login": u.Login})
	})
	if err != nil {
		return err
	}
	a.d.Tokens.Flush()
	return rest.NoContent(w)
}

type impersonationBody struct {
	Scopes *[]string `json:"scopes"`
}

// Authorization and AuthorizationApp are GitHub's authorization object
// (internal/wire).
type (
	Authorization    = wire.Authorization
	AuthorizationApp = wire.AuthorizationApp
)

// siteAdminApp is the built-in OAuth app impersonation tokens belong to.
var siteAdminApp = AuthorizationApp{
	ClientID: "00000000000000000001",
	Name:     "GitHub Site Administrator",
	URL:      "https://docs.github.com/enterprise-server@3.19/rest/enterprise-admin/users#create-an-impersonation-oauth-token",
}

// POST /admin/users/{username}/authorizations: a new gho_ token acting as the
// user, shown once (201). When the user already has an impersonation token
// with the same scopes, GHES answers 200 with that one; hubd keeps only
// token hashes, so its token field is empty, as GitHub sends it for
// existing authorizations (hashed_token and token_last_eight identify it).
func (a *API) createImpersonation(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := a.targetUser(r, a.d.Store.R())
	if err != nil {
		return err
	}
	var in impersonationBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Scopes == nil {
		return model.Invalid("Authorization", "scopes", "missing_field")
	}
	scopes := authz.Scopes{}
	for _, s := range *in.Scopes {
		s = strings.TrimSpace(s)
		if !authz.Known[s] {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Authorization", Field: "scopes", Code: "invalid", Value: s}}}
		}
		scopes[s] = true
	}
	var (
		plain, hash string
		tok         *store.Token
	)
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		tok, hash, err = tx.ImpersonationToken(ctx, u.ID, scopes)
		if err == nil || !errors.Is(err, model.ErrNotFound) {
			return err
		}
		tok = nil
		plain, tok, err = tx.CreateToken(ctx, u.ID, authz.OAuthApp, scopes, "", nil)
		if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user.impersonation_token_created", c.User.ID, 0, 0, map[string]any{"user_id": u.ID, "token_id": tok.ID, "scopes": sortedScopes(scopes)})
	})
	if err != nil {
		return err
	}
	if plain == "" {
		return rest.JSON(w, http.StatusOK, a.toAuthorization(tok, "", hash, u))
	}
	return rest.JSON(w, http.StatusCreated, a.toAuthorization(tok, plain, store.HashToken(plain), u))
}

// toAuthorization is the authorization object of a token; plain is the
// token itself, shown only when it was just created.
func (a *API) toAuthorization(t *store.Token, plain, hashed string, u *model.Account) Authorization {
	last := t.LastEight
	user := a.d.URLs.ToSimpleUser(u)
	created := wire.Time(t.CreatedAt)
	return Authorization{
		ID: t.ID, URL: a.d.URLs.API + "/authorizations/" + strconv.FormatInt(t.ID, 10),
		Scopes: sortedScopes(t.Scopes), Token: plain, TokenLastEight: &last, HashedToken: &hashed,
		App: siteAdminApp, CreatedAt: created, UpdatedAt: created, User: &user,
		ExpiresAt: wire.TimePtr(t.ExpiresAt),
	}
}

func sortedScopes(s authz.Scopes) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DELETE /admin/users/{username}/authorizations: revokes every impersonation
// token of the user.
func (a *API) deleteImpersonation(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := a.targetUser(r, a.d.Store.R())
	if err != nil {
		return err
	}
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		n, err := tx.DeleteImpersonationTokens(ctx, u.ID)
		if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user.impersonation_tokens_deleted", c.User.ID, 0, 0, map[string]any{"user_id": u.ID, "count": n})
	})
	if err != nil {
		return err
	}
	a.d.Tokens.Flush()
	return rest.NoContent(w)
}
