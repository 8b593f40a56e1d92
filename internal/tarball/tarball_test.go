package tarball

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A tree travels whole (files, modes, directories, links); a hostile
// stream can neither leave the target nor write through a link.
func TestRoundTripAndHostileEntries(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, ".git", "objects"), 0o755)
	os.WriteFile(filepath.Join(src, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.Symlink("run.sh", filepath.Join(src, "link"))
	var buf bytes.Buffer
	if err := Write(&buf, src); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := Extract(&buf, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, ".git", "HEAD")); string(b) != "ref: refs/heads/main\n" {
		t.Errorf("HEAD %q", b)
	}
	if fi, err := os.Stat(filepath.Join(dst, "run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh %v %v", fi, err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "link")); err != nil || l != "run.sh" {
		t.Errorf("link %q %v", l, err)
	}

	outside := t.TempDir()
	hostile := func(entries ...tar.Header) error {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		for _, h := range entries {
			h.Mode = 0o644
			tw.WriteHeader(&h)
			if h.Typeflag == tar.TypeReg {
				tw.Write(make([]byte, h.Size))
			}
		}
		tw.Close()
		return Extract(&b, filepath.Join(t.TempDir(), "in"))
	}
	if err := hostile(tar.Header{Name: "../escaped", Typeflag: tar.TypeReg, Size: 1}); err == nil {
		t.Error("an entry leaving the tree was extracted")
	}
	if err := hostile(tar.Header{Name: "out", Typeflag: tar.TypeSymlink, Linkname: outside},
		tar.Header{Name: "out/planted", Typeflag: tar.TypeReg, Size: 1}); err == nil {
		t.Error("an entry was written through a link")
	}
	if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
		t.Fatal("a file was planted outside the tree")
	}
}
