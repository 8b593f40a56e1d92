package issues

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	issuesvc "github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// label loads the {name} label of the repository.
func (a *API) labelByName(r *http.Request, x *access) (*model.Label, error) {
	return a.d.Store.R().LabelByName(r.Context(), x.Repo.ID, r.PathValue("name"))
}

// GET /repos/{owner}/{repo}/labels
func (a *API) listLabels(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListLabels(r.Context(), x.Repo.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToLabels(x.Repo, list))
}

type labelBody struct {
	Name        *string          `json:"name"`
	NewName     *string          `json:"new_name"`
	Color       *string          `json:"color"`
	Description rest.Opt[string] `json:"description"`
}

// input is the label the body gives.
func (in *labelBody) input() issuesvc.LabelInput {
	l := issuesvc.LabelInput{Name: in.Name, NewName: in.NewName, Color: in.Color, DescriptionSet: in.Description.Set}
	if d, ok := in.Description.Get(); ok {
		l.Description = &d
	}
	return l
}

// POST /repos/{owner}/{repo}/labels: write access; the colour defaults to
// GitHub's grey and is six hex digits without "#".
func (a *API) createLabel(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in labelBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	l, err := a.svc.CreateLabel(r.Context(), x, in.input())
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.d.URLs.LabelURL(x.Repo, l.Name))
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToLabel(x.Repo, l))
}

// GET /repos/{owner}/{repo}/labels/{name}: the name ignores case.
func (a *API) getLabel(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	l, err := a.labelByName(r, x)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToLabel(x.Repo, l))
}

// PATCH /repos/{owner}/{repo}/labels/{name}: write access.
func (a *API) updateLabel(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in labelBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	l, err := a.svc.UpdateLabel(r.Context(), x, r.PathValue("name"), in.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToLabel(x.Repo, l))
}

// DELETE /repos/{owner}/{repo}/labels/{name}: write access; the label
// leaves every issue.
func (a *API) deleteLabel(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteLabel(r.Context(), x, r.PathValue("name")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /repos/{owner}/{repo}/issues/{issue_number}/labels
func (a *API) listIssueLabels(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListIssueLabels(r.Context(), is.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToLabels(x.Repo, list))
}

// labelsIn reads the bodies of add-labels and set-labels: {"labels":
// [...]}, a bare array of labels, or a single label name.
func labelsIn(r *http.Request) ([]string, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &model.HTTPError{Status: http.StatusRequestEntityTooLarge, Message: "Payload Too Large"}
		}
		return nil, model.BadRequest("Problems parsing JSON")
	}
	data = bytes.TrimSpace(data)
	var list []nameIn
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &list); err != nil {
			if !json.Valid(data) {
				return nil, model.BadRequest("Problems parsing JSON")
			}
			return nil, model.Unprocessable("Invalid request.\n\nFor 'items', the labels are not strings.")
		}
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, model.BadRequest("Problems parsing JSON")
		}
		list = []nameIn{{Name: s}}
	default:
		var in struct {
			Labels []nameIn `json:"labels"`
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		if err := rest.Decode(r, &in); err != nil {
			return nil, err
		}
		list = in.Labels
	}
	return names(list), nil
}

// changeLabels runs a label change of an issue (triage access) and answers
// with the issue's labels.
func (a *API) changeLabels(w http.ResponseWriter, r *http.Request, replace bool) error {
	x, err := a.openWritable(r, authz.Triage)
	if err != nil {
		return err
	}
	list, err := labelsIn(r)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	change := a.svc.AddLabels
	if replace {
		change = a.svc.ReplaceLabels
	}
	if err := change(r.Context(), x, is.ID, list); err != nil {
		return err
	}
	return a.issueLabels(w, r, x, is.ID)
}

// issueLabels answers with all the labels of issue id.
func (a *API) issueLabels(w http.ResponseWriter, r *http.Request, x *access, id int64) error {
	all, err := a.d.Store.R().IssueLabels(r.Context(), id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToLabels(x.Repo, all))
}

// POST /repos/{owner}/{repo}/issues/{issue_number}/labels: triage access;
// unknown labels are created.
func (a *API) addLabels(w http.ResponseWriter, r *http.Request) error {
	return a.changeLabels(w, r, false)
}

// PUT /repos/{owner}/{repo}/issues/{issue_number}/labels: triage access.
func (a *API) replaceLabels(w http.ResponseWriter, r *http.Request) error {
	return a.changeLabels(w, r, true)
}

// DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels: triage access.
func (a *API) removeAllLabels(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Triage)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.ReplaceLabels(r.Context(), x, is.ID, nil); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}: triage
// access; answers with the labels left.
func (a *API) removeLabel(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Triage)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveLabel(r.Context(), x, is.ID, r.PathValue("name")); err != nil {
		return err
	}
	return a.issueLabels(w, r, x, is.ID)
}

// GET /repos/{owner}/{repo}/milestones/{milestone_number}/labels: the
// labels of the milestone's issues.
func (a *API) listMilestoneLabels(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	m, err := a.milestone(r, x)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListMilestoneLabels(r.Context(), m.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToLabels(x.Repo, list))
}
