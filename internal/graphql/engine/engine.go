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
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	validatorrules "github.com/vektah/gqlparser/v2/validator/rules"
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
	rules  *validatorrules.Rules

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
		out := make([]any, len(b.Parents))
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
		out := make([]any, len(b.Parents))
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
	Type      string     `json:"type,omitempty"`
	Path      []any      `json:"path,omitempty"`
	Locations []Location `json:"locations,omitempty"`
	Message   string     `json:"message"`
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
	doc, bad := s.document(req.Query)
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
func (s *Schema) document(query string) (*ast.QueryDocument, *Response) {
	s.mu.Lock()
	doc := s.docs[query]
	s.mu.Unlock()
	if doc != nil {
		return doc, nil
	}
	doc, perr := parser.ParseQuery(&ast.Source{Name: "query", Input: query})
	if perr != nil {
		return nil, &Response{Errors: convertGQLErrors(gqlerror.List{toGQLError(perr)}, "")}
	}
	errs := validator.ValidateWithRules(s.AST, doc, s.rules)
	errs = lenient(errs)
	if len(errs) > 0 {
		return nil, &Response{Errors: convertGQLErrors(errs, "")}
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

// The document cache holds up to maxCachedDocs valid documents of at most
// maxCachedQuery bytes each.
const (
	maxCachedDocs  = 512
	maxCachedQuery = 16 << 10
)

// lenient drops validation errors that GitHub does not raise: fields of
// the same response name in fragments on different object types may
// return different types (gh selects `state` on Issue and PullRequest,
// IssueState and PullRequestState, in one issueOrPullRequest).
func lenient(errs gqlerror.List) gqlerror.List {
	var out gqlerror.List
	for _, e := range errs {
		if e.Rule == "OverlappingFieldsCanBeMerged" && strings.Contains(e.Message, "conflicting types") {
			continue
		}
		out = append(out, e)
	}
	return out
}

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
	ex := &execution{s: s, vars: p.Vars, doc: p.Doc}
	root := &object{nonNull: false}
	rootDef := s.AST.Types[rootName]
	start := []*slot{{value: rootValue{}, typ: rootDef, sels: []ast.SelectionSet{p.Op.SelectionSet}, out: root}}
	if p.Op.Operation == ast.Mutation {
		// Mutations run one root field at a time, in document order.
		fields := ex.collect(rootDef, start[0].sels)
		for _, cf := range fields {
			ex.run(ctx, []*slot{start[0]}, []collected{cf})
		}
	} else {
		ex.run(ctx, start, nil)
	}
	data := finalize(root)
	if data == invalid {
		data = nil
	}
	return &Response{Data: data, Errors: ex.errs}
}

type rootValue struct{}

type execution struct {
	s    *Schema
	vars map[string]any
	doc  *ast.QueryDocument
	errs []*RespError
}

// slot is an object whose selection is still to resolve.
type slot struct {
	value any
	typ   *ast.Definition
	sels  []ast.SelectionSet
	out   *object
	path  []any
}

// object is a result object; keys keep the document's order.
type object struct {
	keys    []string
	vals    []any
	nonNull bool
}

func (o *object) set(k string, v any) {
	for i, have := range o.keys {
		if have == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
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
		kb, _ := json.Marshal(k)
		b = append(b, kb...)
		b = append(b, ':')
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

type list struct {
	items   []any
	nonNull bool
}

func (l *list) MarshalJSON() ([]byte, error) { return l.appendJSON(nil) }

func (l *list) appendJSON(b []byte) ([]byte, error) {
	if l.items == nil {
		return append(b, "[]"...), nil
	}
	return appendValue(b, l.items)
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
	var out []collected
	index := map[string]int{}
	visited := map[string]bool{}
	var walk func(ss ast.SelectionSet)
	walk = func(ss ast.SelectionSet) {
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
				if i, ok := index[k]; ok {
					out[i].fields = append(out[i].fields, s)
				} else {
					index[k] = len(out)
					out = append(out, collected{key: k, fields: []*ast.Field{s}})
				}
			case *ast.InlineFragment:
				if !ex.included(s.Directives) || !ex.applies(s.TypeCondition, typ) {
					continue
				}
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				if !ex.included(s.Directives) || visited[s.Name] {
					continue
				}
				f := ex.doc.Fragments.ForName(s.Name)
				if f == nil || !ex.applies(f.TypeCondition, typ) {
					continue
				}
				visited[s.Name] = true
				walk(f.SelectionSet)
			}
		}
	}
	for _, ss := range sels {
		walk(ss)
	}
	return out
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

type groupKey struct {
	typ   string
	first ast.Selection // the first selection set's first selection identifies the selection
	n     int
}

// run resolves slots level by level. only, when given, restricts the first
// level to those root fields (mutations).
func (ex *execution) run(ctx context.Context, level []*slot, only []collected) {
	for len(level) > 0 {
		if ctx.Err() != nil {
			ex.errs = append(ex.errs, &RespError{Message: "The request was canceled or timed out"})
			for _, sl := range level {
				sl.out.nonNull = false
			}
			return
		}
		// Group the slots that share a type and a selection.
		var order []groupKey
		groups := map[groupKey][]*slot{}
		for _, sl := range level {
			k := groupKey{typ: sl.typ.Name, n: len(sl.sels)}
			if len(sl.sels) > 0 && len(sl.sels[0]) > 0 {
				k.first = sl.sels[0][0]
			}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], sl)
		}
		var next []*slot
		for _, k := range order {
			slots := groups[k]
			// Slots of one group may still differ in their later selection
			// sets (the key looks at the first); split them exactly.
			for _, same := range splitBySels(slots) {
				fields := only
				if fields == nil {
					fields = ex.collect(same[0].typ, same[0].sels)
				}
				next = append(next, ex.resolveGroup(ctx, same, fields)...)
			}
		}
		only = nil
		level = next
	}
}

func splitBySels(slots []*slot) [][]*slot {
	var out [][]*slot
outer:
	for _, sl := range slots {
		for i, g := range out {
			if sameSels(g[0].sels, sl.sels) {
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
	parents := make([]any, len(slots))
	for i, sl := range slots {
		parents[i] = sl.value
	}
	for _, cf := range fields {
		f := cf.fields[0]
		if f.Name == "__typename" {
			for _, sl := range slots {
				sl.out.set(cf.key, typ.Name)
			}
			continue
		}
		def := typ.Fields.ForName(f.Name)
		if def == nil {
			switch f.Name {
			case "__schema", "__type":
				def = ex.s.AST.Query.Fields.ForName(f.Name)
			}
		}
		if def == nil {
			for _, sl := range slots {
				sl.out.set(cf.key, nil)
			}
			continue
		}
		var subs []ast.SelectionSet
		for _, fa := range cf.fields {
			if len(fa.SelectionSet) > 0 {
				subs = append(subs, fa.SelectionSet)
			}
		}
		res := ex.s.resolvers[typ.Name+"."+f.Name]
		var vals []any
		var err error
		if res == nil {
			err = fmt.Errorf("graphql: no resolver for %s.%s", typ.Name, f.Name)
		} else {
			b := &Batch{Parents: parents, Args: f.ArgumentMap(ex.vars), Field: f, Def: def}
			vals, err = safeResolve(ctx, res, b)
			if err == nil && len(vals) != len(parents) {
				err = fmt.Errorf("graphql: %s.%s answered %d values for %d parents", typ.Name, f.Name, len(vals), len(parents))
			}
		}
		for i, sl := range slots {
			path := appendPath(sl.path, cf.key)
			var v any
			if err != nil {
				v = ex.fail(err, f, path)
			} else {
				v = vals[i]
			}
			sl.out.set(cf.key, ex.complete(def.Type, v, f, subs, path, &next))
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

func (ex *execution) fail(err error, f *ast.Field, path []any) any {
	re := &RespError{Path: path}
	if f.Position != nil {
		re.Locations = []Location{{Line: f.Position.Line, Column: f.Position.Column}}
	}
	if e, ok := err.(*Error); ok {
		re.Type, re.Message = e.Type, e.Message
	} else {
		InternalError(context.Background(), err)
		re.Message = "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please include the request id when reporting this issue."
	}
	ex.errs = append(ex.errs, re)
	return failed{re}
}

func appendPath(p []any, k any) []any {
	out := make([]any, len(p), len(p)+1)
	copy(out, p)
	return append(out, k)
}

// complete turns a resolved value into its result for type t.
func (ex *execution) complete(t *ast.Type, v any, f *ast.Field, subs []ast.SelectionSet, path []any, next *[]*slot) any {
	if _, ok := v.(failed); ok {
		if t.NonNull {
			return invalid
		}
		return nil
	}
	if e, ok := v.(*Error); ok {
		ex.fail(e, f, path)
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
			ex.fail(fmt.Errorf("graphql: %s: list expected, got %T", f.Name, v), f, path)
			if t.NonNull {
				return invalid
			}
			return nil
		}
		l := &list{nonNull: t.NonNull, items: make([]any, rv.Len())}
		for i := 0; i < rv.Len(); i++ {
			l.items[i] = ex.complete(t.Elem, rv.Index(i).Interface(), f, subs, appendPath(path, i), next)
		}
		return l
	}
	d := ex.s.AST.Types[t.NamedType]
	if d.Kind == ast.Scalar || d.Kind == ast.Enum {
		// Optional values come as pointers (*string descriptions).
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
			v = rv.Elem().Interface()
		}
	}
	switch d.Kind {
	case ast.Scalar:
		out, err := serializeScalar(d.Name, v)
		if err != nil {
			ex.fail(err, f, path)
			if t.NonNull {
				return invalid
			}
			return nil
		}
		return out
	case ast.Enum:
		s := fmt.Sprint(v)
		if d.EnumValues.ForName(s) == nil {
			ex.fail(fmt.Errorf("graphql: %q is not a value of %s", s, d.Name), f, path)
			if t.NonNull {
				return invalid
			}
			return nil
		}
		return s
	}
	concrete := d
	if d.Kind != ast.Object {
		name := ""
		if ex.s.TypeOf != nil {
			name = ex.s.TypeOf(v)
		}
		concrete = ex.s.AST.Types[name]
		if concrete == nil || !ex.applies(d.Name, concrete) && d.Name != concrete.Name {
			ex.fail(fmt.Errorf("graphql: %s: no object type for %T", d.Name, v), f, path)
			if t.NonNull {
				return invalid
			}
			return nil
		}
	}
	o := &object{nonNull: t.NonNull}
	*next = append(*next, &slot{value: v, typ: concrete, sels: subs, out: o, path: path})
	return o
}

func isNil(v any) bool {
	if v == nil {
		return true
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
		case int:
			return n, nil
		case int32:
			return n, nil
		case int64:
			if n > 1<<31-1 || n < -(1<<31) {
				return nil, fmt.Errorf("graphql: Int out of range: %d", n)
			}
			return n, nil
		}
	case "Float":
		switch n := v.(type) {
		case float64:
			return n, nil
		case int, int64:
			return n, nil
		}
	case "Boolean":
		if b, ok := v.(bool); ok {
			return b, nil
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
			return t.UTC().Format("2006-01-02T15:04:05Z"), nil
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
			return s, nil
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
