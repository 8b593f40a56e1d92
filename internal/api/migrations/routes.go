// Package migrations is the REST adapter of migration exports
// (migrations/orgs and migrations/users): it parses requests, calls the
// migrations service and writes GitHub's shapes. An organization's and a
// user's migrations are one implementation, told apart by a kind.
package migrations

import (
	"os"
	"path/filepath"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/migrations"
	"github.com/hubd/hubd/internal/rest"
)

// API is the migrations package.
type API struct {
	d    *api.Deps
	svc  *svc.Service
	sign *api.DownloadSigner
}

// New makes the package; archives are kept in a directory beside gitRoot,
// in hubd's data directory.
func New(d *api.Deps, gitRoot string) *API {
	dir := filepath.Join(os.TempDir(), "hubd-migrations")
	if gitRoot != "" {
		if abs, err := filepath.Abs(gitRoot); err == nil {
			gitRoot = abs
		}
		dir = filepath.Join(filepath.Dir(gitRoot), "migrations")
	}
	return &API{d: d, svc: svc.New(d.Store, d.Git, d.Jobs, d.URLs, dir), sign: d.Downloads()}
}

// Service is the migrations service.
func (a *API) Service() *svc.Service { return a.svc }

// kind tells an organization's migrations from a user's.
type kind struct {
	org   bool
	scope string // the classic scope the operations need
}

var (
	orgKind  = kind{org: true, scope: "admin:org"}
	userKind = kind{scope: "repo"}
)

const (
	noteStart = "The archive holds schema.json, users, organizations, teams (with their repository permissions), repositories (with labels, direct collaborators and webhooks without their secrets), protected_branches, milestones, issues and pull_requests (with lock state and reactions), issue_comments, issue_events (with the timeline's commented and reviewed rows), pull_request_reviews, pull_request_review_comments, commit_comments and releases (with reactions), release assets with their files, and each repository's bare git data. hubd stores no issue or comment attachments, so exclude_attachments leaves out the release asset files; GitHub's archive has no layout for Projects (v2) and classic projects are retired, so no projects are exported (exclude_owner_projects changes nothing). Archives import with `hubd import` or POST /admin/migrations/import."
	noteFine  = "Fine-grained personal access tokens are refused."
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	org, user := "/orgs/{org}/migrations", "/user/migrations"
	orgScopes, userScopes := []string{orgKind.scope}, []string{userKind.scope}
	return []rest.Route{
		{Method: "GET", Pattern: org, OperationID: "migrations/list-for-org", Handler: a.list(orgKind), Scopes: orgScopes},
		{Method: "POST", Pattern: org, OperationID: "migrations/start-for-org", Handler: a.start(orgKind), Scopes: orgScopes, Note: noteStart},
		{Method: "GET", Pattern: org + "/{migration_id}", OperationID: "migrations/get-status-for-org", Handler: a.get(orgKind), Scopes: orgScopes},
		{Method: "GET", Pattern: org + "/{migration_id}/archive", OperationID: "migrations/download-archive-for-org", Handler: a.archive(orgKind),
			Scopes: orgScopes, Note: noteStart},
		{Method: "DELETE", Pattern: org + "/{migration_id}/archive", OperationID: "migrations/delete-archive-for-org", Handler: a.deleteArchive(orgKind), Scopes: orgScopes},
		{Method: "DELETE", Pattern: org + "/{migration_id}/repos/{repo_name}/lock", OperationID: "migrations/unlock-repo-for-org", Handler: a.unlock(orgKind), Scopes: orgScopes},
		{Method: "GET", Pattern: org + "/{migration_id}/repositories", OperationID: "migrations/list-repos-for-org", Handler: a.repos(orgKind), Scopes: orgScopes},

		{Method: "GET", Pattern: user, OperationID: "migrations/list-for-authenticated-user", Handler: a.list(userKind), Scopes: userScopes, Note: noteFine},
		{Method: "POST", Pattern: user, OperationID: "migrations/start-for-authenticated-user", Handler: a.start(userKind), Scopes: userScopes,
			Note: noteStart + " " + noteFine},
		{Method: "GET", Pattern: user + "/{migration_id}", OperationID: "migrations/get-status-for-authenticated-user", Handler: a.get(userKind), Scopes: userScopes, Note: noteFine},
		{Method: "GET", Pattern: user + "/{migration_id}/archive", OperationID: "migrations/get-archive-for-authenticated-user", Handler: a.archive(userKind),
			Scopes: userScopes, Note: noteStart + " " + noteFine},
		{Method: "DELETE", Pattern: user + "/{migration_id}/archive", OperationID: "migrations/delete-archive-for-authenticated-user", Handler: a.deleteArchive(userKind),
			Scopes: userScopes, Note: noteFine},
		{Method: "DELETE", Pattern: user + "/{migration_id}/repos/{repo_name}/lock", OperationID: "migrations/unlock-repo-for-authenticated-user", Handler: a.unlock(userKind),
			Scopes: userScopes, Note: noteFine},
		{Method: "GET", Pattern: user + "/{migration_id}/repositories", OperationID: "migrations/list-repos-for-authenticated-user", Handler: a.repos(userKind),
			Scopes: userScopes, Note: noteFine},

		// hubd's site-admin import of a migration archive (import.go).
		{Method: "POST", Pattern: "/admin/migrations/import", OperationID: "hubd/import-migration-archive", Handler: a.importArchive,
			Extension: true, Stream: true},

		// The signed download URL the archive operations redirect to.
		{Method: "GET", Pattern: "/_migrations/{owner_id}/{migration_id}/archive.tar.gz", OperationID: "hubd/migration-archive", Handler: a.serveArchive,
			Extension: true, Stream: true, NoRateLimit: true},
	}
}
