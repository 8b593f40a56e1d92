package codespaces

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/sandbox"
	"github.com/hubd/hubd/internal/store"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// logName is the creation and start log of a codespace, kept in its
// clone's .git directory (outside the working tree).
const logName = "codespace.log"

// workspace is what the jobs load of a codespace.
type workspace struct {
	repo *model.Repo
	user *model.Account
	perm authz.Permission
}

func (s *Service) load(ctx context.Context, c *model.Codespace) (*workspace, error) {
	q := s.Store.R()
	u, err := q.AccountByID(ctx, c.OwnerID)
	if err != nil {
		return nil, err
	}
	v, err := q.RepoByID(ctx, c.RepoID, c.OwnerID)
	if err != nil {
		return nil, err
	}
	caller := &authz.Caller{Kind: authz.ClassicPAT, User: u, Scopes: authz.Scopes{"repo": true}}
	return &workspace{repo: v.Repo, user: u, perm: authz.RepoPermission(caller, v.Repo, v.Facts)}, nil
}

// mint makes the codespace's repository token: contents as far as its
// owner may go (write for those who may push, else read).
func (s *Service) mint(ctx context.Context, c *model.Codespace, w *workspace) (string, error) {
	if s.Tokens.Mint == nil {
		return "", fmt.Errorf("no token issuer")
	}
	contents := "read"
	if w.perm >= authz.Write {
		contents = "write"
	}
	perms := map[string]string{"contents": contents, "metadata": "read"}
	if w.perm >= authz.Read {
		perms["pull_requests"] = "write"
		perms["issues"] = "write"
	}
	tok, id, err := s.Tokens.Mint(ctx, w.repo, perms)
	if err != nil {
		return "", err
	}
	if c.TokenID != 0 && s.Tokens.Revoke != nil {
		_ = s.Tokens.Revoke(ctx, c.TokenID)
	}
	c.TokenID = id
	return tok, s.save(ctx, c)
}

func (s *Service) revoke(ctx context.Context, c *model.Codespace) error {
	if c.TokenID == 0 || s.Tokens.Revoke == nil {
		return nil
	}
	if err := s.Tokens.Revoke(ctx, c.TokenID); err != nil && err != model.ErrNotFound {
		return err
	}
	c.TokenID = 0
	return nil
}

// cloneURL is the repository's smart HTTP URL at hubd.
func (s *Service) cloneURL(r *model.Repo) string { return s.URLs.Web + "/" + r.FullName() + ".git" }

// git runs git in dir with no configuration from the machine.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitCmd(ctx, dir, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

func gitCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	// The workspace belongs to the runner user when hubd runs as root:
	// hubd's own git commands in it are trusted (safe.directory).
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=", "SSH_ASKPASS=",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*")
	return cmd
}

// own gives the workspace (what hubd wrote in it: the clone, the
// credential, an export's objects) to the user its commands run as.
func (s *Service) own(dir string) error {
	if s.Credential == nil {
		return nil
	}
	uid, gid := int(s.Credential.Uid), int(s.Credential.Gid)
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// writeCredential stores the token where the clone's credential helper
// reads it (only the workspace's owner may read it).
func (s *Service) writeCredential(dir string, r *model.Repo, token string) error {
	u, err := url.Parse(s.URLs.Web)
	if err != nil {
		return err
	}
	u.User = url.UserPassword("x-access-token", token)
	return os.WriteFile(filepath.Join(dir, ".git", "hubd-credentials"), []byte(u.String()+"\n"), 0o600)
}

// clone makes the workspace: a clone of the repository at the codespace's
// ref (a pull request's head), with its owner's identity and the token.
func (s *Service) clone(ctx context.Context, c *model.Codespace, w *workspace, token string) error {
	dir := s.Dir(c.Name)
	if err := removeAll(dir); err != nil {
		return err
	}
	// The runner user reaches its workspace through Root (0711: it may
	// not list the others).
	if err := os.MkdirAll(s.Root, 0o711); err != nil {
		return err
	}
	if err := os.Chmod(s.Root, 0o711); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	if _, err := git(ctx, dir, "init", "-q", "-b", w.repo.DefaultBranch); err != nil {
		return err
	}
	if err := s.writeCredential(dir, w.repo, token); err != nil {
		return err
	}
	name := w.user.Name
	if name == "" {
		name = w.user.Login
	}
	config := [][2]string{
		{"credential.helper", "store --file=" + filepath.Join(dir, ".git", "hubd-credentials")},
		{"user.name", name}, {"user.email", s.URLs.CommitEmail(w.user)},
		{"remote.origin.url", s.cloneURL(w.repo)}, {"remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"},
	}
	for _, kv := range config {
		if _, err := git(ctx, dir, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	if _, err := git(ctx, dir, "fetch", "-q", "origin"); err != nil {
		return err
	}
	ref := c.Ref
	if c.PullNumber != 0 {
		// The pull request's head, as a branch of its head ref's name.
		if _, err := git(ctx, dir, "fetch", "-q", "origin", "+refs/pull/"+strconv.FormatInt(c.PullNumber, 10)+"/head:refs/heads/"+ref); err != nil {
			return err
		}
		_, err := git(ctx, dir, "checkout", "-q", ref)
		return err
	}
	if _, err := git(ctx, dir, "rev-parse", "-q", "--verify", "refs/remotes/origin/"+ref); err == nil {
		_, err := git(ctx, dir, "checkout", "-q", "-B", ref, "--track", "origin/"+ref)
		return err
	}
	if _, err := git(ctx, dir, "fetch", "-q", "origin", "refs/tags/"+ref+":refs/tags/"+ref); err == nil {
		_, err := git(ctx, dir, "checkout", "-q", "--detach", "refs/tags/"+ref)
		return err
	}
	if _, err := git(ctx, dir, "fetch", "-q", "origin", ref); err != nil {
		return err
	}
	_, err := git(ctx, dir, "checkout", "-q", "--detach", "FETCH_HEAD")
	return err
}

// config reads the workspace's devcontainer.json (the one chosen, else the
// first of those GitHub looks for).
func (s *Service) config(c *model.Codespace) (Config, string, error) {
	dir := s.Dir(c.Name)
	paths := []string{".devcontainer/devcontainer.json", ".devcontainer.json"}
	if c.DevcontainerPath != "" {
		paths = []string{c.DevcontainerPath}
	} else if m, _ := filepath.Glob(filepath.Join(dir, ".devcontainer", "*", "devcontainer.json")); len(m) > 0 {
		sort.Strings(m)
		rel, _ := filepath.Rel(dir, m[0])
		paths = append(paths, filepath.ToSlash(rel))
	}
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		cfg, err := ParseConfig(data)
		return cfg, p, err
	}
	return Config{}, "", nil
}

// environ is the environment of the codespace's commands and IDE:
// containerEnv, the Codespaces secrets, GitHub's CODESPACES variables,
// then remoteEnv.
func (s *Service) environ(ctx context.Context, c *model.Codespace, w *workspace, cfg Config, token string) ([]string, error) {
	env := map[string]string{"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": s.Dir(c.Name), "LANG": "C.UTF-8"}
	for k, v := range cfg.ContainerEnv {
		env[k] = v
	}
	if s.Env != nil {
		sec, err := s.Env.EnvFor(ctx, c.OwnerID, c.RepoID)
		if err != nil {
			return nil, err
		}
		for k, v := range sec {
			env[k] = v
		}
	}
	for k, v := range map[string]string{"CODESPACES": "true", "CODESPACE_NAME": c.Name, "GITHUB_TOKEN": token, "GITHUB_USER": w.user.Login,
		"GITHUB_REPOSITORY": w.repo.FullName(), "GITHUB_SERVER_URL": s.URLs.Web, "GITHUB_API_URL": s.URLs.API,
		"GITHUB_GRAPHQL_URL": s.URLs.Web + "/api/graphql", "GITHUB_CODESPACES_PORT_FORWARDING_DOMAIN": ""} {
		env[k] = v
	}
	for k, v := range cfg.RemoteEnv {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

// run runs a lifecycle command in the workflow job sandbox, in the
// codespace's cgroup g (nil: none) under its machine m's limits, its output
// appended to the codespace's log.
func (s *Service) run(ctx context.Context, c *model.Codespace, what string, raw json.RawMessage, env []string, m Machine, g *sandbox.Group) error {
	cmds, err := Commands(raw)
	if err != nil || len(cmds) == 0 {
		return err
	}
	if s.Credential == nil && os.Geteuid() == 0 {
		return fmt.Errorf("%s: hubd runs as root and has no runner user to run it as (--runner-user)", what)
	}
	dir := s.Dir(c.Name)
	log, err := os.OpenFile(filepath.Join(dir, ".git", logName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	for _, argv := range cmds {
		fmt.Fprintf(log, "Running the %s from devcontainer.json...\n%s\n", what, strings.Join(argv, " "))
		cfg := sandbox.Config{Mode: s.Sandbox, WorkDir: dir, Hide: append([]string{s.Root}, s.Hide...),
			Limits: sandbox.Limits{MemoryBytes: m.Memory, DiskBytes: m.Storage}, Credential: s.Credential}
		if g != nil {
			// Its own group inside the codespace's: the machine's cores
			// and memory bind the codespace's processes together.
			cfg.CgroupRoot = g.Root()
		}
		p, err := sandbox.Start(ctx, cfg, argv, env, nil, log, log, nil)
		if err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		ex, err := p.Wait()
		if err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		if ex.Limit != "" {
			return fmt.Errorf("%s was killed: it exceeded the %s", what, ex.Limit)
		}
		if ex.Code != 0 {
			return fmt.Errorf("%s failed with exit code %d", what, ex.Code)
		}
	}
	return nil
}

// provision makes a queued codespace's workspace.
func (s *Service) provision(ctx context.Context, c *model.Codespace, _ payload) error {
	if c.State != model.CodespaceQueued {
		return nil
	}
	ok := false
	if err := s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		ok, err = tx.SetCodespaceState(ctx, c.ID, model.CodespaceProvisioning, model.CodespaceQueued)
		return err
	}); err != nil || !ok {
		return err
	}
	c.State = model.CodespaceProvisioning
	w, err := s.load(ctx, c)
	if err == nil {
		err = s.bringUp(ctx, c, w, true)
	}
	return s.settle(ctx, c, err)
}

// bringUp gives the workspace a fresh token, makes its cgroup with its
// machine's limits (the machine a PATCH chose applies here, at the next
// start), runs its lifecycle commands and the IDE in it.
func (s *Service) bringUp(ctx context.Context, c *model.Codespace, w *workspace, create bool) error {
	m, ok := s.Machine(c.Machine)
	if !ok {
		return fmt.Errorf("the machine type %s is not offered on this host: choose another one (PATCH machine)", c.Machine)
	}
	token, err := s.mint(ctx, c, w)
	if err != nil {
		return err
	}
	if create {
		if err := s.clone(ctx, c, w, token); err != nil {
			return err
		}
	} else if err := s.writeCredential(s.Dir(c.Name), w.repo, token); err != nil {
		return err
	}
	if err := s.own(s.Dir(c.Name)); err != nil {
		return err
	}
	cfg, path, err := s.config(c)
	if err != nil {
		return err
	}
	if create && c.DevcontainerPath == "" {
		c.DevcontainerPath = path
	}
	env, err := s.environ(ctx, c, w, cfg, token)
	if err != nil {
		return err
	}
	g, err := s.group(c.Name, m)
	if err != nil {
		return err
	}
	var warn []string
	if !c.CreatedOnce {
		for _, step := range []struct {
			what string
			raw  json.RawMessage
		}{{"onCreateCommand", cfg.OnCreateCommand}, {"updateContentCommand", cfg.UpdateContentCommand}, {"postCreateCommand", cfg.PostCreateCommand}} {
			if err := s.run(ctx, c, step.what, step.raw, env, m, g); err != nil {
				warn = append(warn, err.Error())
				break
			}
		}
		c.CreatedOnce = true
	}
	if err := s.run(ctx, c, "postStartCommand", cfg.PostStartCommand, env, m, g); err != nil {
		warn = append(warn, err.Error())
	}
	ports, portWarnings := cfg.Ports()
	warn = append(warn, portWarnings...)
	if len(ports) > 0 && s.IDE == nil {
		warn = append(warn, "forwardPorts: this server runs no editor to forward ports through")
		ports = nil
	}
	c.Notes = Note + " " + limitsNote(m, g)
	if len(ports) > 0 {
		list := make([]string, len(ports))
		for i, p := range ports {
			list[i] = strconv.Itoa(p)
		}
		c.Notes += " Forwarded ports (forwardPorts): " + strings.Join(list, ", ") + ", each at proxy/PORT/ under the editor's address, for the codespace's owner only."
	}
	if len(warn) > 0 {
		c.Notes += " " + strings.Join(warn, "; ") + " (see .git/" + logName + " in the workspace)."
	}
	if s.IDE != nil {
		if err := s.IDE.StartIn(ctx, c.Name, s.Dir(c.Name), env, g, ports); err != nil {
			return fmt.Errorf("the IDE did not start: %v", err)
		}
	}
	s.gitStatus(ctx, c)
	return nil
}

// settle records how a provisioning or start ended.
func (s *Service) settle(ctx context.Context, c *model.Codespace, err error) error {
	now := s.Store.Now()
	if err != nil {
		if s.IDE != nil {
			_ = s.IDE.Stop(c.Name)
		}
		s.dropGroup(c.Name)
		c.State = model.CodespaceFailed
		c.Notes = Note + " " + err.Error()
		_ = s.revoke(ctx, c)
	} else {
		c.State, c.LastUsedAt, c.StoppedAt = model.CodespaceAvailable, now, time.Time{}
	}
	if e := s.Store.Tx(ctx, func(tx store.Q) error {
		// Only a codespace still being brought up settles (a stop or
		// delete meanwhile wins).
		cur, err := tx.CodespaceByName(ctx, c.Name)
		if err != nil {
			return err
		}
		if cur.State != model.CodespaceProvisioning && cur.State != model.CodespaceStarting {
			c.State = cur.State
			return nil
		}
		if err := tx.UpdateCodespace(ctx, c); err != nil {
			return err
		}
		_, err = tx.SetCodespaceState(ctx, c.ID, c.State, cur.State)
		return err
	}); e != nil {
		return e
	}
	if c.State == model.CodespaceAvailable {
		return s.after(ctx, kindIdle, c, time.Duration(c.IdleTimeout)*time.Minute)
	}
	return nil
}

// gitStatus records the workspace's git status.
func (s *Service) gitStatus(ctx context.Context, c *model.Codespace) {
	dir := s.Dir(c.Name)
	out, err := git(ctx, dir, "status", "--porcelain=v2", "--branch")
	if err != nil {
		return
	}
	c.Uncommitted, c.Ahead, c.Behind = false, 0, 0
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "# branch.ab "):
			fmt.Sscanf(strings.TrimPrefix(line, "# branch.ab "), "+%d -%d", &c.Ahead, &c.Behind)
		case strings.HasPrefix(line, "# branch.oid "):
			c.HeadSHA = strings.TrimPrefix(line, "# branch.oid ")
		case line != "" && !strings.HasPrefix(line, "#"):
			c.Uncommitted = true
		}
	}
	c.Unpushed = c.Ahead > 0
}

// start brings a stopped codespace up again.
func (s *Service) start(ctx context.Context, c *model.Codespace, _ payload) error {
	if c.State != model.CodespaceStarting {
		return nil
	}
	w, err := s.load(ctx, c)
	if err == nil {
		if _, statErr := os.Stat(filepath.Join(s.Dir(c.Name), ".git")); statErr != nil {
			err = s.bringUp(ctx, c, w, true) // a failed provisioning left no workspace
		} else {
			err = s.bringUp(ctx, c, w, false)
		}
	}
	return s.settle(ctx, c, err)
}

// stop stops the IDE and revokes the token; the workspace stays.
func (s *Service) stop(ctx context.Context, c *model.Codespace, _ payload) error {
	if c.State != model.CodespaceShuttingDown {
		return nil
	}
	if s.IDE != nil {
		_ = s.IDE.Stop(c.Name)
	}
	s.dropGroup(c.Name)
	if err := s.revoke(ctx, c); err != nil {
		return err
	}
	s.gitStatus(ctx, c)
	c.StoppedAt = s.Store.Now()
	stopped := false
	if err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateCodespace(ctx, c); err != nil {
			return err
		}
		var err error
		stopped, err = tx.SetCodespaceState(ctx, c.ID, model.CodespaceShutdown, model.CodespaceShuttingDown)
		return err
	}); err != nil || !stopped {
		return err
	}
	c.State = model.CodespaceShutdown
	return s.after(ctx, kindRetention, c, time.Duration(c.Retention)*time.Minute)
}

// remove deletes the workspace, revokes the token and drops the row.
func (s *Service) remove(ctx context.Context, c *model.Codespace, _ payload) error {
	if c.State != model.CodespaceDeleted {
		return nil
	}
	if s.IDE != nil {
		_ = s.IDE.Stop(c.Name)
	}
	s.dropGroup(c.Name)
	if err := s.revoke(ctx, c); err != nil {
		return err
	}
	if err := removeAll(s.Dir(c.Name)); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.DeleteCodespace(ctx, c.ID) })
}

// idle stops a running codespace unused for its idle timeout.
func (s *Service) idle(ctx context.Context, c *model.Codespace, _ payload) error {
	if c.State != model.CodespaceAvailable {
		return nil
	}
	due := c.LastUsedAt.Add(time.Duration(c.IdleTimeout) * time.Minute)
	if now := s.Store.Now(); now.Before(due) {
		return s.after(ctx, kindIdle, c, due.Sub(now))
	}
	if err := s.transition(ctx, c, model.CodespaceShuttingDown, kindStop, []string{model.CodespaceAvailable}, 0, "codespace.idle_stopped"); err != nil && err != errState {
		return err
	}
	return nil
}

// retention deletes a codespace stopped for its retention period.
func (s *Service) retention(ctx context.Context, c *model.Codespace, _ payload) error {
	if c.State != model.CodespaceShutdown || c.StoppedAt.IsZero() {
		return nil
	}
	due := c.StoppedAt.Add(time.Duration(c.Retention) * time.Minute)
	if now := s.Store.Now(); now.Before(due) {
		return s.after(ctx, kindRetention, c, due.Sub(now))
	}
	if err := s.transition(ctx, c, model.CodespaceDeleted, kindDelete, []string{model.CodespaceShutdown}, 0, "codespace.retention_deleted"); err != nil && err != errState {
		return err
	}
	return nil
}

// Touch records use of a running codespace (the IDE proxy calls it),
// which pushes its idle timeout back.
func (s *Service) Touch(ctx context.Context, name string) error {
	c, err := s.Store.R().CodespaceByName(ctx, name)
	if err != nil || c.State != model.CodespaceAvailable {
		return err
	}
	c.LastUsedAt = s.Store.Now()
	return s.save(ctx, c)
}
