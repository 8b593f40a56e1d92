package actions

import (
	"context"
	"errors"
	"sync"

	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// The GITHUB_TOKEN of a job is an installation token (ghs_) of hubd's
// "GitHub Actions" app, as on GitHub: the app (and its bot,
// github-actions[bot]) belongs to the system organization "github" (a
// reserved login no one else can take, as on GitHub), both made once, when
// hubd serve starts (Provision) or the first job needs them; it is installed on the repository's owner when
// a first job there needs it, its tokens narrowed to the run's repository
// and the workflow's permissions:, and revoked when the job ends.

// ActionsAppName is the app whose bot (github-actions[bot]) acts for jobs.
const ActionsAppName = "GitHub Actions"

// appPermissions is what the installation may grant; tokens take the
// workflow's share of it.
var appPermissions = map[string]string{"actions": "write", "checks": "write", "contents": "write", "deployments": "write",
	"issues": "write", "packages": "write", "pages": "write", "pull_requests": "write", "repository_projects": "write",
	"security_events": "write", "statuses": "write", "discussions": "write", "metadata": "read"}

// SystemOwner is the login of the organization that owns the GitHub
// Actions app.
const SystemOwner = "github"

// Tokens mints and revokes jobs' tokens.
type Tokens struct {
	Apps  *apps.Service
	mu    sync.Mutex // one app creation at a time
	homed bool       // the app is known to belong to SystemOwner
}

// Provision makes the system organization and the GitHub Actions app if
// they are not there yet (hubd serve does at start; a job's token would
// otherwise).
func (t *Tokens) Provision(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := t.app(ctx)
	return err
}

// app finds or makes the Actions app, owned by the system organization
// (t.mu held).
func (t *Tokens) app(ctx context.Context) (*model.App, error) {
	app, err := t.Apps.Store.R().AppBySlug(ctx, apps.Slug(ActionsAppName))
	if err != nil && !errors.Is(err, model.ErrNotFound) {
		return nil, err
	}
	if err == nil && t.homed {
		return app, nil
	}
	owner, err := t.systemOwner(ctx)
	if err != nil {
		return nil, err
	}
	if app == nil {
		created, err := t.Apps.Create(ctx, owner.ID, apps.CreateInput{Owner: owner, Name: ActionsAppName,
			Description: "Runs the workflows of hubd's repositories.", Permissions: appPermissions})
		if err != nil {
			return nil, err
		}
		app = created.App
	} else if app.OwnerID != owner.ID {
		// Made by an earlier hubd under the first repository's owner.
		if err := t.Apps.Store.Tx(ctx, func(tx store.Q) error {
			if err := tx.SetAppOwner(ctx, app.ID, owner.ID); err != nil {
				return err
			}
			return tx.AppendEvent(ctx, "integration.transferred", 0, 0, owner.ID, map[string]any{"app_id": app.ID, "owner_id": owner.ID})
		}); err != nil {
			return nil, err
		}
		app.OwnerID, app.Owner = owner.ID, owner
	}
	t.homed = true
	return app, nil
}

// installation finds or makes the Actions app's installation on the
// owner of repo.
func (t *Tokens) installation(ctx context.Context, repo *model.Repo) (*model.Installation, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	app, err := t.app(ctx)
	if err != nil {
		return nil, err
	}
	in, err := t.Apps.Store.R().InstallationOn(ctx, app.ID, repo.OwnerID)
	if errors.Is(err, model.ErrNotFound) {
		return t.Apps.Install(ctx, repo.OwnerID, app, repo.Owner, true, nil)
	}
	if err == nil {
		in.App = app
	}
	return in, err
}

// Mint issues a token for repo with perms (at most an hour: a longer job
// keeps a token that has expired, as GitHub's do after 24 hours).
func (t *Tokens) Mint(ctx context.Context, repo *model.Repo, perms map[string]string) (string, int64, error) {
	in, err := t.installation(ctx, repo)
	if err != nil {
		return "", 0, err
	}
	perms = authz.IntersectPermissions(perms, authz.WithMetadata(in.Permissions))
	var plain string
	var id int64
	err = t.Apps.Store.Tx(ctx, func(tx store.Q) error {
		p, tok, err := tx.CreateInstallationToken(ctx, in, perms, []int64{repo.ID}, tx.Now().Add(apps.TokenLifetime))
		if err != nil {
			return err
		}
		plain, id = p, tok.ID
		return tx.AppendEvent(ctx, "installation_token.created", in.App.BotID, 0, 0, map[string]any{
			"installation_id": in.ID, "app_id": in.AppID, "token_id": tok.ID, "permissions": perms, "repository_ids": []int64{repo.ID}})
	})
	return plain, id, err
}

// Revoke revokes a job's token.
func (t *Tokens) Revoke(ctx context.Context, id int64) error {
	err := t.Apps.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteToken(ctx, id); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "installation_token.revoked", 0, 0, 0, map[string]any{"token_id": id})
	})
	if err == nil && t.Apps.Revoked != nil {
		t.Apps.Revoked()
	}
	return err
}

// systemOwner finds or makes the organization that owns the Actions app.
func (t *Tokens) systemOwner(ctx context.Context) (*model.Account, error) {
	q := t.Apps.Store.R()
	a, err := q.AccountByLogin(ctx, SystemOwner)
	if !errors.Is(err, model.ErrNotFound) {
		return a, err
	}
	a = &model.Account{Login: SystemOwner, Type: model.TypeOrganization, Name: "GitHub", Blog: "https://github.com/about",
		Description: "Owns the GitHub Actions app of this hubd.", HasOrgProjects: true, HasRepoProjects: true}
	err = t.Apps.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, a); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "organization.created", 0, 0, a.ID, map[string]any{"login": a.Login, "system": true})
	})
	if errors.Is(err, store.ErrDuplicate) { // another hubd process made it
		return q.AccountByLogin(ctx, SystemOwner)
	}
	return a, err
}
