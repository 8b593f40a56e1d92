package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	issuesvc "github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// milestone loads the {milestone_number} milestone of the repository.
func (a *API) milestone(r *http.Request, x *access) (*model.Milestone, error) {
	n, err := pathInt(r, "milestone_number")
	if err != nil {
		return nil, err
	}
	return a.d.Store.R().MilestoneByNumber(r.Context(), x.Repo.ID, n)
}

// GET /repos/{owner}/{repo}/milestones: open ones by due date by default.
func (a *API) listMilestones(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := store.MilestoneQuery{RepoID: x.Repo.ID, State: q.Get("state"), Sort: q.Get("sort"), Desc: q.Get("direction") == "desc"}
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	list, total, err := a.d.Store.R().ListMilestones(r.Context(), f)
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]any, 0, len(list))
	for _, m := range list {
		out = append(out, wr.ToMilestone(x.Repo, m))
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

type milestoneBody struct {
	Title       rest.Opt[string] `json:"title"`
	State       rest.Opt[string] `json:"state"`
	Description rest.Opt[string] `json:"description"`
	DueOn       rest.Opt[string] `json:"due_on"`
}

// input is the milestone the body gives.
func (in *milestoneBody) input() issuesvc.MilestoneInput {
	return issuesvc.MilestoneInput{Title: in.Title, State: in.State, Description: in.Description, DueOn: in.DueOn}
}

// POST /repos/{owner}/{repo}/milestones: write access.
func (a *API) createMilestone(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in milestoneBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	m, err := a.svc.CreateMilestone(r.Context(), x, in.input())
	if err != nil {
		return err
	}
	m, err = a.d.Store.R().MilestoneByNumber(r.Context(), x.Repo.ID, m.Number)
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.writer(r).ToMilestone(x.Repo, m).URL)
	return rest.JSON(w, http.StatusCreated, a.writer(r).ToMilestone(x.Repo, m))
}

// GET /repos/{owner}/{repo}/milestones/{milestone_number}
func (a *API) getMilestone(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	m, err := a.milestone(r, x)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToMilestone(x.Repo, m))
}

// PATCH /repos/{owner}/{repo}/milestones/{milestone_number}: write access.
func (a *API) updateMilestone(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in milestoneBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	ctx := r.Context()
	n, err := pathInt(r, "milestone_number")
	if err != nil {
		return err
	}
	if err := a.svc.UpdateMilestone(ctx, x, n, in.input()); err != nil {
		return err
	}
	m, err := a.d.Store.R().MilestoneByNumber(ctx, x.Repo.ID, n)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToMilestone(x.Repo, m))
}

// DELETE /repos/{owner}/{repo}/milestones/{milestone_number}: write
// access; its issues are demilestoned.
func (a *API) deleteMilestone(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	ctx := r.Context()
	n, err := pathInt(r, "milestone_number")
	if err != nil {
		return err
	}
	if err := a.svc.DeleteMilestone(ctx, x, n); err != nil {
		return err
	}
	return rest.NoContent(w)
}
