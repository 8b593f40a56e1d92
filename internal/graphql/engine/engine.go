// Package engine executes GraphQL documents against a schema with batched
// resolvers.
//
// Execution is breadth-first: all objects of one type that one selection
// reaches at the same depth are resolved together, so a resolver receives
// every parent at once (100 issues → one call for their labels) and loads
// what it needs in one query. A document therefore costs a number of
// resolver calls bounded by its size, not by the data it returns.
//
// The engine knows nothing of hubd: resolvers are registered per
// Type.field, abstract types are resolved by a TypeOf function, and errors
// carry GitHub's `type` (NOT_FOUND, FORBIDDEN, ...).
package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	validatorrules "github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/hubd/hubd/internal/jsonw"
)

// Batch is one resolver call: a field of one object type for every parent
// that reached it through the same selection.
type Batch struct {
	Parents []any
	// Args are the field's arguments with variables and defaults applied
	// (the same for every parent: they come from one place in the document).
	Args  map[string]any
	Field *ast.Field
	Def   *ast.FieldDefinition
	ex    *execution // nil outside an execution
}

// Values returns a zeroed slice of n values for a resolver's answer, from
// the execution's arena (cheaper than one allocation per batch).
func (b *Batch) Values(n int) []any {
	if b.ex == nil {
		return make([]any, n)
	}
	return b.ex.values(n)
}

// Resolver answers a batch with one value per parent, in order. A value
// may be an *Error (that parent's field is null with that error); a
// returned error applies to every parent.
type Resolver func(ctx context.Context, b *Batch) ([]any, error)

// Error is a GraphQL error with GitHub's `type`.
type Error struct {
	Type    string // NOT_FOUND, FORBIDDEN, INVALID_CURSOR_ARGUMENTS, UNPROCESSABLE, ...
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf makes an *Error.
func Errorf(typ, format string, args ...any) *Error {
	return &Error{Type: typ, Message: fmt.Sprintf(format, args...)}
}

// Schema is a loaded schema with its resolvers.
type Schema struct {
	AST       *ast.Schema
	resolvers map[string]Resolver // "Type.field"
	// TypeOf names the concrete object type of a value returned for an
	// interface or union field.
	TypeOf func(v any) string
	// Guard, when set, is asked before a field of an object type is
	// resolved (typ is the parent type: "Mutation" for a mutation); an
	// error it returns is that field's error for every parent, whose value
	// is then null even where the schema says non-null, as GitHub answers
	// a FORBIDDEN field, and the rest of the document resolves.
	Guard func(ctx context.Context, typ, field string) *Error
	// RequestID, when set, names the request in GitHub's error for a query
	// that failed or ran out of time.
	RequestID func(ctx context.Context) string
	rules     *validatorrules.Rules

	mu   sync.Mutex
	docs map[string]*ast.QueryDocument
}

// New loads the schema source.
func New(source string) (*Schema, error) {
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: source})
	if err != nil {
		return nil, err
	}
	sc := &Schema{AST: s, resolvers: map[string]Resolver{}, rules: validatorrules.NewDefaultRules(), docs: map[string]*ast.QueryDocument{}}
	// The merging rule is the engine's own (bounds.go): gqlparser's
	// compares fields pair by pair, quadratic in a response name's fields.
	sc.rules.RemoveRule("OverlappingFieldsCanBeMerged")
	sc.registerIntrospection()
	return sc, nil
}

// Resolve registers the resolver of typ.field.
func (s *Schema) Resolve(typ, field string, r Resolver) {
	d := s.AST.Types[typ]
	if d == nil || d.Fields.ForName(field) == nil {
		panic("graphql: no field " + typ + "." + field + " in the schema")
	}
	if _, dup := s.resolvers[typ+"."+field]; dup {
		panic("graphql: " + typ + "." + field + " resolved twice")
	}
	s.resolvers[typ+"."+field] = r
}

// Each adapts a per-parent function to a Resolver (for fields that need
// no batching: values already on the parent).
func Each(f func(ctx context.Context, parent any, args map[string]any) (any, error)) Resolver {
	return func(ctx context.Context, b *Batch) ([]any, error) {
		out := b.Values(len(b.Parents))
		for i, p := range b.Parents {
			v, err := f(ctx, p, b.Args)
			if err != nil {
				var e *Error
				if ok := asError(err, &e); ok {
					out[i] = e
					continue
				}
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

// EachBatch is Each for functions that also read the batch (the field's
// selection).
func EachBatch(f func(ctx context.Context, parent any, b *Batch) (any, error)) Resolver {
	return func(ctx context.Context, b *Batch) ([]any, error) {
		out := b.Values(len(b.Parents))
		for i, p := range b.Parents {
			v, err := f(ctx, p, b)
			if err != nil {
				var e *Error
				if ok := asError(err, &e); ok {
					out[i] = e
					continue
				}
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

// SelectsItems reports whether a connection field's selection asks for
// its items (nodes, edges or pageInfo) rather than only totalCount; a
// fragment spread counts as asking.
func SelectsItems(ss ast.SelectionSet) bool {
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			switch s.Name {
			case "nodes", "edges", "pageInfo":
				return true
			}
		case *ast.InlineFragment:
			if SelectsItems(s.SelectionSet) {
				return true
			}
		case *ast.FragmentSpread:
			return true
		}
	}
	return false
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

// Unresolved lists the fields of object types that have no resolver: the
// schema must promise exactly what is resolved (a test asserts it is empty).
func (s *Schema) Unresolved() []string {
	var out []string
	for name, d := range s.AST.Types {
		if d.Kind != ast.Object || strings.HasPrefix(name, "__") {
			continue
		}
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if _, ok := s.resolvers[name+"."+f.Name]; !ok {
				out = append(out, name+"."+f.Name)
			}
		}
	}
	return out
}

// Request is one GraphQL request.
type Request struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
}

// Response is what the transport writes.
type Response struct {
	Data   any          `json:"data"`
	Errors []*RespError `json:"errors,omitempty"`
}

// RespError is an error as GitHub writes it.
type RespError struct {
	Type       string         `json:"type,omitempty"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
	Locations  []Location     `json:"locations,omitempty"`
	Message    string         `json:"message"`
}

// Location is a position in the document.
type Location struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Prepared is a parsed and validated operation, ready to execute.
type Prepared struct {
	Doc  *ast.QueryDocument
	Op   *ast.OperationDefinition
	Vars map[string]any
}

// Prepare parses and validates a request. The errors come back as a
// Response ready to write (data absent, as GitHub answers them).
func (s *Schema) Prepare(req *Request) (*Prepared, *Response) {
	return s.PrepareContext(context.Background(), req)
}

// PrepareContext is Prepare that stops when ctx ends (the client hung up,
// or the request's time is over), answering GitHub's timeout error.
func (s *Schema) PrepareContext(ctx context.Context, req *Request) (*Prepared, *Response) {
	doc, bad := s.document(ctx, req.Query)
	if bad != nil {
		return nil, bad
	}
	var op *ast.OperationDefinition
	switch {
	case req.OperationName != "":
		op = doc.Operations.ForName(req.OperationName)
		if op == nil {
			return nil, &Response{Errors: []*RespError{{Message: fmt.Sprintf("No operation named %q", req.OperationName)}}}
		}
	case len(doc.Operations) == 1:
		op = doc.Operations[0]
	case len(doc.Operations) == 0:
		return nil, &Response{Errors: []*RespError{{Message: "No operations in query document"}}}
	default:
		return nil, &Response{Errors: []*RespError{{Message: "An operation name is required"}}}
	}
	vars, verr := validator.VariableValues(s.AST, op, req.Variables)
	if verr != nil {
		return nil, &Response{Errors: convertGQLErrors(gqlerror.List{toGQLError(verr)}, "")}
	}
	return &Prepared{Doc: doc, Op: op, Vars: vars}, nil
}

// document parses and validates a query, or takes it from the cache of
// valid documents (clients send the same few query texts again and again;
// a cached document is only read afterwards).
func (s *Schema) document(ctx context.Context, query string) (*ast.QueryDocument, *Response) {
	s.mu.Lock()
	doc := s.docs[query]
	s.mu.Unlock()
	if doc != nil {
		return doc, nil
	}
	doc, bad := s.parseAndValidate(ctx, query)
	if bad != nil {
		return nil, bad
	}
	if len(query) <= maxCachedQuery {
		s.mu.Lock()
		if len(s.docs) >= maxCachedDocs {
			clear(s.docs) // a new generation; hot queries come back at once
		}
		s.docs[query] = doc
		s.mu.Unlock()
	}
	return doc, nil
}

// parseAndValidate parses a query and validates it against the schema,
// within the bounds of bounds.go: the work it does is linear in the
// document's size, and it stops when ctx ends.
func (s *Schema) parseAndValidate(ctx context.Context, query string) (*ast.QueryDocument, *Response) {
	one := func(e *gqlerror.Error) *Response { return &Response{Errors: convertGQLErrors(gqlerror.List{e}, "")} }
	if len(query) > MaxDocumentBytes {
		return nil, one(gqlerror.Errorf(tooLarge))
	}
	doc, perr := parser.ParseQueryWithTokenLimit(&ast.Source{Name: "query", Input: query}, MaxTokens)
	if perr != nil {
		e := toGQLError(perr)
		if strings.HasPrefix(e.Message, "exceeded token limit") || strings.HasPrefix(e.Message, "exceeded maximum nesting depth") {
			e = &gqlerror.Error{Message: tooLarge, Locations: e.Locations}
		}
		return nil, one(e)
	}
	over, err := checkBounds(ctx, doc)
	if err != nil {
		return nil, s.timedOut(ctx)
	}
	if over != nil {
		return nil, one(over)
	}
	errs := validator.ValidateWithRules(s.AST, doc, s.rules)
	if ctx.Err() != nil {
		return nil, s.timedOut(ctx)
	}
	if len(errs) > 0 {
		return nil, &Response{Errors: convertGQLErrors(errs, "")}
	}
	// Fields merge in a document otherwise valid (no fragment cycle, every
	// field known).
	mg := &merger{ctx: ctx, frags: fragmentIndex(doc)}
	switch mg.check(doc) {
	case errCanceled:
		return nil, s.timedOut(ctx)
	case errTooLarge:
		return nil, one(gqlerror.Errorf(tooLarge))
	}
	if errs = mg.errs; len(errs) > 0 {
		return nil, &Response{Errors: convertGQLErrors(errs, "")}
	}
	return doc, nil
}

// fragmentIndex maps the document's fragments by name (the first of a
// name, as gqlparser's ForName finds it).
func fragmentIndex(doc *ast.QueryDocument) map[string]*ast.FragmentDefinition {
	m := make(map[string]*ast.FragmentDefinition, len(doc.Fragments))
	for _, f := range doc.Fragments {
		if _, dup := m[f.Name]; !dup {
			m[f.Name] = f
		}
	}
	return m
}

// TimeoutMessage is GitHub's answer to a query it stopped (its time was
// over or it failed inside), with the request id to quote.
func TimeoutMessage(requestID string) string {
	return "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please include `" + requestID + "` when reporting this issue."
}

// timedOut answers a request whose context ended: null data and GitHub's
// timeout error.
func (s *Schema) timedOut(ctx context.Context) *Response {
	return &Response{Errors: []*RespError{{Message: TimeoutMessage(s.requestID(ctx))}}}
}

func (s *Schema) requestID(ctx context.Context) string {
	if s.RequestID == nil {
		return ""
	}
	return s.RequestID(ctx)
}

// The document cache holds up to maxCachedDocs valid documents of at most
// maxCachedQuery bytes each.
const (
	maxCachedDocs  = 512
	maxCachedQuery = 16 << 10
)

func toGQLError(err error) *gqlerror.Error {
	if e, ok := err.(*gqlerror.Error); ok {
		return e
	}
	return gqlerror.Wrap(err)
}

func convertGQLErrors(errs gqlerror.List, typ string) []*RespError {
	out := make([]*RespError, 0, len(errs))
	for _, e := range errs {
		re := &RespError{Message: e.Message, Type: typ}
		for _, l := range e.Locations {
			re.Locations = append(re.Locations, Location{Line: l.Line, Column: l.Column})
		}
		for _, p := range e.Path {
			switch v := p.(type) {
			case ast.PathName:
				re.Path = append(re.Path, string(v))
			case ast.PathIndex:
				re.Path = append(re.Path, int(v))
			}
		}
		out = append(out, re)
	}
	return out
}

// Execute runs a prepared operation.
func (s *Schema) Execute(ctx context.Context, p *Prepared) *Response {
	var rootName string
	switch p.Op.Operation {
	case ast.Mutation:
		rootName = s.AST.Mutation.Name
	case ast.Subscription:
		return &Response{Errors: []*RespError{{Message: "Subscriptions are not supported"}}}
	default:
		rootName = s.AST.Query.Name
	}
	ex := &execution{s: s, vars: p.Vars, doc: p.Doc, ctx: ctx}
	rootDef := s.AST.Types[rootName]
	start := []*slot{ex.newSlot()}
	*start[0] = slot{value: rootValue{}, typ: rootDef, sels: []ast.SelectionSet{p.Op.SelectionSet}, out: start[0].out}
	root := start[0].out
	if p.Op.Operation == ast.Mutation {
		// Mutations run one root field at a time, in document order.
		fields := ex.collect(rootDef, start[0].sels)
		for _, cf := range fields {
			if ex.stopped(ctx) {
				break
			}
			ex.run(ctx, []*slot{start[0]}, []collected{cf})
		}
	} else {
		ex.run(ctx, start, nil)
	}
	if ex.canceled {
		// GitHub answers a query it stopped with no data, only its error.
		return s.timedOut(ctx)
	}
	data := finalize(root)
	if data == invalid {
		data = nil
	}
	return &Response{Data: data, Errors: ex.errs}
}

type rootValue struct{}

type execution struct {
	ctx context.Context // the request's, for the request id of errors
	s   *Schema
	// canceled is set once the request's context has ended: no resolver
	// runs after it.
	canceled bool
	vars     map[string]any
	doc      *ast.QueryDocument
	errs     []*RespError
	slab     []slotObject // where newSlot takes slots from
	anys     []any        // where values takes slices from
	lists    []list       // where newList takes lists from
}

// values returns a zeroed slice of n values from the arena (chunks that
// double up to 1024 values). Its capacity is its length: appending copies.
func (ex *execution) values(n int) []any {
	if cap(ex.anys)-len(ex.anys) < n {
		ex.anys = make([]any, 0, max(n, min(2*cap(ex.anys), 1024), 32))
	}
	start := len(ex.anys)
	ex.anys = ex.anys[:start+n]
	return ex.anys[start : start+n : start+n]
}

// newList returns a list of n zero items.
func (ex *execution) newList(n int, nonNull bool) *list {
	if len(ex.lists) == cap(ex.lists) {
		ex.lists = make([]list, 0, 16)
	}
	ex.lists = ex.lists[:len(ex.lists)+1]
	l := &ex.lists[len(ex.lists)-1]
	l.nonNull, l.items = nonNull, ex.values(n)
	return l
}

// slot is an object whose selection is still to resolve.
type slot struct {
	value any
	typ   *ast.Definition
	sels  []ast.SelectionSet
	out   *object
	// at is the object's place in the result; path points to it (nil for
	// the root).
	at   pathStep
	path *pathStep
}

// pathStep is one step of a result path: a response key, or a list index
// (key ""), after the steps of parent. Paths are linked backwards and made
// into a slice only for an error, so a field costs no allocation for its
// path.
type pathStep struct {
	parent *pathStep
	key    string
	index  int
}

// slice is the path as GitHub writes it: keys and indexes from the root.
func (p pathStep) slice() []any {
	n := 1
	for q := p.parent; q != nil; q = q.parent {
		n++
	}
	out := make([]any, n)
	for q := &p; q != nil; q = q.parent {
		n--
		if q.key == "" {
			out[n] = q.index
		} else {
			out[n] = q.key
		}
	}
	return out
}

// reserve makes room for n slots in one chunk (the objects of a list, or
// of one field over a group).
func (ex *execution) reserve(n int) {
	if cap(ex.slab)-len(ex.slab) < n {
		ex.slab = make([]slotObject, 0, max(n, 16))
	}
}

// slotObject is a slot with its result object, allocated together.
type slotObject struct {
	slot slot
	obj  object
}

// newSlot returns a zero slot whose out is a zero object. Slots come from
// chunks sized by reserve (a response of a few hundred objects costs a few
// allocations, not two per object).
func (ex *execution) newSlot() *slot {
	if len(ex.slab) == cap(ex.slab) {
		ex.slab = make([]slotObject, 0, 16)
	}
	ex.slab = ex.slab[:len(ex.slab)+1]
	so := &ex.slab[len(ex.slab)-1]
	so.slot.out = &so.obj
	return &so.slot
}

// object is a result object; keys keep the document's order.
type object struct {
	keys    []string
	vals    []any
	nonNull bool
}

// grow adds the keys of one selection to the object (set by index
// afterwards): an object takes the group's keys as they are, shared with
// the other objects of its group; the root object of a mutation, which
// receives one root field at a time, copies them.
func (o *object) grow(keys []string, vals []any) {
	if o.keys == nil {
		o.keys, o.vals = keys, vals
		return
	}
	o.keys = append(o.keys[:len(o.keys):len(o.keys)], keys...)
	o.vals = append(o.vals[:len(o.vals):len(o.vals)], vals...)
}

// MarshalJSON writes the keys in order.
func (o *object) MarshalJSON() ([]byte, error) { return o.appendJSON(make([]byte, 0, 256)) }

func (o *object) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	var err error
	for i, k := range o.keys {
		if i > 0 {
			b = append(b, ',')
		}
		// Response keys are GraphQL names ([_A-Za-z][_0-9A-Za-z]*): nothing
		// to escape.
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		if b, err = appendValue(b, o.vals[i]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case *object:
		return t.appendJSON(b)
	case *list:
		return t.appendJSON(b)
	case string:
		return appendString(b, t), nil
	case stringAt:
		return appendString(b, *t.p), nil
	case int64At:
		return strconv.AppendInt(b, *t.p, 10), nil
	case dateTime:
		b = append(b, '"')
		b = t.t.UTC().AppendFormat(b, "2006-01-02T15:04:05Z")
		return append(b, '"'), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(t), 10), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case []any:
		if t == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		var err error
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, x); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	vb, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, vb...), nil
}

// appendString writes s as a JSON string as encoding/json does (HTML characters escaped too).
func appendString(b []byte, s string) []byte { return jsonw.AppendString(b, s, true) }

type list struct {
	items   []any
	nonNull bool
	at      pathStep // the list's place, the parent of its items' paths
}

func (l *list) MarshalJSON() ([]byte, error) { return l.appendJSON(nil) }

func (l *list) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i, x := range l.items {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendValue(b, x); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// invalid marks a null in a non-null position; finalize propagates it to
// the nearest nullable parent.
var invalid = &struct{ x int }{}

func finalize(v any) any {
	switch t := v.(type) {
	case *object:
		for i, c := range t.vals {
			f := finalize(c)
			if f == invalid {
				if t.nonNull {
					return invalid
				}
				return nil
			}
			t.vals[i] = f
		}
		return t
	case *list:
		for i, c := range t.items {
			f := finalize(c)
			if f == invalid {
				if t.nonNull {
					return invalid
				}
				return nil
			}
			t.items[i] = f
		}
		return t
	}
	return v
}

type collected struct {
	key    string
	fields []*ast.Field
}

// collect gathers the fields a selection selects on an object type,
// following fragments and @skip/@include, merged by response key.
func (ex *execution) collect(typ *ast.Definition, sels []ast.SelectionSet) []collected {
	c := collector{ex: ex, typ: typ}
	for _, ss := range sels {
		c.walk(ss)
	}
	return c.out
}

// collector is the state of one collect (selections hold few fields and
// fragments: lists are searched).
type collector struct {
	ex      *execution
	typ     *ast.Definition
	out     []collected
	visited []string // fragments spread already
	buf     []*ast.Field
	index   map[string]int // of out's keys, once out is long (findKey)
}

// collectIndexAt is the number of keys from which collect indexes them.
const collectIndexAt = 32

func (c *collector) walk(ss ast.SelectionSet) {
	ex := c.ex
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			if !ex.included(s.Directives) {
				continue
			}
			k := s.Alias
			if k == "" {
				k = s.Name
			}
			at := findKey(c.out, c.index, k)
			if at >= 0 {
				c.out[at].fields = append(c.out[at].fields, s)
			} else {
				// One backing array for the fields of every key; a merge
				// copies (the capacity stops at one).
				if len(c.buf) == cap(c.buf) {
					c.buf = make([]*ast.Field, 0, 16)
				}
				c.buf = append(c.buf, s)
				n := len(c.buf)
				if c.out == nil {
					c.out = make([]collected, 0, 8)
				}
				c.out = append(c.out, collected{key: k, fields: c.buf[n-1 : n : n]})
				c.index = indexKey(c.out, c.index)
			}
		case *ast.InlineFragment:
			if !ex.included(s.Directives) || !ex.applies(s.TypeCondition, c.typ) {
				continue
			}
			c.walk(s.SelectionSet)
		case *ast.FragmentSpread:
			if !ex.included(s.Directives) || slices.Contains(c.visited, s.Name) {
				continue
			}
			f := ex.doc.Fragments.ForName(s.Name)
			if f == nil || !ex.applies(f.TypeCondition, c.typ) {
				continue
			}
			c.visited = append(c.visited, s.Name)
			c.walk(f.SelectionSet)
		}
	}
}

// keyed is a list of response keys (collected fields, groups of fields),
// searched while it is short and indexed by key once it is long: a
// selection of thousands of aliases costs linear time, one of a few no map.
type keyed interface{ responseKey() string }

func (c collected) responseKey() string { return c.key }

// findKey returns the place of key k in items, or -1.
func findKey[T keyed](items []T, index map[string]int, k string) int {
	if index != nil {
		if i, ok := index[k]; ok {
			return i
		}
		return -1
	}
	for i := range items {
		if items[i].responseKey() == k {
			return i
		}
	}
	return -1
}

// indexKey records the key just appended to items in index, making the
// index once items reach collectIndexAt; it returns the index.
func indexKey[T keyed](items []T, index map[string]int) map[string]int {
	last := len(items) - 1
	switch {
	case index != nil:
		index[items[last].responseKey()] = last
	case len(items) == collectIndexAt:
		index = make(map[string]int, 2*collectIndexAt)
		for i := range items {
			index[items[i].responseKey()] = i
		}
	}
	return index
}

func (ex *execution) applies(cond string, typ *ast.Definition) bool {
	if cond == "" || cond == typ.Name {
		return true
	}
	d := ex.s.AST.Types[cond]
	if d == nil {
		return false
	}
	for _, pt := range ex.s.AST.GetPossibleTypes(d) {
		if pt.Name == typ.Name {
			return true
		}
	}
	return false
}

func (ex *execution) included(dirs ast.DirectiveList) bool {
	if d := dirs.ForName("skip"); d != nil {
		if v, _ := d.ArgumentMap(ex.vars)["if"].(bool); v {
			return false
		}
	}
	if d := dirs.ForName("include"); d != nil {
		if v, _ := d.ArgumentMap(ex.vars)["if"].(bool); !v {
			return false
		}
	}
	return true
}

// run resolves slots level by level. only, when given, restricts the first
// level to those root fields (mutations).
func (ex *execution) run(ctx context.Context, level []*slot, only []collected) {
	for len(level) > 0 {
		var next []*slot
		for _, same := range groupSlots(level) {
			if ex.stopped(ctx) {
				return
			}
			fields := only
			if fields == nil {
				fields = ex.collect(same[0].typ, same[0].sels)
			}
			next = append(next, ex.resolveGroup(ctx, same, fields)...)
		}
		only = nil
		level = next
	}
}

// stopped reports whether the request's context has ended (the client hung
// up, or its time is over), remembering it.
func (ex *execution) stopped(ctx context.Context) bool {
	if !ex.canceled && ctx.Err() != nil {
		ex.canceled = true
	}
	return ex.canceled
}

// groupSlots groups the slots that share a type and a selection, in the
// order they come (a level has few groups: a list is searched).
func groupSlots(slots []*slot) [][]*slot {
	one := true
	for _, sl := range slots[1:] {
		if sl.typ != slots[0].typ || !sameSels(slots[0].sels, sl.sels) {
			one = false
			break
		}
	}
	if one {
		return [][]*slot{slots}
	}
	var out [][]*slot
outer:
	for _, sl := range slots {
		for i, g := range out {
			if g[0].typ == sl.typ && sameSels(g[0].sels, sl.sels) {
				out[i] = append(out[i], sl)
				continue outer
			}
		}
		out = append(out, []*slot{sl})
	}
	return out
}

func sameSels(a, b []ast.SelectionSet) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) || (len(a[i]) > 0 && a[i][0] != b[i][0]) {
			return false
		}
	}
	return true
}

func (ex *execution) resolveGroup(ctx context.Context, slots []*slot, fields []collected) []*slot {
	typ := slots[0].typ
	var next []*slot
	parents := ex.values(len(slots))
	// The objects of the group share one slice of keys and one backing
	// array of values; a field's value goes to vals[len(vals)-n+j].
	n := len(fields)
	keys := make([]string, n)
	for j, cf := range fields {
		keys[j] = cf.key
	}
	vals := ex.values(len(slots) * n)
	for i, sl := range slots {
		parents[i] = sl.value
		sl.out.grow(keys, vals[i*n:(i+1)*n:(i+1)*n])
	}
	set := func(sl *slot, j int, v any) { sl.out.vals[len(sl.out.vals)-n+j] = v }
	for j, cf := range fields {
		f := cf.fields[0]
		if f.Name == "__typename" {
			for _, sl := range slots {
				set(sl, j, typ.Name)
			}
			continue
		}
		def := f.Definition // set by validation, for the type it was selected on
		if f.ObjectDefinition != typ || def == nil || def.Name != f.Name {
			def = typ.Fields.ForName(f.Name)
		}
		if def == nil {
			switch f.Name {
			case "__schema", "__type":
				def = ex.s.AST.Query.Fields.ForName(f.Name)
			}
		}
		if def == nil {
			continue // the value stays null
		}
		var subs []ast.SelectionSet
		for _, fa := range cf.fields {
			if len(fa.SelectionSet) > 0 {
				subs = append(subs, fa.SelectionSet)
			}
		}
		if ex.stopped(ctx) {
			return nil
		}
		if ex.s.Guard != nil {
			if gerr := ex.s.Guard(ctx, typ.Name, f.Name); gerr != nil {
				for _, sl := range slots {
					ex.fail(gerr, f, pathStep{parent: sl.path, key: cf.key})
					set(sl, j, nil)
				}
				continue
			}
		}
		res := ex.s.resolvers[typ.Name+"."+f.Name]
		var got []any
		var err error
		if res == nil {
			err = fmt.Errorf("graphql: no resolver for %s.%s", typ.Name, f.Name)
		} else {
			b := &Batch{Parents: parents, Field: f, Def: def, ex: ex}
			if len(f.Arguments) > 0 || len(def.Arguments) > 0 {
				b.Args = f.ArgumentMap(ex.vars)
			}
			got, err = safeResolve(ctx, res, b)
			if err == nil && len(got) != len(parents) {
				err = fmt.Errorf("graphql: %s.%s answered %d values for %d parents", typ.Name, f.Name, len(got), len(parents))
			}
		}
		named := ex.s.AST.Types[def.Type.Name()]
		if named != nil && named.Kind != ast.Scalar && named.Kind != ast.Enum && def.Type.Elem == nil {
			ex.reserve(len(slots))
		}
		for i, sl := range slots {
			at := pathStep{parent: sl.path, key: cf.key}
			var v any
			if err != nil {
				v = ex.fail(err, f, at)
			} else {
				v = got[i]
			}
			set(sl, j, ex.complete(def.Type, named, v, f, subs, at, &next))
		}
	}
	return next
}

func safeResolve(ctx context.Context, r Resolver, b *Batch) (vals []any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("graphql: panic in %s: %v", b.Field.Name, p)
		}
	}()
	return r(ctx, b)
}

// InternalError is set by the transport to log unexpected errors; the
// client sees GitHub's generic message.
var InternalError = func(ctx context.Context, err error) {}

type failed struct{ err *RespError }

func (ex *execution) fail(err error, f *ast.Field, at pathStep) any {
	re := &RespError{Path: at.slice()}
	if f.Position != nil {
		re.Locations = []Location{{Line: f.Position.Line, Column: f.Position.Column}}
	}
	if e, ok := err.(*Error); ok {
		re.Type, re.Message = e.Type, e.Message
		if e.Type == "FORBIDDEN" {
			// GitHub says whether SAML single sign-on refused it (hubd has
			// none): {"saml_failure": false} on every FORBIDDEN error.
			re.Extensions = map[string]any{"saml_failure": false}
		}
	} else {
		if ex.ctx.Err() == nil { // an ended request's errors are not the server's
			InternalError(ex.ctx, err)
		}
		re.Message = TimeoutMessage(ex.s.requestID(ex.ctx))
	}
	ex.errs = append(ex.errs, re)
	return failed{re}
}

// complete turns a resolved value into its result for type t.
// d is the definition of t's named type (the same at every list depth).
func (ex *execution) complete(t *ast.Type, d *ast.Definition, v any, f *ast.Field, subs []ast.SelectionSet, at pathStep, next *[]*slot) any {
	if _, ok := v.(failed); ok {
		if t.NonNull {
			return invalid
		}
		return nil
	}
	if e, ok := v.(*Error); ok {
		ex.fail(e, f, at)
		if t.NonNull {
			return invalid
		}
		return nil
	}
	if isNil(v) {
		if t.NonNull {
			return invalid
		}
		return nil
	}
	if t.Elem != nil {
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice {
			ex.fail(fmt.Errorf("graphql: %s: list expected, got %T", f.Name, v), f, at)
			if t.NonNull {
				return invalid
			}
			return nil
		}
		l := ex.newList(rv.Len(), t.NonNull)
		if t.Elem.Elem == nil && d.Kind != ast.Scalar && d.Kind != ast.Enum {
			ex.reserve(rv.Len())
		}
		l.at = at
		for i := 0; i < rv.Len(); i++ {
			l.items[i] = ex.complete(t.Elem, d, rv.Index(i).Interface(), f, subs, pathStep{parent: &l.at, index: i}, next)
		}
		return l
	}
	if d.Kind == ast.Scalar || d.Kind == ast.Enum {
		// Optional values come as pointers (*string descriptions);
		// serializeScalar keeps *string and *time.Time as they are.
		switch v.(type) {
		case string, bool, int, int64, *string, *int64, *time.Time:
		default:
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
				v = rv.Elem().Interface()
			}
		}
	}
	switch d.Kind {
	case ast.Scalar:
		out, err := serializeScalar(d.Name, v)
		if err != nil {
			// A pointer kept for writing in place that the scalar does not
			// take so (a *string for a DateTime): its value then.
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
				out, err = serializeScalar(d.Name, rv.Elem().Interface())
			}
		}
		if err != nil {
			ex.fail(err, f, at)
			if t.NonNull {
				return invalid
			}
			return nil
		}
		return out
	case ast.Enum:
		s, ok := v.(string)
		if p, isPtr := v.(*string); isPtr {
			s, ok = *p, true
			v = s
		}
		if !ok {
			s = fmt.Sprint(v)
			v = s
		}
		if d.EnumValues.ForName(s) == nil {
			ex.fail(fmt.Errorf("graphql: %q is not a value of %s", s, d.Name), f, at)
			if t.NonNull {
				return invalid
			}
			return nil
		}
		return v
	}
	concrete := d
	if d.Kind != ast.Object {
		name := ""
		if ex.s.TypeOf != nil {
			name = ex.s.TypeOf(v)
		}
		concrete = ex.s.AST.Types[name]
		if concrete == nil || !ex.applies(d.Name, concrete) && d.Name != concrete.Name {
			ex.fail(fmt.Errorf("graphql: %s: no object type for %T", d.Name, v), f, at)
			if t.NonNull {
				return invalid
			}
			return nil
		}
	}
	sl := ex.newSlot()
	sl.value, sl.typ, sl.sels, sl.at = v, concrete, subs, at
	sl.path = &sl.at
	sl.out.nonNull = t.NonNull
	*next = append(*next, sl)
	return sl.out
}

// Scalars written from where they are (an interface holding a struct of one
// pointer needs no allocation): the values they point to are the store's
// rows, which nothing changes while a response is written.
type (
	stringAt struct{ p *string }
	int64At  struct{ p *int64 }
	dateTime struct{ t *time.Time }
)

func isNil(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string, bool, int, int64:
		return false
	case *string:
		return t == nil
	case *int64:
		return t == nil
	case *time.Time:
		return t == nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface:
		return rv.IsNil()
	case reflect.Slice:
		return rv.IsNil()
	}
	return false
}

func serializeScalar(name string, v any) (any, error) {
	switch name {
	case "Int":
		switch n := v.(type) {
		case int, int32:
			return v, nil
		case int64:
			if n > 1<<31-1 || n < -(1<<31) {
				return nil, fmt.Errorf("graphql: Int out of range: %d", n)
			}
			return v, nil
		case *int64:
			if *n > 1<<31-1 || *n < -(1<<31) {
				return nil, fmt.Errorf("graphql: Int out of range: %d", *n)
			}
			return int64At{n}, nil
		}
	case "Float":
		switch n := v.(type) {
		case float64:
			return n, nil
		case int, int64:
			return n, nil
		}
	case "Boolean":
		if _, ok := v.(bool); ok {
			return v, nil
		}
	case "DateTime", "Date", "PreciseDateTime":
		switch t := v.(type) {
		case time.Time:
			if name == "Date" {
				return t.UTC().Format("2006-01-02"), nil
			}
			return t.UTC().Format("2006-01-02T15:04:05Z"), nil
		case *time.Time:
			if t == nil {
				return nil, nil
			}
			if name == "Date" {
				return t.UTC().Format("2006-01-02"), nil
			}
			return dateTime{t}, nil
		case string:
			return t, nil
		}
	case "BigInt":
		switch n := v.(type) {
		case int64:
			return fmt.Sprint(n), nil
		case int:
			return fmt.Sprint(n), nil
		case string:
			return n, nil
		}
	default: // String, ID, URI, HTML, GitObjectID, GitRefname, ...
		switch s := v.(type) {
		case string:
			return v, nil
		case *string:
			return stringAt{s}, nil
		case fmt.Stringer:
			return s.String(), nil
		case int64:
			if name == "ID" {
				return fmt.Sprint(s), nil
			}
		}
	}
	return nil, fmt.Errorf("graphql: cannot serialize %T as %s", v, name)
}

// AppendJSON writes the response as GitHub does, {"data":...,"errors":[...]},
// in one pass over the result tree.
func (r *Response) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"data":`...)
	b, err := appendValue(b, r.Data)
	if err != nil {
		return nil, err
	}
	if len(r.Errors) > 0 {
		eb, err := json.Marshal(r.Errors)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"errors":`...), eb...)
	}
	return append(b, '}', '\n'), nil
}
