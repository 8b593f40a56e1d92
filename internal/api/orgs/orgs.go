// Package orgs serves the Organizations category: organization profiles and
// settings, members and memberships (with GitHub's invitation flow: a new
// member stays pending until they accept), public membership, and the
// Enterprise Server admin API that creates and renames organizations.
package orgs

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/orgmembers"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// API is the orgs package.
type API struct {
	d       *api.Deps
	members *orgmembers.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, members: orgmembers.New(d.Store)} }

// Classic scopes of the route table.
var (
	readOrg  = []string{"admin:org", "read:org", "write:org"}
	adminOrg = []string{"admin:org"}
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/orgs/{org}", OperationID: "orgs/get", Handler: a.get},
		{Method: "PATCH", Pattern: "/orgs/{org}", OperationID: "orgs/update", Handler: a.update, Scopes: []string{"admin:org", "repo"}},
		{Method: "GET", Pattern: "/organizations", OperationID: "orgs/list", Handler: a.list},
		{Method: "GET", Pattern: "/user/orgs", OperationID: "orgs/list-for-authenticated-user", Handler: a.listForAuthenticatedUser, Scopes: []string{"admin:org", "read:org", "user", "write:org"}},
		{Method: "GET", Pattern: "/users/{username}/orgs", OperationID: "orgs/list-for-user", Handler: a.listForUser},

		{Method: "GET", Pattern: "/orgs/{org}/members", OperationID: "orgs/list-members", Handler: a.listMembers, Scopes: readOrg},
		{Method: "GET", Pattern: "/orgs/{org}/members/{username}", OperationID: "orgs/check-membership-for-user", Handler: a.checkMember, Scopes: readOrg},
		{Method: "DELETE", Pattern: "/orgs/{org}/members/{username}", OperationID: "orgs/remove-member", Handler: a.removeMember, Scopes: adminOrg},
		{Method: "GET", Pattern: "/orgs/{org}/public_members", OperationID: "orgs/list-public-members", Handler: a.listPublicMembers},
		{Method: "GET", Pattern: "/orgs/{org}/public_members/{username}", OperationID: "orgs/check-public-membership-for-user", Handler: a.checkPublicMember},
		{Method: "PUT", Pattern: "/orgs/{org}/public_members/{username}", OperationID: "orgs/set-public-membership-for-authenticated-user", Handler: a.publicize, Scopes: []string{"admin:org", "user", "write:org"}},
		{Method: "DELETE", Pattern: "/orgs/{org}/public_members/{username}", OperationID: "orgs/remove-public-membership-for-authenticated-user", Handler: a.conceal, Scopes: []string{"admin:org", "user", "write:org"}},

		{Method: "GET", Pattern: "/orgs/{org}/memberships/{username}", OperationID: "orgs/get-membership-for-user", Handler: a.getMembership, Scopes: readOrg},
		{Method: "PUT", Pattern: "/orgs/{org}/memberships/{username}", OperationID: "orgs/set-membership-for-user", Handler: a.setMembership, Scopes: adminOrg,
			Note: "Inviting someone creates an organization invitation (see POST /orgs/{org}/invitations; hubd sends no email). The " +
				"invitation rate limit (403) counts invitations created in the last 24 hours and is checked only when the request " +
				"invites someone; GitHub counts every request."},
		{Method: "DELETE", Pattern: "/orgs/{org}/memberships/{username}", OperationID: "orgs/remove-membership-for-user", Handler: a.removeMembership, Scopes: adminOrg},
		{Method: "GET", Pattern: "/orgs/{org}/invitations", OperationID: "orgs/list-pending-invitations", Handler: a.listInvitations, Scopes: readOrg,
			Note: invitationsNote},
		{Method: "POST", Pattern: "/orgs/{org}/invitations", OperationID: "orgs/create-invitation", Handler: a.createInvitation, Scopes: adminOrg,
			Note: createNote},
		{Method: "DELETE", Pattern: "/orgs/{org}/invitations/{invitation_id}", OperationID: "orgs/cancel-invitation", Handler: a.cancelInvitation, Scopes: adminOrg},
		{Method: "GET", Pattern: "/orgs/{org}/invitations/{invitation_id}/teams", OperationID: "orgs/list-invitation-teams", Handler: a.listInvitationTeams, Scopes: readOrg},
		{Method: "GET", Pattern: "/orgs/{org}/failed_invitations", OperationID: "orgs/list-failed-invitations", Handler: a.listFailedInvitations, Scopes: readOrg,
			Note: failedNote},
		{Method: "GET", Pattern: "/user/memberships/orgs", OperationID: "orgs/list-memberships-for-authenticated-user", Handler: a.listOwnMemberships, Scopes: readOrg},
		{Method: "GET", Pattern: "/user/memberships/orgs/{org}", OperationID: "orgs/get-membership-for-authenticated-user", Handler: a.getOwnMembership, Scopes: readOrg},
		{Method: "PATCH", Pattern: "/user/memberships/orgs/{org}", OperationID: "orgs/update-membership-for-authenticated-user", Handler: a.updateOwnMembership, Scopes: []string{"admin:org", "write:org"}},

		{Method: "POST", Pattern: "/admin/organizations", OperationID: "enterprise-admin/create-org", Handler: a.adminCreate, Scopes: []string{"site_admin"}},
		{Method: "PATCH", Pattern: "/admin/organizations/{org}", OperationID: "enterprise-admin/update-org-name", Handler: a.adminRename, Scopes: []string{"site_admin"}},
	}
}

// errNotOwner is GitHub's answer when an owner-only action is attempted by
// someone else (it names repositories even for organizations).
var errNotOwner = model.Forbidden("Must have admin rights to Repository.")

// org loads the organization named in the path.
func (a *API) org(r *http.Request) (*model.Account, error) {
	return a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
}

// role is the caller's active role in org ("" when not an active member).
func (a *API) role(r *http.Request, c *authz.Caller, org *model.Account) (model.OrgRole, error) {
	if c.User == nil {
		return "", nil
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.User.ID)
	if err == model.ErrNotFound || err == nil && m.State != store.StateActive {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return m.Role, nil
}

// allowed reports whether the caller's token may act on organization data:
// one of the classic scopes for classic and OAuth tokens, the organization
// permission perm at level ("read" or "write") for the other kinds.
func allowed(c *authz.Caller, perm, level string, scopes ...string) bool {
	switch c.Kind {
	case authz.Anonymous:
		return false
	case authz.ClassicPAT, authz.OAuthApp:
		for _, s := range scopes {
			if c.HasScope(s) {
				return true
			}
		}
		return false
	}
	got := c.Permissions[perm]
	return got == "admin" || got == "write" || got == level
}

// requireToken answers 403 when the token may not act (see allowed).
func requireToken(c *authz.Caller, perm, level string, scopes ...string) error {
	if allowed(c, perm, level, scopes...) {
		return nil
	}
	if c.Kind == authz.UserToServer || c.Kind == authz.Installation {
		return model.Forbidden("Resource not accessible by integration")
	}
	return model.Forbidden("Resource not accessible by personal access token")
}

// tokenFor loads the signed-in caller and the path's organization, after
// checking the token may act on its members (one of scopes for classic
// tokens, the "members" permission at level for the others); the service
// decides whether the user may.
func (a *API) tokenFor(r *http.Request, level string, scopes ...string) (*authz.Caller, *model.Account, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, nil, err
	}
	org, err := a.org(r)
	if err != nil {
		return nil, nil, err
	}
	if err := requireToken(c, "members", level, scopes...); err != nil {
		return nil, nil, err
	}
	return c, org, nil
}

// requireOwner loads the path's organization and checks that the caller is
// one of its active owners with a token allowed to manage it.
func (a *API) requireOwner(r *http.Request, perm string, scopes ...string) (*authz.Caller, *model.Account, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, nil, err
	}
	org, err := a.org(r)
	if err != nil {
		return nil, nil, err
	}
	if err := requireToken(c, perm, "write", scopes...); err != nil {
		return nil, nil, err
	}
	role, err := a.role(r, c, org)
	if err != nil {
		return nil, nil, err
	}
	if role != model.RoleAdmin {
		return nil, nil, errNotOwner
	}
	return c, org, nil
}

func (a *API) counts(r *http.Request, org *model.Account) (wire.OrgCounts, error) {
	q := a.d.Store.R()
	c, err := q.CountsFor(r.Context(), org.ID)
	if err != nil {
		return wire.OrgCounts{}, err
	}
	members, err := q.ActiveMemberCount(r.Context(), org.ID)
	return wire.OrgCounts{PublicRepos: c.PublicRepos, TotalPrivateRepos: c.TotalPrivateRepos,
		OwnedPrivateRepos: c.OwnedPrivateRepos, Collaborators: c.Collaborators, Members: members}, err
}

// full is the organization-full object; owners see the settings.
func (a *API) full(r *http.Request, org *model.Account, owner bool) (wire.OrganizationFull, error) {
	counts, err := a.counts(r, org)
	if err != nil {
		return wire.OrganizationFull{}, err
	}
	var s model.OrgSettings
	if owner {
		if s, err = a.d.Store.R().OrgSettings(r.Context(), org.ID); err != nil {
			return wire.OrganizationFull{}, err
		}
	}
	return a.d.URLs.ToOrgFull(org, counts, owner, s), nil
}

// GET /orgs/{org}: owners with an admin:org token see the settings too.
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	org, err := a.org(r)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	owner := false
	if c.User != nil && allowed(c, "organization_administration", "read", "admin:org") {
		role, err := a.role(r, c, org)
		if err != nil {
			return err
		}
		owner = role == model.RoleAdmin
	}
	out, err := a.full(r, org, owner)
	if err != nil {
		return err
	}
	w.Header().Set("Last-Modified", org.UpdatedAt.Format(http.TimeFormat))
	return rest.JSON(w, 200, out)
}

type updateOrg struct {
	Name                                 rest.Opt[string] `json:"name"`
	Email                                rest.Opt[string] `json:"email"`
	BillingEmail                         rest.Opt[string] `json:"billing_email"`
	Company                              rest.Opt[string] `json:"company"`
	Location                             rest.Opt[string] `json:"location"`
	Blog                                 rest.Opt[string] `json:"blog"`
	TwitterUsername                      rest.Opt[string] `json:"twitter_username"`
	Description                          rest.Opt[string] `json:"description"`
	DefaultRepositoryPermission          rest.Opt[string] `json:"default_repository_permission"`
	MembersCanCreateRepositories         rest.Opt[bool]   `json:"members_can_create_repositories"`
	MembersCanCreatePublicRepositories   rest.Opt[bool]   `json:"members_can_create_public_repositories"`
	MembersCanCreatePrivateRepositories  rest.Opt[bool]   `json:"members_can_create_private_repositories"`
	MembersCanCreateInternalRepositories rest.Opt[bool]   `json:"members_can_create_internal_repositories"`
	MembersAllowedRepositoryCreationType rest.Opt[string] `json:"members_allowed_repository_creation_type"`
	HasOrganizationProjects              rest.Opt[bool]   `json:"has_organization_projects"`
	HasRepositoryProjects                rest.Opt[bool]   `json:"has_repository_projects"`
	WebCommitSignoffRequired             rest.Opt[bool]   `json:"web_commit_signoff_required"`

	// Settings of model.OrgSettings.
	MembersCanCreatePages                                 rest.Opt[bool]   `json:"members_can_create_pages"`
	MembersCanCreatePublicPages                           rest.Opt[bool]   `json:"members_can_create_public_pages"`
	MembersCanCreatePrivatePages                          rest.Opt[bool]   `json:"members_can_create_private_pages"`
	MembersCanForkPrivateRepositories                     rest.Opt[bool]   `json:"members_can_fork_private_repositories"`
	AdvancedSecurityEnabledForNewRepositories             rest.Opt[bool]   `json:"advanced_security_enabled_for_new_repositories"`
	DependabotAlertsEnabledForNewRepositories             rest.Opt[bool]   `json:"dependabot_alerts_enabled_for_new_repositories"`
	DependabotSecurityUpdatesEnabledForNewRepositories    rest.Opt[bool]   `json:"dependabot_security_updates_enabled_for_new_repositories"`
	DependencyGraphEnabledForNewRepositories              rest.Opt[bool]   `json:"dependency_graph_enabled_for_new_repositories"`
	SecretScanningEnabledForNewRepositories               rest.Opt[bool]   `json:"secret_scanning_enabled_for_new_repositories"`
	SecretScanningPushProtectionEnabledForNewRepositories rest.Opt[bool]   `json:"secret_scanning_push_protection_enabled_for_new_repositories"`
	SecretScanningValidityChecksEnabled                   rest.Opt[bool]   `json:"secret_scanning_validity_checks_enabled"`
	SecretScanningPushProtectionCustomLinkEnabled         rest.Opt[bool]   `json:"secret_scanning_push_protection_custom_link_enabled"`
	SecretScanningPushProtectionCustomLink                rest.Opt[string] `json:"secret_scanning_push_protection_custom_link"`
	DeployKeysEnabledForRepositories                      rest.Opt[bool]   `json:"deploy_keys_enabled_for_repositories"`
}

// settingBools pairs the boolean settings of model.OrgSettings with their
// fields in the body.
func (in *updateOrg) settingBools(s *model.OrgSettings) []struct {
	field string
	v     rest.Opt[bool]
	dst   *bool
} {
	return []struct {
		field string
		v     rest.Opt[bool]
		dst   *bool
	}{
		{"members_can_create_pages", in.MembersCanCreatePages, &s.MembersCanCreatePages},
		{"members_can_create_public_pages", in.MembersCanCreatePublicPages, &s.MembersCanCreatePublicPages},
		{"members_can_create_private_pages", in.MembersCanCreatePrivatePages, &s.MembersCanCreatePrivatePages},
		{"members_can_fork_private_repositories", in.MembersCanForkPrivateRepositories, &s.MembersCanForkPrivateRepos},
		{"advanced_security_enabled_for_new_repositories", in.AdvancedSecurityEnabledForNewRepositories, &s.AdvancedSecurityForNew},
		{"dependabot_alerts_enabled_for_new_repositories", in.DependabotAlertsEnabledForNewRepositories, &s.DependabotAlertsForNew},
		{"dependabot_security_updates_enabled_for_new_repositories", in.DependabotSecurityUpdatesEnabledForNewRepositories, &s.DependabotSecurityUpdatesForNew},
		{"dependency_graph_enabled_for_new_repositories", in.DependencyGraphEnabledForNewRepositories, &s.DependencyGraphForNew},
		{"secret_scanning_enabled_for_new_repositories", in.SecretScanningEnabledForNewRepositories, &s.SecretScanningForNew},
		{"secret_scanning_push_protection_enabled_for_new_repositories", in.SecretScanningPushProtectionEnabledForNewRepositories, &s.SecretScanningPushProtectionForNew},
		{"secret_scanning_validity_checks_enabled", in.SecretScanningValidityChecksEnabled, &s.SecretScanningValidityChecks},
		{"secret_scanning_push_protection_custom_link_enabled", in.SecretScanningPushProtectionCustomLinkEnabled, &s.PushProtectionCustomLinkEnabled},
		{"deploy_keys_enabled_for_repositories", in.DeployKeysEnabledForRepositories, &s.DeployKeysEnabled},
	}
}

// applySettings changes the settings the body names; it reports whether
// any was in the body.
func (in *updateOrg) applySettings(s *model.OrgSettings) bool {
	changed := false
	for _, b := range in.settingBools(s) {
		if v, ok := b.v.Get(); ok {
			*b.dst, changed = v, true
		}
	}
	if in.SecretScanningPushProtectionCustomLink.Set {
		changed = true
		s.PushProtectionCustomLink = nil
		if v, ok := in.SecretScanningPushProtectionCustomLink.Get(); ok && v != "" {
			s.PushProtectionCustomLink = &v
		}
	}
	return changed
}

func (in *updateOrg) validate() error {
	for _, e := range []struct {
		field string
		v     rest.Opt[string]
	}{{"email", in.Email}, {"billing_email", in.BillingEmail}} {
		if s, ok := e.v.Get(); ok && s != "" && !api.ValidEmail(s) {
			return model.Invalid("Organization", e.field, "invalid")
		}
	}
	if s, ok := in.Description.Get(); ok && len([]rune(s)) > 160 {
		return model.Custom("Organization", "description", "description is too long (maximum is 160 characters)")
	}
	if s, ok := in.TwitterUsername.Get(); ok && len(s) > 15 {
		return model.Custom("Organization", "twitter_username", "twitter_username is too long (maximum is 15 characters)")
	}
	if in.DefaultRepositoryPermission.Set {
		if err := oneOf("Organization", "default_repository_permission", in.DefaultRepositoryPermission, "read", "write", "admin", "none"); err != nil {
			return err
		}
	}
	if in.MembersAllowedRepositoryCreationType.Set {
		if err := oneOf("Organization", "members_allowed_repository_creation_type", in.MembersAllowedRepositoryCreationType, "all", "private", "none"); err != nil {
			return err
		}
	}
	for _, b := range []struct {
		field string
		v     rest.Opt[bool]
	}{
		{"members_can_create_repositories", in.MembersCanCreateRepositories},
		{"members_can_create_public_repositories", in.MembersCanCreatePublicRepositories},
		{"members_can_create_private_repositories", in.MembersCanCreatePrivateRepositories},
		{"members_can_create_internal_repositories", in.MembersCanCreateInternalRepositories},
		{"has_organization_projects", in.HasOrganizationProjects},
		{"has_repository_projects", in.HasRepositoryProjects},
		{"web_commit_signoff_required", in.WebCommitSignoffRequired},
	} {
		if b.v.Null {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Organization", Field: b.field, Code: "invalid", Value: nil}}}
		}
	}
	for _, b := range in.settingBools(&model.OrgSettings{}) {
		if b.v.Null {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Organization", Field: b.field, Code: "invalid", Value: nil}}}
		}
	}
	if v, ok := in.SecretScanningPushProtectionCustomLink.Get(); ok && v != "" {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return model.Invalid("Organization", "secret_scanning_push_protection_custom_link", "invalid")
		}
	}
	return nil
}

// oneOf checks an enum field: null or a value outside the list is invalid.
func oneOf(resource, field string, o rest.Opt[string], values ...string) error {
	v, ok := o.Get()
	if ok {
		for _, want := range values {
			if v == want {
				return nil
			}
		}
	}
	return &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: field, Code: "invalid", Value: v}}}
}

func (in *updateOrg) apply(o *model.Account) {
	setStr(&o.Name, in.Name)
	setStr(&o.Email, in.Email)
	setStr(&o.BillingEmail, in.BillingEmail)
	setStr(&o.Company, in.Company)
	setStr(&o.Location, in.Location)
	setStr(&o.Blog, in.Blog)
	setStr(&o.TwitterUsername, in.TwitterUsername)
	setStr(&o.Description, in.Description)
	if v, ok := in.DefaultRepositoryPermission.Get(); ok {
		o.DefaultRepoPermission = v
	}
	// The legacy creation type, then the master switch, then the per
	// visibility switches: the most specific input wins.
	switch v, _ := in.MembersAllowedRepositoryCreationType.Get(); v {
	case "all":
		o.MembersCanCreatePublicRepos, o.MembersCanCreatePrivRepos = true, true
	case "private":
		o.MembersCanCreatePublicRepos, o.MembersCanCreatePrivRepos = false, true
	case "none":
		o.MembersCanCreatePublicRepos, o.MembersCanCreatePrivRepos, o.MembersCanCreateIntRepos = false, false, false
	}
	if v, ok := in.MembersCanCreateRepositories.Get(); ok {
		o.MembersCanCreatePublicRepos, o.MembersCanCreatePrivRepos, o.MembersCanCreateIntRepos = v, v, v
	}
	setBool(&o.MembersCanCreatePublicRepos, in.MembersCanCreatePublicRepositories)
	setBool(&o.MembersCanCreatePrivRepos, in.MembersCanCreatePrivateRepositories)
	setBool(&o.MembersCanCreateIntRepos, in.MembersCanCreateInternalRepositories)
	o.MembersCanCreateRepos = o.MembersCanCreatePublicRepos || o.MembersCanCreatePrivRepos || o.MembersCanCreateIntRepos
	setBool(&o.HasOrgProjects, in.HasOrganizationProjects)
	setBool(&o.HasRepoProjects, in.HasRepositoryProjects)
	setBool(&o.WebCommitSignoffRequired, in.WebCommitSignoffRequired)
}

func setStr(dst *string, o rest.Opt[string]) {
	if o.Set {
		*dst = strings.TrimSpace(o.Value) // null clears
	}
}

func setBool(dst *bool, o rest.Opt[bool]) {
	if v, ok := o.Get(); ok {
		*dst = v
	}
}

// PATCH /orgs/{org}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.requireOwner(r, "organization_administration", "admin:org", "repo")
	if err != nil {
		return err
	}
	var in updateOrg
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	err = a.d.Store.Tx(r.Context(), func(tx store.Q) error {
		o, err := tx.AccountByID(r.Context(), org.ID)
		if err != nil {
			return err
		}
		in.apply(o)
		if err := tx.UpdateAccount(r.Context(), o); err != nil {
			return err
		}
		set, err := tx.OrgSettings(r.Context(), org.ID)
		if err != nil {
			return err
		}
		if in.applySettings(&set) {
			if err := tx.SaveOrgSettings(r.Context(), org.ID, set); err != nil {
				return err
			}
		}
		org = o
		return tx.AppendEvent(r.Context(), "organization.updated", c.User.ID, 0, org.ID, map[string]any{"org_id": org.ID})
	})
	if err != nil {
		return err
	}
	out, err := a.full(r, org, true)
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, out)
}

// GET /organizations: every organization in id order, paginated by since.
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	p := rest.ParsePage(r)
	list, err := a.d.Store.R().AccountsSince(r.Context(), model.TypeOrganization, since, p.PerPage)
	if err != nil {
		return err
	}
	if len(list) > 0 {
		rest.SetSinceLink(w, r, a.d.URLs.API, len(list) == p.PerPage, list[len(list)-1].ID)
	}
	return rest.JSON(w, 200, a.simpleList(list))
}

func (a *API) simpleList(list []*model.Account) []wire.OrganizationSimple {
	out := make([]wire.OrganizationSimple, 0, len(list))
	for _, o := range list {
		out = append(out, a.d.URLs.ToOrgSimple(o))
	}
	return out
}

// GET /user/orgs: every active membership; classic tokens need user or
// read:org, fine-grained tokens get an empty list (as on GitHub).
func (a *API) listForAuthenticatedUser(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if c.Kind == authz.FineGrained {
		return rest.JSON(w, 200, []wire.OrganizationSimple{})
	}
	if !c.HasScope("user") && !c.HasScope("read:org") {
		return model.Forbidden("Resource not accessible by personal access token")
	}
	return a.writeOrgsOf(w, r, c.User.ID, false)
}

// GET /users/{username}/orgs: public memberships only, whoever asks.
func (a *API) listForUser(w http.ResponseWriter, r *http.Request) error {
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	if u.IsOrg() {
		return rest.JSON(w, 200, []wire.OrganizationSimple{})
	}
	return a.writeOrgsOf(w, r, u.ID, true)
}

func (a *API) writeOrgsOf(w http.ResponseWriter, r *http.Request, userID int64, publicOnly bool) error {
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().OrgsOfUser(r.Context(), userID, publicOnly, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, 200, a.simpleList(list))
}
