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
// `hubd serve` cannot run on the same data directory with SQLite: two
// servers would each keep their own caches and rate limits and race on the
// git repositories. The lock is the kernel's (flock), released when the
// process ends however it ends, so a killed server leaves no stale lock;
// the file only holds the owner's pid for the message. Provisioning
// commands take no lock: they are short transactions the database
// serializes.
func lockData(dir string) (release func(), err error) {
	return lockFile(dir, false, func(abs, who string) error {
		return fmt.Errorf("data directory %s is in use by %s; stop it first, or give this one another --data (several nodes may share one data directory on PostgreSQL: docs/deployment.md)", abs, who)
	})
}

// lockShared takes a shared lock on DATA/hubd.lock: the nodes of one
// PostgreSQL database share the data directory with each other, but not
// with a server on SQLite (which holds it exclusively).
func lockShared(dir string) (release func(), err error) {
	return lockFile(dir, true, func(abs, who string) error {
		return fmt.Errorf("data directory %s is in use by %s on SQLite; stop it first, or give this one another --data", abs, who)
	})
}

// lockNode takes the exclusive lock of a node's own directory: two
// processes may not be one node.
func lockNode(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("node directory: %w", err)
	}
	return lockFile(dir, false, func(abs, who string) error {
		return fmt.Errorf("node directory %s is in use by %s; give each node its own --node-name or --node-dir", abs, who)
	})
}

func lockFile(dir string, shared bool, inUse func(abs, who string) error) (release func(), err error) {
	path := filepath.Join(dir, "hubd.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			abs, _ := filepath.Abs(dir)
			who := "another hubd serve"
			// The file names the last exclusive owner; when it is gone the
			// holders are nodes on PostgreSQL (which write no pid).
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 && syscall.Kill(pid, 0) != syscall.ESRCH {
				who += " (pid " + strconv.Itoa(pid) + ")"
			} else if !shared {
				who = "hubd serve nodes on PostgreSQL"
			}
			return nil, inUse(abs, who)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !shared {
		f.Truncate(0)
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
