package gitdb

// treeKey names a rendered tree listing (API.trees). A tree id names
// immutable content, so an entry never goes stale; the key carries the
// repository's full name because the listing's URLs do (a rename makes new
// entries).
type treeKey struct {
	repoID    int64
	fullName  string
	oid       string
	recursive bool
	limits    [2]int // the truncation limits the listing was made under
}
