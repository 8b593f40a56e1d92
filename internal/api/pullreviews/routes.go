// Package pullreviews is the REST adapter of pull request reviews, review
// comments and review requests (docs: pulls/reviews, pulls/comments,
// pulls/review-requests, and the reactions of review comments) over the
// pullreviews service: it resolves the repository and the caller, decodes,
// calls the service and converts.
package pullreviews

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pullreviews"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API serves the review routes.
type API struct {
	d   *api.Deps
	svc *pullreviews.Service
	// RenderPull is the pull-request-simple object of a pull request (the
	// pull requests package's; request-reviewers answers it).
	RenderPull func(r *http.Request, repo *model.Repo, perm authz.Permission, p *model.Pull) (wire.PullSimple, error)
}

// New makes the package.
func New(d *api.Deps) *API {
	return &API{d: d, svc: pullreviews.New(d.Store, d.Git)}
}

// Service is the review service (the pulls service calls its HeadMoved).
func (a *API) Service() *pullreviews.Service { return a.svc }

// Classic scopes of the route table.
var (
	read  = []string{"repo"}
	write = []string{"public_repo", "repo"}
)

// reasonNote says how review 422s differ from GitHub's.
const reasonNote = "An unknown commit_id and an oversized body answer 422 with the reason as the message, not in errors[] as GitHub may; " +
	"the other refusals have GitHub's shape."

// commentNote adds what review comments lack.
const commentNote = reasonNote + " LEFT-side comments are not followed through a moved base; comments on a renamed file become outdated."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", OperationID: "pulls/list-requested-reviewers", Handler: a.listRequested, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", OperationID: "pulls/request-reviewers", Handler: a.requestReviewers, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", OperationID: "pulls/remove-requested-reviewers", Handler: a.removeReviewers, Scopes: write},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", OperationID: "pulls/list-reviews", Handler: a.listReviews, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", OperationID: "pulls/create-review", Handler: a.createReview, Scopes: write, Note: reasonNote},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}", OperationID: "pulls/get-review", Handler: a.getReview, Scopes: read},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}", OperationID: "pulls/update-review", Handler: a.updateReview, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}", OperationID: "pulls/delete-pending-review", Handler: a.deleteReview, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments", OperationID: "pulls/list-comments-for-review", Handler: a.listReviewComments, Scopes: read},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals", OperationID: "pulls/dismiss-review", Handler: a.dismissReview, Scopes: write},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/events", OperationID: "pulls/submit-review", Handler: a.submitReview, Scopes: write, Note: reasonNote},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/comments", OperationID: "pulls/list-review-comments-for-repo", Handler: a.listRepoComments, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/comments/{comment_id}", OperationID: "pulls/get-review-comment", Handler: a.getComment, Scopes: read},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/pulls/comments/{comment_id}", OperationID: "pulls/update-review-comment", Handler: a.updateComment, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/pulls/comments/{comment_id}", OperationID: "pulls/delete-review-comment", Handler: a.deleteComment, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/comments", OperationID: "pulls/list-review-comments", Handler: a.listPullComments, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/comments", OperationID: "pulls/create-review-comment", Handler: a.createComment, Scopes: write, Note: commentNote},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", OperationID: "pulls/create-reply-for-review-comment", Handler: a.reply, Scopes: write},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", OperationID: "reactions/list-for-pull-request-review-comment", Handler: a.reactions().List, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", OperationID: "reactions/create-for-pull-request-review-comment", Handler: a.reactions().Create, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions/{reaction_id}", OperationID: "reactions/delete-for-pull-request-comment", Handler: a.reactions().Delete, Scopes: write},
	}
}
