package contents_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
)

func TestCreateUpdateDeleteFile(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "notes", false)

	// The first file of an empty repository creates the default branch.
	created, resp, err := gh.Repositories.CreateFile(ctx, "mona", "notes", "docs/hello.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("add hello"), Content: []byte("hello\n"),
	})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create: %v %v", err, resp)
	}
	c := created.Commit
	if created.Content.GetPath() != "docs/hello.txt" || created.Content.GetName() != "hello.txt" || created.Content.GetSHA() != "ce013625030ba8dba906f756967f9e9ca394464a" ||
		created.Content.GetSize() != 6 || created.Content.GetType() != "file" {
		t.Fatalf("created content: %+v", created.Content)
	}
	if len(c.Parents) != 0 || c.GetMessage() != "add hello" || c.GetAuthor().GetName() != "mona" || !strings.HasSuffix(c.GetAuthor().GetEmail(), "+mona@users.noreply.127.0.0.1") ||
		c.GetCommitter().GetEmail() != c.GetAuthor().GetEmail() || c.GetVerification().GetReason() != "unsigned" || c.GetTree().GetSHA() == "" {
		t.Fatalf("created commit: %+v", c)
	}
	repo, _, err := gh.Repositories.Get(ctx, "mona", "notes")
	if err != nil || repo.GetDefaultBranch() != "main" || repo.PushedAt == nil {
		t.Fatalf("repository after the first file: %v %+v", err, repo)
	}

	// Updating needs the blob sha; the author and committer may be given.
	updated, resp, err := gh.Repositories.UpdateFile(ctx, "mona", "notes", "docs/hello.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("update hello"), Content: []byte("hello, world\n"), SHA: created.Content.SHA,
		Committer: &github.CommitAuthor{Name: github.Ptr("The Bot"), Email: github.Ptr("bot@example.com")},
		Author:    &github.CommitAuthor{Name: github.Ptr("Ada"), Email: github.Ptr("ada@example.com"), Date: &github.Timestamp{Time: mustTime(t, "2020-01-02T03:04:05+02:00")}},
	})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("update: %v %v", err, resp)
	}
	if updated.Commit.Parents[0].GetSHA() != c.GetSHA() || updated.Commit.GetAuthor().GetName() != "Ada" || updated.Commit.GetCommitter().GetName() != "The Bot" ||
		updated.Commit.GetAuthor().GetDate().UTC().Format("2006-01-02T15:04:05") != "2020-01-02T01:04:05" {
		t.Fatalf("updated commit: %+v", updated.Commit)
	}
	f, _, _, err := gh.Repositories.GetContents(ctx, "mona", "notes", "docs/hello.txt", nil)
	if got, _ := f.GetContent(); err != nil || got != "hello, world\n" || f.GetSHA() != updated.Content.GetSHA() {
		t.Fatalf("after update: %v %q", err, got)
	}

	// A second file, on a new path of its own.
	if _, resp, err = gh.Repositories.CreateFile(ctx, "mona", "notes", "top.md", &github.RepositoryContentFileOptions{Message: github.Ptr("top"), Content: []byte("# top\n")}); err != nil || resp.StatusCode != 201 {
		t.Fatalf("second file: %v", err)
	}

	// Deleting: the directory goes with its last file.
	deleted, resp, err := gh.Repositories.DeleteFile(ctx, "mona", "notes", "docs/hello.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("remove hello"), SHA: updated.Content.SHA})
	if err != nil || resp.StatusCode != 200 || deleted.Content != nil || deleted.Commit.GetMessage() != "remove hello" {
		t.Fatalf("delete: %v %+v", err, deleted)
	}
	_, list, _, err := gh.Repositories.GetContents(ctx, "mona", "notes", "", nil)
	if err != nil || len(list) != 1 || list[0].GetPath() != "top.md" {
		t.Fatalf("after delete: %v %+v", err, list)
	}

	// A clone sees every commit the API made.
	dir := t.TempDir()
	git(t, dir, "clone", "-q", remote(e, "mona", tok, "mona", "notes"), "w")
	log := git(t, filepath.Join(dir, "w"), "log", "--format=%an|%cn|%s")
	if log != "mona|mona|remove hello\nmona|mona|top\nAda|The Bot|update hello\nmona|mona|add hello\n" {
		t.Fatalf("log:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(dir, "w", "docs")); !os.IsNotExist(err) {
		t.Fatalf("docs survived: %v", err)
	}
	git(t, filepath.Join(dir, "w"), "fsck", "--strict")
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestEditPushedTree edits files of a tree pushed with git: modes are kept
// (an executable stays executable), symlinks and submodules untouched, and
// the edits on another branch stay there.
func TestEditPushedTree(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "kinds", false)
	work := pushKinds(t, e, tok)
	git(t, work, "push", "-q", remote(e, "mona", tok, "mona", "kinds"), "HEAD:refs/heads/dev")

	run, _, _, err := gh.Repositories.GetContents(ctx, "mona", "kinds", "bin/run.sh", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.UpdateFile(ctx, "mona", "kinds", "bin/run.sh", &github.RepositoryContentFileOptions{
		Message: github.Ptr("louder"), Content: []byte("#!/bin/sh\necho HI\n"), SHA: run.SHA, Branch: github.Ptr("dev"),
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "kinds", "a/b/c/deep.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("deep"), Content: []byte("deep\n"), Branch: github.Ptr("dev"),
	}); err != nil {
		t.Fatal(err)
	}
	git(t, work, "fetch", "-q", remote(e, "mona", tok, "mona", "kinds"), "dev")
	tree := git(t, work, "ls-tree", "-r", "FETCH_HEAD")
	for _, want := range []string{"100755 blob ", "\tbin/run.sh", "120000 blob ", "\treadme-link", "160000 commit 1111111111111111111111111111111111111111\tvendor/lib", "100644 blob ", "\ta/b/c/deep.txt"} {
		if !strings.Contains(tree, want) {
			t.Errorf("dev tree lacks %q:\n%s", want, tree)
		}
	}
	if !strings.Contains(git(t, work, "ls-tree", "FETCH_HEAD", "bin/run.sh"), "100755") {
		t.Error("run.sh lost its mode")
	}
	// main did not move.
	f, _, _, err := gh.Repositories.GetContents(ctx, "mona", "kinds", "bin/run.sh", nil)
	if got, _ := f.GetContent(); err != nil || got != "#!/bin/sh\necho hi\n" {
		t.Fatalf("main changed: %q %v", got, err)
	}
	f, _, _, err = gh.Repositories.GetContents(ctx, "mona", "kinds", "bin/run.sh", &github.RepositoryContentGetOptions{Ref: "dev"})
	if got, _ := f.GetContent(); err != nil || got != "#!/bin/sh\necho HI\n" {
		t.Fatalf("dev: %q %v", got, err)
	}
}

func TestWriteErrors(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	reader, readTok := e.NewUser("reader", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "notes", false)
	newRepo(t, gh, "empty", false)
	newRepo(t, gh, "old", false)
	collaborator(t, e, "mona", "notes", reader, authz.Read)
	created, _, err := gh.Repositories.CreateFile(ctx, "mona", "notes", "a.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("a"), Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "old", "a.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("a"), Content: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Edit(ctx, "mona", "old", &github.Repository{Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	sha := created.Content.GetSHA()
	b64 := base64.StdEncoding.EncodeToString([]byte("new\n"))
	stale := strings.Repeat("1", 40)
	for _, tc := range []struct {
		name, method, path, token string
		body                      any
		status                    int
		msg                       string
	}{
		{"missing sha", "PUT", "/repos/mona/notes/contents/a.txt", tok, map[string]any{"message": "m", "content": b64}, 422, "Invalid request.\n\n\"sha\" wasn't supplied."},
		{"no message", "PUT", "/repos/mona/notes/contents/b.txt", tok, map[string]any{"content": b64}, 422, "Invalid request.\n\n\"message\" wasn't supplied."},
		{"nothing", "PUT", "/repos/mona/notes/contents/b.txt", tok, map[string]any{}, 422, "Invalid request.\n\n\"content\", \"message\" weren't supplied."},
		{"not base64", "PUT", "/repos/mona/notes/contents/b.txt", tok, map[string]any{"message": "m", "content": "%%%"}, 422, "content is not valid Base64"},
		{"content not a string", "PUT", "/repos/mona/notes/contents/b.txt", tok, map[string]any{"message": "m", "content": 5}, 422, "Invalid request.\n\nFor 'properties/content', 5 is not a string."},
		{"committer without email", "PUT", "/repos/mona/notes/contents/b.txt", tok, map[string]any{"message": "m", "content": b64, "committer": map[string]any{"name": "x"}}, 422, "Invalid request.\n\n\"email\" wasn't supplied."},
		{"bad date", "PUT", "/repos/mona/notes/contents/b.txt", tok, map[string]any{"message": "m", "content": b64, "author": map[string]any{"name": "x", "email": "x@y", "date": "yesterday"}}, 422, "Invalid request.\n\n\"yesterday\" is not a valid date-time."},
		{".git component", "PUT", "/repos/mona/notes/contents/.git/config", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{".GIT component", "PUT", "/repos/mona/notes/contents/x/.GIT/hooks", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"trailing slash", "PUT", "/repos/mona/notes/contents/dir/", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias .git.", "PUT", "/repos/mona/notes/contents/.git./config", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias .git space", "PUT", "/repos/mona/notes/contents/.git%20/x", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias git~1", "PUT", "/repos/mona/notes/contents/git~1/x", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias GIT~1", "PUT", "/repos/mona/notes/contents/GIT~1/x", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias zero-width non-joiner", "PUT", "/repos/mona/notes/contents/.g%E2%80%8Cit/x", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias byte order mark", "PUT", "/repos/mona/notes/contents/%EF%BB%BF.git/x", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias NTFS stream", "PUT", "/repos/mona/notes/contents/.git::$INDEX_ALLOCATION/x", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias backslash", "PUT", "/repos/mona/notes/contents/a%5C.git%5Cconfig", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"alias nested git~1", "PUT", "/repos/mona/notes/contents/a/Git~1.../hooks", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a malformed path component"},
		{"NUL in the path", "PUT", "/repos/mona/notes/contents/a%00b", tok, map[string]any{"message": "m", "content": b64}, 404, "Not Found"},
		{"through a file", "PUT", "/repos/mona/notes/contents/a.txt/b", tok, map[string]any{"message": "m", "content": b64}, 422, "path contains a file where a directory was expected"},
		{"unknown branch", "PUT", "/repos/mona/notes/contents/b.txt", tok, map[string]any{"message": "m", "content": b64, "branch": "nope"}, 404, "Branch nope not found"},
		{"dot-dot path", "PUT", "/repos/mona/notes/contents/x%2F..%2Fy.txt", tok, map[string]any{"message": "m", "content": b64}, 404, "Not Found"},
		{"bad branch name", "PUT", "/repos/mona/notes/contents/b.txt", tok, map[string]any{"message": "m", "content": b64, "branch": "a..b"}, 404, "Branch a..b not found"},
		{"anonymous", "PUT", "/repos/mona/notes/contents/b.txt", "", map[string]any{"message": "m", "content": b64}, 401, "Requires authentication"},
		{"reader", "PUT", "/repos/mona/notes/contents/b.txt", readTok, map[string]any{"message": "m", "content": b64}, 403, "Must have write access to Repository."},
		{"archived", "PUT", "/repos/mona/old/contents/b.txt", tok, map[string]any{"message": "m", "content": b64}, 403, "Repository was archived so is read-only."},
		{"unknown repository", "PUT", "/repos/mona/nope/contents/b.txt", tok, map[string]any{"message": "m", "content": b64}, 404, "Not Found"},
		{"delete without sha", "DELETE", "/repos/mona/notes/contents/a.txt", tok, map[string]any{"message": "m"}, 422, "Invalid request.\n\n\"sha\" wasn't supplied."},
		{"delete stale sha", "DELETE", "/repos/mona/notes/contents/a.txt", tok, map[string]any{"message": "m", "sha": stale}, 409, "a.txt does not match " + stale},
		{"delete missing file", "DELETE", "/repos/mona/notes/contents/nope.txt", tok, map[string]any{"message": "m", "sha": sha}, 404, "Not Found"},
		{"delete in an empty repository", "DELETE", "/repos/mona/empty/contents/a.txt", tok, map[string]any{"message": "m", "sha": sha}, 404, "Not Found"},
		{"delete a directory", "DELETE", "/repos/mona/notes/contents/", tok, map[string]any{"message": "m", "sha": sha}, 422, "path contains a malformed path component"},
		{"delete archived", "DELETE", "/repos/mona/old/contents/a.txt", tok, map[string]any{"message": "m", "sha": sha}, 403, "Repository was archived so is read-only."},
		{"body not an object", "DELETE", "/repos/mona/notes/contents/a.txt", tok, "[1]", 400, "Body should be a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Must(tc.status, tc.method, tc.path, tc.token, tc.body)
			if m := r.Map(t)["message"]; m != tc.msg {
				t.Errorf("message %q, want %q", m, tc.msg)
			}
		})
	}
	// None of them wrote anything.
	_, list, _, err := gh.Repositories.GetContents(ctx, "mona", "notes", "", nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("after the errors: %v %d entries", err, len(list))
	}
	// An empty repository has no contents and no README.
	for _, p := range []string{"/repos/mona/empty/contents/", "/repos/mona/empty/contents/a.txt", "/repos/mona/empty/readme"} {
		if m := e.Must(404, "GET", p, tok, nil).Map(t)["message"]; m != "This repository is empty." {
			t.Errorf("%s: %q", p, m)
		}
	}
}

// TestUpdateConflicts checks the 409 of a stale sha on PUT (declared as a
// oneOf of two error shapes that accept the same bodies: see the harness's
// allowlist).
func TestUpdateConflicts(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "notes", false)
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "notes", "a.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("a"), Content: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte("new\n"))
	stale := strings.Repeat("1", 40)
	for _, tc := range []struct{ path, msg string }{
		{"a.txt", "a.txt does not match " + stale},
		{"new.txt", "new.txt does not match " + stale},
	} {
		r := e.Must(409, "PUT", "/repos/mona/notes/contents/"+tc.path, tok, map[string]any{"message": "m", "content": b64, "sha": stale})
		if m := r.Map(t); m["message"] != tc.msg || m["documentation_url"] != "https://docs.github.com/rest/repos/contents#create-or-update-file-contents" {
			t.Errorf("%s: %s", tc.path, r.Body)
		}
	}
}

// TestConcurrentWrites commits files in parallel on one branch: every file
// lands and the history is linear.
func TestConcurrentWrites(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	newRepo(t, gh, "busy", false)
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "busy", "first.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("first"), Content: []byte("1\n")}); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = gh.Repositories.CreateFile(ctx, "mona", "busy", fmt.Sprintf("f%d.txt", i), &github.RepositoryContentFileOptions{Message: github.Ptr(fmt.Sprintf("f%d", i)), Content: []byte("x\n")})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("concurrent write: %v", err)
		}
	}
	_, list, _, err := gh.Repositories.GetContents(ctx, "mona", "busy", "", nil)
	if err != nil || len(list) != n+1 {
		t.Fatalf("%d files: %v", len(list), err)
	}
	dir := t.TempDir()
	git(t, dir, "clone", "-q", remote(e, "mona", tok, "mona", "busy"), "w")
	if got := strings.Count(git(t, filepath.Join(dir, "w"), "log", "--format=%s"), "\n"); got != n+1 {
		t.Fatalf("%d commits for %d writes", got, n+1)
	}
}
