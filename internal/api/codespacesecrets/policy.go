package codespacesecrets

import (
	"net/http"

	"github.com/hubd/hubd/internal/rest"
)

// setAccess is PUT /orgs/{org}/codespaces/access.
func (a *API) setAccess(w http.ResponseWriter, r *http.Request) error {
	org, c, err := a.orgAdmin(r)
	if err != nil {
		return err
	}
	var body struct {
		Visibility string    `json:"visibility"`
		Usernames  *[]string `json:"selected_usernames"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	var logins []string
	if body.Usernames != nil {
		logins = *body.Usernames
	}
	if err := a.svc.SetAccess(r.Context(), org.ID, c.UserID(), body.Visibility, logins, body.Usernames != nil); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// accessUsers is POST (with remove, DELETE)
// /orgs/{org}/codespaces/access/selected_users.
func (a *API) accessUsers(remove bool) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		org, c, err := a.orgAdmin(r)
		if err != nil {
			return err
		}
		var body struct {
			Usernames []string `json:"selected_usernames"`
		}
		if err := rest.Decode(r, &body); err != nil {
			return err
		}
		if err := a.svc.ChangeAccessUsers(r.Context(), org.ID, c.UserID(), body.Usernames, remove); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}
