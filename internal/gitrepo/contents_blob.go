package gitrepo

import (
	"bytes"
	"context"
	"io"
	"os/exec"
)

// OpenBlob streams a blob from its own `git cat-file blob` process, for
// blobs too big to hold in memory (the long-lived cat-file process would be
// held for the whole transfer). Close ends the process.
func (r *Repo) OpenBlob(ctx context.Context, oid string) (io.ReadCloser, error) {
	if !ValidOID(oid) {
		return nil, ErrNotFound
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := r.Cmd(ctx, nil, "cat-file", "blob", oid)
	br := &blobReader{cmd: cmd, cancel: cancel}
	cmd.Stderr = &br.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	br.out = out
	return br, nil
}

type blobReader struct {
	cmd    *exec.Cmd
	out    io.ReadCloser
	cancel context.CancelFunc
	stderr bytes.Buffer
	eof    bool
}

func (b *blobReader) Read(p []byte) (int, error) {
	n, err := b.out.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// Close stops the process when the blob was not read to its end and reaps it.
func (b *blobReader) Close() error {
	if !b.eof {
		b.cancel()
	}
	err := b.cmd.Wait()
	b.cancel()
	if b.eof && err != nil {
		return &GitError{Args: b.cmd.Args[1:], Stderr: b.stderr.String(), Err: err}
	}
	return nil
}
