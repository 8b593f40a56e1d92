//go:build unix

package jobs

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id exists here.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}
