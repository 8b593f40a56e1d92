package activity_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// status is the HTTP status of a go-github error (0 for none).
// create makes a repository of the token's user through go-github.
func create(t *testing.T, gh *github.Client, name string, private bool) *github.Repository {
	t.Helper()
	r, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(private)})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return r
}

// repoObject is GET /repos/{full} as token sees it.
func repoObject(t *testing.T, e *apitest.Env, full, token string) map[string]any {
	t.Helper()
	return e.Must(200, "GET", "/repos/"+full, token, nil).Map(t)
}

// counts are a repository object's star and watch counters.
func counts(t *testing.T, e *apitest.Env, full, token string) (stars, watchers, subscribers float64) {
	t.Helper()
	m := repoObject(t, e, full, token)
	if m["stargazers_count"] != m["watchers"] {
		t.Errorf("%s: stargazers_count %v but watchers %v", full, m["stargazers_count"], m["watchers"])
	}
	return m["stargazers_count"].(float64), m["watchers_count"].(float64), m["subscribers_count"].(float64)
}

// names are the full names of a list of repository objects, space separated.
func names(t *testing.T, r *apitest.Response) string {
	t.Helper()
	var list []struct {
		FullName string `json:"full_name"`
	}
	r.JSON(t, &list)
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = x.FullName
	}
	return strings.Join(out, " ")
}

// logins are the logins of a list of users, space separated.
func logins(users []*github.User) string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = u.GetLogin()
	}
	return strings.Join(out, " ")
}

// fineGrained makes a fine-grained token of u with no permissions.
func fineGrained(t *testing.T, e *apitest.Env, u *model.Account) string {
	t.Helper()
	var tok string
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		tok, _, err = tx.CreateToken(ctx, u.ID, authz.FineGrained, nil, "", nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// events are the domain events of the given type, oldest first.
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
