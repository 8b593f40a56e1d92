//go:build !unix

package main

// lockData, lockShared and lockNode take no lock where flock is not
// available.
func lockData(dir string) (release func(), err error)   { return func() {}, nil }
func lockShared(dir string) (release func(), err error) { return func() {}, nil }
func lockNode(dir string) (release func(), err error)   { return func() {}, nil }
