package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// The issue event log. Every change to an issue appends a row here and, in
// the same transaction, a domain event to the outbox (AddIssueEvent does
// both): the outbox is the feed for consumers (activity, webhooks, audit),
// this table is its typed, indexed projection for the REST endpoints,
// keyed by the event ids GitHub exposes. A comment appends a "commented"
// row, so the timeline is this one log read in id order; the events
// endpoints leave commented and cross-referenced rows out, as GitHub's do.

// TimelineOnly lists the events only the timeline shows.
var TimelineOnly = []string{"commented", "cross-referenced", "reviewed", "committed"}

var eventSelect = `SELECT e.id, e.repo_id, e.issue_id, e.actor_id, e.event, e.commit_id, e.label_name, e.label_color,
 e.assignee_id, e.assigner_id, e.milestone_title, e.rename_from, e.rename_to, e.lock_reason, e.state_reason,
 e.subject_id, e.created_at, e.via_app_id, ` + slim("ea") + `, ` + slim("eg") + `, ` + slim("er") + `
 FROM issue_events e LEFT JOIN accounts ea ON ea.id = e.actor_id LEFT JOIN accounts eg ON eg.id = e.assignee_id
 LEFT JOIN accounts er ON er.id = e.assigner_id`

func scanEvent(sc scanner) (*model.IssueEvent, error) {
	e := &model.IssueEvent{}
	var actor, assignee, assigner, subject, via sql.NullInt64
	var commit, lname, lcolor, milestone, from, to, lock, reason sql.NullString
	var created int64
	var a, g, r slimAccount
	dest := []any{&e.ID, &e.RepoID, &e.IssueID, &actor, &e.Event, &commit, &lname, &lcolor, &assignee, &assigner,
		&milestone, &from, &to, &lock, &reason, &subject, &created, &via}
	dest = append(append(append(dest, a.dest()...), g.dest()...), r.dest()...)
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	e.ActorID, e.AssigneeID, e.AssignerID, e.SubjectID = actor.Int64, assignee.Int64, assigner.Int64, subject.Int64
	e.ViaAppID = via.Int64
	e.CommitID, e.LockReason, e.StateReason = nullStr(commit), nullStr(lock), nullStr(reason)
	e.LabelName, e.LabelColor, e.Milestone = lname.String, lcolor.String, milestone.String
	e.RenameFrom, e.RenameTo = from.String, to.String
	e.CreatedAt = fromUnix(created)
	e.Actor, e.Assignee, e.Assigner = a.account(), g.account(), r.account()
	return e, nil
}

func (q Q) events(ctx context.Context, query string, args ...any) ([]*model.IssueEvent, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.IssueEvent{}
	var bots, via []int64
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if e.Actor != nil && e.Actor.Type == model.TypeBot {
			bots = append(bots, e.ActorID)
		}
		if e.ViaAppID != 0 {
			via = append(via, e.ViaAppID)
		}
	}
	if err := rows.Err(); err != nil || len(bots)+len(via) == 0 {
		return out, err
	}
	rows.Close()
	byBot, byID, err := q.viaApps(ctx, bots, via) // store/viaapps.go
	if err != nil {
		return nil, err
	}
	for _, e := range out {
		e.ViaApp = viaApp(byBot, byID, e.ActorID, e.ViaAppID)
	}
	return out, nil
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// AddIssueEvent appends an event to an issue's log and the matching domain
// event ("issues.<event>") to the outbox; orgID is the repository's
// organization (0 for a user's). details are added to the domain payload.
func (q Q) AddIssueEvent(ctx context.Context, e *model.IssueEvent, orgID int64, details map[string]any) error {
	return q.AddIssueEventAs(ctx, e, e.RepoID, orgID, details)
}

// AddIssueEventAs is AddIssueEvent with its domain event recorded for
// repository eventRepoID (and its organization orgID): an issue
// transferred shows the event in its new repository, while the
// issues.transferred webhook goes to the one it left.
func (q Q) AddIssueEventAs(ctx context.Context, e *model.IssueEvent, eventRepoID, orgID int64, details map[string]any) error {
	e.CreatedAt, e.ViaAppID = q.Now(), viaAppOf(ctx)
	id, err := q.insert(ctx, `INSERT INTO issue_events (repo_id, issue_id, actor_id, event, commit_id, label_name, label_color,
 assignee_id, assigner_id, milestone_title, rename_from, rename_to, lock_reason, state_reason, subject_id, created_at, via_app_id)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		e.RepoID, e.IssueID, idOrNil(e.ActorID), e.Event, strOrNil(e.CommitID), nullText(e.LabelName), nullText(e.LabelColor),
		idOrNil(e.AssigneeID), idOrNil(e.AssignerID), nullText(e.Milestone), nullText(e.RenameFrom), nullText(e.RenameTo),
		strOrNil(e.LockReason), strOrNil(e.StateReason), idOrNil(e.SubjectID), unix(e.CreatedAt), idOrNil(e.ViaAppID))
	if err != nil {
		return err
	}
	e.ID = id
	payload := map[string]any{"issue_id": e.IssueID, "issue_event_id": e.ID, "event": e.Event}
	for k, v := range details {
		payload[k] = v
	}
	return q.AppendEvent(ctx, "issues."+e.Event, e.ActorID, eventRepoID, orgID, payload)
}

// DeleteCommentedEvent removes the timeline entry of a deleted comment.
func (q Q) DeleteCommentedEvent(ctx context.Context, issueID, commentID int64) error {
	_, err := q.exec(ctx, `DELETE FROM issue_events WHERE issue_id = ? AND event = 'commented' AND subject_id = ?`, issueID, commentID)
	return err
}

// EventQuery selects issue events: one issue's (IssueID) or a
// repository's. Timeline lists every kind, except those in Exclude;
// otherwise the timeline-only kinds are left out.
type EventQuery struct {
	RepoID, IssueID int64
	Timeline        bool
	Exclude         []string
	Limit, Offset   int
}

// ListIssueEvents returns one page of events, oldest first, and their
// count.
func (q Q) ListIssueEvents(ctx context.Context, f EventQuery) ([]*model.IssueEvent, int, error) {
	where, args := ` WHERE e.repo_id = ?`, []any{f.RepoID}
	if f.IssueID != 0 {
		where, args = ` WHERE e.issue_id = ?`, []any{f.IssueID}
	}
	excl := f.Exclude
	if !f.Timeline {
		excl = TimelineOnly
	}
	if len(excl) > 0 {
		where += ` AND e.event NOT IN (` + strings.TrimSuffix(strings.Repeat("?,", len(excl)), ",") + `)`
		for _, x := range excl {
			args = append(args, x)
		}
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM issue_events e`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.events(ctx, eventSelect+where+` ORDER BY e.id LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return list, total, err
}

// IssueEventByID finds a repository's issue event (timeline-only kinds are
// not found, as on GitHub).
func (q Q) IssueEventByID(ctx context.Context, repoID, id int64) (*model.IssueEvent, error) {
	args := []any{id, repoID}
	for _, t := range TimelineOnly {
		args = append(args, t)
	}
	e, err := scanEvent(q.row(ctx, eventSelect+` WHERE e.id = ? AND e.repo_id = ? AND e.event NOT IN (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(TimelineOnly)), ", ")+`)`, args...))
	return e, notFound(err)
}

// CommentsByID loads comments by id with their rollups (timeline entries).
func (q Q) CommentsByID(ctx context.Context, ids []int64) (map[int64]*model.IssueComment, error) {
	if len(ids) == 0 {
		return map[int64]*model.IssueComment{}, nil
	}
	return q.commentsByID(ctx, ids)
}

// HasCrossReference reports whether source already cross-referenced target.
func (q Q) HasCrossReference(ctx context.Context, targetID, sourceID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM issue_events WHERE issue_id = ? AND event = 'cross-referenced' AND subject_id = ?`,
		targetID, sourceID).Scan(&n)
	return n > 0, err
}

// TimelinePage is one page of an issue's timeline and the count of the
// events its filter selects.
type TimelinePage struct {
	Total  int
	Events []*model.IssueEvent
}

// IssueTimelines pages the timelines of issueIDs in SQL, oldest first,
// keeping the kinds in events: page turns an issue's total into the
// [start, end) offsets of its page. Three queries whatever the number of
// issues (counts, the pages' ids, their events).
func (q Q) IssueTimelines(ctx context.Context, issueIDs []int64, events []string, page func(total int) (int, int)) (map[int64]*TimelinePage, error) {
	out := map[int64]*TimelinePage{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	in, args := inList(issueIDs)
	cond := `issue_id IN (` + in + `)`
	if len(events) > 0 {
		cond += ` AND event IN (` + strings.TrimSuffix(strings.Repeat("?,", len(events)), ",") + `)`
		for _, e := range events {
			args = append(args, e)
		}
	} else {
		cond += ` AND 1 = 0`
	}
	for _, id := range issueIDs {
		out[id] = &TimelinePage{}
	}
	var ids []int64
	err := q.pagedByKey(ctx, `SELECT issue_id, COUNT(*) FROM issue_events WHERE `+cond+` GROUP BY issue_id`,
		`SELECT id, issue_id AS k, ROW_NUMBER() OVER (PARTITION BY issue_id ORDER BY id) AS rn FROM issue_events WHERE `+cond,
		`id`, args, page,
		func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
			return nil
		}, func(k int64, n int) { out[k].Total = n })
	if err != nil || len(ids) == 0 {
		return out, err
	}
	in, args = inList(ids)
	list, err := q.events(ctx, eventSelect+` WHERE e.id IN (`+in+`) ORDER BY e.id`, args...)
	if err != nil {
		return nil, err
	}
	for _, e := range list {
		if p := out[e.IssueID]; p != nil {
			p.Events = append(p.Events, e)
		}
	}
	return out, nil
}
