// Package enterprise is the REST transport of the enterprise's own
// settings (internal/enterprise): its announcement banner and licensing.
package enterprise

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/enterprise"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the package.
type API struct {
	d          *api.Deps
	svc        *svc.Service
	sync       *svc.Syncer
	committers *svc.Committers
}

// New makes the package.
func New(d *api.Deps) *API {
	a := &API{d: d, svc: svc.New(d.Store), sync: svc.NewSyncer(d.Store, d.Jobs)}
	a.committers = svc.NewCommitters(d.Store, d.Git, d.Jobs, d.AccountsByCommitEmail)
	d.PushHooks = append(d.PushHooks, a.committers.Pushed)
	return a
}

const noteBanner = "Stored with expires_at and user_dismissible; GET answers the banner as set (null message when " +
	"none), expired or not; the service's ShownAnnouncement is what the web shows (unexpired only), which hubd's " +
	"web does not display yet."

// entApp says who reaches the enterprise's operations that take app tokens.
const entApp = "Enterprise owners' classic tokens, and a GitHub App installed on the enterprise with Enterprise " +
	"administration (its installation token, or its user access token for a site administrator)."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read, write := []string{"read:enterprise", "admin:enterprise"}, []string{"admin:enterprise"}
	b := "/enterprises/{enterprise}/announcement"
	return append([]rest.Route{
		{Method: "GET", Pattern: b, OperationID: "announcement-banners/get-announcement-banner-for-enterprise", Handler: a.getBanner, Scopes: read, Note: noteBanner},
		{Method: "PATCH", Pattern: b, OperationID: "announcement-banners/set-announcement-banner-for-enterprise", Handler: a.setBanner, Scopes: write, Note: noteBanner},
		{Method: "DELETE", Pattern: b, OperationID: "announcement-banners/remove-announcement-banner-for-enterprise", Handler: a.removeBanner, Scopes: write, Note: noteBanner},
	}, append(append(append(a.licenseRoutes(), a.agentRoutes()...), a.innersourceRoutes()...), append(a.networkRoutes(), a.ghasRoutes()...)...)...)
}

// Banner is components/schemas/announcement-banner.
type Banner struct {
	Announcement    *string `json:"announcement"`
	ExpiresAt       *string `json:"expires_at"`
	UserDismissible bool    `json:"user_dismissible"`
}

func toBanner(b *svc.Announcement) Banner {
	out := Banner{UserDismissible: b.UserDismissible}
	if b.Message != "" {
		m := b.Message
		out.Announcement = &m
	}
	if b.ExpiresAt != nil {
		t := wire.Time(*b.ExpiresAt)
		out.ExpiresAt = &t
	}
	return out
}

// GET /enterprises/{enterprise}/announcement
func (a *API) getBanner(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.d.RequireEnterpriseOwner(r, "read:enterprise", "manage the announcement banner"); err != nil {
		return err
	}
	b, err := a.svc.GetAnnouncement(r.Context())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toBanner(b))
}

type bannerBody struct {
	Announcement    *string `json:"announcement"`
	ExpiresAt       *string `json:"expires_at"`
	UserDismissible *bool   `json:"user_dismissible"`
}

// PATCH /enterprises/{enterprise}/announcement
func (a *API) setBanner(w http.ResponseWriter, r *http.Request) error {
	c, err := a.d.RequireEnterpriseOwner(r, "admin:enterprise", "manage the announcement banner")
	if err != nil {
		return err
	}
	var body bannerBody
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	in := svc.AnnouncementInput{Message: body.Announcement}
	if body.ExpiresAt != nil {
		in.ExpiresAt = *body.ExpiresAt
	}
	if body.UserDismissible != nil {
		in.UserDismissible = *body.UserDismissible
	}
	b, err := a.svc.SetAnnouncement(r.Context(), c.UserID(), in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toBanner(b))
}

// DELETE /enterprises/{enterprise}/announcement
func (a *API) removeBanner(w http.ResponseWriter, r *http.Request) error {
	c, err := a.d.RequireEnterpriseOwner(r, "admin:enterprise", "manage the announcement banner")
	if err != nil {
		return err
	}
	if err := a.svc.RemoveAnnouncement(r.Context(), c.UserID()); err != nil {
		return err
	}
	return rest.NoContent(w)
}
