// Package pulls is the REST adapter of pull requests: it parses requests,
// calls the pull request service (internal/pulls) and writes GitHub's
// shapes.
package pulls

import (
	"context"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/rest"
)

// API is the pull requests package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package, its service and its push hook.
func New(d *api.Deps) *API {
	a := &API{d: d}
	a.svc = svc.New(&svc.Service{
		Store: d.Store, Git: d.Git, Jobs: d.Jobs,
		RecordPush: func(ctx context.Context, repo *model.Repo, actorID int64, updates []svc.RefUpdate) error {
			list := make([]api.RefUpdate, len(updates))
			for i, u := range updates {
				list[i] = api.RefUpdate{Ref: u.Ref, Old: u.Old, New: u.New}
			}
			return d.RecordPush(ctx, repo, actorID, list, false)
		},
		Identity: d.Signature,
		Guard:    d.MayParticipate,
		NetworkRepo: func(ctx context.Context, repoID, ownerID int64) (*model.Repo, error) {
			return d.Store.R().NetworkRepoOwnedBy(ctx, repoID, ownerID)
		},
		CheckStates: func(ctx context.Context, repoID int64, sha string) (map[string]string, error) {
			runs, err := d.Store.R().LatestCheckRuns(ctx, repoID, sha)
			if err != nil {
				return nil, err
			}
			out := make(map[string]string, len(runs))
			for _, r := range runs {
				out[r.Name] = checkState(r)
			}
			return out, nil
		},
	})
	d.PushHooks = append(d.PushHooks, func(ctx context.Context, repo *model.Repo, actorID int64, updates []api.RefUpdate) {
		list := make([]svc.RefUpdate, len(updates))
		for i, u := range updates {
			list[i] = svc.RefUpdate{Ref: u.Ref, Old: u.Old, New: u.New}
		}
		a.svc.Pushed(ctx, repo, actorID, list)
	})
	return a
}

// Service is the pull request service (other packages add hooks to it).
func (a *API) Service() *svc.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	write := []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls", OperationID: "pulls/list", Handler: a.list, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/pulls", OperationID: "pulls/create", Handler: a.create, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}", OperationID: "pulls/get", Handler: a.get, Scopes: read},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}", OperationID: "pulls/update", Handler: a.update, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/commits", OperationID: "pulls/list-commits", Handler: a.commits, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/files", OperationID: "pulls/list-files", Handler: a.files, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/merge", OperationID: "pulls/check-if-merged", Handler: a.checkMerged, Scopes: read},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/merge", OperationID: "pulls/merge", Handler: a.merge, Scopes: write},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/merge-async", OperationID: "pulls/merge-async", Handler: a.mergeAsync, Scopes: write,
			Note: "merge_action merge_queue answers 400: hubd has no merge queues; stacked pull requests do not exist."},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/merge-async/{uuid}", OperationID: "pulls/get-merge-async-result", Handler: a.mergeAsyncResult, Scopes: read},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/update-branch", OperationID: "pulls/update-branch", Handler: a.updateBranch, Scopes: write},
	}
}

// checkState is a check run as a merge gate sees it: success, neutral and
// skipped pass; other conclusions fail; unfinished runs are pending.
func checkState(r *model.CheckRun) string {
	if r.Status != model.CheckCompleted || r.Conclusion == nil {
		return "pending"
	}
	switch *r.Conclusion {
	case "success", "neutral", "skipped":
		return "success"
	}
	return "failure"
}
