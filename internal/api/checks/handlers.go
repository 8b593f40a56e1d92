package checks

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/checks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

type annotationBody struct {
	Path            string  `json:"path"`
	StartLine       int     `json:"start_line"`
	EndLine         int     `json:"end_line"`
	StartColumn     *int    `json:"start_column"`
	EndColumn       *int    `json:"end_column"`
	AnnotationLevel string  `json:"annotation_level"`
	Message         string  `json:"message"`
	Title           *string `json:"title"`
	RawDetails      *string `json:"raw_details"`
}

type imageBody struct {
	Alt      string  `json:"alt"`
	ImageURL string  `json:"image_url"`
	Caption  *string `json:"caption"`
}

type outputBody struct {
	Title       *string          `json:"title"`
	Summary     *string          `json:"summary"`
	Text        *string          `json:"text"`
	Annotations []annotationBody `json:"annotations"`
	Images      []imageBody      `json:"images"`
}

type actionBody struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Identifier  string `json:"identifier"`
}

type runBody struct {
	Name        *string       `json:"name"`
	HeadSHA     string        `json:"head_sha"`
	DetailsURL  *string       `json:"details_url"`
	ExternalID  *string       `json:"external_id"`
	Status      *string       `json:"status"`
	Conclusion  *string       `json:"conclusion"`
	StartedAt   *string       `json:"started_at"`
	CompletedAt *string       `json:"completed_at"`
	Output      *outputBody   `json:"output"`
	Actions     *[]actionBody `json:"actions"`
}

func parseTime(field string, s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, *s)
	if err != nil {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckRun", Field: field, Code: "invalid", Value: *s}}}
	}
	return &t, nil
}

// input turns a request body into the service's input.
func (b *runBody) input() (svc.RunInput, error) {
	in := svc.RunInput{Name: b.Name, HeadSHA: b.HeadSHA, DetailsURL: b.DetailsURL, ExternalID: b.ExternalID,
		Status: b.Status, Conclusion: b.Conclusion}
	var err error
	if in.StartedAt, err = parseTime("started_at", b.StartedAt); err != nil {
		return in, err
	}
	if in.CompletedAt, err = parseTime("completed_at", b.CompletedAt); err != nil {
		return in, err
	}
	if o := b.Output; o != nil {
		out := &svc.Output{Title: o.Title, Summary: o.Summary, Text: o.Text}
		for _, a := range o.Annotations {
			out.Annotations = append(out.Annotations, model.CheckAnnotation{Path: a.Path, StartLine: a.StartLine,
				EndLine: a.EndLine, StartColumn: a.StartColumn, EndColumn: a.EndColumn, AnnotationLevel: a.AnnotationLevel,
				Title: a.Title, Message: a.Message, RawDetails: a.RawDetails})
		}
		if o.Images != nil {
			out.Images = []model.CheckImage{}
			for _, i := range o.Images {
				out.Images = append(out.Images, model.CheckImage{Alt: i.Alt, ImageURL: i.ImageURL, Caption: i.Caption})
			}
		}
		in.Output = out
	}
	if b.Actions != nil {
		list := []model.CheckAction{}
		for _, a := range *b.Actions {
			list = append(list, model.CheckAction{Label: a.Label, Description: a.Description, Identifier: a.Identifier})
		}
		in.Actions = &list
	}
	return in, nil
}

// pathID is a numeric path value; anything else names nothing.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// POST /repos/{owner}/{repo}/check-runs
func (a *API) createRun(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	var b runBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	in, err := b.input()
	if err != nil {
		return err
	}
	v, err := a.svc.CreateRun(r.Context(), repo, perm, rest.Caller(r).UserID(), in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToCheckRun(repo, v.Run, v.Pulls, v.App))
}

// GET /repos/{owner}/{repo}/check-runs/{check_run_id}
func (a *API) getRun(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "check_run_id")
	if err != nil {
		return err
	}
	v, err := a.svc.Run(r.Context(), repo, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCheckRun(repo, v.Run, v.Pulls, v.App))
}

// PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}
func (a *API) updateRun(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathID(r, "check_run_id")
	if err != nil {
		return err
	}
	var b runBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	in, err := b.input()
	if err != nil {
		return err
	}
	v, err := a.svc.UpdateRun(r.Context(), repo, perm, rest.Caller(r).UserID(), id, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCheckRun(repo, v.Run, v.Pulls, v.App))
}

// GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations
func (a *API) listAnnotations(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "check_run_id")
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Annotations(r.Context(), repo, id, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCheckAnnotations(repo, list))
}

// POST /repos/{owner}/{repo}/check-runs/{check_run_id}/rerequest
func (a *API) rerequestRun(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathID(r, "check_run_id")
	if err != nil {
		return err
	}
	if err := a.svc.RerequestRun(r.Context(), repo, perm, rest.Caller(r).UserID(), id); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, struct{}{})
}

// runQuery reads the filters of the run lists.
func runQuery(r *http.Request) (svc.RunQuery, error) {
	q := r.URL.Query()
	var f svc.RunQuery
	if q.Has("check_name") {
		n := q.Get("check_name")
		f.Name = &n
	}
	switch st := q.Get("status"); st {
	case "", model.CheckQueued, model.CheckInProgress, model.CheckCompleted:
		f.Status = st
	default:
		return f, &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckRun", Field: "status", Code: "invalid", Value: st}}}
	}
	switch fl := q.Get("filter"); fl {
	case "", "latest":
	case "all":
		f.All = true
	default:
		return f, &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckRun", Field: "filter", Code: "invalid", Value: fl}}}
	}
	id, err := appID(r)
	f.AppID = id
	return f, err
}

func appID(r *http.Request) (*int64, error) {
	s := r.URL.Query().Get("app_id")
	if s == "" {
		return nil, nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "CheckRun", Field: "app_id", Code: "invalid", Value: s}}}
	}
	return &id, nil
}

// GET /repos/{owner}/{repo}/check-suites/{check_suite_id}/check-runs
func (a *API) listForSuite(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "check_suite_id")
	if err != nil {
		return err
	}
	f, err := runQuery(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	page, err := a.svc.RunsForSuite(r.Context(), repo, id, f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, page.Total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCheckRunList(repo, page.Runs, page.Total, page.Pulls, page.Apps))
}

// GET /repos/{owner}/{repo}/commits/{ref}/check-runs
func (a *API) listForRef(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	f, err := runQuery(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	page, err := a.svc.RunsForRef(r.Context(), repo, r.PathValue("ref"), f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, page.Total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCheckRunList(repo, page.Runs, page.Total, page.Pulls, page.Apps))
}

type suiteBody struct {
	HeadSHA string `json:"head_sha"`
}

// POST /repos/{owner}/{repo}/check-suites
func (a *API) createSuite(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	var b suiteBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	page, created, err := a.svc.CreateSuite(r.Context(), repo, perm, rest.Caller(r).UserID(), b.HeadSHA)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s := page.Suites[0]
	return rest.JSON(w, status, a.d.URLs.ToCheckSuite(repo, s, page.Commits[s.HeadSHA], page.Pulls[s.HeadSHA], page.Apps[s.AppID]))
}

type preferencesBody struct {
	AutoTriggerChecks []struct {
		AppID   int64 `json:"app_id"`
		Setting *bool `json:"setting"`
	} `json:"auto_trigger_checks"`
}

// PATCH /repos/{owner}/{repo}/check-suites/preferences
func (a *API) setPreferences(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	var b preferencesBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	prefs := make([]model.CheckPreference, 0, len(b.AutoTriggerChecks))
	for _, p := range b.AutoTriggerChecks {
		on := true // the schema's default
		if p.Setting != nil {
			on = *p.Setting
		}
		prefs = append(prefs, model.CheckPreference{AppID: p.AppID, Setting: on})
	}
	out, err := a.svc.SetPreferences(r.Context(), repo, perm, rest.Caller(r).UserID(), prefs)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCheckSuitePreference(repo, out))
}

// GET /repos/{owner}/{repo}/check-suites/{check_suite_id}
func (a *API) getSuite(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "check_suite_id")
	if err != nil {
		return err
	}
	page, err := a.svc.Suite(r.Context(), repo, id)
	if err != nil {
		return err
	}
	s := page.Suites[0]
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCheckSuite(repo, s, page.Commits[s.HeadSHA], page.Pulls[s.HeadSHA], page.Apps[s.AppID]))
}

// POST /repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest
func (a *API) rerequestSuite(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathID(r, "check_suite_id")
	if err != nil {
		return err
	}
	if err := a.svc.RerequestSuite(r.Context(), repo, perm, rest.Caller(r).UserID(), id); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, struct{}{})
}

// GET /repos/{owner}/{repo}/commits/{ref}/check-suites
func (a *API) listSuitesForRef(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	var name *string
	if q := r.URL.Query(); q.Has("check_name") {
		n := q.Get("check_name")
		name = &n
	}
	app, err := appID(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	page, err := a.svc.SuitesForRef(r.Context(), repo, r.PathValue("ref"), app, name, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, page.Total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCheckSuiteList(repo, page.Suites, page.Total, page.Commits, page.Pulls, page.Apps))
}
