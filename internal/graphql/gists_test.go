package graphql_test

import (
	"testing"
)

// TestGists: User.gists (gh gist list's query), User.gist and the Gist and
// GistFile fields answer from the gists service of /gists.
func TestGists(t *testing.T) {
	w := newWorld(t)
	secret := w.e.Must(201, "POST", "/gists", w.monaTok, map[string]any{"description": "s", "files": map[string]any{"b.txt": map[string]any{"content": "secret text"}, "a.md": map[string]any{"content": "# A"}}}).Map(t)
	public := w.e.Must(201, "POST", "/gists", w.monaTok, map[string]any{"public": true, "files": map[string]any{"p.go": map[string]any{"content": "package p"}}}).Map(t)
	w.e.Must(204, "PUT", "/gists/"+public["id"].(string)+"/star", w.melTok, nil)
	// gh gist list, as gh 2.100.0 sends it.
	list := `query GistList($endCursor:String$includeContent:Boolean!$per_page:Int!$visibility:GistPrivacy!){viewer{gists(first: $per_page, after: $endCursor, privacy: $visibility, orderBy: {field: CREATED_AT, direction: DESC}){nodes{description,files{name,text @include(if: $includeContent)},isPublic,name,updatedAt},pageInfo{hasNextPage,endCursor}}}}`
	vars := func(vis string, content bool) map[string]any {
		return map[string]any{"endCursor": nil, "includeContent": content, "per_page": 10, "visibility": vis}
	}
	r := post(t, w.e, w.monaTok, list, vars("ALL", true))
	nodes := dig(mustData(t, r), "viewer", "gists", "nodes").([]any)
	if len(nodes) != 2 || dig(nodes[0], "name") != public["id"] || dig(nodes[1], "name") != secret["id"] || dig(nodes[1], "isPublic") != false ||
		dig(nodes[1], "description") != "s" || dig(nodes[0], "description") != nil {
		t.Fatalf("viewer.gists ALL: %s", r.Raw)
	}
	files := dig(nodes[1], "files").([]any)
	if len(files) != 2 || dig(files[0], "name") != "a.md" || dig(files[1], "text") != "secret text" {
		t.Fatalf("files: %s", r.Raw)
	}
	if n := dig(mustData(t, post(t, w.e, w.monaTok, list, vars("SECRET", false))), "viewer", "gists", "nodes").([]any); len(n) != 1 || dig(n[0], "name") != secret["id"] {
		t.Fatalf("SECRET: %v", n)
	}
	// addStar and removeStar star gists (as PUT/DELETE /gists/{id}/star).
	star := `mutation($id: ID!) { addStar(input: {starrableId: $id}) { starrable { __typename stargazerCount viewerHasStarred } } }`
	r = post(t, w.e, w.olgaTok, star, map[string]any{"id": secret["node_id"]})
	if dig(mustData(t, r), "addStar", "starrable", "__typename") != "Gist" || dig(r.Data, "addStar", "starrable", "viewerHasStarred") != true ||
		dig(r.Data, "addStar", "starrable", "stargazerCount") != jsonNum(1) {
		t.Fatalf("addStar on a gist: %s", r.Raw)
	}
	w.e.Must(204, "GET", "/gists/"+secret["id"].(string)+"/star", w.olgaTok, nil)
	r = post(t, w.e, w.olgaTok, `mutation($id: ID!) { removeStar(input: {starrableId: $id}) { starrable { viewerHasStarred } } }`, map[string]any{"id": secret["node_id"]})
	if dig(mustData(t, r), "removeStar", "starrable", "viewerHasStarred") != false {
		t.Fatalf("removeStar on a gist: %s", r.Raw)
	}
	// node(id:) finds a gist by the node_id of REST.
	r = post(t, w.e, w.melTok, `query($id: ID!) { node(id: $id) { __typename ... on Gist { name isPublic } } }`, map[string]any{"id": secret["node_id"]})
	if dig(mustData(t, r), "node", "__typename") != "Gist" || dig(r.Data, "node", "name") != secret["id"] {
		t.Fatalf("node: %s", r.Raw)
	}
	// Another user sees mona's public gists only, whatever privacy asks.
	q := `query($login: String!, $name: String!) { user(login: $login) {
		gists(first: 10, privacy: ALL, orderBy: {field: UPDATED_AT, direction: ASC}) { totalCount nodes { name stargazerCount viewerHasStarred owner { login } url isFork files(limit: 1) { name size extension isImage isTruncated encoding text(truncate: 3) } } }
		gist(name: $name) { name } } }`
	r = post(t, w.e, w.melTok, q, map[string]any{"login": "mona", "name": secret["id"]})
	u := dig(mustData(t, r), "user").(map[string]any)
	n := dig(u, "gists", "nodes").([]any)
	if dig(u, "gists", "totalCount") != jsonNum(1) || len(n) != 1 || dig(n[0], "stargazerCount") != jsonNum(1) || dig(n[0], "viewerHasStarred") != true ||
		dig(n[0], "owner", "login") != "mona" || dig(n[0], "isFork") != false || dig(n[0], "files").([]any)[0].(map[string]any)["text"] != "pac" ||
		dig(n[0], "files").([]any)[0].(map[string]any)["extension"] != ".go" || dig(u, "gist", "name") != secret["id"] {
		t.Fatalf("user.gists by mel: %s", r.Raw)
	}
}

// TestGistListQueries: a page of gists costs the same queries for 2 gists
// as for 12 (files come from the row; stars are counted in one batch), in
// GraphQL and over REST.
func TestGistListQueries(t *testing.T) {
	w := newWorld(t)
	q := `{ viewer { gists(first: 50, privacy: ALL) { totalCount nodes { name stargazerCount viewerHasStarred owner { login } files { name size } } } } }`
	reads := func() (gql, rest int64) {
		gql = w.e.LeastReads(func() { mustData(t, post(t, w.e, w.monaTok, q, nil)) })
		rest = w.e.LeastReads(func() { w.e.Must(200, "GET", "/gists?per_page=50", w.monaTok, nil) })
		return gql, rest
	}
	create := func(n int) {
		for i := 0; i < n; i++ {
			w.e.Must(201, "POST", "/gists", w.monaTok, map[string]any{"files": map[string]any{"a.txt": map[string]any{"content": "a"}, "b.txt": map[string]any{"content": "b"}}})
		}
	}
	create(2)
	g2, r2 := reads()
	create(10)
	g12, r12 := reads()
	if g2 != g12 || r2 != r12 {
		t.Fatalf("queries for 2 gists: GraphQL %d, REST %d; for 12: GraphQL %d, REST %d", g2, r2, g12, r12)
	}
}
