package wire

import (
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Stargazer is components/schemas/stargazer (the stargazers list with
// application/vnd.github.star+json).
type Stargazer struct {
	StarredAt string      `json:"starred_at"`
	User      *SimpleUser `json:"user"`
}

// ToStargazer converts a stargazer and the time of their star.
func (u URLs) ToStargazer(a *model.Account, at time.Time) Stargazer {
	su := u.ToSimpleUser(a)
	return Stargazer{StarredAt: Time(at), User: &su}
}

// StarredRepository is components/schemas/starred-repository (the starred
// lists with application/vnd.github.star+json).
type StarredRepository struct {
	StarredAt string     `json:"starred_at"`
	Repo      Repository `json:"repo"`
}

// RepositorySubscription is components/schemas/repository-subscription.
// GitHub sends reason null for repository subscriptions.
type RepositorySubscription struct {
	Subscribed    bool    `json:"subscribed"`
	Ignored       bool    `json:"ignored"`
	Reason        *string `json:"reason"`
	CreatedAt     string  `json:"created_at"`
	URL           string  `json:"url"`
	RepositoryURL string  `json:"repository_url"`
}

// ToRepositorySubscription converts a subscription to r.
func (u URLs) ToRepositorySubscription(s *model.Subscription, r *model.Repo) RepositorySubscription {
	base := u.RepoAPIURL(r)
	return RepositorySubscription{Subscribed: s.Subscribed, Ignored: s.Ignored, CreatedAt: Time(s.CreatedAt),
		URL: base + "/subscription", RepositoryURL: base}
}
