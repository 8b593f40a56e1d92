package wire

import (
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Checks: check runs, check suites, annotations and suite preferences.
// app is the run's or suite's GitHub App (GitHub Actions' for workflow
// jobs), null for runs posted without one (nullable-integration).

// PullRequestMinimal is components/schemas/pull-request-minimal.
type PullRequestMinimal struct {
	ID     int64          `json:"id"`
	Number int64          `json:"number"`
	URL    string         `json:"url"`
	Head   PullMinimalRef `json:"head"`
	Base   PullMinimalRef `json:"base"`
}

// PullMinimalRef is the head or base of a pull-request-minimal.
type PullMinimalRef struct {
	Ref  string          `json:"ref"`
	SHA  string          `json:"sha"`
	Repo PullMinimalRepo `json:"repo"`
}

// PullMinimalRepo is the repository of a pull-request-minimal's head or base.
type PullMinimalRepo struct {
	ID   int64  `json:"id"`
	URL  string `json:"url"`
	Name string `json:"name"`
}

// CheckRunOutput is the output object of a check run.
type CheckRunOutput struct {
	Title            *string `json:"title"`
	Summary          *string `json:"summary"`
	Text             *string `json:"text"`
	AnnotationsCount int     `json:"annotations_count"`
	AnnotationsURL   string  `json:"annotations_url"`
}

// CheckSuiteRef is a check run's check_suite.
type CheckSuiteRef struct {
	ID int64 `json:"id"`
}

// CheckRun is components/schemas/check-run.
type CheckRun struct {
	ID           int64                `json:"id"`
	HeadSHA      string               `json:"head_sha"`
	NodeID       string               `json:"node_id"`
	ExternalID   *string              `json:"external_id"`
	URL          string               `json:"url"`
	HTMLURL      *string              `json:"html_url"`
	DetailsURL   *string              `json:"details_url"`
	Status       string               `json:"status"`
	Conclusion   *string              `json:"conclusion"`
	StartedAt    *string              `json:"started_at"`
	CompletedAt  *string              `json:"completed_at"`
	Output       CheckRunOutput       `json:"output"`
	Name         string               `json:"name"`
	CheckSuite   *CheckSuiteRef       `json:"check_suite"`
	App          *Integration         `json:"app"`
	PullRequests []PullRequestMinimal `json:"pull_requests"`
}

// CheckAnnotation is components/schemas/check-annotation.
type CheckAnnotation struct {
	Path            string  `json:"path"`
	StartLine       int     `json:"start_line"`
	EndLine         int     `json:"end_line"`
	StartColumn     *int    `json:"start_column"`
	EndColumn       *int    `json:"end_column"`
	AnnotationLevel *string `json:"annotation_level"`
	Title           *string `json:"title"`
	Message         *string `json:"message"`
	RawDetails      *string `json:"raw_details"`
	BlobHref        string  `json:"blob_href"`
}

// CommitPerson is a name and email of a simple-commit.
type CommitPerson struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// SimpleCommit is components/schemas/simple-commit.
type SimpleCommit struct {
	ID        string        `json:"id"`
	TreeID    string        `json:"tree_id"`
	Message   string        `json:"message"`
	Timestamp string        `json:"timestamp"`
	Author    *CommitPerson `json:"author"`
	Committer *CommitPerson `json:"committer"`
}

// CheckSuite is components/schemas/check-suite.
type CheckSuite struct {
	ID                   int64                `json:"id"`
	NodeID               string               `json:"node_id"`
	HeadBranch           *string              `json:"head_branch"`
	HeadSHA              string               `json:"head_sha"`
	Status               *string              `json:"status"`
	Conclusion           *string              `json:"conclusion"`
	URL                  *string              `json:"url"`
	Before               *string              `json:"before"`
	After                *string              `json:"after"`
	PullRequests         []PullRequestMinimal `json:"pull_requests"`
	App                  *Integration         `json:"app"`
	Repository           MinimalRepository    `json:"repository"`
	CreatedAt            *string              `json:"created_at"`
	UpdatedAt            *string              `json:"updated_at"`
	HeadCommit           SimpleCommit         `json:"head_commit"`
	LatestCheckRunsCount int                  `json:"latest_check_runs_count"`
	CheckRunsURL         string               `json:"check_runs_url"`
	Rerequestable        bool                 `json:"rerequestable"`
	RunsRerequestable    bool                 `json:"runs_rerequestable"`
}

// CheckRunList is the body of the check-run lists.
type CheckRunList struct {
	TotalCount int        `json:"total_count"`
	CheckRuns  []CheckRun `json:"check_runs"`
}

// CheckSuiteList is the body of the check-suite lists.
type CheckSuiteList struct {
	TotalCount  int          `json:"total_count"`
	CheckSuites []CheckSuite `json:"check_suites"`
}

// AutoTriggerCheck is one app's preference.
type AutoTriggerCheck struct {
	AppID   int64 `json:"app_id"`
	Setting bool  `json:"setting"`
}

// CheckSuitePreference is components/schemas/check-suite-preference.
type CheckSuitePreference struct {
	Preferences struct {
		AutoTriggerChecks []AutoTriggerCheck `json:"auto_trigger_checks"`
	} `json:"preferences"`
	Repository MinimalRepository `json:"repository"`
}

// CheckRunURL is the API url of a run.
func (u URLs) CheckRunURL(r *model.Repo, id int64) string {
	return u.RepoAPI(r.Owner.Login, r.Name) + "/check-runs/" + strconv.FormatInt(id, 10)
}

// CheckSuiteURL is the API url of a suite.
func (u URLs) CheckSuiteURL(r *model.Repo, id int64) string {
	return u.RepoAPI(r.Owner.Login, r.Name) + "/check-suites/" + strconv.FormatInt(id, 10)
}

// ToPullRequestMinimals converts open pull requests (never nil: the key is
// an array).
func (u URLs) ToPullRequestMinimals(list []*model.PullRef) []PullRequestMinimal {
	out := make([]PullRequestMinimal, 0, len(list))
	for _, p := range list {
		out = append(out, PullRequestMinimal{ID: p.ID, Number: p.Number,
			URL: u.RepoAPI(p.BaseRepoOwner, p.BaseRepo) + "/pulls/" + strconv.FormatInt(p.Number, 10),
			Head: PullMinimalRef{Ref: p.HeadRef, SHA: p.HeadSHA,
				Repo: PullMinimalRepo{ID: p.HeadRepoID, URL: u.RepoAPI(p.HeadRepoOwner, p.HeadRepo), Name: p.HeadRepo}},
			Base: PullMinimalRef{Ref: p.BaseRef, SHA: p.BaseSHA,
				Repo: PullMinimalRepo{ID: p.BaseRepoID, URL: u.RepoAPI(p.BaseRepoOwner, p.BaseRepo), Name: p.BaseRepo}}})
	}
	return out
}

// ToCheckRun converts a run with the open pull requests of its commit and
// its app (nil: none). A workflow job's run (GitHub Actions' app) has the
// job's page as html_url, as on GitHub.
func (u URLs) ToCheckRun(r *model.Repo, c *model.CheckRun, pulls []*model.PullRef, app *model.App) CheckRun {
	url := u.CheckRunURL(r, c.ID)
	html := u.RepoHTMLURL(r) + "/runs/" + strconv.FormatInt(c.ID, 10)
	if app != nil && app.Slug == model.ActionsAppSlug && c.DetailsURL != nil {
		html = *c.DetailsURL
	}
	return CheckRun{ID: c.ID, HeadSHA: c.HeadSHA, NodeID: NodeID("CR", c.ID), ExternalID: c.ExternalID, URL: url,
		HTMLURL: &html, DetailsURL: c.DetailsURL, Status: c.Status, Conclusion: c.Conclusion,
		StartedAt: TimePtr(c.StartedAt), CompletedAt: TimePtr(c.CompletedAt),
		Output: CheckRunOutput{Title: c.OutputTitle, Summary: c.OutputSummary, Text: c.OutputText,
			AnnotationsCount: c.AnnotationsCount, AnnotationsURL: url + "/annotations"},
		Name: c.Name, CheckSuite: &CheckSuiteRef{ID: c.SuiteID}, App: u.toApp(app), PullRequests: u.ToPullRequestMinimals(pulls)}
}

func (u URLs) toApp(a *model.App) *Integration {
	if a == nil {
		return nil
	}
	v := u.ToIntegration(a, nil)
	return &v
}

// ToCheckRunList converts a page of runs; pulls are by head sha, apps by id.
func (u URLs) ToCheckRunList(r *model.Repo, list []*model.CheckRun, total int, pulls map[string][]*model.PullRef, apps map[int64]*model.App) CheckRunList {
	out := CheckRunList{TotalCount: total, CheckRuns: make([]CheckRun, 0, len(list))}
	for _, c := range list {
		out.CheckRuns = append(out.CheckRuns, u.ToCheckRun(r, c, pulls[c.HeadSHA], apps[c.AppID]))
	}
	return out
}

// ToCheckAnnotations converts annotations; blob_href points at the file
// in the run's commit.
func (u URLs) ToCheckAnnotations(r *model.Repo, list []*model.CheckAnnotation) []CheckAnnotation {
	out := make([]CheckAnnotation, 0, len(list))
	for _, a := range list {
		level, msg := a.AnnotationLevel, a.Message
		out = append(out, CheckAnnotation{Path: a.Path, StartLine: a.StartLine, EndLine: a.EndLine,
			StartColumn: a.StartColumn, EndColumn: a.EndColumn, AnnotationLevel: &level, Title: a.Title,
			Message: &msg, RawDetails: a.RawDetails, BlobHref: u.RepoHTMLURL(r) + "/blob/" + a.HeadSHA + "/" + a.Path})
	}
	return out
}

func (u URLs) toSimpleCommit(sha string, c *model.SimpleCommit) SimpleCommit {
	if c == nil {
		// The commit could not be read: its id still names it.
		return SimpleCommit{ID: sha, Timestamp: Time(time.Unix(0, 0))}
	}
	return SimpleCommit{ID: c.ID, TreeID: c.TreeID, Message: c.Message, Timestamp: c.Timestamp.Format(time.RFC3339),
		Author:    &CommitPerson{Name: c.AuthorName, Email: c.AuthorEmail},
		Committer: &CommitPerson{Name: c.CommitterName, Email: c.CommitterEmail}}
}

// ToCheckSuite converts a suite with its head commit and open pull requests.
func (u URLs) ToCheckSuite(r *model.Repo, s *model.CheckSuite, commit *model.SimpleCommit, pulls []*model.PullRef, app *model.App) CheckSuite {
	url := u.CheckSuiteURL(r, s.ID)
	status := s.Status
	return CheckSuite{ID: s.ID, NodeID: NodeID("CS", s.ID), HeadBranch: s.HeadBranch, HeadSHA: s.HeadSHA,
		Status: &status, Conclusion: s.Conclusion, URL: &url, Before: s.Before, After: s.After,
		PullRequests: u.ToPullRequestMinimals(pulls), App: u.toApp(app), Repository: u.ToBareRepository(r),
		CreatedAt: TimePtr(&s.CreatedAt), UpdatedAt: TimePtr(&s.UpdatedAt), HeadCommit: u.toSimpleCommit(s.HeadSHA, commit),
		LatestCheckRunsCount: s.LatestRuns, CheckRunsURL: url + "/check-runs", Rerequestable: true, RunsRerequestable: true}
}

// ToCheckSuiteList converts a page of suites.
func (u URLs) ToCheckSuiteList(r *model.Repo, list []*model.CheckSuite, total int, commits map[string]*model.SimpleCommit, pulls map[string][]*model.PullRef,
	apps map[int64]*model.App) CheckSuiteList {
	out := CheckSuiteList{TotalCount: total, CheckSuites: make([]CheckSuite, 0, len(list))}
	for _, s := range list {
		out.CheckSuites = append(out.CheckSuites, u.ToCheckSuite(r, s, commits[s.HeadSHA], pulls[s.HeadSHA], apps[s.AppID]))
	}
	return out
}

// ToCheckSuitePreference converts a repository's suite preferences.
func (u URLs) ToCheckSuitePreference(r *model.Repo, prefs []model.CheckPreference) CheckSuitePreference {
	var out CheckSuitePreference
	out.Preferences.AutoTriggerChecks = make([]AutoTriggerCheck, 0, len(prefs))
	for _, p := range prefs {
		out.Preferences.AutoTriggerChecks = append(out.Preferences.AutoTriggerChecks, AutoTriggerCheck{p.AppID, p.Setting})
	}
	out.Repository = u.ToBareRepository(r)
	return out
}
