package gitrepo

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
)

// Archive formats.
const (
	ArchiveTarGz = "tar.gz"
	ArchiveZip   = "zip"
)

// Archive writes the tree of commit as a gzipped tar or a zip to w, every
// path under prefix (which ends in "/"), streamed from `git archive` as it
// is produced: an archive is never held in memory. export-ignore and
// export-subst attributes of the tree apply, and the commit id is recorded
// (a pax header in tar, the comment in zip), as git does.
func (r *Repo) Archive(ctx context.Context, w io.Writer, format, prefix, commit string) error {
	if !ValidOID(commit) {
		return ErrNotFound
	}
	gitFormat := format
	var gz *gzip.Writer
	switch format {
	case ArchiveTarGz:
		gitFormat = "tar"
		gz = gzip.NewWriter(w)
		w = gz
	case ArchiveZip:
	default:
		return fmt.Errorf("gitrepo: unknown archive format %q", format)
	}
	cmd := r.Cmd(ctx, nil, "archive", "--format="+gitFormat, "--prefix="+prefix, commit)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		return &GitError{Args: cmd.Args[1:], Stderr: stderr.String(), Err: err}
	}
	if gz != nil {
		return gz.Close()
	}
	return nil
}
