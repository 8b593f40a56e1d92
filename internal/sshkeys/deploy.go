package sshkeys

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Deploy keys: the transport resolves the repository with admin permission
// (api.Deps.Repo) before calling these.

// ErrDeployKeysDisabled is GitHub's 422 for a deploy key added where the
// organization's policy disables them.
var ErrDeployKeysDisabled = &model.ValidationError{Errors: []model.FieldError{{Resource: "PublicKey", Code: "custom",
	Message: "Deploy keys are disabled for this repository"}}}

// DeployKeysEnabled is whether the repository's deploy keys may be added
// and used: an organization's deploy_keys_enabled_for_repositories policy
// disables them all, the existing ones included (a user's repositories
// always allow them).
func (s *Service) DeployKeysEnabled(ctx context.Context, repo *model.Repo) (bool, error) {
	org := orgOf(repo)
	if org == 0 {
		return true, nil
	}
	set, err := s.Store.R().OrgSettings(ctx, org)
	if err != nil {
		return false, err
	}
	return set.DeployKeysEnabled, nil
}

// deployPage marks a page of the repository's deploy keys disabled when
// its policy disables them.
func (s *Service) deployPage(ctx context.Context, repo *model.Repo, keys []*model.PublicKey) ([]*model.PublicKey, error) {
	on, err := s.DeployKeysEnabled(ctx, repo)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		k.Disabled = !on
	}
	return s.overlay(keys), nil
}

// ListDeploy is a page of a repository's deploy keys and their count.
func (s *Service) ListDeploy(ctx context.Context, repo *model.Repo, limit, offset int) ([]*model.PublicKey, int, error) {
	list, n, err := s.Store.R().RepoPublicKeys(ctx, repo.ID, limit, offset)
	if err == nil {
		list, err = s.deployPage(ctx, repo, list)
	}
	if err != nil {
		return nil, 0, err
	}
	return list, n, nil
}

// GetDeploy is one deploy key of the repository.
func (s *Service) GetDeploy(ctx context.Context, repo *model.Repo, id int64) (*model.PublicKey, error) {
	k, err := s.Store.R().PublicKey(ctx, id)
	if err != nil {
		return nil, err
	}
	if k.RepoID != repo.ID {
		return nil, model.ErrNotFound
	}
	if _, err := s.deployPage(ctx, repo, []*model.PublicKey{k}); err != nil {
		return nil, err
	}
	return k, nil
}

// AddDeploy adds a deploy key, read-only or read-write, to the repository.
func (s *Service) AddDeploy(ctx context.Context, c *authz.Caller, repo *model.Repo, title, text string, readOnly bool) (*model.PublicKey, error) {
	if on, err := s.DeployKeysEnabled(ctx, repo); err != nil {
		return nil, err
	} else if !on {
		return nil, ErrDeployKeysDisabled
	}
	key, fp, err := Parse(text)
	if err != nil {
		return nil, ErrInvalidKey("PublicKey")
	}
	k := &model.PublicKey{RepoID: repo.ID, Title: strings.TrimSpace(title), Key: key, Fingerprint: fp, ReadOnly: readOnly, Verified: true}
	if c.User != nil {
		k.AddedBy = c.User.Login
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreatePublicKey(ctx, k); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "deploy_key.created", c.UserID(), repo.ID, orgOf(repo), eventPayload("created", k))
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, ErrKeyInUse("PublicKey")
	}
	return k, err
}

// DeleteDeploy removes a deploy key of the repository.
func (s *Service) DeleteDeploy(ctx context.Context, c *authz.Caller, repo *model.Repo, id int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		k, err := tx.PublicKey(ctx, id)
		if err != nil {
			return err
		}
		if k.RepoID != repo.ID {
			return model.ErrNotFound
		}
		return remove(ctx, tx, c.UserID(), k)
	})
}

func orgOf(repo *model.Repo) int64 {
	if repo.Owner != nil && repo.Owner.IsOrg() {
		return repo.Owner.ID
	}
	return 0
}
