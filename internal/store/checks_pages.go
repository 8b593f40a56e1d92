package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Pages of suites and runs for many parents at once (GraphQL's
// Commit.checkSuites and CheckSuite.checkRuns): one query counts each
// parent's list, one cuts every parent's page with ROW_NUMBER.

// CheckSuiteFilter narrows a commit's suites: to one app, or to those
// holding a run of one name.
type CheckSuiteFilter struct {
	AppID *int64
	Name  *string
}

// CheckSuitePage is a page of a commit's suites and how many it has.
type CheckSuitePage struct {
	Total  int
	Suites []*model.CheckSuite
}

// CheckSuitePages are the pages of the suites of several commits of a
// repository, oldest first: page turns a commit's count into its page's
// [start, end) offsets. Commits without suites are absent.
func (q Q) CheckSuitePages(ctx context.Context, repoID int64, shas []string, f CheckSuiteFilter, page func(total int) (int, int)) (map[string]*CheckSuitePage, error) {
	out := map[string]*CheckSuitePage{}
	if len(shas) == 0 {
		return out, nil
	}
	in, args := inList(shas)
	where := ` WHERE s.repo_id = ? AND s.head_sha IN (` + in + `)`
	args = append([]any{repoID}, args...)
	if f.AppID != nil {
		where, args = where+` AND s.app_id = ?`, append(args, *f.AppID)
	}
	if f.Name != nil {
		where, args = where+` AND EXISTS (SELECT 1 FROM check_runs x WHERE x.suite_id = s.id AND x.name = ?)`, append(args, *f.Name)
	}
	order := map[string][]int64{}
	var ids []int64
	err := pagedBy(ctx, q, `SELECT s.head_sha, COUNT(*) FROM check_suites s`+where+` GROUP BY s.head_sha`,
		`SELECT s.head_sha AS k, s.id AS sid, ROW_NUMBER() OVER (PARTITION BY s.head_sha ORDER BY s.id) AS rn
		 FROM check_suites s`+where, "k, sid", args, page,
		func(rows *sql.Rows) error {
			var k string
			var id int64
			if err := rows.Scan(&k, &id); err != nil {
				return err
			}
			order[k] = append(order[k], id)
			ids = append(ids, id)
			return nil
		}, func(k string, n int) { out[k] = &CheckSuitePage{Total: n} })
	if err != nil || len(ids) == 0 {
		return out, err
	}
	suites, err := q.CheckSuitesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	for sha, list := range order {
		for _, id := range list {
			if s := suites[id]; s != nil {
				out[sha].Suites = append(out[sha].Suites, s)
			}
		}
	}
	return out, nil
}

// CheckSuitesByID loads suites by id (of any repository: the caller has
// them from runs it may see).
func (q Q) CheckSuitesByID(ctx context.Context, ids []int64) (map[int64]*model.CheckSuite, error) {
	out := map[int64]*model.CheckSuite{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.checkSuites(ctx, checkSuiteSelect+` WHERE s.id IN (`+in+`)`, args...)
	for _, s := range list {
		out[s.ID] = s
	}
	return out, err
}

// CheckRunFilter narrows a suite's runs: the newest of each name only
// (Latest), by name, app, statuses and conclusions (lower case, as
// stored).
type CheckRunFilter struct {
	Latest      bool
	Name        *string
	AppID       *int64
	Statuses    []string
	Conclusions []string
}

// CheckRunPage is a page of a suite's runs and how many it has.
type CheckRunPage struct {
	Total int
	Runs  []*model.CheckRun
}

// CheckRunPages are the pages of the runs of several suites, oldest
// first: page turns a suite's count into its page's [start, end) offsets.
// Suites without runs are absent.
func (q Q) CheckRunPages(ctx context.Context, suiteIDs []int64, f CheckRunFilter, page func(total int) (int, int)) (map[int64]*CheckRunPage, error) {
	out := map[int64]*CheckRunPage{}
	if len(suiteIDs) == 0 {
		return out, nil
	}
	in, args := inList(suiteIDs)
	where := []string{`c.suite_id IN (` + in + `)`}
	if f.Latest {
		where = append(where, latestRun)
	}
	if f.Name != nil {
		where, args = append(where, `c.name = ?`), append(args, *f.Name)
	}
	if f.AppID != nil {
		where, args = append(where, `c.app_id = ?`), append(args, *f.AppID)
	}
	if len(f.Statuses) > 0 {
		sin, sargs := inList(f.Statuses)
		where, args = append(where, `c.status IN (`+sin+`)`), append(args, sargs...)
	}
	if len(f.Conclusions) > 0 {
		cin, cargs := inList(f.Conclusions)
		where, args = append(where, `c.conclusion IN (`+cin+`)`), append(args, cargs...)
	}
	cond := ` WHERE ` + strings.Join(where, " AND ")
	cols := strings.ReplaceAll(checkRunCols, "c.", "")
	err := pagedBy(ctx, q, `SELECT c.suite_id, COUNT(*) FROM check_runs c`+cond+` GROUP BY c.suite_id`,
		`SELECT c.suite_id AS k, `+checkRunCols+`, ROW_NUMBER() OVER (PARTITION BY c.suite_id ORDER BY c.id) AS rn
		 FROM check_runs c`+cond, cols, args, page,
		func(rows *sql.Rows) error {
			r, err := scanCheckRun(rows)
			if err != nil {
				return err
			}
			out[r.SuiteID].Runs = append(out[r.SuiteID].Runs, r)
			return nil
		}, func(k int64, n int) { out[k] = &CheckRunPage{Total: n} })
	return out, err
}

// LatestCheckRunsOfCommits is LatestCheckRuns for several commits of a
// repository in one query, by commit.
func (q Q) LatestCheckRunsOfCommits(ctx context.Context, repoID int64, shas []string) (map[string][]*model.CheckRun, error) {
	out := map[string][]*model.CheckRun{}
	if len(shas) == 0 {
		return out, nil
	}
	in, args := inList(shas)
	list, err := q.checkRuns(ctx, checkRunSelect+` WHERE c.repo_id = ? AND c.head_sha IN (`+in+`) AND`+latestRun+
		` ORDER BY c.name, c.id`, append([]any{repoID}, args...)...)
	for _, r := range list {
		out[r.HeadSHA] = append(out[r.HeadSHA], r)
	}
	return out, err
}

// LatestStatusesOfCommits is the newest status of each context of several
// commits of a repository in one query (newest first), by commit.
func (q Q) LatestStatusesOfCommits(ctx context.Context, repoID int64, shas []string) (map[string][]*model.CommitStatus, error) {
	out := map[string][]*model.CommitStatus{}
	if len(shas) == 0 {
		return out, nil
	}
	in, args := inList(shas)
	list, err := q.statuses(ctx, statusSelect+` WHERE s.repo_id = ? AND s.sha IN (`+in+`) AND s.id = (SELECT MAX(x.id)
 FROM commit_statuses x WHERE x.repo_id = s.repo_id AND x.sha = s.sha AND x.context = s.context) ORDER BY s.id DESC`,
		append([]any{repoID}, args...)...)
	for _, s := range list {
		out[s.SHA] = append(out[s.SHA], s)
	}
	return out, err
}
