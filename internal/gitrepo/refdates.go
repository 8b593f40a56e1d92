package gitrepo

import (
	"context"
	"strconv"
)

// DatedRef is a reference with the committer date (Unix seconds) of the
// commit it points to, through an annotated tag; 0 when it points to no
// commit.
type DatedRef struct {
	Ref
	CommitDate int64
}

// RefsWithDates is Refs with each ref's commit date, from the same one
// `git for-each-ref` (ordering tags by their commit's date reads no
// object per tag).
func (r *Repo) RefsWithDates(ctx context.Context, prefix string) ([]DatedRef, error) {
	rows, err := r.forEachRef(ctx, prefix,
		"%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(committerdate:unix)%00%(*objecttype)%00%(*committerdate:unix)")
	if err != nil {
		return nil, err
	}
	refs := make([]DatedRef, 0, len(rows))
	for _, f := range rows {
		d := DatedRef{Ref: Ref{Name: f[0], OID: f[1], Type: f[2], Peeled: f[3]}}
		switch {
		case f[2] == "commit":
			d.CommitDate, _ = strconv.ParseInt(f[4], 10, 64)
		case f[2] == "tag" && f[5] == "commit":
			d.CommitDate, _ = strconv.ParseInt(f[6], 10, 64)
		}
		refs = append(refs, d)
	}
	return refs, nil
}
