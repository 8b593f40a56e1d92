package search

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Code and commit searches run over the index internal/codeindex keeps of
// each repository's default branch (files and commits), with the
// qualifiers of GitHub's "Searching code (legacy)" and "Searching
// commits".

// CodeResults is one page of a code search.
type CodeResults struct {
	Total int
	Hits  []*store.CodeHit
	// Repos are the files' repositories with the caller's facts.
	Repos map[int64]*store.RepoView
	Words []string
}

// CommitResults is one page of a commit search.
type CommitResults struct {
	Total   int
	Commits []*store.CodeCommit
	Repos   map[int64]*store.RepoView
	// Accounts are the authors and committers the commits are attributed to.
	Accounts map[int64]*model.Account
	Words    []string
}

// msgNoTerm is the 422 of a code search without a word (filename: aside).
const msgNoTerm = "Must include at least one search term (a word to look for in files), or a filename: qualifier."

var codeKind, commitKind *kind

func init() {
	scope := map[string]qualFunc{
		"repo": func(c *compiler, v string) (store.SearchCond, error) { return c.repo(v) },
		"user": func(c *compiler, v string) (store.SearchCond, error) { return c.owner(v) },
		"org":  func(c *compiler, v string) (store.SearchCond, error) { return c.owner(v) },
	}
	codeKind = &kind{
		textIn:   []string{"file", "path"},
		inFields: map[string]string{"file": "file", "path": "path"},
		sorts:    map[string]bool{"indexed": true},
		group:    scopeGroup,
		finish:   withoutForks,
		quals: map[string]qualFunc{
			"fork":     forkQual,
			"language": text("language"),
			"size":     counts("size"),
			"path":     text("path"),
			"extension": func(_ *compiler, v string) (store.SearchCond, error) {
				return textLeaf("extension", strings.TrimPrefix(unquote(v), ".")), nil
			},
			"filename": func(c *compiler, v string) (store.SearchCond, error) {
				c.filename = true
				return textLeaf("filename", unquote(v)), nil
			},
		},
	}
	commitKind = &kind{
		textIn: []string{"message"},
		sorts:  map[string]bool{"author-date": true, "committer-date": true},
		group:  scopeGroup,
		quals: map[string]qualFunc{
			"is": oneOf(map[string]func(c *compiler) store.SearchCond{
				"public": always(textLeaf("visibility", "public")), "private": always(textLeaf("visibility", "private")),
				"internal": always(textLeaf("visibility", "internal")),
			}),
			"author":          func(c *compiler, v string) (store.SearchCond, error) { return c.person("author", v) },
			"committer":       func(c *compiler, v string) (store.SearchCond, error) { return c.person("committer", v) },
			"author-name":     text("author_name"),
			"committer-name":  text("committer_name"),
			"author-email":    text("author_email"),
			"committer-email": text("committer_email"),
			"author-date":     dates("author_date"),
			"committer-date":  dates("committer_date"),
			"merge":           flag("merge"),
			"hash":            hexPrefix("hash"),
			"parent":          hexPrefix("parent"),
			"tree":            hexPrefix("tree"),
		},
	}
	for k, f := range scope {
		codeKind.quals[k] = f
		commitKind.quals[k] = f
	}
}

// forkQual is fork:true, fork:only or fork:false of repository and code
// searches.
func forkQual(c *compiler, v string) (store.SearchCond, error) {
	switch strings.ToLower(unquote(v)) {
	case "true":
		c.forks = true
		return store.Bool(true), nil
	case "only":
		c.forks = true
		return store.Leaf("fork"), nil
	case "false":
		c.forks = true
		return store.CondNeg(store.Leaf("fork")), nil
	}
	return store.SearchCond{}, errNotQualifier
}

// withoutForks leaves forks out unless fork: asks for them (fork:true or
// fork:only) or repo: names a repository (repository and code searches).
func withoutForks(c *compiler, cond store.SearchCond) store.SearchCond {
	if c.forks || c.repoScope {
		return cond
	}
	return store.CondAll(cond, store.CondNeg(store.Leaf("fork")))
}

// hexPrefix is a qualifier naming an object by its id or a prefix of it;
// anything else is words.
func hexPrefix(field string) qualFunc {
	return func(_ *compiler, v string) (store.SearchCond, error) {
		v = strings.ToLower(unquote(v))
		if len(v) < 4 || len(v) > 64 || strings.Trim(v, "0123456789abcdef") != "" {
			return store.SearchCond{}, errNotQualifier
		}
		return textLeaf(field, v), nil
	}
}

// Code searches the indexed files of the repositories c may see. sort is
// indexed ("" for best match); GitHub requires words (or filename:).
func (s *Service) Code(ctx context.Context, c *authz.Caller, q, sort, order string, limit, offset int) (*CodeResults, error) {
	st := s.Store.R()
	pq, err := compileQuery(ctx, st, c, codeKind, q, sort, order)
	if err != nil {
		return nil, err
	}
	if len(pq.comp.words) == 0 && !pq.comp.filename {
		return nil, invalidQuery(msgNoTerm)
	}
	hits, total, err := st.SearchCode(ctx, store.CodeSearch{Viewer: deps.ViewerOf(c), Cond: pq.cond, Sort: pq.by, Desc: pq.desc, Limit: limit, Offset: offset})
	if err != nil {
		return nil, err
	}
	repos, err := reposOf(ctx, st, c, hits, func(h *store.CodeHit) int64 { return h.File.RepoID })
	if err != nil {
		return nil, err
	}
	return &CodeResults{Total: total, Hits: hits, Repos: repos, Words: pq.comp.words}, nil
}

// Commits searches the indexed commits of the default branches of the
// repositories c may see. sort is author-date or committer-date ("" for
// the query's sort: or best match: the newest commits first).
func (s *Service) Commits(ctx context.Context, c *authz.Caller, q, sort, order string, limit, offset int) (*CommitResults, error) {
	st := s.Store.R()
	pq, err := compileQuery(ctx, st, c, commitKind, q, sort, order)
	if err != nil {
		return nil, err
	}
	list, total, err := st.SearchCommits(ctx, store.CommitSearch{Viewer: deps.ViewerOf(c), Cond: pq.cond, Sort: pq.by, Desc: pq.desc, Limit: limit, Offset: offset})
	if err != nil {
		return nil, err
	}
	var people []int64
	for _, cm := range list {
		for _, id := range []int64{cm.AuthorID, cm.CommitterID} {
			if id != 0 {
				people = append(people, id)
			}
		}
	}
	repos, err := reposOf(ctx, st, c, list, func(cm *store.CodeCommit) int64 { return cm.RepoID })
	if err != nil {
		return nil, err
	}
	accounts, err := st.AccountsByID(ctx, people)
	if err != nil {
		return nil, err
	}
	return &CommitResults{Total: total, Commits: list, Repos: repos, Accounts: accounts, Words: pq.comp.words}, nil
}
