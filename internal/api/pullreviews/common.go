package pullreviews

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pullreviews"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// open starts every handler: the repository with the caller's permission
// (404 when hidden, as api.Deps.Repo answers).
func (a *API) open(r *http.Request) (pullreviews.Access, error) {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return pullreviews.Access{}, err
	}
	return pullreviews.Access{Repo: repo, Perm: perm, UserID: rest.Caller(r).UserID()}, nil
}

// openWrite is open for changes: a user behind the request with a token
// that may write to public repositories (any reader may review).
func (a *API) openWrite(r *http.Request) (pullreviews.Access, error) {
	x, err := a.open(r)
	if err != nil {
		return x, err
	}
	c, err := api.RequireUser(r)
	if err != nil {
		return x, err
	}
	return x, api.RequireScope(c, "public_repo")
}

// pathID reads a positive id path value (404 otherwise).
func pathID(r *http.Request, name string) (int64, error) {
	v, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || v <= 0 {
		return 0, model.ErrNotFound
	}
	return v, nil
}

// openPull is open (or openWrite) and the pull request number.
func (a *API) openPull(r *http.Request, write bool) (pullreviews.Access, int64, error) {
	open := a.open
	if write {
		open = a.openWrite
	}
	x, err := open(r)
	if err != nil {
		return x, 0, err
	}
	n, err := pathID(r, "pull_number")
	return x, n, err
}

// openReview is openPull and the review id.
func (a *API) openReview(r *http.Request, write bool) (pullreviews.Access, int64, int64, error) {
	x, n, err := a.openPull(r, write)
	if err != nil {
		return x, 0, 0, err
	}
	id, err := pathID(r, "review_id")
	return x, n, id, err
}

// openComment is open (or openWrite) and the comment id.
func (a *API) openComment(r *http.Request, write bool) (pullreviews.Access, int64, error) {
	open := a.open
	if write {
		open = a.openWrite
	}
	x, err := open(r)
	if err != nil {
		return x, 0, err
	}
	id, err := pathID(r, "comment_id")
	return x, id, err
}

func (a *API) writer(r *http.Request) *wire.IssueWriter {
	return a.d.URLs.NewIssueWriter(wire.Bodies(rest.From(r).Media.Param))
}

// since reads the since query parameter (ISO 8601).
func since(r *http.Request) (*time.Time, error) {
	s := r.URL.Query().Get("since")
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t, nil
		}
	}
	return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "PullRequestReviewComment", Field: "since", Code: "invalid", Value: s}}}
}

// pullSimple is the pull-request-simple object of a pull request, as the
// pull requests package renders it (RenderPull, set by the server).
func (a *API) pullSimple(r *http.Request, x pullreviews.Access, p *model.Pull) (wire.PullSimple, error) {
	return a.RenderPull(r, x.Repo, x.Perm, p)
}
