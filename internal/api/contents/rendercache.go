package contents

// renderKey names the JSON of a file answer (API.rendered). A blob id names
// immutable content, and everything else in the answer — the repository's
// full name (URLs), the ref as named, the path — is in the key, so an entry
// never goes stale. Only public repositories' answers are kept: a private
// one's download_url carries a token that expires.
type renderKey struct {
	repoID              int64
	fullName, ref, path string
	oid                 string
}
