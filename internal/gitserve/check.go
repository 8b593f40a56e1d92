package gitserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hubd/hubd/internal/gitrepo"
)

// PushCheck decides a push after git received its objects and before any
// ref moves: updates are the push's commands, env the variables that let
// git see the pushed objects (still in quarantine). It returns the message
// that refuses the whole push ("" accepts it); git shows it to the pusher
// line by line after "remote: ".
type PushCheck func(ctx context.Context, a *Access, updates []RefUpdate, env []string) (string, error)

// The check runs as git's pre-receive hook, which receive-pack runs once
// the pack is in quarantine. The hook hands its input back to hubd through
// a pipe git passes down (fd 3: the quarantine's variables, then the
// commands, then a "." line) and answers with what hubd writes on another
// (fd 4: the exit status, the message lines, a "." line).
const preReceive = `#!/bin/sh
# hubd's push check (internal/gitserve): hubd decides, this relays.
test -n "$HUBD_PUSH_CHECK" || exit 0
{
	printf '%s\n' "$GIT_QUARANTINE_PATH" "$GIT_OBJECT_DIRECTORY" "$GIT_ALTERNATE_OBJECT_DIRECTORIES"
	cat
	echo .
} >&3 || exit 1
exec 3>&-
IFS= read -r code <&4 || exit 1
while IFS= read -r line <&4 && [ "$line" != . ]; do
	printf '%s\n' "$line" >&2
done
exit "$code"
`

// hooks writes the hook once per process, in a directory beside the
// repositories (core.hooksPath points receive-pack at it).
type hooks struct {
	once sync.Once
	dir  string
	err  error
}

func (h *hooks) path(repoPath string) (string, error) {
	h.once.Do(func() {
		// Repositories live at <root>/repositories/<shard>/<id>.git.
		dir := filepath.Join(filepath.Dir(filepath.Dir(repoPath)), ".hubd-hooks")
		if h.err = os.MkdirAll(dir, 0o755); h.err != nil {
			return
		}
		tmp := filepath.Join(dir, fmt.Sprintf("pre-receive.%d", os.Getpid()))
		if h.err = os.WriteFile(tmp, []byte(preReceive), 0o755); h.err != nil {
			return
		}
		if h.err = os.Rename(tmp, filepath.Join(dir, "pre-receive")); h.err != nil {
			return
		}
		h.dir = dir
	})
	return h.dir, h.err
}

// pushCheck is one push's check: the pipes to its hook and the goroutine
// that answers it. Its methods do nothing on nil.
type pushCheck struct {
	hookDir          string
	fromHook, toHook *os.File // hubd's ends
	hookOut, hookIn  *os.File // the hook's ends (fd 3 and 4)
	done             chan struct{}
	reason           string // a Declined push's reason (set before done closes)
}

func (s *Service) newCheck(a *Access) (*pushCheck, error) {
	dir, err := s.hooks.path(a.Repo.Path)
	if err != nil {
		return nil, err
	}
	c := &pushCheck{hookDir: dir, done: make(chan struct{})}
	if c.fromHook, c.hookOut, err = os.Pipe(); err != nil {
		return nil, err
	}
	if c.hookIn, c.toHook, err = os.Pipe(); err != nil {
		c.fromHook.Close()
		c.hookOut.Close()
		return nil, err
	}
	return c, nil
}

// args are receive-pack's options that run the hook.
func (c *pushCheck) args() []string {
	if c == nil {
		return nil
	}
	return []string{"-c", "core.hooksPath=" + c.hookDir}
}

// attach hands the hook's ends to the command.
func (c *pushCheck) attach(cmd *exec.Cmd) {
	if c == nil {
		return
	}
	cmd.ExtraFiles = []*os.File{c.hookOut, c.hookIn}
	cmd.Env = append(cmd.Env, "HUBD_PUSH_CHECK=1")
}

// start answers the hook once the command started (ok) or gives up.
func (c *pushCheck) start(ctx context.Context, ok bool, s *Service, a *Access) {
	if c == nil {
		return
	}
	c.hookOut.Close()
	c.hookIn.Close()
	if !ok {
		c.fromHook.Close()
		c.toHook.Close()
		close(c.done)
		return
	}
	go func() {
		defer close(c.done)
		defer c.fromHook.Close()
		defer c.toHook.Close()
		env, updates, complete := readHookInput(c.fromHook)
		if !complete {
			return // the hook did not run (nothing to receive) or died
		}
		code, msg := 0, ""
		refusal, err := s.Check(context.WithoutCancel(ctx), a, updates, env)
		var declined *Declined
		switch {
		case errors.As(err, &declined):
			code, msg, c.reason = 1, declined.Message, declined.Reason
		case err != nil:
			slog.Error("push check", "repo", a.RepoID, "err", err)
			code, msg = 1, "error: the repository rules could not be checked; try again"
		case refusal != "":
			code, msg = 1, refusal
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d\n", code)
		for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
			if msg == "" {
				break
			}
			if line == "." {
				line = ". "
			}
			b.WriteString(line + "\n")
		}
		b.WriteString(".\n")
		c.toHook.WriteString(b.String())
	}()
}

// wait waits for the answer to be over (after the command exited).
func (c *pushCheck) wait() {
	if c != nil {
		<-c.done
	}
}

// readHookInput reads the quarantine's variables and the commands the
// hook relays; complete is false when the input stopped before its end.
func readHookInput(f *os.File) (env []string, updates []RefUpdate, complete bool) {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	names := []string{"GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"}
	for i := 0; sc.Scan(); i++ {
		line := sc.Text()
		if i < len(names) {
			if line != "" {
				env = append(env, names[i]+"="+line)
			}
			continue
		}
		if line == "." {
			return env, updates, true
		}
		f := strings.Fields(line)
		if len(f) == 3 && gitrepo.ValidOID(f[0]) && gitrepo.ValidOID(f[1]) {
			updates = append(updates, RefUpdate{Old: f[0], New: f[1], Name: f[2]})
		}
	}
	return env, updates, false
}
