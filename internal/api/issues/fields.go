package issues

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Issue field values: organizations define fields (text, number, date,
// single_select); issues of their repositories carry one value per field.

// maxFieldValues is GitHub's limit of values per request.
const maxFieldValues = 25

type fieldValueIn struct {
	FieldID *int64          `json:"field_id"`
	Value   json.RawMessage `json:"value"`
}

func invalidField(field string, v any) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "IssueFieldValue", Field: field, Code: "invalid", Value: v}}}
}

// resolveFieldValues checks values against the organization's fields.
// Repositories of users have no fields: their values are dropped.
func (a *API) resolveFieldValues(ctx context.Context, x *access, in []fieldValueIn) ([]*model.IssueFieldValue, error) {
	org := x.org()
	if org == 0 || len(in) == 0 {
		return nil, nil
	}
	if len(in) > maxFieldValues {
		return nil, model.Custom("IssueFieldValue", "issue_field_values", "At most 25 issue field values may be given.")
	}
	ids := make([]int64, 0, len(in))
	for _, v := range in {
		if v.FieldID == nil {
			return nil, model.Invalid("IssueFieldValue", "field_id", "missing_field")
		}
		ids = append(ids, *v.FieldID)
	}
	fields, err := a.d.Store.R().IssueFields(ctx, org, ids)
	if err != nil {
		return nil, err
	}
	byField := map[int64]*model.IssueFieldValue{}
	var order []int64
	for _, v := range in {
		f := fields[*v.FieldID]
		if f == nil {
			return nil, invalidField("field_id", *v.FieldID)
		}
		val := &model.IssueFieldValue{Field: f}
		if len(v.Value) == 0 || string(v.Value) == "null" {
			return nil, model.Invalid("IssueFieldValue", "value", "missing_field")
		}
		var s string
		isString := json.Unmarshal(v.Value, &s) == nil
		switch f.DataType {
		case "text":
			if !isString {
				return nil, invalidField("value", json.RawMessage(v.Value))
			}
			val.Text = &s
		case "number":
			var n float64
			if err := json.Unmarshal(v.Value, &n); err != nil {
				return nil, invalidField("value", json.RawMessage(v.Value))
			}
			val.Number = &n
		case "date":
			t, err := time.Parse("2006-01-02", s)
			if err != nil {
				if t, err = time.Parse(time.RFC3339, s); err != nil || !isString {
					return nil, invalidField("value", json.RawMessage(v.Value))
				}
			}
			d := t.Format("2006-01-02")
			val.Text = &d
		case "single_select":
			for _, o := range f.Options {
				if isString && strings.EqualFold(o.Name, s) {
					val.Option = o
				}
			}
			if val.Option == nil {
				return nil, invalidField("value", json.RawMessage(v.Value))
			}
		default:
			return nil, invalidField("field_id", *v.FieldID)
		}
		if byField[f.ID] == nil {
			order = append(order, f.ID)
		}
		byField[f.ID] = val
	}
	out := make([]*model.IssueFieldValue, 0, len(order))
	for _, id := range order {
		out = append(out, byField[id])
	}
	return out, nil
}

// writeFieldValues sets values on an issue (after removing all others when
// replace) and records the change.
func writeFieldValues(ctx context.Context, tx store.Q, x *access, is *model.Issue, actor int64, values []*model.IssueFieldValue, replace bool) error {
	if replace {
		if err := tx.ClearIssueFieldValues(ctx, is.ID); err != nil {
			return err
		}
	}
	if len(values) == 0 && !replace {
		return nil
	}
	ids := make([]int64, 0, len(values))
	for _, v := range values {
		v.IssueID = is.ID
		if err := tx.SetIssueFieldValue(ctx, v); err != nil {
			return err
		}
		ids = append(ids, v.Field.ID)
	}
	p := issuePayload(is, "field_values_changed")
	p["field_ids"], p["replaced"] = ids, replace
	return tx.AppendEvent(ctx, "issues.field_values_changed", actor, x.repo.ID, x.org(), p)
}

// fieldValues lists an issue's values the caller may see: fields visible
// to organization members only are shown to them alone.
func (a *API) fieldValues(r *http.Request, x *access, is *model.Issue) ([]wire.IssueFieldValue, error) {
	ctx := r.Context()
	out := []wire.IssueFieldValue{}
	if x.org() == 0 {
		return out, nil
	}
	list, err := a.d.Store.R().IssueFieldValues(ctx, x.org(), is.ID)
	if err != nil {
		return nil, err
	}
	member := false
	if uid := x.c.UserID(); uid != 0 {
		m, err := a.d.Store.R().Membership(ctx, x.org(), uid)
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
	if x.org() == 0 {
		return model.Custom("IssueFieldValue", "issue_field_values", "Issue fields are only available for repositories owned by organizations.")
	}
	ctx := r.Context()
	values, err := a.resolveFieldValues(ctx, x, *in.Values)
	if err != nil {
		return err
	}
	var is *model.Issue
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if is, err = a.issue(r, tx, x); err != nil {
			return err
		}
		if err := writeFieldValues(ctx, tx, x, is, x.c.UserID(), values, replace || len(values) == 0); err != nil {
			return err
		}
		return tx.TouchIssue(ctx, is)
	})
	if err != nil {
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
	ctx := r.Context()
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		is, err := a.issue(r, tx, x)
		if err != nil {
			return err
		}
		ok, err := tx.DeleteIssueFieldValue(ctx, is.ID, fieldID)
		if err != nil {
			return err
		}
		if !ok {
			return model.ErrNotFound
		}
		p := issuePayload(is, "field_value_deleted")
		p["field_id"] = fieldID
		if err := tx.AppendEvent(ctx, "issues.field_value_deleted", x.c.UserID(), x.repo.ID, x.org(), p); err != nil {
			return err
		}
		return tx.TouchIssue(ctx, is)
	})
	if err != nil {
		return err
	}
	return rest.NoContent(w)
}
