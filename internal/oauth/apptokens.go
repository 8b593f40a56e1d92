package oauth

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// ErrNoToken is the /applications operations' answer to a token the
// client was not issued (or that expired or was revoked).
var ErrNoToken = &model.HTTPError{Status: 404, Message: "Not Found"}

// tokenOf finds a live token issued to a client, and its user.
func (s *Service) tokenOf(ctx context.Context, c *model.OAuthClient, token string) (*store.ClientToken, *model.Account, error) {
	if token == "" {
		return nil, nil, model.Invalid("Authorization", "access_token", "missing_field")
	}
	q := s.Store.R()
	t, err := q.ClientTokenByHash(ctx, c.ClientID, store.HashToken(token))
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil, ErrNoToken
	}
	if err != nil {
		return nil, nil, err
	}
	u, err := q.AccountByID(ctx, t.UserID)
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil, ErrNoToken
	}
	return t, u, err
}

// CheckToken is POST /applications/{client_id}/token: the token's
// authorization when the client was issued it.
func (s *Service) CheckToken(ctx context.Context, c *model.OAuthClient, token string) (*store.ClientToken, *model.Account, error) {
	return s.tokenOf(ctx, c, token)
}

// ResetToken gives a token a new secret (PATCH): the old one stops
// working; the new one is returned once.
func (s *Service) ResetToken(ctx context.Context, c *model.OAuthClient, token string) (*store.ClientToken, *model.Account, string, error) {
	t, u, err := s.tokenOf(ctx, c, token)
	if err != nil {
		return nil, nil, "", err
	}
	plain := store.NewTokenString(t.Kind)
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.ReplaceTokenSecret(ctx, t.ID, plain); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "oauth_access.regenerate", u.ID, 0, 0, map[string]any{"client_id": c.ClientID, "token_id": t.ID})
	})
	if err != nil {
		return nil, nil, "", err
	}
	s.revoked()
	t.LastEight = plain[len(plain)-8:]
	return t, u, plain, nil
}

// DeleteToken revokes one token (and the refresh token issued with it).
func (s *Service) DeleteToken(ctx context.Context, c *model.OAuthClient, token string) error {
	t, u, err := s.tokenOf(ctx, c, token)
	if err != nil {
		return err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteToken(ctx, t.ID); err != nil {
			return err
		}
		if err := tx.DeleteRefreshTokensOf(ctx, t.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "oauth_access.destroy", u.ID, 0, 0, map[string]any{"client_id": c.ClientID, "token_id": t.ID})
	})
	s.revoked()
	return err
}

// DeleteGrant revokes the client's grant for the token's user: every token,
// refresh token and code the client holds for them.
func (s *Service) DeleteGrant(ctx context.Context, c *model.OAuthClient, token string) error {
	_, u, err := s.tokenOf(ctx, c, token)
	if err != nil {
		return err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteClientGrant(ctx, c.ClientID, u.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "oauth_authorization.destroy", u.ID, 0, 0, map[string]any{"client_id": c.ClientID, "user_id": u.ID})
	})
	s.revoked()
	return err
}

// Caller is the caller of a client authenticating with its id and secret
// (server.Server.Clients).
func (s *Service) Caller(ctx context.Context, clientID, secret string) (*authz.Caller, bool, error) {
	c, ok, err := s.VerifyClient(ctx, clientID, secret)
	if !ok || err != nil {
		return nil, false, err
	}
	return &authz.Caller{Kind: authz.ClientCredentials, ClientID: c.ClientID, AppID: c.AppID}, true, nil
}

// ScopeRequest is the body of POST /applications/{client_id}/token/scoped.
type ScopeRequest struct {
	AccessToken   string
	Target        string // the login of the account the app is installed on
	TargetID      int64
	Repositories  []string
	RepositoryIDs []int64
	Permissions   map[string]string
}

// ScopeToken makes, from a GitHub App's unscoped user access token, one
// narrowed to the app's installation on a target account, to some of its
// repositories and permissions (apps/scope-token).
func (s *Service) ScopeToken(ctx context.Context, c *model.OAuthClient, in ScopeRequest) (*store.ClientToken, *model.Account, string, *model.Installation, error) {
	if !c.GitHubApp() {
		return nil, nil, "", nil, ErrNoToken
	}
	t, u, err := s.tokenOf(ctx, c, in.AccessToken)
	if err != nil {
		return nil, nil, "", nil, err
	}
	q := s.Store.R()
	var target *model.Account
	switch {
	case in.TargetID != 0:
		target, err = q.AccountByID(ctx, in.TargetID)
	case in.Target != "":
		target, err = q.AccountByLogin(ctx, in.Target)
	default:
		return nil, nil, "", nil, model.Invalid("Authorization", "target", "missing_field")
	}
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil, "", nil, model.Invalid("Authorization", "target", "invalid")
	}
	if err != nil {
		return nil, nil, "", nil, err
	}
	inst, err := q.InstallationOn(ctx, c.AppID, target.ID)
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil, "", nil, model.Invalid("Authorization", "target", "invalid")
	}
	if err != nil {
		return nil, nil, "", nil, err
	}
	perms := inst.Permissions
	if in.Permissions != nil {
		for k, v := range in.Permissions {
			if !authz.ValidPermission(k, v) {
				return nil, nil, "", nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Authorization", Field: "permissions", Code: "invalid", Value: k + ":" + v}}}
			}
		}
		if name, ok := authz.WithinPermissions(in.Permissions, inst.Permissions); !ok {
			return nil, nil, "", nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Authorization", Field: "permissions", Code: "invalid", Value: name}}}
		}
		perms = authz.WithMetadata(in.Permissions)
	}
	var repoIDs []int64
	if len(in.Repositories) > 0 || len(in.RepositoryIDs) > 0 {
		byName, err := q.ReposOfAccountByName(ctx, target.ID, in.Repositories)
		if err != nil {
			return nil, nil, "", nil, err
		}
		for _, n := range in.Repositories {
			id, ok := byName[strings.ToLower(n)]
			if !ok {
				return nil, nil, "", nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Authorization", Field: "repositories", Code: "invalid", Value: n}}}
			}
			repoIDs = append(repoIDs, id)
		}
		owners, err := q.RepoOwners(ctx, in.RepositoryIDs)
		if err != nil {
			return nil, nil, "", nil, err
		}
		for _, id := range in.RepositoryIDs {
			if owners[id] != target.ID {
				return nil, nil, "", nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Authorization", Field: "repository_ids", Code: "invalid", Value: id}}}
			}
			repoIDs = append(repoIDs, id)
		}
		for _, id := range repoIDs {
			ok, err := q.InstallationCovers(ctx, inst, id)
			if err != nil {
				return nil, nil, "", nil, err
			}
			if !ok {
				return nil, nil, "", nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Authorization", Field: "repositories", Code: "invalid", Value: id}}}
			}
		}
	}
	var plain string
	var scoped *store.ClientToken
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		plain, scoped, err = tx.CreateScopedUserToken(ctx, u.ID, c.ClientID, inst, perms, repoIDs, tx.Now().Add(UserTokenTTL))
		if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "oauth_access.create", u.ID, 0, 0, map[string]any{"client_id": c.ClientID, "token_id": scoped.ID,
			"app_id": c.AppID, "installation_id": inst.ID, "scoped_from": t.ID})
	})
	if err != nil {
		return nil, nil, "", nil, err
	}
	return scoped, u, plain, inst, nil
}
