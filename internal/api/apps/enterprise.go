package apps

import (
	"errors"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// The enterprise's "Organization installations" operations: a GitHub App
// installed on hubd's enterprise (its installation token, or a user access
// token of it for a site administrator, who own the enterprise) installs
// apps on the enterprise's organizations — every organization of hubd —
// and manages their repositories. GitHub takes no other credential here:
// "This API can only be called by a GitHub App installed on the
// enterprise".

// errNotEnterpriseApp answers credentials that are not an app installed on
// the enterprise.
var errNotEnterpriseApp = model.Forbidden("Resource not accessible by integration")

// enterpriseCaller checks {enterprise} (404 for another slug) and that the
// caller is an app installed on the enterprise: its installation token, or
// its user access token for a site administrator.
func (a *API) enterpriseCaller(r *http.Request) (*authz.Caller, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return nil, rest.ErrRequiresAuth
	}
	if !strings.EqualFold(r.PathValue("enterprise"), a.d.URLs.EnterpriseSlug()) {
		return nil, model.ErrNotFound
	}
	ctx := r.Context()
	switch c.Kind {
	case authz.Installation:
		in, err := a.d.Store.R().InstallationByID(ctx, c.InstallationID)
		if errors.Is(err, model.ErrNotFound) || (err == nil && !in.Enterprise) {
			return nil, errNotEnterpriseApp
		}
		return c, err
	case authz.UserToServer:
		if !c.SiteAdmin() {
			return nil, errNotEnterpriseApp
		}
		_, err := a.d.Store.R().EnterpriseInstallation(ctx, c.AppID)
		if errors.Is(err, model.ErrNotFound) {
			return nil, errNotEnterpriseApp
		}
		return c, err
	case authz.FineGrained:
		return nil, model.Forbidden(authz.ErrPATMessage)
	}
	return nil, model.Forbidden(authz.ErrPATMessage)
}

// GET /enterprises/{enterprise}/installation: the JWT's app's installation
// on the enterprise (404 when there is none).
func (a *API) enterpriseInstallation(w http.ResponseWriter, r *http.Request) error {
	c, err := requireJWT(r)
	if err != nil {
		return err
	}
	if !strings.EqualFold(r.PathValue("enterprise"), a.d.URLs.EnterpriseSlug()) {
		return model.ErrNotFound
	}
	in, err := a.d.Store.R().EnterpriseInstallation(r.Context(), c.AppID)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToInstallation(in))
}

// enterpriseOrg is {org}, one of the enterprise's organizations (every
// organization of hubd).
func (a *API) enterpriseOrg(r *http.Request) (*authz.Caller, *model.Account, error) {
	c, err := a.enterpriseCaller(r)
	if err != nil {
		return nil, nil, err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, nil, err
	}
	return c, org, nil
}

// orgAppInstallation is {installation_id}, an installation on {org}.
func (a *API) orgAppInstallation(r *http.Request) (*authz.Caller, *model.Installation, error) {
	c, org, err := a.enterpriseOrg(r)
	if err != nil {
		return nil, nil, err
	}
	id, err := installationParam(r)
	if err != nil {
		return nil, nil, err
	}
	in, err := a.d.Store.R().InstallationByID(r.Context(), id)
	if err != nil {
		return nil, nil, err
	}
	if in.Enterprise || in.AccountID != org.ID {
		return nil, nil, model.ErrNotFound
	}
	return c, in, nil
}

// GET /enterprises/{enterprise}/apps/installable_organizations
func (a *API) installableOrgs(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.enterpriseCaller(r); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().OrgsPage(r.Context(), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	base := a.d.URLs.API + "/enterprises/" + a.d.URLs.EnterpriseSlug() + "/apps/installable_organizations/"
	out := make([]wire.InstallableOrganization, len(list))
	for i, o := range list {
		out[i] = wire.InstallableOrganization{ID: o.ID, Login: o.Login, AccessibleRepositoriesURL: base + o.Login + "/accessible_repositories"}
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /enterprises/{enterprise}/apps/installable_organizations/{org}/accessible_repositories
func (a *API) orgAccessibleRepos(w http.ResponseWriter, r *http.Request) error {
	_, org, err := a.enterpriseOrg(r)
	if err != nil {
		return err
	}
	return a.writeAccessibleRepos(w, r, &model.Installation{AccountID: org.ID, Selection: model.SelectAll})
}

// writeAccessibleRepos answers one page of the repositories an
// installation reaches as Accessible Repository objects.
func (a *API) writeAccessibleRepos(w http.ResponseWriter, r *http.Request, in *model.Installation) error {
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().InstallationRepos(r.Context(), store.InstallationReposQuery{Installation: in, Limit: p.Limit(), Offset: p.Offset()})
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, accessibleRepos(list))
}

func accessibleRepos(list []*store.RepoView) []wire.AccessibleRepository {
	out := make([]wire.AccessibleRepository, len(list))
	for i, v := range list {
		out[i] = wire.AccessibleRepository{ID: v.Repo.ID, Name: v.Repo.Name, FullName: v.Repo.FullName()}
	}
	return out
}

// GET /enterprises/{enterprise}/apps/organizations/{org}/installations
func (a *API) enterpriseOrgInstallations(w http.ResponseWriter, r *http.Request) error {
	_, org, err := a.enterpriseOrg(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().AccountInstallations(r.Context(), org.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.EnterpriseOrgInstallation, len(list))
	for i, in := range list {
		out[i] = a.d.URLs.ToEnterpriseOrgInstallation(in)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// enterpriseInstallBody is POST .../organizations/{org}/installations and
// PATCH .../installations/{installation_id}/repositories.
type enterpriseInstallBody struct {
	ClientID     *string  `json:"client_id"`
	Selection    *string  `json:"repository_selection"`
	Repositories []string `json:"repositories"`
}

// repoIDsByName finds the account's repositories by name: 422 for a name
// that is none of them.
func (a *API) repoIDsByName(r *http.Request, accountID int64, names []string) ([]int64, error) {
	byName, err := a.d.Store.R().ReposOfAccountByName(r.Context(), accountID, names)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(names))
	for _, n := range names {
		id, ok := byName[strings.ToLower(n)]
		if !ok {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Installation", Field: "repositories", Code: "invalid", Value: n}}}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// POST /enterprises/{enterprise}/apps/organizations/{org}/installations:
// 201 with a new installation, 200 with the one already there.
func (a *API) enterpriseInstall(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.enterpriseOrg(r)
	if err != nil {
		return err
	}
	var body enterpriseInstallBody
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	if body.ClientID == nil || *body.ClientID == "" {
		return model.Invalid("Installation", "client_id", "missing_field")
	}
	if body.Selection == nil {
		return model.Invalid("Installation", "repository_selection", "missing_field")
	}
	sel := *body.Selection
	if sel != model.SelectAll && sel != model.SelectSelected && sel != "none" {
		return model.Invalid("Installation", "repository_selection", "invalid")
	}
	ctx := r.Context()
	app, err := a.d.Store.R().AppByClientID(ctx, *body.ClientID)
	if errors.Is(err, model.ErrNotFound) {
		return model.Invalid("Installation", "client_id", "invalid")
	}
	if err != nil {
		return err
	}
	var ids []int64
	if sel == model.SelectSelected {
		if len(body.Repositories) == 0 {
			return model.Invalid("Installation", "repositories", "missing_field")
		}
		if ids, err = a.repoIDsByName(r, org.ID, body.Repositories); err != nil {
			return err
		}
	}
	in, created, err := a.svc.InstallOnOrg(ctx, c.UserID(), app, org, sel, ids)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return rest.JSON(w, status, a.d.URLs.ToInstallation(in))
}

// DELETE /enterprises/{enterprise}/apps/organizations/{org}/installations/{installation_id}
func (a *API) enterpriseUninstall(w http.ResponseWriter, r *http.Request) error {
	c, in, err := a.orgAppInstallation(r)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), c.UserID(), in); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET .../installations/{installation_id}/repositories
func (a *API) enterpriseInstallationRepos(w http.ResponseWriter, r *http.Request) error {
	_, in, err := a.orgAppInstallation(r)
	if err != nil {
		return err
	}
	return a.writeAccessibleRepos(w, r, in)
}

// PATCH .../installations/{installation_id}/repositories: the selection
// replaced.
func (a *API) enterpriseSetRepos(w http.ResponseWriter, r *http.Request) error {
	c, in, err := a.orgAppInstallation(r)
	if err != nil {
		return err
	}
	var body enterpriseInstallBody
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	if body.Selection == nil {
		return model.Invalid("Installation", "repository_selection", "missing_field")
	}
	var ids []int64
	switch *body.Selection {
	case model.SelectAll:
	case model.SelectSelected:
		if len(body.Repositories) == 0 {
			return model.Invalid("Installation", "repositories", "missing_field")
		}
		if ids, err = a.repoIDsByName(r, in.AccountID, body.Repositories); err != nil {
			return err
		}
	default:
		return model.Invalid("Installation", "repository_selection", "invalid")
	}
	if err := a.svc.SetSelection(r.Context(), c.UserID(), in, *body.Selection == model.SelectAll, ids); err != nil {
		return err
	}
	in, err = a.d.Store.R().InstallationByID(r.Context(), in.ID)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToInstallation(in))
}

// PATCH .../repositories/add
func (a *API) enterpriseAddRepos(w http.ResponseWriter, r *http.Request) error {
	return a.enterpriseChangeRepos(w, r, true)
}

// PATCH .../repositories/remove
func (a *API) enterpriseRemoveRepos(w http.ResponseWriter, r *http.Request) error {
	return a.enterpriseChangeRepos(w, r, false)
}

// enterpriseChangeRepos adds or removes the named repositories and answers
// them.
func (a *API) enterpriseChangeRepos(w http.ResponseWriter, r *http.Request, add bool) error {
	c, in, err := a.orgAppInstallation(r)
	if err != nil {
		return err
	}
	var body struct {
		Repositories []string `json:"repositories"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	if len(body.Repositories) == 0 {
		return model.Invalid("Installation", "repositories", "missing_field")
	}
	ids, err := a.repoIDsByName(r, in.AccountID, body.Repositories)
	if err != nil {
		return err
	}
	if err := a.svc.SetRepositories(r.Context(), c.UserID(), in, ids, add); err != nil {
		return err
	}
	list, _, err := a.d.Store.R().InstallationRepos(r.Context(), store.InstallationReposQuery{
		Installation: &model.Installation{AccountID: in.AccountID, Selection: model.SelectAll}, RepoIDs: ids, Limit: len(ids)})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, accessibleRepos(list))
}
