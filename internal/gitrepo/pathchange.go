package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
)

// What a ref update does to one directory of the tree (the workflow
// check asks it of .github/workflows). env lets git see objects not yet in
// the repository (a push's quarantine); nil otherwise.

// SubtreeOIDs are the object ids of dir in each of revs ("" where a rev
// has no such entry). Without env the long-lived cat-file answers (and
// caches) them; with env one cat-file --batch-check does.
func (r *Repo) SubtreeOIDs(ctx context.Context, env []string, dir string, revs ...string) ([]string, error) {
	out := make([]string, len(revs))
	if env == nil {
		for i, rev := range revs {
			info, err := r.Info(ctx, rev+":"+dir)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[i] = info.OID
		}
		return out, nil
	}
	var in bytes.Buffer
	for _, rev := range revs {
		if !validName(rev + ":" + dir) {
			return nil, &InputError{What: rev, Err: errNotOID}
		}
		in.WriteString(rev + ":" + dir + "\n")
	}
	cmd := r.Cmd(ctx, env, "cat-file", "--batch-check=%(objectname)")
	cmd.Stdin = &in
	res, err := cmd.Output()
	if err != nil {
		return nil, &GitError{Args: cmd.Args[1:], Err: err}
	}
	lines := strings.Split(strings.TrimRight(string(res), "\n"), "\n")
	if len(lines) != len(revs) {
		return nil, &GitError{Args: cmd.Args[1:], Err: errors.New("short answer"), Stderr: string(res)}
	}
	for i, l := range lines {
		if ValidOID(l) {
			out[i] = l
		}
	}
	return out, nil
}

// DiffPath names one path under dir that differs between the trees of a
// and b ("" when none does).
func (r *Repo) DiffPath(ctx context.Context, env []string, dir, a, b string) (string, error) {
	if !ValidOID(a) || !ValidOID(b) {
		return "", &InputError{What: a + " " + b, Err: errNotOID}
	}
	return r.firstLine(ctx, env, "diff-tree", "-r", "--name-only", "--no-renames", "-z", a, b, "--", dir)
}

// TouchedPath names one path under dir that a commit reachable from one of
// tips, and from none of not (object ids) nor, when known is true, from
// any branch or tag, adds, changes or deletes against its first parent
// ("" when no such commit touches dir). Merges are compared with their
// first parent and history is not simplified, so a change made and undone
// within the range still counts.
func (r *Repo) TouchedPath(ctx context.Context, env []string, dir string, tips, not []string, known bool) (string, error) {
	args := []string{"log", "--format=", "--name-only", "-z", "--no-renames", "--full-history", "--diff-merges=first-parent"}
	for _, oid := range tips {
		if !ValidOID(oid) {
			return "", &InputError{What: oid, Err: errNotOID}
		}
		args = append(args, oid)
	}
	args = append(args, "--not")
	for _, oid := range not {
		if !ValidOID(oid) {
			return "", &InputError{What: oid, Err: errNotOID}
		}
		args = append(args, oid)
	}
	if known {
		args = append(args, "--branches", "--tags")
	}
	return r.firstLine(ctx, env, append(args, "--", dir)...)
}

// firstLine runs a git command whose output is NUL-separated paths and
// answers the first, stopping git once it is read.
func (r *Repo) firstLine(ctx context.Context, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := r.Cmd(ctx, env, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	br := bufio.NewReader(stdout)
	var first string
	for {
		p, rerr := br.ReadString(0)
		if p = strings.Trim(p, "\x00\n"); p != "" {
			first = p
			break
		}
		if rerr != nil {
			break
		}
	}
	if first != "" {
		cancel() // the rest is not needed
		io.Copy(io.Discard, br)
		cmd.Wait()
		return first, nil
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", &GitError{Args: args, Stderr: stderr.String(), Err: err}
		}
		return "", err
	}
	return "", nil
}
