// Package issues is the issue service: opening, editing, closing,
// reopening and deleting issues, comments, labels and assignees on them,
// field values, relations (sub-issues, dependencies), the issue events and
// cross references their writes record, and GitHub's limits on what people write.
// Every transport runs these with the same checks, transaction and events
// (REST's internal/api/issues and GraphQL's mutations); server wires it.
package issues

import (
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// Service is the issue service.
type Service struct {
	d *deps.Deps
}

// New makes the service. (The issues pushed commits reference are
// recorded by internal/closing's push job.)
func New(d *deps.Deps) *Service {
	return &Service{d: d}
}

var (
	ErrDisabled = model.Gone("Issues are disabled for this repo")
	ErrLocked   = model.Forbidden("Unable to create comment because issue is locked.")
)

// Access is a repository, found and visible, with the caller and the
// caller's permission on it: what every write of the service acts on.
type Access struct {
	Repo   *model.Repo
	Perm   authz.Permission
	Caller *authz.Caller
}

// Writable refuses writes to archived repositories.
func (x *Access) Writable() error {
	if err := x.Repo.WriteRefusal(); err != nil {
		return err
	}
	return nil
}

// MayWrite is participating without a request: a signed-in user whose
// token may write issues, on a repository that is not archived.
func (x *Access) MayWrite() error {
	if x.Caller == nil || x.Caller.User == nil {
		return rest.ErrRequiresAuth
	}
	if err := deps.RequireScope(x.Caller, "public_repo"); err != nil {
		return err
	}
	return x.Writable()
}

// Triage says whether the caller triages the repository's issues.
func (x *Access) Triage() bool { return x.Perm >= authz.Triage }

// Org is the repository's organization (0 for a user's repository), which
// its events carry.
func (x *Access) Org() int64 {
	if x.Repo.Owner != nil && x.Repo.Owner.IsOrg() {
		return x.Repo.Owner.ID
	}
	return 0
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
	// SetMilestone, setAssignees and setLabels say which lists an edit
	// replaces (always all three when opening).
	SetMilestone, SetAssignees, SetLabels bool
	Assignees                             []*model.Account
	Labels                                []string
	// LabelMode and AssigneeMode "add" or "remove" change the current
	// lists instead of replacing them (GraphQL's addLabelsToLabelable...).
	LabelMode, AssigneeMode string
	// Type is the issue type an issue opens with (triagers only).
	Type *model.IssueType
}
