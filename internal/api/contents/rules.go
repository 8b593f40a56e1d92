package contents

import (
	"context"
	"net/http"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/rulesets"
)

// ruled refuses a commit to a branch that the repository's active
// rulesets forbid its author: GitHub's 409 "Repository rule violations
// found" with the reasons.
func (a *API) ruled(ctx context.Context, repo *model.Repo, actorID int64, ref, old, new string) error {
	// Push restrictions of a protected branch.
	if err := protection.New(a.d.Store, a.d.Git).CheckRefWrite(ctx, repo, actorID, 0, ref, http.StatusConflict); err != nil {
		return err
	}
	v, err := rulesets.New(a.d.Store, a.d.Git).CheckChanges(ctx, repo, rulesets.Actor{UserID: actorID},
		[]rulesets.RefChange{{Ref: ref, Old: old, New: new}}, nil)
	if err != nil || len(v) == 0 {
		return err
	}
	return rulesets.RESTError(v, http.StatusConflict)
}
