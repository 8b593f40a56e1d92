package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// IssueEvent is components/schemas/issue-event and the members of
// issue-event-for-issue: the common fields and those of its kind.
type IssueEvent struct {
	ID                    int64                 `json:"id"`
	NodeID                string                `json:"node_id"`
	URL                   string                `json:"url"`
	Actor                 *SimpleUser           `json:"actor"`
	Event                 string                `json:"event"`
	CommitID              *string               `json:"commit_id"`
	CommitURL             *string               `json:"commit_url"`
	CreatedAt             string                `json:"created_at"`
	PerformedViaGitHubApp *Integration          `json:"performed_via_github_app"`
	Issue                 *Issue                `json:"issue,omitempty"`
	Label                 *EventLabel           `json:"label,omitempty"`
	Assignee              *SimpleUser           `json:"assignee,omitempty"`
	Assigner              *SimpleUser           `json:"assigner,omitempty"`
	Milestone             *EventMilestone       `json:"milestone,omitempty"`
	Rename                *EventRename          `json:"rename,omitempty"`
	LockReason            Maybe[string]         `json:"lock_reason,omitzero"`
	StateReason           Maybe[string]         `json:"state_reason,omitzero"`
	SubIssue              Maybe[IssueReference] `json:"sub_issue,omitzero"`
	ParentIssue           Maybe[IssueReference] `json:"parent_issue,omitzero"`
	BlockedBy             Maybe[IssueReference] `json:"blocked_by,omitzero"`
	Blocking              Maybe[IssueReference] `json:"blocking,omitzero"`
	RequestedReviewer     *SimpleUser           `json:"requested_reviewer,omitempty"`
	RequestedTeam         *TeamWithParent       `json:"requested_team,omitempty"`
	ReviewRequester       *SimpleUser           `json:"review_requester,omitempty"`
	DismissedReview       *DismissedReview      `json:"dismissed_review,omitempty"`
}

// EventLabel is components/schemas/issue-event-label.
type EventLabel struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// EventMilestone is components/schemas/issue-event-milestone.
type EventMilestone struct {
	Title string `json:"title"`
}

// EventRename is components/schemas/issue-event-rename.
type EventRename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// IssueReference is components/schemas/issue-reference: another issue of a
// sub-issue or dependency event.
type IssueReference struct {
	Number      int64     `json:"number"`
	Title       string    `json:"title"`
	State       string    `json:"state"`
	StateReason *string   `json:"state_reason"`
	Repository  RepoBase  `json:"repository"`
	IssueType   *struct{} `json:"issue_type"`
}

// ToIssueReference converts the other issue of an event.
func (u URLs) ToIssueReference(repo *model.Repo, is *model.Issue) *IssueReference {
	return &IssueReference{Number: is.Number, Title: is.Title, State: is.State, StateReason: is.StateReason, Repository: u.ToRepoBase(repo)}
}

// EventAPIURL is the API URL of an issue event.
func (u URLs) EventAPIURL(repo *model.Repo, id int64) string {
	return u.RepoAPIURL(repo) + "/issues/events/" + strconv.FormatInt(id, 10)
}

// ToIssueEvent converts an event; refs holds the other issues of sub-issue
// and dependency events that the caller may see (a missing one is null).
func (w *IssueWriter) ToIssueEvent(repo *model.Repo, e *model.IssueEvent, refs map[int64]*IssueReference) IssueEvent {
	out := IssueEvent{
		ID: e.ID, NodeID: NodeID("IE", e.ID), URL: w.U.EventAPIURL(repo, e.ID), Actor: w.User(e.Actor),
		Event: e.Event, CommitID: e.CommitID, CreatedAt: Time(e.CreatedAt), PerformedViaGitHubApp: w.viaApp(e.ViaApp),
	}
	if e.CommitID != nil {
		c := w.U.RepoAPIURL(repo) + "/commits/" + *e.CommitID
		out.CommitURL = &c
	}
	ref := Some(refs[e.SubjectID])
	switch e.Event {
	case "labeled", "unlabeled":
		out.Label = &EventLabel{Name: e.LabelName, Color: e.LabelColor}
	case "assigned", "unassigned":
		out.Assignee, out.Assigner = w.User(e.Assignee), w.User(e.Assigner)
	case "milestoned", "demilestoned":
		out.Milestone = &EventMilestone{Title: e.Milestone}
	case "renamed":
		out.Rename = &EventRename{From: e.RenameFrom, To: e.RenameTo}
	case "locked":
		out.LockReason = Some(e.LockReason)
	case "closed", "reopened":
		out.StateReason = Some(e.StateReason)
	case "sub_issue_added", "sub_issue_removed":
		out.SubIssue = ref
	case "parent_issue_added", "parent_issue_removed":
		out.ParentIssue = ref
	case "blocked_by_added", "blocked_by_removed":
		out.BlockedBy = ref
	case "blocking_added", "blocking_removed":
		out.Blocking = ref
	case "review_requested", "review_request_removed":
		// Stored in the assignee (reviewer) and assigner (requester)
		// columns; a team's in subject_id, loaded into Team (nil when
		// deleted or hidden from the viewer: the key is left out).
		out.RequestedReviewer, out.ReviewRequester = w.User(e.Assignee), w.User(e.Assigner)
		if e.Team != nil {
			t := w.U.ToTeamWithParent(e.Team)
			out.RequestedTeam = &t
		}
	case "review_dismissed":
		// The prior state and the message ride in the rename columns.
		msg := e.RenameTo
		out.DismissedReview = &DismissedReview{State: e.RenameFrom, ReviewID: e.SubjectID, DismissalMessage: &msg}
	}
	return out
}

// TimelineComment is components/schemas/timeline-comment-event.
type TimelineComment struct {
	Event string      `json:"event"`
	Actor *SimpleUser `json:"actor"`
	IssueComment
}

// ToTimelineComment converts a comment entry of a timeline.
func (w *IssueWriter) ToTimelineComment(repo *model.Repo, c *model.IssueComment) TimelineComment {
	return TimelineComment{Event: "commented", Actor: w.User(c.User), IssueComment: w.ToComment(repo, c)}
}

// TimelineCrossReference is components/schemas/timeline-cross-referenced-event.
type TimelineCrossReference struct {
	Event     string      `json:"event"`
	Actor     *SimpleUser `json:"actor,omitempty"`
	CreatedAt string      `json:"created_at"`
	UpdatedAt string      `json:"updated_at"`
	Source    CrossSource `json:"source"`
}

// CrossSource is the source of a cross-reference.
type CrossSource struct {
	Type  string `json:"type"`
	Issue *Issue `json:"issue,omitempty"`
}

// ToCrossReference converts a cross-referenced entry whose source issue is
// src (in repository srcRepo, which the caller may see with access acc).
func (w *IssueWriter) ToCrossReference(e *model.IssueEvent, srcRepo *model.Repo, src *model.Issue, acc Access) TimelineCrossReference {
	is := w.ToIssue(srcRepo, src, &acc)
	return TimelineCrossReference{Event: e.Event, Actor: w.User(e.Actor), CreatedAt: Time(e.CreatedAt), UpdatedAt: Time(e.CreatedAt),
		Source: CrossSource{Type: "issue", Issue: &is}}
}

// IssueFieldValue is components/schemas/issue-field-value.
type IssueFieldValue struct {
	IssueFieldID       int64        `json:"issue_field_id"`
	IssueFieldName     string       `json:"issue_field_name"`
	NodeID             string       `json:"node_id"`
	DataType           string       `json:"data_type"`
	Value              any          `json:"value"`
	SingleSelectOption *FieldOption `json:"single_select_option"`
}

// FieldOption is the selected option of a single-select value.
type FieldOption struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// ToIssueFieldValue converts an issue's value of a field.
func ToIssueFieldValue(v *model.IssueFieldValue) IssueFieldValue {
	out := IssueFieldValue{IssueFieldID: v.Field.ID, IssueFieldName: v.Field.Name,
		NodeID: NodeID("IFV", v.IssueID*1_000_000+v.Field.ID), DataType: v.Field.DataType}
	switch {
	case v.Option != nil:
		// A single-select value is its option's id (the name is in
		// single_select_option), as in GitHub's examples.
		out.Value = v.Option.ID
		out.SingleSelectOption = &FieldOption{ID: v.Option.ID, Name: v.Option.Name, Color: v.Option.Color}
	case v.Number != nil:
		out.Value = *v.Number
	case v.Text != nil:
		out.Value = *v.Text
	}
	return out
}
