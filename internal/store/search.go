package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Search compiles the condition trees of internal/search into SQL. A tree
// is made of And, Or and Not nodes over leaves that name a field of the
// searched kind (see the compile functions for the fields of issues,
// repositories and accounts). Every leaf compiles to a predicate that is
// never NULL, so Not is exact.
//
// Search queries are built per request and their shape follows the
// client's query: they run unprepared (runSearch), so the statement cache
// does not grow with every distinct query.

// CondOp is the kind of a SearchCond node.
type CondOp uint8

const (
	CondLeaf  CondOp = iota // Field holds
	CondAnd                 // every kid holds (true when none)
	CondOr                  // some kid holds (false when none)
	CondNot                 // the one kid does not hold
	CondTrue                // always
	CondFalse               // never
)

// SearchCond is a node of a search's condition tree.
type SearchCond struct {
	Op    CondOp
	Kids  []SearchCond
	Field string   // leaves: what is tested
	Text  string   // a word or phrase (lower case), a name or a value
	Texts []string // any of these names (lower case)
	In    []string // text leaves: the fields the words are looked for in
	IDs   []int64  // any of these accounts, repositories or teams
	Range Range
}

// Range is a half-open interval [Lo, Hi) of integers (counts, or unix
// seconds for dates); a nil bound is open.
type Range struct {
	Lo, Hi *int64
}

// Contains reports whether v is in the range.
func (r Range) Contains(v int64) bool {
	return (r.Lo == nil || v >= *r.Lo) && (r.Hi == nil || v < *r.Hi)
}

// Leaf is a leaf node.
func Leaf(field string) SearchCond { return SearchCond{Op: CondLeaf, Field: field} }

// CondAll is And of kids.
func CondAll(kids ...SearchCond) SearchCond { return SearchCond{Op: CondAnd, Kids: kids} }

// CondAny is Or of kids.
func CondAny(kids ...SearchCond) SearchCond { return SearchCond{Op: CondOr, Kids: kids} }

// CondNeg is Not c.
func CondNeg(c SearchCond) SearchCond { return SearchCond{Op: CondNot, Kids: []SearchCond{c}} }

// Bool is CondTrue or CondFalse.
func Bool(b bool) SearchCond {
	if b {
		return SearchCond{Op: CondTrue}
	}
	return SearchCond{Op: CondFalse}
}

// sqlb accumulates a predicate and its arguments.
type sqlb struct {
	b    strings.Builder
	args []any
}

func (s *sqlb) w(parts ...string) {
	for _, p := range parts {
		s.b.WriteString(p)
	}
}

func (s *sqlb) arg(v ...any) { s.args = append(s.args, v...) }

// leafFunc writes one leaf's predicate.
type leafFunc func(s *sqlb, c SearchCond) error

// compile writes the predicate of a tree.
func (s *sqlb) compile(c SearchCond, leaf leafFunc) error {
	switch c.Op {
	case CondTrue:
		s.w("1 = 1")
	case CondFalse:
		s.w("1 = 0")
	case CondNot:
		if len(c.Kids) != 1 {
			return fmt.Errorf("store: search: not with %d kids", len(c.Kids))
		}
		s.w("NOT (")
		if err := s.compile(c.Kids[0], leaf); err != nil {
			return err
		}
		s.w(")")
	case CondAnd, CondOr:
		if len(c.Kids) == 0 {
			return s.compile(Bool(c.Op == CondAnd), leaf)
		}
		op := " AND "
		if c.Op == CondOr {
			op = " OR "
		}
		s.w("(")
		for i, k := range c.Kids {
			if i > 0 {
				s.w(op)
			}
			if err := s.compile(k, leaf); err != nil {
				return err
			}
		}
		s.w(")")
	case CondLeaf:
		s.w("(")
		if err := leaf(s, c); err != nil {
			return err
		}
		s.w(")")
	default:
		return fmt.Errorf("store: search: unknown node %d", c.Op)
	}
	return nil
}

// likeArg is a LIKE pattern matching s anywhere, with LIKE's wildcards in s
// escaped (the predicates say ESCAPE '\').
func likeArg(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(s)) + "%"
}

// like is a case-insensitive substring test of a text expression that is
// never NULL.
func (s *sqlb) like(expr, word string) {
	s.w("LOWER(", expr, ") LIKE ? ESCAPE '\\'")
	s.arg(likeArg(word))
}

// inRange writes expr's test against r (true when both bounds are open).
func (s *sqlb) inRange(expr string, r Range) {
	switch {
	case r.Lo == nil && r.Hi == nil:
		s.w("1 = 1")
	case r.Lo == nil:
		s.w(expr, " < ?")
		s.arg(*r.Hi)
	case r.Hi == nil:
		s.w(expr, " >= ?")
		s.arg(*r.Lo)
	default:
		s.w(expr, " >= ? AND ", expr, " < ?")
		s.arg(*r.Lo, *r.Hi)
	}
}

// ids writes expr IN (...) for the leaf's ids (false when there are none).
func (s *sqlb) ids(expr string, ids []int64) {
	if len(ids) == 0 {
		s.w("1 = 0")
		return
	}
	s.w(expr, " IN (", strings.TrimSuffix(strings.Repeat("?,", len(ids)), ","), ")")
	for _, id := range ids {
		s.arg(id)
	}
}

// texts writes LOWER(expr) IN (...) for the leaf's names.
func (s *sqlb) texts(expr string, names []string) {
	if len(names) == 0 {
		s.w("1 = 0")
		return
	}
	s.w("LOWER(", expr, ") IN (", strings.TrimSuffix(strings.Repeat("?,", len(names)), ","), ")")
	for _, n := range names {
		s.arg(strings.ToLower(n))
	}
}

// words is a text leaf over fields: the word or phrase appears in one of
// them. fields maps the names of c.In to never-NULL text expressions, and
// extra (when set) adds predicates of its own for some fields.
func (s *sqlb) words(c SearchCond, fields map[string]string, extra func(field string) bool) error {
	if len(c.In) == 0 {
		s.w("1 = 0")
		return nil
	}
	for i, f := range c.In {
		if i > 0 {
			s.w(" OR ")
		}
		if extra != nil && extra(f) {
			continue
		}
		expr, ok := fields[f]
		if !ok {
			return fmt.Errorf("store: search: no text field %q", f)
		}
		s.like(expr, c.Text)
	}
	return nil
}

func boolText(c SearchCond) bool { return c.Text == "true" }

// --- issues and pull requests ----------------------------------------------

// IssueSearch is a search of issues and pull requests across the
// repositories Viewer may see.
type IssueSearch struct {
	Viewer Viewer
	Cond   SearchCond
	// Rank are the searched words: best match (Sort "") puts the issues
	// whose titles hold more of them first.
	Rank   []string
	Sort   string // created, updated, comments, reactions, reactions-<content>, interactions; "" best match
	Desc   bool
	Limit  int
	Offset int
}

// issueSearchFrom joins what the leaves read: the repository, its owner,
// the viewer's relations to it (the visibility rule of RepoQuery) and the
// pull request half.
const issueSearchFrom = ` FROM issues i JOIN repos r ON r.id = i.repo_id JOIN accounts a ON a.id = r.owner_id` + viewerJoins + `
 LEFT JOIN pulls p ON p.issue_id = i.id`

// reactionContent maps the sort names of reactions to their contents.
var reactionContent = map[string]string{
	"+1": "+1", "-1": "-1", "smile": "laugh", "laugh": "laugh", "thinking_face": "confused", "confused": "confused",
	"heart": "heart", "tada": "hooray", "hooray": "hooray", "eyes": "eyes", "rocket": "rocket",
}

// SearchIssues returns one page of the issues and pull requests f selects
// and their total.
func (q Q) SearchIssues(ctx context.Context, f IssueSearch) ([]*model.Issue, int, error) {
	s := visibleTo(f.Viewer)
	s.w("(r.has_issues = ? OR i.is_pull = ?) AND ")
	s.arg(true, true)
	if err := s.compile(f.Cond, issueLeaf); err != nil {
		return nil, 0, err
	}
	order, orderArgs := f.order()
	return runSearch(ctx, q, searchPage{from: issueSearchFrom, cols: issueCols, where: s, order: order, oargs: orderArgs,
		limit: f.Limit, offset: f.Offset}, func(rows *sql.Rows) (*model.Issue, error) { return scanIssue(rows) })
}

func limitOr30(n int) int {
	if n <= 0 {
		return 30
	}
	return n
}

func (f *IssueSearch) order() (string, []any) {
	dir := direction(f.Desc)
	switch {
	case f.Sort == "created":
		return " ORDER BY i.created_at" + dir + ", i.id" + dir, nil
	case f.Sort == "updated":
		return " ORDER BY i.updated_at" + dir + ", i.id" + dir, nil
	case f.Sort == "comments":
		return " ORDER BY i.comments" + dir + ", i.id" + dir, nil
	case f.Sort == "reactions":
		return " ORDER BY i.reactions" + dir + ", i.id" + dir, nil
	case f.Sort == "interactions":
		return " ORDER BY (i.comments + i.reactions)" + dir + ", i.id" + dir, nil
	case strings.HasPrefix(f.Sort, "reactions-"):
		content := reactionContent[strings.TrimPrefix(f.Sort, "reactions-")]
		return " ORDER BY (SELECT COUNT(*) FROM reactions x WHERE x.subject_type = 'issue' AND x.subject_id = i.id AND x.content = ?)" +
			dir + ", i.id" + dir, []any{content}
	}
	// Best match: more of the words in the title first, then the newest.
	var s sqlb
	s.w(" ORDER BY ")
	if len(f.Rank) > 0 {
		s.w("(")
		for i, word := range f.Rank {
			if i > 0 {
				s.w(" + ")
			}
			s.w("CASE WHEN ")
			s.like("i.title", word)
			s.w(" THEN 1 ELSE 0 END")
		}
		s.w(") DESC, ")
	}
	s.w("i.created_at DESC, i.id DESC")
	return s.b.String(), s.args
}

// issueText are the text fields of issues (comments has its own test).
var issueText = map[string]string{"title": "i.title", "body": "COALESCE(i.body, '')"}

// latestReview keeps, per reviewer, the review that decides (the newest
// approval, change request or dismissal).
const latestReview = `v.state IN ('APPROVED', 'CHANGES_REQUESTED', 'DISMISSED') AND NOT EXISTS (SELECT 1 FROM pull_reviews v2
 WHERE v2.pull_id = v.pull_id AND v2.user_id = v.user_id AND v2.id > v.id AND v2.state IN ('APPROVED', 'CHANGES_REQUESTED', 'DISMISSED'))`

// Commit states of a pull request's head: statuses count by the newest of
// each context, check runs by the newest of each name.
const (
	headStatus = `FROM commit_statuses cs WHERE cs.repo_id = i.repo_id AND cs.sha = p.head_sha AND cs.id = (SELECT MAX(cs2.id)
 FROM commit_statuses cs2 WHERE cs2.repo_id = cs.repo_id AND cs2.sha = cs.sha AND cs2.context = cs.context)`
	headChecks = `FROM check_runs cr WHERE cr.repo_id = i.repo_id AND cr.head_sha = p.head_sha AND cr.id = (SELECT MAX(cr2.id)
 FROM check_runs cr2 WHERE cr2.repo_id = cr.repo_id AND cr2.head_sha = cr.head_sha AND cr2.name = cr.name AND cr2.app_id = cr.app_id)`
	statusFailure = `(EXISTS (SELECT 1 ` + headStatus + ` AND cs.state IN ('failure', 'error'))
 OR EXISTS (SELECT 1 ` + headChecks + ` AND cr.status = 'completed' AND cr.conclusion IN ('failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure', 'stale')))`
	statusPending = `(EXISTS (SELECT 1 ` + headStatus + ` AND cs.state = 'pending')
 OR EXISTS (SELECT 1 ` + headChecks + ` AND cr.status <> 'completed'))`
	statusAny = `(EXISTS (SELECT 1 ` + headStatus + `) OR EXISTS (SELECT 1 ` + headChecks + `))`
)

// isHex reports whether s could be an abbreviated commit SHA.
func isHex(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// issueLeaf writes the predicates of issue and pull request fields.
func issueLeaf(s *sqlb, c SearchCond) error {
	switch c.Field {
	case "text":
		if err := s.words(c, issueText, func(f string) bool {
			if f != "comments" {
				return false
			}
			s.w("EXISTS (SELECT 1 FROM issue_comments ic WHERE ic.issue_id = i.id AND ")
			s.like("ic.body", c.Text)
			s.w(")")
			return true
		}); err != nil {
			return err
		}
		if isHex(c.Text) {
			// A commit SHA finds the pull requests whose head or merge
			// commit it abbreviates.
			s.w(" OR (i.is_pull = ? AND (COALESCE(p.head_sha, '') LIKE ? OR COALESCE(p.merge_commit_sha, '') LIKE ?))")
			s.arg(true, c.Text+"%", c.Text+"%")
		}
	case "repo", "owner", "visibility":
		repoScopeLeaf(s, c, "i.repo_id")
	case "pull":
		s.w("i.is_pull = ?")
		s.arg(boolText(c))
	case "state":
		s.w("i.state = ?")
		s.arg(c.Text)
	case "merged":
		s.w("i.is_pull = ? AND p.merged_at IS NOT NULL")
		s.arg(true)
	case "unmerged":
		s.w("i.is_pull = ? AND p.merged_at IS NULL")
		s.arg(true)
	case "draft":
		s.w("i.is_pull = ? AND p.draft = ?")
		s.arg(true, boolText(c))
	case "locked":
		s.w("i.locked = ?")
		s.arg(boolText(c))
	case "archived":
		s.w("r.archived = ?")
		s.arg(boolText(c))
	case "author":
		s.ids("COALESCE(i.user_id, 0)", c.IDs)
	case "assignee":
		s.w("EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = i.id AND ")
		s.ids("ia.user_id", c.IDs)
		s.w(")")
	case "assigned":
		s.w("EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = i.id)")
	case "mentions":
		s.w("EXISTS (SELECT 1 FROM issue_mentions im WHERE im.issue_id = i.id AND ")
		s.ids("im.user_id", c.IDs)
		s.w(")")
	case "commenter":
		s.w("EXISTS (SELECT 1 FROM issue_comments ic WHERE ic.issue_id = i.id AND ")
		s.ids("ic.user_id", c.IDs)
		s.w(")")
	case "involves":
		// author, assignee, mention or comment, as GitHub defines it.
		for i, f := range []string{"author", "assignee", "mentions", "commenter"} {
			if i > 0 {
				s.w(" OR ")
			}
			if err := issueLeaf(s, SearchCond{Op: CondLeaf, Field: f, IDs: c.IDs}); err != nil {
				return err
			}
		}
	case "label":
		s.w("EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE il.issue_id = i.id AND ")
		s.texts("l.name", c.Texts)
		s.w(")")
	case "labeled":
		s.w("EXISTS (SELECT 1 FROM issue_labels il WHERE il.issue_id = i.id)")
	case "milestone":
		s.w("EXISTS (SELECT 1 FROM milestones ms WHERE ms.id = i.milestone_id AND ms.lower_title = ?)")
		s.arg(strings.ToLower(c.Text))
	case "milestoned":
		s.w("i.milestone_id IS NOT NULL")
	case "issue_type":
		s.w("EXISTS (SELECT 1 FROM issue_type_of ito JOIN issue_types it ON it.id = ito.type_id WHERE ito.issue_id = i.id AND it.lower_name = ?)")
		s.arg(strings.ToLower(c.Text))
	case "head":
		s.w("i.is_pull = ? AND p.head_ref = ?")
		s.arg(true, c.Text)
	case "base":
		s.w("i.is_pull = ? AND p.base_ref = ?")
		s.arg(true, c.Text)
	case "created":
		s.inRange("i.created_at", c.Range)
	case "updated":
		s.inRange("i.updated_at", c.Range)
	case "closed":
		s.w("i.closed_at IS NOT NULL AND ")
		s.inRange("i.closed_at", c.Range)
	case "merged_at":
		s.w("i.is_pull = ? AND p.merged_at IS NOT NULL AND ")
		s.arg(true)
		s.inRange("p.merged_at", c.Range)
	case "comments":
		s.inRange("i.comments", c.Range)
	case "reactions":
		s.inRange("i.reactions", c.Range)
	case "interactions":
		s.inRange("(i.comments + i.reactions)", c.Range)
	case "reason":
		s.w("i.state = 'closed' AND COALESCE(i.state_reason, '') = ?")
		s.arg(c.Text)
	case "language":
		s.w("EXISTS (SELECT 1 FROM repo_facts rf WHERE rf.repo_id = i.repo_id AND LOWER(rf.language) = ?)")
		s.arg(strings.ToLower(c.Text))
	case "blocked":
		s.w("EXISTS (SELECT 1 FROM issue_dependencies d WHERE d.blocked_id = i.id)")
	case "blocking":
		s.w("EXISTS (SELECT 1 FROM issue_dependencies d WHERE d.blocking_id = i.id)")
	case "review_requested":
		// Asked directly, or through a team the user is an active member of.
		s.w("i.is_pull = ? AND (EXISTS (SELECT 1 FROM pull_review_requests rr WHERE rr.pull_id = i.id AND ")
		s.arg(true)
		s.ids("rr.reviewer_id", c.IDs)
		s.w(") OR EXISTS (SELECT 1 FROM pull_review_team_requests tr JOIN team_members tm ON tm.team_id = tr.team_id AND tm.state = 'active' WHERE tr.pull_id = i.id AND ")
		s.ids("tm.user_id", c.IDs)
		s.w("))")
	case "user_review_requested":
		s.w("i.is_pull = ? AND EXISTS (SELECT 1 FROM pull_review_requests rr WHERE rr.pull_id = i.id AND ")
		s.arg(true)
		s.ids("rr.reviewer_id", c.IDs)
		s.w(")")
	case "team_review_requested":
		s.w("i.is_pull = ? AND EXISTS (SELECT 1 FROM pull_review_team_requests tr WHERE tr.pull_id = i.id AND ")
		s.arg(true)
		s.ids("tr.team_id", c.IDs)
		s.w(")")
	case "reviewed_by":
		s.w("i.is_pull = ? AND EXISTS (SELECT 1 FROM pull_reviews v WHERE v.pull_id = i.id AND v.state <> 'PENDING' AND ")
		s.arg(true)
		s.ids("COALESCE(v.user_id, 0)", c.IDs)
		s.w(")")
	case "review":
		s.w("i.is_pull = ? AND ")
		s.arg(true)
		changes := `EXISTS (SELECT 1 FROM pull_reviews v WHERE v.pull_id = i.id AND v.state = 'CHANGES_REQUESTED' AND ` + latestReview + `)`
		approved := `EXISTS (SELECT 1 FROM pull_reviews v WHERE v.pull_id = i.id AND v.state = 'APPROVED' AND ` + latestReview + `) AND NOT ` + changes
		switch c.Text {
		case "none":
			s.w("NOT EXISTS (SELECT 1 FROM pull_reviews v WHERE v.pull_id = i.id AND v.state <> 'PENDING')")
		case "approved":
			s.w(approved)
		case "changes_requested":
			s.w(changes)
		case "required":
			// The base branch's protection asks for reviews and the pull
			// request is not approved yet.
			s.w("EXISTS (SELECT 1 FROM branch_protections bp WHERE bp.repo_id = i.repo_id AND bp.branch = p.base_ref AND bp.reviews = ?) AND NOT (", approved, ")")
			s.arg(true)
		default:
			return fmt.Errorf("store: search: review %q", c.Text)
		}
	case "status":
		s.w("i.is_pull = ? AND ")
		s.arg(true)
		switch c.Text {
		case "failure":
			s.w(statusFailure)
		case "pending":
			s.w("NOT ", statusFailure, " AND ", statusPending)
		case "success":
			s.w("NOT ", statusFailure, " AND NOT ", statusPending, " AND ", statusAny)
		default:
			return fmt.Errorf("store: search: status %q", c.Text)
		}
	default:
		return fmt.Errorf("store: search: unknown issue field %q", c.Field)
	}
	return nil
}

// PullDrafts reports which of the pull requests (issue ids) are drafts.
func (q Q) PullDrafts(ctx context.Context, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	for start := 0; start < len(ids); start += 100 {
		in, args := inList(ids[start:min(start+100, len(ids))])
		rows, err := q.query(ctx, `SELECT issue_id, draft FROM pulls WHERE issue_id IN (`+in+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var draft bool
			if err := rows.Scan(&id, &draft); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = draft
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// --- repositories -------------------------------------------------------

// RepoSearch is a search of the repositories Viewer may see.
type RepoSearch struct {
	Viewer Viewer
	Cond   SearchCond
	Rank   []string // best match puts repositories whose names hold more of these first
	Sort   string   // forks, help-wanted-issues, updated (stars: every repository has none); "" best match
	Desc   bool
	Limit  int
	Offset int
}

const (
	repoFacts   = ` LEFT JOIN repo_facts rf ON rf.repo_id = r.id`
	repoForks   = `(SELECT COUNT(*) FROM repos rfk WHERE rfk.parent_id = r.id)`
	repoTopicsN = `(CASE WHEN r.topics = '' THEN 0 ELSE LENGTH(r.topics) - LENGTH(REPLACE(r.topics, ',', '')) + 1 END)`
	// labeledOpen counts a repository's open issues that carry a label
	// (the name is one of the constants below, never client text).
	labeledOpen = `(SELECT COUNT(*) FROM issues li WHERE li.repo_id = r.id AND li.state = 'open' AND li.is_pull = FALSE AND EXISTS (SELECT 1
 FROM issue_labels lil JOIN labels ll ON ll.id = lil.label_id WHERE lil.issue_id = li.id AND ll.lower_name = '%s'))`
	goodFirstIssue = "good first issue"
	helpWanted     = "help wanted"
)

var repoText = map[string]string{
	"name": "r.name", "description": "r.description", "topics": "REPLACE(r.topics, ',', ' ')",
}

// SearchRepos returns one page of the repositories f selects, with their
// owners and the viewer's facts, and their total.
func (q Q) SearchRepos(ctx context.Context, f RepoSearch) ([]*RepoView, int, error) {
	s := visibleTo(f.Viewer)
	if err := s.compile(f.Cond, repoLeaf); err != nil {
		return nil, 0, err
	}
	order, orderArgs := f.order()
	return runSearch(ctx, q, searchPage{from: ` FROM repos r JOIN accounts a ON a.id = r.owner_id` + viewerJoins + repoFacts,
		sel: repoSelect + repoFacts, where: s, order: order, oargs: orderArgs, limit: f.Limit, offset: f.Offset},
		func(rows *sql.Rows) (*RepoView, error) { return scanRepoView(rows) })
}

func (f *RepoSearch) order() (string, []any) {
	dir := direction(f.Desc)
	switch f.Sort {
	case "forks":
		return " ORDER BY " + repoForks + dir + ", r.id" + dir, nil
	case "updated":
		return " ORDER BY r.updated_at" + dir + ", r.id" + dir, nil
	case "help-wanted-issues":
		return " ORDER BY " + fmt.Sprintf(labeledOpen, helpWanted) + dir + ", r.id" + dir, nil
	case "stars":
		return " ORDER BY r.stargazers_count" + dir + ", r.id" + dir, nil
	}
	var s sqlb
	s.w(" ORDER BY ")
	if len(f.Rank) > 0 {
		s.w("(")
		for i, word := range f.Rank {
			if i > 0 {
				s.w(" + ")
			}
			s.w("CASE WHEN ")
			s.like("r.name", word)
			s.w(" THEN 1 ELSE 0 END")
		}
		s.w(") DESC, ")
	}
	s.w("r.updated_at DESC, r.id DESC")
	return s.b.String(), s.args
}

// repoLeaf writes the predicates of repository fields.
func repoLeaf(s *sqlb, c SearchCond) error {
	switch c.Field {
	case "text":
		return s.words(c, repoText, nil)
	case "repo", "owner", "visibility", "fork":
		repoScopeLeaf(s, c, "r.id")
	case "archived":
		s.w("r.archived = ?")
		s.arg(boolText(c))
	case "template":
		s.w("r.is_template = ?")
		s.arg(boolText(c))
	case "created":
		s.inRange("r.created_at", c.Range)
	case "pushed":
		// A repository never pushed to counts as pushed when created.
		s.inRange("COALESCE(r.pushed_at, r.created_at)", c.Range)
	case "size":
		s.inRange("r.size", c.Range)
	case "forks":
		s.inRange(repoForks, c.Range)
	case "stars":
		s.inRange("r.stargazers_count", c.Range)
	case "topics":
		s.inRange(repoTopicsN, c.Range)
	case "topic":
		s.w("(',' || LOWER(r.topics) || ',') LIKE ? ESCAPE '\\'")
		s.arg("%," + strings.TrimSuffix(strings.TrimPrefix(likeArg(c.Text), "%"), "%") + ",%")
	case "language":
		s.w("LOWER(COALESCE(rf.language, '')) = ?")
		s.arg(strings.ToLower(c.Text))
	case "license":
		s.w("LOWER(COALESCE(rf.license_key, '')) = ?")
		s.arg(strings.ToLower(c.Text))
	case "good_first_issues", "help_wanted_issues":
		label := goodFirstIssue
		if c.Field == "help_wanted_issues" {
			label = helpWanted
		}
		s.inRange(fmt.Sprintf(labeledOpen, label), c.Range)
	default:
		return fmt.Errorf("store: search: unknown repository field %q", c.Field)
	}
	return nil
}

// --- users and organizations ----------------------------------------------

// AccountSearch is a search of users and organizations.
type AccountSearch struct {
	Cond   SearchCond
	Rank   []string // best match puts logins equal to one of these first, then logins holding them
	Sort   string   // repositories, joined (followers: every account has none); "" best match
	Desc   bool
	Limit  int
	Offset int
}

const publicRepos = `(SELECT COUNT(*) FROM repos pr WHERE pr.owner_id = a.id AND pr.visibility = 'public')`

var accountText = map[string]string{"login": "a.login", "email": "a.email", "name": "a.name"}

// SearchAccounts returns one page of the accounts f selects and their
// total.
func (q Q) SearchAccounts(ctx context.Context, f AccountSearch) ([]*model.Account, int, error) {
	s := &sqlb{}
	s.w(" WHERE ")
	if err := s.compile(f.Cond, accountLeaf); err != nil {
		return nil, 0, err
	}
	order, orderArgs := f.order()
	return runSearch(ctx, q, searchPage{from: ` FROM accounts a`, cols: accountCols, where: s, order: order, oargs: orderArgs,
		limit: f.Limit, offset: f.Offset}, func(rows *sql.Rows) (*model.Account, error) {
		a := &model.Account{}
		return a, scanAccount(rows, a)
	})
}

func (f *AccountSearch) order() (string, []any) {
	dir := direction(f.Desc)
	switch f.Sort {
	case "repositories":
		return " ORDER BY " + publicRepos + dir + ", a.id" + dir, nil
	case "joined":
		return " ORDER BY a.created_at" + dir + ", a.id" + dir, nil
	case "followers":
		return " ORDER BY a.id" + dir, nil
	}
	var s sqlb
	s.w(" ORDER BY ")
	if len(f.Rank) > 0 {
		s.w("(")
		for i, word := range f.Rank {
			if i > 0 {
				s.w(" + ")
			}
			s.w("CASE WHEN a.lower_login = ? THEN 2 WHEN ")
			s.arg(strings.ToLower(word))
			s.like("a.login", word)
			s.w(" THEN 1 ELSE 0 END")
		}
		s.w(") DESC, ")
	}
	s.w("a.id ASC")
	return s.b.String(), s.args
}

// accountLeaf writes the predicates of account fields.
func accountLeaf(s *sqlb, c SearchCond) error {
	switch c.Field {
	case "text":
		return s.words(c, accountText, nil)
	case "type":
		s.w("a.type = ?")
		s.arg(c.Text)
	case "login":
		s.texts("a.login", c.Texts)
	case "fullname":
		s.like("a.name", c.Text)
	case "location":
		s.like("a.location", c.Text)
	case "repos":
		s.inRange(publicRepos, c.Range)
	case "created":
		s.inRange("a.created_at", c.Range)
	case "language":
		s.w("EXISTS (SELECT 1 FROM repos lr JOIN repo_facts lf ON lf.repo_id = lr.id WHERE lr.owner_id = a.id AND lr.visibility = 'public' AND LOWER(lf.language) = ?)")
		s.arg(strings.ToLower(c.Text))
	default:
		return fmt.Errorf("store: search: unknown account field %q", c.Field)
	}
	return nil
}

// --- labels -------------------------------------------------------------------

// SearchLabels returns one page of a repository's labels whose name or
// description holds one of words, and their total. Best match (sort "")
// puts exact names first, then names holding a word, then by name.
func (q Q) SearchLabels(ctx context.Context, repoID int64, words []string, sort string, desc bool, limit, offset int) ([]*model.Label, int, error) {
	var s sqlb
	s.w(" WHERE l.repo_id = ? AND (")
	s.arg(repoID)
	for i, word := range words {
		if i > 0 {
			s.w(" OR ")
		}
		s.like("l.name", word)
		s.w(" OR ")
		s.like("COALESCE(l.description, '')", word)
	}
	if len(words) == 0 {
		s.w("1 = 0")
	}
	s.w(")")
	dir := direction(desc)
	var o sqlb
	switch sort {
	case "created":
		o.w(" ORDER BY l.created_at", dir, ", l.id", dir)
	case "updated":
		o.w(" ORDER BY l.updated_at", dir, ", l.id", dir)
	default:
		o.w(" ORDER BY (")
		for i, word := range words {
			if i > 0 {
				o.w(" + ")
			}
			o.w("CASE WHEN l.lower_name = ? THEN 2 WHEN ")
			o.arg(strings.ToLower(word))
			o.like("l.name", word)
			o.w(" THEN 1 ELSE 0 END")
		}
		o.w(") DESC, l.lower_name ASC, l.id ASC")
	}
	return runSearch(ctx, q, searchPage{from: ` FROM labels l`, cols: labelCols, where: &s, order: o.b.String(), oargs: o.args,
		limit: limit, offset: offset}, func(rows *sql.Rows) (*model.Label, error) { return scanLabel(rows) })
}

// --- running -------------------------------------------------------------------

// searchRows runs a search query without preparing it: its text is the
// client's query compiled, so caching its statement (and its PostgreSQL
// rebinding) would keep one per distinct search.
func (q Q) searchRows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q.counted(ctx)
	query = q.placeholders(query)
	if q.tx != nil {
		return q.tx.QueryContext(ctx, query, args...)
	}
	return q.db.QueryContext(ctx, query, args...)
}

func (q Q) searchRow(ctx context.Context, query string, args ...any) rowScanner {
	q.counted(ctx)
	query = q.placeholders(query)
	if q.tx != nil {
		return q.tx.QueryRowContext(ctx, query, args...)
	}
	return q.db.QueryRowContext(ctx, query, args...)
}

// placeholders turns ? into $n on PostgreSQL, like rebind, without
// remembering the result.
func (q Q) placeholders(query string) string {
	if !q.s.pg {
		return query
	}
	var b strings.Builder
	n, inStr := 0, false
	for i := 0; i < len(query); i++ {
		c := query[i]
		if c == '\'' {
			inStr = !inStr
		}
		if c == '?' && !inStr {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
