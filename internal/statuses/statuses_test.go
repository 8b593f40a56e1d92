package statuses

import (
	"testing"

	"github.com/hubd/hubd/internal/model"
)

func TestCombinedState(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts map[model.StatusState]int
		want   model.StatusState
	}{
		{"none", nil, model.StatusPending},
		{"all success", map[model.StatusState]int{model.StatusSuccess: 3}, model.StatusSuccess},
		{"one pending", map[model.StatusState]int{model.StatusSuccess: 3, model.StatusPending: 1}, model.StatusPending},
		{"error is failure", map[model.StatusState]int{model.StatusSuccess: 1, model.StatusError: 1}, model.StatusFailure},
		{"failure wins over pending", map[model.StatusState]int{model.StatusPending: 2, model.StatusFailure: 1}, model.StatusFailure},
	} {
		if got := CombinedState(tc.counts); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
