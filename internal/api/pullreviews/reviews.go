package pullreviews

import (
	"net/http"

	"github.com/hubd/hubd/internal/pullreviews"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews
func (a *API) listReviews(w http.ResponseWriter, r *http.Request) error {
	x, n, err := a.openPull(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Reviews(r.Context(), x, n, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]wire.PullReview, 0, len(list))
	for _, v := range list {
		out = append(out, wr.ToPullReview(x.Repo, v))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// commentBody is a review comment in a request (create-review-comment, or
// an entry of create-review's comments).
type commentBody struct {
	Body        *string `json:"body"`
	CommitID    *string `json:"commit_id"`
	Path        *string `json:"path"`
	Position    *int64  `json:"position"`
	Line        *int64  `json:"line"`
	Side        *string `json:"side"`
	StartLine   *int64  `json:"start_line"`
	StartSide   *string `json:"start_side"`
	SubjectType *string `json:"subject_type"`
	InReplyTo   *int64  `json:"in_reply_to"`
}

func (c commentBody) input() pullreviews.CommentInput {
	return pullreviews.CommentInput{Body: c.Body, CommitID: c.CommitID, Path: c.Path, Position: c.Position, Line: c.Line,
		Side: c.Side, StartLine: c.StartLine, StartSide: c.StartSide, SubjectType: c.SubjectType, InReplyTo: c.InReplyTo}
}

// POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews
func (a *API) createReview(w http.ResponseWriter, r *http.Request) error {
	x, n, err := a.openPull(r, true)
	if err != nil {
		return err
	}
	if err := a.d.MayParticipate(r.Context(), x.Repo, x.UserID, "review"); err != nil {
		return err
	}
	var in struct {
		CommitID *string       `json:"commit_id"`
		Body     *string       `json:"body"`
		Event    *string       `json:"event"`
		Comments []commentBody `json:"comments"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if err := a.mayApprove(r, x, in.Event); err != nil {
		return err
	}
	ri := pullreviews.ReviewInput{CommitID: in.CommitID, Body: in.Body, Event: in.Event}
	for _, c := range in.Comments {
		ri.Comments = append(ri.Comments, c.input())
	}
	v, err := a.svc.CreateReview(r.Context(), x, n, ri)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToPullReview(x.Repo, v))
}

// GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}
func (a *API) getReview(w http.ResponseWriter, r *http.Request) error {
	x, n, id, err := a.openReview(r, false)
	if err != nil {
		return err
	}
	_, v, err := a.svc.Review(r.Context(), x, n, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToPullReview(x.Repo, v))
}

// PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}
func (a *API) updateReview(w http.ResponseWriter, r *http.Request) error {
	x, n, id, err := a.openReview(r, true)
	if err != nil {
		return err
	}
	var in struct {
		Body *string `json:"body"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	v, err := a.svc.UpdateReview(r.Context(), x, n, id, in.Body)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToPullReview(x.Repo, v))
}

// DELETE /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}
func (a *API) deleteReview(w http.ResponseWriter, r *http.Request) error {
	x, n, id, err := a.openReview(r, true)
	if err != nil {
		return err
	}
	v, err := a.svc.DeletePendingReview(r.Context(), x, n, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToPullReview(x.Repo, v))
}

// GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments
func (a *API) listReviewComments(w http.ResponseWriter, r *http.Request) error {
	x, n, id, err := a.openReview(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ReviewComments(r.Context(), x, n, id, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]wire.ReviewComment, 0, len(list))
	for _, c := range list {
		out = append(out, wr.ToReviewComment(x.Repo, c))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals
func (a *API) dismissReview(w http.ResponseWriter, r *http.Request) error {
	x, n, id, err := a.openReview(r, true)
	if err != nil {
		return err
	}
	var in struct {
		Message string `json:"message"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	v, err := a.svc.DismissReview(r.Context(), x, n, id, in.Message)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToPullReview(x.Repo, v))
}

// POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/events
func (a *API) submitReview(w http.ResponseWriter, r *http.Request) error {
	x, n, id, err := a.openReview(r, true)
	if err != nil {
		return err
	}
	var in struct {
		Body  *string `json:"body"`
		Event *string `json:"event"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if err := a.mayApprove(r, x, in.Event); err != nil {
		return err
	}
	v, err := a.svc.SubmitReview(r.Context(), x, n, id, in.Event, in.Body)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToPullReview(x.Repo, v))
}

// mayApprove runs the Deps' MayApprove check on an APPROVE event.
func (a *API) mayApprove(r *http.Request, x pullreviews.Access, event *string) error {
	if event == nil || *event != "APPROVE" || a.d.MayApprove == nil {
		return nil
	}
	return a.d.MayApprove(r.Context(), x.Repo, x.UserID)
}
