// Package statuses is the commit-status service: external systems (CI,
// deployments) report a state per context on a commit, and the commit's
// combined state is derived from the newest report of each context. It holds
// the rules — who may report, what a report must hold, the per-context
// limit, the combined state — for every transport.
package statuses

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/store"
)

// MaxPerContext is GitHub's limit of statuses per sha and context.
const MaxPerContext = 1000

// Resolver resolves a commit-ish (sha, branch, tag) of a repository to a
// commit id: model.ErrNotFound when there is no such commit.
type Resolver func(ctx context.Context, repo *model.Repo, ref string) (string, error)

// Service is the commit-status service.
type Service struct {
	Store   *store.Store
	Resolve Resolver
}

// New makes the service.
func New(s *store.Store, resolve Resolver) *Service { return &Service{Store: s, Resolve: resolve} }

// Input is a new status as a client reports it.
type Input struct {
	State       string
	TargetURL   *string
	Description *string
	Context     *string // nil or "" means "default"
}

// noCommit is GitHub's 422 for a status on something that is not a commit
// of the repository.
func noCommit(sha string) error { return model.Unprocessable("No commit found for SHA: " + sha) }

// Create records a status of repo's commit sha for actor, who has perm on
// the repository (the transport has checked visibility and archiving).
func (s *Service) Create(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, sha string, in Input) (*model.CommitStatus, error) {
	if perm < authz.Write {
		return nil, model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	}
	st := model.StatusState(in.State)
	if !st.Valid() {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Status", Field: "state", Code: "invalid", Value: in.State}}}
	}
	name := "default"
	if in.Context != nil && *in.Context != "" {
		name = *in.Context
	}
	desc, target := in.Description, in.TargetURL
	if desc != nil && *desc == "" {
		desc = nil
	}
	if target != nil && *target == "" {
		target = nil
	}
	commit, err := s.Resolve(ctx, repo, sha)
	if err != nil {
		var he *model.HTTPError
		if errors.Is(err, model.ErrNotFound) || (errors.As(err, &he) && he.Status == 409) {
			return nil, noCommit(sha) // unknown sha, or nothing pushed yet
		}
		return nil, err
	}
	out := &model.CommitStatus{RepoID: repo.ID, SHA: commit, State: st, Context: name,
		Description: desc, TargetURL: target, CreatorID: actorID}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		n, err := tx.CountCommitStatusesForContext(ctx, repo.ID, commit, name)
		if err != nil {
			return err
		}
		if n >= MaxPerContext {
			return model.Custom("Status", "context", "This SHA and context has reached the maximum number of statuses.")
		}
		if err := tx.CreateCommitStatus(ctx, out); err != nil {
			return err
		}
		payload := map[string]any{"id": out.ID, "sha": commit, "state": string(st), "context": name,
			"description": desc, "target_url": target}
		if err := tx.AppendEvent(ctx, "status", actorID, repo.ID, orgID(repo), payload); err != nil {
			return err
		}
		// Pull requests whose head is this commit may change state.
		return pulls.CommitStateChanged(ctx, tx, repo.ID, commit)
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().CommitStatusByID(ctx, out.ID)
}

func orgID(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

// Page is a page of statuses of a commit and how many there are in all.
type Page struct {
	SHA      string
	Statuses []*model.CommitStatus
	Total    int
}

// List is a page of every status of the commit ref names, newest first. A
// ref that names no commit has no statuses.
func (s *Service) List(ctx context.Context, repo *model.Repo, ref string, limit, offset int) (*Page, error) {
	sha, err := s.Resolve(ctx, repo, ref)
	if err != nil {
		var he *model.HTTPError
		if errors.Is(err, model.ErrNotFound) || (errors.As(err, &he) && he.Status == 409) {
			return &Page{Statuses: []*model.CommitStatus{}}, nil
		}
		return nil, err
	}
	list, total, err := s.Store.R().CommitStatuses(ctx, repo.ID, sha, limit, offset)
	if err != nil {
		return nil, err
	}
	return &Page{SHA: sha, Statuses: list, Total: total}, nil
}

// Combined is a commit's combined status: a page of the newest status of
// each context, and the state over all of them.
type Combined struct {
	Page
	State model.StatusState
}

// CombinedState is GitHub's rule: failure when any context is in error or
// failure, pending when there are none or any is pending, else success.
func CombinedState(counts map[model.StatusState]int) model.StatusState {
	switch {
	case counts[model.StatusError] > 0 || counts[model.StatusFailure] > 0:
		return model.StatusFailure
	case counts[model.StatusPending] > 0:
		return model.StatusPending
	case counts[model.StatusSuccess] > 0:
		return model.StatusSuccess
	}
	return model.StatusPending
}

// Combine is the combined status of the commit ref names; a 404 when it
// names no commit.
func (s *Service) Combine(ctx context.Context, repo *model.Repo, ref string, limit, offset int) (*Combined, error) {
	sha, err := s.Resolve(ctx, repo, ref)
	if err != nil {
		var he *model.HTTPError
		if errors.Is(err, model.ErrNotFound) || (errors.As(err, &he) && he.Status == 409) {
			return nil, &model.HTTPError{Status: 404, Message: "No commit found for SHA: " + ref}
		}
		return nil, err
	}
	q := s.Store.R()
	counts, err := q.LatestCommitStatusStates(ctx, repo.ID, sha)
	if err != nil {
		return nil, err
	}
	list, total, err := q.LatestCommitStatuses(ctx, repo.ID, sha, limit, offset)
	if err != nil {
		return nil, err
	}
	return &Combined{Page: Page{SHA: sha, Statuses: list, Total: total}, State: CombinedState(counts)}, nil
}
