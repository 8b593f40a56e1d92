package server

import (
	"context"
	"log/slog"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/closing"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/store"
)

// wireClosing makes the closing keywords service and runs it after every
// recorded push (git, merges, API commits).
func wireClosing(d *api.Deps) *closing.Service {
	svc := closing.New(d.Store, d.Git, d.Jobs, d.URLs.Web)
	d.PushHooks = append(d.PushHooks, func(ctx context.Context, repo *model.Repo, actorID int64, updates []api.RefUpdate) {
		for _, u := range updates {
			if err := svc.Pushed(ctx, repo, actorID, u.Ref, u.Old, u.New); err != nil {
				slog.Warn("closing keywords of a push", "repo_id", repo.ID, "err", err)
			}
		}
	})
	return svc
}

// noteBodies has pull request bodies noted as issue bodies are: their
// cross-references and the issues they close.
func noteBodies(d *api.Deps, s *pulls.Service) {
	s.NoteBody = func(ctx context.Context, tx store.Q, repo *model.Repo, is *model.Issue, actorID int64) error {
		return closing.NoteBody(ctx, tx, d.URLs.Web, repo, is, actorID)
	}
}
