//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockData takes an exclusive lock on DATA/hubd.lock so that a second
// `hubd serve` cannot run on the same data directory: two servers would
// each keep their own caches and rate limits and race on the git
// repositories. The lock is the kernel's (flock), released when the process
// ends however it ends, so a killed server leaves no stale lock; the file
// only holds the owner's pid for the message. Provisioning commands take no
// lock: they are short transactions the database serializes.
func lockData(dir string) (release func(), err error) {
	path := filepath.Join(dir, "hubd.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			abs, _ := filepath.Abs(dir)
			who := "another hubd serve"
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				who += " (pid " + strconv.Itoa(pid) + ")"
			}
			return nil, fmt.Errorf("data directory %s is in use by %s; stop it first, or give this one another --data", abs, who)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}
