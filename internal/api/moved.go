package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// IssueRedirect answers for an issue number a repository does not hold:
// a *model.Moved (301 for GET and HEAD, 307 otherwise) to the same path
// under the issue's new repository and number when the issue was
// transferred and the caller may see where it went, else not found.
func (d *Deps) IssueRedirect(r *http.Request, repoID, number int64) error {
	ctx := r.Context()
	q := d.Store.R()
	id, err := q.IssueRedirect(ctx, repoID, number)
	if err != nil {
		return err
	}
	is, err := q.IssueByID(ctx, id)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	v, err := q.RepoByID(ctx, is.RepoID, c.UserID())
	if err != nil {
		return err
	}
	if !authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
		return model.ErrNotFound
	}
	// Same path below /issues/{number}, same query.
	sub := ""
	if parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 6); len(parts) == 6 {
		sub = "/" + parts[5]
	}
	return d.movedTo(r, "/repos/"+v.Repo.FullName()+"/issues/"+strconv.FormatInt(is.Number, 10)+sub)
}
