package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSchemaIsCurrent: the committed schema.graphql is what keep.txt and
// GitHub's schema make (run `make graphql-schema` after changing keep.txt).
func TestSchemaIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	src := filepath.Join(root, "node_modules", "@octokit", "graphql-schema", "schema.graphql")
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("GitHub's schema is not installed (make deps): %v", err)
	}
	out, err := Generate(src, filepath.Join(root, "internal", "graphql"))
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join(root, "internal", "graphql", "schema.graphql"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, out) {
		t.Fatal("internal/graphql/schema.graphql is stale: run `make graphql-schema`")
	}
}

func TestSplitEntries(t *testing.T) {
	got := splitEntries("A.b  C.d(x y)\tE.f")
	want := []string{"A.b", "C.d(x y)", "E.f"}
	if len(got) != len(want) {
		t.Fatalf("%q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%q", got)
		}
	}
}
