package issues

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// The issue writes that REST and GraphQL share: the REST handlers parse
// their bodies into these values, GraphQL's mutations resolve their ids
// into them, and both run the same checks, transaction and events.

// NewIssue is what opening an issue needs once names are resolved.
type NewIssue struct {
	Title     string
	Body      *string
	Milestone *model.Milestone
	Assignees []*model.Account
	Labels    []string // created if missing, as REST does for triagers
	Type      *model.IssueType
}

// IssueChange is an edit of an issue; unset parts stay as they are.
type IssueChange struct {
	Title                *string
	Body                 *string
	BodySet              bool
	State, Reason        string // State "open"/"closed" when stateSet
	StateSet             bool
	Duplicate            int64
	Milestone            *model.Milestone
	SetMilestone         bool
	Assignees            []*model.Account
	SetAssignees         bool
	LabelNames           []string
	SetLabels, FieldsSet bool
	Fields               []*model.IssueFieldValue
	// LabelMode and AssigneeMode "add" or "remove" change the current
	// lists by LabelNames / Assignees instead of replacing them.
	LabelMode, AssigneeMode string
	// Type is the issue's new type (nil: none) when SetType.
	Type    *model.IssueType
	SetType bool
}

// Open creates an issue with its metadata in one transaction.
func (a *Service) Open(ctx context.Context, x *Access, in NewIssue, fields []*model.IssueFieldValue) (*model.Issue, error) {
	actor := x.Caller.UserID()
	is := &model.Issue{RepoID: x.Repo.ID, Title: in.Title, Body: in.Body, UserID: actor}
	if in.Milestone != nil {
		is.MilestoneID = in.Milestone.ID
	}
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateIssue(ctx, is); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "issues.opened", actor, x.Repo.ID, x.Org(), issuePayload(is, "opened")); err != nil {
			return err
		}
		if in.Milestone != nil {
			if err := event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "milestoned", Milestone: in.Milestone.Title}, nil); err != nil {
				return err
			}
		}
		labels, err := ensureLabels(ctx, tx, x, actor, in.Labels)
		if err != nil {
			return err
		}
		if _, err := setLabels(ctx, tx, x, is, actor, labels); err != nil {
			return err
		}
		if _, err := setAssignees(ctx, tx, x, is, actor, in.Assignees); err != nil {
			return err
		}
		if err := writeFieldValues(ctx, tx, x, is, actor, fields, false); err != nil {
			return err
		}
		if in.Type != nil {
			if err := setType(ctx, tx, x, is, in.Type); err != nil {
				return err
			}
		}
		return a.noteBody(ctx, tx, x, is, actor, is.Body)
	})
	if err != nil {
		return nil, err
	}
	return is, nil
}

// Change applies an edit in one transaction, with its events.
func (a *Service) Change(ctx context.Context, x *Access, id int64, ch IssueChange) error {
	actor := x.Caller.UserID()
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		before, err := tx.IssueByID(ctx, id)
		if err != nil {
			return err
		}
		after := *before
		if ch.Title != nil {
			after.Title = *ch.Title
		}
		if ch.BodySet {
			after.Body = ch.Body
		}
		now := tx.Now()
		reason := ch.Reason
		switch {
		case ch.StateSet && ch.State == "closed" && before.State == "open":
			if reason == "" {
				reason = "completed"
			}
			after.State, after.StateReason, after.ClosedAt, after.ClosedByID = "closed", &reason, &now, actor
			if reason == "duplicate" {
				after.DuplicateOf = ch.Duplicate
			}
		case ch.StateSet && ch.State == "open" && before.State == "closed":
			reopened := "reopened"
			after.State, after.StateReason, after.ClosedAt, after.ClosedByID, after.DuplicateOf = "open", &reopened, nil, 0, 0
		}
		if ch.SetMilestone {
			after.MilestoneID = 0
			if ch.Milestone != nil {
				after.MilestoneID = ch.Milestone.ID
			}
		}
		textChanged := after.Title != before.Title || !sameStr(after.Body, before.Body)
		if textChanged || after.State != before.State || after.MilestoneID != before.MilestoneID {
			if err := tx.UpdateIssue(ctx, before, &after); err != nil {
				return err
			}
		}
		if after.Title != before.Title {
			if err := event(ctx, tx, x, &after, model.IssueEvent{ActorID: actor, Event: "renamed", RenameFrom: before.Title, RenameTo: after.Title}, nil); err != nil {
				return err
			}
		}
		if !sameStr(after.Body, before.Body) {
			p := issuePayload(&after, "edited")
			p["changes"] = map[string]any{"body": map[string]any{"from": before.Body}}
			if err := tx.AppendEvent(ctx, "issues.edited", actor, x.Repo.ID, x.Org(), p); err != nil {
				return err
			}
			if err := a.noteBody(ctx, tx, x, &after, actor, after.Body); err != nil {
				return err
			}
		}
		if after.State != before.State {
			ev := model.IssueEvent{ActorID: actor, Event: "closed", StateReason: after.StateReason}
			if after.State == "open" {
				ev.Event = "reopened"
			}
			if err := event(ctx, tx, x, &after, ev, map[string]any{"state_reason": after.StateReason}); err != nil {
				return err
			}
		}
		if ch.SetType {
			if before.IsPull {
				return model.Unprocessable("Pull requests cannot have an issue type.")
			}
			if err := setType(ctx, tx, x, &after, ch.Type); err != nil {
				return err
			}
		}
		if after.MilestoneID != before.MilestoneID {
			if before.MilestoneID != 0 {
				old, err := tx.MilestoneByID(ctx, before.MilestoneID)
				if err != nil {
					return err
				}
				if err := event(ctx, tx, x, &after, model.IssueEvent{ActorID: actor, Event: "demilestoned", Milestone: old.Title}, nil); err != nil {
					return err
				}
			}
			if ch.Milestone != nil {
				if err := event(ctx, tx, x, &after, model.IssueEvent{ActorID: actor, Event: "milestoned", Milestone: ch.Milestone.Title}, nil); err != nil {
					return err
				}
			}
		}
		touched := false
		if ch.SetLabels {
			names := ch.LabelNames
			if ch.LabelMode != "" {
				current, err := tx.IssueLabels(ctx, after.ID)
				if err != nil {
					return err
				}
				names = mergeNames(current, ch.LabelNames, ch.LabelMode == "add")
			}
			labels, err := ensureLabels(ctx, tx, x, actor, names)
			if err != nil {
				return err
			}
			ok, err := setLabels(ctx, tx, x, &after, actor, labels)
			if err != nil {
				return err
			}
			touched = touched || ok
		}
		if ch.SetAssignees {
			list := ch.Assignees
			if ch.AssigneeMode != "" {
				current, err := tx.IssueAssignees(ctx, after.ID)
				if err != nil {
					return err
				}
				list = mergeAccounts(current, ch.Assignees, ch.AssigneeMode == "add")
				if len(list) > MaxAssignees {
					return &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "assignees", Code: "invalid",
						Message: "You can Assign up to 10 users to an issue."}}}
				}
			}
			ok, err := setAssignees(ctx, tx, x, &after, actor, list)
			if err != nil {
				return err
			}
			touched = touched || ok
		}
		if ch.FieldsSet {
			if err := writeFieldValues(ctx, tx, x, &after, actor, ch.Fields, false); err != nil {
				return err
			}
			touched = true
		}
		if touched {
			return tx.TouchIssue(ctx, &after)
		}
		return nil
	})
}

// mayAssign refuses users who may not be assigned in the repository, with
// REST's 422.
func (a *Service) mayAssign(ctx context.Context, repoID int64, users []*model.Account) error {
	if len(users) == 0 {
		return nil
	}
	logins := make([]string, len(users))
	for i, u := range users {
		logins[i] = u.Login
	}
	_, err := a.ResolveAssignees(ctx, a.d.Store.R(), repoID, logins)
	return err
}

// mergeNames adds names to the current labels' names, or removes them
// (case-insensitively).
func mergeNames(current []*model.Label, names []string, add bool) []string {
	drop := map[string]bool{}
	for _, n := range names {
		drop[strings.ToLower(n)] = true
	}
	var out []string
	for _, l := range current {
		if add || !drop[strings.ToLower(l.Name)] {
			out = append(out, l.Name)
		}
	}
	if add {
		out = append(out, names...)
	}
	return out
}

// mergeAccounts adds users to the current ones, or removes them.
func mergeAccounts(current, users []*model.Account, add bool) []*model.Account {
	in := map[int64]bool{}
	for _, u := range users {
		in[u.ID] = true
	}
	var out []*model.Account
	seen := map[int64]bool{}
	for _, u := range current {
		if add || !in[u.ID] {
			out, seen[u.ID] = append(out, u), true
		}
	}
	if add {
		for _, u := range users {
			if !seen[u.ID] {
				out, seen[u.ID] = append(out, u), true
			}
		}
	}
	return out
}

// Exported entry points for the other transports (GraphQL). They take the
// caller and the repository with the caller's permission on it, already
// found and visible, and answer with the same errors as REST.

func (a *Service) accessFor(c *authz.Caller, repo *model.Repo, perm authz.Permission) (*Access, error) {
	if !repo.HasIssues {
		return nil, ErrDisabled
	}
	x := &Access{Repo: repo, Perm: perm, Caller: c}
	return x, x.MayWrite()
}

// OpenIssue opens an issue as POST /repos/{owner}/{repo}/issues does:
// blocks and interaction limits apply, title and body limits, and only
// triagers set milestone, assignees and labels (others' are dropped).
func (a *Service) OpenIssue(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, in IssueInput) (*model.Issue, error) {
	x, err := a.accessFor(c, repo, perm)
	if err != nil {
		return nil, err
	}
	if err := a.d.MayParticipate(ctx, repo, c.UserID(), "issue"); err != nil {
		return nil, err
	}
	title := ""
	if in.Title != nil {
		title = *in.Title
	}
	if strings.TrimSpace(title) == "" {
		return nil, model.Invalid("Issue", "title", "missing_field")
	}
	if err := CheckIssueText(&title, in.Body); err != nil {
		return nil, err
	}
	if len(in.Assignees) > MaxAssignees {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "assignees", Code: "invalid",
			Message: "You can Assign up to 10 users to an issue."}}}
	}
	if x.Triage() {
		if err := a.mayAssign(ctx, repo.ID, in.Assignees); err != nil {
			return nil, err
		}
	}
	n := NewIssue{Title: title, Body: in.Body}
	if x.Triage() {
		n.Milestone, n.Assignees, n.Labels, n.Type = in.Milestone, in.Assignees, in.Labels, in.Type
	}
	return a.Open(ctx, x, n, nil)
}

// ChangeIssue edits an issue as PATCH .../issues/{number} does: its author
// or a triager may change title, body and state; only triagers the rest.
func (a *Service) ChangeIssue(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, is *model.Issue, in IssueInput) error {
	x, err := a.accessFor(c, repo, perm)
	if err != nil {
		return err
	}
	if !x.Triage() && is.UserID != c.UserID() {
		return deps.NeedPermission(authz.Triage)
	}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return model.Invalid("Issue", "title", "missing_field")
	}
	if err := CheckIssueText(in.Title, in.Body); err != nil {
		return err
	}
	if len(in.Assignees) > MaxAssignees && in.AssigneeMode == "" {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "assignees", Code: "invalid",
			Message: "You can Assign up to 10 users to an issue."}}}
	}
	if x.Triage() && in.AssigneeMode != "remove" {
		if err := a.mayAssign(ctx, repo.ID, in.Assignees); err != nil {
			return err
		}
	}
	ch := IssueChange{Title: in.Title, Body: in.Body, BodySet: in.BodySet, State: in.State, StateSet: in.State != "", Reason: in.Reason}
	if x.Triage() {
		ch.Milestone, ch.SetMilestone = in.Milestone, in.SetMilestone
		ch.Assignees, ch.SetAssignees = in.Assignees, in.SetAssignees
		ch.LabelNames, ch.SetLabels = in.Labels, in.SetLabels
		ch.LabelMode, ch.AssigneeMode = in.LabelMode, in.AssigneeMode
	} else if in.SetLabels || in.SetAssignees || in.SetMilestone {
		// REST drops them silently for non-triagers; a mutation that only
		// changes them says why it did nothing.
		if in.Title == nil && !in.BodySet && in.State == "" {
			return deps.NeedPermission(authz.Triage)
		}
	}
	return a.Change(ctx, x, is.ID, ch)
}

// DeleteIssue deletes an issue for good, as GitHub's deleteIssue mutation
// does (REST has no such operation): repository administrators only; pull
// requests cannot be deleted. Its number is never reused and answers 410.
func (a *Service) DeleteIssue(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, is *model.Issue) error {
	x, err := a.accessFor(c, repo, perm)
	if err != nil {
		return err
	}
	if is.IsPull {
		return model.Unprocessable("Pull requests cannot be deleted.")
	}
	if x.Perm < authz.Admin {
		return deps.NeedPermission(authz.Admin)
	}
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		cur, err := tx.IssueByID(ctx, is.ID)
		if err != nil {
			return err
		}
		// The issues webhook's "deleted" carries the issue as it was.
		if err := tx.IssueDetails(ctx, []*model.Issue{cur}, true); err != nil {
			return err
		}
		wr := a.d.URLs.NewIssueWriter(wire.BodyFormat{Raw: true})
		snap := wr.ToIssue(repo, cur, nil)
		wr.WithClosedBy(&snap, cur)
		if err := tx.DeleteIssue(ctx, cur, c.UserID()); err != nil {
			return err
		}
		p := issuePayload(cur, "deleted")
		p["title"] = cur.Title
		p["webhook"] = map[string]any{"issue": snap}
		return tx.AppendEvent(ctx, "issues.deleted", c.UserID(), repo.ID, x.Org(), p)
	})
}
