// Package gitrepo is the only place that runs git. Repositories are bare
// repositories stored by immutable id under a root directory, so renames and
// transfers never move files. Reads go through one long-lived
// `git cat-file --batch-command` per active repository (pooled, closed when
// idle); objects are written directly as loose objects; refs are updated with
// `git update-ref` and the expected old value (compare-and-swap).
package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ZeroOID is the all-zero object id git uses for "no object".
const ZeroOID = "0000000000000000000000000000000000000000"

// Errors.
var (
	ErrNotFound      = errors.New("gitrepo: object not found")
	ErrRefConflict   = errors.New("gitrepo: ref changed concurrently")
	ErrInvalidObject = errors.New("gitrepo: invalid object")
)

// Manager owns the repositories under Root.
type Manager struct {
	Root    string
	Git     string        // git binary, "git" by default
	IdleFor time.Duration // how long an idle cat-file process lives

	mu      sync.Mutex
	pools   map[int64]*pool
	stop    chan struct{}
	objects *objCache
	inited  sync.Map // repository ids known to exist on disk
	langs   langCache
}

// New makes a manager and starts its idle sweeper; Close stops it.
func New(root string) (*Manager, error) {
	if err := os.MkdirAll(filepath.Join(root, "repositories"), 0o755); err != nil {
		return nil, err
	}
	m := &Manager{Root: root, Git: "git", IdleFor: time.Minute, pools: map[int64]*pool{}, stop: make(chan struct{}), objects: newObjCache(objCacheBytes)}
	go m.sweep()
	return m, nil
}

// Close stops every cat-file process.
func (m *Manager) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	for id, p := range m.pools {
		p.closeAll()
		delete(m.pools, id)
	}
}

// Path is the bare repository directory of a repository id. Negative ids
// are gists' storage (see GistStorage), kept apart under gists/.
func (m *Manager) Path(id int64) string {
	if id < 0 {
		return filepath.Join(m.Root, "gists", strconv.FormatInt(-id/1000, 10), strconv.FormatInt(-id, 10)+".git")
	}
	return filepath.Join(m.Root, "repositories", strconv.FormatInt(id/1000, 10), strconv.FormatInt(id, 10)+".git")
}

// Repo is one repository.
type Repo struct {
	m    *Manager
	ID   int64
	Path string
}

// Open returns the repository of id (it need not exist yet).
func (m *Manager) Open(id int64) *Repo { return &Repo{m: m, ID: id, Path: m.Path(id)} }

// Init creates the bare repository with HEAD on defaultBranch. It is
// idempotent: an existing repository is left as it is.
func (m *Manager) Init(ctx context.Context, id int64, defaultBranch string) (*Repo, error) {
	r := m.Open(id)
	if _, ok := m.inited.Load(id); ok {
		return r, nil
	}
	if _, err := os.Stat(filepath.Join(r.Path, "HEAD")); err == nil {
		m.inited.Store(id, true)
		return r, nil
	}
	tmp := r.Path + ".init"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(r.Path), 0o755); err != nil {
		return nil, err
	}
	if _, err := m.run(ctx, "", nil, "init", "--bare", "--quiet", "--initial-branch="+defaultBranch, tmp); err != nil {
		return nil, err
	}
	// Settings for serving: no reflog noise, allow any want (tip or not) so
	// that fetch by sha works like GitHub, and hide nothing.
	for _, kv := range append([][2]string{
		{"core.logAllRefUpdates", "false"},
		{"uploadpack.allowAnySHA1InWant", "true"},
		{"uploadpack.allowFilter", "true"},
		{"receive.denyDeleteCurrent", "true"},
		{"gc.auto", "0"},
	}, fsckConfig...) {
		if _, err := m.run(ctx, tmp, nil, "config", kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(tmp, r.Path); err != nil {
		return nil, err
	}
	m.inited.Store(id, true)
	return r, nil
}

// Remove deletes a repository's files.
func (m *Manager) Remove(id int64) error {
	m.mu.Lock()
	if p := m.pools[id]; p != nil {
		p.closeAll()
		delete(m.pools, id)
	}
	m.mu.Unlock()
	m.inited.Delete(id)
	m.objects.forget(id)
	return os.RemoveAll(m.Path(id))
}

// Exists reports whether the repository has been created on disk.
func (r *Repo) Exists() bool {
	_, err := os.Stat(filepath.Join(r.Path, "HEAD"))
	return err == nil
}

// Git runs a git command in the repository and returns its stdout.
func (r *Repo) Git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.m.run(ctx, r.Path, stdin, args...)
}

// Cmd prepares a git command in the repository (for streaming transports).
// Arguments exec would refuse make Start (and Run) fail with an
// *InputError.
func (r *Repo) Cmd(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, r.m.Git, args...)
	cmd.Dir = r.Path
	cmd.Env = append(baseEnv(), env...)
	if err := checkArgs(args); err != nil {
		cmd.Err = err
	} else if err := checkArgs(env); err != nil {
		cmd.Err = err
	}
	return cmd
}

// GitError is a failed git command with its stderr.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, strings.TrimSpace(e.Stderr))
}

func (e *GitError) Unwrap() error { return e.Err }

func (m *Manager) run(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, m.Git, args...)
	cmd.Dir = dir
	cmd.Env = baseEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), &GitError{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.Bytes(), nil
}

// baseEnv isolates git from the user's and system's configuration.
func baseEnv() []string {
	env := []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"HOME=/nonexistent",
		"LC_ALL=C",
	}
	if p := os.Getenv("PATH"); p != "" {
		env = append(env, "PATH="+p)
	}
	return env
}

func (m *Manager) sweep() {
	t := time.NewTicker(m.IdleFor / 2)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case now := <-t.C:
			m.mu.Lock()
			for id, p := range m.pools {
				if p.closeIdle(now.Add(-m.IdleFor)) {
					delete(m.pools, id)
				}
			}
			m.mu.Unlock()
		}
	}
}
