package engine

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// ghQueries returns gh's recorded queries (internal/graphql/testdata), the
// largest first, with the schema hubd serves.
func ghQueries(tb testing.TB) (*Schema, []string, []string) {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("..", "schema.graphql"))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(string(src))
	if err != nil {
		tb.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "gh-queries", "*.graphql"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no recorded queries: %v", err)
	}
	type q struct{ name, text string }
	var qs []q
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		qs = append(qs, q{filepath.Base(f), string(b)})
	}
	sort.Slice(qs, func(i, j int) bool { return len(qs[i].text) > len(qs[j].text) })
	var names, texts []string
	for _, x := range qs {
		names, texts = append(names, x.name), append(texts, x.text)
	}
	return s, names, texts
}

// BenchmarkValidateGhQueries parses and validates gh's five largest
// recorded queries (the document cache bypassed), the work a query costs
// the first time hubd sees it.
func BenchmarkValidateGhQueries(b *testing.B) {
	s, names, texts := ghQueries(b)
	for i := range min(5, len(texts)) {
		b.Run(names[i], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, bad := s.parseAndValidate(context.Background(), texts[i]); bad != nil {
					b.Fatalf("%s: %v", names[i], bad.Errors[0].Message)
				}
			}
		})
	}
}
