package issues

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	issuesvc "github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Issue field values: organizations define fields (text, number, date,
// single_select); issues of their repositories carry one value per field.

// fieldValues lists an issue's values the caller may see: fields visible
// to organization members only are shown to them alone.
func (a *API) fieldValues(r *http.Request, x *access, is *model.Issue) ([]wire.IssueFieldValue, error) {
	ctx := r.Context()
	out := []wire.IssueFieldValue{}
	if x.Org() == 0 {
		return out, nil
	}
	list, err := a.d.Store.R().IssueFieldValues(ctx, x.Org(), is.ID)
	if err != nil {
		return nil, err
	}
	member := false
	if uid := x.Caller.UserID(); uid != 0 {
		m, err := a.d.Store.R().Membership(ctx, x.Org(), uid)
		member = err == nil && m.State == store.StateActive
	}
	for _, v := range list {
		if v.Field.Visibility == "organization_members_only" && !member {
			continue
		}
		out = append(out, wire.ToIssueFieldValue(v))
	}
	return out, nil
}

// GET /repos/{owner}/{repo}/issues/{issue_number}/issue-field-values
func (a *API) listFieldValues(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	out, err := a.fieldValues(r, x, is)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	total := len(out)
	out = out[min(p.Offset(), total):min(p.Offset()+p.Limit(), total)]
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// POST /repos/{owner}/{repo}/issues/{issue_number}/issue-field-values:
// write access; sets the given values (an empty list clears them all).
func (a *API) addFieldValues(w http.ResponseWriter, r *http.Request) error {
	return a.writeValues(w, r, false)
}

// PUT /repos/{owner}/{repo}/issues/{issue_number}/issue-field-values:
// write access; replaces all values.
func (a *API) setFieldValues(w http.ResponseWriter, r *http.Request) error {
	return a.writeValues(w, r, true)
}

// fieldValueIn is an item of issue_field_values.
type fieldValueIn struct {
	FieldID *int64          `json:"field_id"`
	Value   json.RawMessage `json:"value"`
}

// fieldInputs decodes the items' values for the service (numbers keep
// their text as json.Number).
func fieldInputs(in []fieldValueIn) []issuesvc.FieldValueInput {
	out := make([]issuesvc.FieldValueInput, len(in))
	for i, v := range in {
		out[i].FieldID = v.FieldID
		if len(v.Value) > 0 {
			d := json.NewDecoder(bytes.NewReader(v.Value))
			d.UseNumber()
			_ = d.Decode(&out[i].Value) // the body decoded, so its values are JSON
		}
	}
	return out
}

func (a *API) writeValues(w http.ResponseWriter, r *http.Request, replace bool) error {
	x, err := a.openWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in struct {
		Values *[]fieldValueIn `json:"issue_field_values"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Values == nil {
		return model.Invalid("IssueFieldValue", "issue_field_values", "missing_field")
	}
	ctx := r.Context()
	values, err := a.svc.ResolveFieldValues(ctx, x, fieldInputs(*in.Values))
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.SetFieldValues(ctx, x, is.ID, values, replace); err != nil {
		return err
	}
	out, err := a.fieldValues(r, x, is)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

// DELETE /repos/{owner}/{repo}/issues/{issue_number}/issue-field-values/{issue_field_id}:
// write access; 404 when the issue has no value for the field.
func (a *API) deleteFieldValue(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Write)
	if err != nil {
		return err
	}
	fieldID, err := pathInt(r, "issue_field_id")
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteFieldValue(r.Context(), x, is.ID, fieldID); err != nil {
		return err
	}
	return rest.NoContent(w)
}
