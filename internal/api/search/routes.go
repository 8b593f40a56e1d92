// Package search is the REST adapter of the search service: GET
// /search/issues, /search/repositories, /search/users and /search/labels,
// counted against the search rate limit.
package search

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/search"
)

// API is the search package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Service is the search service (GraphQL's search calls it too).
func (a *API) Service() *svc.Service { return a.svc }

// words is what every search shares with GitHub's but ranking.
const words = "Words and phrases match case-insensitively as substrings (SQL LIKE), not by GitHub's tokenized relevance; " +
	"best match orders by how many words the title (name, login) holds, then by recency; every score is 1. " +
	"hubd refuses queries of more than 200 terms, qualifiers and parentheses (a limit of its own). "

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/search/issues", OperationID: "search/issues-and-pull-requests", Handler: a.issues, Resource: "search",
			Note: words + "The advanced syntax (AND, OR, parentheses) is always on; search_type semantic and hybrid run the lexical search. " +
				"linked:, project:, team: and is:queued match nothing (hubd records no closing references, projects, team mentions or merge queue); " +
				"text matches cover title and body, not comments."},
		{Method: "GET", Pattern: "/search/repositories", OperationID: "search/repos", Handler: a.repos, Resource: "search",
			Note: words + "in:readme searches nothing (README contents are not indexed); followers: matches only 0 (hubd keeps no followers); " +
				"language: is the top language hubd detected at the last push; has: and props. qualifiers are searched as words."},
		{Method: "GET", Pattern: "/search/users", OperationID: "search/users", Handler: a.users, Resource: "search",
			Note: words + "No account has followers; language: keeps accounts owning a public repository whose detected top language it is."},
		{Method: "GET", Pattern: "/search/labels", OperationID: "search/labels", Handler: a.labels, Resource: "search",
			Note: "Words match names and descriptions case-insensitively as substrings; best match puts exact names first; every score is 1."},
	}
}
