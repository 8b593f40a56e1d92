package gitrepo

import (
	"context"
	"os"
	"path/filepath"
)

// MirrorTo copies repository id into dest as a bare mirror (every ref,
// objects hard-linked where the file system allows): a consistent snapshot
// that a caller may read at leisure, e.g. to put in a migration archive. A
// repository never created on disk becomes an empty bare repository.
func (m *Manager) MirrorTo(ctx context.Context, id int64, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	src := m.Path(id)
	if _, err := os.Stat(filepath.Join(src, "HEAD")); err != nil {
		_, err := m.run(ctx, "", nil, "init", "--bare", "--quiet", dest)
		return err
	}
	_, err := m.run(ctx, "", nil, "clone", "--mirror", "--quiet", "--", src, dest)
	return err
}

// Adopt fills repository id from the bare repository at src (a migration
// archive's git data): every ref of src is fetched into the repository,
// which Init creates with HEAD on defaultBranch when it does not exist.
func (m *Manager) Adopt(ctx context.Context, id int64, src, defaultBranch string) error {
	r, err := m.Init(ctx, id, defaultBranch)
	if err != nil {
		return err
	}
	if _, err := r.Git(ctx, nil, "fetch", "--quiet", "--no-tags", "--", src, "+refs/*:refs/*"); err != nil {
		return err
	}
	m.forgetReaders(id)
	return nil
}
