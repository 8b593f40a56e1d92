package store

import (
	"context"
	"database/sql"
	"sort"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// issueBlock is the width, in issue numbers, of one row of issue_blocks.
const issueBlock = 512

// slim selects the four account columns a simple-user object needs, from a
// LEFT JOIN that may find nothing.
func slim(alias string) string {
	return alias + ".id, " + alias + ".login, " + alias + ".type, " + alias + ".site_admin"
}

// slimAccount scans slim columns.
type slimAccount struct {
	id    sql.NullInt64
	login sql.NullString
	typ   sql.NullString
	admin sql.NullBool
}

func (s *slimAccount) dest() []any { return []any{&s.id, &s.login, &s.typ, &s.admin} }

// account is the scanned account, nil when the join found none.
func (s *slimAccount) account() *model.Account {
	if !s.id.Valid {
		return nil
	}
	return &model.Account{ID: s.id.Int64, Login: s.login.String, Type: model.AccountType(s.typ.String), SiteAdmin: s.admin.Bool}
}

// association is the author_association of user column col on a row that
// joins the repository as r.
func association(col string) string {
	return `CASE WHEN ` + col + ` IS NULL THEN 'NONE' WHEN ` + col + ` = r.owner_id THEN 'OWNER'
 WHEN EXISTS (SELECT 1 FROM org_members om WHERE om.org_id = r.owner_id AND om.user_id = ` + col + ` AND om.state = 'active') THEN 'MEMBER'
 WHEN EXISTS (SELECT 1 FROM repo_collaborators rc WHERE rc.repo_id = r.id AND rc.user_id = ` + col + `) THEN 'COLLABORATOR'
 ELSE 'NONE' END`
}

const issueCols = `i.id, i.repo_id, i.number, i.is_pull, i.title, i.body, i.user_id, i.state, i.state_reason,
 i.duplicate_of_id, i.locked, i.lock_reason, i.milestone_id, i.comments, i.reactions, i.closed_by_id, i.closed_at,
 i.pinned_comment_id, i.parent_id, i.sub_priority, i.sub_issues, i.dependencies, i.created_at, i.updated_at, i.via_app_id`

// issueSelect loads issue rows; IssueDetails adds their authors and
// everything else their objects show.
var issueSelect = `SELECT ` + issueCols + ` FROM issues i`

func scanIssue(sc scanner) (*model.Issue, error) {
	is := &model.Issue{}
	var body, reason, lock sql.NullString
	var user, dup, milestone, closedBy, closedAt, pinned, parent, via sql.NullInt64
	var created, updated int64
	err := sc.Scan(&is.ID, &is.RepoID, &is.Number, &is.IsPull, &is.Title, &body, &user, &is.State, &reason,
		&dup, &is.Locked, &lock, &milestone, &is.Comments, &is.Reactions, &closedBy, &closedAt,
		&pinned, &parent, &is.SubPriority, &is.SubIssues, &is.Dependencies, &created, &updated, &via)
	if err != nil {
		return nil, err
	}
	is.ViaAppID = via.Int64
	is.Body, is.StateReason, is.LockReason = nullStr(body), nullStr(reason), nullStr(lock)
	is.UserID, is.DuplicateOf, is.MilestoneID = user.Int64, dup.Int64, milestone.Int64
	is.ClosedByID, is.PinnedID, is.ParentID = closedBy.Int64, pinned.Int64, parent.Int64
	is.ClosedAt = fromNullUnix(closedAt)
	is.CreatedAt, is.UpdatedAt = fromUnix(created), fromUnix(updated)
	is.Association = "NONE"
	return is, nil
}

func nullStr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func idOrNil(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func (q Q) issues(ctx context.Context, query string, args ...any) ([]*model.Issue, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.Issue
	for rows.Next() {
		is, err := scanIssue(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, is)
	}
	return out, rows.Err()
}

// IssueByNumber finds an issue (or pull request) of a repository.
func (q Q) IssueByNumber(ctx context.Context, repoID, number int64) (*model.Issue, error) {
	is, err := scanIssue(q.row(ctx, issueSelect+` WHERE i.repo_id = ? AND i.number = ?`, repoID, number))
	return is, notFound(err)
}

// IssueByID finds an issue by its id.
func (q Q) IssueByID(ctx context.Context, id int64) (*model.Issue, error) {
	is, err := scanIssue(q.row(ctx, issueSelect+` WHERE i.id = ?`, id))
	return is, notFound(err)
}

// IssuesByID loads issues by id, in the order of ids (missing ones are
// left out).
func (q Q) IssuesByID(ctx context.Context, ids []int64) ([]*model.Issue, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	in, args := inList(ids)
	list, err := q.issues(ctx, issueSelect+` WHERE i.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*model.Issue, len(list))
	for _, is := range list {
		byID[is.ID] = is
	}
	out := make([]*model.Issue, 0, len(list))
	for _, id := range ids {
		if is := byID[id]; is != nil {
			out = append(out, is)
			delete(byID, id)
		}
	}
	return out, nil
}

// inList is the placeholders and arguments of an IN list. The list is
// padded (repeating its last id) to one of a few lengths, so that the
// statement cache holds few variants of each query.
// idSet runs a query of one id column and answers the ids it returns as
// a set (which of a page's items are starred, pinned, queued ...).
func (q Q) idSet(ctx context.Context, query string, args ...any) (map[int64]bool, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

func inList[T any](ids []T) (string, []any) {
	n := len(ids)
	size := n
	for _, s := range []int{1, 2, 4, 8, 16, 30, 50, 100} {
		if n <= s {
			size = s
			break
		}
	}
	args := make([]any, size)
	for i := range args {
		if i < n {
			args[i] = ids[i]
		} else {
			args[i] = ids[n-1]
		}
	}
	return strings.TrimSuffix(strings.Repeat("?,", size), ","), args
}

// ReserveIssueNumbers makes the next issue number of a repository at least
// next (an import keeps the archive's numbers across deleted ones).
func (q Q) ReserveIssueNumbers(ctx context.Context, repoID, next int64) error {
	_, err := q.exec(ctx, `INSERT INTO issue_counters (repo_id, last_number) VALUES (?, ?)
 ON CONFLICT (repo_id) DO UPDATE SET last_number = excluded.last_number WHERE issue_counters.last_number < excluded.last_number`,
		repoID, next-1)
	return err
}

// CreateIssue inserts an issue (or the issue half of a pull request) with
// the repository's next number. The number is taken by an upsert of the
// repository's counter row, which holds the row's lock until the
// transaction ends: concurrent creators queue on it, and a rolled back
// creation gives its number back, so numbers stay dense and unique. The
// creation time is read after the number is taken, so numbers follow
// creation order. Counts of the repository and milestone follow.
func (q Q) CreateIssue(ctx context.Context, is *model.Issue) error {
	if is.State == "" {
		is.State = "open"
	}
	open, closed := 0, 0
	if is.State == "open" {
		open = 1
	} else {
		closed = 1
	}
	var err error
	is.Number, err = q.countNewIssue(ctx, is.RepoID, open, closed)
	if err != nil {
		return err
	}
	now := q.Now()
	if is.CreatedAt.IsZero() {
		is.CreatedAt = now
	}
	if is.UpdatedAt.IsZero() {
		is.UpdatedAt = is.CreatedAt
	}
	is.ViaAppID = viaAppOf(ctx)
	id, err := q.insert(ctx, `INSERT INTO issues (repo_id, number, is_pull, title, body, user_id, state, state_reason,
 locked, lock_reason, milestone_id, closed_by_id, closed_at, created_at, updated_at, via_app_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		is.RepoID, is.Number, is.IsPull, is.Title, strOrNil(is.Body), idOrNil(is.UserID), is.State, strOrNil(is.StateReason),
		is.Locked, strOrNil(is.LockReason), idOrNil(is.MilestoneID), idOrNil(is.ClosedByID), nullUnix(is.ClosedAt),
		unix(is.CreatedAt), unix(is.UpdatedAt), idOrNil(is.ViaAppID))
	if err != nil {
		return err
	}
	is.ID = id
	if err := q.addToBlock(ctx, is.RepoID, is.State, is.Number, 1); err != nil {
		return err
	}
	return q.countInMilestone(ctx, is.MilestoneID, is.State, 1)
}

func (q Q) addToBlock(ctx context.Context, repoID int64, state string, number int64, delta int) error {
	_, err := q.exec(ctx, `INSERT INTO issue_blocks (repo_id, state, block, n) VALUES (?,?,?,?)
 ON CONFLICT (repo_id, state, block) DO UPDATE SET n = issue_blocks.n + excluded.n`, repoID, state, number/issueBlock, delta)
	return err
}

func (q Q) countInMilestone(ctx context.Context, milestoneID int64, state string, delta int) error {
	if milestoneID == 0 {
		return nil
	}
	col := "open_issues"
	if state == "closed" {
		col = "closed_issues"
	}
	_, err := q.exec(ctx, `UPDATE milestones SET `+col+` = `+col+` + ? WHERE id = ?`, delta, milestoneID)
	return err
}

// UpdateIssue writes the mutable columns of is (title, body, state and its
// reason, lock, milestone, closing) and bumps updated_at. before is the row
// as it was: state and milestone changes move the repository's and the
// milestones' counts.
func (q Q) UpdateIssue(ctx context.Context, before, is *model.Issue) error {
	is.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE issues SET title = ?, body = ?, state = ?, state_reason = ?, duplicate_of_id = ?,
 locked = ?, lock_reason = ?, milestone_id = ?, closed_by_id = ?, closed_at = ?, updated_at = ? WHERE id = ?`,
		is.Title, strOrNil(is.Body), is.State, strOrNil(is.StateReason), idOrNil(is.DuplicateOf), is.Locked,
		strOrNil(is.LockReason), idOrNil(is.MilestoneID), idOrNil(is.ClosedByID), nullUnix(is.ClosedAt),
		unix(is.UpdatedAt), is.ID)
	if err != nil {
		return err
	}
	if before.State != is.State {
		if err := q.addToBlock(ctx, is.RepoID, before.State, is.Number, -1); err != nil {
			return err
		}
		if err := q.addToBlock(ctx, is.RepoID, is.State, is.Number, 1); err != nil {
			return err
		}
		d := 1
		if is.State == "open" {
			d = -1
		}
		if _, err := q.exec(ctx, `UPDATE issue_counters SET open_issues = open_issues - ?, closed_issues = closed_issues + ? WHERE repo_id = ?`,
			d, d, is.RepoID); err != nil {
			return err
		}
		if is.IsPull {
			if _, err := q.exec(ctx, `UPDATE pulls SET state = ? WHERE issue_id = ?`, is.State, is.ID); err != nil {
				return err
			}
			if _, err := q.exec(ctx, `UPDATE issue_counters SET open_pulls = open_pulls - ?, closed_pulls = closed_pulls + ? WHERE repo_id = ?`,
				d, d, is.RepoID); err != nil {
				return err
			}
		}
	}
	if before.State != is.State || before.MilestoneID != is.MilestoneID {
		if err := q.countInMilestone(ctx, before.MilestoneID, before.State, -1); err != nil {
			return err
		}
		if err := q.countInMilestone(ctx, is.MilestoneID, is.State, 1); err != nil {
			return err
		}
	}
	return nil
}

// TouchIssue bumps an issue's updated_at (labels, assignees, comments and
// the like change it on GitHub too).
func (q Q) TouchIssue(ctx context.Context, is *model.Issue) error {
	is.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE issues SET updated_at = ? WHERE id = ?`, unix(is.UpdatedAt), is.ID)
	return err
}

// OpenIssueCount is a repository's number of open issues and pull requests
// (its open_issues_count).
func (q Q) OpenIssueCount(ctx context.Context, repoID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT open_issues FROM issue_counters WHERE repo_id = ?`, repoID).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return n, err
}

// IssueQuery selects issues for a list: one repository's (RepoID), or
// those of the repositories Repos selects for its viewer.
type IssueQuery struct {
	RepoID int64
	Repos  *RepoQuery // cross-repository lists (GET /issues and friends)

	State                       string // open (default), closed, all
	Labels                      []string
	MilestoneID                 int64 // a milestone; MilestoneAny/None for * and none
	MilestoneAny, MilestoneNone bool
	AssigneeID                  int64 // a user; AssigneeAny/None for * and none
	AssigneeAny, AssigneeNone   bool
	CreatorID                   int64
	MentionedID                 int64
	// Involves keeps issues the user created, is assigned to, is mentioned
	// in or commented on (filter=subscribed).
	Involves int64
	// ReviewRequestedID keeps pull requests that ask this user's review.
	ReviewRequestedID int64
	Since             *time.Time
	// Type filters by issue type: a type's name (any case), "*" any type,
	// "none" no type.
	Type string
	// Nothing is set when a filter names something that does not exist (an
	// unknown user or milestone): the list is empty.
	Nothing bool
	// Pulls keeps only pull requests (GET /issues?pulls=true); NoPulls
	// only issues (GraphQL's Repository.issues).
	Pulls, NoPulls bool

	Sort   string // created (default), updated, comments
	Desc   bool
	Limit  int
	Offset int
}

func (f *IssueQuery) simple() bool {
	return f.Repos == nil && len(f.Labels) == 0 && f.MilestoneID == 0 && !f.MilestoneAny && !f.MilestoneNone &&
		f.AssigneeID == 0 && !f.AssigneeAny && !f.AssigneeNone && f.CreatorID == 0 && f.MentionedID == 0 &&
		f.Involves == 0 && f.ReviewRequestedID == 0 && f.Since == nil && !f.Nothing && !f.Pulls && f.Type == "" && (f.Sort == "" || f.Sort == "created")
}

func (f *IssueQuery) states() []string {
	switch f.State {
	case "closed":
		return []string{"closed"}
	case "all":
		return []string{"open", "closed"}
	}
	return []string{"open"}
}

// from is the FROM clause and its leading arguments. Across repositories
// the repository (r) comes along for its has_issues; which repositories
// the viewer may see is where's condition (RepoQuery.Subquery).
func (f *IssueQuery) from() (string, []any) {
	if f.Repos == nil {
		return ` FROM issues i`, nil
	}
	return ` FROM issues i JOIN repos r ON r.id = i.repo_id`, nil
}

func (f *IssueQuery) where() (string, []any) {
	var conds []string
	var args []any
	if f.Repos != nil {
		// The repositories the viewer may see, found once per query (the
		// viewer's teams and roles computed once, their accessible set
		// through indexes) rather than tested issue by issue.
		ids, a := f.Repos.Subquery()
		conds, args = append(conds, "i.repo_id IN ("+ids+")", "r.has_issues = ?"), append(a, true)
	} else {
		conds, args = append(conds, "i.repo_id = ?"), append(args, f.RepoID)
	}
	if f.Pulls {
		conds, args = append(conds, "i.is_pull = ?"), append(args, true)
	}
	if f.NoPulls {
		conds, args = append(conds, "i.is_pull = ?"), append(args, false)
	}
	switch f.State {
	case "closed":
		conds = append(conds, "i.state = 'closed'")
	case "all":
	default:
		conds = append(conds, "i.state = 'open'")
	}
	if f.Nothing {
		conds = append(conds, "1 = 0")
	}
	for _, l := range f.Labels {
		conds = append(conds, `EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id
 WHERE il.issue_id = i.id AND l.repo_id = i.repo_id AND l.lower_name = ?)`)
		args = append(args, strings.ToLower(l))
	}
	switch {
	case f.MilestoneNone:
		conds = append(conds, "i.milestone_id IS NULL")
	case f.MilestoneAny:
		conds = append(conds, "i.milestone_id IS NOT NULL")
	case f.MilestoneID != 0:
		conds, args = append(conds, "i.milestone_id = ?"), append(args, f.MilestoneID)
	}
	switch {
	case f.AssigneeNone:
		conds = append(conds, "NOT EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = i.id)")
	case f.AssigneeAny:
		conds = append(conds, "EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = i.id)")
	case f.AssigneeID != 0:
		conds = append(conds, "EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = i.id AND ia.user_id = ?)")
		args = append(args, f.AssigneeID)
	}
	if f.CreatorID != 0 {
		conds, args = append(conds, "i.user_id = ?"), append(args, f.CreatorID)
	}
	switch f.Type {
	case "":
	case "none":
		conds = append(conds, "NOT EXISTS (SELECT 1 FROM issue_type_of ito WHERE ito.issue_id = i.id)")
	case "*":
		conds = append(conds, "EXISTS (SELECT 1 FROM issue_type_of ito WHERE ito.issue_id = i.id)")
	default:
		conds = append(conds, "EXISTS (SELECT 1 FROM issue_type_of ito JOIN issue_types it ON it.id = ito.type_id WHERE ito.issue_id = i.id AND LOWER(it.name) = LOWER(?))")
		args = append(args, f.Type)
	}
	if f.MentionedID != 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM issue_mentions im WHERE im.issue_id = i.id AND im.user_id = ?)")
		args = append(args, f.MentionedID)
	}
	if f.Involves != 0 {
		conds = append(conds, `(i.user_id = ? OR EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = i.id AND ia.user_id = ?)
 OR EXISTS (SELECT 1 FROM issue_mentions im WHERE im.issue_id = i.id AND im.user_id = ?)
 OR EXISTS (SELECT 1 FROM issue_comments ic WHERE ic.issue_id = i.id AND ic.user_id = ?))`)
		args = append(args, f.Involves, f.Involves, f.Involves, f.Involves)
	}
	if f.ReviewRequestedID != 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM pull_review_requests rr WHERE rr.pull_id = i.id AND rr.reviewer_id = ?)")
		args = append(args, f.ReviewRequestedID)
	}
	if f.Since != nil {
		conds, args = append(conds, "i.updated_at >= ?"), append(args, unix(*f.Since))
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

func (f *IssueQuery) order() string {
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	// Within one repository numbers follow creation (CreateIssue), and the
	// (repo_id, number) indexes serve the order.
	tie := "i.number"
	if f.Repos != nil {
		tie = "i.id"
	}
	switch f.Sort {
	case "updated":
		return " ORDER BY i.updated_at" + dir + ", " + tie + dir
	case "comments":
		return " ORDER BY i.comments" + dir + ", " + tie + dir
	}
	if f.Repos != nil {
		return " ORDER BY i.created_at" + dir + ", i.id" + dir
	}
	return " ORDER BY i.number" + dir
}

// ListIssues returns one page of the issues f selects, with their authors,
// and the total for the Link header. The default list of a repository
// (state and sort by creation only) takes its total from the repository's
// counters and starts a deep page at the block of numbers that holds it.
func (q Q) ListIssues(ctx context.Context, f IssueQuery) ([]*model.Issue, int, error) {
	query, args, total, err := q.listQuery(ctx, f, issueCols)
	if err != nil || query == "" {
		return nil, total, err
	}
	list, err := q.issues(ctx, query, args...)
	return list, total, err
}

// ListIssueIDs is ListIssues for the ids of the page only (its query reads
// the index alone when it can). A page of a repository's default list
// (state and sort by creation only) comes from the read cache while no
// write commits, as a page of ListRepos does.
func (q Q) ListIssueIDs(ctx context.Context, f IssueQuery) ([]int64, int, error) {
	if f.simple() {
		return q.cachedIssuePage(ctx, f)
	}
	return q.listIssueIDs(ctx, f)
}

func (q Q) listIssueIDs(ctx context.Context, f IssueQuery) ([]int64, int, error) {
	query, args, total, err := q.listQuery(ctx, f, "i.id")
	if err != nil || query == "" {
		return nil, total, err
	}
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, total, rows.Err()
}

// listQuery builds the query of one page of f selecting cols, and counts
// the list; an empty query means an empty page.
func (q Q) listQuery(ctx context.Context, f IssueQuery, cols string) (string, []any, int, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 30
	}
	if f.simple() {
		return q.listQueryFast(ctx, f, cols, limit)
	}
	from, fromArgs := f.from()
	where, args := f.where()
	all := append(fromArgs, args...)
	var total int
	if err := q.row(ctx, `SELECT COUNT(*)`+from+where, all...).Scan(&total); err != nil {
		return "", nil, 0, err
	}
	if f.Offset >= total {
		return "", nil, total, nil
	}
	return `SELECT ` + cols + from + where + f.order() + ` LIMIT ? OFFSET ?`, append(all, limit, f.Offset), total, nil
}

func (q Q) listQueryFast(ctx context.Context, f IssueQuery, cols string, limit int) (string, []any, int, error) {
	blocks, err := q.issueBlocks(ctx, f.RepoID)
	if err != nil {
		return "", nil, 0, err
	}
	states := f.states()
	counts := blocks.merged(states)
	total := 0
	for _, c := range counts {
		total += c.n
	}
	nPulls := 0
	if f.NoPulls {
		// Issues only (GraphQL's Repository.issues): the blocks count
		// issues and pull requests alike; the repository's pull request
		// counters say how many of them are pull requests.
		pulls, err := q.pullCounts(ctx, f.RepoID)
		if err != nil {
			return "", nil, 0, err
		}
		for _, st := range states {
			if st == "open" {
				nPulls += pulls[0]
			} else {
				nPulls += pulls[1]
			}
		}
		total = max(total-nPulls, 0)
	}
	if f.Offset >= total {
		return "", nil, total, nil
	}
	if nPulls > 0 {
		// The page walks the (repository, state, number) index and reads
		// each row for is_pull; deep pages cannot start from a block
		// (blocks count pull requests too). Without pull requests in these
		// states the list is the blocks' list, which the index alone
		// answers, below.
		where, args := f.where()
		return `SELECT ` + cols + ` FROM issues i` + where + f.order() + ` LIMIT ? OFFSET ?`, append(args, limit, f.Offset), total, nil
	}
	stateCond := "i.state = ?"
	args := []any{f.RepoID, states[0]}
	if len(states) == 2 {
		stateCond, args = "i.state IN (?, ?)", append(args, states[1])
	}
	bound, offset := "", f.Offset
	if f.Offset >= issueBlock {
		block, rest := blockOf(counts, f.Desc, f.Offset)
		if f.Desc {
			bound, args = " AND i.number < ?", append(args, (block+1)*issueBlock)
		} else {
			bound, args = " AND i.number >= ?", append(args, block*issueBlock)
		}
		offset = rest
	}
	return `SELECT ` + cols + ` FROM issues i WHERE i.repo_id = ? AND ` + stateCond + bound + f.order() + ` LIMIT ? OFFSET ?`,
		append(args, limit, offset), total, nil
}

// blockCount is the number of issues of one block of numbers.
type blockCount struct {
	block int64
	n     int
}

// repoBlocks are a repository's block counts per state, by block.
type repoBlocks map[string][]blockCount

type blocksKey int64

// issueBlocks loads a repository's block counts (through the read cache:
// they change with every issue created or closed, and are read by every
// page of the default list).
func (q Q) issueBlocks(ctx context.Context, repoID int64) (repoBlocks, error) {
	got, err := cachedBatch(q, []blocksKey{blocksKey(repoID)}, func([]blocksKey) (map[blocksKey]repoBlocks, error) {
		rows, err := q.query(ctx, `SELECT state, block, n FROM issue_blocks WHERE repo_id = ? ORDER BY block`, repoID)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := repoBlocks{}
		for rows.Next() {
			var state string
			var c blockCount
			if err := rows.Scan(&state, &c.block, &c.n); err != nil {
				return nil, err
			}
			out[state] = append(out[state], c)
		}
		return map[blocksKey]repoBlocks{blocksKey(repoID): out}, rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return got[blocksKey(repoID)], nil
}

// merged is the block counts of the issues in any of states, by block.
func (b repoBlocks) merged(states []string) []blockCount {
	if len(states) == 1 {
		return b[states[0]]
	}
	sum := map[int64]int{}
	for _, s := range states {
		for _, c := range b[s] {
			sum[c.block] += c.n
		}
	}
	out := make([]blockCount, 0, len(sum))
	for block, n := range sum {
		out = append(out, blockCount{block, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].block < out[j].block })
	return out
}

// blockOf finds the block of numbers that holds the row at offset of a
// list in number order (counts by ascending block), and the offset of that
// row within the block.
func blockOf(counts []blockCount, desc bool, offset int) (int64, int) {
	seen := 0
	for i := range counts {
		c := counts[i]
		if desc {
			c = counts[len(counts)-1-i]
		}
		if seen+c.n > offset {
			return c.block, offset - seen
		}
		seen += c.n
	}
	return -1, 0 // past the end (callers check the total first)
}

// IssueDetails loads what the issue objects of a response show besides the
// issue row, in one query per kind for all of them: authors and their
// association, labels, assignees, milestones, issue types, and — only for the issues
// that have any — reactions, sub-issue and dependency summaries, parents
// and pinned comments. closedBy loads the closing user too (single-issue
// responses). Accounts, labels, milestones and associations come from the
// read cache when they can.
func (q Q) IssueDetails(ctx context.Context, list []*model.Issue, closedBy bool) error {
	if len(list) == 0 {
		return nil
	}
	byID := make(map[int64]*model.Issue, len(list))
	ids := make([]int64, 0, len(list))
	var milestones, reacted, parents, withSubs, withDeps, pinned, users, closedPulls, typable []int64
	for _, is := range list {
		if byID[is.ID] != nil {
			continue
		}
		byID[is.ID] = is
		ids = append(ids, is.ID)
		if !is.IsPull {
			typable = append(typable, is.ID) // pull requests have no issue type
		}
		is.Labels, is.Assignees, is.Rollup = []*model.Label{}, []*model.Account{}, nil
		if is.UserID != 0 {
			users = append(users, is.UserID)
		}
		if is.MilestoneID != 0 {
			milestones = append(milestones, is.MilestoneID)
		}
		if is.Reactions > 0 {
			reacted = append(reacted, is.ID)
		}
		if is.ParentID != 0 {
			parents = append(parents, is.ParentID)
		}
		if is.SubIssues > 0 {
			withSubs = append(withSubs, is.ID)
		}
		if is.Dependencies > 0 {
			withDeps = append(withDeps, is.ID)
		}
		if is.PinnedID != 0 {
			pinned = append(pinned, is.PinnedID)
		}
		if closedBy && is.ClosedByID != 0 {
			users = append(users, is.ClosedByID)
		}
		if is.IsPull && is.State == "closed" {
			closedPulls = append(closedPulls, is.ID) // only those can be merged
		}
	}
	if len(closedPulls) > 0 {
		merged, err := q.linkPairs(ctx, `SELECT issue_id, merged_at FROM pulls WHERE merged_at IS NOT NULL AND issue_id IN (`, `)`, closedPulls)
		if err != nil {
			return err
		}
		for _, m := range merged {
			t := fromUnix(m[1])
			byID[m[0]].MergedAt = &t
		}
	}
	labelPairs, err := q.linkPairs(ctx, `SELECT issue_id, label_id FROM issue_labels WHERE issue_id IN (`, `) ORDER BY issue_id`, ids)
	if err != nil {
		return err
	}
	assigneePairs, err := q.linkPairs(ctx, `SELECT issue_id, user_id FROM issue_assignees WHERE issue_id IN (`,
		`) ORDER BY issue_id, created_at, user_id`, ids)
	if err != nil {
		return err
	}
	var ms map[int64]*model.Milestone
	if len(milestones) > 0 {
		if ms, err = q.cachedMilestones(ctx, milestones); err != nil {
			return err
		}
	}
	labelIDs := make([]int64, 0, len(labelPairs))
	for _, p := range labelPairs {
		labelIDs = append(labelIDs, p[1])
	}
	for _, p := range assigneePairs {
		users = append(users, p[1])
	}
	labels, err := q.cachedLabels(ctx, labelIDs)
	if err != nil {
		return err
	}
	accounts, err := q.cachedAccounts(ctx, users)
	if err != nil {
		return err
	}
	var pairs []assocKey
	for _, is := range list {
		if is.UserID != 0 {
			pairs = append(pairs, assocKey{is.RepoID, is.UserID})
		}
	}
	assoc, err := q.associations(ctx, pairs)
	if err != nil {
		return err
	}
	for _, p := range labelPairs {
		if l := labels[p[1]]; l != nil {
			byID[p[0]].Labels = append(byID[p[0]].Labels, l)
		}
	}
	for _, p := range assigneePairs {
		if a := accounts[p[1]]; a != nil {
			byID[p[0]].Assignees = append(byID[p[0]].Assignees, a)
		}
	}
	var bots, via []int64
	for _, is := range list {
		if a := accounts[is.UserID]; a != nil && a.Type == model.TypeBot {
			bots = append(bots, a.ID)
		}
		if is.ViaAppID != 0 {
			via = append(via, is.ViaAppID)
		}
	}
	appsByBot, appsByID, err := q.viaApps(ctx, bots, via)
	if err != nil {
		return err
	}
	for _, is := range list {
		sortLabels(is.Labels)
		is.User = accounts[is.UserID]
		is.ViaApp = viaApp(appsByBot, appsByID, is.UserID, is.ViaAppID)
		is.Association = "NONE"
		if a, ok := assoc[assocKey{is.RepoID, is.UserID}]; ok && is.User != nil {
			is.Association = a
		}
		is.Milestone = ms[is.MilestoneID]
		if closedBy {
			is.ClosedBy = accounts[is.ClosedByID]
		}
	}
	if len(reacted) > 0 {
		r, err := q.rollups(ctx, "issue", reacted)
		if err != nil {
			return err
		}
		for id, ru := range r {
			byID[id].Rollup = ru
		}
	}
	if len(parents) > 0 {
		refs, err := q.issueRefs(ctx, parents)
		if err != nil {
			return err
		}
		for _, is := range list {
			if is.ParentID != 0 {
				is.Parent = refs[is.ParentID]
			}
		}
	}
	if len(withSubs) > 0 {
		if err := q.loadSubSummaries(ctx, withSubs, byID); err != nil {
			return err
		}
	}
	if len(withDeps) > 0 {
		if err := q.loadDepSummaries(ctx, withDeps, byID); err != nil {
			return err
		}
	}
	if len(typable) > 0 {
		types, err := q.cachedIssueTypes(ctx, typable)
		if err != nil {
			return err
		}
		for id, t := range types {
			byID[id].Type = t
		}
	}
	if len(pinned) > 0 {
		cs, err := q.commentsByID(ctx, pinned)
		if err != nil {
			return err
		}
		for _, is := range list {
			if c := cs[is.PinnedID]; c != nil {
				c.IssueNumber = is.Number
				is.PinnedComment = c
			}
		}
	}
	return nil
}

// sortLabels orders an issue's labels by name, ignoring case.
func sortLabels(list []*model.Label) {
	sort.Slice(list, func(i, j int) bool {
		a, b := strings.ToLower(list[i].Name), strings.ToLower(list[j].Name)
		if a != b {
			return a < b
		}
		return list[i].ID < list[j].ID
	})
}

// linkPairs runs a query for (issue, other) id pairs of the issues ids, in
// chunks of at most 100 ids.
func (q Q) linkPairs(ctx context.Context, head, tail string, ids []int64) ([][2]int64, error) {
	var out [][2]int64
	for start := 0; start < len(ids); start += 100 {
		in, args := inList(ids[start:min(start+100, len(ids))])
		rows, err := q.query(ctx, head+in+tail, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var p [2]int64
			if err := rows.Scan(&p[0], &p[1]); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// slimAccounts loads accounts by id with the slim columns.
func (q Q) slimAccounts(ctx context.Context, ids []int64) (map[int64]*model.Account, error) {
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT `+slim("a")+` FROM accounts a WHERE a.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]*model.Account{}
	for rows.Next() {
		var a slimAccount
		if err := rows.Scan(a.dest()...); err != nil {
			return nil, err
		}
		out[a.id.Int64] = a.account()
	}
	return out, rows.Err()
}

// issueRefs loads the repository and number of issues by id.
func (q Q) issueRefs(ctx context.Context, ids []int64) (map[int64]*model.IssueRef, error) {
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT i.id, i.repo_id, a.login, r.name, i.number FROM issues i JOIN repos r ON r.id = i.repo_id
 JOIN accounts a ON a.id = r.owner_id WHERE i.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]*model.IssueRef{}
	for rows.Next() {
		ref := &model.IssueRef{}
		if err := rows.Scan(&ref.ID, &ref.RepoID, &ref.Owner, &ref.Repo, &ref.Number); err != nil {
			return nil, err
		}
		out[ref.ID] = ref
	}
	return out, rows.Err()
}

// ReposByID loads repositories by id with a viewer's facts (absent ids
// are left out), for lists whose items carry a repository.
func (q Q) ReposByID(ctx context.Context, ids []int64, viewerID int64) (map[int64]*RepoView, error) {
	out := map[int64]*RepoView{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.repoViews(ctx, repoSelect+` WHERE r.id IN (`+in+`)`, append([]any{viewerID, viewerID}, args...)...)
	if err != nil {
		return nil, err
	}
	for _, v := range list {
		out[v.Repo.ID] = v
	}
	return out, nil
}

// SetIssueMentions replaces the users an issue's body mentions (logins that
// are not users are ignored).
func (q Q) SetIssueMentions(ctx context.Context, issueID int64, logins []string) error {
	if _, err := q.exec(ctx, `DELETE FROM issue_mentions WHERE issue_id = ?`, issueID); err != nil {
		return err
	}
	return q.AddIssueMentions(ctx, issueID, logins)
}

// AddIssueMentions records users mentioned on an issue (in its body or a
// comment).
func (q Q) AddIssueMentions(ctx context.Context, issueID int64, logins []string) error {
	for _, l := range logins {
		_, err := q.exec(ctx, `INSERT INTO issue_mentions (issue_id, user_id)
 SELECT ?, id FROM accounts WHERE lower_login = ? AND type = 'User' ON CONFLICT DO NOTHING`, issueID, strings.ToLower(l))
		if err != nil {
			return err
		}
	}
	return nil
}

// LastIssueNumber is the highest number a repository has handed out.
func (q Q) LastIssueNumber(ctx context.Context, repoID int64) (int64, error) {
	var n int64
	err := q.row(ctx, `SELECT last_number FROM issue_counters WHERE repo_id = ?`, repoID).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return n, err
}
