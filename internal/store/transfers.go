package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// OwnsInNetwork reports whether ownerID owns a repository of the fork
// network whose root is rootID (the root itself or one of its forks).
func (q Q) OwnsInNetwork(ctx context.Context, ownerID, rootID, exceptID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM repos WHERE owner_id = ? AND (id = ? OR source_id = ?) AND id <> ?`,
		ownerID, rootID, rootID, exceptID).Scan(&n)
	return n > 0, err
}

// MoveRepo gives a repository a new owner, name and visibility (a
// transfer). The old
// owner/name redirects to it from then on and a redirect the new name held
// goes; ErrDuplicate when the new owner already has a repository of that
// name. Grants that belonged to the old owner's account (its teams, its
// app installations, its organization-level secrets and variables) stop
// reaching the repository: they are the old owner's, not the repository's.
// The repository's files stay where they are (on disk under its id).
func (q Q) MoveRepo(ctx context.Context, r *model.Repo, oldOwnerID int64, oldName string) error {
	r.UpdatedAt = q.Now()
	newLower := strings.ToLower(r.Name)
	if _, err := q.exec(ctx, `DELETE FROM repo_redirects WHERE owner_id = ? AND lower_name = ?`, r.OwnerID, newLower); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE repos SET owner_id = ?, name = ?, lower_name = ?, visibility = ?, updated_at = ? WHERE id = ?`,
		r.OwnerID, r.Name, newLower, string(r.Visibility), unix(r.UpdatedAt), r.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	oldLower := strings.ToLower(oldName)
	if _, err := q.exec(ctx, `DELETE FROM repo_redirects WHERE owner_id = ? AND lower_name = ?`, oldOwnerID, oldLower); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `INSERT INTO repo_redirects (owner_id, lower_name, repo_id) VALUES (?,?,?)`, oldOwnerID, oldLower, r.ID); err != nil {
		return err
	}
	for _, stmt := range []string{
		`DELETE FROM team_repos WHERE repo_id = ? AND team_id IN (SELECT id FROM teams WHERE org_id = ?)`,
		`DELETE FROM app_installation_repos WHERE repo_id = ? AND installation_id IN (SELECT id FROM app_installations WHERE account_id = ?)`,
		`DELETE FROM variable_repos WHERE repo_id = ? AND variable_id IN (SELECT id FROM variables WHERE org_id = ?)`,
		`DELETE FROM secret_repositories WHERE repo_id = ? AND secret_id IN (SELECT id FROM secrets WHERE org_id = ?)`,
	} {
		if _, err := q.exec(ctx, stmt, r.ID, oldOwnerID); err != nil {
			return err
		}
	}
	// An offer of it to someone else is void now.
	if _, err := q.exec(ctx, `DELETE FROM repo_transfers WHERE repo_id = ?`, r.ID); err != nil {
		return err
	}
	// The new owner does not collaborate on its own repository.
	_, err = q.exec(ctx, `DELETE FROM repo_collaborators WHERE repo_id = ? AND user_id = ?`, r.ID, r.OwnerID)
	return err
}

// IssueRedirect is the issue that had number in repository repoID before
// it was transferred elsewhere (model.ErrNotFound when none did).
func (q Q) IssueRedirect(ctx context.Context, repoID, number int64) (int64, error) {
	var id int64
	err := q.row(ctx, `SELECT issue_id FROM issue_redirects WHERE repo_id = ? AND number = ?`, repoID, number).Scan(&id)
	return id, notFound(err)
}

// IssueMove is an issue transfer: the issue, the repository it goes to,
// the labels (of that repository) and milestone (0: none) it keeps there.
type IssueMove struct {
	Issue       *model.Issue
	ToRepoID    int64
	LabelIDs    []int64
	MilestoneID int64
	// DropAssignees are the assignees who may not be assigned there.
	DropAssignees []int64
}

// MoveIssue moves an issue with its comments, reactions and timeline to
// another repository under the next number there. Its old number stays
// taken and redirects (IssueRedirect); the counters of both repositories
// and milestones follow. Relations to other issues (parent, sub-issues,
// dependencies) are by id and stay. m.Issue is updated.
func (q Q) MoveIssue(ctx context.Context, m IssueMove) error {
	is := m.Issue
	open, closed := 1, 0
	if is.State == "closed" {
		open, closed = 0, 1
	}
	// Leave the old repository as a deletion does, without freeing the number.
	if err := q.uncountIssue(ctx, is); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `INSERT INTO issue_redirects (repo_id, number, issue_id) VALUES (?,?,?)`, is.RepoID, is.Number, is.ID); err != nil {
		return err
	}
	// Join the new one as a creation does.
	number, err := q.countNewIssue(ctx, m.ToRepoID, open, closed)
	if err != nil {
		return err
	}
	now := q.Now()
	if _, err := q.exec(ctx, `UPDATE issues SET repo_id = ?, number = ?, milestone_id = ?, updated_at = ? WHERE id = ?`,
		m.ToRepoID, number, idOrNil(m.MilestoneID), unix(now), is.ID); err != nil {
		return err
	}
	if err := q.addToBlock(ctx, m.ToRepoID, is.State, number, 1); err != nil {
		return err
	}
	if err := q.countInMilestone(ctx, m.MilestoneID, is.State, 1); err != nil {
		return err
	}
	for _, stmt := range []string{
		`UPDATE issue_comments SET repo_id = ? WHERE issue_id = ?`,
		`UPDATE issue_events SET repo_id = ? WHERE issue_id = ?`,
	} {
		if _, err := q.exec(ctx, stmt, m.ToRepoID, is.ID); err != nil {
			return err
		}
	}
	for _, u := range m.DropAssignees {
		if _, err := q.exec(ctx, `DELETE FROM issue_assignees WHERE issue_id = ? AND user_id = ?`, is.ID, u); err != nil {
			return err
		}
	}
	if _, err := q.exec(ctx, `UPDATE reactions SET repo_id = ? WHERE (subject_type = ? AND subject_id = ?)
 OR (subject_type = ? AND subject_id IN (SELECT id FROM issue_comments WHERE issue_id = ?))`,
		m.ToRepoID, ReactIssue, is.ID, ReactComment, is.ID); err != nil {
		return err
	}
	// Labels: only those the new repository has (by name) stay.
	if _, err := q.exec(ctx, `DELETE FROM issue_labels WHERE issue_id = ?`, is.ID); err != nil {
		return err
	}
	for _, id := range m.LabelIDs {
		if _, err := q.exec(ctx, `INSERT INTO issue_labels (issue_id, label_id, created_at) VALUES (?,?,?)`, is.ID, id, unix(now)); err != nil {
			return err
		}
	}
	is.RepoID, is.Number, is.MilestoneID, is.UpdatedAt = m.ToRepoID, number, m.MilestoneID, now
	return nil
}

// MilestoneIDByTitle is the id of a repository's milestone of that title,
// ignoring case (0 when it has none).
func (q Q) MilestoneIDByTitle(ctx context.Context, repoID int64, title string) (int64, error) {
	var id int64
	err := q.row(ctx, `SELECT id FROM milestones WHERE repo_id = ? AND lower_title = ?`, repoID, strings.ToLower(title)).Scan(&id)
	if err != nil && errors.Is(notFound(err), model.ErrNotFound) {
		return 0, nil
	}
	return id, err
}

const transferCols = `id, repo_id, from_id, to_id, requester_id, new_name, created_at, expires_at`

func scanTransfer(sc interface{ Scan(...any) error }) (*model.RepoTransfer, error) {
	var t model.RepoTransfer
	var requester *int64
	var created, expires int64
	if err := sc.Scan(&t.ID, &t.RepoID, &t.FromID, &t.ToID, &requester, &t.NewName, &created, &expires); err != nil {
		return nil, err
	}
	if requester != nil {
		t.RequesterID = *requester
	}
	t.CreatedAt, t.ExpiresAt = fromUnix(created), fromUnix(expires)
	return &t, nil
}

// OfferRepo records a repository offered to another account, replacing an
// earlier offer of it; t's id and creation time are set.
func (q Q) OfferRepo(ctx context.Context, t *model.RepoTransfer) error {
	if _, err := q.exec(ctx, `DELETE FROM repo_transfers WHERE repo_id = ?`, t.RepoID); err != nil {
		return err
	}
	t.CreatedAt = q.Now()
	id, err := q.insert(ctx, `INSERT INTO repo_transfers (repo_id, from_id, to_id, requester_id, new_name, created_at, expires_at)
 VALUES (?,?,?,?,?,?,?)`, t.RepoID, t.FromID, t.ToID, idOrNil(t.RequesterID), t.NewName, unix(t.CreatedAt), unix(t.ExpiresAt))
	t.ID = id
	return err
}

// RepoTransferByID finds an offer (model.ErrNotFound when none).
func (q Q) RepoTransferByID(ctx context.Context, id int64) (*model.RepoTransfer, error) {
	t, err := scanTransfer(q.row(ctx, `SELECT `+transferCols+` FROM repo_transfers WHERE id = ?`, id))
	return t, notFound(err)
}

// RepoTransfersTo lists one page of the offers to an account that have not
// expired at now, oldest first, and their count.
func (q Q) RepoTransfersTo(ctx context.Context, toID int64, now time.Time, limit, offset int) ([]*model.RepoTransfer, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM repo_transfers WHERE to_id = ? AND expires_at > ?`, toID, unix(now)).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+transferCols+` FROM repo_transfers WHERE to_id = ? AND expires_at > ? ORDER BY id LIMIT ? OFFSET ?`,
		toID, unix(now), limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.RepoTransfer
	for rows.Next() {
		t, err := scanTransfer(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, total, rows.Err()
}

// DeleteRepoTransfer removes an offer.
func (q Q) DeleteRepoTransfer(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM repo_transfers WHERE id = ?`, id)
	return err
}

// uncountIssue takes an issue out of its repository's and milestone's
// counts (it is deleted or leaves).
func (q Q) uncountIssue(ctx context.Context, is *model.Issue) error {
	open, closed := 1, 0
	if is.State == "closed" {
		open, closed = 0, 1
	}
	if _, err := q.exec(ctx, `UPDATE issue_counters SET open_issues = open_issues - ?, closed_issues = closed_issues - ? WHERE repo_id = ?`,
		open, closed, is.RepoID); err != nil {
		return err
	}
	if err := q.addToBlock(ctx, is.RepoID, is.State, is.Number, -1); err != nil {
		return err
	}
	return q.countInMilestone(ctx, is.MilestoneID, is.State, -1)
}

// countNewIssue takes the next issue number of a repository and counts an
// issue there (open and closed are 1 or 0).
func (q Q) countNewIssue(ctx context.Context, repoID int64, open, closed int) (int64, error) {
	var n int64
	err := q.row(ctx, `INSERT INTO issue_counters (repo_id, last_number, open_issues, closed_issues) VALUES (?, 1, ?, ?)
 ON CONFLICT (repo_id) DO UPDATE SET last_number = issue_counters.last_number + 1,
 open_issues = issue_counters.open_issues + excluded.open_issues, closed_issues = issue_counters.closed_issues + excluded.closed_issues
 RETURNING last_number`, repoID, open, closed).Scan(&n)
	return n, err
}

// MoveIssueThreads has the notification threads of issue number of repo
// from follow it to its new number in repo to: each subscriber keeps the
// thread, its subscription and read state, with the subject's and the
// latest comment's URLs rewritten (fromPath and toPath are the
// repositories' "/repos/{owner}/{name}/" parts of API URLs). A user who
// already has a thread for the new issue keeps that one.
func (q Q) MoveIssueThreads(ctx context.Context, fromRepo, number, toRepo, newNumber int64, fromPath, toPath string) error {
	oldURL := fromPath + "issues/" + strconv.FormatInt(number, 10)
	newURL := toPath + "issues/" + strconv.FormatInt(newNumber, 10)
	_, err := q.exec(ctx, `UPDATE notification_threads SET repo_id = ?, subject_key = ?,
 latest_comment_url = CASE WHEN latest_comment_url = subject_url THEN REPLACE(subject_url, ?, ?) ELSE REPLACE(latest_comment_url, ?, ?) END,
 subject_url = REPLACE(subject_url, ?, ?)
 WHERE repo_id = ? AND subject_type = 'Issue' AND subject_key = ?
 AND NOT EXISTS (SELECT 1 FROM notification_threads n WHERE n.user_id = notification_threads.user_id
 AND n.repo_id = ? AND n.subject_type = 'Issue' AND n.subject_key = ?)`,
		toRepo, newNumber, oldURL, newURL, fromPath, toPath, oldURL, newURL, fromRepo, number, toRepo, newNumber)
	return err
}
