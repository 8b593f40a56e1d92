package enterprise

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

const noteInnersource = "OSV records are synced into hubd's enterprise innersource vulnerability set by a job on the " +
	"durable queue: created (with a GHIS id), updated, or withdrawn (an OSV record with withdrawn set) by their OSV " +
	"id; the status answers 202 until the job finishes, then the result. Installation tokens of an app installed on " +
	"the enterprise with Enterprise administration only. No Dependabot alerts are raised from them (hubd matches no " +
	"dependencies against advisories) and they are not published to an Advisory Database."

func (a *API) innersourceRoutes() []rest.Route {
	b := "/enterprises/{enterprise}/innersource-vulnerabilities/sync"
	return []rest.Route{
		{Method: "POST", Pattern: b, OperationID: "enterprise-admin/sync-enterprise-innersource-vulnerabilities", Handler: a.innersourceSync, Note: noteInnersource},
		{Method: "GET", Pattern: b + "/status/{job_id}", OperationID: "enterprise-admin/get-enterprise-innersource-vulnerability-sync-status", Handler: a.innersourceStatus, Note: noteInnersource},
	}
}

// innersourceCaller lets through installation tokens of an app installed
// on the enterprise (GitHub: no OAuth app or personal access token).
func (a *API) innersourceCaller(r *http.Request) (*authz.Caller, error) {
	c := rest.Caller(r)
	if c.Authenticated() && c.Kind != authz.Installation {
		if e := r.PathValue("enterprise"); !strings.EqualFold(e, a.d.URLs.EnterpriseSlug()) {
			return nil, model.ErrNotFound
		}
		return nil, model.Forbidden("Resource not accessible by personal access token")
	}
	return a.d.RequireEnterpriseOwner(r, "", "sync innersource vulnerabilities")
}

func (a *API) syncURL(id string) string {
	return a.d.URLs.API + "/enterprises/" + a.d.URLs.EnterpriseSlug() + "/innersource-vulnerabilities/sync/status/" + id
}

// POST /enterprises/{enterprise}/innersource-vulnerabilities/sync
func (a *API) innersourceSync(w http.ResponseWriter, r *http.Request) error {
	c, err := a.innersourceCaller(r)
	if err != nil {
		return err
	}
	var body struct {
		Vulnerabilities []json.RawMessage `json:"vulnerabilities"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	id, err := a.sync.StartSync(r.Context(), c.UserID(), body.Vulnerabilities)
	if err != nil {
		return err
	}
	u := a.syncURL(id)
	w.Header().Set("Location", u)
	w.Header().Set("Retry-After", "1")
	return rest.JSON(w, http.StatusAccepted, map[string]string{"id": id, "url": u, "status": "queued"})
}

// GET /enterprises/{enterprise}/innersource-vulnerabilities/sync/status/{job_id}
func (a *API) innersourceStatus(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.innersourceCaller(r); err != nil {
		return err
	}
	id := r.PathValue("job_id")
	status, res, msg, err := a.sync.SyncStatus(r.Context(), id)
	if err != nil {
		return err
	}
	switch status {
	case "done":
		return rest.JSON(w, http.StatusOK, res)
	case "error":
		return rest.JSON(w, http.StatusOK, map[string]string{"status": "error", "error": msg})
	}
	w.Header().Set("Retry-After", "1")
	return rest.JSON(w, http.StatusAccepted, map[string]string{"id": id, "status": "processing"})
}
