package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// SeedIssue is an issue for SeedIssues with the labels and assignees to
// link to it.
type SeedIssue struct {
	model.Issue
	LabelIDs    []int64
	AssigneeIDs []int64
}

// seedChunk is the number of rows of one multi-row INSERT (well below the
// parameter limits of SQLite and PostgreSQL).
const seedChunk = 500

// SeedIssues bulk-inserts issues into one repository (benchmarks and
// imports): numbers are reserved in one step, rows and links go in by
// multi-row INSERTs, and the counters, blocks and milestone counts are
// updated once per group instead of once per issue. No events are
// recorded. Issues must be in creation order; their CreatedAt should not
// decrease, so that numbers follow creation as CreateIssue guarantees.
func (q Q) SeedIssues(ctx context.Context, repoID int64, list []*SeedIssue) error {
	if len(list) == 0 {
		return nil
	}
	open, closed := 0, 0
	for _, s := range list {
		if s.State == "" {
			s.State = "open"
		}
		if s.State == "open" {
			open++
		} else {
			closed++
		}
	}
	var last int64
	err := q.row(ctx, `INSERT INTO issue_counters (repo_id, last_number, open_issues, closed_issues) VALUES (?, ?, ?, ?)
 ON CONFLICT (repo_id) DO UPDATE SET last_number = issue_counters.last_number + excluded.last_number,
 open_issues = issue_counters.open_issues + excluded.open_issues, closed_issues = issue_counters.closed_issues + excluded.closed_issues
 RETURNING last_number`, repoID, len(list), open, closed).Scan(&last)
	if err != nil {
		return err
	}
	first := last - int64(len(list)) + 1
	now := q.Now()
	for i, s := range list {
		s.RepoID, s.Number = repoID, first+int64(i)
		if s.CreatedAt.IsZero() {
			s.CreatedAt = now
		}
		if s.UpdatedAt.IsZero() {
			s.UpdatedAt = s.CreatedAt
		}
	}
	const cols = 14
	for start := 0; start < len(list); start += seedChunk {
		chunk := list[start:min(start+seedChunk, len(list))]
		args := make([]any, 0, len(chunk)*cols)
		for _, s := range chunk {
			args = append(args, s.RepoID, s.Number, s.IsPull, s.Title, strOrNil(s.Body), idOrNil(s.UserID), s.State,
				strOrNil(s.StateReason), idOrNil(s.MilestoneID), idOrNil(s.ClosedByID), nullUnix(s.ClosedAt), s.Comments,
				unix(s.CreatedAt), unix(s.UpdatedAt))
		}
		if _, err := q.execRaw(ctx, `INSERT INTO issues (repo_id, number, is_pull, title, body, user_id, state, state_reason,
 milestone_id, closed_by_id, closed_at, comments, created_at, updated_at) VALUES `+values(len(chunk), cols), args...); err != nil {
			return err
		}
	}
	// The ids of the new rows, by number.
	rows, err := q.query(ctx, `SELECT id, number FROM issues WHERE repo_id = ? AND number >= ? AND number <= ?`, repoID, first, last)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return err
		}
		list[n-first].ID = id
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var labels, assignees [][2]int64
	type blockKey struct {
		state string
		block int64
	}
	blocks := map[blockKey]int{}
	type msKey struct {
		id    int64
		state string
	}
	ms := map[msKey]int{}
	for _, s := range list {
		for _, l := range s.LabelIDs {
			labels = append(labels, [2]int64{s.ID, l})
		}
		for _, u := range s.AssigneeIDs {
			assignees = append(assignees, [2]int64{s.ID, u})
		}
		blocks[blockKey{s.State, s.Number / issueBlock}]++
		if s.MilestoneID != 0 {
			ms[msKey{s.MilestoneID, s.State}]++
		}
	}
	if err := q.seedLinks(ctx, "issue_labels (issue_id, label_id, created_at)", labels, unix(now)); err != nil {
		return err
	}
	if err := q.seedLinks(ctx, "issue_assignees (issue_id, user_id, created_at)", assignees, unix(now)); err != nil {
		return err
	}
	for k, n := range blocks {
		if _, err := q.exec(ctx, `INSERT INTO issue_blocks (repo_id, state, block, n) VALUES (?,?,?,?)
 ON CONFLICT (repo_id, state, block) DO UPDATE SET n = issue_blocks.n + excluded.n`, repoID, k.state, k.block, n); err != nil {
			return err
		}
	}
	for k, n := range ms {
		if err := q.countInMilestone(ctx, k.id, k.state, n); err != nil {
			return err
		}
	}
	return nil
}

func (q Q) seedLinks(ctx context.Context, table string, pairs [][2]int64, at int64) error {
	for start := 0; start < len(pairs); start += seedChunk {
		chunk := pairs[start:min(start+seedChunk, len(pairs))]
		args := make([]any, 0, len(chunk)*3)
		for _, p := range chunk {
			args = append(args, p[0], p[1], at)
		}
		if _, err := q.execRaw(ctx, `INSERT INTO `+table+` VALUES `+values(len(chunk), 3)+` ON CONFLICT DO NOTHING`, args...); err != nil {
			return fmt.Errorf("seed %s: %w", strings.Fields(table)[0], err)
		}
	}
	return nil
}

// values is the VALUES list of a multi-row INSERT: rows groups of n
// placeholders.
func values(rows, n int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
	return strings.TrimSuffix(strings.Repeat(one+",", rows), ",")
}
