package orgs

import (
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// user loads the user named in the path (organizations are not found).
func (a *API) user(r *http.Request) (*model.Account, error) {
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return nil, err
	}
	if u.IsOrg() {
		return nil, model.ErrNotFound
	}
	return u, nil
}

// memberRole is the caller's active role when their token may read the
// organization's membership; "" otherwise (they see what the public sees).
func (a *API) memberRole(r *http.Request, org *model.Account) (model.OrgRole, error) {
	c := rest.Caller(r)
	if c.User == nil || !allowed(c, "members", "read", readOrg...) {
		return "", nil
	}
	return a.role(r, c, org)
}

// GET /orgs/{org}/members: members see every active member, others only
// the public ones.
func (a *API) listMembers(w http.ResponseWriter, r *http.Request) error {
	org, err := a.org(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var role model.OrgRole
	switch v := q.Get("role"); v {
	case "", "all":
	case "admin", "member":
		role = model.OrgRole(v)
	default:
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Member", Field: "role", Code: "invalid", Value: v}}}
	}
	filter := q.Get("filter")
	switch filter {
	case "", "all", "2fa_disabled", "2fa_insecure":
	default:
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Member", Field: "filter", Code: "invalid", Value: filter}}}
	}
	mine, err := a.memberRole(r, org)
	if err != nil {
		return err
	}
	if strings.HasPrefix(filter, "2fa_") && mine != model.RoleAdmin {
		return model.Unprocessable("Only owners can use this filter.")
	}
	p := rest.ParsePage(r)
	var list []*model.Account
	total := 0
	// hubd has no two-factor authentication: every member has it disabled
	// and nobody uses an insecure method.
	if filter != "2fa_insecure" {
		list, total, err = a.d.Store.R().OrgMembers(r.Context(), org.ID, store.MemberFilter{Role: role, PublicOnly: mine == ""}, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, 200, a.userList(list))
}

func (a *API) userList(list []*model.Account) []wire.SimpleUser {
	out := make([]wire.SimpleUser, 0, len(list))
	for _, u := range list {
		out = append(out, a.d.URLs.ToSimpleUser(u))
	}
	return out
}

// GET /orgs/{org}/members/{username}: members get 204 or 404; anyone else
// is redirected to the public membership check, as on GitHub.
func (a *API) checkMember(w http.ResponseWriter, r *http.Request) error {
	org, err := a.org(r)
	if err != nil {
		return err
	}
	mine, err := a.memberRole(r, org)
	if err != nil {
		return err
	}
	if mine == "" {
		w.Header().Set("Location", a.d.URLs.OrgURL(org.Login)+"/public_members/"+r.PathValue("username"))
		w.WriteHeader(http.StatusFound)
		return nil
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, u.ID)
	if err != nil {
		return err
	}
	if m.State != store.StateActive {
		return rest.ErrNotFound
	}
	return rest.NoContent(w)
}

// DELETE /orgs/{org}/members/{username}: removes an active member (not
// the last owner); someone only invited is not found.
func (a *API) removeMember(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.tokenFor(r, "write", adminOrg...)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	if err := a.members.RemoveMember(r.Context(), org, c.User, u); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/public_members
func (a *API) listPublicMembers(w http.ResponseWriter, r *http.Request) error {
	org, err := a.org(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().OrgMembers(r.Context(), org.ID, store.MemberFilter{PublicOnly: true}, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, 200, a.userList(list))
}

// GET /orgs/{org}/public_members/{username}
func (a *API) checkPublicMember(w http.ResponseWriter, r *http.Request) error {
	org, err := a.org(r)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	ok, err := a.d.Store.R().IsPublicMember(r.Context(), org.ID, u.ID)
	if err != nil {
		return err
	}
	if !ok {
		return rest.ErrNotFound
	}
	return rest.NoContent(w)
}

// PUT /orgs/{org}/public_members/{username}
func (a *API) publicize(w http.ResponseWriter, r *http.Request) error {
	return a.setPublic(w, r, true)
}

// DELETE /orgs/{org}/public_members/{username}
func (a *API) conceal(w http.ResponseWriter, r *http.Request) error {
	return a.setPublic(w, r, false)
}

// setPublic publicizes or conceals the caller's own active membership.
func (a *API) setPublic(w http.ResponseWriter, r *http.Request, public bool) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	org, err := a.org(r)
	if err != nil {
		return err
	}
	if err := requireToken(c, "members", "write", "user", "write:org"); err != nil {
		return err
	}
	if !strings.EqualFold(r.PathValue("username"), c.User.Login) {
		return model.Forbidden("You can only publicize or conceal your own membership.")
	}
	typ := "organization.member_publicized"
	if !public {
		typ = "organization.member_concealed"
	}
	err = a.d.Store.Tx(r.Context(), func(tx store.Q) error {
		if err := tx.SetMemberPublic(r.Context(), org.ID, c.User.ID, public); err != nil {
			return err
		}
		return tx.AppendEvent(r.Context(), typ, c.User.ID, 0, org.ID, map[string]any{"user_id": c.User.ID})
	})
	if err == model.ErrNotFound {
		return model.Forbidden("You must be a member of " + org.Login + " to change the visibility of your membership.")
	}
	if err != nil {
		return err
	}
	return rest.NoContent(w)
}
