package actions

import (
	"testing"

	"github.com/hubd/hubd/internal/model"
)

// TestFromFork: pull request runs get secrets only when the payload shows
// the head in the repository itself.
func TestFromFork(t *testing.T) {
	repo := &model.Repo{ID: 5, Name: "app", Owner: &model.Account{Login: "acme"}}
	pr := func(head map[string]any) map[string]any {
		return map[string]any{"pull_request": map[string]any{"head": map[string]any{"repo": head}}}
	}
	for _, c := range []struct {
		event   string
		payload map[string]any
		want    bool
	}{
		{"push", nil, false},
		{"pull_request_target", pr(map[string]any{"id": float64(9)}), false},
		{"pull_request", pr(map[string]any{"id": float64(5)}), false},
		{"pull_request", pr(map[string]any{"id": int64(9)}), true},
		{"pull_request", pr(map[string]any{"full_name": "acme/app"}), false},
		{"pull_request", pr(map[string]any{"full_name": "fork/app"}), true},
		{"pull_request", map[string]any{}, true},
		{"pull_request_review", pr(nil), true},
	} {
		if got := fromFork(repo, c.event, c.payload); got != c.want {
			t.Errorf("%s %v: %v", c.event, c.payload, got)
		}
	}
}
