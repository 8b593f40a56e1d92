package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// GitHub answers every named repository, organization and user path under
// its id form too, and links list pages in the id form.
func TestIDPaths(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	_, other := e.NewUser("hubot", false)
	var repo struct {
		ID int64 `json:"id"`
	}
	json.Unmarshal(e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "auto_init": true}).Body, &repo)
	var priv struct {
		ID int64 `json:"id"`
	}
	json.Unmarshal(e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "secret", "private": true}).Body, &priv)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	var org struct {
		ID int64 `json:"id"`
	}
	json.Unmarshal(e.Must(200, "GET", "/orgs/acme", tok, nil).Body, &org)
	for i := 0; i < 3; i++ {
		e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": fmt.Sprintf("r%d", i)})
		e.Must(201, "POST", "/orgs/acme/repos", tok, map[string]any{"name": fmt.Sprintf("o%d", i)})
	}

	rid := fmt.Sprint(repo.ID)
	// Reads and writes under /repositories/{id}, with and without /api/v3.
	got := e.Must(200, "GET", "/repositories/"+rid, tok, nil)
	if !strings.Contains(string(got.Body), `"full_name":"mona/hello"`) {
		t.Fatalf("GET /repositories/%s: %s", rid, got.Body)
	}
	e.Must(200, "GET", e.URL+"/repositories/"+rid+"/contents/README.md", "", nil)
	for i := 0; i < 3; i++ {
		e.Must(201, "POST", "/repositories/"+rid+"/issues", tok, map[string]any{"title": fmt.Sprintf("issue %d", i)})
	}
	// Links of a repository list use /repositories/{id}, and following them works.
	list := e.Must(200, "GET", "/repos/mona/hello/issues?per_page=1&state=all", tok, nil)
	link := list.Header.Get("Link")
	want := "<" + e.API + "/repositories/" + rid + "/issues?page=2&per_page=1&state=all>; rel=\"next\""
	if !strings.Contains(link, want) {
		t.Fatalf("Link = %q, want it to contain %q", link, want)
	}
	next := e.Must(200, "GET", e.API+"/repositories/"+rid+"/issues?page=2&per_page=1&state=all", tok, nil)
	if !strings.Contains(string(next.Body), `"number":2`) {
		t.Fatalf("page 2: %.300s", next.Body)
	}
	if l := next.Header.Get("Link"); !strings.Contains(l, "/repositories/"+rid+"/issues?page=1") {
		t.Fatalf("Link of page 2 = %q", l)
	}

	// Organization and user lists link by id too.
	orgList := e.Must(200, "GET", "/orgs/acme/repos?per_page=1", tok, nil)
	if l := orgList.Header.Get("Link"); !strings.Contains(l, e.API+fmt.Sprintf("/organizations/%d/repos?page=2&per_page=1", org.ID)) {
		t.Fatalf("org Link = %q", l)
	}
	e.Must(200, "GET", fmt.Sprintf("/organizations/%d/repos?page=2&per_page=1", org.ID), tok, nil)
	userList := e.Must(200, "GET", "/users/mona/repos?per_page=1", tok, nil)
	if l := userList.Header.Get("Link"); !strings.Contains(l, e.API+fmt.Sprintf("/user/%d/repos?page=2&per_page=1", mona.ID)) {
		t.Fatalf("user Link = %q", l)
	}
	e.Must(200, "GET", fmt.Sprintf("/user/%d/repos?page=2&per_page=1", mona.ID), tok, nil)
	// /user/{id} itself stays the users/get-by-id operation.
	e.Must(200, "GET", fmt.Sprintf("/user/%d", mona.ID), tok, nil)

	// Visibility is the named route's: a private repository by id is 404
	// to others, an unknown id or a mismatched kind is 404.
	pid := fmt.Sprint(priv.ID)
	e.Must(200, "GET", "/repositories/"+pid, tok, nil)
	for _, c := range []struct{ path, token string }{
		{"/repositories/" + pid, ""},
		{"/repositories/" + pid, other},
		{"/repositories/" + pid + "/issues", other},
		{"/repositories/99999999", tok},
		{"/repositories/0" + rid, tok},
		{"/repositories/abc/issues", tok},
		{fmt.Sprintf("/organizations/%d/repos", mona.ID), tok},
		{fmt.Sprintf("/user/%d/repos", org.ID), tok},
	} {
		if r := e.Do("GET", c.path, c.token, nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404: %.200s", c.path, r.StatusCode, r.Body)
		}
	}
}
