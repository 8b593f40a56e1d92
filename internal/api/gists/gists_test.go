package gists_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

func events(t *testing.T, e *apitest.Env, typ string) []model.Event {
	t.Helper()
	all, err := e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []model.Event
	for _, ev := range all {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func content(g *github.Gist, name string) string {
	f := g.Files[github.GistFilename(name)]
	return f.GetContent()
}

func lang(g *github.Gist, name string) string {
	f := g.Files[github.GistFilename(name)]
	return f.GetLanguage()
}

// history is the versions of a gist's history, newest first, as
// GET /gists/{gist_id} shows them (go-github does not decode it).
func history(t *testing.T, e *apitest.Env, id string) []string {
	t.Helper()
	var g struct {
		History []struct{ Version string } `json:"history"`
	}
	e.Must(200, "GET", "/gists/"+id, "", nil).JSON(t, &g)
	out := make([]string, len(g.History))
	for i, h := range g.History {
		out[i] = h.Version
	}
	return out
}

// Every operation of the Gists category through go-github, each response
// validated against the operation's schema by the harness.
func TestGistsThroughGoGitHub(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	hubot, hubotTok := e.NewUser("hubot", false)
	mona, gh := e.GitHub(monaTok), e.GitHub(hubotTok)

	// Create: a secret gist of two files (a blank file is dropped).
	g, resp, err := mona.Gists.Create(ctx, github.CreateGistRequest{Description: github.Ptr("notes"), Public: github.Ptr(false),
		Files: map[github.GistFilename]*github.CreateGistFile{
			"hello.rb":  {Content: "puts 'hi'\n"},
			"README.md": {Content: "# Notes\n"},
			"blank.txt": {Content: "  \n"},
		}})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("Create: %v", err)
	}
	id := g.GetID()
	if len(id) != 32 || g.GetPublic() || g.GetDescription() != "notes" || len(g.Files) != 2 || g.GetOwner().GetLogin() != "mona" {
		t.Fatalf("created gist: %+v", g)
	}
	rb := g.Files["hello.rb"]
	rb.Content = github.Ptr(content(g, "hello.rb"))
	if rb.GetContent() != "puts 'hi'\n" || rb.GetLanguage() != "Ruby" || rb.GetSize() != 10 || rb.GetType() != "application/x-ruby" {
		t.Errorf("hello.rb: %+v", rb)
	}
	if g.GetGitPullURL() != e.URL+"/gist/"+id+".git" || g.GetHTMLURL() != e.URL+"/gist/"+id {
		t.Errorf("urls: %s %s", g.GetGitPullURL(), g.GetHTMLURL())
	}
	// raw_url is served by hubd.
	raw, err := http.Get(rb.GetRawURL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(raw.Body)
	raw.Body.Close()
	if raw.StatusCode != 200 || string(body) != "puts 'hi'\n" {
		t.Errorf("raw_url %s: %d %q", rb.GetRawURL(), raw.StatusCode, body)
	}

	// Validation: no file with content is GitHub's missing_field.
	_, _, err = mona.Gists.Create(ctx, github.CreateGistRequest{Files: map[github.GistFilename]*github.CreateGistFile{"a.txt": {Content: ""}}})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || len(er.Errors) != 1 || er.Errors[0].Field != "files" || er.Errors[0].Code != "missing_field" || er.Errors[0].Resource != "Gist" {
		t.Errorf("blank create: %v", err)
	}
	// Scopes: a classic token without gist gets 404; anonymous 401.
	noGist := e.GitHub(e.Token(hubot, "repo"))
	if _, _, err := noGist.Gists.Create(ctx, github.CreateGistRequest{Files: map[github.GistFilename]*github.CreateGistFile{"a.txt": {Content: "x"}}}); apitest.Status(err) != 404 {
		t.Errorf("create without gist scope: %v", err)
	}
	e.Must(401, "POST", "/gists", "", map[string]any{"files": map[string]any{"a.txt": map[string]any{"content": "x"}}})

	// Get: a secret gist is visible to anyone with its id.
	got, _, err := gh.Gists.Get(ctx, id)
	if err != nil || content(got, "README.md") != "# Notes\n" || lang(got, "README.md") != "Markdown" {
		t.Fatalf("Get: %+v %v", got, err)
	}
	e.Must(200, "GET", "/gists/"+id, "", nil)
	e.Must(404, "GET", "/gists/0123456789abcdef0123456789abcdef", "", nil)

	// Edit: rename, change, delete, description.
	first := history(t, e, id)[0]
	ed, _, err := mona.Gists.Update(ctx, id, github.UpdateGistRequest{Description: github.Ptr("better notes"), Files: map[github.GistFilename]*github.UpdateGistFile{
		"hello.rb": {Filename: github.Ptr("hello.py"), Content: github.Ptr("print('hi')\n")},
		"new.txt":  {Content: github.Ptr("new\n")},
	}})
	if err != nil || ed.GetDescription() != "better notes" || len(ed.Files) != 3 || content(ed, "hello.py") != "print('hi')\n" || len(history(t, e, id)) != 2 {
		t.Fatalf("Edit: %+v %v", ed, err)
	}
	// Deleting a file is a null entry.
	if ed, _, err := mona.Gists.Update(ctx, id, github.UpdateGistRequest{Files: map[github.GistFilename]*github.UpdateGistFile{"new.txt": nil}}); err != nil || len(ed.Files) != 2 {
		t.Fatalf("delete a file: %+v %v", ed, err)
	}
	// Someone else's gist is not found for writes.
	if _, _, err := gh.Gists.Update(ctx, id, github.UpdateGistRequest{Description: github.Ptr("x")}); apitest.Status(err) != 404 {
		t.Errorf("Edit by hubot: %v", err)
	}
	// Removing every file is refused.
	e.Must(422, "PATCH", "/gists/"+id, monaTok, map[string]any{"files": map[string]any{"hello.py": nil, "README.md": nil}})

	// Revisions and commits.
	commits, resp, err := mona.Gists.ListCommits(ctx, id, &github.ListOptions{PerPage: 2, Page: 2})
	if err != nil || len(commits) != 1 || commits[0].GetVersion() != first || commits[0].GetChangeStatus().GetAdditions() != 2 || resp.PrevPage != 1 {
		t.Fatalf("ListCommits page 2: %+v %v", commits, err)
	}
	if commits, _, err := mona.Gists.ListCommits(ctx, id, nil); err != nil || len(commits) != 3 || commits[0].GetChangeStatus().GetDeletions() != 1 {
		t.Fatalf("ListCommits: %+v %v", commits, err)
	}
	old, _, err := gh.Gists.GetRevision(ctx, id, first)
	if err != nil || len(old.Files) != 2 || content(old, "hello.rb") != "puts 'hi'\n" {
		t.Fatalf("GetRevision: %+v %v", old, err)
	}
	e.Must(404, "GET", "/gists/"+id+"/"+strings.Repeat("0", 40), "", nil)

	// Lists: mona sees her secret gist; others and anonymous do not.
	pub, _, err := mona.Gists.Create(ctx, github.CreateGistRequest{Public: github.Ptr(true), Files: map[github.GistFilename]*github.CreateGistFile{"p.go": {Content: "package p\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	if l, _, err := mona.Gists.List(ctx, "", nil); err != nil || len(l) != 2 {
		t.Errorf("List own: %d %v", len(l), err)
	}
	if l, _, err := gh.Gists.List(ctx, "mona", nil); err != nil || len(l) != 1 || l[0].GetID() != pub.GetID() || l[0].Files["p.go"].Content != nil {
		t.Errorf("List mona by hubot: %+v %v", l, err)
	}
	if l, _, err := gh.Gists.ListAll(ctx, nil); err != nil || len(l) != 1 {
		t.Errorf("ListAll: %d %v", len(l), err)
	}
	r := e.Must(200, "GET", "/users/mona/gists?per_page=1", monaTok, nil)
	if !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Errorf("Link: %q", r.Header.Get("Link"))
	}
	e.Must(422, "GET", "/gists/public?since=yesterday", "", nil)

	// Stars.
	if _, err := gh.Gists.Star(ctx, id); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := gh.Gists.IsStarred(ctx, id); err != nil || !ok {
		t.Errorf("IsStarred: %v %v", ok, err)
	}
	if l, _, err := gh.Gists.ListStarred(ctx, nil); err != nil || len(l) != 1 || l[0].GetID() != id {
		t.Errorf("ListStarred: %+v %v", l, err)
	}
	if _, err := gh.Gists.Unstar(ctx, id); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := gh.Gists.IsStarred(ctx, id); err != nil || ok {
		t.Errorf("IsStarred after unstar: %v %v", ok, err)
	}

	// Forks.
	if _, _, err := mona.Gists.Fork(ctx, id); apitest.Status(err) != 422 {
		t.Errorf("fork own gist: %v", err)
	}
	fk, _, err := gh.Gists.Fork(ctx, id)
	if err != nil || fk.GetOwner().GetLogin() != "hubot" || len(fk.Files) != 2 {
		t.Fatalf("Fork: %+v %v", fk, err)
	}
	if l, _, err := mona.Gists.ListForks(ctx, id, nil); err != nil || len(l) != 1 || l[0].GetID() != fk.GetID() {
		t.Errorf("ListForks: %+v %v", l, err)
	}
	var fj map[string]any
	e.Must(200, "GET", "/gists/"+fk.GetID(), "", nil).JSON(t, &fj)
	if p, _ := fj["fork_of"].(map[string]any); p == nil || p["id"] != id {
		t.Errorf("fork_of: %v", fj["fork_of"])
	}

	// Comments.
	c, _, err := gh.Gists.CreateComment(ctx, id, github.CreateGistCommentRequest{Body: "nice"})
	if err != nil || c.GetBody() != "nice" || c.GetUser().GetLogin() != "hubot" {
		t.Fatalf("CreateComment: %+v %v", c, err)
	}
	if cs, _, err := mona.Gists.ListComments(ctx, id, nil); err != nil || len(cs) != 1 {
		t.Errorf("ListComments: %v %v", cs, err)
	}
	if gc, _, err := mona.Gists.GetComment(ctx, id, c.GetID()); err != nil || gc.GetBody() != "nice" {
		t.Errorf("GetComment: %v %v", gc, err)
	}
	if _, _, err := mona.Gists.UpdateComment(ctx, id, c.GetID(), github.UpdateGistCommentRequest{Body: "mine"}); apitest.Status(err) != 403 {
		t.Errorf("EditComment by the gist owner: %v", err)
	}
	if ec, _, err := gh.Gists.UpdateComment(ctx, id, c.GetID(), github.UpdateGistCommentRequest{Body: "very nice"}); err != nil || ec.GetBody() != "very nice" {
		t.Errorf("EditComment: %v %v", ec, err)
	}
	e.Must(422, "POST", "/gists/"+id+"/comments", hubotTok, map[string]any{"body": " "})
	if got, _, _ := mona.Gists.Get(ctx, id); got.GetComments() != 1 {
		t.Errorf("comments count %d", got.GetComments())
	}
	if _, err := mona.Gists.DeleteComment(ctx, id, c.GetID()); err != nil {
		t.Errorf("DeleteComment by the gist owner: %v", err)
	}

	// Delete: gone, its storage too; the fork stays.
	if _, err := gh.Gists.Delete(ctx, id); apitest.Status(err) != 404 {
		t.Errorf("Delete by hubot: %v", err)
	}
	if _, err := mona.Gists.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", "/gists/"+id, "", nil)
	e.Must(200, "GET", "/gists/"+fk.GetID(), "", nil)
	for _, typ := range []string{"gist.created", "gist.updated", "gist.deleted", "gist.forked", "gist.starred", "gist.commented"} {
		if len(events(t, e, typ)) == 0 {
			t.Errorf("no %s event", typ)
		}
	}
}

// A gist is a git repository: clone it over smart HTTP, push a change as
// its owner and see it as the gist's new revision; others may not push.
func TestGistGit(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	mona := e.GitHub(monaTok)
	g, _, err := mona.Gists.Create(ctx, github.CreateGistRequest{Files: map[github.GistFilename]*github.CreateGistFile{"a.txt": {Content: "one\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	git := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + dir,
			"GIT_AUTHOR_NAME=m", "GIT_AUTHOR_EMAIL=m@x", "GIT_COMMITTER_NAME=m", "GIT_COMMITTER_EMAIL=m@x"}, env...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// Anyone clones (the gist is secret: unlisted, not private).
	if out, err := git(nil, "clone", g.GetGitPullURL(), "w"); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "w", "a.txt"))
	if err != nil || string(b) != "one\n" {
		t.Fatalf("cloned a.txt: %q %v", b, err)
	}
	os.WriteFile(filepath.Join(dir, "w", "b.txt"), []byte("two\n"), 0o644)
	dir = filepath.Join(dir, "w")
	if out, err := git(nil, "add", "b.txt"); err != nil {
		t.Fatal(out)
	}
	if out, err := git(nil, "commit", "-qm", "b"); err != nil {
		t.Fatal(out)
	}
	push := func(user, tok string) (string, error) {
		u := strings.Replace(g.GetGitPushURL(), "http://", "http://"+user+":"+tok+"@", 1)
		return git(nil, "push", u, "HEAD:main")
	}
	if out, err := push("hubot", hubotTok); err == nil {
		t.Fatalf("hubot pushed to mona's gist:\n%s", out)
	}
	if out, err := push("mona", monaTok); err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	got, _, err := mona.Gists.Get(ctx, g.GetID())
	if err != nil || content(got, "b.txt") != "two\n" || len(history(t, e, g.GetID())) != 2 {
		t.Fatalf("after push: %+v %v", got, err)
	}
}

// GitHub's limits on what a single gist returns: a file's content past
// 1 MB is cut and marked truncated (raw_url serves it whole). A
// fine-grained token without the gists permission may read but not write.
func TestGistTruncationAndTokens(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	big := strings.Repeat("0123456789abcdef", 70000) // 1.07 MiB
	g := e.Must(201, "POST", "/gists", monaTok, map[string]any{"files": map[string]any{"big.txt": map[string]any{"content": big}}}).Map(t)
	f := g["files"].(map[string]any)["big.txt"].(map[string]any)
	if f["truncated"] != true || len(f["content"].(string)) != 1<<20 || f["size"] != float64(len(big)) {
		t.Fatalf("big file: truncated %v, %d bytes of content, size %v", f["truncated"], len(f["content"].(string)), f["size"])
	}
	raw, err := http.Get(f["raw_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(raw.Body)
	raw.Body.Close()
	if len(b) != len(big) {
		t.Errorf("raw_url served %d bytes, want %d", len(b), len(big))
	}

	var fg string
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		fg, _, err = tx.CreateToken(ctx, mona.ID, authz.FineGrained, nil, "", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.Must(200, "GET", "/gists/"+g["id"].(string), fg, nil)
	e.Must(403, "POST", "/gists", fg, map[string]any{"files": map[string]any{"a.txt": map[string]any{"content": "x"}}})
	e.Must(403, "PUT", "/gists/"+g["id"].(string)+"/star", fg, nil)
}
