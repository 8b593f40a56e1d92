package activity_test

import (
	"encoding/xml"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// atomFeed is what the tests read of an Atom document.
type atomFeed struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated string   `xml:"updated"`
	Links   []struct {
		Rel  string `xml:"rel,attr"`
		Type string `xml:"type,attr"`
		Href string `xml:"href,attr"`
	} `xml:"link"`
	Entries []struct {
		ID        string `xml:"id"`
		Published string `xml:"published"`
		Updated   string `xml:"updated"`
		Title     struct {
			Type string `xml:"type,attr"`
			Text string `xml:",chardata"`
		} `xml:"title"`
		Link struct {
			Href string `xml:"href,attr"`
		} `xml:"link"`
		Author struct {
			Name string `xml:"name"`
			URI  string `xml:"uri"`
		} `xml:"author"`
		Content struct {
			Type string `xml:"type,attr"`
			Text string `xml:",chardata"`
		} `xml:"content"`
	} `xml:"entry"`
}

// fetchFeed GETs a feed URL (absolute) and parses it; want is the status.
func fetchFeed(t *testing.T, e *apitest.Env, u string, want int, headers ...string) (*apitest.Response, *atomFeed) {
	t.Helper()
	r := e.Do("GET", u, "", nil, append([]string{"Accept: application/atom+xml"}, headers...)...)
	if r.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d: %.300s", u, r.StatusCode, want, r.Body)
	}
	if want != 200 {
		return r, nil
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/atom+xml; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q", u, ct)
	}
	var f atomFeed
	if err := xml.Unmarshal(r.Body, &f); err != nil {
		t.Fatalf("GET %s: not Atom: %v\n%s", u, err, r.Body)
	}
	if f.ID == "" || f.Title == "" || f.Updated == "" || len(f.Links) != 2 {
		t.Errorf("GET %s: feed head %+v", u, f)
	}
	for _, en := range f.Entries {
		if !strings.HasPrefix(en.ID, "tag:127.0.0.1,2008:") || en.Published == "" || en.Updated == "" || en.Title.Type != "html" ||
			en.Content.Type != "html" || en.Author.Name == "" || en.Author.URI != e.URL+"/"+en.Author.Name || en.Link.Href == "" {
			t.Errorf("GET %s: entry %+v", u, en)
		}
	}
	return r, &f
}

// titles are a feed's entry titles, one a line.
func titles(f *atomFeed) string {
	out := make([]string, len(f.Entries))
	for i, en := range f.Entries {
		out[i] = en.Title.Text
	}
	return strings.Join(out, "\n")
}

// GET /feeds through go-github, and the Atom feeds it names: public ones
// for anyone, private ones with the user's feed token only, with the
// visibility of the REST event lists.
func TestFeeds(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	mona, hubot := e.GitHub(monaTok), e.GitHub(hubotTok)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})

	// Anonymous: the public feeds only.
	anon, _, err := e.GitHub("").Activity.ListFeeds(ctx)
	if err != nil || anon.GetTimelineURL() != e.URL+"/timeline" || anon.GetUserURL() != e.URL+"/{user}" ||
		anon.CurrentUserURL != nil || anon.Links.GetTimeline().GetType() != "application/atom+xml" {
		t.Fatalf("anonymous feeds: %+v %v", anon, err)
	}
	feeds, _, err := mona.Activity.ListFeeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cur := feeds.GetCurrentUserURL()
	pu, err := url.Parse(cur)
	if err != nil || pu.Path != "/mona.private" || pu.Query().Get("token") == "" {
		t.Fatalf("current_user_url %q", cur)
	}
	tok := pu.Query().Get("token")
	if tok == monaTok || strings.Contains(tok, monaTok) {
		t.Fatal("the feed token is the API token")
	}
	if feeds.GetCurrentUserPublicURL() != e.URL+"/mona" || feeds.GetCurrentUserActorURL() != e.URL+"/mona.private.actor?token="+tok ||
		feeds.GetCurrentUserOrganizationURL() != e.URL+"/organizations/{org}/mona.private.atom?token="+tok ||
		len(feeds.CurrentUserOrganizationURLs) != 1 || feeds.CurrentUserOrganizationURLs[0] != e.URL+"/organizations/acme/mona.private.atom?token="+tok ||
		feeds.Links.GetCurrentUser().GetHRef() != cur || len(feeds.Links.CurrentUserOrganizations) != 1 {
		t.Fatalf("mona's feeds: %+v", feeds)
	}
	// The token is stable and the user's own: hubot's differs.
	again, _, _ := mona.Activity.ListFeeds(ctx)
	other, _, _ := hubot.Activity.ListFeeds(ctx)
	if again.GetCurrentUserURL() != cur || other.GetCurrentUserURL() == "" || strings.Contains(other.GetCurrentUserURL(), tok) {
		t.Fatalf("feed tokens: %q %q", again.GetCurrentUserURL(), other.GetCurrentUserURL())
	}
	hubotFeeds := other.GetCurrentUserURL()
	if len(other.CurrentUserOrganizationURLs) != 0 {
		t.Fatalf("hubot's organization feeds: %v", other.CurrentUserOrganizationURLs)
	}
	// A narrower token gets the public feed only.
	monaAccount, err := e.Store.R().AccountByLogin(ctx, "mona")
	if err != nil {
		t.Fatal(err)
	}
	for _, narrow := range []string{fineGrained(t, e, monaAccount), e.Token(monaAccount, "public_repo")} {
		f, _, err := e.GitHub(narrow).Activity.ListFeeds(ctx)
		if err != nil || f.GetCurrentUserPublicURL() != e.URL+"/mona" || f.CurrentUserURL != nil || f.Links.CurrentUser != nil ||
			f.CurrentUserOrganizationURLs != nil {
			t.Fatalf("feeds for a narrow token: %+v %v", f, err)
		}
	}

	create(t, mona, "app", false)
	create(t, mona, "secret", true)
	for _, repo := range []string{"app", "secret"} {
		if _, _, err := mona.Repositories.CreateFile(ctx, "mona", repo, "README.md", &github.RepositoryContentFileOptions{
			Message: github.Ptr("first <line>"), Content: []byte("hello\n")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := mona.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "a <bug>"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mona.Issues.Create(ctx, "mona", "secret", github.CreateIssueRequest{Title: "hidden"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pub", "priv"} {
		if _, _, err := mona.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(name == "priv")}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := mona.Issues.Create(ctx, "acme", name, github.CreateIssueRequest{Title: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := hubot.Activity.Star(ctx, "mona", "app"); err != nil {
		t.Fatal(err)
	}
	sync(t, e)

	// The public timeline and a user's public feed: no private event.
	_, tl := fetchFeed(t, e, e.URL+"/timeline", 200)
	if got, want := titles(tl), "hubot starred mona/app\nmona opened issue acme/pub#1\nmona opened issue mona/app#1\nmona created a branch main in mona/app\nmona pushed to main in mona/app"; got != want {
		t.Fatalf("timeline:\n%s\nwant:\n%s", got, want)
	}
	if tl.Entries[2].Content.Text != "<p>a &lt;bug&gt;</p>" || !strings.Contains(tl.Entries[4].Content.Text, "first &lt;line&gt;") {
		t.Errorf("content: %q %q", tl.Entries[2].Content.Text, tl.Entries[4].Content.Text)
	}
	if !strings.HasPrefix(tl.Entries[4].ID, "tag:127.0.0.1,2008:PushEvent/") || tl.Entries[2].Link.Href != e.URL+"/mona/app/issues/1" {
		t.Errorf("entries: %+v", tl.Entries)
	}
	_, tl2 := fetchFeed(t, e, e.URL+"/timeline.atom", 200)
	if titles(tl2) != titles(tl) {
		t.Error("/timeline.atom differs from /timeline")
	}
	_, pub := fetchFeed(t, e, e.URL+"/mona.atom", 200)
	if got, want := titles(pub), "mona opened issue acme/pub#1\nmona opened issue mona/app#1\nmona created a branch main in mona/app\nmona pushed to main in mona/app"; got != want {
		t.Fatalf("mona.atom:\n%s", got)
	}
	// /{user} asked for as Atom is the feed; otherwise the profile page.
	_, neg := fetchFeed(t, e, e.URL+"/mona", 200)
	if titles(neg) != titles(pub) {
		t.Error("/mona as Atom differs from /mona.atom")
	}
	if r := e.Do("GET", e.URL+"/mona", "", nil, "Accept: text/html"); r.StatusCode != 200 || !strings.Contains(r.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/mona as html: %d %s", r.StatusCode, r.Header.Get("Content-Type"))
	}

	// Private feeds need the token: a wrong one, another user's, or none is a 404.
	hu, _ := url.Parse(hubotFeeds)
	for _, u := range []string{e.URL + "/mona.private", e.URL + "/mona.private.atom?token=nope",
		e.URL + "/mona.private.actor.atom?token=" + hu.Query().Get("token"),
		e.URL + "/organizations/acme/mona.private.atom", e.URL + "/nobody.private?token=" + tok} {
		fetchFeed(t, e, u, 404)
	}
	// What mona received: the repositories she watches, private ones included.
	_, recv := fetchFeed(t, e, cur, 200)
	if got := titles(recv); !strings.Contains(got, "mona opened issue mona/secret#1") || !strings.Contains(got, "mona pushed to main in mona/secret") ||
		!strings.Contains(got, "hubot starred mona/app") {
		t.Fatalf("mona.private:\n%s", got)
	}
	_, actor := fetchFeed(t, e, feeds.GetCurrentUserActorURL(), 200)
	if got := titles(actor); strings.Contains(got, "hubot") || !strings.Contains(got, "mona opened issue acme/priv#1") || !strings.Contains(got, "mona/secret") {
		t.Fatalf("mona.private.actor:\n%s", got)
	}
	_, org := fetchFeed(t, e, feeds.CurrentUserOrganizationURLs[0], 200)
	if got := titles(org); got != "mona opened issue acme/priv#1\nmona opened issue acme/pub#1" {
		t.Fatalf("organization feed:\n%s", got)
	}
	// hubot's own private feeds hold no private event of mona's.
	_, hrecv := fetchFeed(t, e, hubotFeeds, 200)
	if got := titles(hrecv); strings.Contains(got, "secret") || strings.Contains(got, "priv") {
		t.Fatalf("hubot.private:\n%s", got)
	}
	// hubot, not a member, has no feed of acme even with a valid token.
	fetchFeed(t, e, strings.Replace(hubotFeeds, "/hubot.private?", "/organizations/acme/hubot.private?", 1), 404)

	// Conditional requests.
	r, _ := fetchFeed(t, e, e.URL+"/mona.atom", 200)
	fetchFeed(t, e, e.URL+"/mona.atom", 304, "If-None-Match: "+r.Header.Get("ETag"))
	fetchFeed(t, e, e.URL+"/mona.atom", 304, "If-Modified-Since: "+r.Header.Get("Last-Modified"))
	fetchFeed(t, e, e.URL+"/mona.atom", 200, `If-None-Match: "other"`)
	// Pages: 30 entries each.
	_, p2 := fetchFeed(t, e, e.URL+"/mona.atom?page=2", 200)
	if len(p2.Entries) != 0 {
		t.Errorf("page 2: %d entries", len(p2.Entries))
	}
	fetchFeed(t, e, e.URL+"/mona.atom?page=x", 404)
	// An API route keeps its answer when asked for as Atom.
	if r := e.Do("GET", e.URL+"/events", "", nil, "Accept: application/atom+xml"); strings.Contains(r.Header.Get("Content-Type"), "atom") {
		t.Errorf("/events answered as a feed")
	}
}
