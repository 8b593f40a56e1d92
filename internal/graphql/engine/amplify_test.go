package engine

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// The amplification suite: documents built to make validation or execution
// do far more work than their size. Each must be answered within bounds
// asserted on counted work (steps, comparisons, resolver calls) and on
// memory allocated, never on time; each runs under a deadline so that a
// regression fails (with the timeout error) instead of hanging.

// selfSchema has a field that returns its own type: fragments can fan out
// through fields, and documents nest as deep as they like.
const selfSchema = `
schema { query: Query }
type Query { q: Query, n: Int, s(x: Int): Int }
`

// deadline is the context every document of the suite runs under.
func deadline(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// prepared runs PrepareContext and returns the answer with the bytes it
// allocated.
func prepared(t *testing.T, s *Schema, query string) (*Prepared, *Response, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, bad := s.PrepareContext(deadline(t), &Request{Query: query})
	runtime.ReadMemStats(&after)
	return p, bad, after.TotalAlloc - before.TotalAlloc
}

// work parses and validates query and reports the steps the bounds took
// (over: past MaxSelections) and the units of work the merging check took.
func work(t *testing.T, s *Schema, query string) (measureSteps, selections, depth, mergeWork int, mergeErrs int, over bool) {
	t.Helper()
	doc := mustParse(t, query)
	m := newMeasure(context.Background(), doc)
	selections, depth, err := m.document(doc)
	if err == errOver {
		return m.steps, 0, 0, 0, 0, true
	}
	if err != nil {
		t.Fatal(err)
	}
	if depth > MaxDepth {
		return m.steps, selections, depth, 0, 0, false
	}
	validator.ValidateWithRules(s.AST, doc, s.rules)
	mg := &merger{ctx: context.Background(), frags: fragmentIndex(doc)}
	if err := mg.check(doc); err != nil {
		t.Fatal(err)
	}
	return m.steps, selections, depth, mg.work, len(mg.errs), false
}

func realSchema(t *testing.T) *Schema {
	t.Helper()
	s, _, _ := ghQueries(t)
	return s
}

func selfEngine(t *testing.T) *Schema {
	t.Helper()
	s, err := New(selfSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// onlyError asserts a refusal: no data, one error of that message.
func onlyError(t *testing.T, bad *Response, want string) {
	t.Helper()
	if bad == nil || bad.Data != nil || len(bad.Errors) != 1 || bad.Errors[0].Message != want {
		t.Fatalf("want the one error %q, got %+v", want, bad)
	}
}

// TestAmplificationConflictingAliases: 3,000 aliases of one response name
// on two different fields (25 KB; gqlparser's pairwise comparison took 4.4
// GB and 9 s) are one conflict each, found by comparing each with the
// first: linear work.
func TestAmplificationConflictingAliases(t *testing.T) {
	s := realSchema(t)
	var b strings.Builder
	b.WriteString("{ viewer {")
	for i := range 3000 {
		if i%2 == 0 {
			b.WriteString(" a: login")
		} else {
			b.WriteString(" a: name")
		}
	}
	b.WriteString(" } }")
	q := b.String()
	_, _, _, mergeWork, conflicts, _ := work(t, s, q)
	if conflicts != 1500 || mergeWork > 3*3000+10 {
		t.Fatalf("%d conflicts for %d units of work; want 1,500 for at most %d", conflicts, mergeWork, 3*3000+10)
	}
	_, bad, alloc := prepared(t, s, q)
	if bad == nil || len(bad.Errors) != 1500 || bad.Errors[0].Message != "Field 'a' has a field conflict: login or name?" {
		t.Fatalf("answer: %+v", bad)
	}
	if alloc > 64<<20 {
		t.Fatalf("validation allocated %d MB", alloc>>20)
	}
}

// TestAmplificationRepeatedField: one field 20,000 times (120 KB; 32 s of
// CPU before) is valid and merges into one key: validation is linear and
// execution resolves the field once per parent.
func TestAmplificationRepeatedField(t *testing.T) {
	q := "{ items {" + strings.Repeat(" name", 20_000) + " } }"
	s, calls := testEngine(t)
	_, selections, _, mergeWork, conflicts, _ := work(t, s, q)
	if selections != 20_001 || conflicts != 0 || mergeWork > 3*20_001 {
		t.Fatalf("%d selections, %d conflicts, %d units of work", selections, conflicts, mergeWork)
	}
	p, bad, alloc := prepared(t, s, q)
	if bad != nil {
		t.Fatalf("refused: %+v", bad.Errors[0])
	}
	if alloc > 64<<20 {
		t.Fatalf("validation allocated %d MB", alloc>>20)
	}
	resp := s.Execute(deadline(t), p)
	out, err := resp.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"data":{"items":[{"name":"one"},{"name":"two"},{"name":"three"}]}}`+"\n" || calls["items"] != 1 {
		t.Fatalf("%d calls of items: %s", calls["items"], out)
	}
}

// fanOut writes n fragments, each spreading the next twice (983 bytes for
// 2^24 before: each spread was walked again).
func fanOut(n int, spread func(next string) string, last string) string {
	var b strings.Builder
	b.WriteString("query{...f0}")
	for i := range n {
		fmt.Fprintf(&b, "fragment f%d on Query{%s}", i, spread(fmt.Sprintf("f%d", i+1)))
	}
	fmt.Fprintf(&b, "fragment f%d on Query{%s}", n, last)
	return b.String()
}

// TestAmplificationFragmentFanOut: a fragment spread twice in one selection
// is spread once, as execution spreads it, so 2^24 paths in under 1 KB are
// 24 steps of validation and cost; a fan-out through fields (each fragment
// selecting the next under two aliases) really would return 2^24 fields and
// is refused, after counting each fragment once.
func TestAmplificationFragmentFanOut(t *testing.T) {
	s := realSchema(t)
	q := fanOut(24, func(next string) string { return "..." + next + " ..." + next }, "rateLimit{cost}")
	if len(q) >= 1024 {
		t.Fatalf("the document is %d bytes", len(q))
	}
	// The operation's 51 selections: ...f0, two spreads in each fragment,
	// rateLimit and cost; the steps add each fragment walked on its own
	// (the validator walks them so), 676 in all.
	steps, selections, _, mergeWork, _, _ := work(t, s, q)
	if selections != 51 || steps > 700 || mergeWork > 100 {
		t.Fatalf("%d selections in %d steps, %d units of merging work", selections, steps, mergeWork)
	}
	p, bad, _ := prepared(t, s, q)
	if bad != nil {
		t.Fatalf("refused: %+v", bad.Errors[0])
	}
	if c := s.Cost(p); c.Points != 1 || c.Nodes != 0 {
		t.Fatalf("cost %+v", c)
	}

	// Two fragments per level, each spreading both of the next: execution
	// spreads each once per selection, and so does the count.
	var b strings.Builder
	b.WriteString("query{...a0}")
	for i := range 24 {
		for _, name := range []string{"a", "b"} {
			fmt.Fprintf(&b, "fragment %s%d on Query{...a%d ...b%d}", name, i, i+1, i+1)
		}
	}
	b.WriteString("fragment a24 on Query{n: rateLimit{cost}} fragment b24 on Query{n: rateLimit{cost}}")
	if steps, selections, _, mergeWork, _, _ := work(t, s, b.String()); selections != 99 || steps > 3000 || mergeWork > 200 {
		t.Fatalf("two per level: %d selections in %d steps, %d units of merging work", selections, steps, mergeWork)
	}

	self := selfEngine(t)
	q = fanOut(12, func(next string) string { // four per level: 4^12 = 2^24
		return strings.ReplaceAll("a:q{...N}b:q{...N}c:q{...N}d:q{...N}", "N", next)
	}, "n")
	if len(q) >= 1024 {
		t.Fatalf("the document is %d bytes", len(q))
	}
	steps, _, _, _, _, over := work(t, self, q)
	if !over || steps > 300 {
		t.Fatalf("through fields: over %v after %d steps", over, steps)
	}
	_, bad, alloc := prepared(t, self, q)
	onlyError(t, bad, fmt.Sprintf("Query has complexity of more than %d, which exceeds max complexity of %d", MaxSelections, MaxSelections))
	if alloc > 16<<20 {
		t.Fatalf("refusing allocated %d MB", alloc>>20)
	}
}

// TestAmplificationOperations: operations that each reach a long chain of
// fragments are counted together (the validator walks each fragment once
// per operation), refused after about MaxSelections steps.
func TestAmplificationOperations(t *testing.T) {
	s := selfEngine(t)
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "query o%d{...f0} ", i)
	}
	for i := range 1900 {
		fmt.Fprintf(&b, "fragment f%d on Query{...f%d} ", i, i+1)
	}
	b.WriteString("fragment f1900 on Query{n}")
	steps, _, _, _, _, over := work(t, s, b.String())
	if !over || steps > MaxSelections+2000 {
		t.Fatalf("over %v after %d steps", over, steps)
	}
	_, bad, _ := prepared(t, s, b.String())
	onlyError(t, bad, fmt.Sprintf("Query has complexity of more than %d, which exceeds max complexity of %d", MaxSelections, MaxSelections))

	// One operation, and the chain walked from each of its fragments on
	// its own: 1,900 fragments cost 1,800,000 steps to the validator.
	b.Reset()
	b.WriteString("query{...f0} ")
	for i := range 1900 {
		fmt.Fprintf(&b, "fragment f%d on Query{...f%d} ", i, i+1)
	}
	b.WriteString("fragment f1900 on Query{n}")
	doc := mustParse(t, b.String())
	m := newMeasure(context.Background(), doc)
	if _, _, err := m.document(doc); err != errTooLarge || m.steps > fragmentBudget+MaxSelections {
		t.Fatalf("%v after %d steps", err, m.steps)
	}
	_, bad, _ = prepared(t, s, b.String())
	onlyError(t, bad, tooLarge)
}

func mustParse(t *testing.T, query string) *ast.QueryDocument {
	t.Helper()
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, MaxTokens)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestAmplificationDeepNesting: 1,000 levels stop in the parser; 30
// levels, written or through fragments, are past GitHub's depth of 25.
func TestAmplificationDeepNesting(t *testing.T) {
	s := selfEngine(t)
	nest := func(n int) string { return strings.Repeat("q{", n) + "n" + strings.Repeat("}", n) }
	_, bad, alloc := prepared(t, s, "{"+nest(1000)+"}")
	onlyError(t, bad, tooLarge)
	if alloc > 16<<20 {
		t.Fatalf("refusing allocated %d MB", alloc>>20)
	}
	_, bad, _ = prepared(t, s, "{"+nest(30)+"}")
	onlyError(t, bad, "Query has depth of 31, which exceeds max depth of 25")
	var b strings.Builder
	b.WriteString("{...f0}")
	for i := range 30 {
		fmt.Fprintf(&b, "fragment f%d on Query{q{...f%d}}", i, i+1)
	}
	b.WriteString("fragment f30 on Query{n}")
	_, bad, _ = prepared(t, s, b.String())
	onlyError(t, bad, "Query has depth of 31, which exceeds max depth of 25")
	// A fragment cycle through a field is measured once and refused by
	// validation.
	_, bad, _ = prepared(t, s, "{...c} fragment c on Query{q{...c}}")
	if bad == nil || !strings.Contains(bad.Errors[0].Message, "Cannot spread fragment") {
		t.Fatalf("cycle: %+v", bad.Errors[0])
	}
	// 25 levels pass.
	if _, bad, _ = prepared(t, s, "{"+nest(24)+"}"); bad != nil {
		t.Fatalf("25 levels: %+v", bad.Errors[0])
	}
}

// TestAmplificationHugeDocuments: a 1 MB document is refused before it is
// read; one past the token limit stops in the lexer.
func TestAmplificationHugeDocuments(t *testing.T) {
	s := selfEngine(t)
	q := "{" + strings.Repeat(" n", 1<<19) + "}"
	_, bad, alloc := prepared(t, s, q)
	onlyError(t, bad, tooLarge)
	if alloc > 1<<20 {
		t.Fatalf("refusing 1 MB allocated %d KB", alloc>>10)
	}
	q = "{" + strings.Repeat("n ", MaxTokens) + "}"
	_, bad, alloc = prepared(t, s, q)
	onlyError(t, bad, tooLarge)
	if alloc > 32<<20 {
		t.Fatalf("refusing allocated %d MB", alloc>>20)
	}
}

// TestAmplificationDisconnect: when the request's context ends (the client
// hung up, or its ten seconds are over) no resolver runs after it, and the
// answer is GitHub's timeout error; validation stops too.
func TestAmplificationDisconnect(t *testing.T) {
	s := selfEngine(t)
	s.RequestID = func(context.Context) string { return "AAAA:BBBB:1:2:3" }
	ctx, cancel := context.WithCancel(deadline(t))
	calls := 0
	s.Resolve("Query", "q", Each(func(context.Context, any, map[string]any) (any, error) { return struct{}{}, nil }))
	s.Resolve("Query", "n", Each(func(context.Context, any, map[string]any) (any, error) {
		calls++
		if calls == 5 {
			cancel() // the client hangs up during the fifth
		}
		return 1, nil
	}))
	s.Resolve("Query", "s", Each(func(context.Context, any, map[string]any) (any, error) { return 1, nil }))
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&b, " a%d: n q { b%d: n }", i, i)
	}
	b.WriteString("}")
	p, bad := s.PrepareContext(ctx, &Request{Query: b.String()})
	if bad != nil {
		t.Fatal(bad.Errors[0].Message)
	}
	resp := s.Execute(ctx, p)
	want := "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please include `AAAA:BBBB:1:2:3` when reporting this issue."
	if calls != 5 || resp.Data != nil || len(resp.Errors) != 1 || resp.Errors[0].Message != want {
		t.Fatalf("%d resolver calls, answer %+v", calls, resp)
	}
	// Validation of a large document stops at the first look at the ended
	// context.
	_, bad = s.PrepareContext(ctx, &Request{Query: "{" + strings.Repeat(" n", 20_000) + "}"})
	onlyError(t, bad, want)
}

// TestFieldMerging: the engine's merging rule finds what the pairwise rule
// found, in graphql-ruby's words, and allows what GitHub allows.
func TestFieldMerging(t *testing.T) {
	s := realSchema(t)
	for _, c := range []struct{ query, want string }{
		{`{ viewer { a: login a: login } }`, ""},
		{`{ viewer { a: login a: name } }`, "Field 'a' has a field conflict: login or name?"},
		{`{ repository(owner: "a", name: "b") { id } repository(owner: "a", name: "c") { id } }`,
			`Field 'repository' has an argument conflict: {owner: "a", name: "b"} or {owner: "a", name: "c"}?`},
		{`{ repository(owner: "a", name: "b") { id } repository(name: "b", owner: "a") { id } }`, ""},
		{`{ viewer { login } viewer { login: name } }`, "Field 'login' has a field conflict: login or name?"},
		{`{ viewer { ...F login: name } } fragment F on User { login }`, "Field 'login' has a field conflict: name or login?"}, // in the document's order
		// Different object types never meet in one object; an abstract
		// parent meets them all.
		{`{ node(id: "x") { ... on User { x: login } ... on Repository { x: name } } }`, ""},
		{`{ node(id: "x") { x: id ... on User { x: login } } }`, "Field 'x' has a field conflict: id or login?"},
		{`{ node(id: "x") { ... on User { x: login } ... on User { x: name } } }`, "Field 'x' has a field conflict: login or name?"},
		// Inside fields that merge, the selections are checked together.
		{`{ node(id: "x") { ... on User { o: repository(name: "a") { n: name } } ... on RepositoryOwner { o: repository(name: "a") { n: id } } } }`,
			"Field 'n' has a field conflict: name or id?"},
	} {
		_, bad := s.PrepareContext(deadline(t), &Request{Query: c.query})
		switch {
		case c.want == "" && bad != nil:
			t.Errorf("%s: %s", c.query, bad.Errors[0].Message)
		case c.want != "" && (bad == nil || len(bad.Errors) != 1 || bad.Errors[0].Message != c.want):
			t.Errorf("%s: want %q, got %+v", c.query, c.want, bad.Errors[0])
		}
	}
}
