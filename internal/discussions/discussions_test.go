package discussions_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/discussions"
	"github.com/hubd/hubd/internal/hooks/hookstest"
	"github.com/hubd/hubd/internal/model"
)

var ctx = context.Background()

type world struct {
	e    *apitest.Env
	mona *model.Account
	tok  string
	svc  *discussions.Service
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	w := &world{e: e, svc: discussions.New(e.Store)}
	w.mona, w.tok = e.NewUser("mona", false)
	gh := e.GitHub(w.tok)
	for _, name := range []string{"app", "docs"} {
		if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), AutoInit: github.Ptr(true), HasDiscussions: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Repositories.Edit(ctx, "mona", name, &github.Repository{HasDiscussions: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// access is mona's (or c's) access to one of her repositories.
func (w *world) access(t *testing.T, c *authz.Caller, name string) *discussions.Access {
	t.Helper()
	v, err := w.e.Store.R().RepoByName(ctx, "mona", name, c.UserID())
	if err != nil {
		t.Fatal(err)
	}
	return &discussions.Access{Caller: c, Repo: v.Repo, Perm: authz.RepoPermission(c, v.Repo, v.Facts)}
}

func (w *world) caller() *authz.Caller {
	return &authz.Caller{Kind: authz.ClassicPAT, User: w.mona, Scopes: authz.ParseScopes("repo")}
}

func category(t *testing.T, w *world, x *discussions.Access, slug string) *model.DiscussionCategory {
	t.Helper()
	cats, err := w.svc.Categories(ctx, []*model.Repo{x.Repo})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cats[x.Repo.ID] {
		if c.Slug == slug {
			return c
		}
	}
	t.Fatalf("no category %s", slug)
	return nil
}

// TestDiscussionWebhooks: a repository hook gets discussion (created,
// edited, category_changed, labeled, answered, unanswered, locked,
// pinned, closed, reopened, deleted, transferred) and discussion_comment (created,
// edited, deleted), each valid against GitHub's webhook schemas.
func TestDiscussionWebhooks(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8,::1")
	sch, err := hookstest.LoadFlavour("ghec")
	if err != nil {
		t.Fatal(err)
	}
	recv := hookstest.NewReceiver(t)
	w := newWorld(t)
	if _, _, err := w.e.GitHub(w.tok).Repositories.CreateHook(ctx, "mona", "app", &github.Hook{Name: github.Ptr("web"),
		Config: &github.HookConfig{URL: github.Ptr(recv.URL), ContentType: github.Ptr("json")},
		Events: []string{"discussion", "discussion_comment"}}); err != nil {
		t.Fatal(err)
	}
	recv.WaitFor(t, "ping", "")
	check := func(event, action string) map[string]any {
		t.Helper()
		d := recv.WaitFor(t, event, action)
		if err := sch.Validate(d.Event(), d.Payload); err != nil {
			t.Errorf("%s %s: %v\n%.1500s", event, action, err, d.Payload)
		}
		return d.Map(t)
	}
	x := w.access(t, w.caller(), "app")
	qa := category(t, w, x, "q-a")
	d, err := w.svc.Create(ctx, x, qa.ID, "Why?", "Because")
	if err != nil {
		t.Fatal(err)
	}
	m := check("discussion", "created")
	if disc := m["discussion"].(map[string]any); disc["title"] != "Why?" || disc["category"].(map[string]any)["slug"] != "q-a" {
		t.Errorf("created: %v", disc)
	}
	title := "Why, really?"
	if err := w.svc.Update(ctx, x, d, discussions.Input{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if m := check("discussion", "edited"); m["changes"].(map[string]any)["title"].(map[string]any)["from"] != "Why?" {
		t.Errorf("edited: %v", m["changes"])
	}
	c, err := w.svc.AddComment(ctx, x, d, "This", 0)
	if err != nil {
		t.Fatal(err)
	}
	check("discussion_comment", "created")
	if _, err := w.svc.AddComment(ctx, x, d, "Reply", c.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.svc.UpdateComment(ctx, x, d, c, "This one"); err != nil {
		t.Fatal(err)
	}
	check("discussion_comment", "edited")
	if err := w.svc.MarkAnswer(ctx, x, d, c, true); err != nil {
		t.Fatal(err)
	}
	if m := check("discussion", "answered"); m["answer"].(map[string]any)["body"] != "This one" {
		t.Errorf("answered: %v", m["answer"])
	}
	if err := w.svc.MarkAnswer(ctx, x, d, c, false); err != nil {
		t.Fatal(err)
	}
	check("discussion", "unanswered")
	labels, err := w.e.Store.R().LabelsByName(ctx, x.Repo.ID, []string{"bug"})
	if err != nil || labels["bug"] == nil {
		t.Fatalf("label bug: %v", err)
	}
	if err := w.svc.SetLabels(ctx, x, d, []*model.Label{labels["bug"]}, true); err != nil {
		t.Fatal(err)
	}
	if m := check("discussion", "labeled"); m["label"].(map[string]any)["name"] != "bug" {
		t.Errorf("labeled: %v", m["label"])
	}
	if err := w.svc.Lock(ctx, x, d, true, "RESOLVED"); err != nil {
		t.Fatal(err)
	}
	check("discussion", "locked")
	if err := w.svc.Pin(ctx, x, d, true); err != nil {
		t.Fatal(err)
	}
	check("discussion", "pinned")
	if err := w.svc.Close(ctx, x, d, "DUPLICATE"); err != nil {
		t.Fatal(err)
	}
	if m := check("discussion", "closed"); m["discussion"].(map[string]any)["state_reason"] != "duplicate" {
		t.Errorf("closed: %v", m["discussion"])
	}
	if err := w.svc.Reopen(ctx, x, d); err != nil {
		t.Fatal(err)
	}
	check("discussion", "reopened")
	general := category(t, w, x, "general")
	if err := w.svc.Update(ctx, x, d, discussions.Input{CategoryID: &general.ID}); err != nil {
		t.Fatal(err)
	}
	if m := check("discussion", "category_changed"); m["changes"].(map[string]any)["category"].(map[string]any)["from"].(map[string]any)["slug"] != "q-a" {
		t.Errorf("category_changed: %v", m["changes"])
	}
	if err := w.svc.DeleteComment(ctx, x, d, c); err != nil {
		t.Fatal(err)
	}
	check("discussion_comment", "deleted")
	if err := w.svc.Delete(ctx, x, d); err != nil {
		t.Fatal(err)
	}
	check("discussion", "deleted")
	moving, err := w.svc.Create(ctx, x, general.ID, "Moving", "to docs")
	if err != nil {
		t.Fatal(err)
	}
	check("discussion", "created")
	if err := w.svc.Transfer(ctx, x, moving, w.access(t, w.caller(), "docs")); err != nil {
		t.Fatal(err)
	}
	m = check("discussion", "transferred")
	ch := m["changes"].(map[string]any)
	nd, nr := ch["new_discussion"].(map[string]any), ch["new_repository"].(map[string]any)
	if nr["full_name"] != "mona/docs" || nd["number"] != float64(moving.Number) || !strings.HasSuffix(nd["html_url"].(string), "/mona/docs/discussions/"+itoa(moving.Number)) ||
		m["discussion"].(map[string]any)["repository_url"] == nd["repository_url"] {
		t.Errorf("transferred: %v", ch)
	}
}

// TestTransferAndConvert: a discussion moves to another repository of its
// owner with the next number there, its comments and the category of the
// same slug; an issue becomes a discussion with its title, body, labels
// and comments, and is closed and locked.
func TestTransferAndConvert(t *testing.T) {
	w := newWorld(t)
	c := w.caller()
	app, docs := w.access(t, c, "app"), w.access(t, c, "docs")
	w.e.Must(201, "POST", "/repos/mona/docs/issues", w.tok, map[string]any{"title": "first"})
	d, err := w.svc.Create(ctx, app, category(t, w, app, "ideas").ID, "Move me", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.AddComment(ctx, app, d, "a comment", 0); err != nil {
		t.Fatal(err)
	}
	if err := w.svc.Transfer(ctx, app, d, docs); err != nil {
		t.Fatal(err)
	}
	moved, err := w.svc.Get(ctx, docs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if moved.ID != d.ID || moved.CategoryID != category(t, w, docs, "ideas").ID || moved.Comments != 1 {
		t.Fatalf("moved: %+v", moved)
	}
	if _, err := w.svc.Get(ctx, app, d.Number); err == nil {
		t.Fatal("the discussion is still in app")
	}

	var is struct{ Number int64 }
	w.e.Must(201, "POST", "/repos/mona/app/issues", w.tok, map[string]any{"title": "Question", "body": "How?", "labels": []string{"question"}}).JSON(t, &is)
	w.e.Must(201, "POST", "/repos/mona/app/issues/"+itoa(is.Number)+"/comments", w.tok, map[string]any{"body": "Like so"})
	issue, err := w.e.Store.R().IssueByNumber(ctx, app.Repo.ID, is.Number)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := w.svc.ConvertIssue(ctx, app, issue, category(t, w, app, "q-a").ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.svc.Get(ctx, app, conv.Number)
	if err != nil {
		t.Fatal(err)
	}
	labels, err := w.e.Store.R().DiscussionLabelsOf(ctx, []int64{got.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Question" || got.Body != "How?" || got.Comments != 1 || len(labels[got.ID]) != 1 || got.User == nil || got.User.Login != "mona" {
		t.Fatalf("converted: %+v %v", got, labels)
	}
	var after struct {
		State  string
		Locked bool
	}
	w.e.Must(200, "GET", "/repos/mona/app/issues/"+itoa(is.Number), w.tok, nil).JSON(t, &after)
	if after.State != "closed" || !after.Locked {
		t.Fatalf("issue after conversion: %+v", after)
	}
	// A reader may not convert.
	other, _ := w.e.NewUser("olga", false)
	oc := &authz.Caller{Kind: authz.ClassicPAT, User: other, Scopes: authz.ParseScopes("repo")}
	if _, err := w.svc.ConvertIssue(ctx, w.access(t, oc, "app"), issue, category(t, w, app, "q-a").ID); err == nil {
		t.Fatal("a reader converted an issue")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestDiscussionNotifications: a new discussion notifies the users it
// mentions and the repository's watchers; a comment notifies the
// discussion's author and its participants; the threads are of type
// Discussion in GET /notifications (schema-checked through go-github).
func TestDiscussionNotifications(t *testing.T) {
	w := newWorld(t)
	olga, olgaTok := w.e.NewUser("olga", false)
	_, melTok := w.e.NewUser("mel", false)
	_, watchTok := w.e.NewUser("walt", false)
	if _, _, err := w.e.GitHub(watchTok).Activity.SetRepositorySubscription(ctx, "mona", "app", &github.Subscription{Subscribed: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	oc := &authz.Caller{Kind: authz.ClassicPAT, User: olga, Scopes: authz.ParseScopes("repo")}
	ox := w.access(t, oc, "app")
	d, err := w.svc.Create(ctx, ox, category(t, w, ox, "q-a").ID, "Help", "How do I start? cc @mel")
	if err != nil {
		t.Fatal(err)
	}
	sync := func() {
		t.Helper()
		if err := w.e.Deps.Outbox.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	inbox := func(tok string) string {
		t.Helper()
		list, _, err := w.e.GitHub(tok).Activity.ListNotifications(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range list {
			s := n.GetSubject()
			if s.GetType() != "Discussion" || !strings.HasSuffix(s.GetURL(), "/repos/mona/app/discussions/"+itoa(d.Number)) {
				t.Errorf("subject %+v", s)
			}
			out = append(out, s.GetTitle()+":"+n.GetReason())
		}
		return strings.Join(out, ",")
	}
	if got := inbox(melTok); got != "Help:mention" {
		t.Errorf("mel after the discussion: %q", got)
	}
	if got := inbox(watchTok); got != "Help:subscribed" {
		t.Errorf("the watcher after the discussion: %q", got)
	}
	if got := inbox(olgaTok); got != "" {
		t.Errorf("the author hears of her own discussion: %q", got)
	}
	// Mona answers: olga hears as the author, mel as a participant.
	if _, err := w.svc.AddComment(ctx, w.access(t, w.caller(), "app"), d, "Read the docs", 0); err != nil {
		t.Fatal(err)
	}
	sync()
	if got := inbox(olgaTok); got != "Help:author" {
		t.Errorf("olga after a comment: %q", got)
	}
	if got := inbox(melTok); got != "Help:mention" {
		t.Errorf("mel after a comment: %q", got)
	}
}
