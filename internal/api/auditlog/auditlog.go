// Package auditlog is the REST transport of the audit log (internal/audit):
// an organization's and the enterprise's log, searched with GitHub's phrase
// and paged with cursors.
package auditlog

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/audit"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *audit.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: audit.New(d.Store)} }

const noteLog = "Entries are recorded for sign-in, token creation and revocation, SSH/GPG keys, organization and " +
	"team membership, repository collaborators and invitations, roles, branch protection, rulesets, secrets, hooks, " +
	"app installations, repository create/delete/transfer/rename/visibility/archive, SCIM provisioning and pushes " +
	"(include=git); other actions are not audited yet. Entries carry no actor_location, user_agent or request_id."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return append([]rest.Route{
		{Method: "GET", Pattern: "/orgs/{org}/audit-log", OperationID: "orgs/get-audit-log", Handler: a.orgLog,
			Scopes: []string{"read:audit_log"}, Note: noteLog},
		{Method: "GET", Pattern: "/enterprises/{enterprise}/audit-log", OperationID: "enterprise-admin/get-audit-log", Handler: a.enterpriseLog,
			Scopes: []string{"read:audit_log"}, Note: noteLog},
	}, a.streamRoutes()...)
}

// GET /orgs/{org}/audit-log
func (a *API) orgLog(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return rest.ErrRequiresAuth
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	if err := a.mayReadOrg(r, c, org); err != nil {
		return err
	}
	q, err := query(r)
	if err != nil {
		return err
	}
	q.OrgID = org.ID
	return a.answer(w, r, q, "")
}

// mayReadOrg: an owner of org with a read:audit_log (or admin:org) token,
// or an installation on org with organization_administration (checked by
// the route's permission rule).
func (a *API) mayReadOrg(r *http.Request, c *authz.Caller, org *model.Account) error {
	switch c.Kind {
	case authz.Installation:
		in, err := a.d.Store.R().InstallationByID(r.Context(), c.InstallationID)
		if errors.Is(err, model.ErrNotFound) || err == nil && (in.Enterprise || in.AccountID != org.ID) {
			return model.Forbidden("Resource not accessible by integration")
		}
		return err
	case authz.FineGrained, authz.UserToServer:
		if c.Permissions["organization_administration"] == "" {
			if c.Kind == authz.UserToServer {
				return model.Forbidden("Resource not accessible by integration")
			}
			return model.Forbidden("Resource not accessible by personal access token")
		}
	default:
		if !c.HasScope("read:audit_log") {
			return model.Forbidden("Resource not accessible by personal access token")
		}
	}
	if c.User == nil {
		return model.Forbidden("Resource not accessible by integration")
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.User.ID)
	if errors.Is(err, model.ErrNotFound) || err == nil && (m.State != store.StateActive || m.Role != model.RoleAdmin) {
		return model.Forbidden("Must have admin rights to Repository.")
	}
	return err
}

// GET /enterprises/{enterprise}/audit-log
func (a *API) enterpriseLog(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.d.RequireEnterpriseOwner(r, "read:audit_log", "read the audit log"); err != nil {
		return err
	}
	q, err := query(r)
	if err != nil {
		return err
	}
	return a.answer(w, r, q, a.d.URLs.EnterpriseSlug())
}

// query reads phrase, include, order, after, before and per_page.
func query(r *http.Request) (model.AuditQuery, error) {
	v := r.URL.Query()
	q := model.AuditQuery{Limit: rest.ParsePage(r).PerPage}
	switch inc := v.Get("include"); inc {
	case "", "web", "git", "all":
		q.Include = inc
	default:
		return q, model.Unprocessable("Invalid include: must be one of web, git, all")
	}
	switch o := v.Get("order"); o {
	case "", "desc":
	case "asc":
		q.Asc = true
	default:
		return q, model.Unprocessable("Invalid order: must be one of asc, desc")
	}
	var err error
	if q.After, err = audit.ParseCursor(v.Get("after")); err != nil {
		return q, err
	}
	if q.Before, err = audit.ParseCursor(v.Get("before")); err != nil {
		return q, err
	}
	return q, audit.ParsePhrase(v.Get("phrase"), &q)
}

func (a *API) answer(w http.ResponseWriter, r *http.Request, q model.AuditQuery, business string) error {
	page, err := a.svc.Search(r.Context(), q)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(page.Entries))
	for _, e := range page.Entries {
		out = append(out, Entry(e, business))
	}
	rest.SetCursorLink(w, r, a.d.URLs.API, page.Next, page.Prev)
	return rest.JSON(w, http.StatusOK, out)
}

// Entry is components/schemas/audit-log-event: the entry's fields as
// GitHub names them, its details under data (and the few the schema names
// at the top level); business is the enterprise's slug ("" in an
// organization's log).
func Entry(e model.AuditEntry, business string) map[string]any {
	ms := e.CreatedAt.UnixMilli()
	m := map[string]any{
		"@timestamp":     ms,
		"created_at":     ms,
		"_document_id":   base64.RawURLEncoding.EncodeToString([]byte("audit-" + strconv.FormatInt(e.ID, 10))),
		"action":         e.Action,
		"operation_type": operationType(e.Action),
	}
	if e.Actor != "" || e.ActorID != 0 {
		m["actor"], m["actor_id"] = e.Actor, e.ActorID
	}
	if e.User != "" {
		m["user"], m["user_id"] = e.User, e.UserID
	}
	if e.Org != "" {
		m["org"], m["org_id"] = e.Org, e.OrgID
	}
	if e.Repo != "" {
		m["repo"], m["repository"] = e.Repo, e.Repo
	}
	if business != "" {
		m["business"] = business
	}
	data := map[string]any{}
	if err := json.Unmarshal(e.Data, &data); err == nil {
		if v, ok := data["hook_id"].(float64); ok {
			m["hook_id"] = int64(v)
		}
		for _, k := range []string{"visibility", "previous_visibility", "name"} {
			if v, ok := data[k].(string); ok {
				m[k] = v
			}
		}
		if v, ok := data["active"].(bool); ok {
			m["active"] = v
		}
		m["data"] = data
	}
	return m
}

// operationType is GitHub's operation_type of an action.
func operationType(action string) string {
	_, op, _ := strings.Cut(action, ".")
	switch {
	case action == "user.login":
		return "authentication"
	case action == "repo.transfer":
		return "transfer"
	case action == "repo.access":
		return "access"
	case op == "create" || op == "provision" || strings.HasPrefix(op, "create_") || strings.HasPrefix(op, "add_") || op == "invite_member" || op == "push":
		return "create"
	case op == "destroy" || op == "delete" || op == "deprovision" || strings.HasPrefix(op, "remove_") || op == "access_revoked":
		return "remove"
	}
	return "modify"
}
