//go:build !linux

package gitssh

// quickAck does nothing where TCP_QUICKACK is not to be had.
func quickAck(uintptr) {}
