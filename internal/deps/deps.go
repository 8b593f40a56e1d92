// Package deps holds what every transport (the REST api/<category>
// packages, GraphQL, the web pages) and the services they call share:
// their dependencies and the lookups that all of them need (accounts and
// repositories with the caller's permission). It imports no transport, so
// each of them can use it without importing another.
package deps

import (
	"context"
	"net/http"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/insights"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/runners"
	"github.com/hubd/hubd/internal/signatures"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/tempclone"
	"github.com/hubd/hubd/internal/wire"
)

// Deps are the explicit dependencies of the api packages.
type Deps struct {
	Store   *store.Store
	URLs    wire.URLs
	Limiter *ratelimit.Limiter
	// Insights counts the API requests concerning organizations (the
	// server records each; nil counts nothing).
	Insights *insights.Recorder
	Version  string // hubd's version, reported by /meta
	// Git holds the repositories' git storage (see GitRepo).
	Git *gitrepo.Manager
	// Jobs is the durable background queue: packages register the
	// handlers of their job kinds in New; the program starts the workers.
	Jobs *jobs.Queue
	// Outbox runs the consumers of the domain events log (webhooks,
	// activity events, notifications); they register in New.
	Outbox *outbox.Outbox
	// Runner is the queue's workers for workflow jobs (internal/actions):
	// the program starts them (--actions-workers).
	Runner *jobs.Queue
	// JobServices serves what a workflow job's steps talk to (artifacts,
	// caches: internal/api/actions) outside the API: before
	// authentication, with the job's own runtime token.
	JobServices interface {
		http.Handler
		Serves(path string) bool
	}
	// LocalRunners registers this host's n local runners (hubd-HOST-N)
	// and gives their credentials (internal/api/runnerproto).
	LocalRunners func(ctx context.Context, n int) ([]runners.LocalRunner, error)
	// RecoverJobs fails the jobs left in progress on the runners named
	// (this host's local runners, when hubd starts after it died) and
	// revokes their tokens.
	RecoverJobs func(ctx context.Context, runners []string) error
	// StopRunnerPolls answers the runners' long polls at once (hubd
	// stops).
	StopRunnerPolls func()
	// Signatures holds users' signing keys and verifies the signatures of
	// commits and tags (nil: route table only; objects are not verified).
	Signatures *signatures.Service
	// Tokens caches authentications; writes to accounts and tokens flush it.
	Tokens *TokenCache
	// PushHooks run after RecordPush recorded a push (outside its
	// transaction), e.g. the issues package's "referenced" events.
	PushHooks []func(ctx context.Context, repo *model.Repo, actorID int64, updates []RefUpdate)
	// Guards refuse a user's interaction with a repository (kind: issue,
	// comment, review, reaction, pull, draft_pull) that its owner blocked or
	// limited; installed by internal/api/blocks and internal/api/interactions.
	Guards []func(ctx context.Context, repo *model.Repo, userID int64, kind string) error
	// MayApprove, when set, refuses a user's approving review of a pull
	// request (the Actions policy's can_approve_pull_request_reviews
	// refuses the GitHub Actions bot; internal/api/actions).
	MayApprove func(ctx context.Context, repo *model.Repo, userID int64) error
	// DownloadKeys signs the download URLs of private files, archives, logs
	// and migration archives (read it with Downloads).
	DownloadKeys *DownloadSigner
	// CloneTokens makes and checks temp_clone_token (nil: none are made).
	CloneTokens *tempclone.Issuer
	// Metrics (installed by internal/api/metrics; nil counts nothing)
	// counts clones and page views, and drops a repository's statistics
	// when a push changes its history.
	Metrics interface {
		Pushed(repoID int64)
		Fetched(r *http.Request, repoID int64)
		Viewed(r *http.Request, repoID int64, path, title string)
		Close()
	}
}

// MayParticipate runs the guards: nil, or the refusal of the first that
// refuses (blocks are installed before interaction limits).
func (d *Deps) MayParticipate(ctx context.Context, repo *model.Repo, userID int64, kind string) error {
	for _, g := range d.Guards {
		if err := g(ctx, repo, userID, kind); err != nil {
			return err
		}
	}
	return nil
}
