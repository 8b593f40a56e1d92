package commitcomments_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func TestCreateGetAndShape(t *testing.T) {
	w := newWorld(t)
	// rita only reads hello: reading is enough to comment on a public
	// repository, as for issue comments.
	cc, resp, err := w.rg.Repositories.CreateComment(ctx, "mona", "hello", w.helloSHA, github.CreateCommitCommentRequest{Body: "Great **stuff**"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("status %d", resp.StatusCode)
	}
	id := strconv.FormatInt(cc.GetID(), 10)
	if cc.GetCommitID() != w.helloSHA || cc.GetBody() != "Great **stuff**" || cc.GetUser().GetLogin() != "rita" ||
		cc.Path != nil || cc.Position != nil || cc.Line != nil || cc.GetAuthorAssociation() != "COLLABORATOR" {
		t.Fatalf("created %+v", cc)
	}
	if !strings.HasSuffix(cc.GetHTMLURL(), "/mona/hello/commit/"+w.helloSHA+"#commitcomment-"+id) ||
		!strings.HasSuffix(cc.GetURL(), "/repos/mona/hello/comments/"+id) || resp.Header.Get("Location") != cc.GetURL() {
		t.Fatalf("urls %q %q %q", cc.GetHTMLURL(), cc.GetURL(), resp.Header.Get("Location"))
	}
	if !strings.HasSuffix(cc.GetReactions().GetURL(), "/comments/"+id+"/reactions") || cc.GetReactions().GetTotalCount() != 0 {
		t.Fatalf("reactions %+v", cc.GetReactions())
	}

	// A line comment; the commit may be named by branch, stored by sha.
	line, _, err := w.mg.Repositories.CreateComment(ctx, "mona", "hello", "main", github.CreateCommitCommentRequest{
		Body: "here", Path: github.Ptr("README.md"), Position: github.Ptr(1), Line: github.Ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	if line.GetCommitID() != w.helloSHA || line.GetPath() != "README.md" || line.GetPosition() != 1 || line.GetLine() != 1 ||
		line.GetAuthorAssociation() != "OWNER" {
		t.Fatalf("line comment %+v", line)
	}

	// Anyone may read a public repository's comments.
	got, _, err := w.e.GitHub("").Repositories.GetComment(ctx, "mona", "hello", cc.GetID())
	if err != nil || got.GetBody() != "Great **stuff**" || got.GetUser().GetLogin() != "rita" {
		t.Fatalf("get %+v %v", got, err)
	}

	// Body media types, as for issue comments.
	full := w.e.Must(200, "GET", "/repos/mona/hello/comments/"+id, "", nil, "Accept: application/vnd.github.full+json").Map(t)
	if full["body"] != "Great **stuff**" || !strings.Contains(full["body_html"].(string), "<strong>stuff</strong>") || full["body_text"] != "Great stuff" {
		t.Fatalf("full %v", full)
	}
	html := w.e.Must(200, "GET", "/repos/mona/hello/comments/"+id, "", nil, "Accept: application/vnd.github.html+json").Map(t)
	// body stays: the commit-comment schema requires it.
	if html["body"] != "Great **stuff**" || html["body_html"] == nil || html["body_text"] != nil {
		t.Fatalf("html %v", html)
	}
	bodies, events := w.state(t)
	if len(bodies) != 2 || events != 2 {
		t.Fatalf("state %v %d", bodies, events)
	}
}

func TestListPaginates(t *testing.T) {
	w := newWorld(t)
	for i := range 5 {
		w.comment(t, w.mg, "c"+strconv.Itoa(i))
	}
	// One on the private repository never shows in hello's lists.
	if _, _, err := w.hg.Repositories.CreateComment(ctx, "mona", "secret", w.secretSHA, github.CreateCommitCommentRequest{Body: "private"}); err != nil {
		t.Fatal(err)
	}
	collect := func(list func(opt *github.ListOptions) ([]*github.RepositoryComment, *github.Response, error)) ([]string, int) {
		var out []string
		pages := 0
		opt := &github.ListOptions{PerPage: 2}
		for {
			page, resp, err := list(opt)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, c := range page {
				out = append(out, c.GetBody())
			}
			if resp.NextPage == 0 {
				return out, pages
			}
			opt.Page = resp.NextPage
		}
	}
	want := []string{"c0", "c1", "c2", "c3", "c4"}
	got, pages := collect(func(o *github.ListOptions) ([]*github.RepositoryComment, *github.Response, error) {
		return w.eg.Repositories.ListComments(ctx, "mona", "hello", o)
	})
	if !slices.Equal(got, want) || pages != 3 {
		t.Fatalf("repo list %v in %d pages", got, pages)
	}
	got, pages = collect(func(o *github.ListOptions) ([]*github.RepositoryComment, *github.Response, error) {
		return w.eg.Repositories.ListCommitComments(ctx, "mona", "hello", w.helloSHA, o)
	})
	if !slices.Equal(got, want) || pages != 3 {
		t.Fatalf("commit list %v in %d pages", got, pages)
	}
	r := w.e.Must(200, "GET", "/repos/mona/hello/comments?per_page=2&page=2", "", nil)
	if l := r.Header.Get("Link"); !strings.Contains(l, `rel="next"`) || !strings.Contains(l, `rel="prev"`) || !strings.Contains(l, `rel="last"`) {
		t.Fatalf("Link %q", l)
	}
	// A commit that does not exist has no comments.
	list, _, err := w.mg.Repositories.ListCommitComments(ctx, "mona", "hello", strings.Repeat("0", 40), nil)
	if err != nil || len(list) != 0 {
		t.Fatalf("unknown commit: %v %v", list, err)
	}
	// hubot sees the private one.
	list, _, err = w.hg.Repositories.ListComments(ctx, "mona", "secret", nil)
	if err != nil || len(list) != 1 || list[0].GetBody() != "private" {
		t.Fatalf("secret list %v %v", list, err)
	}
}

func TestUpdateAndDelete(t *testing.T) {
	w := newWorld(t)
	rita := w.comment(t, w.rg, "by rita")
	mona := w.comment(t, w.mg, "by mona")

	// The author edits their own comment.
	up, _, err := w.rg.Repositories.UpdateComment(ctx, "mona", "hello", rita.GetID(), github.UpdateCommitCommentRequest{Body: "edited"})
	if err != nil || up.GetBody() != "edited" {
		t.Fatalf("update %+v %v", up, err)
	}
	// Write access edits anyone's.
	up, _, err = w.hg.Repositories.UpdateComment(ctx, "mona", "hello", mona.GetID(), github.UpdateCommitCommentRequest{Body: "by hubot"})
	if err != nil || up.GetBody() != "by hubot" || up.GetUser().GetLogin() != "mona" {
		t.Fatalf("update by writer %+v %v", up, err)
	}
	// The author deletes their own; write access deletes anyone's.
	if _, err := w.rg.Repositories.DeleteComment(ctx, "mona", "hello", rita.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.hg.Repositories.DeleteComment(ctx, "mona", "hello", mona.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.Repositories.GetComment(ctx, "mona", "hello", rita.GetID()); apitest.Status(err) != http.StatusNotFound {
		t.Fatalf("deleted comment: %v", err)
	}
	bodies, events := w.state(t)
	if len(bodies) != 0 || events != 6 { // 2 created, 2 edited, 2 deleted
		t.Fatalf("state %v %d", bodies, events)
	}
}

// TestRefusals: each refused request answers GitHub's status and writes
// nothing.
func TestRefusals(t *testing.T) {
	w := newWorld(t)
	mona := w.comment(t, w.mg, "by mona")
	id := strconv.FormatInt(mona.GetID(), 10)
	secret, _, err := w.hg.Repositories.CreateComment(ctx, "mona", "secret", w.secretSHA, github.CreateCommitCommentRequest{Body: "s"})
	if err != nil {
		t.Fatal(err)
	}
	sid := strconv.FormatInt(secret.GetID(), 10)
	long := strings.Repeat("é", 65537)
	cases := []struct {
		name, method, path, token string
		body                      any
		want                      int
		message                   string
	}{
		{"reader edits another's", "PATCH", "/repos/mona/hello/comments/" + id, w.ritaT, map[string]any{"body": "x"}, 403, "Must have write access to Repository."},
		{"reader deletes another's", "DELETE", "/repos/mona/hello/comments/" + id, w.ritaT, nil, 403, "Must have write access to Repository."},
		{"outsider edits", "PATCH", "/repos/mona/hello/comments/" + id, w.eveT, map[string]any{"body": "x"}, 403, ""},
		{"anonymous creates", "POST", "/repos/mona/hello/commits/" + w.helloSHA + "/comments", "", map[string]any{"body": "x"}, 401, ""},
		{"outsider reads private", "GET", "/repos/mona/secret/comments/" + sid, w.eveT, nil, 404, "Not Found"},
		{"outsider lists private", "GET", "/repos/mona/secret/comments", w.eveT, nil, 404, "Not Found"},
		{"outsider lists private commit", "GET", "/repos/mona/secret/commits/" + w.secretSHA + "/comments", w.eveT, nil, 404, "Not Found"},
		{"outsider comments private", "POST", "/repos/mona/secret/commits/" + w.secretSHA + "/comments", w.eveT, map[string]any{"body": "x"}, 404, "Not Found"},
		{"outsider deletes private", "DELETE", "/repos/mona/secret/comments/" + sid, w.eveT, nil, 404, "Not Found"},
		{"comment of another repo", "GET", "/repos/mona/hello/comments/" + sid, w.hubotT, nil, 404, "Not Found"},
		{"unknown comment", "GET", "/repos/mona/hello/comments/999999", w.monaT, nil, 404, "Not Found"},
		{"bad comment id", "GET", "/repos/mona/hello/comments/abc", w.monaT, nil, 404, "Not Found"},
		{"unknown commit", "POST", "/repos/mona/hello/commits/" + strings.Repeat("a", 40) + "/comments", w.monaT, map[string]any{"body": "x"}, 422, "No commit found for SHA: " + strings.Repeat("a", 40)},
		{"missing body", "POST", "/repos/mona/hello/commits/" + w.helloSHA + "/comments", w.monaT, map[string]any{"path": "README.md"}, 422, ""},
		{"blank body", "POST", "/repos/mona/hello/commits/" + w.helloSHA + "/comments", w.monaT, map[string]any{"body": "  "}, 422, ""},
		{"body too long", "POST", "/repos/mona/hello/commits/" + w.helloSHA + "/comments", w.monaT, map[string]any{"body": long}, 422, ""},
		{"position not a number", "POST", "/repos/mona/hello/commits/" + w.helloSHA + "/comments", w.monaT, map[string]any{"body": "x", "position": "one"}, 422, ""},
		{"edit to blank", "PATCH", "/repos/mona/hello/comments/" + id, w.monaT, map[string]any{"body": ""}, 422, ""},
		{"edit too long", "PATCH", "/repos/mona/hello/comments/" + id, w.monaT, map[string]any{"body": long}, 422, ""},
		{"not JSON", "PATCH", "/repos/mona/hello/comments/" + id, w.monaT, "{", 400, ""},
	}
	before, evBefore := w.state(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := w.e.Must(c.want, c.method, c.path, c.token, c.body)
			if c.message != "" {
				if m := r.Map(t)["message"]; m != c.message {
					t.Fatalf("message %q, want %q", m, c.message)
				}
			}
		})
	}
	after, evAfter := w.state(t)
	if !slices.Equal(before, after) || evBefore != evAfter {
		t.Fatalf("refusals wrote: %v → %v, events %d → %d", before, after, evBefore, evAfter)
	}
	if long := w.e.Must(422, "POST", "/repos/mona/hello/commits/"+w.helloSHA+"/comments", w.monaT, map[string]any{"body": long}).Map(t); !strings.Contains(long["errors"].([]any)[0].(map[string]any)["message"].(string), "maximum is 65536 characters") {
		t.Fatalf("long body error %v", long)
	}
}
