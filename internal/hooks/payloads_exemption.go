package hooks

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// exemptionEvent: a push rule bypass request created, answered by a
// reviewer (with the response, exemption_response) or completed by the
// push it let through.
func (b *builder) exemptionEvent(ctx context.Context, repo *model.Repo, d domain, action string, out map[string]any) error {
	if repo == nil {
		return skip("exemption_request_push_ruleset: no repository")
	}
	x, err := b.q.PushBypassRequestByNumber(ctx, repo.ID, d.int("number"))
	if err != nil {
		return err
	}
	x.RepoOwner, x.RepoName = repo.Owner.Login, repo.Name
	out["exemption_request"] = b.s.URLs.ToExemptionRequest(x, x.State(b.q.Now()))
	if action == "response_submitted" {
		for _, r := range x.Responses {
			if r.ID == d.int("response_id") {
				out["exemption_response"] = wire.ToExemptionResponse(r)
			}
		}
		if out["exemption_response"] == nil {
			return skip("exemption_request_push_ruleset response_submitted: the response is gone")
		}
	}
	return nil
}
