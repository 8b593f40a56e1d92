package rest

import (
	"net/url"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// TimeParam reads an ISO 8601 timestamp query parameter (since, before):
// nil when absent, GitHub's 422 when malformed.
func TimeParam(q url.Values, name string) (*time.Time, error) {
	s := q.Get(name)
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		if d, derr := time.Parse("2006-01-02", s); derr == nil {
			return &d, nil
		}
		return nil, model.Unprocessable("Invalid value for '" + name + "': use ISO 8601 format, YYYY-MM-DDTHH:MM:SSZ.")
	}
	return &t, nil
}
