package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LogOptions select commits the way `git rev-list` does. Include and
// Exclude hold commit ids the caller resolved (never names a user typed).
type LogOptions struct {
	Include    []string  // commits to walk back from
	Exclude    []string  // commits whose history is left out (the base of base..head)
	Path       string    // only commits that change this path (literal, no pathspec magic)
	Authors    []string  // author idents containing any of these, ignoring case ("<a@b.c>")
	Committers []string  // likewise for committers; both given: both must match
	Since      time.Time // committer date at or after (zero: no bound)
	Until      time.Time // committer date at or before (zero: no bound)
	Reverse    bool      // oldest first
	Skip, Max  int       // the page of ids to keep (Max <= 0: every id)
}

// RevList runs one `git rev-list` and returns the ids on the requested page
// and how many commits were selected in all. The ids stream through the
// process's output and only the page is kept, so the total costs no second
// walk and no memory.
func (r *Repo) RevList(ctx context.Context, o LogOptions) ([]string, int, error) {
	args := []string{"rev-list"}
	if len(o.Authors) > 0 || len(o.Committers) > 0 {
		args = append(args, "--fixed-strings", "--regexp-ignore-case")
	}
	for _, a := range o.Authors {
		args = append(args, "--author="+a)
	}
	for _, c := range o.Committers {
		args = append(args, "--committer="+c)
	}
	if !o.Since.IsZero() {
		args = append(args, "--max-age="+strconv.FormatInt(o.Since.Unix(), 10))
	}
	if !o.Until.IsZero() {
		args = append(args, "--min-age="+strconv.FormatInt(o.Until.Unix(), 10))
	}
	if o.Reverse {
		args = append(args, "--reverse")
	}
	if len(o.Include) == 0 {
		return nil, 0, nil
	}
	for _, id := range o.Include {
		if !ValidOID(id) {
			return nil, 0, ErrNotFound
		}
		args = append(args, id)
	}
	for _, id := range o.Exclude {
		if !ValidOID(id) {
			return nil, 0, ErrNotFound
		}
		args = append(args, "^"+id)
	}
	args = append(args, "--")
	if o.Path != "" {
		args = append(args, o.Path)
	}
	// The walk from object ids selects the same commits forever.
	key := derivedKey(r.ID, "rev-list", append(args[1:], strconv.Itoa(o.Skip), strconv.Itoa(o.Max))...)
	if v, ok := r.m.objects.getDerived(key); ok {
		p := v.(revPage)
		return slices.Clone(p.ids), p.total, nil
	}
	cmd := r.Cmd(ctx, []string{"GIT_LITERAL_PATHSPECS=1"}, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	var page []string
	total := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			if total >= o.Skip && (o.Max <= 0 || total < o.Skip+o.Max) {
				page = append(page, line)
			}
			total++
		}
	}
	scanErr := sc.Err()
	if err := cmd.Wait(); err != nil {
		return nil, 0, &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	if scanErr == nil {
		r.m.objects.putDerived(key, revPage{ids: slices.Clone(page), total: total}, int64(48*len(page)+64))
	}
	return page, total, scanErr
}

// revPage is a cached page of RevList.
type revPage struct {
	ids   []string
	total int
}

// Commits reads and parses commits through the repository's cat-file
// process (no process per commit), in the order given.
func (r *Repo) Commits(ctx context.Context, ids []string) ([]*Commit, error) {
	out := make([]*Commit, 0, len(ids))
	for _, id := range ids {
		c, err := r.Commit(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Commit reads one commit.
func (r *Repo) Commit(ctx context.Context, id string) (*Commit, error) {
	info, data, err := r.Read(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	if info.Type != "commit" {
		return nil, ErrNotFound
	}
	return ParseCommit(info.OID, data)
}

// MergeBase is the best common ancestor of two commits; ErrNotFound when
// their histories are unrelated.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	if !ValidOID(a) || !ValidOID(b) {
		return "", ErrNotFound
	}
	key := derivedKey(r.ID, "merge-base", a, b)
	if v, ok := r.m.objects.getDerived(key); ok {
		return v.(string), nil
	}
	out, err := r.Git(ctx, nil, "merge-base", a, b)
	var ge *GitError
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
		return "", ErrNotFound // exit 1, no output: no common ancestor
	}
	if err != nil {
		return "", err
	}
	base := strings.TrimSpace(string(out))
	r.m.objects.putDerived(key, base, int64(len(base)))
	return base, nil
}

// AheadBehind counts the commits head has that base lacks (ahead) and the
// commits base has that head lacks (behind), in one walk.
func (r *Repo) AheadBehind(ctx context.Context, base, head string) (ahead, behind int, err error) {
	if !ValidOID(base) || !ValidOID(head) {
		return 0, 0, ErrNotFound
	}
	out, err := r.Git(ctx, nil, "rev-list", "--left-right", "--count", base+"..."+head, "--")
	if err != nil {
		return 0, 0, err
	}
	if _, err := fmt.Sscanf(string(out), "%d\t%d", &behind, &ahead); err != nil {
		return 0, 0, fmt.Errorf("gitrepo: rev-list --count said %q", out)
	}
	return ahead, behind, nil
}

// FormatPatch writes commits as mailbox patches, as `git format-patch`
// does: the single commit id when base is "", else every commit of
// base..head (merges are left out, as format-patch does). A merge commit on
// its own is shown against its first parent.
func (r *Repo) FormatPatch(ctx context.Context, w io.Writer, base, head string) error {
	if !ValidOID(head) || (base != "" && !ValidOID(base)) {
		return ErrNotFound
	}
	args := []string{"format-patch", "--stdout", "--no-signature", "--no-color"}
	if base == "" {
		c, err := r.Commit(ctx, head)
		if err != nil {
			return err
		}
		if len(c.Parents) > 1 {
			args = []string{"show", "--pretty=email", "--patch-with-stat", "--no-color", "--diff-merges=first-parent", head}
		} else {
			args = append(args, "-1", head)
		}
	} else {
		args = append(args, base+".."+head)
	}
	return r.stream(ctx, w, args...)
}

// stream runs git and copies its stdout to w.
func (r *Repo) stream(ctx context.Context, w io.Writer, args ...string) error {
	cmd := r.Cmd(ctx, nil, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		return &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return nil
}
