package apps

import (
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// createAppBody is POST /admin/apps: the fields of GitHub's app manifest,
// and the owner.
type createAppBody struct {
	Owner       *string           `json:"owner"`
	Name        *string           `json:"name"`
	Description string            `json:"description"`
	URL         string            `json:"url"`
	Permissions map[string]string `json:"default_permissions"`
	Events      []string          `json:"default_events"`
	CallbackURL string            `json:"callback_url"`
}

// createdApp is the answer of POST /admin/apps: the app and its secrets,
// shown once, as GitHub's manifest conversion answers them.
type createdApp struct {
	wire.Integration
	ClientSecret  string  `json:"client_secret"`
	WebhookSecret *string `json:"webhook_secret"`
	PEM           string  `json:"pem"`
}

// POST /admin/apps: a site administrator registers an app owned by a user
// or an organization.
func (a *API) adminCreate(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	var in createAppBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Owner == nil || *in.Owner == "" {
		return model.Invalid("Integration", "owner", "missing_field")
	}
	if in.Name == nil {
		return model.Invalid("Integration", "name", "missing_field")
	}
	owner, err := a.d.Store.R().AccountByLogin(r.Context(), *in.Owner)
	if errors.Is(err, model.ErrNotFound) {
		return model.Invalid("Integration", "owner", "invalid")
	}
	if err != nil {
		return err
	}
	created, err := a.svc.Create(r.Context(), c.UserID(), svc.CreateInput{Owner: owner, Name: *in.Name, Description: in.Description,
		ExternalURL: in.URL, Permissions: in.Permissions, Events: in.Events, CallbackURL: in.CallbackURL})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, createdApp{Integration: a.d.URLs.ToIntegration(created.App, nil),
		ClientSecret: created.ClientSecret, PEM: created.PrivateKeyPEM})
}

// installAppBody is POST /admin/apps/{app_slug}/installations.
type installAppBody struct {
	Account *string `json:"account"`
	// TargetType "Enterprise" installs the app on hubd's enterprise (no
	// account, no repositories).
	TargetType   string   `json:"target_type"`
	Selection    string   `json:"repository_selection"`
	Repositories []string `json:"repositories"`
}

// POST /admin/apps/{app_slug}/installations: a site administrator installs
// an app on a user or an organization, on all or the named repositories,
// or (target_type "Enterprise") on hubd's enterprise.
func (a *API) adminInstall(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	q := a.d.Store.R()
	app, err := q.AppBySlug(ctx, r.PathValue("app_slug"))
	if err != nil {
		return err
	}
	var in installAppBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	switch in.TargetType {
	case "Enterprise":
		if in.Account != nil || in.Selection != "" || len(in.Repositories) > 0 {
			return model.Invalid("Installation", "target_type", "invalid")
		}
		inst, err := a.svc.InstallOnEnterprise(ctx, c.UserID(), app)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusCreated, a.d.URLs.ToInstallation(inst))
	case "", "User", "Organization":
	default:
		return model.Invalid("Installation", "target_type", "invalid")
	}
	if in.Account == nil || *in.Account == "" {
		return model.Invalid("Installation", "account", "missing_field")
	}
	account, err := q.AccountByLogin(ctx, *in.Account)
	if errors.Is(err, model.ErrNotFound) {
		return model.Invalid("Installation", "account", "invalid")
	}
	if err != nil {
		return err
	}
	all := true
	switch in.Selection {
	case "", model.SelectAll:
		all = len(in.Repositories) == 0
	case model.SelectSelected:
		all = false
	default:
		return model.Invalid("Installation", "repository_selection", "invalid")
	}
	ids, err := a.repoIDsByName(r, account.ID, in.Repositories)
	if err != nil {
		return err
	}
	inst, err := a.svc.Install(ctx, c.UserID(), app, account, all, ids)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToInstallation(inst))
}
