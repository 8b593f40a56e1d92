package search_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func repoNames(t *testing.T, gh *github.Client, q string, opts *github.SearchOptions) []string {
	t.Helper()
	res, _, err := gh.Search.Repositories(ctx, q, opts)
	if err != nil {
		t.Fatalf("search repositories %q: %v", q, err)
	}
	var out []string
	for _, r := range res.Repositories {
		out = append(out, r.GetFullName())
	}
	if res.GetTotal() < len(out) {
		t.Fatalf("search repositories %q: total %d for %d items", q, res.GetTotal(), len(out))
	}
	return out
}

func TestSearchRepositories(t *testing.T) {
	w := newWorld(t)
	if _, _, err := w.e.GitHub(w.e.AdminToken).Admin.CreateOrg(ctx, &github.Organization{Login: github.Ptr("acme")}, "mona"); err != nil {
		t.Fatal(err)
	}
	tools, _, err := w.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools"), Description: github.Ptr("Widget tools"),
		IsTemplate: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.gh.Repositories.Edit(ctx, "acme", "tools", &github.Repository{Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.hubotGH.Repositories.CreateFork(ctx, "mona", "app", nil); err != nil && !strings.Contains(err.Error(), "job scheduled") {
		t.Fatal(err)
	}
	w.e.RunJobs()
	if _, err := w.hubotGH.Activity.Star(ctx, "mona", "app"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q     string
		names []string
	}{
		{"widgets", []string{"mona/app"}},
		{"widget", []string{"mona/app", "acme/tools"}},
		{"widget in:name", nil},
		{"app in:name", []string{"mona/app"}},
		{"widget in:description", []string{"mona/app", "acme/tools"}},
		{"widget in:readme", nil},
		{"cli", []string{"mona/app"}},
		{"cli in:topics", []string{"mona/app"}},
		{"crash", []string{"mona/secret"}},
		{"user:mona", []string{"mona/app", "mona/secret"}},
		{"org:acme", []string{"acme/tools"}},
		{"user:mona org:acme", []string{"mona/app", "mona/secret", "acme/tools"}},
		{"repo:mona/app", []string{"mona/app"}},
		{"user:mona is:private", []string{"mona/secret"}},
		{"user:mona is:public", []string{"mona/app"}},
		{"user:mona -is:public", []string{"mona/secret"}},
		{"topic:go", []string{"mona/app"}},
		{"topic:GO topic:cli", []string{"mona/app"}},
		{"topic:c", nil},
		{"topics:2", []string{"mona/app"}},
		{"topics:>=1 topics:<3", []string{"mona/app"}},
		{"topics:0 user:mona", []string{"mona/secret"}},
		{"archived:true", []string{"acme/tools"}},
		{"template:true", []string{"acme/tools"}},
		{"archived:false user:mona", []string{"mona/app", "mona/secret"}},
		{"mirror:true", nil},
		{"stars:0 org:acme", []string{"acme/tools"}},
		{"stars:>0", []string{"mona/app"}},
		{"stars:1 widget", []string{"mona/app"}},
		{"stars:2..5", nil},
		{"followers:>=0 org:acme", []string{"acme/tools"}},
		{"forks:1", []string{"mona/app"}},
		{"forks:>=1 forks:1..5", []string{"mona/app"}},
		{"size:>=0 org:acme", []string{"acme/tools"}},
		{"created:>2000-01-01 org:acme", []string{"acme/tools"}},
		{"pushed:<2000-01-01", nil},
		{"app user:hubot", nil},
		{"app user:hubot fork:true", []string{"hubot/app"}},
		{"app fork:only", []string{"hubot/app"}},
		{"app fork:true", []string{"mona/app", "hubot/app"}},
		{"repo:hubot/app", []string{"hubot/app"}},
		{"good-first-issues:>0", nil},
		{"help-wanted-issues:0 org:acme", []string{"acme/tools"}},
		{"license:mit", nil},
		{"is:sponsorable", nil},
		{"(topic:go OR archived:true) widget", []string{"mona/app", "acme/tools"}},
	} {
		want(t, tc.q, repoNames(t, w.gh, tc.q, nil), tc.names...)
	}
	// Private repositories are for those who may see them.
	want(t, "crash as hubot", repoNames(t, w.hubotGH, "crash", nil))
	want(t, "user:mona anonymously", repoNames(t, w.anon, "user:mona", nil), "mona/app")
	refused(t, w.e, apitest.Query("/search/repositories", "q", "repo:mona/secret"), w.hubotTok,
		"The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.")
	refused(t, w.e, apitest.Query("/search/repositories", "q", "user:nobody"), w.monaTok,
		"The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.")
	refused(t, w.e, apitest.Query("/search/repositories", "q", "created:2020-13-45"), w.monaTok,
		`"2020-13-45" is not a recognized date/time format. Please provide an ISO 8601 date/time value, such as YYYY-MM-DD.`)

	// Sorts and the item's shape.
	if got := repoNames(t, w.gh, "widget fork:true", &github.SearchOptions{Sort: "forks"}); got[0] != "mona/app" {
		t.Errorf("sort=forks: %q", got)
	}
	for _, order := range []string{"desc", "asc"} {
		got := repoNames(t, w.gh, "widget", &github.SearchOptions{Sort: "stars", Order: order})
		if first := map[string]string{"desc": "mona/app", "asc": "acme/tools"}[order]; len(got) != 2 || got[0] != first {
			t.Errorf("sort=stars order=%s: %q", order, got)
		}
	}
	if got := repoNames(t, w.gh, "user:mona", &github.SearchOptions{Sort: "updated", Order: "asc"}); len(got) != 2 {
		t.Errorf("sort=updated: %q", got)
	}
	res, resp, err := w.gh.Search.Repositories(ctx, "widget org:acme", &github.SearchOptions{TextMatch: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Repositories[0]
	if r.GetID() != tools.GetID() || !r.GetPermissions().GetAdmin() || !r.GetIsTemplate() || !r.GetArchived() ||
		r.GetPushedAt().IsZero() || r.GetOwner().GetLogin() != "acme" || resp.Header.Get("X-RateLimit-Resource") != "search" {
		t.Errorf("item: %+v", r)
	}
	if len(r.TextMatches) != 1 || r.TextMatches[0].GetProperty() != "description" || r.TextMatches[0].Matches[0].GetText() != "Widget" {
		t.Errorf("text matches: %+v", r.TextMatches)
	}
	// Anonymous callers get no permissions object.
	res, _, err = w.anon.Search.Repositories(ctx, "repo:mona/app", nil)
	if err != nil || len(res.Repositories) != 1 || res.Repositories[0].Permissions != nil {
		t.Errorf("anonymous item: %v %+v", err, res)
	}
}

func TestSearchUsers(t *testing.T) {
	w := newWorld(t)
	if _, _, err := w.gh.Users.Update(ctx, github.UserUpdateRequest{Name: github.Ptr("Mona Lisa"), Location: github.Ptr("Paris")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.e.GitHub(w.e.AdminToken).Admin.CreateOrg(ctx, &github.Organization{Login: github.Ptr("monaco")}, "mona"); err != nil {
		t.Fatal(err)
	}
	logins := func(gh *github.Client, q string, opts *github.SearchOptions) []string {
		t.Helper()
		res, resp, err := gh.Search.Users(ctx, q, opts)
		if err != nil {
			t.Fatalf("search users %q: %v", q, err)
		}
		if resp.Header.Get("X-RateLimit-Resource") != "search" {
			t.Errorf("resource %q", resp.Header.Get("X-RateLimit-Resource"))
		}
		var out []string
		for _, u := range res.Users {
			out = append(out, u.GetLogin())
		}
		return out
	}
	for _, tc := range []struct {
		q      string
		logins []string
	}{
		{"mona", []string{"mona", "monaco"}},
		{"mona type:user", []string{"mona"}},
		{"mona type:org", []string{"monaco"}},
		{"lisa", nil},
		{"lisa in:name", []string{"mona"}},
		{"lisa in:fullname", []string{"mona"}},
		{"fullname:lisa", []string{"mona"}},
		{"location:paris", []string{"mona"}},
		{"user:hubot", []string{"hubot"}},
		{"user:hubot org:monaco", []string{"hubot", "monaco"}},
		{"user:nobody", nil},
		{"repos:1 type:user", []string{"mona"}},
		{"repos:>=1", []string{"mona"}},
		{"repos:0 hubot", []string{"hubot"}},
		{"created:>2000-01-01 hubot", []string{"hubot"}},
		{"followers:>10", nil},
		{"mona -type:org", []string{"mona"}},
	} {
		want(t, tc.q, logins(w.gh, tc.q, nil), tc.logins...)
	}
	// Best match: the exact login first.
	if got := logins(w.anon, "mona", nil); got[0] != "mona" {
		t.Errorf("best match: %q", got)
	}
	if got := logins(w.anon, "type:user", &github.SearchOptions{Sort: "joined", Order: "desc"}); got[0] != "hubot" {
		t.Errorf("sort=joined desc: %q", got)
	}
	if got := logins(w.anon, "type:user", &github.SearchOptions{Sort: "repositories"}); got[0] != "mona" {
		t.Errorf("sort=repositories: %q", got)
	}
	res, _, err := w.anon.Search.Users(ctx, "lisa in:name", &github.SearchOptions{TextMatch: true})
	if err != nil || len(res.Users) != 1 || len(res.Users[0].TextMatches) != 1 || res.Users[0].TextMatches[0].GetProperty() != "name" {
		t.Errorf("text matches: %v %+v", err, res)
	}
	refused(t, w.e, "/search/users?q=", "", "")
	r := w.e.Must(http.StatusUnprocessableEntity, "GET", "/search/users", "", nil)
	if !strings.Contains(string(r.Body), `"code":"missing"`) {
		t.Errorf("no q: %s", r.Body)
	}
}

func TestSearchLabels(t *testing.T) {
	w := newWorld(t)
	names := func(gh *github.Client, id int64, q string, opts *github.SearchOptions) []string {
		t.Helper()
		res, _, err := gh.Search.Labels(ctx, id, q, opts)
		if err != nil {
			t.Fatalf("search labels %q: %v", q, err)
		}
		var out []string
		for _, l := range res.Labels {
			out = append(out, l.GetName())
		}
		return out
	}
	app := w.app.GetID()
	if got := names(w.anon, app, "bug", nil); len(got) == 0 || got[0] != "bug" {
		t.Errorf("bug: %q", got)
	}
	got := names(w.gh, app, "bug enhancement", nil)
	if len(got) < 2 || !contains(got, "bug") || !contains(got, "enhancement") {
		t.Errorf("bug enhancement (any word): %q", got)
	}
	if got := names(w.gh, app, "nosuchlabel", nil); len(got) != 0 {
		t.Errorf("nosuchlabel: %q", got)
	}
	if got := names(w.gh, app, "bug", &github.SearchOptions{Sort: "created", Order: "asc"}); len(got) == 0 {
		t.Errorf("sort=created: %q", got)
	}
	res, _, err := w.gh.Search.Labels(ctx, app, "bug", &github.SearchOptions{TextMatch: true, ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || len(res.Labels) != 1 || res.Labels[0].GetScore() != 1 {
		t.Errorf("page of one: %v %+v", err, res)
	}
	// A private repository is for those who may see it.
	if got := names(w.gh, w.secret.GetID(), "bug", nil); len(got) == 0 {
		t.Errorf("mona's private labels: %q", got)
	}
	for _, tok := range []string{w.hubotTok, ""} {
		w.e.Must(http.StatusNotFound, "GET", apitest.Query("/search/labels", "repository_id", strconv.FormatInt(w.secret.GetID(), 10), "q", "bug"), tok, nil)
	}
	w.e.Must(http.StatusNotFound, "GET", apitest.Query("/search/labels", "repository_id", "999999", "q", "bug"), w.monaTok, nil)
	r := w.e.Must(http.StatusUnprocessableEntity, "GET", apitest.Query("/search/labels", "q", "bug"), w.monaTok, nil)
	if !strings.Contains(string(r.Body), `"field":"repository_id","code":"missing"`) {
		t.Errorf("no repository_id: %s", r.Body)
	}
	r = w.e.Must(http.StatusUnprocessableEntity, "GET", apitest.Query("/search/labels", "repository_id", strconv.FormatInt(app, 10)), w.monaTok, nil)
	if !strings.Contains(string(r.Body), `"field":"q","code":"missing"`) {
		t.Errorf("no q: %s", r.Body)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
