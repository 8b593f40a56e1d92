// Package checks is the REST adapter of the Checks API: check runs, check
// suites, annotations and suite preferences. It parses requests, calls the
// checks service and writes GitHub's shapes.
package checks

import (
	"context"
	"log/slog"
	"strings"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/checks"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// appNote marks the writes Partial: GitHub takes GitHub App tokens only.
const appNote = "GitHub accepts only GitHub App tokens here; until hubd has GitHub Apps, a token with write access to the repository may create and update checks (app is null)."

// API is the checks package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package and registers its push hook (a suite per pushed
// branch head).
// Service is the checks service (workflow jobs report as check runs).
func (a *API) Service() *svc.Service { return a.svc }

func New(d *api.Deps) *API {
	a := &API{d: d}
	a.svc = svc.New(d.Store, gitReader{d})
	d.PushHooks = append(d.PushHooks, a.pushed)
	return a
}

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	write := []string{"repo"}
	return []rest.Route{
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/check-runs", OperationID: "checks/create", Handler: a.createRun, Scopes: write, Note: appNote},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}", OperationID: "checks/get", Handler: a.getRun, Scopes: read},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}", OperationID: "checks/update", Handler: a.updateRun, Scopes: write, Note: appNote},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations", OperationID: "checks/list-annotations", Handler: a.listAnnotations, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}/rerequest", OperationID: "checks/rerequest-run", Handler: a.rerequestRun, Scopes: write, Note: appNote},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/check-suites/{check_suite_id}/check-runs", OperationID: "checks/list-for-suite", Handler: a.listForSuite, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/commits/{ref}/check-runs", OperationID: "checks/list-for-ref", Handler: a.listForRef, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/check-suites", OperationID: "checks/create-suite", Handler: a.createSuite, Scopes: write, Note: appNote},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/check-suites/preferences", OperationID: "checks/set-suites-preferences", Handler: a.setPreferences, Scopes: write,
			Note: "hubd has no GitHub Apps yet: preferences are stored for any app_id, and only app_id 0 (the app-less checks hubd makes on push) changes what a push does."},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/check-suites/{check_suite_id}", OperationID: "checks/get-suite", Handler: a.getSuite, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest", OperationID: "checks/rerequest-suite", Handler: a.rerequestSuite, Scopes: write, Note: appNote},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/commits/{ref}/check-suites", OperationID: "checks/list-suites-for-ref", Handler: a.listSuitesForRef, Scopes: read},
	}
}

// pushed creates the suites of a push's branch heads; a failure is logged,
// never undoes the push.
func (a *API) pushed(ctx context.Context, repo *model.Repo, actorID int64, updates []api.RefUpdate) {
	var list []svc.Update
	for _, u := range updates {
		branch, ok := strings.CutPrefix(u.Ref, "refs/heads/")
		if !ok {
			continue
		}
		up := svc.Update{Branch: branch, New: u.New, Deleted: u.New == gitrepo.ZeroOID}
		if u.Old != gitrepo.ZeroOID {
			up.Old = u.Old
		}
		list = append(list, up)
	}
	if err := a.svc.Pushed(ctx, repo, actorID, list); err != nil {
		slog.Warn("check suites of a push", "repo_id", repo.ID, "err", err)
	}
}

// gitReader reads what the service needs from git storage.
type gitReader struct{ d *api.Deps }

func (g gitReader) Resolve(ctx context.Context, repo *model.Repo, ref string) (string, error) {
	r := g.d.Git.Open(repo.ID)
	if !r.Exists() {
		return "", api.ErrEmptyRepo
	}
	return g.d.ResolveCommit(ctx, r, repo, ref)
}

func (g gitReader) BranchAt(ctx context.Context, repo *model.Repo, sha string) *string {
	r := g.d.Git.Open(repo.ID)
	if !r.Exists() {
		return nil
	}
	refs, err := r.Refs(ctx, "refs/heads/")
	if err != nil {
		return nil
	}
	var found *string
	for _, ref := range refs {
		if ref.OID != sha {
			continue
		}
		name := strings.TrimPrefix(ref.Name, "refs/heads/")
		if name == repo.DefaultBranch {
			return &name
		}
		if found == nil {
			found = &name
		}
	}
	return found
}

func (g gitReader) Commits(ctx context.Context, repo *model.Repo, shas []string) map[string]*model.SimpleCommit {
	return g.d.SimpleCommits(ctx, repo, shas)
}
