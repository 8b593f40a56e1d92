package search

import (
	"strings"
	"unicode"
)

// The query language of GitHub's search: words and "quoted phrases",
// qualifiers (key:value, key:"quoted value"), a leading - that excludes
// what a qualifier (or word) matches, and the boolean syntax of GitHub's
// advanced issue search: AND, OR and NOT between items, implicit AND
// between neighbours, and parentheses for grouping. The parser is lenient
// like GitHub's: a stray parenthesis or an operator without an operand is
// dropped, never an error.

// op is the kind of a parsed node.
type op uint8

const (
	opAnd  op = iota // every kid
	opOr             // some kid
	opNot            // not the one kid
	opTerm           // a word or a phrase
	opQual           // a qualifier
	opTrue           // matches everything (a global qualifier taken out)
)

// node is a parsed query.
type node struct {
	op    op
	kids  []*node
	key   string // qualifiers: the key, lower case
	value string // qualifiers: the value as written (quotes kept)
	text  string // terms: the word or phrase, quotes removed
}

// maxOperators is GitHub's limit of AND, OR and NOT per query.
const maxOperators = 5

// maxTokens bounds what one query may hold (words, qualifiers and
// parentheses): hubd's own limit, so that no query compiles to SQL that a
// database refuses for its size.
const maxTokens = 200

type tokKind uint8

const (
	tokWord tokKind = iota
	tokOpen
	tokClose
)

type token struct {
	kind tokKind
	raw  string
}

// tokenize splits a query at white space outside quotes. An opening
// parenthesis counts at the start of an item, a closing one at its end.
func tokenize(q string) []token {
	var out []token
	rs := []rune(q)
	for i := 0; i < len(rs); {
		switch {
		case unicode.IsSpace(rs[i]):
			i++
			continue
		case rs[i] == '(':
			out = append(out, token{kind: tokOpen})
			i++
			continue
		}
		start, inQuote := i, false
		for i < len(rs) && (inQuote || !unicode.IsSpace(rs[i])) {
			if rs[i] == '"' {
				inQuote = !inQuote
			}
			i++
		}
		word := string(rs[start:i])
		closes := 0
		// Closing parentheses end a group unless the word opened them:
		// foo(bar) is one word.
		for strings.HasSuffix(word, ")") && strings.Count(word[:len(word)-1], `"`)%2 == 0 &&
			strings.Count(word, ")") > strings.Count(word, "(") {
			word = word[:len(word)-1]
			closes++
		}
		if word != "" {
			out = append(out, token{kind: tokWord, raw: word})
		}
		for ; closes > 0; closes-- {
			out = append(out, token{kind: tokClose})
		}
	}
	return out
}

// unquote removes the double quotes of a value or phrase.
func unquote(s string) string { return strings.ReplaceAll(s, `"`, "") }

// splitList splits a qualifier value at commas outside quotes, unquoting
// each part and dropping empty ones.
func splitList(v string) []string {
	var out []string
	inQuote, start := false, 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] == '"' {
			inQuote = !inQuote
		}
		if i == len(v) || v[i] == ',' && !inQuote {
			if p := strings.TrimSpace(unquote(v[start:i])); p != "" {
				out = append(out, p)
			}
			start = i + 1
		}
	}
	return out
}

// parser reads tokens into nodes.
type parser struct {
	toks  []token
	pos   int
	ops   int                   // AND, OR and NOT seen
	known func(key string) bool // qualifier keys of the searched kind
}

// parse reads a query. known says which keys are qualifiers of the kind
// searched; any other key:value is a word.
func parse(q string, known func(string) bool) (*node, *parser) {
	p := &parser{toks: tokenize(q), known: known}
	root := p.or()
	for p.pos < len(p.toks) {
		if p.toks[p.pos].kind == tokClose {
			p.pos++ // a stray closing parenthesis
			continue
		}
		root = and(root, p.or())
	}
	if root == nil {
		root = &node{op: opAnd}
	}
	return root, p
}

func (p *parser) peekWord(w string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == tokWord && p.toks[p.pos].raw == w
}

func and(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &node{op: opAnd, kids: []*node{a, b}}
}

func (p *parser) or() *node {
	var alts []*node
	if n := p.and(); n != nil {
		alts = append(alts, n)
	}
	for p.peekWord("OR") {
		p.pos++
		p.ops++
		if n := p.and(); n != nil {
			alts = append(alts, n)
		}
	}
	switch len(alts) {
	case 0:
		return nil
	case 1:
		return alts[0]
	}
	return &node{op: opOr, kids: alts}
}

func (p *parser) and() *node {
	var all []*node
	for p.pos < len(p.toks) {
		t := p.toks[p.pos]
		if t.kind == tokClose || t.kind == tokWord && t.raw == "OR" {
			break
		}
		if t.kind == tokWord && t.raw == "AND" {
			p.pos++
			p.ops++
			continue
		}
		if n := p.unary(); n != nil {
			all = append(all, n)
		}
	}
	switch len(all) {
	case 0:
		return nil
	case 1:
		return all[0]
	}
	return &node{op: opAnd, kids: all}
}

func (p *parser) unary() *node {
	t := p.toks[p.pos]
	switch {
	case t.kind == tokOpen:
		p.pos++
		n := p.or()
		if p.pos < len(p.toks) && p.toks[p.pos].kind == tokClose {
			p.pos++
		}
		return n
	case t.kind == tokWord && t.raw == "NOT":
		p.pos++
		p.ops++
		if p.pos >= len(p.toks) || p.toks[p.pos].kind == tokClose {
			return &node{op: opTerm, text: "NOT"}
		}
		if n := p.unary(); n != nil {
			return &node{op: opNot, kids: []*node{n}}
		}
		return nil
	}
	p.pos++
	return p.item(t.raw)
}

// item is one word: a qualifier of the kind, or a term. A leading - negates
// either.
func (p *parser) item(raw string) *node {
	neg := false
	body := raw
	if len(raw) > 1 && raw[0] == '-' {
		neg, body = true, raw[1:]
	}
	var n *node
	if k, v, ok := strings.Cut(body, ":"); ok && v != "" && !strings.Contains(k, `"`) && p.known(strings.ToLower(k)) {
		n = &node{op: opQual, key: strings.ToLower(k), value: v}
	} else {
		text := strings.TrimSpace(unquote(body))
		if text == "" {
			return nil
		}
		n = &node{op: opTerm, text: text}
	}
	if neg {
		return &node{op: opNot, kids: []*node{n}}
	}
	return n
}
