package gitdb

import (
	"net/http"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/workflowguard"
)

// ruled refuses a ref change the caller may not make: one that changes a
// workflow file without the workflow scope or permission (403 with
// GitHub's "refusing to allow ..."), or one the repository's active
// rulesets forbid (GitHub's 422 "Repository rule violations found" with
// the reasons).
func (a *API) ruled(r *http.Request, repo *model.Repo, name, old, new string) error {
	c := rest.Caller(r)
	no, err := workflowguard.Check(r.Context(), c, a.d.Git.Open(repo.ID), nil, workflowguard.Change{Ref: name, Old: old, New: new})
	if err != nil {
		return err
	}
	if no != nil {
		return no.Forbidden()
	}
	// Push restrictions of a protected branch.
	if err := protection.New(a.d.Store, a.d.Git).CheckRefWrite(r.Context(), repo, c.UserID(), c.AppID, name, http.StatusUnprocessableEntity); err != nil {
		return err
	}
	v, err := rulesets.New(a.d.Store, a.d.Git).CheckChanges(r.Context(), repo, rulesets.CallerActor(c),
		[]rulesets.RefChange{{Ref: name, Old: old, New: new}}, nil)
	if err != nil || len(v) == 0 {
		return err
	}
	return rulesets.RESTError(v, http.StatusUnprocessableEntity)
}
