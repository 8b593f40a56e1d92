// Package scim is the REST transport of SCIM 2.0 provisioning
// (internal/scim): GitHub's enterprise paths
// /scim/v2/enterprises/{enterprise}/Users|Groups and GHES's
// /scim/v2/Users|Groups, one implementation for both. Bodies are
// application/scim+json; errors are SCIM's error JSON (with GitHub's
// message and documentation_url).
package scim

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/scim"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API {
	s := svc.New(d.Store)
	s.Changed = d.Tokens.Flush
	return &API{d: d, svc: s}
}

// Scope is the classic scope SCIM needs.
const Scope = "scim:enterprise"

const noteSCIM = "GitHub Enterprise Server's SCIM: a provisioned user is a hubd user without a password (an administrator issues their token); " +
	"the login is the userName's local part, normalized. Roles: enterprise_owner makes a site administrator; guest_collaborator and billing_manager are recorded only. " +
	"Filters take one attribute with eq. Groups are enterprise teams."

// Routes is the package's route table: the enterprise paths under their
// operationIds, and GHES's enterprise-less paths as hubd extensions.
func (a *API) Routes() []rest.Route {
	sc := []string{Scope}
	type op struct {
		method, sub, id string
		h               func(base string) rest.Handler
	}
	ops := []op{
		{"GET", "/Users", "list-provisioned-identities-enterprise", a.listUsers},
		{"POST", "/Users", "provision-enterprise-user", a.createUser},
		{"GET", "/Users/{scim_user_id}", "get-provisioning-information-for-enterprise-user", a.getUser},
		{"PUT", "/Users/{scim_user_id}", "set-information-for-provisioned-enterprise-user", a.putUser},
		{"PATCH", "/Users/{scim_user_id}", "update-attribute-for-enterprise-user", a.patchUser},
		{"DELETE", "/Users/{scim_user_id}", "delete-user-from-enterprise", a.deleteUser},
		{"GET", "/Groups", "list-provisioned-groups-enterprise", a.listGroups},
		{"POST", "/Groups", "provision-enterprise-group", a.createGroup},
		{"GET", "/Groups/{scim_group_id}", "get-provisioning-information-for-enterprise-group", a.getGroup},
		{"PUT", "/Groups/{scim_group_id}", "set-information-for-provisioned-enterprise-group", a.putGroup},
		{"PATCH", "/Groups/{scim_group_id}", "update-attribute-for-enterprise-group", a.patchGroup},
		{"DELETE", "/Groups/{scim_group_id}", "delete-scim-group-from-enterprise", a.deleteGroup},
	}
	var out []rest.Route
	for _, o := range ops {
		out = append(out,
			rest.Route{Method: o.method, Pattern: "/scim/v2/enterprises/{enterprise}" + o.sub, OperationID: "enterprise-admin/" + o.id,
				Handler: o.h("/scim/v2/enterprises/{enterprise}"), Scopes: sc, Note: noteSCIM},
			rest.Route{Method: o.method, Pattern: "/scim/v2" + o.sub, OperationID: "hubd/scim-" + o.id,
				Handler: o.h("/scim/v2"), Scopes: sc, Extension: true})
	}
	return out
}

// serve authorizes the caller and turns the handler's errors into SCIM's
// error JSON.
func (a *API) serve(h func(w http.ResponseWriter, r *http.Request, c *authz.Caller, base string) error, base string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := a.d.RequireEnterpriseOwner(r, Scope, "use SCIM")
		if err == nil {
			err = h(w, r, c, a.d.URLs.API+strings.Replace(base, "{enterprise}", a.d.URLs.EnterpriseSlug(), 1))
		}
		if err == nil {
			return nil
		}
		return writeError(w, r, err)
	}
}

// one answers with the one resource get makes, rendered; a created one
// also gets its Location.
func one[T any, V interface{ location() string }](a *API, base string, status int, render func(T, string) V,
	get func(r *http.Request, c *authz.Caller) (T, error)) rest.Handler {
	return a.serve(func(w http.ResponseWriter, r *http.Request, c *authz.Caller, base string) error {
		v, err := get(r, c)
		if err != nil {
			return err
		}
		out := render(v, base)
		if status == http.StatusCreated {
			w.Header().Set("Location", out.location())
		}
		return writeSCIM(w, status, out)
	}, base)
}

// ErrorBody is SCIM's error JSON (RFC 7644 3.12) with GitHub's fields.
type ErrorBody struct {
	Schemas []string `json:"schemas"`
	// Status is a number, as GitHub's scim-error has it, except on 404,
	// which GitHub answers with basic-error's string (RFC 7644's type).
	Status           any     `json:"status"`
	ScimType         *string `json:"scimType,omitempty"`
	Detail           string  `json:"detail"`
	Message          string  `json:"message"`
	DocumentationURL string  `json:"documentation_url"`
}

const errorSchema = "urn:ietf:params:scim:api:messages:2.0:Error"

func writeError(w http.ResponseWriter, r *http.Request, err error) error {
	var (
		se *svc.Error
		he *model.HTTPError
	)
	status, detail, typ := 0, "", ""
	switch {
	case errors.As(err, &se):
		status, detail, typ = se.Status, se.Detail, se.Type
	case errors.Is(err, model.ErrNotFound):
		status, detail = http.StatusNotFound, "Not Found"
	case errors.As(err, &he) && he.Status < 500:
		status, detail = he.Status, he.Message
	default:
		return err // rest's 500
	}
	var st any = status
	if status == http.StatusNotFound {
		st = strconv.Itoa(status)
	}
	body := ErrorBody{Schemas: []string{errorSchema}, Status: st, Detail: detail, Message: detail,
		DocumentationURL: rest.From(r).DocsURL}
	if body.DocumentationURL == "" {
		body.DocumentationURL = rest.DefaultDocs
	}
	if typ != "" {
		body.ScimType = &typ
	}
	return writeSCIM(w, status, body)
}

// writeSCIM answers with a SCIM JSON body.
func writeSCIM(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/scim+json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}

// decode reads a JSON object body; anything else is 400 invalidSyntax.
func decode(r *http.Request) (map[string]any, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, &svc.Error{Status: http.StatusBadRequest, Type: svc.InvalidSyntax, Detail: "The body must be a JSON object."}
	}
	return m, nil
}

// decodeOps reads a PatchOp body's Operations.
func decodeOps(r *http.Request) ([]svc.Op, error) {
	m, err := decode(r)
	if err != nil {
		return nil, err
	}
	var raw any
	for k, v := range m {
		if strings.EqualFold(k, "Operations") {
			raw = v
		}
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, &svc.Error{Status: http.StatusBadRequest, Type: svc.InvalidSyntax, Detail: "Operations must be an array."}
	}
	ops := make([]svc.Op, 0, len(list))
	for _, x := range list {
		o, ok := x.(map[string]any)
		if !ok {
			return nil, &svc.Error{Status: http.StatusBadRequest, Type: svc.InvalidSyntax, Detail: "Each operation must be an object."}
		}
		var op svc.Op
		for k, v := range o {
			switch strings.ToLower(k) {
			case "op":
				op.Op, _ = v.(string)
			case "path":
				op.Path, _ = v.(string)
			case "value":
				op.Value = v
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// paging reads startIndex and count (count defaults to 30, GitHub's).
func paging(r *http.Request) (int, int) {
	q := r.URL.Query()
	start, err := strconv.Atoi(q.Get("startIndex"))
	if err != nil {
		start = 1
	}
	count, err := strconv.Atoi(q.Get("count"))
	if err != nil {
		count = 30
	}
	return start, count
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ListResponse is SCIM's list (RFC 7644 3.4.2).
type ListResponse[T any] struct {
	Schemas      []string `json:"schemas"`
	TotalResults int      `json:"totalResults"`
	Resources    []T      `json:"Resources"`
	StartIndex   int      `json:"startIndex"`
	ItemsPerPage int      `json:"itemsPerPage"`
}

func list[T any](w http.ResponseWriter, items []T, total, start int) error {
	if start < 1 {
		start = 1
	}
	return writeSCIM(w, http.StatusOK, ListResponse[T]{Schemas: []string{"urn:ietf:params:scim:api:messages:2.0:ListResponse"},
		TotalResults: total, Resources: items, StartIndex: start, ItemsPerPage: len(items)})
}

// Meta is a resource's meta.
type Meta struct {
	ResourceType string `json:"resourceType"`
	Created      string `json:"created"`
	LastModified string `json:"lastModified"`
	Location     string `json:"location"`
	Version      string `json:"version,omitempty"`
}
