package autolinks_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// Autolink references through go-github: create (201 with Location),
// list, get, delete; GitHub's 422s for invalid and duplicate prefixes; only
// administrators see or manage them (403 for a collaborator with write,
// 404 for a stranger to a private repository, 401 anonymous).
func TestAutolinks(t *testing.T) {
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	hubot, hubotT := e.NewUser("hubot", false)
	_, eveT := e.NewUser("eve", false)
	mg := e.GitHub(monaT)
	repo, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello"), Private: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.GetID(), hubot.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	l, resp, err := mg.Repositories.CreateAutolink(ctx, "mona", "hello", github.CreateAutolinkRequest{KeyPrefix: "TICKET-", URLTemplate: "https://example.com/TICKET?query=<num>"})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	if !l.GetIsAlphanumeric() || l.GetKeyPrefix() != "TICKET-" || resp.Header.Get("Location") != e.API+"/repos/mona/hello/autolinks/"+strconv.FormatInt(l.GetID(), 10) {
		t.Fatalf("created %+v, Location %q", l, resp.Header.Get("Location"))
	}
	num, _, err := mg.Repositories.CreateAutolink(ctx, "mona", "hello", github.CreateAutolinkRequest{KeyPrefix: "T#", URLTemplate: "http://t.test/<num>", IsAlphanumeric: github.Ptr(false)})
	if err != nil || num.GetIsAlphanumeric() {
		t.Fatalf("numeric: %+v %v", num, err)
	}
	list, _, err := mg.Repositories.ListAutolinks(ctx, "mona", "hello")
	if err != nil || len(list) != 2 || list[0].GetID() != l.GetID() || list[1].GetURLTemplate() != "http://t.test/<num>" {
		t.Fatalf("list %+v %v", list, err)
	}
	got, _, err := mg.Repositories.GetAutolink(ctx, "mona", "hello", l.GetID())
	if err != nil || got.GetURLTemplate() != "https://example.com/TICKET?query=<num>" {
		t.Fatalf("get %+v %v", got, err)
	}

	for _, c := range []struct {
		body        map[string]any
		field, code string
		message     string
	}{
		{map[string]any{"key_prefix": "ticket-", "url_template": "https://x.test/<num>"}, "key_prefix", "already_exists", ""},
		{map[string]any{"key_prefix": "JIRA1", "url_template": "https://x.test/<num>"}, "key_prefix", "custom", "key_prefix must not end with a number"},
		{map[string]any{"key_prefix": "JI RA-", "url_template": "https://x.test/<num>"}, "key_prefix", "custom", "key_prefix must only contain letters, numbers, or .-_+=:/#"},
		{map[string]any{"key_prefix": "A-", "url_template": "https://x.test/"}, "url_template", "custom", "url_template is missing a <num> token"},
		{map[string]any{"key_prefix": "A-", "url_template": "ftp://x.test/<num>"}, "url_template", "custom", "url_template must be a valid http or https URL"},
	} {
		var er struct {
			Message string `json:"message"`
			Errors  []struct {
				Resource, Field, Code, Message string
			} `json:"errors"`
		}
		e.Must(422, "POST", "/repos/mona/hello/autolinks", monaT, c.body).JSON(t, &er)
		if er.Message != "Validation Failed" || len(er.Errors) == 0 || er.Errors[0].Resource != "KeyLink" || er.Errors[0].Field != c.field ||
			er.Errors[0].Code != c.code || er.Errors[0].Message != c.message {
			t.Errorf("%v: %+v", c.body, er)
		}
	}
	if list, _, _ := mg.Repositories.ListAutolinks(ctx, "mona", "hello"); len(list) != 2 {
		t.Fatalf("refused creations left %d autolinks", len(list))
	}

	hg, eg := e.GitHub(hubotT), e.GitHub(eveT)
	if _, _, err := hg.Repositories.ListAutolinks(ctx, "mona", "hello"); apitest.Status(err) != 403 {
		t.Errorf("writer lists: %v", err)
	}
	if _, _, err := hg.Repositories.CreateAutolink(ctx, "mona", "hello", github.CreateAutolinkRequest{KeyPrefix: "X-", URLTemplate: "https://x.test/<num>"}); apitest.Status(err) != 403 {
		t.Errorf("writer creates: %v", err)
	}
	if _, err := eg.Repositories.DeleteAutolink(ctx, "mona", "hello", l.GetID()); apitest.Status(err) != 404 {
		t.Errorf("stranger deletes: %v", err)
	}
	e.Must(401, "GET", "/repos/mona/hello/autolinks", "", nil)
	e.Must(404, "GET", "/repos/mona/hello/autolinks/999999", monaT, nil)
	e.Must(404, "GET", "/repos/mona/hello/autolinks/nope", monaT, nil)

	// Markdown rendered in the repository's context links them, for
	// readers who may see it.
	render := func(token string) string {
		r := e.Must(200, "POST", "/markdown", token, map[string]any{"text": "Fixed TICKET-12 and t#5", "mode": "gfm", "context": "mona/hello"})
		return string(r.Body)
	}
	if out := render(monaT); !strings.Contains(out, `<a href="https://example.com/TICKET?query=12">TICKET-12</a>`) || !strings.Contains(out, `<a href="http://t.test/5">t#5</a>`) {
		t.Errorf("markdown in context: %s", out)
	}
	if out := render(eveT); strings.Contains(out, "example.com") {
		t.Errorf("markdown for a reader who may not see the repository: %s", out)
	}

	if _, err := mg.Repositories.DeleteAutolink(ctx, "mona", "hello", l.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := mg.Repositories.DeleteAutolink(ctx, "mona", "hello", l.GetID()); apitest.Status(err) != 404 {
		t.Errorf("second delete: %v", err)
	}
	if out := render(monaT); strings.Contains(out, "example.com") {
		t.Errorf("a deleted autolink still links: %s", out)
	}
}
