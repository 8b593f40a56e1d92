package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Pull requests: the pulls row is the pull half of an issue row; loads
// fetch both halves in one query (the issue columns, then the pull's).

const pullCols = `p.issue_id, p.repo_id, p.number, p.base_ref, p.base_sha, p.head_repo_id, p.head_owner_id, p.head_ref,
 p.head_sha, p.draft, p.maintainer_can_modify, p.merged_at, p.merged_by_id, p.merge_commit_sha, p.mergeable, p.rebaseable,
 p.mergeable_state, p.checked_base_sha, p.checked_head_sha, p.commits, p.additions, p.deletions, p.changed_files, p.review_comments`

var pullSelect = `SELECT ` + issueCols + `, ` + pullCols + ` FROM pulls p JOIN issues i ON i.id = p.issue_id`

func scanPull(sc scanner) (*model.Pull, error) {
	is := &model.Issue{}
	p := &model.Pull{Issue: is}
	var body, reason, lock sql.NullString
	var user, dup, milestone, closedBy, closedAt, pinned, parent, via sql.NullInt64
	var created, updated int64
	var headRepo, headOwner, mergedAt, mergedBy sql.NullInt64
	var mergeSHA sql.NullString
	var mergeable, rebaseable sql.NullBool
	err := sc.Scan(&is.ID, &is.RepoID, &is.Number, &is.IsPull, &is.Title, &body, &user, &is.State, &reason,
		&dup, &is.Locked, &lock, &milestone, &is.Comments, &is.Reactions, &closedBy, &closedAt,
		&pinned, &parent, &is.SubPriority, &is.SubIssues, &is.Dependencies, &created, &updated, &via,
		&p.IssueID, &p.RepoID, &p.Number, &p.BaseRef, &p.BaseSHA, &headRepo, &headOwner, &p.HeadRef,
		&p.HeadSHA, &p.Draft, &p.MaintainerCanModify, &mergedAt, &mergedBy, &mergeSHA, &mergeable, &rebaseable,
		&p.MergeableState, &p.CheckedBaseSHA, &p.CheckedHeadSHA, &p.Commits, &p.Additions, &p.Deletions, &p.ChangedFiles, &p.ReviewComments)
	if err != nil {
		return nil, err
	}
	is.Body, is.StateReason, is.LockReason = nullStr(body), nullStr(reason), nullStr(lock)
	is.UserID, is.DuplicateOf, is.MilestoneID, is.ClosedByID = user.Int64, dup.Int64, milestone.Int64, closedBy.Int64
	is.ClosedAt, is.PinnedID, is.ParentID = fromNullUnix(closedAt), pinned.Int64, parent.Int64
	is.CreatedAt, is.UpdatedAt = fromUnix(created), fromUnix(updated)
	is.Association = "NONE"
	is.ViaAppID = via.Int64
	p.HeadRepoID, p.HeadOwnerID, p.MergedAt, p.MergedByID = headRepo.Int64, headOwner.Int64, fromNullUnix(mergedAt), mergedBy.Int64
	p.MergeCommitSHA = nullStr(mergeSHA)
	if mergeable.Valid {
		p.Mergeable = &mergeable.Bool
	}
	if rebaseable.Valid {
		p.Rebaseable = &rebaseable.Bool
	}
	return p, nil
}

func (q Q) pulls(ctx context.Context, query string, args ...any) ([]*model.Pull, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Pull{}
	for rows.Next() {
		p, err := scanPull(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CreatePull inserts the pull half of p, whose issue half (p.Issue, with
// IsPull) was created in the same transaction.
func (q Q) CreatePull(ctx context.Context, p *model.Pull) error {
	p.IssueID, p.RepoID, p.Number = p.Issue.ID, p.Issue.RepoID, p.Issue.Number
	if p.MergeableState == "" {
		p.MergeableState = model.StateUnknown
	}
	state := p.Issue.State
	if state == "" {
		state = "open"
	}
	col := "open_pulls"
	if state == "closed" {
		col = "closed_pulls"
	}
	if _, err := q.exec(ctx, `UPDATE issue_counters SET `+col+` = `+col+` + 1 WHERE repo_id = ?`, p.RepoID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO pulls (issue_id, repo_id, number, state, base_ref, base_sha, head_repo_id, head_owner_id, head_ref, head_sha,
 draft, maintainer_can_modify, mergeable_state, commits, additions, deletions, changed_files) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		p.IssueID, p.RepoID, p.Number, state, p.BaseRef, p.BaseSHA, idOrNil(p.HeadRepoID), idOrNil(p.HeadOwnerID), p.HeadRef, p.HeadSHA,
		p.Draft, p.MaintainerCanModify, p.MergeableState, p.Commits, p.Additions, p.Deletions, p.ChangedFiles)
	return err
}

// PullByNumber is a repository's pull request number n (model.ErrNotFound
// when n is no pull request).
func (q Q) PullByNumber(ctx context.Context, repoID, number int64) (*model.Pull, error) {
	p, err := scanPull(q.row(ctx, pullSelect+` WHERE p.repo_id = ? AND p.number = ?`, repoID, number))
	return p, notFound(err)
}

// PullByIssueID is the pull request of an issue row.
func (q Q) PullByIssueID(ctx context.Context, issueID int64) (*model.Pull, error) {
	p, err := scanPull(q.row(ctx, pullSelect+` WHERE p.issue_id = ?`, issueID))
	return p, notFound(err)
}

// PullsByIssueID loads the pull halves (with their issue halves) of issue
// ids, keyed by issue id.
func (q Q) PullsByIssueID(ctx context.Context, ids []int64) (map[int64]*model.Pull, error) {
	out := map[int64]*model.Pull{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.pulls(ctx, pullSelect+` WHERE p.issue_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	for _, p := range list {
		out[p.IssueID] = p
	}
	return out, nil
}

// PullQuery selects a repository's pull requests for a list.
type PullQuery struct {
	RepoID      int64
	State       string // open, closed, all
	HeadRepoID  int64  // with HeadRef: only pull requests from this head
	HeadOwnerID int64  // without HeadRepoID: only heads of this owner
	HeadRef     string
	BaseRef     string
	// Merged: "merged" keeps merged pull requests, "unmerged" the others,
	// "open_or_merged" open or merged ones (GraphQL's states).
	Merged string
	Sort   string // created, updated, popularity, long-running
	Desc   bool
	Limit  int
	Offset int
}

// ListPulls is a page of pull requests and how many match. The default
// list (by number) walks pulls_state_number: page and count come from one
// index, and only the page's rows are joined to their issues.
func (q Q) ListPulls(ctx context.Context, f PullQuery) ([]*model.Pull, int, error) {
	where := []string{"p.repo_id = ?"}
	args := []any{f.RepoID}
	switch f.State {
	case "open", "closed":
		where = append(where, "p.state = ?")
		args = append(args, f.State)
	}
	if f.HeadRepoID != 0 {
		where = append(where, "p.head_repo_id = ?")
		args = append(args, f.HeadRepoID)
	} else if f.HeadOwnerID != 0 {
		where = append(where, "p.head_owner_id = ?")
		args = append(args, f.HeadOwnerID)
	}
	if f.HeadRef != "" {
		where = append(where, "p.head_ref = ?")
		args = append(args, f.HeadRef)
	}
	if f.BaseRef != "" {
		where = append(where, "p.base_ref = ?")
		args = append(args, f.BaseRef)
	}
	switch f.Merged {
	case "merged":
		where = append(where, "p.merged_at IS NOT NULL")
	case "unmerged":
		where = append(where, "p.merged_at IS NULL")
	case "open_or_merged":
		where = append(where, "(p.state = 'open' OR p.merged_at IS NOT NULL)")
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	order := "p.number" + dir
	join := false // the filter or order needs the issue rows
	switch f.Sort {
	case "updated":
		order, join = "i.updated_at"+dir+", p.number"+dir, true
	case "popularity":
		order, join = "i.comments"+dir+", p.number"+dir, true
	case "long-running":
		// Open for more than a month and active within the last one, by age.
		month := q.Now().Add(-30 * 24 * time.Hour).Unix()
		where = append(where, "i.created_at < ?", "i.updated_at >= ?")
		args = append(args, month, month)
		order, join = "i.created_at"+dir+", p.number"+dir, true
	}
	cond := strings.Join(where, " AND ")
	from := ` FROM pulls p`
	if join {
		from = ` FROM pulls p JOIN issues i ON i.id = p.issue_id`
	}
	var total int
	filtered := f.HeadRepoID != 0 || f.HeadOwnerID != 0 || f.HeadRef != "" || f.BaseRef != "" || f.Merged != ""
	if !filtered && !join {
		// Only the repository and the state: the counters know.
		var open, closed int
		err := q.row(ctx, `SELECT open_pulls, closed_pulls FROM issue_counters WHERE repo_id = ?`, f.RepoID).Scan(&open, &closed)
		if err != nil && err != sql.ErrNoRows {
			return nil, 0, err
		}
		switch f.State {
		case "open":
			total = open
		case "closed":
			total = closed
		default:
			total = open + closed
		}
	} else if err := q.row(ctx, `SELECT COUNT(*)`+from+` WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total <= f.Offset {
		return []*model.Pull{}, total, nil
	}
	// The page's ids first (from the index alone when it can), then their
	// rows.
	rows, err := q.query(ctx, `SELECT p.issue_id`+from+` WHERE `+cond+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	byID, err := q.PullsByIssueID(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	list := make([]*model.Pull, 0, len(ids))
	for _, id := range ids {
		if p := byID[id]; p != nil {
			list = append(list, p)
		}
	}
	return list, total, nil
}

// OpenPullExists reports the number of an open pull request from the head
// (repository and branch) into base, 0 when there is none.
func (q Q) OpenPullExists(ctx context.Context, repoID, headRepoID int64, headRef, baseRef string) (int64, error) {
	var n int64
	err := q.row(ctx, `SELECT p.number FROM pulls p JOIN issues i ON i.id = p.issue_id
 WHERE p.repo_id = ? AND p.head_repo_id = ? AND p.head_ref = ? AND p.base_ref = ? AND i.state = 'open' LIMIT 1`,
		repoID, headRepoID, headRef, baseRef).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return n, err
}

// OpenPullsTouching are the open pull requests whose head is branch of
// repoID (in any base repository) or whose base is branch of repoID: the
// ones a push to that branch affects.
func (q Q) OpenPullsTouching(ctx context.Context, repoID int64, branch string) ([]*model.Pull, error) {
	return q.pulls(ctx, pullSelect+` WHERE i.state = 'open' AND ((p.head_repo_id = ? AND p.head_ref = ?) OR (p.repo_id = ? AND p.base_ref = ?))`,
		repoID, branch, repoID, branch)
}

// OpenPullsWithHeadSHA are the open pull requests of a repository whose
// head is at sha (statuses and checks on that commit change their state).
func (q Q) OpenPullsWithHeadSHA(ctx context.Context, repoID int64, sha string) ([]*model.Pull, error) {
	return q.pulls(ctx, pullSelect+` WHERE p.repo_id = ? AND p.head_sha = ? AND i.state = 'open'`, repoID, sha)
}

// PullCounts are the figures of a pull request's range base...head.
type PullCounts struct {
	Commits, Additions, Deletions, ChangedFiles int
}

// SetPullHead records where the head and base branches are now and the
// figures of the new range, if they still are where the caller saw them
// (oldHead, oldBase): two synchronisations of one pull request never both
// record a move. The mergeability is unknown again until the background
// check for these commits ran. It reports whether the row changed.
func (q Q) SetPullHead(ctx context.Context, issueID int64, oldHead, oldBase, headSHA, baseSHA string, c PullCounts) (bool, error) {
	res, err := q.exec(ctx, `UPDATE pulls SET head_sha = ?, base_sha = ?, commits = ?, additions = ?, deletions = ?, changed_files = ?,
 mergeable = NULL, rebaseable = NULL, mergeable_state = 'unknown' WHERE issue_id = ? AND head_sha = ? AND base_sha = ?`,
		headSHA, baseSHA, c.Commits, c.Additions, c.Deletions, c.ChangedFiles, issueID, oldHead, oldBase)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// SetPullBase retargets a pull request to another base branch.
func (q Q) SetPullBase(ctx context.Context, issueID int64, baseRef, baseSHA string, c PullCounts) error {
	_, err := q.exec(ctx, `UPDATE pulls SET base_ref = ?, base_sha = ?, commits = ?, additions = ?, deletions = ?, changed_files = ?,
 mergeable = NULL, rebaseable = NULL, mergeable_state = 'unknown' WHERE issue_id = ?`,
		baseRef, baseSHA, c.Commits, c.Additions, c.Deletions, c.ChangedFiles, issueID)
	return err
}

// SetPullFlags writes draft and maintainer_can_modify.
func (q Q) SetPullFlags(ctx context.Context, issueID int64, draft, maintainerCanModify bool) error {
	_, err := q.exec(ctx, `UPDATE pulls SET draft = ?, maintainer_can_modify = ? WHERE issue_id = ?`, draft, maintainerCanModify, issueID)
	return err
}

// Mergeability is the result of a background mergeability check.
type Mergeability struct {
	BaseSHA, HeadSHA string // what was checked
	Mergeable        *bool
	Rebaseable       *bool
	State            string
	MergeCommitSHA   *string // the test merge commit (refs/pull/N/merge)
}

// SetMergeability stores a check's result unless the pull request moved on
// meanwhile (its head or base differs from what was checked) or was
// merged; it reports whether it was stored.
func (q Q) SetMergeability(ctx context.Context, issueID int64, m Mergeability) (bool, error) {
	var mergeable, rebaseable any
	if m.Mergeable != nil {
		mergeable = *m.Mergeable
	}
	if m.Rebaseable != nil {
		rebaseable = *m.Rebaseable
	}
	res, err := q.exec(ctx, `UPDATE pulls SET mergeable = ?, rebaseable = ?, mergeable_state = ?, merge_commit_sha = ?,
 checked_base_sha = ?, checked_head_sha = ? WHERE issue_id = ? AND head_sha = ? AND base_sha = ? AND merged_at IS NULL`,
		mergeable, rebaseable, m.State, strOrNil(m.MergeCommitSHA), m.BaseSHA, m.HeadSHA, issueID, m.HeadSHA, m.BaseSHA)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// SetMergeableState changes only the state word (statuses and checks
// arriving turn clean into unstable or blocked and back).
func (q Q) SetMergeableState(ctx context.Context, issueID int64, state string) error {
	_, err := q.exec(ctx, `UPDATE pulls SET mergeable_state = ? WHERE issue_id = ? AND mergeable IS NOT NULL AND merged_at IS NULL`, state, issueID)
	return err
}

// MarkPullMerged records the merge of a pull request.
func (q Q) MarkPullMerged(ctx context.Context, issueID, byID int64, mergeSHA, headSHA, baseSHA string, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE pulls SET merged_at = ?, merged_by_id = ?, merge_commit_sha = ?, head_sha = ?, base_sha = ?,
 mergeable = NULL, rebaseable = NULL, mergeable_state = 'unknown' WHERE issue_id = ?`,
		unix(at), idOrNil(byID), mergeSHA, headSHA, baseSHA, issueID)
	return err
}

// AddPullReviewComments moves a pull request's review comment count.
func (q Q) AddPullReviewComments(ctx context.Context, issueID int64, delta int) error {
	_, err := q.exec(ctx, `UPDATE pulls SET review_comments = review_comments + ? WHERE issue_id = ?`, delta, issueID)
	return err
}

// RequiredContexts are the status contexts and check names a base branch
// needs green before a merge.
func (q Q) RequiredContexts(ctx context.Context, repoID int64, branch string) ([]string, error) {
	rows, err := q.query(ctx, `SELECT context FROM required_contexts WHERE repo_id = ? AND branch = ? ORDER BY context`, repoID, branch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetRequiredContexts replaces a branch's required contexts.
func (q Q) SetRequiredContexts(ctx context.Context, repoID int64, branch string, contexts []string) error {
	if _, err := q.exec(ctx, `DELETE FROM required_contexts WHERE repo_id = ? AND branch = ?`, repoID, branch); err != nil {
		return err
	}
	for _, c := range contexts {
		if _, err := q.exec(ctx, `INSERT INTO required_contexts (repo_id, branch, context) VALUES (?,?,?) ON CONFLICT DO NOTHING`, repoID, branch, c); err != nil {
			return err
		}
	}
	return nil
}

// MarkIssuePull turns an issue row into the issue half of a pull request.
func (q Q) MarkIssuePull(ctx context.Context, issueID int64) error {
	_, err := q.exec(ctx, `UPDATE issues SET is_pull = TRUE, updated_at = ? WHERE id = ?`, unix(q.Now()), issueID)
	return err // the pulls row, created next, copies the issue's state
}

// SlimAccounts loads accounts for simple-user objects, keyed by id.
func (q Q) SlimAccounts(ctx context.Context, ids []int64) (map[int64]*model.Account, error) {
	return q.slimAccounts(ctx, ids)
}

const mergeRequestCols = `uuid, pull_id, repo_id, actor_id, merge_method, merge_action, expected_head_sha, commit_title,
 commit_message, status, message, sha, created_at, updated_at`

func scanMergeRequest(sc scanner) (*model.MergeRequest, error) {
	m := &model.MergeRequest{}
	var actor sql.NullInt64
	var title, msg, sha sql.NullString
	var created, updated int64
	if err := sc.Scan(&m.UUID, &m.PullID, &m.RepoID, &actor, &m.Method, &m.Action, &m.ExpectedHeadSHA, &title, &msg,
		&m.Status, &m.Message, &sha, &created, &updated); err != nil {
		return nil, err
	}
	m.ActorID, m.CommitTitle, m.CommitMessage, m.SHA = actor.Int64, nullStr(title), nullStr(msg), nullStr(sha)
	m.CreatedAt, m.UpdatedAt = fromUnix(created), fromUnix(updated)
	return m, nil
}

// CreateMergeRequest records a new asynchronous merge request.
func (q Q) CreateMergeRequest(ctx context.Context, m *model.MergeRequest) error {
	now := q.Now()
	m.CreatedAt, m.UpdatedAt = now, now
	_, err := q.exec(ctx, `INSERT INTO pull_merge_requests (`+mergeRequestCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		m.UUID, m.PullID, m.RepoID, idOrNil(m.ActorID), m.Method, m.Action, m.ExpectedHeadSHA, strOrNil(m.CommitTitle),
		strOrNil(m.CommitMessage), m.Status, m.Message, strOrNil(m.SHA), unix(now), unix(now))
	return err
}

// MergeRequestByUUID is one asynchronous merge request of a pull request.
func (q Q) MergeRequestByUUID(ctx context.Context, pullID int64, uuid string) (*model.MergeRequest, error) {
	m, err := scanMergeRequest(q.row(ctx, `SELECT `+mergeRequestCols+` FROM pull_merge_requests WHERE uuid = ? AND pull_id = ?`, uuid, pullID))
	return m, notFound(err)
}

// PendingMergeRequest is a pull request's merge request still waiting to
// run (model.ErrNotFound when none).
func (q Q) PendingMergeRequest(ctx context.Context, pullID int64) (*model.MergeRequest, error) {
	m, err := scanMergeRequest(q.row(ctx, `SELECT `+mergeRequestCols+` FROM pull_merge_requests WHERE pull_id = ? AND status = 'pending' LIMIT 1`, pullID))
	return m, notFound(err)
}

// FinishMergeRequest records the outcome of an asynchronous merge.
func (q Q) FinishMergeRequest(ctx context.Context, uuid, status, message string, sha *string) error {
	_, err := q.exec(ctx, `UPDATE pull_merge_requests SET status = ?, message = ?, sha = ?, updated_at = ? WHERE uuid = ?`,
		status, message, strOrNil(sha), unix(q.Now()), uuid)
	return err
}
