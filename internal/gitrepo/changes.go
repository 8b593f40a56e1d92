package gitrepo

import (
	"bytes"
	"context"
	"strings"
)

// PathChange is a path whose blob differs between two trees, without
// rename detection: a rename is a removal and an addition.
type PathChange struct {
	Path    string
	Mode    string // the new mode ("000000" when removed)
	OID     string // the new blob (ZeroOID when removed)
	Removed bool
}

// ChangedPaths lists the files (recursively) that differ between two
// commits or trees, in one `git diff-tree` that reads trees only (no
// blob, no patch).
func (r *Repo) ChangedPaths(ctx context.Context, from, to string) ([]PathChange, error) {
	if !ValidOID(from) || !ValidOID(to) {
		return nil, ErrNotFound
	}
	out, err := r.Git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", "--no-commit-id", from, to)
	if err != nil {
		return nil, err
	}
	var list []PathChange
	// ":<old mode> <new mode> <old oid> <new oid> <status>" NUL <path> NUL
	for len(out) > 0 {
		meta, rest, ok := bytes.Cut(out, []byte{0})
		if !ok {
			break
		}
		p, rest2, _ := bytes.Cut(rest, []byte{0})
		out = rest2
		f := strings.Fields(strings.TrimPrefix(string(meta), ":"))
		if len(f) != 5 {
			continue
		}
		list = append(list, PathChange{Path: string(p), Mode: f[1], OID: f[3], Removed: strings.HasPrefix(f[4], "D")})
	}
	return list, nil
}
