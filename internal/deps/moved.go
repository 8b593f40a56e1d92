package deps

import (
	"net/http"
	"strconv"
	"strings"
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
	repo, err := d.visibleRepo(r, is.RepoID)
	if err != nil {
		return err
	}
	// Same path below /issues/{number}, same query.
	sub := ""
	if parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 6); len(parts) == 6 {
		sub = "/" + parts[5]
	}
	return d.movedTo(r, "/repos/"+repo.FullName()+"/issues/"+strconv.FormatInt(is.Number, 10)+sub)
}
