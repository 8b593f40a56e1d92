package interactions_test

import (
	"strconv"
	"strings"
	"testing"
)

// Interaction limits and blocks guard every way of taking part through the
// API: opening issues and pull requests, commenting on issues, commits and
// diffs, reviewing, reacting.
func TestGuardsOnEveryPath(t *testing.T) {
	f := newFixture(t)
	_, eveTok := f.oldUser(t, "eve")
	// A pull request and a comment to react to, by mona.
	f.e.Must(201, "POST", "/repos/mona/app/git/refs", f.tok, map[string]any{"ref": "refs/heads/topic", "sha": f.head(t)})
	f.e.Must(201, "PUT", "/repos/mona/app/contents/t.txt", f.tok, map[string]any{"message": "t", "content": "dA==", "branch": "topic"})
	f.e.Must(201, "POST", "/repos/mona/app/pulls", f.tok, map[string]any{"title": "p", "head": "topic", "base": "main"})
	f.e.Must(201, "POST", "/repos/mona/app/git/refs", f.tok, map[string]any{"ref": "refs/heads/topic2", "sha": f.head(t)})
	f.e.Must(201, "PUT", "/repos/mona/app/contents/t2.txt", f.tok, map[string]any{"message": "t2", "content": "dA==", "branch": "topic2"})
	issue := f.e.Must(201, "POST", "/repos/mona/app/issues", f.tok, map[string]any{"title": "i"}).Map(t)
	comment := f.e.Must(201, "POST", "/repos/mona/app/issues/2/comments", f.tok, map[string]any{"body": "c"}).Map(t)
	_ = issue

	attempts := func(t *testing.T, want int, msg string) {
		t.Helper()
		head := f.head(t)
		for _, a := range []struct {
			method, path string
			body         map[string]any
		}{
			{"POST", "/repos/mona/app/issues", map[string]any{"title": "x"}},
			{"POST", "/repos/mona/app/issues/2/comments", map[string]any{"body": "x"}},
			{"POST", "/repos/mona/app/issues/2/reactions", map[string]any{"content": "+1"}},
			{"POST", "/repos/mona/app/issues/comments/" + itoa(int64(comment["id"].(float64))) + "/reactions", map[string]any{"content": "+1"}},
			{"POST", "/repos/mona/app/commits/" + head + "/comments", map[string]any{"body": "x"}},
			{"POST", "/repos/mona/app/pulls/1/reviews", map[string]any{"event": "COMMENT", "body": "x"}},
			{"POST", "/repos/mona/app/pulls", map[string]any{"title": "x", "head": "topic2", "base": "main"}},
		} {
			r := f.e.Do(a.method, a.path, eveTok, a.body)
			if r.StatusCode != want || !strings.Contains(string(r.Body), msg) {
				t.Errorf("%s %s: %d %.200s, want %d %q", a.method, a.path, r.StatusCode, r.Body, want, msg)
			}
		}
	}
	// A limit to collaborators refuses eve on every path.
	f.e.Must(200, "PUT", "/repos/mona/app/interaction-limits", f.tok, map[string]any{"limit": "collaborators_only"})
	attempts(t, 403, "has limited")
	f.e.Must(204, "DELETE", "/repos/mona/app/interaction-limits", f.tok, nil)

	// mona blocks eve: refused everywhere in mona's repositories.
	f.e.Must(204, "PUT", "/user/blocks/eve", f.tok, nil)
	attempts(t, 422, "blocked")
	f.e.Must(204, "DELETE", "/user/blocks/eve", f.tok, nil)

	// Unblocked and unlimited, eve may take part again.
	f.e.Must(201, "POST", "/repos/mona/app/issues/2/comments", eveTok, map[string]any{"body": "hello"})
	f.e.Must(201, "POST", "/repos/mona/app/pulls", eveTok, map[string]any{"title": "x", "head": "topic2", "base": "main"})
}

// head is mona/app's main commit.
func (f *fixture) head(t *testing.T) string {
	t.Helper()
	b := f.e.Must(200, "GET", "/repos/mona/app/branches/main", f.tok, nil).Map(t)
	return b["commit"].(map[string]any)["sha"].(string)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
