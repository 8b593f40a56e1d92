package rest

// Route is one operation of the route table. Pattern is the OpenAPI path of
// the operation, word for word (Go's ServeMux speaks the same {name}
// syntax); a trailing {name...} captures refs and paths with slashes.
type Route struct {
	Method      string
	Pattern     string
	OperationID string
	Handler     Handler

	// Scopes are the classic OAuth scopes that grant the operation, sent in
	// X-Accepted-OAuth-Scopes.
	Scopes []string
	// Note declares a limitation: the catalogue shows the operation as
	// Partial with this note.
	Note string
	// Stream routes write their own bodies (archives, git); they get no
	// buffering and no ETag.
	Stream bool
	// Extension marks hubd's own routes that are not in GitHub's description.
	Extension bool
	// NoRateLimit routes do not count against the caller's limit (GET /rate_limit).
	NoRateLimit bool
	// Resource is the rate-limit resource ("core" when empty).
	Resource string
}
