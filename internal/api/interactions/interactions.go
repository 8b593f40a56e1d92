package interactions

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/interactions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

type limitBody struct {
	Limit  string `json:"limit"`
	Expiry string `json:"expiry"`
}

func decodeLimit(r *http.Request) (svc.Input, error) {
	var in limitBody
	if err := rest.Decode(r, &in); err != nil {
		return svc.Input{}, err
	}
	return svc.Input{Limit: in.Limit, Expiry: in.Expiry}, nil
}

// tokenMay answers 403 when the caller's token may not act on an account's
// settings: a classic or OAuth token needs one of scopes, the other kinds
// the permission perm (at least level).
func tokenMay(c *authz.Caller, perm, level string, scopes ...string) error {
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		for _, s := range scopes {
			if c.HasScope(s) {
				return nil
			}
		}
		return model.Forbidden("Resource not accessible by personal access token")
	}
	got := c.Permissions[perm]
	if got == "admin" || got == "write" || got == level {
		return nil
	}
	return model.Forbidden("Resource not accessible by integration")
}

// org is the path's organization and the acting user, whose token may
// manage it at level ("read" or "write").
func (a *API) org(r *http.Request, level string) (*model.Account, int64, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, 0, err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, 0, err
	}
	scopes := []string{"admin:org"}
	if level == "read" {
		scopes = append(scopes, "read:org")
	}
	if err := tokenMay(c, "organization_administration", level, scopes...); err != nil {
		return nil, 0, err
	}
	return org, c.UserID(), nil
}

// user is the authenticated user, whose token may manage their limits.
func (a *API) user(r *http.Request, level string) (*model.Account, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, err
	}
	if err := tokenMay(c, "interaction_limits", level, "user"); err != nil {
		return nil, err
	}
	return c.User, nil
}

// GET /orgs/{org}/interaction-limits
func (a *API) getOrg(w http.ResponseWriter, r *http.Request) error {
	org, actor, err := a.org(r, "read")
	if err != nil {
		return err
	}
	l, err := a.svc.AccountLimit(r.Context(), org, actor)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToInteractionLimit(l))
}

// PUT /orgs/{org}/interaction-limits
func (a *API) setOrg(w http.ResponseWriter, r *http.Request) error {
	org, actor, err := a.org(r, "write")
	if err != nil {
		return err
	}
	in, err := decodeLimit(r)
	if err != nil {
		return err
	}
	l, err := a.svc.SetAccountLimit(r.Context(), org, actor, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToInteractionLimit(l))
}

// DELETE /orgs/{org}/interaction-limits
func (a *API) removeOrg(w http.ResponseWriter, r *http.Request) error {
	org, actor, err := a.org(r, "write")
	if err != nil {
		return err
	}
	if err := a.svc.RemoveAccountLimit(r.Context(), org, actor); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /user/interaction-limits: 204 when no limit is in force.
func (a *API) getUser(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r, "read")
	if err != nil {
		return err
	}
	l, err := a.svc.AccountLimit(r.Context(), u, u.ID)
	if err != nil {
		return err
	}
	if l == nil {
		return rest.NoContent(w)
	}
	return rest.JSON(w, http.StatusOK, wire.ToInteractionLimit(l))
}

// PUT /user/interaction-limits
func (a *API) setUser(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r, "write")
	if err != nil {
		return err
	}
	in, err := decodeLimit(r)
	if err != nil {
		return err
	}
	l, err := a.svc.SetAccountLimit(r.Context(), u, u.ID, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToInteractionLimit(l))
}

// DELETE /user/interaction-limits
func (a *API) removeUser(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r, "write")
	if err != nil {
		return err
	}
	if err := a.svc.RemoveAccountLimit(r.Context(), u, u.ID); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /repos/{owner}/{repo}/interaction-limits: anyone who sees the
// repository sees the limit that governs it.
func (a *API) getRepo(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	l, err := a.svc.RepoLimit(r.Context(), repo)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToInteractionLimit(l))
}

// PUT /repos/{owner}/{repo}/interaction-limits
func (a *API) setRepo(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	in, err := decodeLimit(r)
	if err != nil {
		return err
	}
	l, err := a.svc.SetRepoLimit(r.Context(), repo, perm, rest.Caller(r).UserID(), in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToInteractionLimit(l))
}

// DELETE /repos/{owner}/{repo}/interaction-limits
func (a *API) removeRepo(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveRepoLimit(r.Context(), repo, perm, rest.Caller(r).UserID()); err != nil {
		return err
	}
	return rest.NoContent(w)
}
