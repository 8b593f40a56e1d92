// Package codespaces is the service of GitHub Codespaces: a codespace is a
// workspace directory under hubd's data directory holding a clone of a
// repository (made over hubd's own git transport with a token for that one
// repository), configured by the repository's devcontainer.json, whose
// lifecycle commands run in the same sandbox as workflow jobs
// (internal/sandbox). There is no container engine: the commands run on
// the host inside the sandbox, and each codespace says so in its notes.
// Creating, starting, stopping, deleting and exporting run in the durable
// job queue; idle timeouts and retention periods are delayed jobs.
package codespaces

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/sandbox"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Env gives the environment a user's codespace of a repository gets from
// Codespaces secrets (internal/codespaces/secrets).
type Env interface {
	EnvFor(ctx context.Context, userID, repoID int64) (map[string]string, error)
}

// IDE runs the browser IDE of running codespaces (internal/codespaces/ide):
// StartIn places it in the codespace's cgroup (nil: none) and forwards the
// codespace's ports (devcontainer.json's forwardPorts) under its address.
type IDE interface {
	StartIn(ctx context.Context, name, dir string, env []string, group *sandbox.Group, ports []int) error
	Stop(name string) error
}

// Policy is the organization's codespaces access policy
// (internal/codespaces/secrets).
type Policy interface {
	MayCreate(ctx context.Context, orgID, userID int64) (bool, error)
}

// Tokens mint and revoke the repository tokens of codespaces (the
// installation tokens of internal/actions).
type Tokens struct {
	Mint   func(ctx context.Context, repo *model.Repo, perms map[string]string) (string, int64, error)
	Revoke func(ctx context.Context, id int64) error
}

// Job kinds.
const (
	kindProvision = "codespace.provision"
	kindStart     = "codespace.start"
	kindStop      = "codespace.stop"
	kindDelete    = "codespace.delete"
	kindExport    = "codespace.export"
	kindIdle      = "codespace.idle"
	kindRetention = "codespace.retention"
)

// LongestLifecycle bounds a codespace's creation or start (its clone and
// lifecycle commands) and an export: the job fails past it (hubd's bound).
const LongestLifecycle = time.Hour

// Defaults and bounds (GitHub's).
const (
	DefaultIdleTimeout = 30
	MaxIdleTimeout     = 240
	MinIdleTimeout     = 5
	DefaultRetention   = 43200
	MaxRetention       = 43200
)

// Note is what every codespace's notes and the route table say of the
// environment.
const Note = "No container engine: the workspace is a directory on hubd's host; devcontainer.json's lifecycle commands, containerEnv and remoteEnv run in the workflow job sandbox (bubblewrap), the image is not pulled; locations are nominal; forwardPorts are served by the browser IDE's origin at proxy/PORT/ to the owner only; no SSH or dev tunnels."

// Service is the codespaces service.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
	Jobs  *jobs.Queue
	URLs  wire.URLs
	// Root is the directory holding the workspaces (<data>/codespaces).
	Root string
	// Hide are directories the lifecycle commands may not see (the git
	// storage).
	Hide    []string
	Sandbox string // "bwrap" ("") or "none"
	// Credential, when set, is the user the workspace belongs to and its
	// lifecycle commands and IDE run as (hubd as root drops to its runner
	// user, as workflow jobs do; it never runs a repository's commands as
	// itself).
	Credential *syscall.Credential
	Tokens     Tokens
	Env        Env
	IDE        IDE
	Policy     Policy
	// Cgroups is a cgroup delegated to the service (sandbox.Delegate; only
	// hubd may write it) where each running codespace gets a group with
	// its machine's cores (a CPU quota), memory and a process bound, which
	// every process of the codespace runs in. "": rlimits only, no cores.
	Cgroups string
	// CPUPeriod is the period of the codespaces' CPU quota (0: the
	// kernel's 100 ms).
	CPUPeriod time.Duration
	// MachineTypes are the machine types offered (nil: the whole host and
	// half of it); those the host cannot honour are left out.
	MachineTypes []Machine

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// New makes the service and registers its jobs.
func New(st *store.Store, git *gitrepo.Manager, q *jobs.Queue, urls wire.URLs, root string) *Service {
	s := &Service{Store: st, Git: git, Jobs: q, URLs: urls, Root: root, locks: map[string]*sync.Mutex{}}
	if q != nil {
		// Cloning, the lifecycle commands and exports may outlast a lease.
		q.HandleLong(kindProvision, s.job(s.provision), LongestLifecycle)
		q.HandleLong(kindStart, s.job(s.start), LongestLifecycle)
		q.Handle(kindStop, s.job(s.stop))
		q.Handle(kindDelete, s.job(s.remove))
		q.HandleLong(kindExport, s.job(s.export), LongestLifecycle)
		q.Handle(kindIdle, s.job(s.idle))
		q.Handle(kindRetention, s.job(s.retention))
	}
	return s
}

// Dir is the workspace directory of a codespace.
func (s *Service) Dir(name string) string { return filepath.Join(s.Root, name) }

// Owner is what the IDE proxy needs of a codespace: its owner, state and
// workspace directory.
func (s *Service) Owner(ctx context.Context, name string) (int64, string, string, error) {
	c, err := s.Store.R().CodespaceByName(ctx, name)
	if err != nil {
		return 0, "", "", err
	}
	return c.OwnerID, c.State, s.Dir(c.Name), nil
}

// Get is one of user's codespaces (not found for anyone else's).
func (s *Service) Get(ctx context.Context, userID int64, name string) (*model.Codespace, error) {
	c, err := s.Store.R().CodespaceByName(ctx, name)
	if err != nil {
		return nil, err
	}
	if c.OwnerID != userID {
		return nil, model.ErrNotFound
	}
	return c, nil
}

// CreateInput is a codespace to create.
type CreateInput struct {
	Owner            *model.Account
	Repo             *model.Repo
	Ref              string // "" : the default branch
	PullNumber       int64
	Machine          string
	DevcontainerPath string
	DisplayName      string
	Location         string
	IdleTimeout      *int
	Retention        *int
}

var locations = map[string]bool{"EastUs": true, "SouthEastAsia": true, "WestEurope": true, "WestUs2": true}

// Location is the location named by a request (geo or location), WestUs2
// when none: hubd runs codespaces on its own host whichever is named.
func Location(loc, geo string) (string, error) {
	if loc != "" {
		if !locations[loc] {
			return "", model.Unprocessable("Invalid location: " + loc + ".")
		}
		return loc, nil
	}
	switch geo {
	case "", "UsWest":
		return "WestUs2", nil
	case "UsEast":
		return "EastUs", nil
	case "EuropeWest":
		return "WestEurope", nil
	case "SoutheastAsia":
		return "SouthEastAsia", nil
	}
	return "", model.Unprocessable("Invalid geo: " + geo + ". Expected one of EuropeWest, SoutheastAsia, UsEast, UsWest.")
}

// Create records a codespace in state Queued and queues its provisioning.
func (s *Service) Create(ctx context.Context, in CreateInput) (*model.Codespace, error) {
	if in.Repo.Owner != nil && in.Repo.Owner.IsOrg() && s.Policy != nil {
		ok, err := s.Policy.MayCreate(ctx, in.Repo.Owner.ID, in.Owner.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, model.Forbidden("You do not have permission to create codespaces for this organization's repositories.")
		}
	}
	g := s.Git.Open(in.Repo.ID)
	ref := in.Ref
	if ref == "" {
		ref = in.Repo.DefaultBranch
	}
	if strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, " \t\n:") {
		return nil, model.Unprocessable("Invalid ref: " + in.Ref + ".")
	}
	if _, err := g.Info(ctx, ref+"^{commit}"); err != nil {
		if in.Ref == "" {
			return nil, model.Unprocessable("The repository is empty: push a commit before creating a codespace.")
		}
		return nil, model.Unprocessable("Invalid ref: " + in.Ref + ".")
	}
	machine := in.Machine
	if machine == "" {
		machine = s.defaultMachine()
	}
	if _, ok := s.Machine(machine); !ok {
		return nil, model.Unprocessable("Invalid machine: " + machine + ".")
	}
	if in.DevcontainerPath != "" {
		list, err := Devcontainers(ctx, g, ref)
		if err != nil {
			return nil, err
		}
		found := false
		for _, d := range list {
			found = found || d.Path == in.DevcontainerPath
		}
		if !found {
			return nil, model.Unprocessable("Invalid devcontainer_path: " + in.DevcontainerPath + " is no devcontainer.json of " + ref + ".")
		}
	}
	idle, retention := DefaultIdleTimeout, DefaultRetention
	if in.IdleTimeout != nil {
		idle = *in.IdleTimeout
		if idle < MinIdleTimeout || idle > MaxIdleTimeout {
			return nil, model.Unprocessable(fmt.Sprintf("idle_timeout_minutes must be between %d and %d.", MinIdleTimeout, MaxIdleTimeout))
		}
	}
	if in.Retention != nil {
		retention = *in.Retention
		if retention < 0 || retention > MaxRetention {
			return nil, model.Unprocessable(fmt.Sprintf("retention_period_minutes must be between 0 and %d.", MaxRetention))
		}
	}
	if len(in.DisplayName) > 48 {
		return nil, model.Unprocessable("display_name is too long (maximum is 48 characters).")
	}
	c := &model.Codespace{EnvironmentID: randid.UUID(), OwnerID: in.Owner.ID, RepoID: in.Repo.ID, Ref: ref, PullNumber: in.PullNumber,
		Machine: machine, DevcontainerPath: in.DevcontainerPath, Location: in.Location, State: model.CodespaceQueued,
		IdleTimeout: int64(idle), Retention: int64(retention), DisplayName: in.DisplayName, Notes: Note, RecentFolders: []string{}}
	if c.DisplayName == "" {
		c.DisplayName = in.Repo.Name + " codespace"
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		for i := 0; ; i++ {
			c.Name = newName(in.Owner.Login, in.Repo.Name)
			err := tx.CreateCodespace(ctx, c)
			if !errors.Is(err, store.ErrDuplicate) || i == 5 {
				if err != nil {
					return err
				}
				break
			}
		}
		if err := jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindProvision, Key: kindProvision + ":" + c.Name, Payload: payload{Name: c.Name}, MaxAttempts: 1}); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "codespace.created", in.Owner.ID, in.Repo.ID, orgOf(in.Repo), map[string]any{"name": c.Name, "ref": ref})
	})
	if err != nil {
		return nil, err
	}
	s.Jobs.Notify()
	return c, nil
}

func orgOf(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.OwnerID
	}
	return 0
}

var nameJunk = regexp.MustCompile(`[^a-z0-9]+`)

// newName is GitHub's shape of codespace names: login, repository and a
// random suffix.
func newName(login, repo string) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 10)
	for i := range b {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(letters))))
		b[i] = letters[n.Int64()]
	}
	base := strings.Trim(nameJunk.ReplaceAllString(strings.ToLower(login+"-"+repo), "-"), "-")
	if len(base) > 60 {
		base = base[:60]
	}
	return base + "-" + string(b)
}

type payload struct {
	Name     string `json:"name"`
	ExportID int64  `json:"export_id,omitempty"`
}

// lock serializes the jobs of one codespace in this process.
func (s *Service) lock(name string) func() {
	s.mu.Lock()
	l := s.locks[name]
	if l == nil {
		l = &sync.Mutex{}
		s.locks[name] = l
	}
	s.mu.Unlock()
	l.Lock()
	return l.Unlock
}

func (s *Service) job(fn func(ctx context.Context, c *model.Codespace, p payload) error) jobs.Handler {
	return func(ctx context.Context, raw []byte) error {
		var p payload
		if err := jsonUnmarshal(raw, &p); err != nil {
			return jobs.Permanent(err)
		}
		defer s.lock(p.Name)()
		c, err := s.Store.R().CodespaceByName(ctx, p.Name)
		if errors.Is(err, model.ErrNotFound) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		return fn(ctx, c, p)
	}
}

// enqueue queues a job of c in a transaction that also moves its state.
func (s *Service) transition(ctx context.Context, c *model.Codespace, to, kind string, from []string, actorID int64, event string) error {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		ok, err := tx.SetCodespaceState(ctx, c.ID, to, from...)
		if err != nil {
			return err
		}
		if !ok {
			return errState
		}
		if err := jobs.Enqueue(ctx, tx, jobs.Job{Kind: kind, Key: kind + ":" + c.Name, Payload: payload{Name: c.Name}, MaxAttempts: 1}); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, event, actorID, c.RepoID, 0, map[string]any{"name": c.Name})
	})
	if err == nil {
		c.State = to
		s.Jobs.Notify()
	}
	return err
}

var errState = errors.New("codespace state changed")

// Start queues the start of a stopped codespace; 409 when it runs.
func (s *Service) Start(ctx context.Context, c *model.Codespace, actorID int64) error {
	err := s.transition(ctx, c, model.CodespaceStarting, kindStart, []string{model.CodespaceShutdown, model.CodespaceFailed}, actorID, "codespace.started")
	if errors.Is(err, errState) {
		return model.Conflict("Codespace is not in a state that can be started (" + c.State + ").")
	}
	return err
}

// Stop queues the stop of a running codespace (a stopped one stays so).
func (s *Service) Stop(ctx context.Context, c *model.Codespace, actorID int64) error {
	if c.State == model.CodespaceShutdown || c.State == model.CodespaceShuttingDown {
		return nil
	}
	err := s.transition(ctx, c, model.CodespaceShuttingDown, kindStop, []string{model.CodespaceAvailable, model.CodespaceStarting,
		model.CodespaceProvisioning, model.CodespaceQueued, model.CodespaceFailed}, actorID, "codespace.stopped")
	if errors.Is(err, errState) {
		return model.Conflict("Codespace is not in a state that can be stopped (" + c.State + ").")
	}
	return err
}

// Delete queues the removal of a codespace: it is Deleted at once, its
// workspace and token go in the job.
func (s *Service) Delete(ctx context.Context, c *model.Codespace, actorID int64) error {
	err := s.transition(ctx, c, model.CodespaceDeleted, kindDelete, nil, actorID, "codespace.deleted")
	if errors.Is(err, errState) {
		return model.ErrNotFound
	}
	return err
}

// UpdateInput is a PATCH of a codespace.
type UpdateInput struct {
	Machine       *string
	DisplayName   *string
	RecentFolders []string
	HasFolders    bool
}

// Update changes a codespace's machine (taking effect at its next start,
// as on GitHub), display name or recent folders.
func (s *Service) Update(ctx context.Context, c *model.Codespace, in UpdateInput) error {
	if in.Machine != nil {
		if _, ok := s.Machine(*in.Machine); !ok {
			return model.Unprocessable("Invalid machine: " + *in.Machine + ".")
		}
		c.Machine = *in.Machine
	}
	if in.DisplayName != nil {
		if len(*in.DisplayName) > 48 {
			return model.Unprocessable("display_name is too long (maximum is 48 characters).")
		}
		c.DisplayName = *in.DisplayName
	}
	if in.HasFolders {
		c.RecentFolders = in.RecentFolders
		if c.RecentFolders == nil {
			c.RecentFolders = []string{}
		}
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateCodespace(ctx, c); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "codespace.updated", c.OwnerID, c.RepoID, 0, map[string]any{"name": c.Name})
	})
}

// setState writes c's state (and what else the caller changed).
func (s *Service) save(ctx context.Context, c *model.Codespace) error {
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.UpdateCodespace(ctx, c) })
}

// after queues a delayed job of c.
func (s *Service) after(ctx context.Context, kind string, c *model.Codespace, d time.Duration) error {
	return s.Jobs.Enqueue(ctx, jobs.Job{Kind: kind, Key: kind + ":" + c.Name, Payload: payload{Name: c.Name}, Delay: d, MaxAttempts: 3})
}

func removeAll(dir string) error {
	// Files the sandbox made read-only still go.
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
