package pullreviews

import (
	"net/http"

	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers
func (a *API) listRequested(w http.ResponseWriter, r *http.Request) error {
	x, n, err := a.openPull(r, false)
	if err != nil {
		return err
	}
	list, teams, err := a.svc.RequestedReviewers(r.Context(), x, n)
	if err != nil {
		return err
	}
	wr := a.writer(r)
	users := make([]*wire.SimpleUser, 0, len(list))
	for _, u := range list {
		users = append(users, wr.User(u))
	}
	return rest.JSON(w, http.StatusOK, map[string]any{"users": users, "teams": a.d.URLs.ToTeams(teams)})
}

type reviewersBody struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers"`
}

// POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers
func (a *API) requestReviewers(w http.ResponseWriter, r *http.Request) error {
	return a.changeReviewers(w, r, true)
}

// DELETE /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers
func (a *API) removeReviewers(w http.ResponseWriter, r *http.Request) error {
	return a.changeReviewers(w, r, false)
}

func (a *API) changeReviewers(w http.ResponseWriter, r *http.Request, add bool) error {
	x, n, err := a.openPull(r, true)
	if err != nil {
		return err
	}
	var in reviewersBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	change, status := a.svc.RequestReviewers, http.StatusCreated
	if !add {
		change, status = a.svc.RemoveRequestedReviewers, http.StatusOK
	}
	p, err := change(r.Context(), x, n, in.Reviewers, in.TeamReviewers)
	if err != nil {
		return err
	}
	out, err := a.pullSimple(r, x, p)
	if err != nil {
		return err
	}
	return rest.JSON(w, status, out)
}
