package issues

import (
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

func (a *API) writeValues(w http.ResponseWriter, r *http.Request, replace bool) error {
	x, err := a.openWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in struct {
		Values *[]issuesvc.FieldValueIn `json:"issue_field_values"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Values == nil {
		return model.Invalid("IssueFieldValue", "issue_field_values", "missing_field")
	}
	if x.Org() == 0 {
		return model.Custom("IssueFieldValue", "issue_field_values", "Issue fields are only available for repositories owned by organizations.")
	}
	ctx := r.Context()
	values, err := a.svc.ResolveFieldValues(ctx, x, *in.Values)
	if err != nil {
		return err
	}
	var is *model.Issue
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if is, err = a.issue(r, tx, x); err != nil {
			return err
		}
		if err := issuesvc.WriteFieldValues(ctx, tx, x, is, x.Caller.UserID(), values, replace || len(values) == 0); err != nil {
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
		p := issuesvc.IssuePayload(is, "field_value_deleted")
		p["field_id"] = fieldID
		if err := tx.AppendEvent(ctx, "issues.field_value_deleted", x.Caller.UserID(), x.Repo.ID, x.Org(), p); err != nil {
			return err
		}
		return tx.TouchIssue(ctx, is)
	})
	if err != nil {
		return err
	}
	return rest.NoContent(w)
}
