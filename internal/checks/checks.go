// Package checks is the checks service: check runs that external systems
// report on a commit, the check suite that groups the runs of one head
// commit and app, annotations on the runs' files, and the repositories'
// preference for suites created on push. It holds the rules — who may
// write, what a run must hold, how a suite's status follows its runs —
// for every transport. Runs and suites posted by users belong to app 0
// and show no app; workflow jobs' runs belong to GitHub Actions (jobs.go).
package checks

import (
	"context"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/store"
)

// Limits GitHub sets on one request.
const (
	MaxAnnotations = 50
	MaxActions     = 3
)

// Git is what the service reads from a repository's git storage (never
// inside a transaction).
type Git interface {
	// Resolve resolves a commit-ish to a commit id: model.ErrNotFound
	// when there is no such commit, a 409 for an empty repository.
	Resolve(ctx context.Context, repo *model.Repo, ref string) (string, error)
	// BranchAt is a branch whose head is sha (the default branch first),
	// nil when none is.
	BranchAt(ctx context.Context, repo *model.Repo, sha string) *string
	// Commits reads commits by id; unreadable ones are left out.
	Commits(ctx context.Context, repo *model.Repo, shas []string) map[string]*model.SimpleCommit
}

// Service is the checks service.
type Service struct {
	Store *store.Store
	Git   Git
}

// New makes the service.
func New(s *store.Store, g Git) *Service { return &Service{Store: s, Git: g} }

func noCommit(sha string) error { return model.Unprocessable("No commit found for SHA: " + sha) }

// resolve resolves ref to a commit id, or GitHub's 422 for a ref that names
// none.
func (s *Service) resolve(ctx context.Context, repo *model.Repo, ref string) (string, error) {
	sha, err := s.Git.Resolve(ctx, repo, ref)
	if errors.Is(err, model.ErrNotFound) {
		return "", noCommit(ref)
	}
	return sha, err
}

func orgID(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

func needWrite(perm authz.Permission) error {
	if perm < authz.Write {
		return model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	}
	return nil
}

// Output is a run's output as a client sends it: Title, Summary and Text
// replace the stored ones, Annotations are appended, Images replace.
type Output struct {
	Title, Summary, Text *string
	Annotations          []model.CheckAnnotation
	Images               []model.CheckImage
}

// RunInput is a new run or a change to one; nil fields are left as they
// are (on create: defaults).
type RunInput struct {
	Name        *string
	HeadSHA     string // create only
	DetailsURL  *string
	ExternalID  *string
	Status      *string
	Conclusion  *string
	StartedAt   *time.Time
	CompletedAt *time.Time
	Output      *Output
	Actions     *[]model.CheckAction
}

// RunView is a run with the open pull requests of its head commit and its
// app (nil: none).
type RunView struct {
	Run   *model.CheckRun
	Pulls []*model.PullRef
	App   *model.App
}

// apps reads the apps of runs or suites (a page holds one or two), with
// their owners; app 0 is none.
func apps(ctx context.Context, q store.Q, ids ...int64) (map[int64]*model.App, error) {
	out := map[int64]*model.App{}
	for _, id := range ids {
		if _, ok := out[id]; ok || id == 0 {
			continue
		}
		a, err := q.AppByID(ctx, id)
		if errors.Is(err, model.ErrNotFound) {
			out[id] = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = a
	}
	return out, nil
}

func validStatus(st string, create bool) bool {
	switch st {
	case model.CheckQueued, model.CheckInProgress, model.CheckCompleted:
		return true
	case model.CheckWaiting, model.CheckRequested, model.CheckPending:
		return !create
	}
	return false
}

func validConclusion(c string) bool {
	switch c {
	case "action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out":
		return true
	}
	return false
}

func invalid(field string, value any) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckRun", Field: field, Code: "invalid", Value: value}}}
}

// validate checks what one request may hold, whatever the run.
func validate(in *RunInput, create bool) error {
	if in.Name != nil && *in.Name == "" {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckRun", Field: "name", Code: "missing_field"}}}
	}
	if in.Status != nil && !validStatus(*in.Status, create) {
		return invalid("status", *in.Status)
	}
	if in.Conclusion != nil {
		if *in.Conclusion == "stale" {
			return model.Unprocessable("Only GitHub can set a check run conclusion to stale.")
		}
		if !validConclusion(*in.Conclusion) {
			return invalid("conclusion", *in.Conclusion)
		}
	}
	if in.Actions != nil && len(*in.Actions) > MaxActions {
		return model.Custom("CheckRun", "actions", "Only 3 actions are allowed per check run.")
	}
	if o := in.Output; o != nil {
		if len(o.Annotations) > MaxAnnotations {
			return model.Custom("CheckRun", "annotations", "Only 50 annotations are allowed per request.")
		}
		for _, a := range o.Annotations {
			switch a.AnnotationLevel {
			case "notice", "warning", "failure":
			default:
				return &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckAnnotation", Field: "annotation_level", Code: "invalid", Value: a.AnnotationLevel}}}
			}
			if a.StartLine < 1 || a.EndLine < a.StartLine {
				return &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckAnnotation", Field: "end_line", Code: "invalid", Value: a.EndLine}}}
			}
			if (a.StartColumn != nil || a.EndColumn != nil) && a.StartLine != a.EndLine {
				return model.Custom("CheckAnnotation", "start_column", "start_column and end_column are only allowed when start_line and end_line are the same.")
			}
		}
	}
	return nil
}

// apply sets in's fields on r and enforces the status rules: a conclusion
// completes the run, a completed run needs one, and a run that is not
// completed has none.
func apply(r *model.CheckRun, in *RunInput, now time.Time) error {
	if in.Name != nil {
		r.Name = *in.Name
	}
	if in.DetailsURL != nil {
		r.DetailsURL = in.DetailsURL
	}
	if in.ExternalID != nil {
		r.ExternalID = in.ExternalID
	}
	if in.StartedAt != nil {
		t := in.StartedAt.UTC().Truncate(time.Second)
		r.StartedAt = &t
	}
	if in.Status != nil {
		r.Status = *in.Status
		if r.Status != model.CheckCompleted && in.Conclusion == nil {
			r.Conclusion, r.CompletedAt = nil, nil
		}
	}
	if in.Conclusion != nil {
		r.Conclusion, r.Status = in.Conclusion, model.CheckCompleted
	}
	if in.CompletedAt != nil {
		if r.Conclusion == nil {
			return &model.ValidationError{Message: "Missing 'conclusion' for a check run with completed_at.",
				Errors: []model.FieldError{{Resource: "CheckRun", Field: "conclusion", Code: "missing_field"}}}
		}
		t := in.CompletedAt.UTC().Truncate(time.Second)
		r.CompletedAt = &t
	}
	if r.Status == model.CheckCompleted {
		if r.Conclusion == nil {
			return &model.ValidationError{Message: "Missing 'conclusion' for a completed check run.",
				Errors: []model.FieldError{{Resource: "CheckRun", Field: "conclusion", Code: "missing_field"}}}
		}
		if r.CompletedAt == nil {
			r.CompletedAt = &now
		}
	}
	if o := in.Output; o != nil {
		if o.Title != nil {
			r.OutputTitle = o.Title
		}
		if o.Summary != nil {
			r.OutputSummary = o.Summary
		}
		if o.Text != nil {
			r.OutputText = o.Text
		}
		if o.Images != nil {
			r.Images = o.Images
		}
	}
	if in.Actions != nil {
		r.Actions = *in.Actions
	}
	return nil
}

func runPayload(action string, r *model.CheckRun) map[string]any {
	return map[string]any{"action": action, "id": r.ID, "name": r.Name, "head_sha": r.HeadSHA, "status": r.Status,
		"conclusion": r.Conclusion, "check_suite_id": r.SuiteID, "app_id": r.AppID, "external_id": r.ExternalID}
}

func suitePayload(action string, su *model.CheckSuite) map[string]any {
	return map[string]any{"action": action, "id": su.ID, "head_sha": su.HeadSHA, "head_branch": su.HeadBranch,
		"status": su.Status, "conclusion": su.Conclusion, "app_id": su.AppID, "before": su.Before, "after": su.After}
}

// CreateRun records a new run on a commit for actor, who has perm on repo
// (the transport has checked visibility and archiving). The run joins the
// suite of its commit and app, made when there is none.
func (s *Service) CreateRun(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, in RunInput) (*RunView, error) {
	if err := needWrite(perm); err != nil {
		return nil, err
	}
	if in.Name == nil {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckRun", Field: "name", Code: "missing_field"}}}
	}
	if err := validate(&in, true); err != nil {
		return nil, err
	}
	if in.HeadSHA == "" {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckRun", Field: "head_sha", Code: "missing_field"}}}
	}
	sha, err := s.resolve(ctx, repo, in.HeadSHA)
	if err != nil {
		return nil, err
	}
	now := s.Store.Now().UTC().Truncate(time.Second)
	run := &model.CheckRun{RepoID: repo.ID, HeadSHA: sha, Status: model.CheckQueued, StartedAt: &now, CreatorID: actorID}
	if err := apply(run, &in, now); err != nil {
		return nil, err
	}
	// The branch is read from git only for a suite still to be made.
	var branch *string
	if _, err := s.Store.R().CheckSuiteFor(ctx, repo.ID, sha, 0); errors.Is(err, model.ErrNotFound) {
		branch = s.Git.BranchAt(ctx, repo, sha)
	} else if err != nil {
		return nil, err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		suite := &model.CheckSuite{RepoID: repo.ID, HeadSHA: sha, HeadBranch: branch}
		created, err := tx.EnsureCheckSuite(ctx, suite)
		if err != nil {
			return err
		}
		if created {
			if err := tx.AppendEvent(ctx, "check_suite", actorID, repo.ID, orgID(repo), suitePayload("created", suite)); err != nil {
				return err
			}
		}
		run.SuiteID = suite.ID
		if err := tx.CreateCheckRun(ctx, run); err != nil {
			return err
		}
		if in.Output != nil {
			if err := tx.AddCheckAnnotations(ctx, run.ID, in.Output.Annotations); err != nil {
				return err
			}
		}
		if err := runEvent(ctx, tx, actorID, repo, "created", run); err != nil {
			return err
		}
		return s.refreshSuite(ctx, tx, repo, actorID, suite)
	})
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, repo, run.ID)
}

// UpdateRun changes a run.
func (s *Service) UpdateRun(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID, id int64, in RunInput) (*RunView, error) {
	if err := needWrite(perm); err != nil {
		return nil, err
	}
	if err := validate(&in, false); err != nil {
		return nil, err
	}
	now := s.Store.Now().UTC().Truncate(time.Second)
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		run, err := tx.CheckRunByID(ctx, repo.ID, id)
		if err != nil {
			return err
		}
		was := run.Status
		if err := apply(run, &in, now); err != nil {
			return err
		}
		if err := tx.UpdateCheckRun(ctx, run); err != nil {
			return err
		}
		if in.Output != nil {
			if err := tx.AddCheckAnnotations(ctx, run.ID, in.Output.Annotations); err != nil {
				return err
			}
		}
		return s.runChanged(ctx, tx, repo, actorID, run, was)
	})
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, repo, id)
}

// runChanged appends a changed run's event ("completed" when it completed
// now, was its status before) and moves its suite's status.
func (s *Service) runChanged(ctx context.Context, tx store.Q, repo *model.Repo, actorID int64, run *model.CheckRun, was string) error {
	action := "updated"
	if run.Status == model.CheckCompleted && was != model.CheckCompleted {
		action = "completed"
	}
	if err := runEvent(ctx, tx, actorID, repo, action, run); err != nil {
		return err
	}
	suite, err := tx.CheckSuiteByID(ctx, repo.ID, run.SuiteID)
	if err != nil {
		return err
	}
	return s.refreshSuite(ctx, tx, repo, actorID, suite)
}

// conclusionRank is GitHub's precedence: a suite shows the highest ranked
// conclusion of its runs.
var conclusionRank = map[string]int{
	"action_required": 8, "cancelled": 7, "timed_out": 6, "failure": 5, "stale": 4,
	"neutral": 3, "success": 2, "skipped": 1,
}

// SuiteState derives a suite's status and conclusion from the status and
// conclusion of the newest run of each name: completed with the highest
// ranked conclusion when every run is, queued while none has started, in
// progress otherwise. A suite without runs keeps its own.
func SuiteState(runs [][2]string) (string, *string, bool) {
	if len(runs) == 0 {
		return "", nil, false
	}
	completed, queued := 0, 0
	best := ""
	for _, r := range runs {
		switch r[0] {
		case model.CheckCompleted:
			completed++
			if conclusionRank[r[1]] > conclusionRank[best] {
				best = r[1]
			}
		case model.CheckQueued, model.CheckRequested, model.CheckWaiting, model.CheckPending:
			queued++
		}
	}
	switch {
	case completed == len(runs):
		return model.CheckCompleted, &best, true
	case queued == len(runs):
		return model.CheckQueued, nil, true
	}
	return model.CheckInProgress, nil, true
}

// refreshSuite sets a suite's status from its runs, appending "completed"
// when it completes.
func (s *Service) refreshSuite(ctx context.Context, tx store.Q, repo *model.Repo, actorID int64, suite *model.CheckSuite) error {
	states, err := tx.LatestSuiteRunStates(ctx, suite.ID)
	if err != nil {
		return err
	}
	status, concl, ok := SuiteState(states)
	if !ok || (status == suite.Status && eqStr(concl, suite.Conclusion)) {
		return nil
	}
	wasCompleted := suite.Status == model.CheckCompleted
	suite.Status, suite.Conclusion = status, concl
	if err := tx.SetCheckSuiteState(ctx, suite.ID, status, concl); err != nil {
		return err
	}
	if status == model.CheckCompleted && !wasCompleted {
		return tx.AppendEvent(ctx, "check_suite", actorID, repo.ID, orgID(repo), suitePayload("completed", suite))
	}
	return nil
}

func eqStr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Run is one run of repo with its pull requests.
func (s *Service) Run(ctx context.Context, repo *model.Repo, id int64) (*RunView, error) {
	q := s.Store.R()
	run, err := q.CheckRunByID(ctx, repo.ID, id)
	if err != nil {
		return nil, err
	}
	pulls, err := q.OpenPullsByHeadSHA(ctx, repo.ID, []string{run.HeadSHA})
	if err != nil {
		return nil, err
	}
	as, err := apps(ctx, q, run.AppID)
	if err != nil {
		return nil, err
	}
	return &RunView{Run: run, Pulls: pulls[run.HeadSHA], App: as[run.AppID]}, nil
}

// Annotations is a page of a run's annotations and how many it has.
func (s *Service) Annotations(ctx context.Context, repo *model.Repo, id int64, limit, offset int) ([]*model.CheckAnnotation, int, error) {
	q := s.Store.R()
	run, err := q.CheckRunByID(ctx, repo.ID, id)
	if err != nil {
		return nil, 0, err
	}
	list, err := q.CheckAnnotations(ctx, run.ID, limit, offset)
	return list, run.AnnotationsCount, err
}

// RerequestRun asks for a run again: as on GitHub, the run's suite goes
// back to queued without a conclusion and the run itself stays as it is
// until its app updates it (the "rerequested" event is what the app sees).
func (s *Service) RerequestRun(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID, id int64) error {
	if err := needWrite(perm); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		run, err := tx.CheckRunByID(ctx, repo.ID, id)
		if err != nil {
			return err
		}
		if err := tx.SetCheckSuiteState(ctx, run.SuiteID, model.CheckQueued, nil); err != nil {
			return err
		}
		return runEvent(ctx, tx, actorID, repo, "rerequested", run)
	})
}

// RunQuery filters a list of runs.
type RunQuery struct {
	Name   *string
	Status string
	AppID  *int64
	All    bool // every run, not only the newest of each name
}

// RunPage is a page of runs, how many there are, and the open pull
// requests of their commits.
type RunPage struct {
	Runs  []*model.CheckRun
	Total int
	Pulls map[string][]*model.PullRef
	Apps  map[int64]*model.App
}

func (s *Service) runPage(ctx context.Context, f store.CheckRunQuery) (*RunPage, error) {
	q := s.Store.R()
	list, total, err := q.CheckRuns(ctx, f)
	if err != nil {
		return nil, err
	}
	shas := make([]string, 0, len(list))
	ids := make([]int64, 0, len(list))
	for _, r := range list {
		shas, ids = append(shas, r.HeadSHA), append(ids, r.AppID)
	}
	pulls, err := q.OpenPullsByHeadSHA(ctx, f.RepoID, shas)
	if err != nil {
		return nil, err
	}
	as, err := apps(ctx, q, ids...)
	if err != nil {
		return nil, err
	}
	return &RunPage{Runs: list, Total: total, Pulls: pulls, Apps: as}, nil
}

// RunsForRef is a page of the runs of the commit ref names.
func (s *Service) RunsForRef(ctx context.Context, repo *model.Repo, ref string, f RunQuery, limit, offset int) (*RunPage, error) {
	sha, err := s.resolve(ctx, repo, ref)
	if err != nil {
		return nil, err
	}
	return s.runPage(ctx, store.CheckRunQuery{RepoID: repo.ID, SHA: sha, Name: f.Name, Status: f.Status, AppID: f.AppID,
		Latest: !f.All, Limit: limit, Offset: offset})
}

// RunsForSuite is a page of the runs of a suite.
func (s *Service) RunsForSuite(ctx context.Context, repo *model.Repo, suiteID int64, f RunQuery, limit, offset int) (*RunPage, error) {
	if _, err := s.Store.R().CheckSuiteByID(ctx, repo.ID, suiteID); err != nil {
		return nil, err
	}
	return s.runPage(ctx, store.CheckRunQuery{RepoID: repo.ID, SuiteID: suiteID, Name: f.Name, Status: f.Status,
		Latest: !f.All, Limit: limit, Offset: offset})
}

// SuitePage is a page of suites with their head commits and pull requests.
type SuitePage struct {
	Suites  []*model.CheckSuite
	Total   int
	Commits map[string]*model.SimpleCommit
	Pulls   map[string][]*model.PullRef
	Apps    map[int64]*model.App
}

func (s *Service) suitePage(ctx context.Context, repo *model.Repo, list []*model.CheckSuite, total int) (*SuitePage, error) {
	shas := make([]string, 0, len(list))
	ids := make([]int64, 0, len(list))
	seen := map[string]bool{}
	for _, su := range list {
		ids = append(ids, su.AppID)
		if !seen[su.HeadSHA] {
			seen[su.HeadSHA] = true
			shas = append(shas, su.HeadSHA)
		}
	}
	pulls, err := s.Store.R().OpenPullsByHeadSHA(ctx, repo.ID, shas)
	if err != nil {
		return nil, err
	}
	as, err := apps(ctx, s.Store.R(), ids...)
	if err != nil {
		return nil, err
	}
	return &SuitePage{Suites: list, Total: total, Commits: s.Git.Commits(ctx, repo, shas), Pulls: pulls, Apps: as}, nil
}

// Suite is one suite of repo.
func (s *Service) Suite(ctx context.Context, repo *model.Repo, id int64) (*SuitePage, error) {
	su, err := s.Store.R().CheckSuiteByID(ctx, repo.ID, id)
	if err != nil {
		return nil, err
	}
	return s.suitePage(ctx, repo, []*model.CheckSuite{su}, 1)
}

// SuitesForRef is a page of the suites of the commit ref names.
func (s *Service) SuitesForRef(ctx context.Context, repo *model.Repo, ref string, appID *int64, name *string, limit, offset int) (*SuitePage, error) {
	sha, err := s.resolve(ctx, repo, ref)
	if err != nil {
		return nil, err
	}
	list, total, err := s.Store.R().CheckSuites(ctx, repo.ID, sha, appID, name, limit, offset)
	if err != nil {
		return nil, err
	}
	return s.suitePage(ctx, repo, list, total)
}

// CreateSuite makes the suite of a commit unless there is one; created
// tells which (201 or 200).
func (s *Service) CreateSuite(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, headSHA string) (*SuitePage, bool, error) {
	if err := needWrite(perm); err != nil {
		return nil, false, err
	}
	if headSHA == "" {
		return nil, false, &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckSuite", Field: "head_sha", Code: "missing_field"}}}
	}
	sha, err := s.resolve(ctx, repo, headSHA)
	if err != nil {
		return nil, false, err
	}
	suite := &model.CheckSuite{RepoID: repo.ID, HeadSHA: sha}
	if _, err := s.Store.R().CheckSuiteFor(ctx, repo.ID, sha, 0); errors.Is(err, model.ErrNotFound) {
		suite.HeadBranch = s.Git.BranchAt(ctx, repo, sha)
	} else if err != nil {
		return nil, false, err
	}
	var created bool
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if created, err = tx.EnsureCheckSuite(ctx, suite); err != nil || !created {
			return err
		}
		return tx.AppendEvent(ctx, "check_suite", actorID, repo.ID, orgID(repo), suitePayload("created", suite))
	})
	if err != nil {
		return nil, false, err
	}
	page, err := s.suitePage(ctx, repo, []*model.CheckSuite{suite}, 1)
	return page, created, err
}

// RerequestSuite asks for a suite again: it goes back to queued without a
// conclusion, and its app sees "rerequested".
func (s *Service) RerequestSuite(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID, id int64) error {
	if err := needWrite(perm); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		suite, err := tx.CheckSuiteByID(ctx, repo.ID, id)
		if err != nil {
			return err
		}
		suite.Status, suite.Conclusion = model.CheckQueued, nil
		if err := tx.SetCheckSuiteState(ctx, suite.ID, model.CheckQueued, nil); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "check_suite", actorID, repo.ID, orgID(repo), suitePayload("rerequested", suite))
	})
}

// SetPreferences sets which apps get suites made on push (admins only, as
// on GitHub) and answers every preference of the repository.
func (s *Service) SetPreferences(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, prefs []model.CheckPreference) ([]model.CheckPreference, error) {
	if perm < authz.Admin {
		return nil, model.Forbidden("Must have admin rights to Repository.")
	}
	var out []model.CheckPreference
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		for _, p := range prefs {
			if p.AppID < 0 {
				return &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckSuitePreference", Field: "app_id", Code: "invalid", Value: p.AppID}}}
			}
			if err := tx.SetCheckPreference(ctx, repo.ID, p); err != nil {
				return err
			}
		}
		var err error
		if out, err = tx.CheckPreferences(ctx, repo.ID); err != nil {
			return err
		}
		list := make([]map[string]any, 0, len(prefs))
		for _, p := range prefs {
			list = append(list, map[string]any{"app_id": p.AppID, "setting": p.Setting})
		}
		return tx.AppendEvent(ctx, "check_suite_preferences", actorID, repo.ID, orgID(repo), map[string]any{"auto_trigger_checks": list})
	})
	return out, err
}

// Pushed is the push hook: every branch head a push created or moved gets
// a queued suite (app 0) unless the repository turned that off, and the
// "requested" event an app would receive.
func (s *Service) Pushed(ctx context.Context, repo *model.Repo, actorID int64, updates []Update) error {
	var heads []Update
	for _, u := range updates {
		if u.Branch != "" && !u.Deleted {
			heads = append(heads, u)
		}
	}
	if len(heads) == 0 {
		return nil
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		on, err := tx.AutoTriggerChecks(ctx, repo.ID, 0)
		if err != nil || !on {
			return err
		}
		for _, u := range heads {
			branch, after := u.Branch, u.New
			suite := &model.CheckSuite{RepoID: repo.ID, HeadSHA: u.New, HeadBranch: &branch, After: &after}
			if u.Old != "" {
				before := u.Old
				suite.Before = &before
			}
			created, err := tx.EnsureCheckSuite(ctx, suite)
			if err != nil {
				return err
			}
			if created {
				if err := tx.AppendEvent(ctx, "check_suite", actorID, repo.ID, orgID(repo), suitePayload("requested", suite)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Update is one branch a push changed: Old is "" for a new branch.
type Update struct {
	Branch   string
	Old, New string
	Deleted  bool
}

// runEvent appends a check run's domain event and has the pull requests
// whose head is the run's commit look at their state again.
func runEvent(ctx context.Context, tx store.Q, actorID int64, repo *model.Repo, action string, run *model.CheckRun) error {
	if err := tx.AppendEvent(ctx, "check_run", actorID, repo.ID, orgID(repo), runPayload(action, run)); err != nil {
		return err
	}
	return pulls.CommitStateChanged(ctx, tx, repo.ID, run.HeadSHA)
}
