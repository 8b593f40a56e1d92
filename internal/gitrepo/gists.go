package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"time"
)

// GistStorage is the storage id of gist row id: gists are git repositories
// like any other, kept under negative ids so that they share the manager's
// readers and caches without ever meeting a repository's id.
func GistStorage(gistID int64) int64 { return -gistID }

// Revision is one commit of a gist's history with its line counts.
type Revision struct {
	OID       string
	When      time.Time // committer date
	Additions int
	Deletions int
}

// revMark starts each commit's header line in History's output.
const revMark = '\x00'

// History lists the commits reachable from head, newest first, skipping
// offset and returning at most limit, with the lines each added and deleted
// (one `git log --numstat`; a root commit counts against the empty tree).
func (r *Repo) History(ctx context.Context, head string, limit, offset int) ([]Revision, error) {
	if !ValidOID(head) {
		return nil, ErrNotFound
	}
	out, err := r.Git(ctx, nil, "log", "--no-color", "--format=tformat:%x00%H %ct", "--numstat", "--no-renames",
		"--no-ext-diff", "--no-textconv", "--skip="+strconv.Itoa(offset), "--max-count="+strconv.Itoa(limit), head, "--")
	if err != nil {
		return nil, err
	}
	return parseHistory(bytes.NewReader(out))
}

func parseHistory(rd io.Reader) ([]Revision, error) {
	list := []Revision{}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if line[0] == revMark {
			oid, ts, _ := strings.Cut(line[1:], " ")
			sec, err := strconv.ParseInt(ts, 10, 64)
			if err != nil {
				return nil, err
			}
			list = append(list, Revision{OID: oid, When: time.Unix(sec, 0).UTC()})
			continue
		}
		if len(list) == 0 {
			continue
		}
		// "added<TAB>deleted<TAB>path"; binary files show "-".
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 {
			continue
		}
		add, _ := strconv.Atoi(f[0])
		del, _ := strconv.Atoi(f[1])
		list[len(list)-1].Additions += add
		list[len(list)-1].Deletions += del
	}
	return list, sc.Err()
}
