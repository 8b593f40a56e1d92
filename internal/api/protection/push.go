package protection

import (
	"context"
	"net/http"

	"github.com/hubd/hubd/internal/githttp"
	svc "github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/rest"
)

// PushCheck refuses a git push to a branch whose push restrictions leave
// the pusher out (GitHub's GH006 and "protected branch hook declined");
// next decides the pushes it lets through.
func (a *API) PushCheck(next githttp.PushCheck) githttp.PushCheck {
	return func(ctx context.Context, r *http.Request, acc *githttp.Access, updates []githttp.RefUpdate, env []string) (string, error) {
		if acc.Model != nil && acc.OnPush == nil {
			refs := make([]string, len(updates))
			for i, u := range updates {
				refs[i] = u.Name
			}
			var appID int64
			if c := rest.Caller(r); c != nil {
				appID = c.AppID
			}
			ref, err := a.svc.RestrictedRef(ctx, acc.Model, acc.ActorID, appID, refs)
			if err != nil {
				return "", err
			}
			if ref != "" {
				return "", &githttp.Declined{Message: svc.PushRestrictedMessage(ref), Reason: "protected branch hook declined"}
			}
		}
		return next(ctx, r, acc, updates, env)
	}
}
