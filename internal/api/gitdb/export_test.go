package gitdb

// SetTreeLimits lowers the tree listing limits for a test; the returned
// function restores them.
func SetTreeLimits(entries, bytes int) (restore func()) {
	e, b := maxTreeEntries, maxTreeBytes
	maxTreeEntries, maxTreeBytes = entries, bytes
	return func() { maxTreeEntries, maxTreeBytes = e, b }
}
