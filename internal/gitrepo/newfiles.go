package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// NewFile is a file a commit adds or changes: its path, its blob and
// size (bytes), and the first commit (in git's walk order) that does it.
type NewFile struct {
	Commit string
	Path   string
	Blob   string
	Size   int64
}

// NewFiles calls fn with every file that the commits reachable from tips
// and from no ref add or change (merges against their first parent;
// deletions and submodules are not files), once per path and blob, with
// its size. env lets git see a push's quarantined objects. It streams:
// one walk of the new commits' tree changes, then one batch of sizes for
// the distinct blobs, so a push of many files costs one pass over them.
func (r *Repo) NewFiles(ctx context.Context, env []string, tips []string, fn func(NewFile) error) error {
	if len(tips) == 0 {
		return nil
	}
	for _, t := range tips {
		if !ValidOID(t) || t == ZeroOID {
			return fmt.Errorf("gitrepo: invalid tip %q", t)
		}
	}
	args := append([]string{"log", "--format=%x01%H", "--raw", "-z", "--no-renames", "--no-abbrev",
		"--diff-merges=first-parent"}, tips...)
	args = append(args, "--not", "--all")
	cmd := r.Cmd(ctx, env, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	files, perr := parseRawLog(bufio.NewReaderSize(out, 64<<10))
	if perr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	if perr != nil {
		return perr
	}
	if werr != nil {
		return &GitError{Args: args, Stderr: stderr.String(), Err: werr}
	}
	if len(files) == 0 {
		return nil
	}
	sizes, err := r.blobSizes(ctx, env, files)
	if err != nil {
		return err
	}
	for _, f := range files {
		f.Size = sizes[f.Blob]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// parseRawLog reads `git log --format=%x01%H --raw -z` output: a commit
// header "\x01<sha>" and then ":<modes> <shas> <status>" and path tokens.
func parseRawLog(rd *bufio.Reader) ([]NewFile, error) {
	type key struct{ path, blob string }
	seen := map[key]bool{}
	var out []NewFile
	commit := ""
	for {
		tok, err := rd.ReadString(0)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		tok = strings.TrimLeft(strings.TrimSuffix(tok, "\x00"), "\n")
		switch {
		case strings.HasPrefix(tok, "\x01"):
			commit = tok[1:]
		case strings.HasPrefix(tok, ":"):
			path, err := rd.ReadString(0)
			if err != nil {
				return nil, fmt.Errorf("gitrepo: truncated raw diff: %w", err)
			}
			path = strings.TrimSuffix(path, "\x00")
			// :oldmode newmode oldsha newsha status
			f := strings.Fields(tok[1:])
			if len(f) < 5 {
				return nil, fmt.Errorf("gitrepo: bad raw diff line %q", tok)
			}
			newMode, blob, status := f[1], f[3], f[4]
			if status == "D" || newMode == "160000" || newMode == "000000" {
				continue
			}
			k := key{path, blob}
			if !seen[k] {
				seen[k] = true
				out = append(out, NewFile{Commit: commit, Path: path, Blob: blob})
			}
		}
	}
}

// blobSizes reads the sizes of the files' distinct blobs with one
// cat-file --batch-check, fed while it answers.
func (r *Repo) blobSizes(ctx context.Context, env []string, files []NewFile) (map[string]int64, error) {
	var blobs []string
	sizes := map[string]int64{}
	for _, f := range files {
		if _, ok := sizes[f.Blob]; !ok {
			sizes[f.Blob] = 0
			blobs = append(blobs, f.Blob)
		}
	}
	args := []string{"cat-file", "--batch-check=%(objectname) %(objectsize)"}
	cmd := r.Cmd(ctx, env, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		w := bufio.NewWriter(in)
		for _, b := range blobs {
			if _, err := w.WriteString(b + "\n"); err != nil {
				break
			}
		}
		_ = w.Flush()
		_ = in.Close()
	}()
	sc := bufio.NewScanner(out)
	var perr error
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			perr = fmt.Errorf("gitrepo: cat-file: %q", sc.Text())
			break
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			perr = fmt.Errorf("gitrepo: cat-file: %q", sc.Text())
			break
		}
		sizes[f[0]] = n
	}
	if perr == nil {
		perr = sc.Err()
	}
	if perr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	if perr != nil {
		return nil, perr
	}
	if werr != nil {
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			return nil, &GitError{Args: args, Stderr: stderr.String(), Err: werr}
		}
		return nil, werr
	}
	return sizes, nil
}
