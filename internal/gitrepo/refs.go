package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"strings"
)

// Ref is a reference and the object it points to (peeled for annotated tags).
type Ref struct {
	Name   string // refs/heads/main
	OID    string
	Type   string // type of OID's object
	Peeled string // for annotated tags: the object the tag points to
}

// Refs lists references whose names start with prefix (e.g. "refs/heads/"),
// sorted by name.
func (r *Repo) Refs(ctx context.Context, prefix string) ([]Ref, error) {
	rows, err := r.forEachRef(ctx, prefix, "%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)")
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, f := range rows {
		refs = append(refs, Ref{Name: f[0], OID: f[1], Type: f[2], Peeled: f[3]})
	}
	return refs, nil
}

// forEachRef runs `git for-each-ref` over the refs under prefix with
// format, whose fields are NUL-separated, and returns each ref's fields
// (lines with another number of fields are skipped).
func (r *Repo) forEachRef(ctx context.Context, prefix, format string) ([][]string, error) {
	args := []string{"for-each-ref", "--format=" + format}
	if prefix != "" {
		if err := Operand(prefix); err != nil {
			return nil, err
		}
		args = append(args, prefix)
	}
	out, err := r.Git(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	n := strings.Count(format, "%00") + 1
	var rows [][]string
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if f := strings.Split(string(line), "\x00"); len(f) == n {
			rows = append(rows, f)
		}
	}
	return rows, nil
}

// ResolveRef returns the object a full ref name points to.
func (r *Repo) ResolveRef(ctx context.Context, name string) (string, error) {
	if err := Operand(name); err != nil {
		return "", err
	}
	out, err := r.Git(ctx, nil, "rev-parse", "--verify", "--quiet", name)
	if err != nil {
		return "", ErrNotFound
	}
	return strings.TrimSpace(string(out)), nil
}

// UpdateRef sets name to newOID only if it still points to oldOID
// (ZeroOID: only if it does not exist). A lost race answers ErrRefConflict.
func (r *Repo) UpdateRef(ctx context.Context, name, newOID, oldOID string) error {
	if err := refOperands(name, newOID, oldOID); err != nil {
		return err
	}
	_, err := r.Git(ctx, nil, "update-ref", "--no-deref", name, newOID, oldOID)
	return refErr(err)
}

// DeleteRef deletes name only if it still points to oldOID.
func (r *Repo) DeleteRef(ctx context.Context, name, oldOID string) error {
	if err := refOperands(name, oldOID); err != nil {
		return err
	}
	_, err := r.Git(ctx, nil, "update-ref", "--no-deref", "-d", name, oldOID)
	return refErr(err)
}

// refOperands checks the operands of update-ref: a full ref name (never
// read as an option) and object ids.
func refOperands(name string, oids ...string) error {
	if err := Operand(name); err != nil {
		return err
	}
	if !strings.HasPrefix(name, "refs/") {
		return &InputError{What: name, Err: errNotRef}
	}
	for _, oid := range oids {
		if !ValidOID(oid) {
			return &InputError{What: oid, Err: errNotOID}
		}
	}
	return nil
}

func refErr(err error) error {
	var ge *GitError
	if errors.As(err, &ge) {
		s := ge.Stderr
		if strings.Contains(s, "cannot lock ref") || strings.Contains(s, "but expected") || strings.Contains(s, "reference already exists") || strings.Contains(s, "unable to resolve reference") {
			return ErrRefConflict
		}
	}
	return err
}

// Head is the branch HEAD names (without refs/heads/).
func (r *Repo) Head(ctx context.Context) (string, error) {
	out, err := r.Git(ctx, nil, "symbolic-ref", "--short", "HEAD")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// SetHead points HEAD at a branch.
func (r *Repo) SetHead(ctx context.Context, branch string) error {
	_, err := r.Git(ctx, nil, "symbolic-ref", "HEAD", "refs/heads/"+branch)
	return err
}

// IsAncestor reports whether a is an ancestor of b (fast-forward check).
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	if !ValidOID(a) || !ValidOID(b) {
		return false, ErrNotFound
	}
	_, err := r.Git(ctx, nil, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	var ge *GitError
	if errors.As(err, &ge) && ge.Stderr == "" {
		return false, nil
	}
	return false, err
}
