// Package issues is the issue service as the transports see it: the input
// of its writes and the operations every transport runs with the same
// checks, transaction and events (GraphQL's issue mutations run what REST's
// handlers run). The implementation still sits beside the REST handlers in
// internal/api/issues, whose helpers both share; server wires it in, so no
// transport imports another.
package issues

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// Service is the issue service's writes. They take the caller and the
// repository with the caller's permission on it, already found and visible,
// and answer with the same errors as REST.
type Service interface {
	// OpenIssue opens an issue as POST /repos/{owner}/{repo}/issues does.
	OpenIssue(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, in IssueInput) (*model.Issue, error)
	// ChangeIssue edits an issue as PATCH .../issues/{number} does.
	ChangeIssue(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, is *model.Issue, in IssueInput) error
	// DeleteIssue deletes an issue for good (GraphQL's deleteIssue).
	DeleteIssue(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, is *model.Issue) error
	// AddComment comments as POST .../issues/{number}/comments does.
	AddComment(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, number int64, body string) (*model.IssueComment, error)
}

// IssueInput is an issue to open or the parts of one to change, with
// names already resolved (GraphQL resolves its ids to these).
type IssueInput struct {
	Title     *string
	Body      *string
	BodySet   bool
	State     string // "open" or "closed"; "" leaves it
	Reason    string // completed, not_planned, duplicate, reopened
	Milestone *model.Milestone
	// SetMilestone, SetAssignees and SetLabels say which lists an edit
	// replaces (always all three when opening).
	SetMilestone, SetAssignees, SetLabels bool
	Assignees                             []*model.Account
	Labels                                []string
	// LabelMode and AssigneeMode "add" or "remove" change the current
	// lists instead of replacing them (GraphQL's addLabelsToLabelable...).
	LabelMode, AssigneeMode string
}
