// Package users serves the Users category: the authenticated user and
// public profiles.
package users

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// API is the users package.
type API struct{ d *api.Deps }

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/user", OperationID: "users/get-authenticated", Handler: a.getAuthenticated},
		{Method: "PATCH", Pattern: "/user", OperationID: "users/update-authenticated", Handler: a.updateAuthenticated, Scopes: []string{"user"}},
		{Method: "GET", Pattern: "/users/{username}", OperationID: "users/get-by-username", Handler: a.getByUsername},
		{Method: "GET", Pattern: "/user/{account_id}", OperationID: "users/get-by-id", Handler: a.getByID},
		{Method: "GET", Pattern: "/users", OperationID: "users/list", Handler: a.list},
		{Method: "GET", Pattern: "/avatars/u/{account_id}", OperationID: "hubd/avatar", Handler: a.avatar, Extension: true, NoRateLimit: true},
	}
}

// GET /user
func (a *API) getAuthenticated(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	u, err := a.d.Store.R().AccountByID(r.Context(), c.User.ID)
	if err != nil {
		return err
	}
	counts, err := a.d.UserCounts(r, u)
	if err != nil {
		return err
	}
	w.Header().Set("Last-Modified", u.UpdatedAt.Format(http.TimeFormat))
	return rest.JSON(w, 200, a.d.URLs.ToPrivateUser(u, counts))
}

type updateUser struct {
	Name            rest.Opt[string] `json:"name"`
	Email           rest.Opt[string] `json:"email"`
	Blog            rest.Opt[string] `json:"blog"`
	TwitterUsername rest.Opt[string] `json:"twitter_username"`
	Company         rest.Opt[string] `json:"company"`
	Location        rest.Opt[string] `json:"location"`
	Hireable        rest.Opt[bool]   `json:"hireable"`
	Bio             rest.Opt[string] `json:"bio"`
}

// PATCH /user
func (a *API) updateAuthenticated(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := api.RequireScope(c, "user"); err != nil {
		return err
	}
	var in updateUser
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if e, ok := in.Email.Get(); ok && e != "" && !api.ValidEmail(e) {
		return model.Invalid("User", "email", "invalid")
	}
	if b, ok := in.Bio.Get(); ok && len([]rune(b)) > 160 {
		return model.Custom("User", "bio", "bio is too long (maximum is 160 characters)")
	}
	var u *model.Account
	err = a.d.Store.Tx(r.Context(), func(tx store.Q) error {
		var err error
		if u, err = tx.AccountByID(r.Context(), c.User.ID); err != nil {
			return err
		}
		setStr(&u.Name, in.Name)
		setStr(&u.Email, in.Email)
		setStr(&u.Blog, in.Blog)
		setStr(&u.TwitterUsername, in.TwitterUsername)
		setStr(&u.Company, in.Company)
		setStr(&u.Location, in.Location)
		setStr(&u.Bio, in.Bio)
		if in.Hireable.Set {
			if v, ok := in.Hireable.Get(); ok {
				u.Hireable = &v
			} else {
				u.Hireable = nil
			}
		}
		if err := tx.UpdateAccount(r.Context(), u); err != nil {
			return err
		}
		return tx.AppendEvent(r.Context(), "user.updated", u.ID, 0, 0, map[string]any{"user_id": u.ID})
	})
	if err != nil {
		return err
	}
	a.d.Tokens.Flush()
	counts, err := a.d.UserCounts(r, u)
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, a.d.URLs.ToPrivateUser(u, counts))
}

func setStr(dst *string, o rest.Opt[string]) {
	if o.Set {
		*dst = strings.TrimSpace(o.Value) // null clears
	}
}

// GET /users/{username}
func (a *API) getByUsername(w http.ResponseWriter, r *http.Request) error {
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	return a.writePublic(w, r, u)
}

// GET /user/{account_id}
func (a *API) getByID(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("account_id"), 10, 64)
	if err != nil {
		return rest.ErrNotFound
	}
	u, err := a.d.Store.R().AccountByID(r.Context(), id)
	if err != nil {
		return err
	}
	return a.writePublic(w, r, u)
}

func (a *API) writePublic(w http.ResponseWriter, r *http.Request, u *model.Account) error {
	counts, err := a.d.UserCounts(r, u)
	if err != nil {
		return err
	}
	w.Header().Set("Last-Modified", u.UpdatedAt.Format(http.TimeFormat))
	return rest.JSON(w, 200, a.d.URLs.ToPublicUser(u, counts))
}

// GET /users: every user in id order, paginated by since.
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	p := rest.ParsePage(r)
	list, err := a.d.Store.R().AccountsSince(r.Context(), model.TypeUser, since, p.PerPage)
	if err != nil {
		return err
	}
	out := make([]any, 0, len(list))
	for _, u := range list {
		out = append(out, a.d.URLs.ToSimpleUser(u))
	}
	if len(list) > 0 {
		rest.SetSinceLink(w, r, a.d.URLs.API, len(list) == p.PerPage, list[len(list)-1].ID)
	}
	return rest.JSON(w, 200, out)
}
