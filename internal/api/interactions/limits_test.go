package interactions_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

func TestRepoLimits(t *testing.T) {
	f := newFixture(t)
	e := f.e

	// No limit: an empty object.
	if r := e.Must(200, "GET", "/repos/mona/app/interaction-limits", f.tok, nil); strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("no limit: %s", r.Body)
	}
	got, _, err := f.gh.Interactions.GetRestrictionsForRepo(ctx, "mona", "app")
	if err != nil || got.Limit != nil {
		t.Fatalf("go-github no limit: %+v %v", got, err)
	}

	// A limit without expiry lasts one day.
	set, resp, err := f.gh.Interactions.UpdateRestrictionsForRepo(ctx, "mona", "app", "contributors_only")
	if err != nil || resp.StatusCode != 200 || set.GetLimit() != "contributors_only" || set.GetOrigin() != "repository" ||
		!set.GetExpiresAt().Time.Equal(t0.Add(24*time.Hour)) {
		t.Fatalf("set: %+v %v", set, err)
	}
	got, _, err = f.gh.Interactions.GetRestrictionsForRepo(ctx, "mona", "app")
	if err != nil || got.GetLimit() != "contributors_only" || got.GetOrigin() != "repository" || !got.GetExpiresAt().Time.Equal(t0.Add(24*time.Hour)) {
		t.Fatalf("get: %+v %v", got, err)
	}
	// Anyone who sees the repository sees its limit.
	if got, _, err := e.GitHub("").Interactions.GetRestrictionsForRepo(ctx, "mona", "app"); err != nil || got.GetLimit() != "contributors_only" {
		t.Errorf("anonymous get: %+v %v", got, err)
	}

	// Each expiry; setting again replaces the limit.
	for expiry, until := range map[string]time.Time{"one_day": t0.Add(24 * time.Hour), "three_days": t0.Add(72 * time.Hour),
		"one_week": t0.Add(7 * 24 * time.Hour), "one_month": t0.AddDate(0, 1, 0), "six_months": t0.AddDate(0, 6, 0)} {
		m := e.Must(200, "PUT", "/repos/mona/app/interaction-limits", f.tok, map[string]any{"limit": "collaborators_only", "expiry": expiry}).Map(t)
		if m["expires_at"] != until.Format(time.RFC3339) || m["limit"] != "collaborators_only" || m["origin"] != "repository" {
			t.Errorf("%s: %v", expiry, m)
		}
	}
	if n := f.events(t, "interaction_limit"); n != 6 {
		t.Errorf("events after 6 sets: %d", n)
	}

	if resp, err := f.gh.Interactions.RemoveRestrictionsFromRepo(ctx, "mona", "app"); err != nil || resp.StatusCode != 204 {
		t.Fatalf("remove: %v", err)
	}
	if r := e.Must(200, "GET", "/repos/mona/app/interaction-limits", f.tok, nil); strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("after remove: %s", r.Body)
	}
	// Removing nothing is a 204 and writes no event.
	e.Must(204, "DELETE", "/repos/mona/app/interaction-limits", f.tok, nil)
	if n := f.events(t, "interaction_limit"); n != 7 {
		t.Errorf("events after removes: %d", n)
	}
}

func TestRepoLimitErrors(t *testing.T) {
	f := newFixture(t)
	writer, writerTok := f.oldUser(t, "writer")
	f.collab(t, f.app, writer.ID, authz.Write)
	_, strangerTok := f.oldUser(t, "stranger")
	readOnly := f.e.Token(f.mona, "read:org")
	body := map[string]any{"limit": "existing_users"}
	for _, c := range []struct {
		name, method, path, token string
		body                      any
		want                      int
		msg                       string
	}{
		{"bad limit", "PUT", "/repos/mona/app/interaction-limits", f.tok, map[string]any{"limit": "everyone"}, 422, ""},
		{"bad expiry", "PUT", "/repos/mona/app/interaction-limits", f.tok, map[string]any{"limit": "existing_users", "expiry": "forever"}, 422, ""},
		{"no limit", "PUT", "/repos/mona/app/interaction-limits", f.tok, map[string]any{"expiry": "one_day"}, 422, ""},
		{"not json", "PUT", "/repos/mona/app/interaction-limits", f.tok, "{", 400, ""},
		{"anonymous", "PUT", "/repos/mona/app/interaction-limits", "", body, 401, ""},
		{"writer", "PUT", "/repos/mona/app/interaction-limits", writerTok, body, 403, "Must have admin rights to Repository."},
		{"writer removes", "DELETE", "/repos/mona/app/interaction-limits", writerTok, nil, 403, "Must have admin rights to Repository."},
		{"stranger", "PUT", "/repos/mona/app/interaction-limits", strangerTok, body, 403, "Must have admin rights to Repository."},
		{"token without repo scope", "PUT", "/repos/mona/app/interaction-limits", readOnly, body, 403, ""},
		{"private, stranger", "GET", "/repos/mona/secret/interaction-limits", strangerTok, nil, 404, ""},
		{"private, stranger sets", "PUT", "/repos/mona/secret/interaction-limits", strangerTok, body, 404, ""},
		{"no repository", "GET", "/repos/mona/nope/interaction-limits", f.tok, nil, 404, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.e.Do(c.method, c.path, c.token, c.body)
			if r.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, c.want, r.Body)
			}
			if c.msg != "" && r.Map(t)["message"] != c.msg {
				t.Errorf("message %s", r.Body)
			}
		})
	}
	// Nothing was stored, no event written.
	if r := f.e.Must(200, "GET", "/repos/mona/app/interaction-limits", f.tok, nil); strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("after refusals: %s", r.Body)
	}
	if n := f.events(t, "interaction_limit"); n != 0 {
		t.Errorf("events: %d", n)
	}
}

func TestOrgLimits(t *testing.T) {
	f := newFixture(t)
	e := f.e
	member, memberTok := f.oldUser(t, "member")
	f.member(t, member, model.RoleMember)
	_, strangerTok := f.oldUser(t, "stranger")

	if r := e.Must(200, "GET", "/orgs/acme/interaction-limits", f.tok, nil); strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("no org limit: %s", r.Body)
	}
	// A repository limit first: the organization's overwrites it.
	if _, _, err := f.gh.Interactions.UpdateRestrictionsForRepo(ctx, "acme", "site", "existing_users"); err != nil {
		t.Fatal(err)
	}
	set, _, err := f.gh.Interactions.UpdateRestrictionsForOrg(ctx, "acme", "collaborators_only")
	if err != nil || set.GetLimit() != "collaborators_only" || set.GetOrigin() != "organization" || !set.GetExpiresAt().Time.Equal(t0.Add(24*time.Hour)) {
		t.Fatalf("org set: %+v %v", set, err)
	}
	got, _, err := f.gh.Interactions.GetRestrictionsForOrg(ctx, "acme")
	if err != nil || got.GetLimit() != "collaborators_only" || got.GetOrigin() != "organization" {
		t.Fatalf("org get: %+v %v", got, err)
	}
	// Its repositories show the organization's limit.
	rg, _, err := f.gh.Interactions.GetRestrictionsForRepo(ctx, "acme", "site")
	if err != nil || rg.GetOrigin() != "organization" || rg.GetLimit() != "collaborators_only" {
		t.Fatalf("repo under org limit: %+v %v", rg, err)
	}
	// While it is in force a repository's own limit cannot be changed.
	for _, m := range []string{"PUT", "DELETE"} {
		r := e.Do(m, "/repos/acme/site/interaction-limits", f.tok, map[string]any{"limit": "existing_users"})
		if r.StatusCode != 409 {
			t.Errorf("%s repo under org limit: %d %s", m, r.StatusCode, r.Body)
		}
	}
	// Errors: members who are not owners, strangers, unknown organizations.
	for _, c := range []struct {
		name, method, path, token string
		want                      int
	}{
		{"member gets", "GET", "/orgs/acme/interaction-limits", memberTok, 403},
		{"member sets", "PUT", "/orgs/acme/interaction-limits", memberTok, 403},
		{"member removes", "DELETE", "/orgs/acme/interaction-limits", memberTok, 403},
		{"stranger sets", "PUT", "/orgs/acme/interaction-limits", strangerTok, 403},
		{"anonymous", "GET", "/orgs/acme/interaction-limits", "", 401},
		{"owner without admin:org", "PUT", "/orgs/acme/interaction-limits", e.Token(f.mona, "repo,read:org"), 403},
		{"unknown org", "GET", "/orgs/nope/interaction-limits", f.tok, 404},
		{"bad limit", "PUT", "/orgs/acme/interaction-limits", f.tok, 422},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := map[string]any{"limit": "existing_users"}
			if c.name == "bad limit" {
				body["limit"] = "nobody"
			}
			if r := e.Do(c.method, c.path, c.token, body); r.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, c.want, r.Body)
			}
		})
	}
	// An owner with only read:org may read it.
	if r := e.Must(200, "GET", "/orgs/acme/interaction-limits", e.Token(f.mona, "read:org"), nil).Map(t); r["limit"] != "collaborators_only" {
		t.Errorf("read:org get: %v", r)
	}

	if resp, err := f.gh.Interactions.RemoveRestrictionsFromOrg(ctx, "acme"); err != nil || resp.StatusCode != 204 {
		t.Fatalf("org remove: %v", err)
	}
	// The repository's earlier limit was overwritten, not restored.
	if r := e.Must(200, "GET", "/repos/acme/site/interaction-limits", f.tok, nil); strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("repo after org removal: %s", r.Body)
	}
	if r := e.Must(200, "GET", "/orgs/acme/interaction-limits", f.tok, nil); strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("org after removal: %s", r.Body)
	}
	// Now the repository may have its own again.
	e.Must(200, "PUT", "/repos/acme/site/interaction-limits", f.tok, map[string]any{"limit": "existing_users"})
	// repo set, org set, org removed, repo set.
	if n := f.events(t, "interaction_limit"); n != 4 {
		t.Errorf("events: %d", n)
	}
}

func TestUserLimits(t *testing.T) {
	f := newFixture(t)
	e := f.e
	// No limit: 204.
	if r := e.Must(204, "GET", "/user/interaction-limits", f.tok, nil); len(r.Body) != 0 {
		t.Errorf("no user limit: %q", r.Body)
	}
	m := e.Must(200, "PUT", "/user/interaction-limits", f.tok, map[string]any{"limit": "contributors_only", "expiry": "three_days"}).Map(t)
	if m["origin"] != "user" || m["limit"] != "contributors_only" || m["expires_at"] != t0.Add(72*time.Hour).Format(time.RFC3339) {
		t.Fatalf("user set: %v", m)
	}
	if m := e.Must(200, "GET", "/user/interaction-limits", f.tok, nil).Map(t); m["origin"] != "user" {
		t.Errorf("user get: %v", m)
	}
	// mona's repositories follow it; their own limits are refused with 409.
	if rg, _, err := f.gh.Interactions.GetRestrictionsForRepo(ctx, "mona", "app"); err != nil || rg.GetOrigin() != "user" {
		t.Errorf("repo under user limit: %+v %v", rg, err)
	}
	e.Must(409, "PUT", "/repos/mona/app/interaction-limits", f.tok, map[string]any{"limit": "existing_users"})
	// The organization's repositories are not mona's.
	if r := e.Must(200, "GET", "/repos/acme/site/interaction-limits", f.tok, nil); strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("org repo under mona's limit: %s", r.Body)
	}
	// Each user has their own.
	_, otherTok := f.oldUser(t, "other")
	e.Must(204, "GET", "/user/interaction-limits", otherTok, nil)
	// Errors.
	e.Must(401, "GET", "/user/interaction-limits", "", nil)
	e.Must(403, "PUT", "/user/interaction-limits", e.Token(f.mona, "repo"), map[string]any{"limit": "existing_users"})
	e.Must(422, "PUT", "/user/interaction-limits", f.tok, map[string]any{"limit": "x"})

	e.Must(204, "DELETE", "/user/interaction-limits", f.tok, nil)
	e.Must(204, "GET", "/user/interaction-limits", f.tok, nil)
	if n := f.events(t, "interaction_limit"); n != 2 {
		t.Errorf("events: %d", n)
	}
}

func TestExpiry(t *testing.T) {
	f := newFixture(t)
	stranger, _ := f.oldUser(t, "stranger")
	if _, _, err := f.gh.Interactions.UpdateRestrictionsForOrg(ctx, "acme", "collaborators_only"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Interactions.UpdateRestrictionsForRepo(ctx, "mona", "app", "collaborators_only"); err != nil {
		t.Fatal(err)
	}
	if f.may(t, f.site, stranger.ID, "comment") != 403 || f.may(t, f.app, stranger.ID, "comment") != 403 {
		t.Fatal("limits not in force")
	}
	// One second before the end they still hold; at the end they are gone
	// without any write.
	f.at(t0.Add(24*time.Hour - time.Second))
	if f.may(t, f.app, stranger.ID, "issue") != 403 {
		t.Error("expired early")
	}
	f.at(t0.Add(24 * time.Hour))
	for _, path := range []string{"/repos/mona/app/interaction-limits", "/repos/acme/site/interaction-limits", "/orgs/acme/interaction-limits"} {
		if r := f.e.Must(200, "GET", path, f.tok, nil); strings.TrimSpace(string(r.Body)) != "{}" {
			t.Errorf("%s after expiry: %s", path, r.Body)
		}
	}
	if f.may(t, f.site, stranger.ID, "comment") != 0 || f.may(t, f.app, stranger.ID, "comment") != 0 {
		t.Error("expired limits still apply")
	}
	// An expired organization limit no longer blocks a repository's own.
	f.e.Must(200, "PUT", "/repos/acme/site/interaction-limits", f.tok, map[string]any{"limit": "existing_users"})
	// Removing an expired limit changes nothing visible and writes no event.
	before := f.events(t, "interaction_limit")
	if _, err := f.gh.Interactions.RemoveRestrictionsFromOrg(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if f.events(t, "interaction_limit") != before {
		t.Error("event for removing an expired limit")
	}
}

// TestMayInteract proves each limit's rule with real users and limits set
// through the API.
func TestMayInteract(t *testing.T) {
	f := newFixture(t)
	outsider, _ := f.oldUser(t, "outsider")
	newbie, _ := f.user(t, "newbie") // created at t0: less than a day old
	reader, _ := f.oldUser(t, "reader")
	f.collab(t, f.app, reader.ID, authz.Read)
	f.collab(t, f.site, reader.ID, authz.Read)
	orgMember, _ := f.oldUser(t, "orgmember")
	f.member(t, orgMember, model.RoleMember)
	// contributor had a pull request merged into mona/app's main branch.
	contributor, contribTok := f.oldUser(t, "contributor")
	n := f.openPull(t, contributor, contribTok, "mona", "app", f.app, "fix", false)
	f.e.RunJobs()
	if _, _, err := f.gh.PullRequests.Merge(ctx, "mona", "app", n, "", &github.PullRequestOptions{MergeMethod: "merge"}); err != nil {
		t.Fatal(err)
	}
	// newContributor is a day-old account that has contributed.
	f.at(t0.Add(-2 * time.Hour))
	newContributor, newContribTok := f.user(t, "newcontrib")
	f.at(t0)
	n = f.openPull(t, newContributor, newContribTok, "mona", "app", f.app, "fix2", false)
	f.e.RunJobs()
	if _, _, err := f.gh.PullRequests.Merge(ctx, "mona", "app", n, "", &github.PullRequestOptions{MergeMethod: "merge"}); err != nil {
		t.Fatal(err)
	}

	// No limit: everyone may.
	for _, u := range []*model.Account{outsider, newbie, reader, contributor} {
		if got := f.may(t, f.app, u.ID, "issue"); got != 0 {
			t.Errorf("no limit, %s: %d", u.Login, got)
		}
	}

	users := []*model.Account{f.mona, outsider, newbie, reader, contributor, newContributor}
	for _, c := range []struct {
		limit   string
		allowed map[string]bool
	}{
		{"existing_users", map[string]bool{"mona": true, "outsider": true, "reader": true, "contributor": true, "newcontrib": true}},
		{"contributors_only", map[string]bool{"mona": true, "reader": true, "contributor": true, "newcontrib": true}},
		{"collaborators_only", map[string]bool{"mona": true, "reader": true}},
	} {
		if _, _, err := f.gh.Interactions.UpdateRestrictionsForRepo(ctx, "mona", "app", c.limit); err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			for _, kind := range []string{"issue", "comment", "reaction", "pull"} {
				want := 403
				if c.allowed[u.Login] {
					want = 0
				}
				if got := f.may(t, f.app, u.ID, kind); got != want {
					t.Errorf("%s, %s %s: %d, want %d", c.limit, u.Login, kind, got, want)
				}
			}
		}
	}
	// GitHub's words.
	err := f.svc.MayInteract(ctx, f.repoOf(t, f.app), outsider.ID, "issue")
	if he, ok := err.(*model.HTTPError); !ok || he.Message != "An owner of this repository has limited the ability to create an issue to users that are collaborators." {
		t.Errorf("refusal: %v", err)
	}

	// An organization's limit covers its repositories; its members are
	// never limited.
	if _, _, err := f.gh.Interactions.UpdateRestrictionsForOrg(ctx, "acme", "collaborators_only"); err != nil {
		t.Fatal(err)
	}
	for u, want := range map[*model.Account]int{f.mona: 0, orgMember: 0, reader: 0, outsider: 403, contributor: 403} {
		if got := f.may(t, f.site, u.ID, "comment"); got != want {
			t.Errorf("org limit, %s: %d, want %d", u.Login, got, want)
		}
	}
	// A user's own limit covers their repositories.
	f.e.Must(204, "DELETE", "/repos/mona/app/interaction-limits", f.tok, nil)
	if f.may(t, f.app, outsider.ID, "comment") != 0 {
		t.Fatal("limit still in force after removal")
	}
	f.e.Must(200, "PUT", "/user/interaction-limits", f.tok, map[string]any{"limit": "existing_users", "expiry": "one_week"})
	if f.may(t, f.app, newbie.ID, "comment") != 403 || f.may(t, f.app, outsider.ID, "comment") != 0 {
		t.Error("user limit")
	}
	// Private repositories are not limited (everyone there has access).
	if f.may(t, f.repoOfName(t, "secret"), newbie.ID, "comment") != 0 {
		t.Error("private repository limited")
	}
	// After a day the newbie is an existing user.
	f.at(t0.Add(23 * time.Hour))
	if f.may(t, f.app, newbie.ID, "comment") != 403 {
		t.Error("newbie allowed before 24h")
	}
	f.at(t0.Add(24 * time.Hour))
	if f.may(t, f.app, newbie.ID, "comment") != 0 {
		t.Error("newbie still limited after 24h")
	}
}

func (f *fixture) repoOfName(t *testing.T, name string) int64 {
	t.Helper()
	v, err := f.e.Store.R().RepoByName(ctx, "mona", name, 0)
	if err != nil {
		t.Fatal(err)
	}
	return v.Repo.ID
}
