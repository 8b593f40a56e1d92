// Package conformance holds suites that run over the whole route table, so
// that an operation added later is covered without code of its own: a
// negative fuzz of every operation (no 5xx, GitHub's error JSON, no state
// changed by a refused write) and an authorization matrix (no private data
// or write for a caller who may not have it). The suites live in the test
// files; this file only names the package.
package conformance
