package patokens

import (
	"net/http"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/patokens"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// createBody is POST /admin/users/{username}/personal-access-tokens: what
// GitHub's "new fine-grained token" page asks.
type createBody struct {
	Name          rest.Opt[string]  `json:"name"`
	Description   string            `json:"description"`
	ResourceOwner string            `json:"resource_owner"`
	Selection     string            `json:"repository_selection"`
	Repositories  []string          `json:"repositories"`
	Permissions   map[string]string `json:"permissions"`
	ExpiresInDays *int              `json:"expires_in_days"` // null or absent: 30; 0: never
	Reason        string            `json:"reason"`
}

// createdToken is the answer: the token once, and what it is.
type createdToken struct {
	ID                  int64             `json:"id"`
	Token               string            `json:"token"`
	Name                string            `json:"name"`
	ResourceOwner       wire.SimpleUser   `json:"resource_owner"`
	RepositorySelection string            `json:"repository_selection"`
	Permissions         map[string]string `json:"permissions"`
	ExpiresAt           *string           `json:"expires_at"`
	CreatedAt           string            `json:"created_at"`
	// Status of the organization's grant: "approved", "pending", or null
	// for a token on the user's own resources.
	Status *string `json:"status"`
}

// POST /admin/users/{username}/personal-access-tokens: a user creates a
// fine-grained token for themself (with a classic token carrying the user
// scope), or a site administrator for anyone.
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	user, err := a.d.Store.R().AccountByLogin(ctx, r.PathValue("username"))
	if err != nil || user.IsOrg() {
		return model.ErrNotFound
	}
	switch {
	case c.Kind != authz.ClassicPAT && c.Kind != authz.OAuthApp:
		return model.Forbidden(authz.ErrPATMessage)
	case c.User.ID == user.ID:
		if err := api.RequireScope(c, "user"); err != nil {
			return err
		}
	default:
		if _, err := api.RequireSiteAdmin(r); err != nil {
			return err
		}
	}
	var in createBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	name, _ := in.Name.Get()
	input := svc.CreateInput{User: user, Owner: user, Name: name, Description: in.Description, Selection: in.Selection,
		Repositories: in.Repositories, Permissions: in.Permissions, Reason: in.Reason}
	if in.ResourceOwner != "" {
		if input.Owner, err = a.d.Store.R().AccountByLogin(ctx, in.ResourceOwner); err != nil {
			return model.Invalid("PersonalAccessToken", "resource_owner", "invalid")
		}
	}
	if in.ExpiresInDays != nil {
		input.Never = *in.ExpiresInDays == 0
		input.ExpiresIn = time.Duration(*in.ExpiresInDays) * 24 * time.Hour
	}
	made, err := a.svc.Create(ctx, input)
	if err != nil {
		return err
	}
	t := made.Token
	out := createdToken{ID: t.ID, Token: made.Plain, Name: t.Name, ResourceOwner: a.d.URLs.ToSimpleUser(input.Owner),
		RepositorySelection: t.Selection, Permissions: t.Permissions, ExpiresAt: wire.TimePtr(t.ExpiresAt), CreatedAt: wire.Time(t.CreatedAt)}
	if made.Grant != nil {
		out.Status = &made.Grant.Status
	}
	return rest.JSON(w, http.StatusCreated, out)
}

// patPolicy is an organization's policy for fine-grained tokens.
type patPolicy struct {
	FineGrainedAllowed rest.Opt[bool] `json:"fine_grained_allowed"`
	ApprovalRequired   rest.Opt[bool] `json:"approval_required"`
}

type policyOut struct {
	FineGrainedAllowed bool `json:"fine_grained_allowed"`
	ApprovalRequired   bool `json:"approval_required"`
}

// policyOrg finds the organization of the path for one of its owners or a
// site administrator, with a classic token.
func (a *API) policyOrg(r *http.Request) (*model.Account, *authz.Caller, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, nil, err
	}
	if c.Kind != authz.ClassicPAT && c.Kind != authz.OAuthApp {
		return nil, nil, model.Forbidden(authz.ErrPATMessage)
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, nil, err
	}
	if !c.SiteAdmin() {
		m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.UserID())
		if err == model.ErrNotFound || err == nil && m.State != store.StateActive {
			return nil, nil, model.ErrNotFound
		}
		if err != nil {
			return nil, nil, err
		}
		if m.Role != model.RoleAdmin {
			return nil, nil, model.Forbidden("You must be an organization owner.")
		}
	}
	return org, c, api.RequireScope(c, "admin:org")
}

// GET /admin/organizations/{org}/personal-access-token-policy
func (a *API) getPolicy(w http.ResponseWriter, r *http.Request) error {
	org, _, err := a.policyOrg(r)
	if err != nil {
		return err
	}
	p, err := a.d.Store.R().OrgPATPolicy(r.Context(), org.ID)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, policyOut{p.Allowed, p.ApprovalRequired})
}

// PUT /admin/organizations/{org}/personal-access-token-policy: absent
// fields keep their value.
func (a *API) setPolicy(w http.ResponseWriter, r *http.Request) error {
	org, c, err := a.policyOrg(r)
	if err != nil {
		return err
	}
	var in patPolicy
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	p, err := a.d.Store.R().OrgPATPolicy(r.Context(), org.ID)
	if err != nil {
		return err
	}
	if v, ok := in.FineGrainedAllowed.Get(); ok {
		p.Allowed = v
	}
	if v, ok := in.ApprovalRequired.Get(); ok {
		p.ApprovalRequired = v
	}
	if err := a.svc.SetPolicy(r.Context(), org, c.UserID(), p); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, policyOut{p.Allowed, p.ApprovalRequired})
}
