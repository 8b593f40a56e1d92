package gitdb_test

import (
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// GitHub's answers to bad input: never a 500.
func TestErrors(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "errs", false)
	c, _, _ := gh.Git.GetCommit(ctx, "mona", "errs", base)
	tree := c.GetTree().GetSHA()
	blob, _, _ := gh.Git.CreateBlob(ctx, "mona", "errs", github.Blob{Content: github.Ptr("x")})
	bl := blob.GetSHA()
	missing := "1234567890abcdef1234567890abcdef12345678"
	R := "/repos/mona/errs/git"
	ent := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	trees := func(base string, entries ...map[string]any) map[string]any {
		body := map[string]any{"tree": entries}
		if base != "" {
			body["base_tree"] = base
		}
		return body
	}
	file := func(path string) map[string]any {
		return ent("path", path, "mode", "100644", "type", "blob", "content", "x")
	}

	cases := []struct {
		name, method, path string
		body               any
		status             int
		message            string // substring
	}{
		{"blob without content", "POST", R + "/blobs", map[string]any{}, 422, `"content" wasn't supplied`},
		{"blob with null content", "POST", R + "/blobs", map[string]any{"content": nil}, 422, "nil is not a string"},
		{"blob content not a string", "POST", R + "/blobs", map[string]any{"content": 5}, 422, "Invalid request"},
		{"blob in an unknown encoding", "POST", R + "/blobs", map[string]any{"content": "x", "encoding": "utf-16"}, 422, "Validation Failed"},
		{"blob of bad base64", "POST", R + "/blobs", map[string]any{"content": "!!!", "encoding": "base64"}, 422, "content is not valid Base64"},
		{"blob body not JSON", "POST", R + "/blobs", "{content", 400, "Problems parsing JSON"},
		{"unknown blob", "GET", R + "/blobs/" + missing, nil, 404, "Not Found"},
		{"blob that is a tree", "GET", R + "/blobs/" + tree, nil, 404, "Not Found"},
		{"blob sha not hex", "GET", R + "/blobs/HEAD", nil, 404, "Not Found"},

		{"tree without entries", "POST", R + "/trees", map[string]any{}, 422, `"tree" wasn't supplied`},
		{"tree path with a leading slash", "POST", R + "/trees", trees("", file("/a")), 422, "tree.path cannot start with a slash"},
		{"tree path with ..", "POST", R + "/trees", trees("", file("a/../b")), 422, "tree.path contains a malformed path component"},
		{"tree path with //", "POST", R + "/trees", trees("", file("a//b")), 422, "malformed path component"},
		{"tree path ending in /", "POST", R + "/trees", trees("", file("a/")), 422, "malformed path component"},
		{"tree path into .git", "POST", R + "/trees", trees("", file(".git/config")), 422, "malformed path component"},
		{"tree path alias .git.", "POST", R + "/trees", trees("", file(".git./config")), 422, "tree.path contains a malformed path component"},
		{"tree path alias .git space", "POST", R + "/trees", trees("", file(".git /x")), 422, "tree.path contains a malformed path component"},
		{"tree path alias git~1", "POST", R + "/trees", trees("", file("git~1/x")), 422, "tree.path contains a malformed path component"},
		{"tree path alias GIT~1", "POST", R + "/trees", trees("", file("GIT~1/x")), 422, "tree.path contains a malformed path component"},
		{"tree path alias zero-width non-joiner", "POST", R + "/trees", trees("", file(".g\u200cit/x")), 422, "tree.path contains a malformed path component"},
		{"tree path alias byte order mark", "POST", R + "/trees", trees("", file("\ufeff.git/x")), 422, "tree.path contains a malformed path component"},
		{"tree path alias NTFS stream", "POST", R + "/trees", trees("", file(".git::$INDEX_ALLOCATION/x")), 422, "tree.path contains a malformed path component"},
		{"tree path alias backslash", "POST", R + "/trees", trees("", file("a\\.git\\config")), 422, "tree.path contains a malformed path component"},
		{"tree path with NUL", "POST", R + "/trees", trees("", file("a\x00b")), 422, "null bytes are not allowed in strings"},
		{"tree symlink .gitmodules", "POST", R + "/trees", trees("", ent("path", "x/.GITMODULES", "mode", "120000", "content", "y")), 422, "tree.path contains a malformed path component"},
		{"tree path missing", "POST", R + "/trees", trees("", ent("mode", "100644", "content", "x")), 422, "tree.path"},
		{"tree mode unknown", "POST", R + "/trees", trees("", ent("path", "a", "mode", "100600", "content", "x")), 422, "100600 is not a member of"},
		{"tree type unknown", "POST", R + "/trees", trees("", ent("path", "a", "type", "tag", "sha", bl)), 422, "tag is not a member of"},
		{"tree mode and type disagree", "POST", R + "/trees", trees("", ent("path", "a", "mode", "040000", "type", "blob", "sha", tree)), 422, "does not match"},
		{"tree sha and content", "POST", R + "/trees", trees("", ent("path", "a", "mode", "100644", "sha", bl, "content", "x")), 422, "tree.sha"},
		{"tree entry with neither", "POST", R + "/trees", trees("", ent("path", "a", "mode", "100644")), 422, "tree.sha or tree.content"},
		{"tree content for a directory", "POST", R + "/trees", trees("", ent("path", "a", "mode", "040000", "content", "x")), 422, "tree.content"},
		{"tree blob sha unknown", "POST", R + "/trees", trees("", ent("path", "a", "mode", "100644", "sha", missing)), 422, "tree.sha " + missing + " is not a valid blob"},
		{"tree blob sha not hex", "POST", R + "/trees", trees("", ent("path", "a", "mode", "100644", "sha", "xyz")), 422, "is not a valid blob"},
		{"tree directory sha is a blob", "POST", R + "/trees", trees("", ent("path", "a", "mode", "040000", "sha", bl)), 422, "is not a valid tree"},
		{"tree base unknown", "POST", R + "/trees", trees(missing, file("a")), 422, "base_tree is not a valid tree oid"},
		{"tree base is a commit", "POST", R + "/trees", trees(base, file("a")), 422, "base_tree is not a valid tree oid"},
		{"tree deletes a missing path", "POST", R + "/trees", trees(tree, ent("path", "nope/x", "sha", nil)), 422, "does not exist"},
		{"tree deletes without base", "POST", R + "/trees", trees("", ent("path", "README.md", "sha", nil)), 422, "does not exist"},
		{"unknown tree", "GET", R + "/trees/" + missing, nil, 404, "Not Found"},
		{"tree that is a blob", "GET", R + "/trees/" + bl, nil, 404, "Not Found"},
		{"tree of an unknown branch", "GET", R + "/trees/nope", nil, 404, "Not Found"},
		{"tree of a rev expression", "GET", R + "/trees/main~1", nil, 404, "Not Found"},

		{"commit without message", "POST", R + "/commits", map[string]any{"tree": tree}, 422, `"message" wasn't supplied`},
		{"commit without tree", "POST", R + "/commits", map[string]any{"message": "m"}, 422, `"tree" wasn't supplied`},
		{"commit of an unknown tree", "POST", R + "/commits", map[string]any{"message": "m", "tree": missing}, 422, "Tree SHA does not exist"},
		{"commit of a blob", "POST", R + "/commits", map[string]any{"message": "m", "tree": bl}, 422, "Tree SHA does not exist"},
		{"commit of an unknown parent", "POST", R + "/commits", map[string]any{"message": "m", "tree": tree, "parents": []string{missing}}, 422, "Parent SHA does not exist or is not a commit object"},
		{"commit with a tree as parent", "POST", R + "/commits", map[string]any{"message": "m", "tree": tree, "parents": []string{tree}}, 422, "Parent SHA does not exist"},
		{"commit parents not an array", "POST", R + "/commits", map[string]any{"message": "m", "tree": tree, "parents": base}, 422, "Invalid request"},
		{"commit author without email", "POST", R + "/commits", map[string]any{"message": "m", "tree": tree, "author": map[string]any{"name": "A"}}, 422, `"email" wasn't supplied`},
		{"commit author with a bad date", "POST", R + "/commits", map[string]any{"message": "m", "tree": tree, "author": map[string]any{"name": "A", "email": "a@x", "date": "yesterday"}}, 422, "date"},
		{"commit author name with <", "POST", R + "/commits", map[string]any{"message": "m", "tree": tree, "author": map[string]any{"name": "A <b>", "email": "a@x"}}, 422, "Validation Failed"},
		{"unknown commit", "GET", R + "/commits/" + missing, nil, 404, "Not Found"},
		{"commit that is a tree", "GET", R + "/commits/" + tree, nil, 404, "Not Found"},

		{"ref not under refs/", "POST", R + "/refs", map[string]any{"ref": "heads/x", "sha": base}, 422, "refs/"},
		{"ref with one slash", "POST", R + "/refs", map[string]any{"ref": "refs/x", "sha": base}, 422, "three slash-separated components"},
		{"ref name invalid", "POST", R + "/refs", map[string]any{"ref": "refs/heads/a..b", "sha": base}, 422, "is not a valid ref name"},
		{"ref name with a space", "POST", R + "/refs", map[string]any{"ref": "refs/heads/a b", "sha": base}, 422, "is not a valid ref name"},
		{"ref name .lock", "POST", R + "/refs", map[string]any{"ref": "refs/heads/x.lock", "sha": base}, 422, "is not a valid ref name"},
		{"ref that exists", "POST", R + "/refs", map[string]any{"ref": "refs/heads/main", "sha": base}, 422, "Reference already exists"},
		{"ref to nothing", "POST", R + "/refs", map[string]any{"ref": "refs/heads/new", "sha": missing}, 422, "Object does not exist"},
		{"ref to a bad sha", "POST", R + "/refs", map[string]any{"ref": "refs/heads/new", "sha": "main"}, 422, "Object does not exist"},
		{"branch to a tree", "POST", R + "/refs", map[string]any{"ref": "refs/heads/new", "sha": tree}, 422, "not a commit"},
		{"ref without sha", "POST", R + "/refs", map[string]any{"ref": "refs/heads/new"}, 422, `"sha" wasn't supplied`},
		{"update a missing ref", "PATCH", R + "/refs/heads/nope", map[string]any{"sha": base}, 422, "Reference does not exist"},
		{"update to nothing", "PATCH", R + "/refs/heads/main", map[string]any{"sha": missing}, 422, "Object does not exist"},
		{"update without sha", "PATCH", R + "/refs/heads/main", map[string]any{}, 422, `"sha" wasn't supplied`},
		{"update with force not a boolean", "PATCH", R + "/refs/heads/main", map[string]any{"sha": base, "force": "yes"}, 422, "Invalid request"},
		{"update a ref with a bad name", "PATCH", R + "/refs/heads/a..b", map[string]any{"sha": base}, 422, "Reference does not exist"},
		{"delete a missing ref", "DELETE", R + "/refs/heads/nope", nil, 422, "Reference does not exist"},
		{"get a missing ref", "GET", R + "/ref/heads/nope", nil, 404, "Not Found"},
		{"get a ref by rev expression", "GET", R + "/ref/heads/main^{tree}", nil, 404, "Not Found"},

		{"tag without name", "POST", R + "/tags", map[string]any{"message": "m", "object": base, "type": "commit"}, 422, `"tag" wasn't supplied`},
		{"tag without type", "POST", R + "/tags", map[string]any{"tag": "v", "message": "m", "object": base}, 422, `"type" wasn't supplied`},
		{"tag of an unknown type", "POST", R + "/tags", map[string]any{"tag": "v", "message": "m", "object": base, "type": "bogus"}, 422, "bogus is not a member of"},
		{"tag of nothing", "POST", R + "/tags", map[string]any{"tag": "v", "message": "m", "object": missing, "type": "commit"}, 422, "Object does not exist"},
		{"tag of the wrong type", "POST", R + "/tags", map[string]any{"tag": "v", "message": "m", "object": base, "type": "tree"}, 422, "Object does not exist"},
		{"tag tagger without name", "POST", R + "/tags", map[string]any{"tag": "v", "message": "m", "object": base, "type": "commit", "tagger": map[string]any{"email": "a@x"}}, 422, `"name" wasn't supplied`},
		{"tag name with a newline", "POST", R + "/tags", map[string]any{"tag": "v\n1", "message": "m", "object": base, "type": "commit"}, 422, "Validation Failed"},
		{"unknown tag", "GET", R + "/tags/" + missing, nil, 404, "Not Found"},
		{"tag that is a commit", "GET", R + "/tags/" + base, nil, 404, "Not Found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do(tc.method, tc.path, tok, tc.body)
			var body struct{ Message string }
			r.JSON(t, &body)
			if r.StatusCode != tc.status || !strings.Contains(body.Message, tc.message) {
				t.Fatalf("%s %s: %d %s, want %d %q", tc.method, tc.path, r.StatusCode, r.Body, tc.status, tc.message)
			}
		})
	}
	// Nothing above moved main.
	if ref, _, err := gh.Git.GetRef(ctx, "mona", "errs", "heads/main"); err != nil || ref.GetObject().GetSHA() != base {
		t.Fatalf("main moved: %v", err)
	}
}

// A repository without branches answers 409 "Git Repository is empty." to
// every operation, as GitHub does.
func TestEmptyRepository(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("empty")}); err != nil {
		t.Fatal(err)
	}
	sha := "1234567890abcdef1234567890abcdef12345678"
	R := "/repos/mona/empty/git"
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", R + "/blobs", map[string]any{"content": "x"}},
		{"GET", R + "/blobs/" + sha, nil},
		{"POST", R + "/trees", map[string]any{"tree": []any{}}},
		{"GET", R + "/trees/" + sha, nil},
		{"POST", R + "/commits", map[string]any{"message": "m", "tree": sha}},
		{"GET", R + "/commits/" + sha, nil},
		{"GET", R + "/matching-refs/heads", nil},
		{"GET", R + "/ref/heads/main", nil},
		{"POST", R + "/refs", map[string]any{"ref": "refs/heads/main", "sha": sha}},
		{"PATCH", R + "/refs/heads/main", map[string]any{"sha": sha}},
		{"DELETE", R + "/refs/heads/main", nil},
		{"POST", R + "/tags", map[string]any{"tag": "v", "message": "m", "object": sha, "type": "commit"}},
		{"GET", R + "/tags/" + sha, nil},
	} {
		r := e.Do(c.method, c.path, tok, c.body)
		if r.StatusCode != 409 || !strings.Contains(string(r.Body), "Git Repository is empty.") {
			t.Errorf("%s %s: %d %s", c.method, c.path, r.StatusCode, r.Body)
		}
	}
	// The check made no git storage appear for the repository.
	repo, err := e.Store.R().RepoByName(ctx, "mona", "empty", 0)
	if err != nil {
		t.Fatal(err)
	}
	if e.Deps.Git.Open(repo.Repo.ID).Exists() {
		t.Error("reading an empty repository created its storage")
	}
}

func TestPermissions(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	reader, readerTok := e.NewUser("reader", false)
	_, otherTok := e.NewUser("hubot", false)
	gh := e.GitHub(tok)
	seeded(t, e, "mona", tok, "secret", true)
	base := seeded(t, e, "mona", tok, "pub", false)
	v, err := e.Store.R().RepoByName(ctx, "mona", "secret", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, v.Repo.ID, reader.ID, authz.Read) }); err != nil {
		t.Fatal(err)
	}
	blob := map[string]any{"content": "x"}
	noScope := e.Token(reader, "user")

	// Hidden is not found.
	e.Must(404, "GET", "/repos/mona/secret/git/ref/heads/main", otherTok, nil)
	e.Must(404, "GET", "/repos/mona/secret/git/ref/heads/main", "", nil)
	e.Must(404, "POST", "/repos/mona/secret/git/blobs", otherTok, blob)
	// Readers read and may not write.
	e.Must(200, "GET", "/repos/mona/secret/git/ref/heads/main", readerTok, nil)
	e.Must(403, "POST", "/repos/mona/secret/git/blobs", readerTok, blob)
	e.Must(403, "PATCH", "/repos/mona/secret/git/refs/heads/main", readerTok, map[string]any{"sha": base})
	// Public repositories: anyone reads, writing needs credentials and a
	// token that may write.
	e.Must(200, "GET", "/repos/mona/pub/git/commits/"+base, "", nil)
	e.Must(401, "POST", "/repos/mona/pub/git/blobs", "", blob)
	e.Must(403, "POST", "/repos/mona/pub/git/blobs", otherTok, blob)
	e.Must(403, "POST", "/repos/mona/pub/git/refs", noScope, map[string]any{"ref": "refs/heads/x", "sha": base})
	// A private repository needs the repo scope to be seen at all.
	e.Must(404, "GET", "/repos/mona/secret/git/ref/heads/main", noScope, nil)

	// Archived repositories are read-only.
	if _, _, err := gh.Repositories.Edit(ctx, "mona", "pub", &github.Repository{Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	r := e.Must(403, "POST", "/repos/mona/pub/git/refs", tok, map[string]any{"ref": "refs/heads/x", "sha": base})
	if !strings.Contains(string(r.Body), "Repository was archived so is read-only.") {
		t.Fatalf("archived: %s", r.Body)
	}
	e.Must(403, "DELETE", "/repos/mona/pub/git/refs/heads/main", tok, nil)
	e.Must(200, "GET", "/repos/mona/pub/git/matching-refs/heads", tok, nil)
}
