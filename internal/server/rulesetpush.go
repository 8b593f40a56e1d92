package server

import (
	"context"
	"net/url"
	"strings"

	"github.com/hubd/hubd/internal/gitserve"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/wire"
)

// rulesetPush is the rulesets' check of git pushes, for the git transports.
type rulesetPush struct {
	urls wire.URLs
	svc  *svc.Service
}

// PushCheck is the git transports' push check: the active rulesets of the
// repository decide the pushed ref updates, for the pusher (bypass actors
// pass).
func (a rulesetPush) PushCheck(ctx context.Context, acc *gitserve.Access, updates []gitserve.RefUpdate, env []string) (string, error) {
	repo := acc.Model
	if repo == nil {
		return "", nil
	}
	changes := make([]svc.RefChange, len(updates))
	for i, u := range updates {
		changes[i] = svc.RefChange{Ref: u.Name, Old: u.Old, New: u.New}
	}
	res, err := a.svc.CheckPush(ctx, repo, svc.CallerActor(acc.Caller), changes, env)
	if err != nil || len(res.Violations) == 0 {
		return "", err
	}
	msg := svc.PushMessage(res.Violations, func(ref string) string { return a.rulesURL(repo, ref) })
	if x := res.Request; x != nil {
		x.RepoOwner, x.RepoName = repo.Owner.Login, repo.Name
		msg += "A request to bypass the push rules was recorded; a member of the rulesets' bypass list can approve it at:\n" +
			a.urls.BypassRequestHTMLURL(x) + "\nPush the same commit again once it is approved.\n"
	}
	return msg, nil
}

// rulesURL is where a ref's rules are listed: the rules of a branch, or
// the repository's rulesets.
func (a rulesetPush) rulesURL(repo *model.Repo, ref string) string {
	base := a.urls.RepoAPI(repo.Owner.Login, repo.Name)
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return base + "/rules/branches/" + url.PathEscape(b)
	}
	return base + "/rulesets"
}
