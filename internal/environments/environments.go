// Package environments is the domain of deployment environments: a
// repository's environments with their protection rules (wait timer,
// required reviewers, deployment branch policy) and the name patterns of
// custom branch policies. Jobs that name an environment create it when it
// is missing, as GitHub does (JobHook). The REST adapter is
// internal/api/environments.
package environments

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// GitHub's limits.
const (
	MaxWaitTimer = 43200 // minutes (30 days)
	MaxReviewers = 6
	MaxName      = 255
)

// Service is the environments domain.
type Service struct {
	Store *store.Store
	// actions is the Actions domain whose jobs the gates hold (gates.go).
	actions *actions.Service
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Input is the body of PUT .../environments/{name}: the environment's
// protection rules, replaced whole (absent fields take their defaults).
type Input struct {
	WaitTimer         int
	PreventSelfReview bool
	Reviewers         []model.EnvironmentReviewer
	// BranchPolicy is "", protected or custom.
	BranchPolicy string
}

// CheckName refuses names GitHub refuses: empty, longer than 255
// characters, or holding control characters.
func CheckName(name string) error {
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > MaxName || !utf8.ValidString(name) {
		return model.Unprocessable("Invalid environment name: " + name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return model.Unprocessable("Invalid environment name.")
		}
	}
	return nil
}

// Get is a repository's environment by name.
func (s *Service) Get(ctx context.Context, repo *model.Repo, name string) (*model.Environment, error) {
	return s.Store.R().Environment(ctx, repo.ID, name)
}

// List is one page of a repository's environments and their count.
func (s *Service) List(ctx context.Context, repo *model.Repo, limit, offset int) ([]*model.Environment, int, error) {
	return s.Store.R().Environments(ctx, repo.ID, limit, offset)
}

// validate checks the protection rules: the wait timer's range, at most
// six reviewers who exist (users, or teams of the repository's
// organization).
func (s *Service) validate(ctx context.Context, repo *model.Repo, in Input) error {
	if in.WaitTimer < 0 || in.WaitTimer > MaxWaitTimer {
		return model.Unprocessable("Failed to create the environment protection rule: wait_timer must be between 0 and 43200 minutes.")
	}
	if len(in.Reviewers) > MaxReviewers {
		return model.Unprocessable("Failed to create the environment protection rule: reviewers can not have more than 6 entries.")
	}
	q := s.Store.R()
	seen := map[model.EnvironmentReviewer]bool{}
	for _, r := range in.Reviewers {
		if seen[r] {
			return model.Unprocessable("Failed to create the environment protection rule: reviewers contains a duplicate entry.")
		}
		seen[r] = true
		switch r.Type {
		case "User":
			a, err := q.AccountByID(ctx, r.ID)
			if errors.Is(err, model.ErrNotFound) || (err == nil && a.IsOrg()) {
				return model.Unprocessable("Failed to create the environment protection rule: reviewer " + itoa(r.ID) + " is not a user.")
			}
			if err != nil {
				return err
			}
		case "Team":
			t, err := q.TeamByID(ctx, r.ID)
			if errors.Is(err, model.ErrNotFound) || (err == nil && t.OrgID != repo.Owner.ID) {
				return model.Unprocessable("Failed to create the environment protection rule: team " + itoa(r.ID) + " is not a team of " + repo.Owner.Login + ".")
			}
			if err != nil {
				return err
			}
		default:
			return model.Unprocessable("Failed to create the environment protection rule: reviewer type must be User or Team.")
		}
	}
	return nil
}

// Put creates an environment or replaces its protection rules; created
// says which. Leaving custom branch policies removes their patterns.
func (s *Service) Put(ctx context.Context, repo *model.Repo, actorID int64, name string, in Input) (env *model.Environment, created bool, err error) {
	if err := CheckName(name); err != nil {
		return nil, false, err
	}
	if err := s.validate(ctx, repo, in); err != nil {
		return nil, false, err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		env, err = tx.Environment(ctx, repo.ID, name)
		created = errors.Is(err, model.ErrNotFound)
		if created {
			env = &model.Environment{RepoID: repo.ID, Name: name}
		} else if err != nil {
			return err
		}
		before := env.BranchPolicy
		env.WaitTimer, env.PreventSelfReview, env.Reviewers, env.BranchPolicy = in.WaitTimer, in.PreventSelfReview, in.Reviewers, in.BranchPolicy
		if env.Reviewers == nil {
			env.Reviewers = []model.EnvironmentReviewer{}
		}
		action := "updated"
		if created {
			action = "created"
			if err := tx.CreateEnvironment(ctx, env); err != nil {
				return err
			}
		} else {
			if err := tx.UpdateEnvironment(ctx, env); err != nil {
				return err
			}
			if before == model.BranchPolicyCustom && env.BranchPolicy != model.BranchPolicyCustom {
				if err := tx.DeleteBranchPolicies(ctx, env.ID); err != nil {
					return err
				}
			}
		}
		return appendEvent(ctx, tx, "environment."+action, actorID, repo, map[string]any{"environment_id": env.ID, "name": env.Name})
	})
	return env, created, err
}

// Ensure is the environment of that name, created without protection
// rules when missing (a job naming it).
func (s *Service) Ensure(ctx context.Context, repo *model.Repo, actorID int64, name string) (*model.Environment, error) {
	if env, err := s.Store.R().Environment(ctx, repo.ID, name); !errors.Is(err, model.ErrNotFound) {
		return env, err
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	var env *model.Environment
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		env = &model.Environment{RepoID: repo.ID, Name: name, Reviewers: []model.EnvironmentReviewer{}}
		if err := tx.CreateEnvironment(ctx, env); err != nil {
			return err
		}
		return appendEvent(ctx, tx, "environment.created", actorID, repo, map[string]any{"environment_id": env.ID, "name": env.Name})
	})
	if errors.Is(err, store.ErrDuplicate) { // made meanwhile by another job
		return s.Store.R().Environment(ctx, repo.ID, name)
	}
	return env, err
}

// Delete removes an environment with its branch policies and variables.
func (s *Service) Delete(ctx context.Context, repo *model.Repo, actorID int64, name string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		env, err := tx.Environment(ctx, repo.ID, name)
		if err != nil {
			return err
		}
		if err := tx.DeleteEnvironment(ctx, env.ID); err != nil {
			return err
		}
		return appendEvent(ctx, tx, "environment.deleted", actorID, repo, map[string]any{"environment_id": env.ID, "name": env.Name})
	})
}

func appendEvent(ctx context.Context, tx store.Q, typ string, actorID int64, repo *model.Repo, payload map[string]any) error {
	orgID := int64(0)
	if repo.Owner != nil && repo.Owner.IsOrg() {
		orgID = repo.Owner.ID
	}
	return tx.AppendEvent(ctx, typ, actorID, repo.ID, orgID, payload)
}
