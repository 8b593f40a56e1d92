package runners

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// A runner that connects to hubd proves itself with its credential: a
// random secret made when it registers (with a registration token or in a
// JIT configuration), kept only as a hash. The credential is the runner's
// alone: it is never a user's token and grants nothing in the API.

// credentialPrefix starts every runner credential.
const credentialPrefix = "hubdr_"

func newCredential() string {
	b := make([]byte, 30)
	rand.Read(b)
	return credentialPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// ErrBadCredential refuses a runner whose credential or token is unknown,
// expired or revoked.
var ErrBadCredential = &model.HTTPError{Status: 401, Message: "Bad credentials"}

// RegisterInput is what `hubd runner` registers with.
type RegisterInput struct {
	Token     string   `json:"token"` // a registration token
	Name      string   `json:"name"`
	Labels    []string `json:"labels"`
	Ephemeral bool     `json:"ephemeral"`
}

// Register registers a runner with a registration token of its scope, in
// the scope's default group; a runner of the same name there is replaced
// (as the runner application's --replace does) unless it is one of hubd's
// local runners. It returns the runner and its credential.
func (s *Service) Register(ctx context.Context, in RegisterInput) (*model.Runner, string, error) {
	scope, owner, err := s.Store.R().RunnerToken(ctx, "registration", hashToken(strings.TrimSpace(in.Token)))
	if errors.Is(err, model.ErrNotFound) {
		return nil, "", ErrBadCredential
	}
	if err != nil {
		return nil, "", err
	}
	r, err := newRunner(in.Name, in.Labels)
	if err != nil {
		return nil, "", err
	}
	r.Scope, r.OwnerID, r.Ephemeral = scope, owner, in.Ephemeral
	if scope != model.RunnerRepo {
		r.GroupID = model.DefaultRunnerGroupID
	}
	sc := Scope{Kind: scope}
	switch scope {
	case model.RunnerRepo:
		sc.Repo = &model.Repo{ID: owner}
	case model.RunnerOrg:
		sc.Org = &model.Account{ID: owner}
	}
	cred := newCredential()
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		list, _, err := tx.Runners(ctx, store.RunnerFilter{Scope: scope, OwnerID: owner, Name: r.Name}, 1, 0)
		if err != nil {
			return err
		}
		if len(list) > 0 {
			if list[0].Worker {
				return model.Conflict("Already exists - A runner with the name " + r.Name + " already exists.")
			}
			if err := tx.DeleteRunner(ctx, list[0].ID); err != nil {
				return err
			}
		}
		if err := tx.CreateRunner(ctx, r); err != nil {
			return err
		}
		if err := tx.SetRunnerCredential(ctx, r.ID, hashToken(cred)); err != nil {
			return err
		}
		return sc.event(ctx, tx, "runner.created", map[string]any{"runner_id": r.ID, "name": r.Name})
	})
	if err != nil {
		return nil, "", err
	}
	return r, cred, nil
}

// Authenticate finds the runner of a credential.
func (s *Service) Authenticate(ctx context.Context, cred string) (*model.Runner, error) {
	if !strings.HasPrefix(cred, credentialPrefix) {
		return nil, ErrBadCredential
	}
	r, err := s.Store.R().RunnerByCredential(ctx, hashToken(cred))
	if errors.Is(err, model.ErrNotFound) {
		return nil, ErrBadCredential
	}
	return r, err
}

// Seen marks runners heard of now (online); at zero time, offline.
func (s *Service) Seen(ctx context.Context, ids ...int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.SeenRunners(ctx, ids, tx.Now()) })
}

// Gone marks a runner offline (it said goodbye).
func (s *Service) Gone(ctx context.Context, id int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.SeenRunners(ctx, []int64{id}, time.Time{}) })
}

// JobDone is told that a runner's job ended: an ephemeral runner (JIT or
// --ephemeral) is removed after its one job.
func (s *Service) JobDone(ctx context.Context, r *model.Runner) error {
	if !r.Ephemeral || r.Worker {
		return nil
	}
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.DeleteRunner(ctx, r.ID) })
}
