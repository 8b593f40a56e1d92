package statuses

import (
	"context"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/statuses"
)

// resolve resolves a commit-ish without creating git storage for a
// repository nothing was pushed to.
func (a *API) resolve(ctx context.Context, repo *model.Repo, ref string) (string, error) {
	g := a.d.Git.Open(repo.ID)
	if !g.Exists() {
		return "", api.ErrEmptyRepo
	}
	return a.d.ResolveCommit(ctx, g, repo, ref)
}

type createBody struct {
	State       string  `json:"state"`
	TargetURL   *string `json:"target_url"`
	Description *string `json:"description"`
	Context     *string `json:"context"`
}

// POST /repos/{owner}/{repo}/statuses/{sha}
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	var in createBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	s, err := a.svc.Create(r.Context(), repo, perm, rest.Caller(r).UserID(), r.PathValue("sha"),
		svc.Input{State: in.State, TargetURL: in.TargetURL, Description: in.Description, Context: in.Context})
	if err != nil {
		return err
	}
	out := a.d.URLs.ToStatus(repo, s)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// GET /repos/{owner}/{repo}/commits/{ref}/statuses
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	page, err := a.svc.List(r.Context(), repo, r.PathValue("ref"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, page.Total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToStatuses(repo, page.Statuses))
}

// GET /repos/{owner}/{repo}/commits/{ref}/status
func (a *API) combined(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	c, err := a.svc.Combine(r.Context(), repo, r.PathValue("ref"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, c.Total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCombinedStatus(repo, c.State, c.SHA, c.Statuses, c.Total))
}
