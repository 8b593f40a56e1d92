package gitrepo

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
)

// Archive formats.
const (
	ArchiveTarGz = "tar.gz"
	ArchiveZip   = "zip"
)

// archiveHold is how much of git's output Archive holds back before it
// calls start: a failure within it (a tree git refuses to archive fails at
// once, before any output) is still an error the caller can answer with a
// status, and a small archive is known complete before its first byte goes.
const archiveHold = 1 << 20

// Archive writes the tree of commit as a gzipped tar or a zip to w, every
// path under prefix (which ends in "/"), streamed from `git archive`: an
// archive is never held in memory beyond its first archiveHold bytes.
// start is called once, before the first byte is written to w, when git has
// run without error so far; an error returned without start having been
// called means nothing was written. export-ignore and export-subst
// attributes of the tree apply, and the commit id is recorded (a pax
// header in tar, the comment in zip), as git does.
func (r *Repo) Archive(ctx context.Context, w io.Writer, format, prefix, commit string, start func()) error {
	if !ValidOID(commit) {
		return ErrNotFound
	}
	gitFormat := format
	switch format {
	case ArchiveTarGz:
		gitFormat = "tar"
	case ArchiveZip:
	default:
		return fmt.Errorf("gitrepo: unknown archive format %q", format)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := r.Cmd(ctx, nil, "archive", "--format="+gitFormat, "--prefix="+prefix, commit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	fail := func(err error) error {
		return &GitError{Args: cmd.Args[1:], Stderr: stderr.String(), Err: err}
	}
	// Hold back the start of the output.
	head := make([]byte, archiveHold)
	n, rerr := io.ReadFull(out, head)
	head = head[:n]
	done := rerr == io.EOF || errors.Is(rerr, io.ErrUnexpectedEOF)
	if rerr != nil && !done {
		cancel()
		cmd.Wait()
		return fail(rerr)
	}
	if done {
		if err := cmd.Wait(); err != nil {
			return fail(err)
		}
	}
	start()
	var gz *gzip.Writer
	if format == ArchiveTarGz {
		gz = gzip.NewWriter(w)
		w = gz
	}
	if _, err := w.Write(head); err != nil {
		cancel()
		if !done {
			cmd.Wait()
		}
		return err
	}
	if !done {
		if _, err := io.Copy(w, out); err != nil {
			cancel()
			cmd.Wait()
			return err
		}
		if err := cmd.Wait(); err != nil {
			return fail(err)
		}
	}
	if gz != nil {
		return gz.Close()
	}
	return nil
}
