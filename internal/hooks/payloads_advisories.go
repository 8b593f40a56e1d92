package hooks

import (
	"context"

	"github.com/hubd/hubd/internal/advisories"
	"github.com/hubd/hubd/internal/model"
)

// advisoryPairs are the repository_advisory webhooks of an advisory's
// domain events: a private vulnerability report arriving, an advisory
// published.
func advisoryPairs(sub string) []pair {
	if sub == "reported" || sub == "published" {
		return []pair{{"repository_advisory", sub}}
	}
	return nil
}

// advisoryEvent adds the advisory as it is now.
func (b *builder) advisoryEvent(ctx context.Context, repo *model.Repo, d domain, out map[string]any) error {
	adv, err := advisories.ByID(ctx, b.q, d.int("advisory_id"))
	if err != nil {
		return err
	}
	list, err := advisories.Render(ctx, b.q, b.s.URLs, []*advisories.Advisory{adv}, 0, func(*model.Advisory) *model.Repo { return repo })
	if err != nil {
		return err
	}
	out["repository_advisory"] = list[0]
	return nil
}
