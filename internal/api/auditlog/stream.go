package auditlog

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/audit"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

const noteStreams = "hubd streams to HTTPS endpoints only: the \"HTTPS Event Collector\" and \"Splunk\" stream types " +
	"(HEC events, the token as Splunk authorization and the body's HMAC-SHA256 under it in X-Hub-Signature-256, as " +
	"webhooks are signed), through the job queue every few seconds; the cloud storage and Datadog types answer 422. " +
	"A stream sends the entries recorded after it was created."

func (a *API) streamRoutes() []rest.Route {
	admin := []string{"admin:enterprise"}
	b := "/enterprises/{enterprise}/audit-log/"
	return []rest.Route{
		{Method: "GET", Pattern: b + "stream-key", OperationID: "enterprise-admin/get-audit-log-stream-key", Handler: a.streamKey, Scopes: admin},
		{Method: "GET", Pattern: b + "streams", OperationID: "enterprise-admin/get-audit-log-streams", Handler: a.listStreams, Scopes: admin, Note: noteStreams},
		{Method: "POST", Pattern: b + "streams", OperationID: "enterprise-admin/create-audit-log-stream", Handler: a.createStream, Scopes: admin, Note: noteStreams},
		{Method: "GET", Pattern: b + "streams/{stream_id}", OperationID: "enterprise-admin/get-one-audit-log-stream", Handler: a.getStream, Scopes: admin, Note: noteStreams},
		{Method: "PUT", Pattern: b + "streams/{stream_id}", OperationID: "enterprise-admin/update-audit-log-stream", Handler: a.updateStream, Scopes: admin, Note: noteStreams},
		{Method: "DELETE", Pattern: b + "streams/{stream_id}", OperationID: "enterprise-admin/delete-audit-log-stream", Handler: a.deleteStream, Scopes: admin, Note: noteStreams},
	}
}

// streamConfig is components/schemas/get-audit-log-stream-config.
type streamConfig struct {
	ID            int64   `json:"id"`
	StreamType    string  `json:"stream_type"`
	StreamDetails string  `json:"stream_details"`
	Enabled       bool    `json:"enabled"`
	CreatedAt     string  `json:"created_at"`
	UpdatedAt     string  `json:"updated_at"`
	PausedAt      *string `json:"paused_at"`
}

func toStream(s *model.AuditStream) streamConfig {
	out := streamConfig{ID: s.ID, StreamType: s.Type, StreamDetails: "https://" + s.Domain + ":" + strconv.Itoa(s.Port) + s.Path,
		Enabled: s.Enabled, CreatedAt: wire.Time(s.CreatedAt), UpdatedAt: wire.Time(s.UpdatedAt)}
	if s.PausedAt != nil {
		t := wire.Time(*s.PausedAt)
		out.PausedAt = &t
	}
	return out
}

func (a *API) owner(r *http.Request) (int64, error) {
	c, err := a.d.RequireEnterpriseOwner(r, "admin:enterprise", "manage audit log streaming")
	if err != nil {
		return 0, err
	}
	return c.UserID(), nil
}

func streamID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("stream_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// GET /enterprises/{enterprise}/audit-log/stream-key
func (a *API) streamKey(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.owner(r); err != nil {
		return err
	}
	k, err := a.streams.Key(r.Context())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, map[string]string{"key_id": k.ID, "key": k.Key})
}

// GET /enterprises/{enterprise}/audit-log/streams
func (a *API) listStreams(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.owner(r); err != nil {
		return err
	}
	list, err := a.streams.List(r.Context())
	if err != nil {
		return err
	}
	out := make([]streamConfig, 0, len(list))
	for _, s := range list {
		out = append(out, toStream(s))
	}
	return rest.JSON(w, http.StatusOK, out)
}

type streamBody struct {
	Enabled        rest.Opt[bool]   `json:"enabled"`
	StreamType     rest.Opt[string] `json:"stream_type"`
	VendorSpecific *struct {
		Domain         string `json:"domain"`
		Port           int    `json:"port"`
		Path           string `json:"path"`
		KeyID          string `json:"key_id"`
		EncryptedToken string `json:"encrypted_token"`
		SSLVerify      *bool  `json:"ssl_verify"`
	} `json:"vendor_specific"`
}

func readStream(r *http.Request) (audit.StreamInput, error) {
	var b streamBody
	if err := rest.Decode(r, &b); err != nil {
		return audit.StreamInput{}, err
	}
	enabled, ok1 := b.Enabled.Get()
	typ, ok2 := b.StreamType.Get()
	if !ok1 || !ok2 || b.VendorSpecific == nil {
		return audit.StreamInput{}, model.Unprocessable("Invalid request.\n\nenabled, stream_type and vendor_specific are required.")
	}
	v := b.VendorSpecific
	in := audit.StreamInput{Enabled: enabled, Type: typ, Domain: v.Domain, Port: v.Port, Path: v.Path, KeyID: v.KeyID,
		EncryptedToken: v.EncryptedToken, SSLVerify: true}
	if v.SSLVerify != nil {
		in.SSLVerify = *v.SSLVerify
	}
	return in, nil
}

// POST /enterprises/{enterprise}/audit-log/streams
func (a *API) createStream(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.owner(r)
	if err != nil {
		return err
	}
	in, err := readStream(r)
	if err != nil {
		return err
	}
	s, err := a.streams.Create(r.Context(), actor, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toStream(s))
}

// GET /enterprises/{enterprise}/audit-log/streams/{stream_id}
func (a *API) getStream(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.owner(r); err != nil {
		return err
	}
	id, err := streamID(r)
	if err != nil {
		return err
	}
	s, err := a.streams.Get(r.Context(), id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toStream(s))
}

// PUT /enterprises/{enterprise}/audit-log/streams/{stream_id}
func (a *API) updateStream(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.owner(r)
	if err != nil {
		return err
	}
	id, err := streamID(r)
	if err != nil {
		return err
	}
	in, err := readStream(r)
	if err != nil {
		return err
	}
	s, err := a.streams.Update(r.Context(), id, actor, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toStream(s))
}

// DELETE /enterprises/{enterprise}/audit-log/streams/{stream_id}
func (a *API) deleteStream(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.owner(r)
	if err != nil {
		return err
	}
	id, err := streamID(r)
	if err != nil {
		return err
	}
	if err := a.streams.Delete(r.Context(), id, actor); err != nil {
		return err
	}
	return rest.NoContent(w)
}
