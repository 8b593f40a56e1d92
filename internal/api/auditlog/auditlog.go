// Package auditlog is the REST transport of the audit log (internal/audit):
// an organization's and the enterprise's log, searched with GitHub's phrase
// and paged with cursors.
package auditlog

import (
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/audit"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/secrets"
	"github.com/hubd/hubd/internal/store"
)

// API is the package.
type API struct {
	d       *api.Deps
	svc     *audit.Service
	streams *audit.Streams
}

// New makes the package: streams keep their tokens in sec and send
// through client (the webhooks' delivery client, with its policy).
func New(d *api.Deps, sec *secrets.Service, client func(insecure bool) *http.Client) *API {
	return &API{d: d, svc: audit.New(d.Store), streams: audit.NewStreams(&audit.Streams{Store: d.Store, Secrets: sec, Jobs: d.Jobs,
		Client: client, Business: d.URLs.EnterpriseSlug()})}
}

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
		out = append(out, audit.Document(e, business))
	}
	rest.SetCursorLink(w, r, a.d.URLs.API, page.Next, page.Prev)
	return rest.JSON(w, http.StatusOK, out)
}
