package environments

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Existing is what creating a branch policy that exists answers: GitHub's
// 303 to the policy already there.
type Existing struct{ Policy *model.DeploymentBranchPolicy }

func (e *Existing) Error() string { return "the branch policy exists" }

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

// customEnv is a repository's environment whose branch policy is custom:
// only those have name patterns (GitHub answers 404 for the others).
func (s *Service) customEnv(ctx context.Context, q store.Q, repo *model.Repo, name string) (*model.Environment, error) {
	env, err := q.Environment(ctx, repo.ID, name)
	if err != nil {
		return nil, err
	}
	if env.BranchPolicy != model.BranchPolicyCustom {
		return nil, model.ErrNotFound
	}
	return env, nil
}

// BranchPolicies is one page of an environment's name patterns and their
// count (none unless its branch policy is custom).
func (s *Service) BranchPolicies(ctx context.Context, repo *model.Repo, name string, limit, offset int) ([]*model.DeploymentBranchPolicy, int, error) {
	q := s.Store.R()
	env, err := q.Environment(ctx, repo.ID, name)
	if err != nil {
		return nil, 0, err
	}
	return q.BranchPolicies(ctx, env.ID, limit, offset)
}

// BranchPolicy is one of an environment's name patterns.
func (s *Service) BranchPolicy(ctx context.Context, repo *model.Repo, name string, id int64) (*model.DeploymentBranchPolicy, error) {
	q := s.Store.R()
	env, err := q.Environment(ctx, repo.ID, name)
	if err != nil {
		return nil, err
	}
	return q.BranchPolicy(ctx, env.ID, id)
}

func checkPattern(pattern string) error {
	if strings.TrimSpace(pattern) == "" {
		return model.Invalid("DeploymentBranchPolicy", "name", "missing_field")
	}
	if len(pattern) > MaxName {
		return model.Unprocessable("Name is too long (maximum is 255 characters)")
	}
	return nil
}

// CreateBranchPolicy adds a name pattern for branches or tags (typ
// "branch" when empty); *Existing when the environment has it already.
func (s *Service) CreateBranchPolicy(ctx context.Context, repo *model.Repo, actorID int64, name, pattern, typ string) (*model.DeploymentBranchPolicy, error) {
	if typ == "" {
		typ = "branch"
	}
	if typ != "branch" && typ != "tag" {
		return nil, model.Invalid("DeploymentBranchPolicy", "type", "invalid")
	}
	if err := checkPattern(pattern); err != nil {
		return nil, err
	}
	p := &model.DeploymentBranchPolicy{Name: pattern, Type: typ}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		env, err := s.customEnv(ctx, tx, repo, name)
		if err != nil {
			return err
		}
		p.EnvironmentID = env.ID
		if err := tx.CreateBranchPolicy(ctx, p); err != nil {
			return err
		}
		return appendEvent(ctx, tx, "deployment_branch_policy.created", actorID, repo,
			map[string]any{"environment_id": env.ID, "id": p.ID, "name": p.Name, "type": p.Type})
	})
	if errors.Is(err, store.ErrDuplicate) {
		list, _, lerr := s.Store.R().BranchPolicies(ctx, p.EnvironmentID, 1<<30, 0)
		if lerr != nil {
			return nil, lerr
		}
		for _, o := range list {
			if o.Name == pattern && o.Type == typ {
				return nil, &Existing{Policy: o}
			}
		}
	}
	return p, err
}

// UpdateBranchPolicy changes a name pattern (its type stays).
func (s *Service) UpdateBranchPolicy(ctx context.Context, repo *model.Repo, actorID int64, name string, id int64, pattern string) (*model.DeploymentBranchPolicy, error) {
	if err := checkPattern(pattern); err != nil {
		return nil, err
	}
	var p *model.DeploymentBranchPolicy
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		env, err := tx.Environment(ctx, repo.ID, name)
		if err != nil {
			return err
		}
		if p, err = tx.BranchPolicy(ctx, env.ID, id); err != nil {
			return err
		}
		p.Name = pattern
		if err := tx.UpdateBranchPolicy(ctx, p); err != nil {
			return err
		}
		return appendEvent(ctx, tx, "deployment_branch_policy.updated", actorID, repo,
			map[string]any{"environment_id": env.ID, "id": p.ID, "name": p.Name, "type": p.Type})
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, model.Custom("DeploymentBranchPolicy", "name", "Name has already been taken")
	}
	return p, err
}

// DeleteBranchPolicy removes a name pattern.
func (s *Service) DeleteBranchPolicy(ctx context.Context, repo *model.Repo, actorID int64, name string, id int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		env, err := tx.Environment(ctx, repo.ID, name)
		if err != nil {
			return err
		}
		p, err := tx.BranchPolicy(ctx, env.ID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteBranchPolicy(ctx, p.ID); err != nil {
			return err
		}
		return appendEvent(ctx, tx, "deployment_branch_policy.deleted", actorID, repo,
			map[string]any{"environment_id": env.ID, "id": p.ID, "name": p.Name, "type": p.Type})
	})
}
