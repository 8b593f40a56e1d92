package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// infoChunk and infoChunkBytes bound the requests InfoMany writes before
// reading answers, so that neither pipe to cat-file ever fills: a missing
// name is echoed back, so the answers are as long as the questions, and a
// pipe holds 64 KiB.
const (
	infoChunk      = 256
	infoChunkBytes = 16 << 10
)

// InfoMany resolves many object names through one cat-file process, the
// requests pipelined. Names that do not exist come back with an empty Type.
func (r *Repo) InfoMany(ctx context.Context, revs []string) ([]ObjectInfo, error) {
	out := make([]ObjectInfo, len(revs))
	// Plain refs are read from their files; objects the cache knows need
	// no question; the rest are asked.
	revs = append([]string(nil), revs...)
	var ask []int
	for i, rev := range revs {
		if fixed, ok := r.refRev(rev); ok {
			revs[i], rev = fixed, fixed
		}
		if immutableRev(rev) {
			if info, ok := r.fastInfo(rev); ok {
				out[i] = info
				continue
			}
		}
		ask = append(ask, i)
	}
	if len(ask) == 0 {
		return out, nil
	}
	b, p, err := r.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer r.release(p, b)
	for start, end := 0, 0; start < len(ask); start = end {
		for size := 0; end < len(ask) && end-start < infoChunk && size < infoChunkBytes; end++ {
			rev := revs[ask[end]]
			if !validName(rev) || strings.ContainsAny(rev, " \t") {
				rev = ZeroOID // answered "missing"
			}
			size += len(rev) + 6
			fmt.Fprintf(b.in, "info %s\n", rev)
		}
		if err := b.in.Flush(); err != nil {
			b.broken = true
			return nil, err
		}
		for _, i := range ask[start:end] {
			info, err := b.header()
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				b.broken = true // the answers of the rest of the chunk are unread
				return nil, err
			}
			out[i] = info
			if immutableRev(revs[i]) {
				r.m.objects.put(objKey{r.ID, revs[i]}, info, nil)
			}
		}
	}
	return out, nil
}

// CatStream hands an object's content to fn as a stream read straight from
// the cat-file process, so that a large blob is never held in memory. fn
// may stop reading early; the rest is skipped (or the process dropped when
// much is left).
func (r *Repo) CatStream(ctx context.Context, rev string, fn func(ObjectInfo, io.Reader) error) error {
	if !validName(rev) || strings.ContainsAny(rev, " \t") {
		return ErrNotFound
	}
	b, p, err := r.acquire(ctx)
	if err != nil {
		return err
	}
	defer r.release(p, b)
	fmt.Fprintf(b.in, "contents %s\n", rev)
	if err := b.in.Flush(); err != nil {
		b.broken = true
		return err
	}
	info, err := b.header()
	if err != nil {
		return err
	}
	lr := &io.LimitedReader{R: b.out, N: info.Size}
	ferr := fn(info, lr)
	if lr.N > 1<<20 {
		// Reading what is left would cost more than a new process.
		b.broken = true
		b.cmd.Process.Kill()
		return ferr
	}
	if _, err := io.Copy(io.Discard, lr); err != nil || lr.N > 0 {
		b.broken = true
		return errors.Join(ferr, err, io.ErrUnexpectedEOF)
	}
	if _, err := b.out.ReadByte(); err != nil { // the newline after the content
		b.broken = true
	}
	return ferr
}

// LsTreeEntry is one entry LsTree reports.
type LsTreeEntry struct {
	Mode string // 100644, 100755, 040000, 120000, 160000
	Type string // blob, tree, commit
	OID  string
	Size int64 // blobs only (-1 otherwise)
	Path string
}

// LsTree streams the entries of a tree to fn, with blob sizes; recursive
// lists every entry below it too (each subtree before its contents). fn
// returns false to stop early. One git process serves the whole listing.
func (r *Repo) LsTree(ctx context.Context, tree string, recursive bool, fn func(LsTreeEntry) bool) error {
	if !ValidOID(tree) {
		return ErrNotFound
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := []string{"ls-tree", "-z", "-l", "--full-tree"}
	if recursive {
		args = append(args, "-r", "-t")
	}
	args = append(args, tree)
	cmd := r.Cmd(ctx, nil, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	br := bufio.NewReaderSize(stdout, 64<<10)
	var perr error
	stopped := false
	for {
		rec, err := br.ReadBytes(0)
		if err == io.EOF {
			break
		}
		if err != nil {
			perr = err
			break
		}
		e, err := parseLsTree(rec[:len(rec)-1])
		if err != nil {
			perr = err
			break
		}
		if !fn(e) {
			stopped = true
			break
		}
	}
	if stopped || perr != nil {
		cancel()
		cmd.Wait()
		return perr
	}
	if err := cmd.Wait(); err != nil {
		return &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return nil
}

// parseLsTree reads "<mode> <type> <oid> <size>\t<path>".
func parseLsTree(rec []byte) (LsTreeEntry, error) {
	meta, path, ok := bytes.Cut(rec, []byte{'\t'})
	f := strings.Fields(string(meta))
	if !ok || len(f) != 4 {
		return LsTreeEntry{}, fmt.Errorf("%w: ls-tree said %q", ErrInvalidObject, rec)
	}
	e := LsTreeEntry{Mode: f[0], Type: f[1], OID: f[2], Size: -1, Path: string(path)}
	if e.Mode == "40000" {
		e.Mode = "040000"
	}
	if f[3] != "-" {
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return LsTreeEntry{}, fmt.Errorf("%w: ls-tree size %q", ErrInvalidObject, f[3])
		}
		e.Size = n
	}
	return e, nil
}
