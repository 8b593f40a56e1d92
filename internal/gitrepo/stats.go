package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// CommitStat is what repository statistics need of one commit.
type CommitStat struct {
	Name, Email string
	When        time.Time // author date, in the author's zone
	Additions   int       // lines added (binary files count none)
	Deletions   int
}

// CountCommits counts the commits reachable from head (merges included).
func (r *Repo) CountCommits(ctx context.Context, head string) (int, error) {
	if !ValidOID(head) {
		return 0, ErrNotFound
	}
	out, err := r.Git(ctx, nil, "rev-list", "--count", head, "--")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// statsMark starts the header line of each commit in WalkStats's output; no
// author name or address can contain it.
const statsMark = '\x00'

// WalkStats streams the history of head without merge commits, newest first,
// through one `git log` process, and calls fn for each commit with its
// author and, when lines is set, its added and deleted line counts (what
// --numstat reports, renames detected). fn must not keep the *CommitStat:
// it is reused.
func (r *Repo) WalkStats(ctx context.Context, head string, lines bool, fn func(*CommitStat) error) error {
	if !ValidOID(head) {
		return ErrNotFound
	}
	args := []string{"log", "--no-merges", "--no-color", "--date=raw", "--format=tformat:%x00%an%x00%ae%x00%ad"}
	if lines {
		args = append(args, "--numstat", "-M", "--no-ext-diff", "--no-textconv")
	}
	args = append(args, head, "--")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := r.Cmd(ctx, nil, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	perr := parseStats(bufio.NewReaderSize(out, 256<<10), fn)
	if perr != nil {
		cancel() // stop git; its exit error is not the interesting one
		cmd.Wait()
		return perr
	}
	if err := cmd.Wait(); err != nil {
		return &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return nil
}

// parseStats reads WalkStats's output: for each commit a header line
// "\x00name\x00email\x00<unix seconds> <±hhmm>", then (with --numstat) a
// blank line and one "added\tdeleted\tpath" line per file ("-" for binary).
func parseStats(br *bufio.Reader, fn func(*CommitStat) error) error {
	var c CommitStat
	have := false
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A very long path: only its leading counts matter.
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			line = long
		}
		if len(line) > 0 {
			line = bytes.TrimSuffix(line, []byte{'\n'})
			switch {
			case len(line) > 0 && line[0] == statsMark:
				if have {
					if ferr := fn(&c); ferr != nil {
						return ferr
					}
				}
				if perr := parseStatsHeader(line[1:], &c); perr != nil {
					return perr
				}
				have = true
			case len(line) > 0 && have:
				a, d, ok := numstat(line)
				if ok {
					c.Additions += a
					c.Deletions += d
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if have {
		return fn(&c)
	}
	return nil
}

func parseStatsHeader(h []byte, c *CommitStat) error {
	name, rest, ok1 := bytes.Cut(h, []byte{statsMark})
	email, date, ok2 := bytes.Cut(rest, []byte{statsMark})
	if !ok1 || !ok2 {
		return ErrInvalidObject
	}
	secs, zone, _ := bytes.Cut(date, []byte{' '})
	sec, err := strconv.ParseInt(string(secs), 10, 64)
	if err != nil {
		return ErrInvalidObject
	}
	loc := time.UTC
	if len(zone) == 5 && (zone[0] == '+' || zone[0] == '-') {
		h, _ := strconv.Atoi(string(zone[1:3]))
		m, _ := strconv.Atoi(string(zone[3:5]))
		off := h*3600 + m*60
		if zone[0] == '-' {
			off = -off
		}
		if off != 0 {
			loc = time.FixedZone(string(zone), off)
		}
	}
	*c = CommitStat{Name: string(name), Email: string(email), When: time.Unix(sec, 0).In(loc)}
	return nil
}

// numstat parses "added\tdeleted\t..." ("-\t-\t..." for binary files).
func numstat(line []byte) (a, d int, ok bool) {
	as, rest, ok1 := bytes.Cut(line, []byte{'\t'})
	ds, _, ok2 := bytes.Cut(rest, []byte{'\t'})
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	if string(as) == "-" && string(ds) == "-" {
		return 0, 0, true
	}
	a, err1 := strconv.Atoi(string(as))
	d, err2 := strconv.Atoi(string(ds))
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return a, d, true
}
