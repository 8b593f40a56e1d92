package graphql

import (
	"context"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Issue.timelineItems: the issue's event log (the store's issue_events,
// the one log REST's timeline reads) as GraphQL's IssueTimelineItems
// union. Each hubd event kind is one member type; itemTypes filters by
// kind in SQL. A batch of issues pages every timeline in SQL at once, then
// loads the comments, the other issues and repositories the page's events
// point at, one query per kind: no query per issue or per event.

// timelineKind is a member type of IssueTimelineItems: its GraphQL name,
// its itemTypes value, hubd's event of it ("" when hubd makes none) and
// the prefix of its node ids.
type timelineKind struct {
	typ, item, event, prefix string
}

var timelineKinds = []timelineKind{
	{"AddedToProjectEvent", "ADDED_TO_PROJECT_EVENT", "added_to_project", "ATPE_"},
	{"AssignedEvent", "ASSIGNED_EVENT", "assigned", "AE_"},
	{"ClosedEvent", "CLOSED_EVENT", "closed", "CE_"},
	{"CommentDeletedEvent", "COMMENT_DELETED_EVENT", "comment_deleted", "CDE_"},
	{"ConnectedEvent", "CONNECTED_EVENT", "connected", "CNE_"},
	{"ConvertedNoteToIssueEvent", "CONVERTED_NOTE_TO_ISSUE_EVENT", "converted_note_to_issue", "CNTIE_"},
	{"ConvertedToDiscussionEvent", "CONVERTED_TO_DISCUSSION_EVENT", "converted_to_discussion", "CTDE_"},
	{"CrossReferencedEvent", "CROSS_REFERENCED_EVENT", "cross-referenced", "CRE_"},
	{"DemilestonedEvent", "DEMILESTONED_EVENT", "demilestoned", "DEME_"},
	{"DisconnectedEvent", "DISCONNECTED_EVENT", "disconnected", "DCE_"},
	{"IssueComment", "ISSUE_COMMENT", "commented", "IC"},
	{"LabeledEvent", "LABELED_EVENT", "labeled", "LE_"},
	{"LockedEvent", "LOCKED_EVENT", "locked", "LOE_"},
	{"MarkedAsDuplicateEvent", "MARKED_AS_DUPLICATE_EVENT", "marked_as_duplicate", "MADE_"},
	{"MentionedEvent", "MENTIONED_EVENT", "mentioned", "MEE_"},
	{"MilestonedEvent", "MILESTONED_EVENT", "milestoned", "MIE_"},
	{"MovedColumnsInProjectEvent", "MOVED_COLUMNS_IN_PROJECT_EVENT", "moved_columns_in_project", "MCIPE_"},
	{"ParentIssueAddedEvent", "PARENT_ISSUE_ADDED_EVENT", "parent_issue_added", "PIAE_"},
	{"ParentIssueRemovedEvent", "PARENT_ISSUE_REMOVED_EVENT", "parent_issue_removed", "PIRE_"},
	{"PinnedEvent", "PINNED_EVENT", "pinned", "PIE_"},
	{"ReferencedEvent", "REFERENCED_EVENT", "referenced", "REFE_"},
	{"RemovedFromProjectEvent", "REMOVED_FROM_PROJECT_EVENT", "removed_from_project", "RFPE_"},
	{"RenamedTitleEvent", "RENAMED_TITLE_EVENT", "renamed", "RTE_"},
	{"ReopenedEvent", "REOPENED_EVENT", "reopened", "REE_"},
	{"SubIssueAddedEvent", "SUB_ISSUE_ADDED_EVENT", "sub_issue_added", "SIAE_"},
	{"SubIssueRemovedEvent", "SUB_ISSUE_REMOVED_EVENT", "sub_issue_removed", "SIRE_"},
	{"SubscribedEvent", "SUBSCRIBED_EVENT", "subscribed", "SE_"},
	{"TransferredEvent", "TRANSFERRED_EVENT", "transferred", "TE_"},
	{"UnassignedEvent", "UNASSIGNED_EVENT", "unassigned", "UAE_"},
	{"UnlabeledEvent", "UNLABELED_EVENT", "unlabeled", "UNLE_"},
	{"UnlockedEvent", "UNLOCKED_EVENT", "unlocked", "UNLOE_"},
	{"UnmarkedAsDuplicateEvent", "UNMARKED_AS_DUPLICATE_EVENT", "unmarked_as_duplicate", "UMADE_"},
	{"UnpinnedEvent", "UNPINNED_EVENT", "unpinned", "UNPE_"},
	{"UnsubscribedEvent", "UNSUBSCRIBED_EVENT", "unsubscribed", "USE_"},
	{"UserBlockedEvent", "USER_BLOCKED_EVENT", "user_blocked", "UBE_"},
}

var timelineByEvent = func() map[string]*timelineKind {
	m := map[string]*timelineKind{}
	for i := range timelineKinds {
		m[timelineKinds[i].event] = &timelineKinds[i]
	}
	return m
}()

// timelineObj is one event of an issue's timeline (a comment is its
// commentObj instead). other is what the event points at, loaded for the
// batch: the source of a cross-reference, the sub-issue or parent, the
// repository a transferred issue came from; nil when the viewer may not
// see it.
type timelineObj struct {
	e     *model.IssueEvent
	kind  *timelineKind
	issue *issueObj
	other any
}

// timelineEvents are hubd's events itemTypes selects (all kinds when it
// is absent).
func timelineEvents(args map[string]any) []string {
	v, ok := args["itemTypes"]
	if !ok || v == nil {
		out := make([]string, 0, len(timelineKinds))
		for _, k := range timelineKinds {
			out = append(out, k.event)
		}
		return out
	}
	var out []string
	for _, it := range asList(v) {
		for _, k := range timelineKinds {
			if k.item == it {
				out = append(out, k.event)
			}
		}
	}
	return out
}

func (a *API) registerTimeline() {
	a.schema.Resolve("Issue", "timelineItems", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		page, err := sqlPage(b, "timelineItems")
		if err != nil {
			return nil, err
		}
		q := a.d.Store.R()
		ids := issueIDsOf(b.Parents)
		pages, err := q.IssueTimelines(ctx, ids, timelineEvents(b.Args), page)
		if err != nil {
			return nil, err
		}
		var commentIDs, issueIDs, repoIDs []int64
		for _, p := range pages {
			for _, e := range p.Events {
				switch e.Event {
				case "commented":
					commentIDs = append(commentIDs, e.SubjectID)
				case "cross-referenced", "sub_issue_added", "sub_issue_removed", "parent_issue_added", "parent_issue_removed":
					if e.SubjectID != 0 {
						issueIDs = append(issueIDs, e.SubjectID)
					}
				case "transferred":
					if e.SubjectID != 0 {
						repoIDs = append(repoIDs, e.SubjectID)
					}
				}
			}
		}
		comments, err := q.CommentsByID(ctx, commentIDs)
		if err != nil {
			return nil, err
		}
		others, err := a.timelineIssues(ctx, issueIDs)
		if err != nil {
			return nil, err
		}
		repos, err := a.reposByID(ctx, repoIDs)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := asIssue(p)
			tp := pages[o.is.ID]
			c := &connection{total: tp.Total}
			c.offset, _ = page(tp.Total)
			for _, e := range tp.Events {
				if e.Event == "commented" {
					if cm := comments[e.SubjectID]; cm != nil {
						c.nodes = append(c.nodes, &commentObj{c: cm, issue: o})
					}
					continue
				}
				t := &timelineObj{e: e, kind: timelineByEvent[e.Event], issue: o}
				switch e.Event {
				case "transferred":
					if r := repos[e.SubjectID]; r != nil {
						t.other = r
					}
				case "cross-referenced":
					if others[e.SubjectID] == nil {
						continue // a source the viewer may not see is left out, as REST's timeline does
					}
					t.other = others[e.SubjectID]
				default:
					if x := others[e.SubjectID]; x != nil {
						t.other = x
					}
				}
				c.nodes = append(c.nodes, t)
			}
			out[i] = c
		}
		return out, nil
	})
	a.connectionTypes("IssueTimelineItemsConnection", "IssueTimelineItemsEdge")

	ev := func(typ, name string, f func(t *timelineObj) any) {
		a.field(typ, name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*timelineObj)), nil })
	}
	for _, k := range timelineKinds {
		if k.typ == "IssueComment" {
			continue
		}
		ev(k.typ, "id", func(t *timelineObj) any { return wire.NodeID(t.kind.prefix, t.e.ID) })
		ev(k.typ, "createdAt", func(t *timelineObj) any { return t.e.CreatedAt })
		ev(k.typ, "actor", func(t *timelineObj) any {
			if t.e.Actor == nil {
				return nil
			}
			return t.e.Actor
		})
	}
	for _, typ := range []string{"AssignedEvent", "UnassignedEvent"} {
		ev(typ, "assignee", func(t *timelineObj) any {
			if t.e.Assignee == nil {
				return nil
			}
			return t.e.Assignee
		})
	}
	for _, typ := range []string{"LabeledEvent", "UnlabeledEvent"} {
		ev(typ, "label", func(t *timelineObj) any {
			return &labelObj{l: &model.Label{Name: t.e.LabelName, Color: t.e.LabelColor}, repo: t.issue.repo}
		})
	}
	for _, typ := range []string{"MilestonedEvent", "DemilestonedEvent"} {
		ev(typ, "milestoneTitle", func(t *timelineObj) any { return t.e.Milestone })
	}
	stateReason := func(t *timelineObj) any {
		if t.e.StateReason == nil || *t.e.StateReason == "" {
			return nil
		}
		return upperEnum(*t.e.StateReason)
	}
	ev("ClosedEvent", "stateReason", stateReason)
	ev("ReopenedEvent", "stateReason", stateReason)
	ev("LockedEvent", "lockReason", func(t *timelineObj) any {
		if t.e.LockReason == nil || *t.e.LockReason == "" {
			return nil
		}
		return upperEnum(*t.e.LockReason)
	})
	eventURL := func(t *timelineObj) string {
		return a.issueURL(t.issue) + "#event-" + strconv.FormatInt(t.e.ID, 10)
	}
	eventPath := func(t *timelineObj) string {
		return "/" + t.issue.repo.v.Repo.FullName() + issuePath(t.issue) + "#event-" + strconv.FormatInt(t.e.ID, 10)
	}
	for _, typ := range []string{"ClosedEvent", "CrossReferencedEvent"} {
		ev(typ, "url", func(t *timelineObj) any { return eventURL(t) })
		ev(typ, "resourcePath", func(t *timelineObj) any { return eventPath(t) })
	}
	ev("CrossReferencedEvent", "source", func(t *timelineObj) any { return t.other })
	ev("CrossReferencedEvent", "target", func(t *timelineObj) any { return t.issue })
	ev("CrossReferencedEvent", "referencedAt", func(t *timelineObj) any { return t.e.CreatedAt })
	ev("CrossReferencedEvent", "willCloseTarget", func(t *timelineObj) any { return false })
	ev("CrossReferencedEvent", "isCrossRepository", func(t *timelineObj) any {
		return asIssue(t.other).is.RepoID != t.issue.is.RepoID
	})
	// hubd records references of an issue from commits of its own
	// repository only.
	ev("ReferencedEvent", "isCrossRepository", func(t *timelineObj) any { return false })
	ev("ReferencedEvent", "isDirectReference", func(t *timelineObj) any { return true })
	ev("RenamedTitleEvent", "previousTitle", func(t *timelineObj) any { return t.e.RenameFrom })
	ev("RenamedTitleEvent", "currentTitle", func(t *timelineObj) any { return t.e.RenameTo })
	ev("TransferredEvent", "fromRepository", func(t *timelineObj) any {
		if t.other == nil {
			return nil
		}
		return t.other
	})
	other := func(t *timelineObj) any {
		if o, ok := t.other.(*issueObj); ok {
			return o
		}
		return nil
	}
	ev("SubIssueAddedEvent", "subIssue", other)
	ev("SubIssueRemovedEvent", "subIssue", other)
	ev("ParentIssueAddedEvent", "parent", other)
	ev("ParentIssueRemovedEvent", "parent", other)
}

// timelineIssues loads the issues and pull requests events point at, with
// their repositories, in one query per kind; those the viewer may not see
// are left out.
func (a *API) timelineIssues(ctx context.Context, ids []int64) (map[int64]any, error) {
	out := map[int64]any{}
	if len(ids) == 0 {
		return out, nil
	}
	q := a.d.Store.R()
	issues, err := q.IssuesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	var repoIDs, pullIDs []int64
	for _, is := range issues {
		repoIDs = append(repoIDs, is.RepoID)
		if is.IsPull {
			pullIDs = append(pullIDs, is.ID)
		}
	}
	repos, err := a.reposByID(ctx, repoIDs)
	if err != nil {
		return nil, err
	}
	pulls, err := q.PullsByIssueID(ctx, pullIDs)
	if err != nil {
		return nil, err
	}
	for _, is := range issues {
		r := repos[is.RepoID]
		switch {
		case r == nil:
		case is.IsPull && pulls[is.ID] != nil:
			p := pulls[is.ID]
			p.Issue = is
			out[is.ID] = a.pullOf(p, r)
		case !is.IsPull:
			out[is.ID] = &issueObj{is: is, repo: r}
		}
	}
	return out, nil
}

// upperEnum is a stored reason as GraphQL's enum value ("too heated":
// TOO_HEATED, not_planned: NOT_PLANNED).
func upperEnum(s string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(s))
}
