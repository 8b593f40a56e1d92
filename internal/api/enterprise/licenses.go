package enterprise

import (
	"net/http"

	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

const (
	noteConsumed = "Seats are computed from hubd's users: active (not suspended) users who are active members of an " +
		"organization or collaborators on an organization's repository. total_seats_purchased is left out (hubd sells " +
		"no seats); enterprise_server_* fields describe no separate server (hubd is the server), SAML and two-factor " +
		"fields are null."
	noteSync = "hubd is one instance with no GitHub Enterprise Server instances syncing licenses to it: server_instances " +
		"is always empty."
	noteVSS = "No Visual Studio portal here: hubd's subscriptions are the ones manual matches made through PUT name " +
		"(a GUID each); DELETE removes the match and keeps the subscription, unmatched."
)

func (a *API) licenseRoutes() []rest.Route {
	read := []string{"read:enterprise", "manage_billing:enterprise", "admin:enterprise"}
	write := []string{"admin:enterprise", "manage_billing:enterprise"}
	e := "/enterprises/{enterprise}"
	v := e + "/visual-studio-subscriptions"
	return []rest.Route{
		{Method: "GET", Pattern: e + "/consumed-licenses", OperationID: "enterprise-admin/get-consumed-licenses", Handler: a.consumed, Scopes: read, Note: noteConsumed},
		{Method: "GET", Pattern: e + "/license-sync-status", OperationID: "enterprise-admin/get-license-sync-status", Handler: a.syncStatus, Scopes: read, Note: noteSync},
		{Method: "GET", Pattern: v, OperationID: "enterprise-admin/list-vss", Handler: a.listVSS, Scopes: read, Note: noteVSS},
		{Method: "PUT", Pattern: v + "/{visual_studio_subscription_id}", OperationID: "enterprise-admin/update-vss-manual-match", Handler: a.matchVSS, Scopes: write, Note: noteVSS},
		{Method: "DELETE", Pattern: v + "/{visual_studio_subscription_id}", OperationID: "enterprise-admin/delete-vss-manual-match", Handler: a.unmatchVSS, Scopes: write, Note: noteVSS},
	}
}

// billingOwner is an enterprise owner whose classic token has one of the
// scopes (admin:enterprise implies the others).
func (a *API) billingOwner(r *http.Request, write bool) (int64, error) {
	scopes := []string{"read:enterprise", "manage_billing:enterprise"}
	if write {
		scopes = []string{"manage_billing:enterprise"}
	}
	var err error
	for _, sc := range scopes {
		c, e := a.d.RequireEnterpriseOwner(r, sc, "manage the enterprise's licenses")
		if e == nil {
			return c.UserID(), nil
		}
		err = e
	}
	return 0, err
}

// ConsumedUser is one user of get-consumed-licenses.
type ConsumedUser struct {
	Login           string   `json:"github_com_login"`
	Name            *string  `json:"github_com_name"`
	ServerUserIDs   []string `json:"enterprise_server_user_ids"`
	ComUser         bool     `json:"github_com_user"`
	ServerUser      *bool    `json:"enterprise_server_user"`
	VSSUser         bool     `json:"visual_studio_subscription_user"`
	LicenseType     string   `json:"license_type"`
	Profile         *string  `json:"github_com_profile"`
	MemberRoles     []string `json:"github_com_member_roles"`
	EnterpriseRoles []string `json:"github_com_enterprise_roles"`
	VerifiedEmails  []string `json:"github_com_verified_domain_emails"`
	SAMLNameID      *string  `json:"github_com_saml_name_id"`
	PendingInvites  []string `json:"github_com_orgs_with_pending_invites"`
	TwoFactor       *bool    `json:"github_com_two_factor_auth"`
	ServerEmails    []string `json:"enterprise_server_emails"`
	VSSStatus       *string  `json:"visual_studio_license_status"`
	VSSEmail        *string  `json:"visual_studio_subscription_email"`
	TotalAccounts   int      `json:"total_user_accounts"`
}

// GET /enterprises/{enterprise}/consumed-licenses
func (a *API) consumed(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.billingOwner(r, false); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ConsumedLicenses(r.Context(), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	users := make([]ConsumedUser, len(list))
	for i, h := range list {
		u := h.User
		profile := a.d.URLs.Web + "/" + u.Login
		cu := ConsumedUser{Login: u.Login, ServerUserIDs: []string{}, ComUser: true, LicenseType: "enterprise", Profile: &profile,
			MemberRoles: nonNil(h.Roles), EnterpriseRoles: []string{}, VerifiedEmails: []string{}, PendingInvites: []string{},
			ServerEmails: []string{}, TotalAccounts: 1}
		if u.Name != "" {
			n := u.Name
			cu.Name = &n
		}
		if u.SiteAdmin {
			cu.EnterpriseRoles = []string{"Owner"}
		} else {
			cu.EnterpriseRoles = []string{"Member"}
		}
		if v := h.VSS; v != nil {
			cu.VSSUser = true
			cu.LicenseType = "visual_studio"
			status, email := "matched", v.Email
			cu.VSSStatus, cu.VSSEmail = &status, &email
		}
		users[i] = cu
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, map[string]any{"total_seats_consumed": total, "users": users})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// GET /enterprises/{enterprise}/license-sync-status
func (a *API) syncStatus(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.billingOwner(r, false); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, map[string]any{"server_instances": []any{}})
}

// VSS is components/schemas/visual-studio-subscription-assignment.
type VSS struct {
	Email          string  `json:"visual_studio_subscription_email"`
	SubscriptionID string  `json:"subscription_id"`
	Username       *string `json:"username"`
	ManualMatch    bool    `json:"manual_match"`
}

func toVSS(v *store.VSSubscription) VSS {
	out := VSS{Email: v.Email, SubscriptionID: v.ID, ManualMatch: v.ManualMatch}
	if v.Login != "" {
		l := v.Login
		out.Username = &l
	}
	return out
}

// GET /enterprises/{enterprise}/visual-studio-subscriptions
func (a *API) listVSS(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.billingOwner(r, false); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.VSSubscriptions(r.Context(), r.URL.Query().Get("is_unmatched_only") == "true", p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]VSS, len(list))
	for i, v := range list {
		out[i] = toVSS(v)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, map[string]any{"total_count": total, "visual_studio_subscriptions": out})
}

// PUT /enterprises/{enterprise}/visual-studio-subscriptions/{visual_studio_subscription_id}
func (a *API) matchVSS(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.billingOwner(r, true)
	if err != nil {
		return err
	}
	var body struct {
		UserIdentifier string `json:"user_identifier"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	v, err := a.svc.MatchVSSubscription(r.Context(), actor, r.PathValue("visual_studio_subscription_id"), body.UserIdentifier)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toVSS(v))
}

// DELETE /enterprises/{enterprise}/visual-studio-subscriptions/{visual_studio_subscription_id}
func (a *API) unmatchVSS(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.billingOwner(r, true)
	if err != nil {
		return err
	}
	v, err := a.svc.UnmatchVSSubscription(r.Context(), actor, r.PathValue("visual_studio_subscription_id"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toVSS(v))
}
