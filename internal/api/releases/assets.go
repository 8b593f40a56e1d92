package releases

import (
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/releases/{release_id}/assets
func (a *API) listAssets(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "release_id")
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Assets(r.Context(), acc, id, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.ReleaseAsset, len(list))
	for i, as := range list {
		out[i] = a.d.URLs.ToReleaseAsset(acc.Repo, as)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// wantsBytes reports whether the client asked for the asset itself
// (Accept: application/octet-stream).
func wantsBytes(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(mt), "application/octet-stream") {
			return true
		}
	}
	return false
}

// GET /repos/{owner}/{repo}/releases/assets/{asset_id}: the asset's JSON,
// or its bytes for application/octet-stream.
func (a *API) getAsset(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "asset_id")
	if err != nil {
		return err
	}
	as, err := a.svc.Asset(r.Context(), acc, id)
	if err != nil {
		return err
	}
	if wantsBytes(r) {
		return a.serve(w, r, as)
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToReleaseAsset(acc.Repo, as))
}

// serve streams an asset's file (ranges and conditional requests as
// net/http serves files) and counts the download. The bytes are always
// sent as an attachment of type application/octet-stream, so that an
// uploaded page never renders on hubd's origin.
func (a *API) serve(w http.ResponseWriter, r *http.Request, as *model.ReleaseAsset) error {
	f, err := a.svc.Open(as)
	if err != nil {
		return err
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": as.Name}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, max-age=0")
	if as.Digest != nil {
		h.Set("ETag", `"`+strings.TrimPrefix(*as.Digest, "sha256:")+`"`)
	}
	if r.Method == http.MethodGet {
		if err := a.svc.Downloaded(r.Context(), as); err != nil {
			// The download goes on; only the counter missed it.
			slog.Error("releases: count download", "request_id", rest.From(r).RequestID, "asset", as.ID, "err", err)
		}
	}
	http.ServeContent(w, r, "", as.CreatedAt, f)
	return nil
}

// POST /repos/{owner}/{repo}/releases/{release_id}/assets?name=&label=:
// the body is the file, of the request's Content-Type.
func (a *API) upload(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathID(r, "release_id")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	in := svc.UploadInput{Name: q.Get("name"), ContentType: r.Header.Get("Content-Type"), Size: r.ContentLength, Body: r.Body}
	if q.Has("label") {
		l := q.Get("label")
		in.Label = &l
	}
	if in.Body == nil {
		in.Body = http.NoBody
	}
	as, err := a.svc.Upload(r.Context(), acc, id, in)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &model.HTTPError{Status: http.StatusRequestEntityTooLarge, Message: "Payload Too Large"}
	}
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToReleaseAsset(acc.Repo, as))
}

type assetBody struct {
	Name  *string `json:"name"`
	Label *string `json:"label"`
	State *string `json:"state"`
}

// PATCH /repos/{owner}/{repo}/releases/assets/{asset_id}
func (a *API) updateAsset(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathID(r, "asset_id")
	if err != nil {
		return err
	}
	var in assetBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	as, err := a.svc.UpdateAsset(r.Context(), acc, id, svc.AssetUpdate{Name: in.Name, Label: in.Label, State: in.State})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToReleaseAsset(acc.Repo, as))
}

// DELETE /repos/{owner}/{repo}/releases/assets/{asset_id}
func (a *API) deleteAsset(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathID(r, "asset_id")
	if err != nil {
		return err
	}
	if err := a.svc.DeleteAsset(r.Context(), acc, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /{owner}/{repo}/releases/download/{tag}/{name}: browser_download_url.
// A renamed repository's old path redirects to the new one.
func (a *API) download(w http.ResponseWriter, r *http.Request) error {
	tag, name, ok := cutLast(r.PathValue("path"))
	if !ok {
		return model.ErrNotFound
	}
	repo, perm, err := a.d.Repo(r, authz.Read)
	var mv *model.Moved
	if errors.As(err, &mv) {
		if loc, ok := a.moved(mv, r); ok {
			http.Redirect(w, r, loc, http.StatusMovedPermanently)
			return nil
		}
		return model.ErrNotFound
	}
	if err != nil {
		return err
	}
	acc := svc.Access{Repo: repo, Perm: perm, UserID: rest.Caller(r).UserID(), Auth: rest.Caller(r)}
	as, err := a.svc.AssetByPath(r.Context(), acc, tag, name)
	if err != nil {
		return err
	}
	return a.serve(w, r, as)
}

// cutLast splits "tag/with/slashes/name" into the tag and the name.
func cutLast(p string) (string, string, bool) {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 || i == len(p)-1 {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

// moved is the download path under a renamed repository's new name (the
// API's redirect names the API path).
func (a *API) moved(mv *model.Moved, r *http.Request) (string, bool) {
	u, err := url.Parse(mv.Location)
	if err != nil {
		return "", false
	}
	_, rest, ok := strings.Cut(u.Path, "/repos/")
	if !ok {
		return "", false
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 {
		return "", false
	}
	below := strings.SplitN(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/", 3)
	if len(below) < 3 {
		return "", false
	}
	return a.d.URLs.Web + "/" + url.PathEscape(parts[0]) + "/" + url.PathEscape(parts[1]) + "/" + below[2], true
}
