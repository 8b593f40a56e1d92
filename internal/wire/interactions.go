package wire

import "github.com/hubd/hubd/internal/model"

// InteractionLimitResponse is components/schemas/interaction-limit-response.
type InteractionLimitResponse struct {
	Limit     string `json:"limit"`
	Origin    string `json:"origin"`
	ExpiresAt string `json:"expires_at"`
}

// ToInteractionLimit converts a limit; nil (no limit in force) becomes
// GitHub's empty object.
func ToInteractionLimit(l *model.InteractionLimit) any {
	if l == nil {
		return struct{}{}
	}
	return InteractionLimitResponse{Limit: l.Limit, Origin: l.Origin, ExpiresAt: Time(l.ExpiresAt)}
}

// PullCreationCap is the body of the creation-cap operations.
type PullCreationCap struct {
	Enabled             bool `json:"enabled"`
	MaxOpenPullRequests int  `json:"max_open_pull_requests"`
}

// ToPullCreationCap converts a cap.
func ToPullCreationCap(c *model.PullCreationCap) PullCreationCap {
	return PullCreationCap{Enabled: c.Enabled, MaxOpenPullRequests: c.MaxOpen}
}
