package pullstacks

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

func stackNumber(r *http.Request) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue("stack_number"), 10, 64)
	if err != nil || n <= 0 {
		return 0, model.ErrNotFound
	}
	return n, nil
}

type numbersBody struct {
	PullRequests []int64 `json:"pull_requests"`
}

// GET /repos/{owner}/{repo}/stacks
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	var pull int64
	if v := r.URL.Query().Get("pull_request"); v != "" {
		if pull, err = strconv.ParseInt(v, 10, 64); err != nil || pull <= 0 {
			return model.Invalid("Stack", "pull_request", "invalid")
		}
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.List(r.Context(), repo, pull, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToPullStackMinimals(repo, list))
}

// POST /repos/{owner}/{repo}/stacks
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	var in numbersBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	st, err := a.svc.Create(r.Context(), repo, perm, rest.Caller(r).UserID(), in.PullRequests)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToPullStack(repo, st))
}

// GET /repos/{owner}/{repo}/stacks/{stack_number}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	n, err := stackNumber(r)
	if err != nil {
		return err
	}
	st, err := a.svc.Get(r.Context(), repo, n)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToPullStack(repo, st))
}

// POST /repos/{owner}/{repo}/stacks/{stack_number}/add
func (a *API) add(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	n, err := stackNumber(r)
	if err != nil {
		return err
	}
	var in numbersBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	st, err := a.svc.Add(r.Context(), repo, perm, rest.Caller(r).UserID(), n, in.PullRequests)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToPullStack(repo, st))
}

// POST /repos/{owner}/{repo}/stacks/{stack_number}/unstack
func (a *API) unstack(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	n, err := stackNumber(r)
	if err != nil {
		return err
	}
	st, err := a.svc.Unstack(r.Context(), repo, perm, rest.Caller(r).UserID(), n)
	if err != nil {
		return err
	}
	if st == nil {
		return rest.NoContent(w) // nothing left: the stack was dissolved
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToPullStack(repo, st))
}
