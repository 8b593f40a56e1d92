package orgs

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// checkLogin validates a new organization login.
func checkLogin(login rest.Opt[string]) (string, error) {
	v, ok := login.Get()
	if !ok {
		return "", model.Unprocessable("Invalid request.\n\n\"login\" wasn't supplied.")
	}
	if err := names.ValidLogin(v); err != nil {
		return "", model.Custom("Organization", "login", err.Error())
	}
	return v, nil
}

func loginTaken() error {
	return model.Invalid("Organization", "login", "already_exists")
}

type createOrgBody struct {
	Login       rest.Opt[string] `json:"login"`
	Admin       rest.Opt[string] `json:"admin"`
	ProfileName rest.Opt[string] `json:"profile_name"`
}

// POST /admin/organizations
func (a *API) adminCreate(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	var in createOrgBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	login, err := checkLogin(in.Login)
	if err != nil {
		return err
	}
	adminLogin, ok := in.Admin.Get()
	if !ok {
		return model.Unprocessable("Invalid request.\n\n\"admin\" wasn't supplied.")
	}
	owner, err := a.d.Store.R().AccountByLogin(r.Context(), adminLogin)
	if err == model.ErrNotFound || err == nil && owner.IsOrg() {
		return model.Invalid("Organization", "admin", "invalid")
	}
	if err != nil {
		return err
	}
	org := store.NewOrg(login)
	org.Name = in.ProfileName.Value
	err = a.d.Store.Tx(r.Context(), func(tx store.Q) error {
		if err := tx.CreateOrg(r.Context(), org, owner.ID); err != nil {
			return err
		}
		return tx.AppendEvent(r.Context(), "organization.created", c.User.ID, 0, org.ID,
			map[string]any{"login": org.Login, "admin_id": owner.ID})
	})
	if err == store.ErrDuplicate {
		return loginTaken()
	}
	if err != nil {
		return err
	}
	return rest.JSON(w, 201, a.d.URLs.ToOrgSimple(org))
}

type renameOrgBody struct {
	Login rest.Opt[string] `json:"login"`
}

// PATCH /admin/organizations/{org}: the rename is done at once; GitHub's
// 202 and message are kept for clients.
func (a *API) adminRename(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	org, err := a.org(r)
	if err != nil {
		return err
	}
	var in renameOrgBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	login, err := checkLogin(in.Login)
	if err != nil {
		return err
	}
	err = a.d.Store.Tx(r.Context(), func(tx store.Q) error {
		o, err := tx.AccountByID(r.Context(), org.ID)
		if err != nil {
			return err
		}
		from := o.Login
		o.Login = login
		if err := tx.UpdateAccount(r.Context(), o); err != nil {
			return err
		}
		return tx.AppendEvent(r.Context(), "organization.renamed", c.User.ID, 0, o.ID,
			map[string]any{"from": from, "to": login})
	})
	if err == store.ErrDuplicate {
		return loginTaken()
	}
	if err != nil {
		return err
	}
	return rest.JSON(w, 202, map[string]string{
		"message": "Job queued to rename organization. It may take a few minutes to complete.",
		"url":     a.d.URLs.API + "/organizations/" + strconv.FormatInt(org.ID, 10),
	})
}
