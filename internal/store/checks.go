package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Checks: suites (one per repository, head commit and app), runs in them,
// the runs' annotations, and the repositories' suite preferences. Lists
// filter and paginate in SQL; a suite's count of latest runs comes in the
// same query as the suite.

const checkRunCols = `c.id, c.repo_id, c.suite_id, c.head_sha, c.app_id, c.name, c.status, c.conclusion, c.external_id,
 c.details_url, c.started_at, c.completed_at, c.output_title, c.output_summary, c.output_text, c.annotations_count,
 c.images, c.actions, c.creator_id, c.created_at, c.updated_at`

const checkRunSelect = `SELECT ` + checkRunCols + ` FROM check_runs c`

// latestRun keeps the newest run of each name of a suite (a commit's
// suite of an app, or a workflow run's, whose re-run attempts add runs).
const latestRun = ` c.id = (SELECT MAX(x.id) FROM check_runs x WHERE x.suite_id = c.suite_id AND x.name = c.name)`

// The JSON columns of a run: small arrays shown whole, never queried.
type imageRow struct {
	Alt      string  `json:"alt"`
	ImageURL string  `json:"image_url"`
	Caption  *string `json:"caption,omitempty"`
}

type actionRow struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Identifier  string `json:"identifier"`
}

func checkJSON(r *model.CheckRun) (string, string, error) {
	images := make([]imageRow, 0, len(r.Images))
	for _, i := range r.Images {
		images = append(images, imageRow{i.Alt, i.ImageURL, i.Caption})
	}
	actions := make([]actionRow, 0, len(r.Actions))
	for _, a := range r.Actions {
		actions = append(actions, actionRow{a.Label, a.Description, a.Identifier})
	}
	ib, err := json.Marshal(images)
	if err != nil {
		return "", "", err
	}
	ab, err := json.Marshal(actions)
	return string(ib), string(ab), err
}

func (q Q) checkRuns(ctx context.Context, query string, args ...any) ([]*model.CheckRun, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.CheckRun{}
	for rows.Next() {
		r, err := scanCheckRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// scanCheckRun reads a row of checkRunCols.
func scanCheckRun(rows *sql.Rows) (*model.CheckRun, error) {
	r := &model.CheckRun{}
	var concl, ext, details, title, summary, text sql.NullString
	var started, completed, creator sql.NullInt64
	var images, actions string
	var created, updated int64
	if err := rows.Scan(&r.ID, &r.RepoID, &r.SuiteID, &r.HeadSHA, &r.AppID, &r.Name, &r.Status, &concl, &ext,
		&details, &started, &completed, &title, &summary, &text, &r.AnnotationsCount,
		&images, &actions, &creator, &created, &updated); err != nil {
		return nil, err
	}
	r.Conclusion, r.ExternalID, r.DetailsURL = nullStr(concl), nullStr(ext), nullStr(details)
	r.StartedAt, r.CompletedAt = fromNullUnix(started), fromNullUnix(completed)
	r.OutputTitle, r.OutputSummary, r.OutputText = nullStr(title), nullStr(summary), nullStr(text)
	r.CreatorID, r.CreatedAt, r.UpdatedAt = creator.Int64, fromUnix(created), fromUnix(updated)
	var ir []imageRow
	var ar []actionRow
	if err := json.Unmarshal([]byte(images), &ir); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(actions), &ar); err != nil {
		return nil, err
	}
	for _, i := range ir {
		r.Images = append(r.Images, model.CheckImage{Alt: i.Alt, ImageURL: i.ImageURL, Caption: i.Caption})
	}
	for _, a := range ar {
		r.Actions = append(r.Actions, model.CheckAction{Label: a.Label, Description: a.Description, Identifier: a.Identifier})
	}
	return r, nil
}

// CreateCheckRun inserts r, setting its id and times.
func (q Q) CreateCheckRun(ctx context.Context, r *model.CheckRun) error {
	images, actions, err := checkJSON(r)
	if err != nil {
		return err
	}
	now := unix(q.Now())
	id, err := q.insert(ctx, `INSERT INTO check_runs (repo_id, suite_id, head_sha, app_id, name, status, conclusion, external_id,
 details_url, started_at, completed_at, output_title, output_summary, output_text, annotations_count, images, actions,
 creator_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.RepoID, r.SuiteID, r.HeadSHA, r.AppID, r.Name, r.Status, strOrNil(r.Conclusion), strOrNil(r.ExternalID),
		strOrNil(r.DetailsURL), nullUnix(r.StartedAt), nullUnix(r.CompletedAt), strOrNil(r.OutputTitle),
		strOrNil(r.OutputSummary), strOrNil(r.OutputText), r.AnnotationsCount, images, actions,
		idOrNil(r.CreatorID), now, now)
	if err != nil {
		return err
	}
	r.ID, r.CreatedAt, r.UpdatedAt = id, fromUnix(now), fromUnix(now)
	return nil
}

// UpdateCheckRun writes r's changeable fields (annotations_count moves
// only with AddCheckAnnotations).
func (q Q) UpdateCheckRun(ctx context.Context, r *model.CheckRun) error {
	images, actions, err := checkJSON(r)
	if err != nil {
		return err
	}
	now := unix(q.Now())
	_, err = q.exec(ctx, `UPDATE check_runs SET name = ?, status = ?, conclusion = ?, external_id = ?, details_url = ?,
 started_at = ?, completed_at = ?, output_title = ?, output_summary = ?, output_text = ?, images = ?, actions = ?,
 updated_at = ? WHERE id = ?`,
		r.Name, r.Status, strOrNil(r.Conclusion), strOrNil(r.ExternalID), strOrNil(r.DetailsURL),
		nullUnix(r.StartedAt), nullUnix(r.CompletedAt), strOrNil(r.OutputTitle), strOrNil(r.OutputSummary),
		strOrNil(r.OutputText), images, actions, now, r.ID)
	r.UpdatedAt = fromUnix(now)
	return err
}

// CheckRunByID is one run of a repository.
func (q Q) CheckRunByID(ctx context.Context, repoID, id int64) (*model.CheckRun, error) {
	list, err := q.checkRuns(ctx, checkRunSelect+` WHERE c.repo_id = ? AND c.id = ?`, repoID, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// CheckRunQuery selects runs: of a commit (SHA) or of a suite (SuiteID),
// optionally by name, status and app, all of them or the newest of each
// name (Latest).
type CheckRunQuery struct {
	RepoID  int64
	SHA     string
	SuiteID int64
	Name    *string
	Status  string
	AppID   *int64
	Latest  bool
	Limit   int
	Offset  int
}

// CheckRuns is a page of the runs f selects, newest first, and how many it
// selects in all.
func (q Q) CheckRuns(ctx context.Context, f CheckRunQuery) ([]*model.CheckRun, int, error) {
	where := []string{"c.repo_id = ?"}
	args := []any{f.RepoID}
	if f.SuiteID != 0 {
		where, args = append(where, "c.suite_id = ?"), append(args, f.SuiteID)
	} else {
		where, args = append(where, "c.head_sha = ?"), append(args, f.SHA)
	}
	if f.Name != nil {
		where, args = append(where, "c.name = ?"), append(args, *f.Name)
	}
	if f.Status != "" {
		where, args = append(where, "c.status = ?"), append(args, f.Status)
	}
	if f.AppID != nil {
		where, args = append(where, "c.app_id = ?"), append(args, *f.AppID)
	}
	if f.Latest {
		where = append(where, latestRun)
	}
	cond := ` WHERE ` + strings.Join(where, " AND ")
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM check_runs c`+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 || f.Offset >= total {
		return []*model.CheckRun{}, total, nil
	}
	list, err := q.checkRuns(ctx, checkRunSelect+cond+` ORDER BY c.id DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	return list, total, err
}

// LatestCheckRuns is the newest run of each name of a commit (pull
// requests read it for their mergeable state and required checks).
func (q Q) LatestCheckRuns(ctx context.Context, repoID int64, sha string) ([]*model.CheckRun, error) {
	return q.checkRuns(ctx, checkRunSelect+` WHERE c.repo_id = ? AND c.head_sha = ? AND`+latestRun+` ORDER BY c.name, c.id`,
		repoID, sha)
}

// LatestSuiteRunStates are the status and conclusion of the newest run of
// each name of a suite: what the suite's own status is derived from.
func (q Q) LatestSuiteRunStates(ctx context.Context, suiteID int64) ([][2]string, error) {
	rows, err := q.query(ctx, `SELECT c.status, c.conclusion FROM check_runs c WHERE c.suite_id = ? AND`+latestRun, suiteID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var st string
		var concl sql.NullString
		if err := rows.Scan(&st, &concl); err != nil {
			return nil, err
		}
		out = append(out, [2]string{st, concl.String})
	}
	return out, rows.Err()
}

// AddCheckAnnotations appends annotations to a run and counts them.
func (q Q) AddCheckAnnotations(ctx context.Context, runID int64, list []model.CheckAnnotation) error {
	if len(list) == 0 {
		return nil
	}
	for _, a := range list {
		if _, err := q.exec(ctx, `INSERT INTO check_annotations (run_id, path, start_line, end_line, start_column, end_column,
 annotation_level, title, message, raw_details) VALUES (?,?,?,?,?,?,?,?,?,?)`,
			runID, a.Path, a.StartLine, a.EndLine, intOrNil(a.StartColumn), intOrNil(a.EndColumn), a.AnnotationLevel,
			strOrNil(a.Title), a.Message, strOrNil(a.RawDetails)); err != nil {
			return err
		}
	}
	_, err := q.exec(ctx, `UPDATE check_runs SET annotations_count = annotations_count + ? WHERE id = ?`, len(list), runID)
	return err
}

func intOrNil(v *int) any {
	if v == nil {
		return nil
	}
	return *v
}

const checkAnnotationSelect = `SELECT a.id, a.run_id, c.head_sha, a.path, a.start_line, a.end_line, a.start_column, a.end_column,
 a.annotation_level, a.title, a.message, a.raw_details FROM check_annotations a JOIN check_runs c ON c.id = a.run_id`

// CheckAnnotations is a page of a run's annotations, oldest first.
func (q Q) CheckAnnotations(ctx context.Context, runID int64, limit, offset int) ([]*model.CheckAnnotation, error) {
	return q.checkAnnotations(ctx, checkAnnotationSelect+` WHERE a.run_id = ? ORDER BY a.id LIMIT ? OFFSET ?`, runID, limit, offset)
}

// CheckAnnotationPages are pages of the annotations of several runs in one
// query: pages maps a run's id to the [start, end) offsets of its page,
// oldest first; the answer maps it to the page's annotations.
func (q Q) CheckAnnotationPages(ctx context.Context, pages map[int64][2]int) (map[int64][]*model.CheckAnnotation, error) {
	out := map[int64][]*model.CheckAnnotation{}
	var ids []int64
	var ranges []string
	var rargs []any
	for id, p := range pages {
		if p[1] > p[0] {
			ids = append(ids, id)
			ranges = append(ranges, `(a.run_id = ? AND a.rn > ? AND a.rn <= ?)`)
			rargs = append(rargs, id, p[0], p[1])
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.checkAnnotations(ctx, `SELECT a.id, a.run_id, c.head_sha, a.path, a.start_line, a.end_line, a.start_column, a.end_column,
 a.annotation_level, a.title, a.message, a.raw_details FROM (SELECT x.*, ROW_NUMBER() OVER (PARTITION BY x.run_id ORDER BY x.id) AS rn
 FROM check_annotations x WHERE x.run_id IN (`+in+`)) a JOIN check_runs c ON c.id = a.run_id
 WHERE `+strings.Join(ranges, " OR ")+` ORDER BY a.run_id, a.rn`, append(args, rargs...)...)
	if err != nil {
		return nil, err
	}
	for _, a := range list {
		out[a.RunID] = append(out[a.RunID], a)
	}
	return out, nil
}

func (q Q) checkAnnotations(ctx context.Context, query string, args ...any) ([]*model.CheckAnnotation, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.CheckAnnotation{}
	for rows.Next() {
		a := &model.CheckAnnotation{}
		var sc, ec sql.NullInt64
		var title, raw sql.NullString
		if err := rows.Scan(&a.ID, &a.RunID, &a.HeadSHA, &a.Path, &a.StartLine, &a.EndLine, &sc, &ec,
			&a.AnnotationLevel, &title, &a.Message, &raw); err != nil {
			return nil, err
		}
		if sc.Valid {
			v := int(sc.Int64)
			a.StartColumn = &v
		}
		if ec.Valid {
			v := int(ec.Int64)
			a.EndColumn = &v
		}
		a.Title, a.RawDetails = nullStr(title), nullStr(raw)
		out = append(out, a)
	}
	return out, rows.Err()
}

// Suites.

const checkSuiteSelect = `SELECT s.id, s.repo_id, s.head_sha, s.head_branch, s.app_id, s.status, s.conclusion, s.before_sha,
 s.after_sha, s.created_at, s.updated_at, (SELECT COUNT(DISTINCT x.name) FROM check_runs x WHERE x.suite_id = s.id),
 COALESCE(s.workflow_run_id, 0) FROM check_suites s`

func (q Q) checkSuites(ctx context.Context, query string, args ...any) ([]*model.CheckSuite, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.CheckSuite{}
	for rows.Next() {
		s := &model.CheckSuite{}
		var branch, concl, before, after sql.NullString
		var created, updated int64
		if err := rows.Scan(&s.ID, &s.RepoID, &s.HeadSHA, &branch, &s.AppID, &s.Status, &concl, &before, &after,
			&created, &updated, &s.LatestRuns, &s.WorkflowRunID); err != nil {
			return nil, err
		}
		s.HeadBranch, s.Conclusion, s.Before, s.After = nullStr(branch), nullStr(concl), nullStr(before), nullStr(after)
		s.CreatedAt, s.UpdatedAt = fromUnix(created), fromUnix(updated)
		out = append(out, s)
	}
	return out, rows.Err()
}

// CheckSuiteByID is one suite of a repository.
func (q Q) CheckSuiteByID(ctx context.Context, repoID, id int64) (*model.CheckSuite, error) {
	list, err := q.checkSuites(ctx, checkSuiteSelect+` WHERE s.repo_id = ? AND s.id = ?`, repoID, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// CheckSuiteFor is the suite of a commit and app (not a workflow run's).
func (q Q) CheckSuiteFor(ctx context.Context, repoID int64, sha string, appID int64) (*model.CheckSuite, error) {
	list, err := q.checkSuites(ctx, checkSuiteSelect+` WHERE s.repo_id = ? AND s.head_sha = ? AND s.app_id = ?
 AND s.workflow_run_id IS NULL`, repoID, sha, appID)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// CreateWorkflowRunSuite makes the suite of a workflow run
// (s.WorkflowRunID) and loads it into s.
func (q Q) CreateWorkflowRunSuite(ctx context.Context, s *model.CheckSuite) error {
	now := unix(q.Now())
	id, err := q.insert(ctx, `INSERT INTO check_suites (repo_id, head_sha, head_branch, app_id, status, before_sha, after_sha,
 created_at, updated_at, workflow_run_id) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		s.RepoID, s.HeadSHA, strOrNil(s.HeadBranch), s.AppID, model.CheckQueued, strOrNil(s.Before), strOrNil(s.After), now, now,
		s.WorkflowRunID)
	if err != nil {
		return err
	}
	got, err := q.CheckSuiteByID(ctx, s.RepoID, id)
	if err != nil {
		return err
	}
	*s = *got
	return nil
}

// EnsureCheckSuite makes the suite of s's repository, head commit and app
// unless there is one, and loads it into s; created tells which.
func (q Q) EnsureCheckSuite(ctx context.Context, s *model.CheckSuite) (created bool, err error) {
	now := unix(q.Now())
	res, err := q.exec(ctx, `INSERT INTO check_suites (repo_id, head_sha, head_branch, app_id, status, before_sha, after_sha,
 created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT (repo_id, head_sha, app_id) WHERE workflow_run_id IS NULL DO NOTHING`,
		s.RepoID, s.HeadSHA, strOrNil(s.HeadBranch), s.AppID, model.CheckQueued, strOrNil(s.Before), strOrNil(s.After), now, now)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	got, err := q.CheckSuiteFor(ctx, s.RepoID, s.HeadSHA, s.AppID)
	if err != nil {
		return false, err
	}
	*s = *got
	return n > 0, nil
}

// SetCheckSuiteState sets a suite's status and conclusion.
func (q Q) SetCheckSuiteState(ctx context.Context, id int64, status string, conclusion *string) error {
	_, err := q.exec(ctx, `UPDATE check_suites SET status = ?, conclusion = ?, updated_at = ? WHERE id = ?`,
		status, strOrNil(conclusion), unix(q.Now()), id)
	return err
}

// CheckSuites is a page of the suites of a commit, oldest first,
// optionally of one app or holding a run of one name, and how many there
// are in all.
func (q Q) CheckSuites(ctx context.Context, repoID int64, sha string, appID *int64, name *string, limit, offset int) ([]*model.CheckSuite, int, error) {
	cond := ` WHERE s.repo_id = ? AND s.head_sha = ?`
	args := []any{repoID, sha}
	if appID != nil {
		cond += ` AND s.app_id = ?`
		args = append(args, *appID)
	}
	if name != nil {
		cond += ` AND EXISTS (SELECT 1 FROM check_runs x WHERE x.suite_id = s.id AND x.name = ?)`
		args = append(args, *name)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM check_suites s`+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 || offset >= total {
		return []*model.CheckSuite{}, total, nil
	}
	list, err := q.checkSuites(ctx, checkSuiteSelect+cond+` ORDER BY s.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// CheckPreferences are a repository's suite preferences, by app.
func (q Q) CheckPreferences(ctx context.Context, repoID int64) ([]model.CheckPreference, error) {
	rows, err := q.query(ctx, `SELECT app_id, auto_trigger FROM check_suite_preferences WHERE repo_id = ? ORDER BY app_id`, repoID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.CheckPreference{}
	for rows.Next() {
		var p model.CheckPreference
		if err := rows.Scan(&p.AppID, &p.Setting); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetCheckPreference sets whether pushes create a suite for an app.
func (q Q) SetCheckPreference(ctx context.Context, repoID int64, p model.CheckPreference) error {
	_, err := q.exec(ctx, `INSERT INTO check_suite_preferences (repo_id, app_id, auto_trigger) VALUES (?,?,?)
 ON CONFLICT (repo_id, app_id) DO UPDATE SET auto_trigger = excluded.auto_trigger`, repoID, p.AppID, p.Setting)
	return err
}

// AutoTriggerChecks reports whether pushes create suites for an app of a
// repository (yes unless turned off).
func (q Q) AutoTriggerChecks(ctx context.Context, repoID, appID int64) (bool, error) {
	var on bool
	err := q.row(ctx, `SELECT auto_trigger FROM check_suite_preferences WHERE repo_id = ? AND app_id = ?`, repoID, appID).Scan(&on)
	if err == sql.ErrNoRows {
		return true, nil
	}
	return on, err
}

// OpenPullsByHeadSHA are the open pull requests into a repository whose
// head is one of shas, by head sha, in one query (pull requests whose head
// repository is gone are left out: their minimal shape needs it).
func (q Q) OpenPullsByHeadSHA(ctx context.Context, repoID int64, shas []string) (map[string][]*model.PullRef, error) {
	out := map[string][]*model.PullRef{}
	seen := map[string]bool{}
	args := []any{repoID}
	for _, s := range shas {
		if !seen[s] {
			seen[s] = true
			args = append(args, s)
		}
	}
	if len(args) == 1 {
		return out, nil
	}
	rows, err := q.query(ctx, `SELECT p.issue_id, p.number, p.head_ref, p.head_sha, hr.id, ha.login, hr.name,
 p.base_ref, p.base_sha, br.id, ba.login, br.name
 FROM pulls p JOIN issues i ON i.id = p.issue_id
 JOIN repos br ON br.id = p.repo_id JOIN accounts ba ON ba.id = br.owner_id
 JOIN repos hr ON hr.id = p.head_repo_id JOIN accounts ha ON ha.id = hr.owner_id
 WHERE p.repo_id = ? AND i.state = 'open' AND p.head_sha IN (?`+strings.Repeat(",?", len(args)-2)+`)
 ORDER BY p.number`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		p := &model.PullRef{}
		if err := rows.Scan(&p.ID, &p.Number, &p.HeadRef, &p.HeadSHA, &p.HeadRepoID, &p.HeadRepoOwner, &p.HeadRepo,
			&p.BaseRef, &p.BaseSHA, &p.BaseRepoID, &p.BaseRepoOwner, &p.BaseRepo); err != nil {
			return nil, err
		}
		out[p.HeadSHA] = append(out[p.HeadSHA], p)
	}
	return out, rows.Err()
}
