package graphql_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// TestGitObjects: Repository.object by expression and by id answers a
// Blob (text, size, binary, truncation), a Tree with its entries and
// their objects, and a Commit; a path that does not exist is null.
func TestGitObjects(t *testing.T) {
	w := newWorld(t)
	e, tok := w.e, w.monaTok
	put := func(path string, content []byte) {
		e.Must(201, "PUT", "/repos/mona/app/contents/"+path, tok, map[string]any{"message": "Add " + path,
			"content": base64.StdEncoding.EncodeToString(content)})
	}
	put("docs/guide.md", []byte("# Guide\n"))
	put("docs/run.sh", []byte("#!/bin/sh\n"))
	put("logo.png", []byte{0x89, 'P', 'N', 'G', 0, 1, 2})
	head := e.Must(200, "GET", "/repos/mona/app/branches/main", tok, nil).Map(t)
	sha := dig(head, "commit", "sha").(string)

	q := `query($owner: String!, $name: String!, $expr: String!, $oid: GitObjectID) {
		repository(owner: $owner, name: $name) {
			file: object(expression: "main:docs/guide.md") { __typename ... on Blob { id oid abbreviatedOid byteSize text isBinary isTruncated } }
			logo: object(expression: "main:logo.png") { ... on Blob { byteSize text isBinary } }
			dir: object(expression: $expr) { __typename ... on Tree { oid entries { name path type mode oid extension
				object { __typename ... on Blob { byteSize text } } } } }
			commit: object(oid: $oid) { __typename oid ... on Commit { message committedDate tree { entries { name } } } }
			missing: object(expression: "main:nope.txt") { oid }
		}
	}`
	d := mustData(t, post(t, e, tok, q, map[string]any{"owner": "mona", "name": "app", "expr": "main:docs", "oid": sha}))
	repo := dig(d, "repository")
	if dig(repo, "file", "__typename") != "Blob" || dig(repo, "file", "text") != "# Guide\n" || fmt.Sprint(dig(repo, "file", "byteSize")) != "8" ||
		dig(repo, "file", "isBinary") != false || dig(repo, "file", "isTruncated") != false {
		t.Fatalf("file: %v", dig(repo, "file"))
	}
	if dig(repo, "logo", "text") != nil || dig(repo, "logo", "isBinary") != true || fmt.Sprint(dig(repo, "logo", "byteSize")) != "7" {
		t.Fatalf("logo: %v", dig(repo, "logo"))
	}
	entries, _ := dig(repo, "dir", "entries").([]any)
	if dig(repo, "dir", "__typename") != "Tree" || len(entries) != 2 {
		t.Fatalf("dir: %v", dig(repo, "dir"))
	}
	g := entries[0]
	if dig(g, "name") != "guide.md" || dig(g, "path") != "docs/guide.md" || dig(g, "type") != "blob" ||
		fmt.Sprint(dig(g, "mode")) != "33188" || dig(g, "extension") != ".md" || dig(g, "object", "text") != "# Guide\n" {
		t.Fatalf("entry: %v", g)
	}
	if dig(repo, "commit", "__typename") != "Commit" || dig(repo, "commit", "oid") != sha ||
		!strings.HasPrefix(dig(repo, "commit", "message").(string), "Add logo.png") {
		t.Fatalf("commit: %v", dig(repo, "commit"))
	}
	names := []string{}
	for _, en := range dig(repo, "commit", "tree", "entries").([]any) {
		names = append(names, dig(en, "name").(string))
	}
	if strings.Join(names, ",") != "README.md,docs,logo.png" {
		t.Fatalf("root tree: %v", names)
	}
	if v, ok := repo.(map[string]any)["missing"]; !ok || v != nil {
		t.Fatalf("missing: %v", repo)
	}
	// A fine-grained token reads objects with contents: read only, as
	// REST's git database reads.
	for _, c := range []struct {
		perms  map[string]string
		denied bool
	}{{map[string]string{"issues": "read"}, true}, {map[string]string{"contents": "read"}, false}} {
		var pat struct {
			Token string `json:"token"`
		}
		e.Must(201, "POST", "/admin/users/mona/personal-access-tokens", tok, map[string]any{"name": "objects " + fmt.Sprint(c.perms),
			"repositories": []string{"app"}, "permissions": c.perms}).JSON(t, &pat)
		r := post(t, e, pat.Token, `{ repository(owner: "mona", name: "app") { name object(expression: "main:docs/guide.md") { oid } } }`, nil)
		if c.denied {
			forbiddenAt(t, r, "Resource not accessible by personal access token", "repository", "object")
		} else if dig(mustData(t, r), "repository", "object", "oid") == nil {
			t.Fatalf("contents: read: %s", r.Raw)
		}
	}
	// A private repository's objects are the viewer's only.
	r := post(t, e, w.strTok, `{ repository(owner: "mona", name: "secret") { object(expression: "HEAD") { oid } } }`, nil)
	if len(r.Errors) == 0 || r.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("stranger: %s", r.Raw)
	}
}

// TestRefsByTagCommitDate is Renovate's tag list: refs(refPrefix:
// "refs/tags/", orderBy: {field: TAG_COMMIT_DATE, direction: DESC}) with
// commits and annotated tags as targets, paged by cursor.
func TestRefsByTagCommitDate(t *testing.T) {
	w := newWorld(t)
	e, tok := w.e, w.monaTok
	head := e.Must(200, "GET", "/repos/mona/app/branches/main", tok, nil).Map(t)
	tree := dig(head, "commit", "commit", "tree", "sha").(string)
	parent := dig(head, "commit", "sha").(string)
	commit := func(msg, date string) string {
		who := map[string]any{"name": "Mona", "email": "mona@example.com", "date": date}
		c := e.Must(201, "POST", "/repos/mona/app/git/commits", tok, map[string]any{"message": msg, "tree": tree,
			"parents": []string{parent}, "author": who, "committer": who}).Map(t)
		parent = c["sha"].(string)
		return parent
	}
	old, newer, mid := commit("old", "2020-01-01T00:00:00Z"), commit("new", "2022-01-01T00:00:00Z"), commit("mid", "2021-01-01T00:00:00Z")
	e.Must(201, "POST", "/repos/mona/app/git/refs", tok, map[string]any{"ref": "refs/tags/a-old", "sha": old})
	e.Must(201, "POST", "/repos/mona/app/git/refs", tok, map[string]any{"ref": "refs/tags/b-new", "sha": newer})
	tag := e.Must(201, "POST", "/repos/mona/app/git/tags", tok, map[string]any{"tag": "c-mid", "message": "Middle release\n",
		"object": mid, "type": "commit", "tagger": map[string]any{"name": "Mona", "email": "mona@example.com", "date": "2024-01-01T00:00:00Z"}}).Map(t)
	e.Must(201, "POST", "/repos/mona/app/git/refs", tok, map[string]any{"ref": "refs/tags/c-mid", "sha": tag["sha"]})

	q := `query($cursor: String, $order: RefOrder, $query: String) {
		repository(owner: "mona", name: "app") {
			refs(first: 2, after: $cursor, refPrefix: "refs/tags/", orderBy: $order, query: $query) {
				totalCount
				nodes { name prefix target { __typename oid ... on Commit { committedDate }
					... on Tag { name message target { ... on Commit { oid committedDate } } } } }
				pageInfo { hasNextPage endCursor }
			}
		}
	}`
	page := func(vars map[string]any) ([]string, map[string]any) {
		t.Helper()
		d := mustData(t, post(t, e, tok, q, vars))
		refs := dig(d, "repository", "refs").(map[string]any)
		var names []string
		for _, n := range refs["nodes"].([]any) {
			names = append(names, dig(n, "name").(string))
		}
		return names, refs
	}
	byDate := map[string]any{"field": "TAG_COMMIT_DATE", "direction": "DESC"}
	names, refs := page(map[string]any{"order": byDate})
	if strings.Join(names, ",") != "b-new,c-mid" || fmt.Sprint(refs["totalCount"]) != "3" || dig(refs, "pageInfo", "hasNextPage") != true {
		t.Fatalf("first page: %v %v", names, refs)
	}
	midRef := refs["nodes"].([]any)[1]
	if dig(midRef, "prefix") != "refs/tags/" || dig(midRef, "target", "__typename") != "Tag" || dig(midRef, "target", "message") != "Middle release\n" ||
		dig(midRef, "target", "target", "oid") != mid || dig(midRef, "target", "target", "committedDate") != "2021-01-01T00:00:00Z" {
		t.Fatalf("annotated tag: %v", midRef)
	}
	if dig(refs["nodes"].([]any)[0], "target", "committedDate") != "2022-01-01T00:00:00Z" {
		t.Fatalf("lightweight tag: %v", refs["nodes"])
	}
	names, refs = page(map[string]any{"order": byDate, "cursor": dig(refs, "pageInfo", "endCursor")})
	if strings.Join(names, ",") != "a-old" || dig(refs, "pageInfo", "hasNextPage") != false {
		t.Fatalf("second page: %v %v", names, refs)
	}
	names, _ = page(map[string]any{"order": map[string]any{"field": "ALPHABETICAL", "direction": "ASC"}})
	if strings.Join(names, ",") != "a-old,b-new" {
		t.Fatalf("alphabetical: %v", names)
	}
	names, _ = page(map[string]any{"query": "mid"})
	if strings.Join(names, ",") != "c-mid" {
		t.Fatalf("query: %v", names)
	}
	// ref(qualifiedName:) by short and full name.
	d := mustData(t, post(t, e, tok, `{ repository(owner: "mona", name: "app") {
		a: ref(qualifiedName: "c-mid") { name prefix target { oid } }
		b: ref(qualifiedName: "refs/heads/main") { name prefix }
		c: ref(qualifiedName: "nope") { name } } }`, nil))
	if dig(d, "repository", "a", "prefix") != "refs/tags/" || dig(d, "repository", "a", "target", "oid") != tag["sha"] ||
		dig(d, "repository", "b", "name") != "main" || dig(d, "repository", "c") != nil {
		t.Fatalf("ref: %v", d)
	}
	r := post(t, e, tok, `{ repository(owner: "mona", name: "app") { refs(first: 1, refPrefix: "tags") { totalCount } } }`, nil)
	if len(r.Errors) == 0 || r.Errors[0].Type != "INVALID_ARGUMENTS" {
		t.Fatalf("bad prefix: %s", r.Raw)
	}
}
