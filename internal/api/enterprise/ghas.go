package enterprise

import (
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

const noteGHAS = "Active committers are computed from pushes: a job reads each push's new commits and matches their author " +
	"and committer addresses to hubd users (their email or no-reply address); a user is active on a private or internal " +
	"organization repository with Advanced Security enabled (PATCH /repos/{owner}/{repo} security_and_analysis) for 90 days " +
	"after their last push. purchased_advanced_security_committers is left out: hubd sells no licences. hubd has the bundled " +
	"plan, so advanced_security_product (for the standalone products) is refused."

func (a *API) ghasRoutes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/enterprises/{enterprise}/settings/billing/advanced-security", OperationID: "billing/get-github-advanced-security-billing-ghe",
			Handler: a.ghasEnterprise, Scopes: []string{"read:enterprise", "manage_billing:enterprise", "admin:enterprise"}, Note: noteGHAS},
		{Method: "GET", Pattern: "/orgs/{org}/settings/billing/advanced-security", OperationID: "billing/get-github-advanced-security-billing-org",
			Handler: a.ghasOrg, Scopes: []string{"read:org", "admin:org"}, Note: noteGHAS},
	}
}

// ActiveCommitters is components/schemas/advanced-security-active-committers.
type ActiveCommitters struct {
	Total   int                `json:"total_advanced_security_committers"`
	Count   int                `json:"total_count"`
	Maximum int                `json:"maximum_advanced_security_committers"`
	Repos   []CommittersOfRepo `json:"repositories"`
}

// CommittersOfRepo is components/schemas/advanced-security-active-committers-repository.
type CommittersOfRepo struct {
	Name      string            `json:"name"`
	Count     int               `json:"advanced_security_committers"`
	Breakdown []ActiveCommitter `json:"advanced_security_committers_breakdown"`
}

// ActiveCommitter is components/schemas/advanced-security-active-committers-user.
type ActiveCommitter struct {
	Login    string `json:"user_login"`
	LastDate string `json:"last_pushed_date"`
	Email    string `json:"last_pushed_email"`
}

// GET /enterprises/{enterprise}/settings/billing/advanced-security
func (a *API) ghasEnterprise(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.billingOwner(r, false); err != nil {
		return err
	}
	return a.ghasAnswer(w, r, 0)
}

// GET /orgs/{org}/settings/billing/advanced-security: the organization's
// owners (apps installed on it with Organization administration).
func (a *API) ghasOrg(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return rest.ErrRequiresAuth
	}
	ctx := r.Context()
	org, err := a.d.Store.R().OrgByLogin(ctx, r.PathValue("org"))
	if err != nil {
		return err
	}
	if done, err := c.OrgToken(org.ID, "read:org"); done {
		if err != nil {
			return err
		}
		return a.ghasAnswer(w, r, org.ID)
	}
	m, err := a.d.Store.R().Membership(ctx, org.ID, c.UserID())
	if err != nil && !errors.Is(err, model.ErrNotFound) {
		return err
	}
	if m == nil || m.State != "active" {
		return model.ErrNotFound
	}
	if m.Role != model.RoleAdmin {
		return model.Forbidden("Must be an organization owner or billing manager.")
	}
	return a.ghasAnswer(w, r, org.ID)
}

func (a *API) ghasAnswer(w http.ResponseWriter, r *http.Request, orgID int64) error {
	if v, ok := r.URL.Query()["advanced_security_product"]; ok {
		switch v[0] {
		case "code_security", "secret_protection":
			return model.Custom("ActiveCommitters", "advanced_security_product",
				"advanced_security_product is for the standalone Code Security and Secret Protection products; this enterprise has GitHub Advanced Security")
		default:
			return model.Invalid("ActiveCommitters", "advanced_security_product", "invalid")
		}
	}
	p := rest.ParsePage(r)
	rep, err := a.committers.ActiveCommitters(r.Context(), orgID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := ActiveCommitters{Total: rep.Active, Count: rep.Total, Maximum: rep.Maximum, Repos: make([]CommittersOfRepo, len(rep.Repos))}
	for i, repo := range rep.Repos {
		list := make([]ActiveCommitter, len(repo.Committers))
		for k, u := range repo.Committers {
			list[k] = ActiveCommitter{Login: u.Login, LastDate: u.PushedAt.Format("2006-01-02"), Email: u.Email}
		}
		out.Repos[i] = CommittersOfRepo{Name: repo.Name, Count: len(list), Breakdown: list}
	}
	rest.SetLink(w, r, a.d.URLs.API, p, rep.Total)
	return rest.JSON(w, http.StatusOK, out)
}
