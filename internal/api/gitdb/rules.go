package gitdb

import (
	"net/http"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/rulesets"
)

// ruled refuses a ref change the repository's active rulesets forbid the
// caller: GitHub's 422 "Repository rule violations found" with the reasons.
func (a *API) ruled(r *http.Request, repo *model.Repo, name, old, new string) error {
	v, err := rulesets.New(a.d.Store, a.d.Git).CheckChanges(r.Context(), repo, rulesets.CallerActor(rest.Caller(r)),
		[]rulesets.RefChange{{Ref: name, Old: old, New: new}}, nil)
	if err != nil || len(v) == 0 {
		return err
	}
	return rulesets.RESTError(v, http.StatusUnprocessableEntity)
}
