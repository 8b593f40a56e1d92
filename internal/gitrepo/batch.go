package gitrepo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxBatchPerRepo bounds the cat-file processes of one repository; requests
// beyond it wait for a free one.
const maxBatchPerRepo = 4

// batch is one `git cat-file --batch-command` process.
type batch struct {
	cmd      *exec.Cmd
	in       *bufio.Writer
	stdin    io.WriteCloser
	out      *bufio.Reader
	lastUsed time.Time
	broken   bool
}

type pool struct {
	mu     sync.Mutex
	idle   []*batch
	total  int
	freed  chan struct{}
	packed packedRefs // the repository's packed-refs, as last read
	loose  looseRefs  // its loose ref files, as last read
}

func (m *Manager) poolFor(id int64) *pool {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pools[id]
	if p == nil {
		p = &pool{freed: make(chan struct{}, maxBatchPerRepo)}
		m.pools[id] = p
	}
	return p
}

func (p *pool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.idle {
		b.close()
	}
	p.total -= len(p.idle)
	p.idle = nil
}

// closeIdle closes processes unused since before; it reports whether the
// pool is empty (and may be forgotten).
func (p *pool) closeIdle(before time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.idle[:0]
	for _, b := range p.idle {
		if b.lastUsed.Before(before) {
			b.close()
			p.total--
		} else {
			keep = append(keep, b)
		}
	}
	p.idle = keep
	return p.total == 0
}

func (b *batch) close() {
	b.stdin.Close()
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
}

// acquire lends a batch process of the repository, starting one when none is
// idle and the pool has room.
func (r *Repo) acquire(ctx context.Context) (*batch, *pool, error) {
	p := r.m.poolFor(r.ID)
	for {
		p.mu.Lock()
		if n := len(p.idle); n > 0 {
			b := p.idle[n-1]
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			return b, p, nil
		}
		if p.total < maxBatchPerRepo {
			p.total++
			p.mu.Unlock()
			b, err := r.startBatch()
			if err != nil {
				p.mu.Lock()
				p.total--
				p.mu.Unlock()
				return nil, nil, err
			}
			return b, p, nil
		}
		p.mu.Unlock()
		select {
		case <-p.freed:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (r *Repo) release(p *pool, b *batch) {
	p.mu.Lock()
	if b.broken {
		p.total--
		p.mu.Unlock()
		go b.close()
	} else {
		b.lastUsed = time.Now()
		p.idle = append(p.idle, b)
		p.mu.Unlock()
	}
	select {
	case p.freed <- struct{}{}:
	default:
	}
}

func (r *Repo) startBatch() (*batch, error) {
	cmd := exec.Command(r.m.Git, "cat-file", "--batch-command")
	cmd.Dir = r.Path
	cmd.Env = baseEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &batch{cmd: cmd, stdin: stdin, in: bufio.NewWriter(stdin), out: bufio.NewReaderSize(stdout, 64<<10), lastUsed: time.Now()}, nil
}

// ObjectInfo is an object's id, type and size.
type ObjectInfo struct {
	OID  string
	Type string // blob, tree, commit, tag
	Size int64
}

// header reads "<oid> <type> <size>" or "<name> missing".
func (b *batch) header() (ObjectInfo, error) {
	line, err := b.out.ReadString('\n')
	if err != nil {
		b.broken = true
		return ObjectInfo{}, err
	}
	// A missing name is echoed as given, spaces included ("a b:c d missing").
	if l := strings.TrimRight(line, "\n"); strings.HasSuffix(l, " missing") || strings.HasSuffix(l, " ambiguous") {
		return ObjectInfo{}, ErrNotFound
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		b.broken = true
		return ObjectInfo{}, fmt.Errorf("gitrepo: cat-file said %q", line)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		b.broken = true
		return ObjectInfo{}, err
	}
	return ObjectInfo{OID: f[0], Type: f[1], Size: size}, nil
}

func validName(name string) bool {
	return name != "" && len(name) <= maxName && !strings.ContainsAny(name, "\n\r\x00")
}

// maxName bounds a revision expression ("sha:path" included): git's paths
// and ref names stay below PATH_MAX, and a longer name names nothing.
const maxName = 4096

// Info resolves a revision expression (sha, ref, "sha:path") to an object
// without reading it.
func (r *Repo) Info(ctx context.Context, rev string) (ObjectInfo, error) {
	if !validName(rev) {
		return ObjectInfo{}, ErrNotFound
	}
	if fixed, ok := r.refRev(rev); ok {
		rev = fixed
	}
	if info, ok := r.fastInfo(rev); ok {
		return info, nil
	}
	b, p, err := r.acquire(ctx)
	if err != nil {
		return ObjectInfo{}, err
	}
	defer r.release(p, b)
	if _, err := fmt.Fprintf(b.in, "info %s\n", rev); err != nil {
		b.broken = true
		return ObjectInfo{}, err
	}
	if err := b.in.Flush(); err != nil {
		b.broken = true
		return ObjectInfo{}, err
	}
	info, err := b.header()
	if err == nil && immutableRev(rev) {
		r.m.objects.put(objKey{r.ID, rev}, info, nil)
	}
	return info, err
}

// Read returns an object's info and content. Objects larger than max answer
// ErrTooLarge with their info (max <= 0 means no limit).
func (r *Repo) Read(ctx context.Context, rev string, max int64) (ObjectInfo, []byte, error) {
	if !validName(rev) {
		return ObjectInfo{}, nil, ErrNotFound
	}
	if fixed, ok := r.refRev(rev); ok {
		rev = fixed
	}
	cacheable := immutableRev(rev)
	if cacheable {
		if info, data, ok := r.m.objects.get(objKey{r.ID, rev}, true); ok {
			if max > 0 && info.Size > max {
				return info, nil, ErrTooLarge
			}
			return info, data, nil
		}
		if info, ok := r.fastInfo(rev); ok && max > 0 && info.Size > max {
			return info, nil, ErrTooLarge
		}
	}
	info, data, err := r.read(ctx, rev, max)
	if errors.Is(err, ErrTooLarge) && cacheable {
		r.m.objects.put(objKey{r.ID, rev}, info, nil)
	}
	if err == nil && cacheable {
		r.m.objects.put(objKey{r.ID, rev}, info, data)
		if info.OID != rev {
			r.m.objects.put(objKey{r.ID, info.OID}, info, data)
		}
	}
	return info, data, err
}

func (r *Repo) read(ctx context.Context, rev string, max int64) (ObjectInfo, []byte, error) {
	b, p, err := r.acquire(ctx)
	if err != nil {
		return ObjectInfo{}, nil, err
	}
	defer r.release(p, b)
	if max > 0 {
		// Ask for the size first so that a huge object is never read.
		fmt.Fprintf(b.in, "info %s\n", rev)
		if err := b.in.Flush(); err != nil {
			b.broken = true
			return ObjectInfo{}, nil, err
		}
		info, err := b.header()
		if err != nil {
			return info, nil, err
		}
		if info.Size > max {
			return info, nil, ErrTooLarge
		}
		rev = info.OID
	}
	fmt.Fprintf(b.in, "contents %s\n", rev)
	if err := b.in.Flush(); err != nil {
		b.broken = true
		return ObjectInfo{}, nil, err
	}
	info, err := b.header()
	if err != nil {
		return info, nil, err
	}
	data := make([]byte, info.Size+1) // content and the trailing newline
	if _, err := io.ReadFull(b.out, data); err != nil {
		b.broken = true
		return info, nil, err
	}
	return info, data[:info.Size], nil
}

// ErrTooLarge is returned by Read for objects over the caller's limit.
var ErrTooLarge = fmt.Errorf("gitrepo: object too large")
