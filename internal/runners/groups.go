package runners

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Runner groups of an organization (Scope org) or of the enterprise
// (Scope enterprise). An organization group's targets are repositories of
// the organization; an enterprise group's are organizations.

// GroupInput is the body of a group's create (all of it) or update (the
// fields present).
type GroupInput struct {
	Name                   *string   `json:"name"`
	Visibility             *string   `json:"visibility"`
	SelectedRepositoryIDs  *[]int64  `json:"selected_repository_ids"`
	SelectedOrgIDs         *[]int64  `json:"selected_organization_ids"`
	Runners                *[]int64  `json:"runners"`
	AllowsPublic           *bool     `json:"allows_public_repositories"`
	RestrictedToWorkflows  *bool     `json:"restricted_to_workflows"`
	SelectedWorkflows      *[]string `json:"selected_workflows"`
	NetworkConfigurationID *string   `json:"network_configuration_id"`
}

// Groups lists the scope's groups, the default first.
func (s *Service) Groups(ctx context.Context, sc Scope, limit, offset int) ([]*model.RunnerGroup, int, error) {
	return s.Store.R().RunnerGroups(ctx, sc.OwnerID(), limit, offset)
}

// Group finds one of the scope's groups.
func (s *Service) Group(ctx context.Context, sc Scope, gid int64) (*model.RunnerGroup, error) {
	return s.Store.R().RunnerGroup(ctx, sc.OwnerID(), gid)
}

// apply validates in onto g.
func (s *Service) apply(ctx context.Context, sc Scope, g *model.RunnerGroup, in GroupInput) error {
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		if n == "" || len(n) > 100 {
			return model.Invalid("RunnerGroup", "name", "invalid")
		}
		g.Name = n
	}
	if in.Visibility != nil {
		v := *in.Visibility
		ok := v == "all" || v == "selected" || (v == "private" && sc.Kind == model.RunnerOrg)
		if !ok {
			return model.Invalid("RunnerGroup", "visibility", "invalid")
		}
		g.Visibility = v
	}
	if in.AllowsPublic != nil {
		g.AllowsPublic = *in.AllowsPublic
	}
	if in.RestrictedToWorkflows != nil {
		g.RestrictedToWorkflows = *in.RestrictedToWorkflows
	}
	if in.SelectedWorkflows != nil {
		g.SelectedWorkflows = []string{}
		for _, w := range *in.SelectedWorkflows {
			w = strings.TrimSpace(w)
			if w == "" || !strings.Contains(w, "@") || strings.Count(strings.Split(w, "@")[0], "/") < 2 {
				return model.Custom("RunnerGroup", "selected_workflows", "Workflows must be given as owner/repository/path@ref (got \""+w+"\").")
			}
			g.SelectedWorkflows = append(g.SelectedWorkflows, w)
		}
	}
	return nil
}

// targets validates a list of repositories (of the organization) or
// organizations (for the enterprise).
func (s *Service) targets(ctx context.Context, sc Scope, ids []int64) error {
	q := s.Store.R()
	if sc.Kind == model.RunnerEnterprise {
		for _, id := range ids {
			a, err := q.AccountByID(ctx, id)
			if errors.Is(err, model.ErrNotFound) || (err == nil && !a.IsOrg()) {
				return model.Custom("RunnerGroup", "selected_organization_ids", "Organization not found.")
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	views, err := q.ReposByID(ctx, ids, 0)
	if err != nil {
		return err
	}
	for _, id := range ids {
		v := views[id]
		if v == nil || v.Repo.OwnerID != sc.Org.ID {
			return model.Custom("RunnerGroup", "selected_repository_ids", "Repository not found in this organization.")
		}
	}
	return nil
}

// CreateGroup creates a group with its targets and runners.
func (s *Service) CreateGroup(ctx context.Context, sc Scope, in GroupInput) (*model.RunnerGroup, error) {
	if in.Name == nil {
		return nil, model.Invalid("RunnerGroup", "name", "missing_field")
	}
	g := &model.RunnerGroup{OwnerID: sc.OwnerID(), Visibility: "all", SelectedWorkflows: []string{}}
	if err := s.apply(ctx, sc, g, in); err != nil {
		return nil, err
	}
	targets := in.SelectedRepositoryIDs
	if sc.Kind == model.RunnerEnterprise {
		targets = in.SelectedOrgIDs
	}
	if targets != nil {
		if err := s.targets(ctx, sc, *targets); err != nil {
			return nil, err
		}
	}
	var runners []*model.Runner
	if in.Runners != nil {
		var err error
		if runners, err = s.groupRunners(ctx, sc, *in.Runners); err != nil {
			return nil, err
		}
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateRunnerGroup(ctx, g); err != nil {
			if errors.Is(err, store.ErrDuplicate) {
				return model.Custom("RunnerGroup", "name", "A runner group named "+g.Name+" already exists.")
			}
			return err
		}
		if targets != nil {
			if err := tx.SetRunnerGroupTargets(ctx, g.OwnerID, g.ID, *targets, true); err != nil {
				return err
			}
		}
		if err := s.place(ctx, tx, sc, runners, g.ID); err != nil {
			return err
		}
		return sc.event(ctx, tx, "runner_group.created", map[string]any{"runner_group_id": g.ID, "name": g.Name})
	})
	return g, err
}

// UpdateGroup changes a group's settings.
func (s *Service) UpdateGroup(ctx context.Context, sc Scope, gid int64, in GroupInput) (*model.RunnerGroup, error) {
	g, err := s.Group(ctx, sc, gid)
	if err != nil {
		return nil, err
	}
	if g.Default && in.Name != nil && *in.Name != g.Name {
		return nil, model.Unprocessable("The default runner group cannot be renamed.")
	}
	if err := s.apply(ctx, sc, g, in); err != nil {
		return nil, err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SaveRunnerGroup(ctx, g); err != nil {
			if errors.Is(err, store.ErrDuplicate) {
				return model.Custom("RunnerGroup", "name", "A runner group named "+g.Name+" already exists.")
			}
			return err
		}
		return sc.event(ctx, tx, "runner_group.updated", map[string]any{"runner_group_id": g.ID, "name": g.Name})
	})
	return g, err
}

// DeleteGroup removes a group (not the default); its runners move to the
// default group.
func (s *Service) DeleteGroup(ctx context.Context, sc Scope, gid int64) error {
	g, err := s.Group(ctx, sc, gid)
	if err != nil {
		return err
	}
	if g.Default {
		return model.Unprocessable("The default runner group cannot be deleted.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteRunnerGroup(ctx, g.OwnerID, g.ID); err != nil {
			return err
		}
		return sc.event(ctx, tx, "runner_group.deleted", map[string]any{"runner_group_id": g.ID, "name": g.Name})
	})
}

// Targets lists a group's selected repositories or organizations (ids).
func (s *Service) Targets(ctx context.Context, sc Scope, gid int64, limit, offset int) ([]int64, int, error) {
	g, err := s.Group(ctx, sc, gid)
	if err != nil {
		return nil, 0, err
	}
	return s.Store.R().RunnerGroupTargets(ctx, g.OwnerID, g.ID, limit, offset)
}

// SetTargets replaces (op "set"), extends ("add") or narrows ("remove")
// a group's selected repositories or organizations.
func (s *Service) SetTargets(ctx context.Context, sc Scope, gid int64, op string, ids []int64) error {
	g, err := s.Group(ctx, sc, gid)
	if err != nil {
		return err
	}
	if op != "remove" {
		if err := s.targets(ctx, sc, ids); err != nil {
			if op == "add" {
				return model.ErrNotFound
			}
			return err
		}
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		switch op {
		case "remove":
			err = tx.RemoveRunnerGroupTarget(ctx, g.OwnerID, g.ID, ids[0])
		default:
			err = tx.SetRunnerGroupTargets(ctx, g.OwnerID, g.ID, ids, op == "set")
		}
		if err != nil {
			return err
		}
		return sc.event(ctx, tx, "runner_group.access_changed", map[string]any{"runner_group_id": g.ID, "op": op, "targets": ids})
	})
}

// GroupRunners lists the runners in a group of the scope.
func (s *Service) GroupRunners(ctx context.Context, sc Scope, gid int64, limit, offset int) ([]*model.Runner, int, error) {
	g, err := s.Group(ctx, sc, gid)
	if err != nil {
		return nil, 0, err
	}
	f := sc.filter()
	f.GroupID = g.ID
	return s.Store.R().Runners(ctx, f, limit, offset)
}

// groupRunners finds runners of the scope to put in a group (a missing
// one is not found).
func (s *Service) groupRunners(ctx context.Context, sc Scope, ids []int64) ([]*model.Runner, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	f := sc.filter()
	f.IDs = ids
	list, _, err := s.Store.R().Runners(ctx, f, len(ids), 0)
	if err != nil {
		return nil, err
	}
	if len(list) != len(uniq(ids)) {
		return nil, model.Custom("RunnerGroup", "runners", "Runner not found.")
	}
	return list, nil
}

func uniq(ids []int64) map[int64]bool {
	out := map[int64]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// place puts runners in group gid: an organization's own runners move;
// hubd's workers are placed in the organization's group.
func (s *Service) place(ctx context.Context, tx store.Q, sc Scope, runners []*model.Runner, gid int64) error {
	for _, r := range runners {
		var org int64
		if r.Worker && sc.Kind == model.RunnerOrg {
			org = sc.Org.ID
		}
		if err := tx.SetRunnerGroup(ctx, r.ID, org, gid); err != nil {
			return err
		}
	}
	return nil
}

// SetGroupRunners replaces ("set") a group's runners (those left move to
// the default group), adds one ("add") or removes one ("remove": it moves
// to the default group).
func (s *Service) SetGroupRunners(ctx context.Context, sc Scope, gid int64, op string, ids []int64) error {
	g, err := s.Group(ctx, sc, gid)
	if err != nil {
		return err
	}
	list, err := s.groupRunners(ctx, sc, ids)
	if err != nil {
		if op != "set" {
			return model.ErrNotFound
		}
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		switch op {
		case "set":
			f := sc.filter()
			f.GroupID = g.ID
			cur, _, err := tx.Runners(ctx, f, 1<<20, 0)
			if err != nil {
				return err
			}
			if err := s.place(ctx, tx, sc, cur, model.DefaultRunnerGroupID); err != nil {
				return err
			}
			err = s.place(ctx, tx, sc, list, g.ID)
			if err != nil {
				return err
			}
		case "add":
			if err := s.place(ctx, tx, sc, list, g.ID); err != nil {
				return err
			}
		case "remove":
			if list[0].GroupID != g.ID {
				return model.ErrNotFound
			}
			if err := s.place(ctx, tx, sc, list, model.DefaultRunnerGroupID); err != nil {
				return err
			}
		}
		return sc.event(ctx, tx, "runner_group.runners_changed", map[string]any{"runner_group_id": g.ID, "op": op, "runners": ids})
	})
}
