package store

import (
	"context"
	"database/sql"
)

// ChecksSummary is, for each of a repository's commits, the state of its
// checks as lists show it: "failure" when a check run or the latest
// status of a context failed, else "pending" when one is still running,
// else "success"; commits with neither are absent. Two queries for any
// number of commits.
func (q Q) ChecksSummary(ctx context.Context, repoID int64, shas []string) (map[string]string, error) {
	out := map[string]string{}
	if len(shas) == 0 {
		return out, nil
	}
	in, args := inList(shas)
	rank := map[string]int{"success": 1, "pending": 2, "failure": 3}
	note := func(sha, state string) {
		if rank[state] > rank[out[sha]] {
			out[sha] = state
		}
	}
	rows, err := q.query(ctx, `SELECT c.head_sha, c.status, c.conclusion FROM check_runs c WHERE c.repo_id = ? AND c.head_sha IN (`+in+`) AND`+latestRun,
		append([]any{repoID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var sha, status string
		var concl sql.NullString
		if err := rows.Scan(&sha, &status, &concl); err != nil {
			return nil, err
		}
		switch {
		case status != "completed":
			note(sha, "pending")
		case concl.String == "success" || concl.String == "neutral" || concl.String == "skipped":
			note(sha, "success")
		default:
			note(sha, "failure")
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	srows, err := q.query(ctx, `SELECT s.sha, s.state FROM commit_statuses s WHERE s.repo_id = ? AND s.sha IN (`+in+`)
 AND s.id = (SELECT MAX(x.id) FROM commit_statuses x WHERE x.repo_id = s.repo_id AND x.sha = s.sha AND x.context = s.context)`,
		append([]any{repoID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer srows.Close()
	for srows.Next() {
		var sha, state string
		if err := srows.Scan(&sha, &state); err != nil {
			return nil, err
		}
		if state == "error" {
			state = "failure"
		}
		note(sha, state)
	}
	return out, srows.Err()
}
