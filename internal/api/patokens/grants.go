package patokens

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

var errApps = model.Forbidden("Resource not accessible by integration")

// orgFor finds the organization of the path and checks the caller may
// manage its fine-grained tokens: an installation on it (its permission
// was checked before the route ran) or an owner through a GitHub App's
// user access token. GitHub refuses personal access tokens and OAuth apps.
func (a *API) orgFor(r *http.Request) (*model.Account, *authz.Caller, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return nil, nil, rest.ErrRequiresAuth
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, nil, err
	}
	switch c.Kind {
	case authz.Installation:
		if c.InstallationTargetID != org.ID {
			return nil, nil, errApps
		}
	case authz.UserToServer:
		m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.UserID())
		if err == model.ErrNotFound || err == nil && (m.State != store.StateActive || m.Role != model.RoleAdmin) {
			return nil, nil, errApps
		}
		if err != nil {
			return nil, nil, err
		}
	case authz.ClassicPAT, authz.FineGrained:
		return nil, nil, model.Forbidden(authz.ErrPATMessage)
	default:
		return nil, nil, errApps
	}
	return org, c, nil
}

// query reads the list filters of both lists.
func query(r *http.Request, org *model.Account, status string) (store.PATGrantQuery, error) {
	q := r.URL.Query()
	f := store.PATGrantQuery{OrgID: org.ID, Status: status, Permission: q.Get("permission")}
	if s := q.Get("sort"); s != "" && s != "created_at" {
		return f, model.Invalid("PersonalAccessToken", "sort", "invalid")
	}
	switch q.Get("direction") {
	case "", "desc":
	case "asc":
		f.Asc = true
	default:
		return f, model.Invalid("PersonalAccessToken", "direction", "invalid")
	}
	f.Owners = append(q["owner[]"], q["owner"]...)
	if len(f.Owners) > 10 {
		return f, model.Invalid("PersonalAccessToken", "owner", "invalid")
	}
	ids := append(q["token_id[]"], q["token_id"]...)
	if len(ids) > 50 {
		return f, model.Invalid("PersonalAccessToken", "token_id", "invalid")
	}
	for _, s := range ids {
		for _, part := range strings.Split(s, ",") {
			id, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
			if err != nil {
				return f, model.Invalid("PersonalAccessToken", "token_id", "invalid")
			}
			f.TokenIDs = append(f.TokenIDs, id)
		}
	}
	for _, k := range []string{"last_used_before", "last_used_after"} {
		if v := q.Get(k); v != "" {
			if _, err := time.Parse(time.RFC3339, v); err != nil {
				return f, model.Invalid("PersonalAccessToken", k, "invalid")
			}
			f.LastUsed = true
		}
	}
	return f, nil
}

// list answers one page of grants in a state.
func (a *API) list(w http.ResponseWriter, r *http.Request, status string, convert func(*store.PATGrant, string, time.Time) any) error {
	org, _, err := a.orgFor(r)
	if err != nil {
		return err
	}
	f, err := query(r, org, status)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if name := r.URL.Query().Get("repository"); name != "" {
		found, err := a.d.Store.R().ReposOfAccountByName(ctx, org.ID, []string{name})
		if err != nil {
			return err
		}
		if f.RepoID = found[strings.ToLower(name)]; f.RepoID == 0 {
			f.RepoID = -1 // no such repository: no token reaches it
		}
	}
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	list, total, err := a.d.Store.R().PATGrants(ctx, f)
	if err != nil {
		return err
	}
	now := a.d.Store.Now()
	out := make([]any, len(list))
	for i, g := range list {
		out[i] = convert(g, org.Login, now)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /orgs/{org}/personal-access-token-requests
func (a *API) listRequests(w http.ResponseWriter, r *http.Request) error {
	return a.list(w, r, store.PATPending, func(g *store.PATGrant, org string, now time.Time) any {
		return a.d.URLs.ToPATGrantRequest(grantFacts(g), org, now)
	})
}

// GET /orgs/{org}/personal-access-tokens
func (a *API) listGrants(w http.ResponseWriter, r *http.Request) error {
	return a.list(w, r, store.PATApproved, func(g *store.PATGrant, org string, now time.Time) any {
		return a.d.URLs.ToPATGrant(grantFacts(g), org, now)
	})
}

// grantFacts is what wire says of g.
func grantFacts(g *store.PATGrant) wire.PATGrantFacts {
	return wire.PATGrantFacts{ID: g.ID, Reason: g.Reason, CreatedAt: g.CreatedAt, GrantedAt: g.GrantedAt, Owner: g.Owner,
		TokenID: g.Token.ID, TokenName: g.Token.Name, Selection: g.Token.Selection, Permissions: g.Token.Permissions,
		TokenExpiresAt: g.Token.ExpiresAt}
}

// pathID reads a numeric path parameter (404 when it is not one).
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

type reviewBody struct {
	IDs    []int64          `json:"pat_request_ids"`
	Action rest.Opt[string] `json:"action"`
	Reason rest.Opt[string] `json:"reason"`
}

func (b reviewBody) reason() *string {
	if v, ok := b.Reason.Get(); ok {
		return &v
	}
	return nil
}

// POST /orgs/{org}/personal-access-token-requests: review several requests.
func (a *API) reviewBulk(w http.ResponseWriter, r *http.Request) error {
	org, c, err := a.orgFor(r)
	if err != nil {
		return err
	}
	var in reviewBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	action, _ := in.Action.Get()
	if action == "" {
		return model.Invalid("PersonalAccessTokenRequest", "action", "missing_field")
	}
	if len(in.IDs) == 0 || len(in.IDs) > 100 {
		return model.Invalid("PersonalAccessTokenRequest", "pat_request_ids", "invalid")
	}
	if err := a.svc.Review(r.Context(), org, c.UserID(), in.IDs, action, in.reason()); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, map[string]any{})
}

// POST /orgs/{org}/personal-access-token-requests/{pat_request_id}
func (a *API) reviewOne(w http.ResponseWriter, r *http.Request) error {
	org, c, err := a.orgFor(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "pat_request_id")
	if err != nil {
		return err
	}
	var in reviewBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	action, _ := in.Action.Get()
	if action == "" {
		return model.Invalid("PersonalAccessTokenRequest", "action", "missing_field")
	}
	if err := a.svc.Review(r.Context(), org, c.UserID(), []int64{id}, action, in.reason()); err != nil {
		return err
	}
	return rest.NoContent(w)
}

type revokeBody struct {
	IDs    []int64          `json:"pat_ids"`
	Action rest.Opt[string] `json:"action"`
}

func (b revokeBody) check(bulk bool) error {
	switch action, _ := b.Action.Get(); action {
	case "":
		return model.Invalid("PersonalAccessToken", "action", "missing_field")
	case "revoke":
	default:
		return model.Invalid("PersonalAccessToken", "action", "invalid")
	}
	if bulk && (len(b.IDs) == 0 || len(b.IDs) > 100) {
		return model.Invalid("PersonalAccessToken", "pat_ids", "invalid")
	}
	return nil
}

// POST /orgs/{org}/personal-access-tokens: revoke several grants.
func (a *API) revokeBulk(w http.ResponseWriter, r *http.Request) error {
	org, c, err := a.orgFor(r)
	if err != nil {
		return err
	}
	var in revokeBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if err := in.check(true); err != nil {
		return err
	}
	if err := a.svc.Revoke(r.Context(), org, c.UserID(), in.IDs); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, map[string]any{})
}

// POST /orgs/{org}/personal-access-tokens/{pat_id}
func (a *API) revokeOne(w http.ResponseWriter, r *http.Request) error {
	org, c, err := a.orgFor(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "pat_id")
	if err != nil {
		return err
	}
	var in revokeBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if err := in.check(false); err != nil {
		return err
	}
	if err := a.svc.Revoke(r.Context(), org, c.UserID(), []int64{id}); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// repos answers one page of the repositories a grant's token reaches in
// the organization: all of them, the selected ones, or none.
func (a *API) repos(w http.ResponseWriter, r *http.Request, param, status string) error {
	org, c, err := a.orgFor(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, param)
	if err != nil {
		return err
	}
	ctx := r.Context()
	g, err := a.d.Store.R().PATGrant(ctx, org.ID, id, status)
	if err != nil {
		return err
	}
	f := store.InstallationReposQuery{Installation: &model.Installation{AccountID: org.ID, Selection: model.SelectAll}, ViewerID: c.UserID()}
	if g.Token.Selection != authz.SelectionAll {
		f.RepoIDs = append([]int64{}, g.Token.RepoIDs...)
	}
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	list, total, err := a.d.Store.R().InstallationRepos(ctx, f)
	if err != nil {
		return err
	}
	out, err := repos.MinimalList(ctx, a.d, c, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /orgs/{org}/personal-access-token-requests/{pat_request_id}/repositories
func (a *API) requestRepos(w http.ResponseWriter, r *http.Request) error {
	return a.repos(w, r, "pat_request_id", store.PATPending)
}

// GET /orgs/{org}/personal-access-tokens/{pat_id}/repositories
func (a *API) grantRepos(w http.ResponseWriter, r *http.Request) error {
	return a.repos(w, r, "pat_id", store.PATApproved)
}
