// Package migrations is the migration export service: an organization
// owner (for the organization's repositories) or a user (for their own)
// starts a migration, a job of the durable queue writes GitHub's migration
// archive (the layout ghe-migrator reads: schema.json, paged JSON files of
// records whose references are URLs, bare repositories under
// repositories/<owner>/<repo>.git) as a .tar.gz in hubd's data directory,
// and the repositories may stay locked against writes until unlocked.
// Import (import.go) reads such an archive back into hubd; docs/migrations.md
// describes both for operators.
package migrations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

const kindExport = "migration-export"

// Service is the migration service.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
	Queue *jobs.Queue
	URLs  wire.URLs
	// Dir is where archives are kept (Dir/<id>.tar.gz).
	Dir string
	// Assets keeps release asset files (beside the git data, where the
	// releases service keeps them): export copies them, import adds them.
	Assets *releases.Service
}

// New makes the service and registers its export job with the queue.
func New(st *store.Store, git *gitrepo.Manager, q *jobs.Queue, urls wire.URLs, dir string) *Service {
	s := &Service{Store: st, Git: git, Queue: q, URLs: urls, Dir: dir}
	if git != nil {
		s.Assets = &releases.Service{Store: st, Dir: filepath.Join(filepath.Dir(git.Root), "release-assets")}
	}
	if q != nil {
		q.Handle(kindExport, s.handleExport)
	}
	return s
}

// Input is the body of POST /orgs/{org}/migrations and POST /user/migrations.
type Input struct {
	Repositories []string
	model.MigrationOptions
}

// ArchivePath is where a migration's archive is written.
func (s *Service) ArchivePath(id int64) string {
	return filepath.Join(s.Dir, strconv.FormatInt(id, 10)+".tar.gz")
}

// Owner checks that the caller may run the migrations of the account named
// login: an active owner of the organization (org) or the user themself.
// Others see nothing (404), as on GitHub.
func (s *Service) Owner(ctx context.Context, c *authz.Caller, login string, org bool) (*model.Account, error) {
	if c == nil || c.User == nil {
		return nil, model.ErrNotFound
	}
	q := s.Store.R()
	if !org {
		return c.User, nil
	}
	acct, err := q.OrgByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	m, err := q.Membership(ctx, acct.ID, c.User.ID)
	if errors.Is(err, model.ErrNotFound) || err == nil && (m.State != store.StateActive || m.Role != model.RoleAdmin) {
		return nil, model.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return acct, nil
}

func invalid(msg string) error { return model.Custom("Migration", "repositories", msg) }

// Start records a migration of owner's repositories (names, or
// owner/name) and queues its export.
func (s *Service) Start(ctx context.Context, userID int64, owner *model.Account, in Input) (*model.Migration, error) {
	if in.Repositories == nil {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Migration", Field: "repositories", Code: "missing_field"}}}
	}
	var names []string
	for _, n := range in.Repositories {
		if o, name, ok := strings.Cut(n, "/"); ok {
			if !strings.EqualFold(o, owner.Login) {
				return nil, invalid(fmt.Sprintf("%s is not owned by %s", n, owner.Login))
			}
			n = name
		}
		names = append(names, n)
	}
	if in.OrgMetadataOnly {
		names = nil // GitHub ignores repositories and the other flags
	} else if len(names) == 0 {
		return nil, invalid("At least one repository is required")
	}
	m := &model.Migration{OwnerID: owner.ID, Owner: owner, UserID: userID, GUID: randid.UUID(), State: model.MigrationPending,
		MigrationOptions: in.MigrationOptions}
	if in.OrgMetadataOnly {
		m.LockRepositories = false
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		found, err := tx.ReposOfAccountByName(ctx, owner.ID, names)
		if err != nil {
			return err
		}
		ids := make([]int64, 0, len(names))
		seen := map[int64]bool{}
		for _, n := range names {
			id, ok := found[strings.ToLower(n)]
			if !ok {
				return invalid(fmt.Sprintf("Repository %s/%s not found", owner.Login, n))
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		if err := tx.CreateMigration(ctx, m, ids); err != nil {
			return err
		}
		return jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindExport, Key: "migration:" + strconv.FormatInt(m.ID, 10),
			Payload: exportJob{ID: m.ID, OwnerID: owner.ID}, MaxAttempts: 1})
	})
	if err != nil {
		return nil, err
	}
	s.Queue.Notify()
	return m, nil
}

// Get finds a migration of owner.
func (s *Service) Get(ctx context.Context, owner *model.Account, id int64) (*model.Migration, error) {
	m, err := s.Store.R().MigrationByID(ctx, owner.ID, id)
	if err != nil {
		return nil, err
	}
	m.Owner = owner
	return m, nil
}

// ErrArchiveGone is GitHub's answer for an archive that was deleted (or
// expired).
var ErrArchiveGone = model.Gone("The archive for this migration has been deleted.")

// Archive opens a migration's archive: not found until it is exported,
// gone once deleted.
func (s *Service) Archive(m *model.Migration) (*os.File, error) {
	if m.ArchiveDeleted {
		return nil, ErrArchiveGone
	}
	if m.State != model.MigrationExported {
		return nil, model.ErrNotFound
	}
	f, err := os.Open(s.ArchivePath(m.ID))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrArchiveGone
	}
	return f, err
}

// DeleteArchive deletes a migration's archive.
func (s *Service) DeleteArchive(ctx context.Context, m *model.Migration) error {
	if m.State != model.MigrationExported && m.State != model.MigrationFailed {
		return model.ErrNotFound
	}
	var ok bool
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		ok, err = tx.DeleteMigrationArchive(ctx, m.ID)
		return err
	})
	if err != nil {
		return err
	}
	if !ok {
		return ErrArchiveGone
	}
	if err := os.Remove(s.ArchivePath(m.ID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Unlock lifts the migration's lock of its repository named name.
func (s *Service) Unlock(ctx context.Context, m *model.Migration, name string) error {
	q := s.Store.R()
	found, err := q.ReposOfAccountByName(ctx, m.OwnerID, []string{name})
	if err != nil {
		return err
	}
	id, ok := found[strings.ToLower(name)]
	if !ok {
		return model.ErrNotFound
	}
	var unlocked bool
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		unlocked, err = tx.UnlockMigrationRepo(ctx, m.ID, id)
		return err
	})
	if err != nil {
		return err
	}
	if !unlocked {
		return model.ErrNotFound
	}
	return nil
}

type exportJob struct {
	ID      int64 `json:"id"`
	OwnerID int64 `json:"owner_id"`
}

// handleExport runs a migration's export: exporting, then exported with
// the archive in place, or failed.
func (s *Service) handleExport(ctx context.Context, payload []byte) error {
	var j exportJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return jobs.Permanent(err)
	}
	m, err := s.Store.R().MigrationByID(ctx, j.OwnerID, j.ID)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if m.State != model.MigrationPending {
		return nil
	}
	if err := s.setState(ctx, m.ID, model.MigrationExporting, 0); err != nil {
		return err
	}
	size, err := s.export(ctx, m)
	if err != nil {
		if serr := s.setState(ctx, m.ID, model.MigrationFailed, 0); serr != nil {
			return serr
		}
		return jobs.Permanent(err)
	}
	return s.setState(ctx, m.ID, model.MigrationExported, size)
}

func (s *Service) setState(ctx context.Context, id int64, state string, size int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.SetMigrationState(ctx, id, state, size) })
}
