// Package secrets is the Codespaces side of hubd's one secrets store
// (internal/secrets): the development environment secrets of users,
// organizations and repositories (app "codespaces"), the organization's
// Codespaces access policy, and what a codespace gets of them (EnvFor,
// MayCreate).
package secrets

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	sealed "github.com/hubd/hubd/internal/secrets"
	"github.com/hubd/hubd/internal/store"
)

// App is the secrets store's feature name of Codespaces secrets.
const App = "codespaces"

// Service keeps Codespaces secrets and access policies.
type Service struct {
	Store   *store.Store
	Secrets *sealed.Service
}

// New makes the service over the secrets store.
func New(st *store.Store, s *sealed.Service) *Service { return &Service{Store: st, Secrets: s} }

// UserScope is a user's own Codespaces secrets.
func UserScope(userID int64) model.SecretScope {
	return model.SecretScope{App: App, Kind: model.SecretUser, OwnerID: userID}
}

// OrgScope is an organization's Codespaces secrets.
func OrgScope(orgID int64) model.SecretScope {
	return model.SecretScope{App: App, Kind: model.SecretOrganization, OwnerID: orgID}
}

// RepoScope is a repository's Codespaces secrets.
func RepoScope(repoID int64) model.SecretScope {
	return model.SecretScope{App: App, Kind: model.SecretRepository, OwnerID: repoID}
}

// asUser is c's user with the user's own permissions (a token's narrowing
// is the route's business; what a user secret may reach is what the user
// may see).
func asUser(userID int64, c *authz.Caller) *authz.Caller {
	u := authz.Caller{Kind: authz.ClassicPAT, Scopes: authz.Scopes{"repo": true}}
	if c != nil {
		u.User = c.User
	}
	if u.User == nil || u.User.ID != userID {
		u.User = &model.Account{ID: userID, Type: model.TypeUser}
	}
	return &u
}

// readable answers 404 unless the user may read every repository of ids.
func (s *Service) readable(ctx context.Context, c *authz.Caller, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	u := asUser(c.UserID(), c)
	views, err := s.Store.R().ReposByID(ctx, ids, u.UserID())
	if err != nil {
		return err
	}
	for _, id := range ids {
		v := views[id]
		if v == nil || authz.RepoPermission(u, v.Repo, v.Facts) < authz.Read {
			return model.ErrNotFound
		}
	}
	return nil
}

// SetUserSecret creates or updates the caller's secret; the repositories
// selected for it must be ones the caller may see.
func (s *Service) SetUserSecret(ctx context.Context, c *authz.Caller, name string, in sealed.Put) (bool, error) {
	if err := s.readable(ctx, c, in.RepoIDs); err != nil {
		return false, err
	}
	in.Visibility = ""
	return s.Secrets.Set(ctx, UserScope(c.UserID()), c.UserID(), name, in)
}

// SetUserSecretRepos replaces the repositories of the caller's secret.
func (s *Service) SetUserSecretRepos(ctx context.Context, c *authz.Caller, name string, ids []int64) error {
	if err := s.readable(ctx, c, ids); err != nil {
		return err
	}
	return s.Secrets.SetRepos(ctx, UserScope(c.UserID()), c.UserID(), name, ids)
}

// AddUserSecretRepo selects one more repository for the caller's secret
// (one they may see); remove unselects it.
func (s *Service) AddUserSecretRepo(ctx context.Context, c *authz.Caller, name string, repoID int64, remove bool) error {
	if !remove {
		if err := s.readable(ctx, c, []int64{repoID}); err != nil {
			return err
		}
	}
	return s.Secrets.AddRepo(ctx, UserScope(c.UserID()), c.UserID(), name, repoID, remove)
}

// EnvFor is the plain values of the secrets a codespace of the user on
// the repository gets, by name: the organization's secrets visible to the
// repository, the repository's, and the user's own selected for it. When
// a name is at several levels the lowest wins, as GitHub documents: the
// repository's over the organization's, and the user's personal secret
// over both. A repository the user may not see gives model.ErrNotFound.
func (s *Service) EnvFor(ctx context.Context, userID, repoID int64) (map[string]string, error) {
	u := asUser(userID, nil)
	r := s.Store.R()
	v, err := r.RepoByID(ctx, repoID, userID)
	if err != nil {
		return nil, err
	}
	if authz.RepoPermission(u, v.Repo, v.Facts) < authz.Read {
		return nil, model.ErrNotFound
	}
	var orgID int64
	if v.Repo.Owner != nil && v.Repo.Owner.Type == model.TypeOrganization {
		orgID = v.Repo.OwnerID
	}
	// Organization secrets, then the repository's ("organization" sorts
	// before "repository"), then the user's.
	list, err := r.SecretsForRepo(ctx, App, repoID, orgID, v.Repo.Private())
	if err != nil {
		return nil, err
	}
	mine, err := r.UserSecretsForRepo(ctx, App, userID, repoID)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	if err := s.Secrets.Open(ctx, append(list, mine...), out); err != nil {
		return nil, err
	}
	return out, nil
}

// Access visibilities (PUT /orgs/{org}/codespaces/access).
const (
	AccessDisabled        = store.CodespacesAccessDisabled
	AccessSelectedMembers = "selected_members"
	AccessAllMembers      = "all_members"
	AccessAllAndOutside   = "all_members_and_outside_collaborators"
)

var accessVisibilities = map[string]bool{AccessDisabled: true, AccessSelectedMembers: true, AccessAllMembers: true, AccessAllAndOutside: true}

// MaxAccessUsers is GitHub's limit of usernames in one request.
const MaxAccessUsers = 100

// Access is an organization's access visibility.
func (s *Service) Access(ctx context.Context, orgID int64) (string, error) {
	return s.Store.R().CodespacesAccess(ctx, orgID)
}

// MayCreate reports whether the user may create codespaces for the
// organization's repositories, per its access policy. An organization that
// never set one leaves codespaces to whoever may read the repository (on
// GitHub they are then the user's own, billed to them; hubd bills nobody).
// Once set: nobody when disabled, the
// selected users (members or outside collaborators still) with
// selected_members, its active members with all_members, and its outside
// collaborators too with all_members_and_outside_collaborators.
func (s *Service) MayCreate(ctx context.Context, orgID, userID int64) (bool, error) {
	vis, selected, member, outside, err := s.Store.R().CodespacesAccessFor(ctx, orgID, userID)
	if err != nil {
		return false, err
	}
	switch vis {
	case "":
		return true, nil
	case AccessSelectedMembers:
		return selected && (member || outside), nil
	case AccessAllMembers:
		return member, nil
	case AccessAllAndOutside:
		return member || outside, nil
	}
	return false, nil
}

// usernames resolves logins to users of the organization: members, and
// with outside also its outside collaborators; anyone else is GitHub's 422.
func (s *Service) usernames(ctx context.Context, orgID int64, logins []string, outside bool) ([]int64, error) {
	if len(logins) > MaxAccessUsers {
		return nil, model.Unprocessable(fmt.Sprintf("selected_usernames may name at most %d users.", MaxAccessUsers))
	}
	ids, members, collabs, err := s.Store.R().OrgAffiliations(ctx, orgID, logins)
	if err != nil {
		return nil, err
	}
	out := make([]int64, 0, len(logins))
	for _, l := range logins {
		id, ok := ids[strings.ToLower(l)]
		if !ok || !(members[id] || outside && collabs[id]) {
			what := "a member"
			if outside {
				what = "a member or an outside collaborator"
			}
			return nil, model.Unprocessable(fmt.Sprintf("%s is not %s of the organization.", l, what))
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// SetAccess sets an organization's access visibility; selected_members
// needs selected_usernames (the organization's members), which replace
// the selected users, and the other visibilities take none.
func (s *Service) SetAccess(ctx context.Context, orgID, actorID int64, visibility string, logins []string, given bool) error {
	if !accessVisibilities[visibility] {
		return model.Invalid("CodespacesAccess", "visibility", "invalid")
	}
	var ids []int64
	if visibility == AccessSelectedMembers {
		if !given {
			return model.Unprocessable("selected_usernames is required when visibility is selected_members.")
		}
		var err error
		if ids, err = s.usernames(ctx, orgID, logins, false); err != nil {
			return err
		}
	} else if given {
		return model.Unprocessable("selected_usernames can only be set when visibility is selected_members.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetCodespacesAccess(ctx, orgID, visibility, ids, visibility == AccessSelectedMembers); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "org.codespaces_access_update", actorID, 0, orgID,
			map[string]any{"visibility": visibility, "selected_user_ids": ids})
	})
}

// ErrNotSelectedMembers is the answer to a change of the selected users of
// an organization whose visibility is not selected_members.
var ErrNotSelectedMembers = model.BadRequest("Codespaces access for the organization must be set to selected_members to add or remove selected users.")

// ChangeAccessUsers adds (remove: removes) users to the organization's
// selected users; its visibility must be selected_members. Added users are
// its members or outside collaborators; removing anyone not selected is a
// no-op.
func (s *Service) ChangeAccessUsers(ctx context.Context, orgID, actorID int64, logins []string, remove bool) error {
	vis, err := s.Access(ctx, orgID)
	if err != nil {
		return err
	}
	if vis != AccessSelectedMembers {
		return ErrNotSelectedMembers
	}
	var ids []int64
	if remove {
		if len(logins) > MaxAccessUsers {
			return model.Unprocessable(fmt.Sprintf("selected_usernames may name at most %d users.", MaxAccessUsers))
		}
		found, _, _, err := s.Store.R().OrgAffiliations(ctx, orgID, logins)
		if err != nil {
			return err
		}
		for _, id := range found {
			ids = append(ids, id)
		}
		slices.Sort(ids)
	} else if ids, err = s.usernames(ctx, orgID, logins, true); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		// The visibility may have changed since it was read.
		if vis, err := tx.CodespacesAccess(ctx, orgID); err != nil {
			return err
		} else if vis != AccessSelectedMembers {
			return ErrNotSelectedMembers
		}
		verb, payload := "add", map[string]any{"user_ids": ids}
		if remove {
			verb = "remove"
			err = tx.RemoveCodespacesAccessUsers(ctx, orgID, ids)
		} else {
			err = tx.AddCodespacesAccessUsers(ctx, orgID, ids)
		}
		if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "org.codespaces_access_"+verb+"_users", actorID, 0, orgID, payload)
	})
}
