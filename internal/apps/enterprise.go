package apps

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// InstallOnEnterprise installs an app on hubd's enterprise. The
// installation is stored on the app's own bot (which owns no repositories):
// its tokens reach no repository, only the enterprise operations its
// permissions allow.
func (s *Service) InstallOnEnterprise(ctx context.Context, actorID int64, app *model.App) (*model.Installation, error) {
	bot, err := s.Store.R().AccountByID(ctx, app.BotID)
	if err != nil {
		return nil, err
	}
	in := &model.Installation{AppID: app.ID, App: app, AccountID: bot.ID, Account: bot, Selection: model.SelectSelected,
		Permissions: app.Permissions, Events: app.Events, Enterprise: true}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateInstallation(ctx, in, nil); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "installation.created", actorID, 0, 0, map[string]any{
			"installation_id": in.ID, "app_id": app.ID, "target_type": store.TargetEnterprise})
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, model.Invalid("Installation", "enterprise", "already_exists")
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// InstallOnOrg is an enterprise installation's install of an app on one of
// the enterprise's organizations: on all its repositories, the given ones,
// or none (none: an app that needs no repository). An app already
// installed there is unsuspended and answered as it is (created false).
func (s *Service) InstallOnOrg(ctx context.Context, actorID int64, app *model.App, org *model.Account, selection string, repoIDs []int64) (in *model.Installation, created bool, err error) {
	existing, err := s.Store.R().InstallationOn(ctx, app.ID, org.ID)
	if err == nil {
		if existing.SuspendedAt != nil {
			if err := s.Suspend(ctx, existing, false, nil); err != nil {
				return nil, false, err
			}
		}
		return existing, false, nil
	}
	if !errors.Is(err, model.ErrNotFound) {
		return nil, false, err
	}
	if selection == "none" {
		in, err = s.install(ctx, actorID, app, org, false, nil)
	} else {
		in, err = s.Install(ctx, actorID, app, org, selection == model.SelectAll, repoIDs)
	}
	return in, err == nil, err
}

// SetSelection replaces an installation's repositories: all of its
// account's, or exactly the given ones (which must be the account's).
func (s *Service) SetSelection(ctx context.Context, actorID int64, in *model.Installation, all bool, repoIDs []int64) error {
	selection := model.SelectAll
	if all {
		repoIDs = nil
	} else {
		selection = model.SelectSelected
		repoIDs = uniqIDs(repoIDs)
		if len(repoIDs) == 0 {
			return model.Invalid("Installation", "repositories", "missing_field")
		}
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := checkOwned(ctx, tx, in.AccountID, repoIDs); err != nil {
			return err
		}
		if err := tx.SetInstallationSelection(ctx, in.ID, selection); err != nil {
			return err
		}
		if err := tx.ClearInstallationRepos(ctx, in.ID); err != nil {
			return err
		}
		for _, id := range repoIDs {
			if err := tx.AddInstallationRepo(ctx, in.ID, id); err != nil {
				return err
			}
		}
		return tx.AppendEvent(ctx, "installation_repositories.changed", actorID, 0, orgID(in.Account), map[string]any{
			"installation_id": in.ID, "app_id": in.AppID, "repository_selection": selection, "repository_ids": repoIDs})
	})
	if err != nil {
		return err
	}
	in.Selection = selection
	s.revoked()
	return nil
}

// checkOwned refuses repositories that are not the account's.
func checkOwned(ctx context.Context, tx store.Q, accountID int64, repoIDs []int64) error {
	owners, err := tx.RepoOwners(ctx, repoIDs)
	if err != nil {
		return err
	}
	for _, id := range repoIDs {
		if owners[id] != accountID {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Installation", Field: "repositories", Code: "invalid", Value: id}}}
		}
	}
	return nil
}

// SetRepositories adds repositories to (add) or removes them from an
// installation's selection, in one transaction, with the rules of
// SetRepository.
func (s *Service) SetRepositories(ctx context.Context, actorID int64, in *model.Installation, repoIDs []int64, add bool) error {
	repoIDs = uniqIDs(repoIDs)
	if in.Selection == model.SelectAll {
		if add {
			return nil
		}
		return ErrSelectionAll
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := checkOwned(ctx, tx, in.AccountID, repoIDs); err != nil {
			return err
		}
		action := "added"
		if !add {
			action = "removed"
			selected, err := tx.InstallationRepoIDs(ctx, in.ID)
			if err != nil {
				return err
			}
			gone := IDSet(repoIDs)
			left := 0
			for _, id := range selected {
				if !gone[id] {
					left++
				}
			}
			if left == 0 {
				return ErrLastRepository
			}
		}
		for _, id := range repoIDs {
			if add {
				if err := tx.AddInstallationRepo(ctx, in.ID, id); err != nil {
					return err
				}
			} else if _, err := tx.RemoveInstallationRepo(ctx, in.ID, id); err != nil {
				return err
			}
			if err := tx.AppendEvent(ctx, "installation_repositories."+action, actorID, id, orgID(in.Account), map[string]any{
				"installation_id": in.ID, "app_id": in.AppID, "repository_id": id}); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && !add {
		s.revoked()
	}
	return err
}

// IDSet is a set of ids.
func IDSet(ids []int64) map[int64]bool {
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
