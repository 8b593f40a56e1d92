package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

const autoMergeCols = `pull_id, repo_id, enabled_by_id, merge_method, commit_title, commit_message, author_email,
 expected_head_sha, enabled_at`

// SetAutoMerge records (or replaces) a pull request's auto-merge request.
func (q Q) SetAutoMerge(ctx context.Context, a *model.AutoMerge) error {
	if _, err := q.exec(ctx, `DELETE FROM pull_auto_merges WHERE pull_id = ?`, a.PullID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO pull_auto_merges (`+autoMergeCols+`) VALUES (?,?,?,?,?,?,?,?,?)`,
		a.PullID, a.RepoID, a.EnabledByID, a.Method, strOrNil(a.CommitTitle), strOrNil(a.CommitMessage),
		strOrNil(a.AuthorEmail), a.ExpectedHeadSHA, unix(a.EnabledAt))
	return err
}

// DeleteAutoMerge removes a pull request's auto-merge request, reporting
// whether there was one.
func (q Q) DeleteAutoMerge(ctx context.Context, pullID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM pull_auto_merges WHERE pull_id = ?`, pullID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// AutoMerges are the auto-merge requests of pull requests, by pull id
// (one query per hundred), with who enabled them.
func (q Q) AutoMerges(ctx context.Context, pullIDs []int64) (map[int64]*model.AutoMerge, error) {
	out := map[int64]*model.AutoMerge{}
	var users []int64
	for start := 0; start < len(pullIDs); start += 100 {
		in, args := inList(pullIDs[start:min(start+100, len(pullIDs))])
		rows, err := q.query(ctx, `SELECT `+autoMergeCols+` FROM pull_auto_merges WHERE pull_id IN (`+in+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			a := &model.AutoMerge{}
			var title, msg, email sql.NullString
			var at int64
			if err := rows.Scan(&a.PullID, &a.RepoID, &a.EnabledByID, &a.Method, &title, &msg, &email, &a.ExpectedHeadSHA, &at); err != nil {
				rows.Close()
				return nil, err
			}
			a.CommitTitle, a.CommitMessage, a.AuthorEmail, a.EnabledAt = nullStr(title), nullStr(msg), nullStr(email), fromUnix(at)
			out[a.PullID] = a
			users = append(users, a.EnabledByID)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if len(users) > 0 {
		accs, err := q.AccountsByID(ctx, users)
		if err != nil {
			return nil, err
		}
		for _, a := range out {
			a.EnabledBy = accs[a.EnabledByID]
		}
	}
	return out, nil
}
