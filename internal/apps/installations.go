package apps

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Install installs an app on a user or organization: on all of its
// repositories, or on the given ones (which must be the account's). The
// installation takes the app's permissions and events.
func (s *Service) Install(ctx context.Context, actorID int64, app *model.App, account *model.Account, all bool, repoIDs []int64) (*model.Installation, error) {
	if !all && len(uniqIDs(repoIDs)) == 0 {
		return nil, model.Invalid("Installation", "repositories", "missing_field")
	}
	return s.install(ctx, actorID, app, account, all, repoIDs)
}

// install is Install that allows a selection of no repository.
func (s *Service) install(ctx context.Context, actorID int64, app *model.App, account *model.Account, all bool, repoIDs []int64) (*model.Installation, error) {
	if account == nil || account.Type == model.TypeBot {
		return nil, model.Invalid("Installation", "account", "invalid")
	}
	in := &model.Installation{AppID: app.ID, App: app, AccountID: account.ID, Account: account, Selection: model.SelectAll,
		Permissions: app.Permissions, Events: app.Events}
	if !all {
		in.Selection = model.SelectSelected
		repoIDs = uniqIDs(repoIDs)
	} else {
		repoIDs = nil
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := checkOwned(ctx, tx, account.ID, repoIDs); err != nil {
			return err
		}
		if err := tx.CreateInstallation(ctx, in, repoIDs); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "installation.created", actorID, 0, orgID(account), map[string]any{
			"installation_id": in.ID, "app_id": app.ID, "account_id": account.ID, "repository_selection": in.Selection, "repository_ids": repoIDs})
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, model.Invalid("Installation", "account", "already_exists")
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

func uniqIDs(ids []int64) []int64 {
	out := append([]int64{}, ids...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	n := 0
	for i, id := range out {
		if i == 0 || id != out[i-1] {
			out[n] = id
			n++
		}
	}
	return out[:n]
}

// AppInstallation finds an installation of an app: not found when it is
// another app's.
func (s *Service) AppInstallation(ctx context.Context, appID, installationID int64) (*model.Installation, error) {
	in, err := s.Store.R().InstallationByID(ctx, installationID)
	if err != nil {
		return nil, err
	}
	if in.AppID != appID {
		return nil, model.ErrNotFound
	}
	return in, nil
}

// Delete uninstalls an app: the installation, its selection and its tokens
// go.
func (s *Service) Delete(ctx context.Context, actorID int64, in *model.Installation) error {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteInstallation(ctx, in.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "installation.deleted", actorID, 0, orgID(in.Account), map[string]any{
			"installation_id": in.ID, "app_id": in.AppID, "account_id": in.AccountID})
	})
	if err == nil {
		s.revoked()
	}
	return err
}

// Suspend suspends (on) or unsuspends an installation; by is who did it.
// A suspended installation's tokens stop working and no new ones are
// issued until it is unsuspended. Doing it twice changes nothing.
func (s *Service) Suspend(ctx context.Context, in *model.Installation, on bool, by *model.Account) error {
	if (in.SuspendedAt != nil) == on {
		return nil
	}
	action := "unsuspend"
	var at *time.Time
	var byID int64
	if on {
		action = "suspend"
		now := s.Store.Now()
		at = &now
		if by != nil {
			byID = by.ID
		}
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetInstallationSuspended(ctx, in.ID, at, byID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "installation."+action, byID, 0, orgID(in.Account), map[string]any{
			"installation_id": in.ID, "app_id": in.AppID, "account_id": in.AccountID})
	})
	if err != nil {
		return err
	}
	in.SuspendedAt, in.SuspendedBy = at, by
	if !on {
		in.SuspendedBy = nil
	}
	s.revoked()
	return nil
}

// ErrSuspended is GitHub's answer to an app acting through a suspended
// installation.
var ErrSuspended = model.Forbidden("This installation has been suspended")

// TokenRequest narrows a new installation token: to some repositories (by
// name or id) and to some permissions. Empty fields narrow nothing.
type TokenRequest struct {
	Repositories  []string
	RepositoryIDs []int64
	Permissions   map[string]string
}

// Issued is a new installation token.
type Issued struct {
	Token       string
	ExpiresAt   time.Time
	Permissions map[string]string
	Selection   string
	// RepoIDs are the repositories the token was narrowed to (nil when it
	// reaches every repository of the installation).
	RepoIDs []int64
}

// TokenLifetime is how long an installation token works.
const TokenLifetime = time.Hour

// MaxTokenRepositories is how many repositories a token may be narrowed to.
const MaxTokenRepositories = 500

// Errors of a token request asking for more than the installation has.
var (
	ErrReposNotAccessible = model.Unprocessable("There is at least one repository that does not exist or is not accessible to the parent installation.")
	ErrPermsNotGranted    = model.Unprocessable("The permissions requested are not granted to this installation.")
)

// CreateToken issues an installation token (ghs_, one hour) acting as the
// app's bot with the installation's permissions on its repositories, or
// with fewer of either when the request narrows them (422 when it asks for
// more).
func (s *Service) CreateToken(ctx context.Context, in *model.Installation, req TokenRequest) (*Issued, error) {
	if in.SuspendedAt != nil {
		return nil, ErrSuspended
	}
	perms := authz.WithMetadata(in.Permissions)
	if len(req.Permissions) > 0 {
		for k, v := range req.Permissions {
			if !authz.ValidPermission(k, v) {
				return nil, ErrPermsNotGranted
			}
		}
		if _, ok := authz.WithinPermissions(req.Permissions, perms); !ok {
			return nil, ErrPermsNotGranted
		}
		perms = authz.WithMetadata(req.Permissions)
		// metadata: read comes with any repository permission, but only
		// when the installation has it.
		perms = authz.IntersectPermissions(perms, authz.WithMetadata(in.Permissions))
	}
	out := &Issued{Permissions: perms, Selection: in.Selection, ExpiresAt: s.Store.Now().Add(TokenLifetime)}
	q := s.Store.R()
	narrowed := len(req.Repositories) > 0 || len(req.RepositoryIDs) > 0
	if narrowed {
		if len(req.Repositories)+len(req.RepositoryIDs) > MaxTokenRepositories {
			return nil, ErrReposNotAccessible
		}
		ids := append([]int64{}, req.RepositoryIDs...)
		byName, err := q.ReposOfAccountByName(ctx, in.AccountID, req.Repositories)
		if err != nil {
			return nil, err
		}
		for _, n := range req.Repositories {
			id, ok := byName[strings.ToLower(n)]
			if !ok {
				return nil, ErrReposNotAccessible
			}
			ids = append(ids, id)
		}
		ids = uniqIDs(ids)
		owners, err := q.RepoOwners(ctx, ids)
		if err != nil {
			return nil, err
		}
		var selected map[int64]bool
		if in.Selection != model.SelectAll {
			list, err := q.InstallationRepoIDs(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			selected = map[int64]bool{}
			for _, id := range list {
				selected[id] = true
			}
		}
		for _, id := range ids {
			if owners[id] != in.AccountID || (selected != nil && !selected[id]) {
				return nil, ErrReposNotAccessible
			}
		}
		out.RepoIDs, out.Selection = ids, model.SelectSelected
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		plain, t, err := tx.CreateInstallationToken(ctx, in, perms, out.RepoIDs, out.ExpiresAt)
		if err != nil {
			return err
		}
		out.Token = plain
		return tx.AppendEvent(ctx, "installation_token.created", in.App.BotID, 0, orgID(in.Account), map[string]any{
			"installation_id": in.ID, "app_id": in.AppID, "token_id": t.ID, "permissions": perms, "repository_ids": out.RepoIDs})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RevokeToken revokes the installation token a caller presented.
func (s *Service) RevokeToken(ctx context.Context, c *authz.Caller) error {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteToken(ctx, c.TokenID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "installation_token.revoked", c.UserID(), 0, 0, map[string]any{
			"installation_id": c.InstallationID, "app_id": c.AppID, "token_id": c.TokenID})
	})
	if err == nil {
		s.revoked()
	}
	return err
}

// SetRepository adds a repository to (add) or removes it from an
// installation's selection. Adding one to an installation on all
// repositories changes nothing; removing one from it, or removing the last
// selected one, is refused (422), as on GitHub.
func (s *Service) SetRepository(ctx context.Context, actorID int64, in *model.Installation, repo *model.Repo, add bool) error {
	if repo.OwnerID != in.AccountID {
		return model.ErrNotFound
	}
	return s.SetRepositories(ctx, actorID, in, []int64{repo.ID}, add)
}

// Refusals of removing a repository from an installation.
var (
	ErrSelectionAll   = model.Unprocessable("The installation has access to all repositories: select repositories before removing one.")
	ErrLastRepository = model.Unprocessable("The installation must keep access to at least one repository.")
)
