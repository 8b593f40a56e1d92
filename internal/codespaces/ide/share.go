package ide

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Share makes the code-server installation of binary (…/code-server-V/bin/
// code-server: the directory above bin/ is the installation) readable by
// every user under dir, and returns the shared binary, for an IDE that runs
// as another user (Options.Credential) while the installation lives in a
// home that user cannot enter (scripts/deps.sh, run as root, installs into
// /root/.cache). Files are hard links where dir is on the same file system
// (no space, a second or two for code-server's 15,000 files) and copies
// elsewhere; an up-to-date share is kept.
func Share(binary, dir string) (string, error) {
	src := filepath.Dir(filepath.Dir(binary))
	rel, err := filepath.Rel(src, binary)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, filepath.Base(src))
	shared := filepath.Join(dst, rel)
	stamp := filepath.Join(dst, ".shared")
	want, err := os.Stat(binary)
	if err != nil {
		return "", fmt.Errorf("%w (no %s)", ErrNotInstalled, binary)
	}
	if fi, err := os.Stat(stamp); err == nil && fi.ModTime().Equal(want.ModTime()) {
		return shared, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, ".share-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		to := filepath.Join(tmp, r)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		default:
			if err := os.Link(p, to); err == nil {
				return nil
			} else if !errors.Is(err, syscall.EXDEV) && !errors.Is(err, syscall.EPERM) {
				return err
			}
			return copyFile(p, to)
		}
	})
	if err != nil {
		return "", fmt.Errorf("ide: share %s: %v", src, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ".shared"), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Chtimes(filepath.Join(tmp, ".shared"), want.ModTime(), want.ModTime()); err != nil {
		return "", err
	}
	os.RemoveAll(dst)
	if err := os.Rename(tmp, dst); err != nil {
		return "", err
	}
	return shared, nil
}

func copyFile(from, to string) error {
	fi, err := os.Stat(from)
	if err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm()|0o444)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
