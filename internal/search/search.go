// Package search is hubd's search service: GitHub's query syntax for
// issues and pull requests, repositories, users and labels, run in SQL
// over what the caller may see. REST (internal/api/search) and GraphQL
// (Query.search) call it alike:
//
//	svc := search.New(store)
//	res, err := svc.Issues(ctx, caller, "repo:o/r is:pr is:open author:@me", "", "", 30, 0)
//	// res.Issues (details loaded), res.Total, res.Repos[is.RepoID], res.Drafts[is.ID]
//	repos, err := svc.Repositories(ctx, caller, "topic:go fork:true", "stars", "desc", 30, 0)
//	users, err := svc.Users(ctx, caller, "mona in:login type:user", "", "", 30, 0)
//	labels, err := svc.Labels(ctx, caller, repoID, "bug", "", "", 30, 0)
//
// A query holds words and "phrases" (matched case-insensitively as
// substrings of the kind's text fields: LIKE on both databases, no
// relevance ranking), qualifiers (key:value, -key:value to exclude) and the
// advanced issue search's AND, OR, NOT and parentheses (for every kind).
// Repeated repo:, user: and org: qualifiers, and is:public with
// is:private, are ORed among neighbours, as GitHub's search does.
//
// Errors are the model's: a *model.ValidationError with GitHub's message
// for a query GitHub refuses (ErrMissingQuery for an empty one; users or
// repositories that do not exist or are hidden; a malformed date; too
// many operators; too long), model.ErrNotFound for a label search in a
// repository the caller may not see. limit and offset page in SQL; the
// caller enforces GitHub's 1,000-result window (MaxResults).
//
// Best match (no sort) puts items whose titles (names, logins) hold more
// of the searched words first, then the newest issues, the most recently
// updated repositories, the oldest accounts. Every item's score is 1.
package search

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// MaxResults is how far GitHub lets a search be paged.
const MaxResults = 1000

// Service runs searches.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// IssueResults is one page of an issue and pull request search.
type IssueResults struct {
	Total  int
	Issues []*model.Issue // in order, with IssueDetails loaded (labels, assignees, milestone, author)
	// Repos are the issues' repositories with the caller's facts.
	Repos map[int64]*store.RepoView
	// Drafts holds the pull requests (by issue id) that are drafts.
	Drafts map[int64]bool
	// Words are the words and phrases searched for (text-match).
	Words []string
}

// RepoResults is one page of a repository search.
type RepoResults struct {
	Total int
	Repos []*store.RepoView // with the caller's facts
	Facts map[int64]store.RepoFacts
	Words []string
}

// UserResults is one page of a user search.
type UserResults struct {
	Total int
	Users []*model.Account
	Words []string
}

// LabelResults is one page of a label search in Repo.
type LabelResults struct {
	Total  int
	Repo   *model.Repo
	Labels []*model.Label
	Words  []string
}

// errIssuesOrPulls is GitHub's answer to a GitHub App acting for a user
// that searches issues and pull requests together.
var errIssuesOrPulls = model.Unprocessable("Query must include 'is:issue' or 'is:pull-request'")

// Issues searches issues and pull requests in the repositories c may see.
// sort is comments, reactions, reactions-CONTENT, interactions, created or
// updated ("" for the query's sort: or best match); order is asc or desc.
func (s *Service) Issues(ctx context.Context, c *authz.Caller, q, sort, order string, limit, offset int) (*IssueResults, error) {
	st := s.Store.R()
	pq, err := compileQuery(ctx, st, c, issueKind, q, sort, order)
	if err != nil {
		return nil, err
	}
	if c.Authenticated() && c.Kind == authz.UserToServer && !pq.comp.typed {
		return nil, errIssuesOrPulls
	}
	list, total, err := st.SearchIssues(ctx, store.IssueSearch{Viewer: deps.ViewerOf(c), Cond: pq.cond, Rank: pq.comp.words,
		Sort: pq.by, Desc: pq.desc, Limit: limit, Offset: offset})
	if err != nil {
		return nil, err
	}
	if err := st.IssueDetails(ctx, list, false); err != nil {
		return nil, err
	}
	var repoIDs, pullIDs []int64
	for _, is := range list {
		repoIDs = append(repoIDs, is.RepoID)
		if is.IsPull {
			pullIDs = append(pullIDs, is.ID)
		}
	}
	repos, err := st.ReposByID(ctx, repoIDs, c.UserID())
	if err != nil {
		return nil, err
	}
	drafts, err := st.PullDrafts(ctx, pullIDs)
	if err != nil {
		return nil, err
	}
	return &IssueResults{Total: total, Issues: list, Repos: repos, Drafts: drafts, Words: pq.comp.words}, nil
}

// Repositories searches the repositories c may see. sort is stars, forks,
// help-wanted-issues or updated ("" for the query's sort: or best match).
func (s *Service) Repositories(ctx context.Context, c *authz.Caller, q, sort, order string, limit, offset int) (*RepoResults, error) {
	st := s.Store.R()
	pq, err := compileQuery(ctx, st, c, repoKind, q, sort, order)
	if err != nil {
		return nil, err
	}
	list, total, err := st.SearchRepos(ctx, store.RepoSearch{Viewer: deps.ViewerOf(c), Cond: pq.cond, Rank: pq.comp.words,
		Sort: pq.by, Desc: pq.desc, Limit: limit, Offset: offset})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(list))
	for _, v := range list {
		ids = append(ids, v.Repo.ID)
	}
	facts, err := st.RepoFacts(ctx, ids)
	if err != nil {
		return nil, err
	}
	return &RepoResults{Total: total, Repos: list, Facts: facts, Words: pq.comp.words}, nil
}

// Users searches users and organizations (every account is public). sort
// is followers, repositories or joined ("" for the query's sort: or best
// match).
func (s *Service) Users(ctx context.Context, c *authz.Caller, q, sort, order string, limit, offset int) (*UserResults, error) {
	st := s.Store.R()
	pq, err := compileQuery(ctx, st, c, userKind, q, sort, order)
	if err != nil {
		return nil, err
	}
	list, total, err := st.SearchAccounts(ctx, store.AccountSearch{Cond: pq.cond, Rank: pq.comp.words, Sort: pq.by, Desc: pq.desc, Limit: limit, Offset: offset})
	if err != nil {
		return nil, err
	}
	return &UserResults{Total: total, Users: list, Words: pq.comp.words}, nil
}

// Labels searches the labels of repository repoID (which c must see) for
// any of the words of q; q takes no qualifiers. sort is created or updated
// ("" for best match).
func (s *Service) Labels(ctx context.Context, c *authz.Caller, repoID int64, q, sort, order string, limit, offset int) (*LabelResults, error) {
	st := s.Store.R()
	v, err := st.RepoByID(ctx, repoID, c.UserID())
	if err != nil {
		return nil, err
	}
	if !authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
		return nil, model.ErrNotFound
	}
	var words []string
	for _, t := range tokenize(q) {
		if t.kind == tokWord {
			if w := unquote(t.raw); w != "" {
				words = append(words, w)
			}
		}
	}
	if len(words) == 0 {
		return nil, ErrMissingQuery
	}
	if len(words) > maxTokens {
		return nil, invalidQuery(msgTooMany)
	}
	if n := len([]rune(strings.Join(words, " "))); n > 256 {
		return nil, invalidQuery(msgTooLong)
	}
	if sort != "created" && sort != "updated" {
		sort = ""
	}
	list, total, err := st.SearchLabels(ctx, repoID, words, sort, order != "asc", limit, offset)
	if err != nil {
		return nil, err
	}
	return &LabelResults{Total: total, Repo: v.Repo, Labels: list, Words: words}, nil
}

// parsedQuery is a query compiled for a kind, with the sort it asks for.
type parsedQuery struct {
	comp *compiler
	cond store.SearchCond
	by   string
	desc bool
}

// compileQuery compiles query q of kind k for c; sort and order are the request's
// (the query's sort: qualifier otherwise).
func compileQuery(ctx context.Context, st store.Q, c *authz.Caller, k *kind, q, sort, order string) (parsedQuery, error) {
	comp := newCompiler(ctx, st, c, k)
	cond, err := comp.run(q)
	if err != nil {
		return parsedQuery{}, err
	}
	by, desc := comp.order(sort, order)
	return parsedQuery{comp: comp, cond: cond, by: by, desc: desc}, nil
}

// reposOf loads the repositories of a page's items (repoOf gives an
// item's) with c's facts, in one batch.
func reposOf[T any](ctx context.Context, st store.Q, c *authz.Caller, items []T, repoOf func(T) int64) (map[int64]*store.RepoView, error) {
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		ids = append(ids, repoOf(it))
	}
	return st.ReposByID(ctx, ids, c.UserID())
}
