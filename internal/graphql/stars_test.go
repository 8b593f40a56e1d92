package graphql_test

import (
	"testing"
)

// TestStarsAndWatchers: addStar/removeStar run the stars service of
// PUT/DELETE /user/starred/{owner}/{repo}; the counts, viewerHasStarred,
// stargazers (with starredAt) and watchers answer from the same rows.
func TestStarsAndWatchers(t *testing.T) {
	w := newWorld(t)
	app := nodeID(t, w, "/repos/mona/app")
	add := `mutation($id: ID!) { addStar(input: {starrableId: $id, clientMutationId: "s"}) { clientMutationId starrable { id stargazerCount viewerHasStarred } } }`
	remove := `mutation($id: ID!) { removeStar(input: {starrableId: $id}) { starrable { stargazerCount viewerHasStarred } } }`
	r := post(t, w.e, w.melTok, add, map[string]any{"id": app})
	d := mustData(t, r)
	if dig(d, "addStar", "clientMutationId") != "s" || dig(d, "addStar", "starrable", "id") != app ||
		dig(d, "addStar", "starrable", "stargazerCount") != jsonNum(1) || dig(d, "addStar", "starrable", "viewerHasStarred") != true {
		t.Fatalf("addStar: %s", r.Raw)
	}
	post(t, w.e, w.olgaTok, add, map[string]any{"id": app})
	post(t, w.e, w.olgaTok, add, map[string]any{"id": app}) // starring again changes nothing
	if ok, _, err := w.e.GitHub(w.melTok).Activity.IsStarred(ctx, "mona", "app"); err != nil || !ok {
		t.Fatalf("REST IsStarred: %v %v", ok, err)
	}
	q := `{ repository(owner: "mona", name: "app") { stargazerCount viewerHasStarred
		stargazers(first: 1) { totalCount edges { cursor starredAt node { login } } pageInfo { hasNextPage endCursor } }
		watchers(first: 5) { totalCount nodes { login } } } }`
	r = post(t, w.e, w.monaTok, q, nil)
	repo := dig(mustData(t, r), "repository").(map[string]any)
	edges := dig(repo, "stargazers", "edges").([]any)
	if repo["stargazerCount"] != jsonNum(2) || repo["viewerHasStarred"] != false || dig(repo, "stargazers", "totalCount") != jsonNum(2) ||
		len(edges) != 1 || dig(edges[0], "node", "login") != "mel" || dig(edges[0], "starredAt") == nil ||
		dig(repo, "stargazers", "pageInfo", "hasNextPage") != true {
		t.Fatalf("stargazers: %s", r.Raw)
	}
	// The next page after the cursor is olga.
	r = post(t, w.e, w.monaTok, `query($after: String) { repository(owner: "mona", name: "app") { stargazers(first: 5, after: $after) { nodes { login } } } }`,
		map[string]any{"after": dig(repo, "stargazers", "pageInfo", "endCursor")})
	if n := dig(mustData(t, r), "repository", "stargazers", "nodes").([]any); len(n) != 1 || dig(n[0], "login") != "olga" {
		t.Fatalf("second page: %s", r.Raw)
	}
	// mona created mona/app and so watches it.
	if n := dig(repo, "watchers", "nodes").([]any); dig(repo, "watchers", "totalCount") != jsonNum(1) || len(n) != 1 || dig(n[0], "login") != "mona" {
		t.Fatalf("watchers: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, remove, map[string]any{"id": app})
	if dig(mustData(t, r), "removeStar", "starrable", "stargazerCount") != jsonNum(1) || dig(r.Data, "removeStar", "starrable", "viewerHasStarred") != false {
		t.Fatalf("removeStar: %s", r.Raw)
	}
	got, _, err := w.e.GitHub(w.monaTok).Repositories.Get(ctx, "mona", "app")
	if err != nil || got.GetStargazersCount() != 1 {
		t.Fatalf("REST stargazers_count: %d %v", got.GetStargazersCount(), err)
	}
	// A repository the caller cannot see cannot be starred.
	if r := post(t, w.e, w.strTok, add, map[string]any{"id": nodeID(t, w, "/repos/mona/secret")}); errType(r) != "NOT_FOUND" {
		t.Fatalf("starring a hidden repository: %s", r.Raw)
	}
	if r := post(t, w.e, w.strTok, add, map[string]any{"id": "I_nope"}); errType(r) != "NOT_FOUND" {
		t.Fatalf("starring a non-repository: %s", r.Raw)
	}
}
