package search

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// qualFunc turns one qualifier's value into a condition. errNotQualifier
// searches the item as words instead.
type qualFunc func(c *compiler, value string) (store.SearchCond, error)

// kind is what one kind of search understands.
type kind struct {
	quals map[string]qualFunc
	// textIn are the fields words are looked for in without in:, and
	// inFields maps in: values to fields ("" for a field hubd does not
	// search, such as README contents).
	textIn   []string
	inFields map[string]string
	sorts    map[string]bool
	// group names the implicit-OR group of a qualifier: GitHub ORs the
	// repeated scope qualifiers (repo:, user:, org:) and visibility
	// (is:public, is:private) among neighbours instead of ANDing them.
	group func(key, value string) string
	// finish completes the condition (forks left out of repository
	// searches unless asked for).
	finish func(c *compiler, cond store.SearchCond) store.SearchCond
}

// compiler turns one query into a condition tree for the caller.
type compiler struct {
	ctx    context.Context
	st     store.Q
	caller *authz.Caller
	k      *kind

	textIn   []string
	words    []string // the words searched for (not excluded ones)
	sort     string
	desc     bool
	sortSet  bool
	accounts map[string]*model.Account

	badPeople         bool // a user qualifier named nobody
	scopeOK, scopeBad int  // repo:, user: and org: that did and did not resolve
	typed             bool // is:issue, is:pr or type: chose issues or pull requests
	forks, repoScope  bool // fork: was given; a repo: named a repository
	filename          bool // a code search's filename: was given
}

func newCompiler(ctx context.Context, st store.Q, c *authz.Caller, k *kind) *compiler {
	return &compiler{ctx: ctx, st: st, caller: c, k: k, desc: true, accounts: map[string]*model.Account{}}
}

// run parses and compiles q.
func (c *compiler) run(q string) (store.SearchCond, error) {
	if strings.TrimSpace(q) == "" {
		return store.SearchCond{}, ErrMissingQuery
	}
	root, p := parse(q, func(key string) bool {
		_, ok := c.k.quals[key]
		return ok || key == "in" || key == "sort"
	})
	if len(p.toks) > maxTokens {
		return store.SearchCond{}, invalidQuery(msgTooMany)
	}
	if p.ops > maxOperators {
		return store.SearchCond{}, invalidQuery(msgOperators)
	}
	var in []string
	c.globals(root, &in)
	c.textIn = c.k.textIn
	if len(in) > 0 {
		c.textIn = nil
		for _, v := range in {
			if f, ok := c.k.inFields[v]; ok && f != "" && !contains(c.textIn, f) {
				c.textIn = append(c.textIn, f)
			}
		}
	}
	if c.k.group != nil {
		c.regroup(root)
	}
	if n := freeText(root); n > 256 {
		return store.SearchCond{}, invalidQuery(msgTooLong)
	}
	cond, err := c.node(root, false)
	if err != nil {
		return store.SearchCond{}, err
	}
	if c.badPeople {
		return store.SearchCond{}, invalidQuery(msgUsers)
	}
	if c.scopeBad > 0 && c.scopeOK == 0 {
		return store.SearchCond{}, invalidQuery(msgUsersAndRepos)
	}
	if c.k.finish != nil {
		cond = c.k.finish(c, cond)
	}
	return cond, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// globals takes in: and sort: out of the tree: they shape the whole
// search wherever they stand.
func (c *compiler) globals(n *node, in *[]string) {
	if n.op == opQual {
		switch n.key {
		case "in":
			for _, v := range splitList(n.value) {
				*in = append(*in, strings.ToLower(v))
			}
			*n = node{op: opTrue}
		case "sort":
			c.sortBy(strings.ToLower(unquote(n.value)))
			*n = node{op: opTrue}
		}
		return
	}
	for _, k := range n.kids {
		c.globals(k, in)
	}
}

// sortBy reads sort:FIELD[-asc|-desc].
func (c *compiler) sortBy(v string) {
	desc := true
	switch {
	case strings.HasSuffix(v, "-asc"):
		v, desc = strings.TrimSuffix(v, "-asc"), false
	case strings.HasSuffix(v, "-desc"):
		v = strings.TrimSuffix(v, "-desc")
	}
	if c.k.sorts[v] {
		c.sort, c.desc, c.sortSet = v, desc, true
	}
}

// order is the sort of the search: the sort parameter when it names one
// of the kind, else the query's sort:, else best match ("").
func (c *compiler) order(sort, order string) (string, bool) {
	if c.k.sorts[sort] {
		return sort, order != "asc"
	}
	if c.sortSet {
		return c.sort, c.desc
	}
	return "", true
}

// regroup ORs the qualifiers of one implicit-OR group among the items of
// each AND.
func (c *compiler) regroup(n *node) {
	for _, k := range n.kids {
		c.regroup(k)
	}
	if n.op != opAnd {
		return
	}
	groups := map[string]*node{}
	var kept []*node
	for _, k := range n.kids {
		if k.op == opQual {
			if g := c.k.group(k.key, strings.ToLower(unquote(k.value))); g != "" {
				if groups[g] == nil {
					groups[g] = &node{op: opOr}
					kept = append(kept, groups[g])
				}
				groups[g].kids = append(groups[g].kids, k)
				continue
			}
		}
		kept = append(kept, k)
	}
	n.kids = kept
}

// freeText is the length of a query's words, as GitHub limits it.
func freeText(n *node) int {
	switch n.op {
	case opTerm:
		return len([]rune(n.text)) + 1
	case opAnd, opOr, opNot:
		t := 0
		for _, k := range n.kids {
			t += freeText(k)
		}
		return t
	}
	return 0
}

// node compiles a parsed node; neg says an odd number of NOTs is above it.
func (c *compiler) node(n *node, neg bool) (store.SearchCond, error) {
	switch n.op {
	case opTrue:
		return store.Bool(true), nil
	case opAnd, opOr:
		kids := make([]store.SearchCond, 0, len(n.kids))
		for _, k := range n.kids {
			kc, err := c.node(k, neg)
			if err != nil {
				return store.SearchCond{}, err
			}
			kids = append(kids, kc)
		}
		if n.op == opOr {
			return store.CondAny(kids...), nil
		}
		return store.CondAll(kids...), nil
	case opNot:
		kc, err := c.node(n.kids[0], !neg)
		if err != nil {
			return store.SearchCond{}, err
		}
		return store.CondNeg(kc), nil
	case opQual:
		cond, err := c.k.quals[n.key](c, n.value)
		if !errors.Is(err, errNotQualifier) {
			return cond, err
		}
		return c.term(n.key+":"+unquote(n.value), neg), nil
	}
	return c.term(n.text, neg), nil
}

// term is a word or phrase looked for in the kind's text fields.
func (c *compiler) term(text string, neg bool) store.SearchCond {
	if !neg {
		c.words = append(c.words, text)
	}
	cond := textLeaf("text", strings.ToLower(text))
	cond.In = c.textIn
	return cond
}

// account resolves a login (@me is the caller), nil when there is none.
func (c *compiler) account(login string) (*model.Account, error) {
	login = unquote(login)
	if login == "@me" {
		if c.caller == nil || c.caller.User == nil {
			return nil, nil
		}
		return c.caller.User, nil
	}
	key := strings.ToLower(login)
	if a, ok := c.accounts[key]; ok {
		return a, nil
	}
	a, err := c.st.AccountByLogin(c.ctx, login)
	if errors.Is(err, model.ErrNotFound) {
		a, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.accounts[key] = a
	return a, nil
}

// person is a qualifier naming a user (author:, assignee: and the like):
// one that names nobody makes the query GitHub's 422.
func (c *compiler) person(field, value string) (store.SearchCond, error) {
	a, err := c.account(value)
	if err != nil {
		return store.SearchCond{}, err
	}
	if a == nil {
		c.badPeople = true
		return store.Bool(false), nil
	}
	return idsLeaf(field, a.ID), nil
}

// owner is user: or org: of issue and repository searches.
func (c *compiler) owner(value string) (store.SearchCond, error) {
	a, err := c.account(value)
	if err != nil {
		return store.SearchCond{}, err
	}
	if a == nil {
		c.scopeBad++
		return store.Bool(false), nil
	}
	c.scopeOK++
	return idsLeaf("owner", a.ID), nil
}

// repo is repo:OWNER/NAME: a repository the caller may not see is one
// that does not exist.
func (c *compiler) repo(value string) (store.SearchCond, error) {
	owner, name, ok := strings.Cut(unquote(value), "/")
	if !ok || owner == "" || name == "" || len(owner) > 100 || len(name) > 100 {
		c.scopeBad++
		return store.Bool(false), nil
	}
	v, err := c.st.RepoByName(c.ctx, owner, name, c.caller.UserID())
	if errors.Is(err, model.ErrNotFound) {
		c.scopeBad++
		return store.Bool(false), nil
	}
	if err != nil {
		return store.SearchCond{}, err
	}
	if !authz.CanSee(authz.RepoPermission(c.caller, v.Repo, v.Facts)) {
		c.scopeBad++
		return store.Bool(false), nil
	}
	c.scopeOK++
	c.repoScope = true
	return idsLeaf("repo", v.Repo.ID), nil
}

// scopeGroup is the implicit-OR group of issue and repository searches.
func scopeGroup(key, value string) string {
	switch key {
	case "repo", "user", "org":
		return "scope"
	case "is":
		switch value {
		case "public", "private", "internal":
			return "visibility"
		}
	}
	return ""
}

// oneOf is a qualifier whose values map to conditions.
func oneOf(m map[string]func(c *compiler) store.SearchCond) qualFunc {
	return func(c *compiler, v string) (store.SearchCond, error) {
		f, ok := m[strings.ToLower(unquote(v))]
		if !ok {
			return store.SearchCond{}, errNotQualifier
		}
		return f(c), nil
	}
}

func always(cond store.SearchCond) func(*compiler) store.SearchCond {
	return func(*compiler) store.SearchCond { return cond }
}

func dates(field string) qualFunc {
	return func(_ *compiler, v string) (store.SearchCond, error) {
		r, err := dateRange(v)
		return rangeLeaf(field, r), err
	}
}

func counts(field string) qualFunc {
	return func(_ *compiler, v string) (store.SearchCond, error) {
		r, err := countRange(v)
		return rangeLeaf(field, r), err
	}
}

func flag(field string) qualFunc {
	return func(_ *compiler, v string) (store.SearchCond, error) {
		b, err := boolValue(v)
		return boolLeaf(field, b), err
	}
}

func text(field string) qualFunc {
	return func(_ *compiler, v string) (store.SearchCond, error) {
		return textLeaf(field, unquote(v)), nil
	}
}
