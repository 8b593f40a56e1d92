package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
)

// EmptyTree is the id of the tree without entries: the "parent" a root
// commit is compared with.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// FileChange is one file of a diff between two commits.
type FileChange struct {
	Path    string // the new path (the old one for a removed file)
	OldPath string // the path before a rename or copy, else ""
	// Status is GitHub's word for the change: added, removed, modified,
	// renamed, copied or changed (mode or type only).
	Status           string
	OldOID, NewOID   string // ZeroOID on the missing side
	OldMode, NewMode string
	Additions        int
	Deletions        int
	Binary           bool
	Patch            string // the hunks ("@@ ..." on), when read and not too large
	HasPatch         bool   // Patch was read (a file can have none: binary, mode only)
	PatchTooLarge    bool
}

// DiffOptions bound the work of Diff.
type DiffOptions struct {
	// Skip and Max are the files whose patch is kept: [Skip, Skip+Max).
	// Max <= 0 keeps every patch. Stats come for every file regardless.
	Skip, Max int
	// MaxPatch leaves out a file's patch longer than this many bytes
	// (0: no limit), as GitHub leaves out huge patches.
	MaxPatch int
}

// Diff compares two commits or trees (from is EmptyTree for a root commit)
// with rename detection, in one `git diff-tree` process: the raw and numstat
// records of every file, then the patches, which are read only as far as
// the requested window and then the process is stopped.
func (r *Repo) Diff(ctx context.Context, from, to string, o DiffOptions) ([]FileChange, error) {
	if !ValidOID(from) || !ValidOID(to) {
		return nil, ErrNotFound
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := []string{"diff-tree", "-r", "-M", "-z", "--raw", "--numstat", "-p", "--full-index", "--no-commit-id", from, to}
	cmd := r.Cmd(ctx, nil, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(out, 64<<10)
	files, perr := parseDiff(br, o)
	stopped := false
	if perr == errStop {
		perr, stopped = nil, true
		cancel()
	}
	if perr == nil && !stopped {
		io.Copy(io.Discard, br)
	}
	werr := cmd.Wait()
	if perr != nil {
		return nil, perr
	}
	if werr != nil && !stopped {
		return nil, &GitError{Args: args, Stderr: stderr.String(), Err: werr}
	}
	return files, nil
}

// DiffStats is Diff without patches: every file's change and line counts.
// The answer for two object ids never changes, so it is kept in the
// manager's object cache (a pull request's files, its CODEOWNERS, the paths
// a push touched are asked for again and again).
func (r *Repo) DiffStats(ctx context.Context, from, to string) ([]FileChange, error) {
	key := derivedKey(r.ID, "diff-stats", from, to)
	if v, ok := r.m.objects.getDerived(key); ok {
		return slices.Clone(v.([]FileChange)), nil
	}
	files, err := r.Diff(ctx, from, to, DiffOptions{Skip: 1 << 30, Max: 1})
	if err != nil {
		return nil, err
	}
	cost := int64(64)
	for _, f := range files {
		cost += int64(len(f.Path) + len(f.OldPath) + 200)
	}
	r.m.objects.putDerived(key, slices.Clone(files), cost)
	return files, nil
}

var errStop = errors.New("gitrepo: enough read")

func parseDiff(br *bufio.Reader, o DiffOptions) ([]FileChange, error) {
	token := func() (string, error) {
		s, err := br.ReadString(0)
		if err != nil {
			return "", err
		}
		return s[:len(s)-1], nil
	}
	var files []FileChange
	// Raw records: ":oldmode newmode oldoid newoid status" then one path, or
	// two for renames and copies.
	for {
		b, err := br.Peek(1)
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if b[0] != ':' {
			break
		}
		meta, err := token()
		if err != nil {
			return nil, err
		}
		f := strings.Fields(meta[1:])
		if len(f) != 5 {
			return nil, ErrInvalidObject
		}
		fc := FileChange{OldMode: f[0], NewMode: f[1], OldOID: f[2], NewOID: f[3]}
		p, err := token()
		if err != nil {
			return nil, err
		}
		fc.Path = p
		switch f[4][0] {
		case 'A':
			fc.Status = "added"
		case 'D':
			fc.Status = "removed"
		case 'M':
			fc.Status = "modified"
			if fc.OldOID == fc.NewOID {
				fc.Status = "changed"
			}
		case 'T':
			fc.Status = "changed"
		case 'R', 'C':
			fc.Status = "renamed"
			if f[4][0] == 'C' {
				fc.Status = "copied"
			}
			np, err := token()
			if err != nil {
				return nil, err
			}
			fc.OldPath, fc.Path = p, np
		default:
			fc.Status = "modified"
		}
		files = append(files, fc)
	}
	// Numstat records, in the same order: "add\tdel\tpath", or "add\tdel\t"
	// followed by the two paths of a rename.
	for i := range files {
		rec, err := token()
		if err != nil {
			return nil, err
		}
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			return nil, ErrInvalidObject
		}
		if parts[0] == "-" {
			files[i].Binary = true
		} else {
			files[i].Additions, _ = strconv.Atoi(parts[0])
			files[i].Deletions, _ = strconv.Atoi(parts[1])
		}
		if parts[2] == "" {
			if _, err := token(); err != nil {
				return nil, err
			}
			if _, err := token(); err != nil {
				return nil, err
			}
		}
	}
	if b, err := br.Peek(1); err == nil && b[0] == 0 {
		br.ReadByte() // the separator before the patches
	}
	// Patches: one "diff --git" block per file, in the same order.
	end := len(files)
	if o.Max > 0 {
		end = min(end, o.Skip+o.Max)
	}
	if o.Skip >= end {
		return files, errStop // no patch wanted
	}
	idx := -1
	var patch bytes.Buffer
	inHunks := false
	flush := func() {
		if idx >= o.Skip && idx < end {
			f := &files[idx]
			if f.PatchTooLarge {
				return
			}
			f.HasPatch = inHunks
			f.Patch = strings.TrimSuffix(patch.String(), "\n")
		}
	}
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A very long line: read the rest of it.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) == 0 && err != nil {
			break
		}
		if bytes.HasPrefix(line, []byte("diff --git ")) {
			if idx >= 0 {
				flush()
			}
			idx++
			if idx >= end || idx >= len(files) {
				return files, errStop
			}
			patch.Reset()
			inHunks = false
		} else if idx >= o.Skip && idx < end {
			if !inHunks && bytes.HasPrefix(line, []byte("@@")) {
				inHunks = true
			}
			if inHunks && !files[idx].PatchTooLarge {
				if o.MaxPatch > 0 && patch.Len()+len(line) > o.MaxPatch {
					files[idx].PatchTooLarge = true
					patch.Reset()
				} else {
					patch.Write(line)
				}
			}
		}
		if err != nil {
			break
		}
	}
	if idx >= 0 {
		flush()
	}
	return files, nil
}

// DiffText writes the plain diff between two commits or trees (GitHub's
// .diff media type): `git diff` output with rename detection.
func (r *Repo) DiffText(ctx context.Context, w io.Writer, from, to string) error {
	if !ValidOID(from) || !ValidOID(to) {
		return ErrNotFound
	}
	return r.stream(ctx, w, "diff-tree", "-r", "-p", "-M", "--no-commit-id", "--no-color", from, to)
}
