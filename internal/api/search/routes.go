// Package search is the REST adapter of the search service: GET
// /search/issues, /search/repositories, /search/users and /search/labels,
// counted against the search rate limit.
package search

import (
	"context"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/codeindex"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/search"
)

// API is the search package.
type API struct {
	d     *api.Deps
	svc   *svc.Service
	index *codeindex.Indexer
}

// New makes the package. It keeps the code search index current: each
// push queues its repository's index job.
func New(d *api.Deps) *API {
	x := codeindex.New(d.Store, d.Git, d.Jobs)
	x.Attribute = d.AccountsByCommitEmail
	d.PushHooks = append(d.PushHooks, func(ctx context.Context, repo *model.Repo, _ int64, _ []api.RefUpdate) {
		x.Pushed(ctx, repo.ID)
	})
	return &API{d: d, svc: svc.New(d.Store), index: x}
}

// Indexer is the code search indexer (benchmarks and tests index through it).
func (a *API) Indexer() *codeindex.Indexer { return a.index }

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
		{Method: "GET", Pattern: "/search/code", OperationID: "search/code", Handler: a.code, Resource: "search",
			Note: "Words match file contents and paths case-insensitively as substrings (a trigram index), not GitHub's tokens; " +
				"best match is the order files were indexed in, every score is 1; total_count stops at 10,000. The index follows pushes through a background job " +
				"(a default branch renamed without a push is indexed at the next push; repositories pushed before hubd indexed code are indexed by a backfill job at start-up). " +
				"Counted against the search limit, not a separate code_search one."},
		{Method: "GET", Pattern: "/search/commits", OperationID: "search/commits", Handler: a.commits, Resource: "search",
			Note: "Words match commit messages case-insensitively as substrings; best match is the newest commit first, every score is 1; total_count stops at 10,000. " +
				"author: and committer: match the accounts commit addresses belonged to when the commit was indexed; " +
				"commit.verification is left out (the index keeps no signatures)."},
		{Method: "GET", Pattern: "/search/labels", OperationID: "search/labels", Handler: a.labels, Resource: "search",
			Note: "Words match names and descriptions case-insensitively as substrings; best match puts exact names first; every score is 1."},
	}
}
