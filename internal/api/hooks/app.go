package hooks

import (
	"errors"
	"net/http"

	appsvc "github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// The webhook of a GitHub App, managed by the app itself with its JSON
// web token (/app/hook/...). It is made by the first PATCH of its config
// and gets the events each installation subscribed to, for the
// repositories the installation reaches, with the installation in the
// payload.

// app is the app of the request's JWT.
func (a *API) app(r *http.Request) (*model.App, error) {
	c := rest.Caller(r)
	switch {
	case c.Kind == authz.AppJWT:
	case !c.Authenticated():
		return nil, rest.ErrRequiresAuth
	default:
		return nil, appsvc.ErrJWTDecode
	}
	return a.d.Store.R().AppByID(r.Context(), c.AppID)
}

// GET /app/hook/config
func (a *API) appConfig(w http.ResponseWriter, r *http.Request) error {
	app, err := a.app(r)
	if err != nil {
		return err
	}
	h, err := a.svc.AppHook(r.Context(), app)
	if errors.Is(err, model.ErrNotFound) {
		// No webhook URL set yet.
		return rest.JSON(w, http.StatusOK, map[string]string{"content_type": "json", "insecure_ssl": "0"})
	}
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToHookConfig(h))
}

// PATCH /app/hook/config
func (a *API) updateAppConfig(w http.ResponseWriter, r *http.Request) error {
	app, err := a.app(r)
	if err != nil {
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
	h, err := a.svc.UpdateAppConfig(r.Context(), app, *in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToHookConfig(h))
}

// appHook is the app's webhook; an app without one has no deliveries.
func (a *API) appHook(r *http.Request) (svc.Target, *model.Hook, error) {
	app, err := a.app(r)
	if err != nil {
		return svc.Target{}, nil, err
	}
	h, err := a.svc.AppHook(r.Context(), app)
	return svc.Target{App: app}, h, err
}

// GET /app/hook/deliveries
func (a *API) appDeliveries(w http.ResponseWriter, r *http.Request) error {
	t, h, err := a.appHook(r)
	if errors.Is(err, model.ErrNotFound) {
		return rest.JSON(w, http.StatusOK, []wire.HookDeliveryItem{})
	}
	if err != nil {
		return err
	}
	return a.listDeliveries(w, r, t, h.ID)
}

// GET /app/hook/deliveries/{delivery_id}
func (a *API) appDelivery(w http.ResponseWriter, r *http.Request) error {
	t, h, err := a.appHook(r)
	if err != nil {
		return err
	}
	did, err := pathID(r, "delivery_id")
	if err != nil {
		return err
	}
	_, d, err := a.svc.Delivery(r.Context(), t, h.ID, did)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToHookDelivery(d, h.URL))
}

// POST /app/hook/deliveries/{delivery_id}/attempts: 202.
func (a *API) appRedeliver(w http.ResponseWriter, r *http.Request) error {
	t, h, err := a.appHook(r)
	if err != nil {
		return err
	}
	did, err := pathID(r, "delivery_id")
	if err != nil {
		return err
	}
	if err := a.svc.Redeliver(r.Context(), t, h.ID, did); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, struct{}{})
}
