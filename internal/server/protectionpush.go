package server

import (
	"context"

	"github.com/hubd/hubd/internal/gitserve"
	svc "github.com/hubd/hubd/internal/protection"
)

// protectionPush refuses a git push to a branch whose push restrictions
// leave the pusher out (GitHub's GH006 and "protected branch hook
// declined"); next decides the pushes it lets through.
func protectionPush(p *svc.Service, next gitserve.PushCheck) gitserve.PushCheck {
	return func(ctx context.Context, acc *gitserve.Access, updates []gitserve.RefUpdate, env []string) (string, error) {
		if acc.Model != nil && acc.OnPush == nil {
			refs := make([]string, len(updates))
			for i, u := range updates {
				refs[i] = u.Name
			}
			var appID int64
			if acc.Caller != nil {
				appID = acc.Caller.AppID
			}
			ref, err := p.RestrictedRef(ctx, acc.Model, acc.ActorID, appID, refs)
			if err != nil {
				return "", err
			}
			if ref != "" {
				return "", &gitserve.Declined{Message: svc.PushRestrictedMessage(ref), Reason: "protected branch hook declined"}
			}
		}
		return next(ctx, acc, updates, env)
	}
}
