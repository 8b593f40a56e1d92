// Package gitserve runs git's upload-pack and receive-pack for hubd's git
// transports (smart HTTP in internal/githttp, SSH in internal/gitssh), so
// that every transport applies the same rules to a push: the size limit,
// git's fsck (gitrepo.ReceiveArgs), the push check (workflow files, the
// repository's rules and protection) that runs before any ref moves, and
// the observer that records what moved (push events, workflow triggers).
// A transport resolves the caller and the repository, then hands the
// streams here.
package gitserve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// Access is what a transport's resolver decided for a request.
type Access struct {
	Repo          *gitrepo.Repo
	RepoID        int64
	ActorID       int64
	DefaultBranch string
	Model         *model.Repo // the repository row, for observers
	// Caller is who acts (their token's grant decides workflow files and
	// rule bypasses).
	Caller *authz.Caller
	// OnPush, when set, records the pushes of a storage that is not a
	// repository (a gist) instead of the Observer.
	OnPush func(ctx context.Context, updates []RefUpdate) error
}

// Errors a resolver returns.
var (
	ErrUnauthorized = errors.New("git: authentication required")
	ErrForbidden    = errors.New("git: permission denied")
	ErrNotFound     = errors.New("git: repository not found")
)

// PushObserver is told about pushes after git accepted them.
type PushObserver interface {
	Pushed(ctx context.Context, a *Access, updates []RefUpdate) error
}

// RefUpdate is one ref a push changed.
type RefUpdate struct {
	Name string
	Old  string
	New  string
}

// Service runs git for the transports.
type Service struct {
	Observer PushObserver // may be nil
	// MaxPush is the largest pack a push may send, in bytes (0: no limit).
	MaxPush int64
	// Check, when set, decides each push before any of its refs moves
	// (see PushCheck).
	Check PushCheck
	hooks hooks
}

// Run is one exchange with git.
type Run struct {
	Access  *Access
	Service string // "git-upload-pack" or "git-receive-pack"
	// Stateless runs git with --stateless-rpc (smart HTTP: one request
	// and its answer); otherwise git holds the whole conversation (SSH).
	Stateless bool
	Protocol  string // GIT_PROTOCOL ("" for protocol v0)
	In        io.Reader
	// Out gets git's output as it comes; when it has a Flush method it is
	// flushed after each write.
	Out io.Writer
	// Stderr gets git's messages (nil: discarded).
	Stderr io.Writer
	// Started, when set, is called once git runs, before any output.
	Started func()
}

// Result is what a Run did.
type Result struct {
	// Fetched is whether upload-pack sent a pack (a clone or fetch, not
	// ls-remote nor a negotiation round).
	Fetched bool
	// ExitErr is git's exit status (nil when it succeeded).
	ExitErr error
}

// ProtocolEnv is the environment that passes a client's GIT_PROTOCOL on to
// git (none for a missing or malformed value).
func ProtocolEnv(v string) []string {
	if v != "" && !strings.ContainsAny(v, "\n\x00") {
		return []string{"GIT_PROTOCOL=" + v}
	}
	return nil
}

// Serve runs the exchange. It returns an error, before any output, when
// git could not start; git's own failures are in Result.ExitErr.
func (s *Service) Serve(ctx context.Context, run Run) (Result, error) {
	a := run.Access
	body := run.In
	args := []string{}
	var cmds *commandReader
	var check *pushCheck
	push := run.Service == "git-receive-pack"
	if push {
		args = append(args, gitrepo.ReceiveArgs()...)
		if s.MaxPush > 0 {
			args = append(args, "-c", "receive.maxInputSize="+strconv.FormatInt(s.MaxPush, 10))
		}
		if s.Check != nil {
			var err error
			if check, err = s.newCheck(a); err != nil {
				return Result{}, err
			}
			args = append(args, check.args()...)
		}
		cmds = &commandReader{r: body}
		body = cmds
	} else if run.Service != "git-upload-pack" {
		return Result{}, fmt.Errorf("gitserve: unknown service %q", run.Service)
	}
	args = append(args, strings.TrimPrefix(run.Service, "git-"))
	if run.Stateless {
		args = append(args, "--stateless-rpc")
	}
	args = append(args, ".")
	cmd := a.Repo.Cmd(ctx, ProtocolEnv(run.Protocol), args...)
	var stdin io.WriteCloser
	if run.Stateless {
		cmd.Stdin = body
	} else {
		// A conversation's input ends when the client hangs up, which it
		// may do only after git exited: git's exit must not wait for it.
		var err error
		if stdin, err = cmd.StdinPipe(); err != nil {
			return Result{}, err
		}
	}
	check.attach(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		check.start(ctx, false, s, a)
		return Result{}, err
	}
	if run.Stderr != nil {
		cmd.Stderr = run.Stderr
	}
	if err := cmd.Start(); err != nil {
		check.start(ctx, false, s, a)
		return Result{}, err
	}
	check.start(ctx, true, s, a)
	if stdin != nil {
		go func() {
			io.Copy(stdin, body)
			stdin.Close()
		}()
	}
	if run.Started != nil {
		run.Started()
	}
	fl, _ := run.Out.(interface{ Flush() })
	br := bufio.NewReaderSize(out, 64<<10)
	buf := make([]byte, 64<<10)
	var pack *packWatch
	if !push {
		pack = &packWatch{}
	}
	var report *reportFilter
	if check != nil {
		report = &reportFilter{check: check}
	}
	for {
		n, err := br.Read(buf)
		if n > 0 {
			pack.see(buf[:n])
			chunk := buf[:n]
			if report != nil {
				chunk = report.feed(chunk)
			}
			if _, werr := run.Out.Write(chunk); werr != nil {
				break
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			break
		}
	}
	if report != nil && len(report.buf) > 0 {
		run.Out.Write(report.buf) // a torn last packet, as git wrote it
	}
	res := Result{ExitErr: cmd.Wait()}
	check.wait()
	res.Fetched = pack != nil && pack.found
	if cmds != nil && s.Observer != nil {
		// Record the commands git applied: a ref that now holds the pushed
		// value. (Comparing refs before and after would credit a concurrent
		// winner's update to every push that lost the race.)
		ctx := context.WithoutCancel(ctx)
		now := refMap(ctx, a.Repo)
		var updates []RefUpdate
		for _, c := range cmds.list() {
			if c.New == gitrepo.ZeroOID {
				if _, still := now[c.Name]; !still {
					updates = append(updates, c)
				}
			} else if now[c.Name] == c.New {
				updates = append(updates, c)
			}
		}
		if len(updates) > 0 {
			s.Observer.Pushed(ctx, a, updates)
		}
	}
	return res, nil
}

func refMap(ctx context.Context, repo *gitrepo.Repo) map[string]string {
	refs, err := repo.Refs(ctx, "")
	m := map[string]string{}
	if err != nil {
		return m
	}
	for _, ref := range refs {
		m[ref.Name] = ref.OID
	}
	return m
}

// PktLine frames s as one pkt-line.
func PktLine(s string) []byte {
	return []byte(fmt.Sprintf("%04x%s", len(s)+4, s))
}

func pktLine(s string) []byte { return PktLine(s) }

// commandReader passes a receive-pack request through while reading its
// leading command list: pkt-lines "<old> <new> <ref>" up to the first flush.
type commandReader struct {
	mu       sync.Mutex // the input may be copied while Serve reads commands
	r        io.Reader
	buf      []byte
	done     bool
	commands []RefUpdate
}

func (c *commandReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	if !c.done && n > 0 {
		c.buf = append(c.buf, p[:n]...)
		c.parse()
	}
	c.mu.Unlock()
	return n, err
}

// list is the commands read so far.
func (c *commandReader) list() []RefUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.commands
}

func (c *commandReader) parse() {
	for !c.done && len(c.buf) >= 4 {
		size, err := strconv.ParseUint(string(c.buf[:4]), 16, 16)
		if err != nil {
			c.done = true
			return
		}
		if size == 0 { // flush: the commands are over
			c.done, c.buf = true, nil
			return
		}
		if size < 4 || int(size) > len(c.buf) {
			if size < 4 {
				c.done = true
			}
			return
		}
		line := string(c.buf[4:size])
		c.buf = c.buf[size:]
		line, _, _ = strings.Cut(line, "\x00")
		f := strings.Fields(line)
		if len(f) == 3 && gitrepo.ValidOID(f[0]) && gitrepo.ValidOID(f[1]) {
			c.commands = append(c.commands, RefUpdate{Old: f[0], New: f[1], Name: f[2]})
		} else if len(c.commands) == 0 && !strings.HasPrefix(line, "shallow ") {
			c.done = true // not a command list (push certificate or unknown)
		}
	}
	if len(c.buf) > 1<<20 {
		c.done, c.buf = true, nil
	}
}

// packWatch looks for the start of a pack in upload-pack's output: a
// side-band packet of the data channel beginning with "PACK" (protocol v0
// and v2 alike). Only the first packWatchLimit bytes are searched, which
// hold the negotiation and any progress that precedes the pack.
type packWatch struct {
	found bool
	seen  int
	tail  []byte // the last bytes of the previous chunk, for a split marker
}

const packWatchLimit = 1 << 20

var packMarker = []byte("\x01PACK")

func (p *packWatch) see(b []byte) {
	if p == nil || p.found || p.seen > packWatchLimit {
		return
	}
	p.seen += len(b)
	joined := append(p.tail, b[:min(len(b), len(packMarker))]...)
	if bytes.Contains(joined, packMarker) || bytes.Contains(b, packMarker) {
		p.found = true
		return
	}
	p.tail = append(p.tail[:0], b[max(0, len(b)-len(packMarker)+1):]...)
}
