// Package attestations is the REST adapter of artifact attestations
// (/repos/{owner}/{repo}/attestations..., /orgs/{org}/attestations...,
// /users/{username}/attestations...) and artifact metadata
// (/orgs/{org}/artifacts/...); the rules live in internal/attestations.
package attestations

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/attestations"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

const createNote = "Bundles are parsed and validated with sigstore-go's bundle model (media type v0.1-v0.3, verification material, a DSSE envelope with an in-toto statement whose subjects give the digests) and, when the bundle carries an X.509 certificate, the envelope's signature is checked with that certificate's key (a tampered bundle is refused). Not verified (it needs Sigstore's trust roots on the internet): the certificate's chain to Fulcio, transparency-log inclusion proofs and timestamps; a bundle naming its key only by hint is stored without a signature check. bundle_url is hubd's own URL of the stored bundle (JSON, not snappy-compressed)."

const readNote = "bundle_url is hubd's own URL of the stored bundle (JSON, not snappy-compressed)."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"repo", "public_repo"}
	write := []string{"repo"}
	rs := []rest.Route{
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/attestations", OperationID: "repos/create-attestation", Handler: a.create, Scopes: write, Note: createNote},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/attestations/{subject_digest}", OperationID: "repos/list-attestations", Handler: a.listRepo, Scopes: read, Note: readNote},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/attestations/bundles/{attestation_id}", OperationID: "hubd/get-attestation-bundle", Handler: a.bundle, Scopes: read, Extension: true},
	}
	for _, o := range []struct{ base, param, prefix string }{{"/orgs/{org}", "org", "orgs"}, {"/users/{username}", "username", "users"}} {
		own := a.owner(o.param)
		rs = append(rs,
			rest.Route{Method: "GET", Pattern: o.base + "/attestations/{subject_digest}", OperationID: o.prefix + "/list-attestations", Handler: own(a.listOwner), Scopes: read, Note: readNote},
			rest.Route{Method: "POST", Pattern: o.base + "/attestations/bulk-list", OperationID: o.prefix + "/list-attestations-bulk", Handler: own(a.bulk), Scopes: read, Note: readNote},
			rest.Route{Method: "POST", Pattern: o.base + "/attestations/delete-request", OperationID: o.prefix + "/delete-attestations-bulk", Handler: own(a.deleteBulk), Scopes: write},
			rest.Route{Method: "DELETE", Pattern: o.base + "/attestations/digest/{subject_digest}", OperationID: o.prefix + "/delete-attestations-by-subject-digest", Handler: own(a.deleteDigest), Scopes: write},
			rest.Route{Method: "DELETE", Pattern: o.base + "/attestations/{attestation_id}", OperationID: o.prefix + "/delete-attestations-by-id", Handler: own(a.deleteID), Scopes: write},
		)
	}
	rs = append(rs, rest.Route{Method: "GET", Pattern: "/orgs/{org}/attestations/repositories", OperationID: "orgs/list-attestation-repositories", Handler: a.owner("org")(a.repos), Scopes: read})
	return append(rs, a.metadataRoutes()...)
}

type ownerHandler func(w http.ResponseWriter, r *http.Request, owner *model.Account) error

// owner resolves the path's organization or user (404 when there is none).
func (a *API) owner(param string) func(ownerHandler) rest.Handler {
	return func(h ownerHandler) rest.Handler {
		return func(w http.ResponseWriter, r *http.Request) error {
			q := a.d.Store.R()
			var acc *model.Account
			var err error
			if param == "org" {
				acc, err = q.OrgByLogin(r.Context(), r.PathValue("org"))
			} else {
				acc, err = q.AccountByLogin(r.Context(), r.PathValue("username"))
			}
			if err != nil {
				return err
			}
			return h(w, r, acc)
		}
	}
}

// Attestation is one attestation of a list.
type Attestation struct {
	Bundle       json.RawMessage `json:"bundle"`
	RepositoryID int64           `json:"repository_id"`
	BundleURL    string          `json:"bundle_url"`
	Initiator    string          `json:"initiator,omitempty"`
}

// render converts a page, with the bundle URLs of their repositories
// (loaded in one query).
func (a *API) render(r *http.Request, list []*model.Attestation, initiator bool) ([]Attestation, error) {
	ids := make([]int64, 0, len(list))
	for _, t := range list {
		ids = append(ids, t.RepoID)
	}
	views, err := a.d.Store.R().ReposByID(r.Context(), ids, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Attestation, 0, len(list))
	for _, t := range list {
		at := Attestation{Bundle: json.RawMessage(t.Bundle), RepositoryID: t.RepoID}
		if v := views[t.RepoID]; v != nil && v.Repo.Owner != nil {
			at.BundleURL = a.d.URLs.API + "/repos/" + v.Repo.Owner.Login + "/" + v.Repo.Name + "/attestations/bundles/" + strconv.FormatInt(t.ID, 10)
		}
		if initiator {
			at.Initiator = t.Initiator
		}
		out = append(out, at)
	}
	return out, nil
}

var errCursor = model.BadRequest("Invalid cursor")

func cursor(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, errCursor
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n <= 0 {
		return 0, errCursor
	}
	return n, nil
}

func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(id, 10)))
}

// pageQuery reads per_page, before, after and predicate_type.
func pageQuery(r *http.Request) (store.AttestationQuery, error) {
	q := r.URL.Query()
	f := store.AttestationQuery{Limit: rest.ParsePage(r).PerPage, PredicateType: q.Get("predicate_type")}
	var err error
	if f.After, err = cursor(q.Get("after")); err != nil {
		return f, err
	}
	if f.Before, err = cursor(q.Get("before")); err != nil {
		return f, err
	}
	return f, nil
}

// cursors are the next and previous cursors of a page of ids (newest
// first): next after its last when more follow (or it was read
// backwards), prev before its first when it is not the first.
func cursors(f store.AttestationQuery, first, last int64, n int, more bool) (next, prev string) {
	if n == 0 {
		return "", ""
	}
	if f.Before != 0 || more {
		next = encodeCursor(last)
	}
	if f.After != 0 || f.Before != 0 && more {
		prev = encodeCursor(first)
	}
	return next, prev
}

func (a *API) writeList(w http.ResponseWriter, r *http.Request, f store.AttestationQuery) error {
	list, more, err := a.svc.List(r.Context(), f)
	if err != nil {
		return err
	}
	out, err := a.render(r, list, true)
	if err != nil {
		return err
	}
	if len(list) > 0 {
		next, prev := cursors(f, list[0].ID, list[len(list)-1].ID, len(list), more)
		rest.SetCursorLink(w, r, a.d.URLs.API, next, prev)
	}
	return rest.JSON(w, http.StatusOK, map[string]any{"attestations": out})
}

func digestOf(r *http.Request) (string, error) {
	d := r.PathValue("subject_digest")
	if !svc.ValidDigest(d) {
		return "", model.ErrNotFound
	}
	return d, nil
}

// POST /repos/{owner}/{repo}/attestations
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	var body struct {
		Bundle json.RawMessage `json:"bundle"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	at, err := a.svc.Create(r.Context(), rest.Caller(r), repo, body.Bundle)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, map[string]int64{"id": at.ID})
}

// GET /repos/{owner}/{repo}/attestations/{subject_digest}
func (a *API) listRepo(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	d, err := digestOf(r)
	if err != nil {
		return err
	}
	f, err := pageQuery(r)
	if err != nil {
		return err
	}
	f.RepoID, f.Digests = repo.ID, []string{d}
	return a.writeList(w, r, f)
}

// GET /repos/{owner}/{repo}/attestations/bundles/{attestation_id} (hubd's
// bundle_url).
func (a *API) bundle(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("attestation_id"), 10, 64)
	if err != nil {
		return model.ErrNotFound
	}
	at, err := a.d.Store.R().AttestationByID(r.Context(), id)
	if err != nil {
		return err
	}
	if at.RepoID != repo.ID {
		return model.ErrNotFound
	}
	return rest.JSON(w, http.StatusOK, json.RawMessage(at.Bundle))
}

// viewer is the owner query of the caller: what they may see of owner's
// repositories.
func viewer(r *http.Request, owner *model.Account, f *store.AttestationQuery) {
	c := rest.Caller(r)
	f.OwnerID = owner.ID
	if c.Kind == authz.Installation && c.InstallationTargetID == owner.ID {
		// An installation on the owner reaches its repositories (all, or
		// those selected) and reads the public ones.
		if c.RepoIDs != nil {
			f.Reach = []int64{}
			for id, ok := range c.RepoIDs {
				if ok {
					f.Reach = append(f.Reach, id)
				}
			}
		}
		return
	}
	v := api.ViewerOf(c)
	f.Viewer = &v
}

// GET /orgs/{org}/attestations/{subject_digest}, /users/{username}/...
func (a *API) listOwner(w http.ResponseWriter, r *http.Request, owner *model.Account) error {
	d, err := digestOf(r)
	if err != nil {
		return err
	}
	f, err := pageQuery(r)
	if err != nil {
		return err
	}
	viewer(r, owner, &f)
	f.Digests = []string{d}
	return a.writeList(w, r, f)
}

// POST /orgs/{org}/attestations/bulk-list, /users/{username}/...
func (a *API) bulk(w http.ResponseWriter, r *http.Request, owner *model.Account) error {
	var body struct {
		Digests       []string `json:"subject_digests"`
		PredicateType string   `json:"predicate_type"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	if len(body.Digests) == 0 {
		return model.Invalid(resource, "subject_digests", "missing_field")
	}
	if len(body.Digests) > 1024 {
		return model.Custom(resource, "subject_digests", "subject_digests may list at most 1024 digests")
	}
	f, err := pageQuery(r)
	if err != nil {
		return err
	}
	viewer(r, owner, &f)
	f.Digests = body.Digests
	if body.PredicateType != "" {
		f.PredicateType = body.PredicateType
	}
	list, more, err := a.svc.List(r.Context(), f)
	if err != nil {
		return err
	}
	rendered, err := a.render(r, list, false)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	byDigest := map[string][]Attestation{}
	for _, d := range body.Digests {
		want[d], byDigest[d] = true, nil
	}
	for i, t := range list {
		for _, d := range t.Digests {
			if want[d] {
				byDigest[d] = append(byDigest[d], rendered[i])
			}
		}
	}
	info := map[string]any{"has_next": false, "has_previous": false}
	if len(list) > 0 {
		next, prev := cursors(f, list[0].ID, list[len(list)-1].ID, len(list), more)
		info["has_next"], info["has_previous"] = next != "", prev != ""
		if next != "" {
			info["next"] = next
		}
		if prev != "" {
			info["previous"] = prev
		}
	}
	return rest.JSON(w, http.StatusOK, map[string]any{"attestations_subject_digests": byDigest, "page_info": info})
}

const resource = "Attestation"

// remove deletes what matches and answers 200, or 404 when nothing did.
func (a *API) remove(w http.ResponseWriter, r *http.Request, owner *model.Account, digests []string, ids []int64) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return rest.ErrRequiresAuth
	}
	found, err := a.svc.Delete(r.Context(), c, owner, digests, ids)
	if err != nil {
		return err
	}
	if !found {
		return model.ErrNotFound
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// POST /orgs/{org}/attestations/delete-request, /users/{username}/...
func (a *API) deleteBulk(w http.ResponseWriter, r *http.Request, owner *model.Account) error {
	var body struct {
		Digests []string `json:"subject_digests"`
		IDs     []int64  `json:"attestation_ids"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	switch {
	case len(body.Digests) > 0 && len(body.IDs) > 0:
		return model.Unprocessable("The request body must include either subject_digests or attestation_ids, but not both.")
	case len(body.Digests) == 0 && len(body.IDs) == 0:
		return model.Unprocessable("The request body must include either subject_digests or attestation_ids.")
	case len(body.Digests) > 1024 || len(body.IDs) > 1024:
		return model.Unprocessable("At most 1024 subject_digests or attestation_ids may be deleted at once.")
	}
	return a.remove(w, r, owner, body.Digests, body.IDs)
}

// DELETE /orgs/{org}/attestations/digest/{subject_digest}, /users/...
func (a *API) deleteDigest(w http.ResponseWriter, r *http.Request, owner *model.Account) error {
	d, err := digestOf(r)
	if err != nil {
		return err
	}
	return a.remove(w, r, owner, []string{d}, nil)
}

// DELETE /orgs/{org}/attestations/{attestation_id}, /users/...
func (a *API) deleteID(w http.ResponseWriter, r *http.Request, owner *model.Account) error {
	id, err := strconv.ParseInt(r.PathValue("attestation_id"), 10, 64)
	if err != nil || id <= 0 {
		return model.ErrNotFound
	}
	return a.remove(w, r, owner, nil, []int64{id})
}

// GET /orgs/{org}/attestations/repositories
func (a *API) repos(w http.ResponseWriter, r *http.Request, owner *model.Account) error {
	f, err := pageQuery(r)
	if err != nil {
		return err
	}
	viewer(r, owner, &f)
	list, more, err := a.svc.Repos(r.Context(), f)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		out = append(out, map[string]any{"id": x.ID, "name": x.Name})
	}
	if len(list) > 0 {
		next, prev := cursors(f, list[0].ID, list[len(list)-1].ID, len(list), more)
		rest.SetCursorLink(w, r, a.d.URLs.API, next, prev)
	}
	return rest.JSON(w, http.StatusOK, out)
}
