package hooks

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/model"
)

// Rendered is one webhook event of a domain event with its payload (a
// JSON object with action, repository, organization and sender).
type Rendered struct {
	Event, Action string
	Body          []byte
}

// Renderer builds the webhook payloads of domain events for other outbox
// consumers (the activity events), loading each repository, account and
// issue once per Renderer.
type Renderer struct{ b *builder }

// NewRenderer makes a renderer for one batch of events.
func (s *Service) NewRenderer() *Renderer { return &Renderer{s.newBuilder()} }

// Render lists the webhook events of e with their payloads; events whose
// payload cannot be built (what they name is gone) are left out.
func (r *Renderer) Render(ctx context.Context, e model.Event) ([]Rendered, error) {
	pairs, err := r.b.resolve(ctx, e)
	if err != nil {
		return nil, err
	}
	var out []Rendered
	for _, p := range pairs {
		bt, err := r.b.build(ctx, e, p.event, p.action)
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if bt != nil {
			out = append(out, Rendered{Event: bt.event, Action: bt.action, Body: bt.body})
		}
	}
	return out, nil
}
