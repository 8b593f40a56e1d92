package engine

import (
	"context"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"time"
)

const testSchema = `
schema { query: Query mutation: Mutation }
type Query {
	items: [Item]
	strict: [Item!]
	text: String
	count: Int!
}
type Mutation {
	first: Item
	second: Item
}
type Item {
	id: Int!
	name: String!
	title: String
	number: Int
	updatedAt: DateTime
	stamp: DateTime
	key: ID
	kind: Kind!
	tags: [Tag!]!
	fail: String
	mustFail: String!
}
type Tag { name: String! }
enum Kind { SMALL LARGE }
scalar DateTime
`

type item struct {
	id      int
	name    string
	number  int64
	updated time.Time
}

// testEngine is a schema whose resolvers record how often they are called.
func testEngine(t *testing.T) (*Schema, map[string]int) {
	t.Helper()
	s, err := New(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("x", 3600))
	items := []any{&item{1, "one", 11, at}, &item{2, "two", 1 << 40, at}, &item{3, "three", 33, at}}
	list := func(name string) Resolver {
		return func(_ context.Context, b *Batch) ([]any, error) {
			calls[name]++
			out := make([]any, len(b.Parents))
			for i := range out {
				out[i] = items
			}
			return out, nil
		}
	}
	s.Resolve("Query", "items", list("items"))
	s.Resolve("Query", "strict", list("strict"))
	s.Resolve("Query", "text", Each(func(context.Context, any, map[string]any) (any, error) {
		return "quote \" back \\ <b>&amp; \u2028 \x01 tab\t é \xff end", nil
	}))
	s.Resolve("Query", "count", Each(func(context.Context, any, map[string]any) (any, error) { return int64(3), nil }))
	mut := func(name string, it *item) Resolver {
		return func(_ context.Context, b *Batch) ([]any, error) {
			calls[name]++
			return []any{it}, nil
		}
	}
	s.Resolve("Mutation", "first", mut("first", &item{id: 10, name: "ten"}))
	s.Resolve("Mutation", "second", mut("second", &item{id: 20, name: "twenty"}))
	field := func(name string, f func(it *item) (any, error)) {
		s.Resolve("Item", name, func(_ context.Context, b *Batch) ([]any, error) {
			calls["Item."+name]++
			out := make([]any, len(b.Parents))
			for i, p := range b.Parents {
				v, err := f(p.(*item))
				if err != nil {
					out[i] = err
					continue
				}
				out[i] = v
			}
			return out, nil
		})
	}
	field("id", func(it *item) (any, error) { return it.id, nil })
	// Pointers into the values: written in place where the scalar allows,
	// read through otherwise.
	field("title", func(it *item) (any, error) { return &it.name, nil })
	field("number", func(it *item) (any, error) { return &it.number, nil })
	field("updatedAt", func(it *item) (any, error) { return &it.updated, nil })
	field("stamp", func(it *item) (any, error) { s := "2020-01-02T03:04:05Z"; return &s, nil })
	field("key", func(it *item) (any, error) { return &it.number, nil })
	field("name", func(it *item) (any, error) { return it.name, nil })
	field("kind", func(it *item) (any, error) {
		if it.id > 2 {
			return "LARGE", nil
		}
		return "SMALL", nil
	})
	field("tags", func(it *item) (any, error) {
		return []string{it.name + "-a", it.name + "-b"}, nil
	})
	field("fail", func(it *item) (any, error) {
		if it.id == 2 {
			return nil, Errorf("NOT_FOUND", "no fail for %d", it.id)
		}
		return "ok", nil
	})
	field("mustFail", func(it *item) (any, error) {
		if it.id == 2 {
			return nil, Errorf("FORBIDDEN", "must fail")
		}
		return "fine", nil
	})
	s.Resolve("Tag", "name", Each(func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(string), nil }))
	return s, calls
}

func run(t *testing.T, s *Schema, query string) (string, *Response) {
	t.Helper()
	p, bad := s.Prepare(&Request{Query: query})
	if bad != nil {
		t.Fatalf("prepare: %+v", bad.Errors[0])
	}
	resp := s.Execute(context.Background(), p)
	b, err := resp.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("invalid JSON: %s", b)
	}
	if resp.Data != nil {
		// Every answer has the shape the document asks for.
		var data struct{ Data any }
		if err := json.Unmarshal(b, &data); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckResponse(p, data.Data); err != nil {
			t.Fatalf("%v in %s", err, b)
		}
	}
	return string(b), resp
}

// The executor resolves each field once for all parents, writes keys in
// the document's order (aliases, fragments, __typename) and scalars as
// encoding/json would.
func TestExecuteBatchesAndWrites(t *testing.T) {
	s, calls := testEngine(t)
	got, resp := run(t, s, `query { count items { __typename id label: name ...f tags { name } } }
		fragment f on Item { kind id }`)
	want := `{"data":{"count":3,"items":[` +
		`{"__typename":"Item","id":1,"label":"one","kind":"SMALL","tags":[{"name":"one-a"},{"name":"one-b"}]},` +
		`{"__typename":"Item","id":2,"label":"two","kind":"SMALL","tags":[{"name":"two-a"},{"name":"two-b"}]},` +
		`{"__typename":"Item","id":3,"label":"three","kind":"LARGE","tags":[{"name":"three-a"},{"name":"three-b"}]}]}}` + "\n"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if len(resp.Errors) != 0 {
		t.Fatalf("errors: %+v", resp.Errors[0])
	}
	for _, f := range []string{"items", "Item.id", "Item.name", "Item.kind", "Item.tags"} {
		if calls[f] != 1 {
			t.Errorf("%s resolved %d times, want once for all parents", f, calls[f])
		}
	}
	// The same document again (from the document cache) answers the same.
	if again, _ := run(t, s, `query { count items { __typename id label: name ...f tags { name } } }
		fragment f on Item { kind id }`); again != want {
		t.Fatalf("second run: %s", again)
	}
}

// A field's error carries its path through lists; a null in a non-null
// field nulls the nearest nullable parent.
func TestExecuteErrorPaths(t *testing.T) {
	s, _ := testEngine(t)
	got, resp := run(t, s, `{ items { id fail } }`)
	if want := `{"data":{"items":[{"id":1,"fail":"ok"},{"id":2,"fail":null},{"id":3,"fail":"ok"}]},` +
		`"errors":[{"type":"NOT_FOUND","path":["items",1,"fail"],"locations":[{"line":1,"column":14}],"message":"no fail for 2"}]}` + "\n"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	got, resp = run(t, s, `{ items { id mustFail } }`)
	if want := `{"data":{"items":[{"id":1,"mustFail":"fine"},null,{"id":3,"mustFail":"fine"}]},`; !strings.HasPrefix(got, want) {
		t.Fatalf("got  %s\nwant %s...", got, want)
	}
	if len(resp.Errors) != 1 || len(resp.Errors[0].Path) != 3 || resp.Errors[0].Path[0] != "items" || resp.Errors[0].Path[1] != 1 || resp.Errors[0].Path[2] != "mustFail" {
		t.Fatalf("errors: %+v", resp.Errors)
	}
	// [Item!]: the null item nulls the whole list.
	got, _ = run(t, s, `{ strict { mustFail } text }`)
	if !strings.HasPrefix(got, `{"data":{"strict":null,"text":`) {
		t.Fatalf("strict: %s", got)
	}
}

// Scalars that resolvers return as pointers are written as their values;
// an Int out of range is an error for that field alone.
func TestExecutePointerScalars(t *testing.T) {
	s, _ := testEngine(t)
	got, resp := run(t, s, `{ items { title number updatedAt stamp key } }`)
	want := `{"data":{"items":[` +
		`{"title":"one","number":11,"updatedAt":"2024-05-06T06:08:09Z","stamp":"2020-01-02T03:04:05Z","key":"11"},` +
		`{"title":"two","number":null,"updatedAt":"2024-05-06T06:08:09Z","stamp":"2020-01-02T03:04:05Z","key":"1099511627776"},` +
		`{"title":"three","number":33,"updatedAt":"2024-05-06T06:08:09Z","stamp":"2020-01-02T03:04:05Z","key":"33"}]},`
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got  %s\nwant %s...", got, want)
	}
	if len(resp.Errors) != 1 || !strings.Contains(resp.Errors[0].Message, "Something went wrong") || resp.Errors[0].Path[1] != 1 {
		t.Fatalf("errors: %+v", *resp.Errors[0])
	}
}

// Mutation root fields run one at a time, in order, into one root object.
func TestExecuteMutationRoot(t *testing.T) {
	s, calls := testEngine(t)
	got, _ := run(t, s, `mutation { b: second { name } first { id name } }`)
	if want := `{"data":{"b":{"name":"twenty"},"first":{"id":10,"name":"ten"}}}` + "\n"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if calls["first"] != 1 || calls["second"] != 1 {
		t.Fatalf("calls: %v", calls)
	}
}

// Strings are written byte for byte as encoding/json writes them.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	s, _ := testEngine(t)
	got, _ := run(t, s, `{ text }`)
	want, _ := json.Marshal(map[string]any{"data": map[string]any{"text": "quote \" back \\ <b>&amp; \u2028 \x01 tab\t é \xff end"}})
	if got != string(want)+"\n" {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "é", "\"", "\\", "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "\xff", "\xe2\x80", "日本", "\U0001F600", " "}
	for n := 0; n < 2000; n++ {
		var b strings.Builder
		for k := r.Intn(12); k > 0; k-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		in := b.String()
		want, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, in); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", in, got, want)
		}
	}
}
