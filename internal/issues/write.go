package issues

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/closing"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// The writes every issue operation shares: labels and assignees with their
// events, issue events, mentions and references of bodies, comments and
// field values.

// MaxAssignees is GitHub's limit of assignees per issue.
const MaxAssignees = 10

// IssueByNumber loads issue number of x's repository through q (the store
// or a transaction); a deleted issue's number answers 410, as on GitHub.
func (a *Service) IssueByNumber(ctx context.Context, q store.Q, x *Access, number int64) (*model.Issue, error) {
	return issueByNumber(ctx, q, x, number)
}

func issueByNumber(ctx context.Context, q store.Q, x *Access, number int64) (*model.Issue, error) {
	is, err := q.IssueByNumber(ctx, x.Repo.ID, number)
	if errors.Is(err, model.ErrNotFound) {
		if gone, derr := q.IssueDeleted(ctx, x.Repo.ID, number); derr != nil {
			return nil, derr
		} else if gone {
			return nil, model.Gone("This issue was deleted")
		}
	}
	return is, err
}

// ResolveAssignees finds the accounts of logins who may be assigned; a
// login that may not be is a 422 naming it, as are more than ten.
func (a *Service) ResolveAssignees(ctx context.Context, q store.Q, repoID int64, list []string) ([]*model.Account, error) {
	if len(list) > MaxAssignees {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "assignees", Code: "invalid",
			Message: "You can Assign up to 10 users to an issue."}}}
	}
	found, err := q.AssignableByLogin(ctx, repoID, list)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Account, 0, len(list))
	for _, l := range list {
		acc := found[strings.ToLower(l)]
		if acc == nil {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "assignees", Code: "invalid", Value: l}}}
		}
		out = append(out, acc)
	}
	return out, nil
}

// ensureLabels finds labels by name and creates the missing ones with
// GitHub's default colour, as applying an unknown label does on GitHub.
func ensureLabels(ctx context.Context, tx store.Q, x *Access, actor int64, list []string) ([]*model.Label, error) {
	found, err := tx.LabelsByName(ctx, x.Repo.ID, list)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Label, 0, len(list))
	for _, n := range list {
		l := found[strings.ToLower(n)]
		if l == nil {
			if err := validLabelName(n); err != nil {
				return nil, err
			}
			l = &model.Label{RepoID: x.Repo.ID, Name: n, Color: defaultColor}
			if err := tx.CreateLabel(ctx, l); err != nil {
				return nil, err
			}
			if err := tx.AppendEvent(ctx, "label.created", actor, x.Repo.ID, x.Org(), labelPayload(l)); err != nil {
				return nil, err
			}
			found[strings.ToLower(n)] = l
		}
		out = append(out, l)
	}
	return out, nil
}

// event appends an issue event (and its domain event).
func event(ctx context.Context, tx store.Q, x *Access, is *model.Issue, e model.IssueEvent, details map[string]any) error {
	e.RepoID, e.IssueID = x.Repo.ID, is.ID
	if details == nil {
		details = map[string]any{}
	}
	details["number"] = is.Number
	return tx.AddIssueEvent(ctx, &e, x.Org(), details)
}

// setLabels makes an issue's labels exactly list, recording labeled and
// unlabeled events; it reports whether anything changed.
func setLabels(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, list []*model.Label) (bool, error) {
	cur, err := tx.IssueLabels(ctx, is.ID)
	if err != nil {
		return false, err
	}
	want := map[int64]bool{}
	for _, l := range list {
		want[l.ID] = true
	}
	changed := false
	for _, l := range cur {
		if want[l.ID] {
			continue
		}
		ok, err := unlabel(ctx, tx, x, is, actor, l)
		if err != nil {
			return false, err
		}
		changed = changed || ok
	}
	for _, l := range list {
		ok, err := label(ctx, tx, x, is, actor, l)
		if err != nil {
			return false, err
		}
		changed = changed || ok
	}
	return changed, nil
}

// label puts label l on an issue with its event; false when it was there.
func label(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, l *model.Label) (bool, error) {
	ok, err := tx.AddIssueLabel(ctx, is.ID, l.ID)
	if err != nil || !ok {
		return false, err
	}
	return true, event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "labeled", LabelName: l.Name, LabelColor: l.Color},
		map[string]any{"label": l.Name})
}

// unlabel takes label l off an issue with its event; false when it was not there.
func unlabel(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, l *model.Label) (bool, error) {
	ok, err := tx.RemoveIssueLabel(ctx, is.ID, l.ID)
	if err != nil || !ok {
		return false, err
	}
	return true, event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "unlabeled", LabelName: l.Name, LabelColor: l.Color},
		map[string]any{"label": l.Name})
}

// setAssignees makes an issue's assignees exactly list, recording events.
func setAssignees(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, list []*model.Account) (bool, error) {
	cur, err := tx.IssueAssignees(ctx, is.ID)
	if err != nil {
		return false, err
	}
	want := map[int64]bool{}
	for _, u := range list {
		want[u.ID] = true
	}
	changed := false
	for _, u := range cur {
		if want[u.ID] {
			continue
		}
		ok, err := unassign(ctx, tx, x, is, actor, u)
		if err != nil {
			return false, err
		}
		changed = changed || ok
	}
	for _, u := range list {
		ok, err := assign(ctx, tx, x, is, actor, u)
		if err != nil {
			return false, err
		}
		changed = changed || ok
	}
	return changed, nil
}

// assign assigns u to an issue with its event; false when u was assigned.
func assign(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, u *model.Account) (bool, error) {
	ok, err := tx.AddIssueAssignee(ctx, is.ID, u.ID)
	if err != nil || !ok {
		return false, err
	}
	return true, event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "assigned", AssigneeID: u.ID, AssignerID: actor},
		map[string]any{"assignee": u.Login})
}

// unassign unassigns u from an issue with its event; false when u was not assigned.
func unassign(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, u *model.Account) (bool, error) {
	ok, err := tx.RemoveIssueAssignee(ctx, is.ID, u.ID)
	if err != nil || !ok {
		return false, err
	}
	return true, event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "unassigned", AssigneeID: u.ID, AssignerID: actor},
		map[string]any{"assignee": u.Login})
}

// issuePayload is the domain payload of issue-level events.
func issuePayload(is *model.Issue, action string) map[string]any {
	return map[string]any{"action": action, "issue_id": is.ID, "number": is.Number}
}

// defaultColor is the colour of labels created without one.
const defaultColor = "ededed"

// colorRE is a label colour: six hex digits without "#".
var colorRE = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)

// labelPayload is the domain payload of label events.
func labelPayload(l *model.Label) map[string]any {
	return map[string]any{"label_id": l.ID, "name": l.Name, "color": l.Color}
}

// validLabelName refuses an empty name or one over 50 characters.
func validLabelName(n string) error {
	if strings.TrimSpace(n) == "" {
		return model.Invalid("Label", "name", "missing_field")
	}
	if utf8.RuneCountInString(n) > 50 {
		return model.Custom("Label", "name", "name is too long (maximum is 50 characters)")
	}
	return nil
}

// validDescription refuses a label description over 100 characters.
func validDescription(d *string) error {
	if d != nil && utf8.RuneCountInString(*d) > 100 {
		return model.Custom("Label", "description", "description is too long (maximum is 100 characters)")
	}
	return nil
}

// errColor answers a colour that is not six hex digits.
func errColor(c string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "Label", Field: "color", Code: "invalid", Value: c}}}
}

// errLabelExists answers a name the repository's labels already use.
var errLabelExists = model.Invalid("Label", "name", "already_exists")

// noteBody records what a new or edited body mentions and references.
func (a *Service) noteBody(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, body *string) error {
	text := ""
	if body != nil {
		text = *body
	}
	if err := tx.SetIssueMentions(ctx, is.ID, mentions(text)); err != nil {
		return err
	}
	return closing.NoteBody(ctx, tx, a.d.URLs.Web, x.Repo, is, actor)
}

// sameStr says whether two optional strings are equal (both nil counts).
func sameStr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// commentPayload is the domain payload of issue comment events.
func commentPayload(c *model.IssueComment, action string) map[string]any {
	return map[string]any{"action": action, "comment_id": c.ID, "issue_id": c.IssueID, "number": c.IssueNumber}
}

// Comment comments on issue (or pull request) number in one
// transaction, with its event, mentions and cross references.
func (a *Service) Comment(ctx context.Context, x *Access, number int64, body string) (*model.IssueComment, error) {
	actor := x.Caller.UserID()
	c := &model.IssueComment{RepoID: x.Repo.ID, UserID: actor, Body: body}
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		is, err := tx.IssueByNumber(ctx, x.Repo.ID, number)
		if err != nil {
			return err
		}
		if is.Locked && x.Perm < authz.Write {
			return ErrLocked
		}
		c.IssueID, c.IssueNumber = is.ID, is.Number
		if err := tx.CreateComment(ctx, c); err != nil {
			return err
		}
		if err := event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "commented", SubjectID: c.ID},
			map[string]any{"comment_id": c.ID}); err != nil {
			return err
		}
		if err := tx.AddIssueMentions(ctx, is.ID, mentions(body)); err != nil {
			return err
		}
		return crossReference(ctx, tx, x, is, actor, body)
	})
	return c, err
}

// AddComment comments as POST .../issues/{number}/comments does (blocks,
// interaction limits, locked conversations and the body limit apply).
func (a *Service) AddComment(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, number int64, body string) (*model.IssueComment, error) {
	x, err := a.accessFor(c, repo, perm)
	if err != nil {
		return nil, err
	}
	if err := a.d.MayParticipate(ctx, repo, c.UserID(), "comment"); err != nil {
		return nil, err
	}
	text, err := commentText(&body)
	if err != nil {
		return nil, err
	}
	return a.Comment(ctx, x, number, text)
}

// maxFieldValues is GitHub's limit of values per request.
const maxFieldValues = 25

// FieldValueInput is a field value as a request gives it: the field's id
// and the value decoded from JSON (a string, a number as float64, int64 or
// json.Number, or nil when absent).
type FieldValueInput struct {
	FieldID *int64
	Value   any
}

// invalidField is the 422 of an issue field value's field.
func invalidField(field string, v any) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "IssueFieldValue", Field: field, Code: "invalid", Value: v}}}
}

// ResolveFieldValues checks values against the organization's fields.
// Repositories of users have no fields: their values are dropped.
func (a *Service) ResolveFieldValues(ctx context.Context, x *Access, in []FieldValueInput) ([]*model.IssueFieldValue, error) {
	org := x.Org()
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
		if v.Value == nil {
			return nil, model.Invalid("IssueFieldValue", "value", "missing_field")
		}
		s, isString := v.Value.(string)
		switch f.DataType {
		case "text":
			if !isString {
				return nil, invalidField("value", v.Value)
			}
			val.Text = &s
		case "number":
			n, ok := number(v.Value)
			if !ok {
				return nil, invalidField("value", v.Value)
			}
			val.Number = &n
		case "date":
			t, err := time.Parse("2006-01-02", s)
			if err != nil {
				if t, err = time.Parse(time.RFC3339, s); err != nil || !isString {
					return nil, invalidField("value", v.Value)
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
				return nil, invalidField("value", v.Value)
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

// number is a decoded JSON number as float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// writeFieldValues sets values on an issue (after removing all others when
// replace) and records the change.
func writeFieldValues(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, values []*model.IssueFieldValue, replace bool) error {
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
	return tx.AppendEvent(ctx, "issues.field_values_changed", actor, x.Repo.ID, x.Org(), p)
}

// commentText is a comment's body as given (nil when absent), checked.
func commentText(body *string) (string, error) {
	if body == nil || strings.TrimSpace(*body) == "" {
		return "", model.Invalid("IssueComment", "body", "missing_field")
	}
	return *body, checkCommentBody(*body)
}

// SetFieldValues sets values (ResolveFieldValues's) on issue id of x's
// repository, as POST .../issue-field-values does, or — replace, as PUT
// does — makes them its only values; an empty list clears them all. Write
// access; repositories of organizations only. Domain event
// issues.field_values_changed.
func (a *Service) SetFieldValues(ctx context.Context, x *Access, id int64, values []*model.IssueFieldValue, replace bool) error {
	if err := x.require(authz.Write); err != nil {
		return err
	}
	if x.Org() == 0 {
		return errUserFields
	}
	return a.onIssue(ctx, x, id, func(tx store.Q, is *model.Issue) (bool, error) {
		return true, writeFieldValues(ctx, tx, x, is, x.Caller.UserID(), values, replace || len(values) == 0)
	})
}

// DeleteFieldValue removes issue id's value of field fieldID, as DELETE
// .../issue-field-values/{issue_field_id} does: write access; not found
// when the issue has no value for it. Domain event
// issues.field_value_deleted.
func (a *Service) DeleteFieldValue(ctx context.Context, x *Access, id, fieldID int64) error {
	if err := x.require(authz.Write); err != nil {
		return err
	}
	return a.onIssue(ctx, x, id, func(tx store.Q, is *model.Issue) (bool, error) {
		ok, err := tx.DeleteIssueFieldValue(ctx, is.ID, fieldID)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, model.ErrNotFound
		}
		p := issuePayload(is, "field_value_deleted")
		p["field_id"] = fieldID
		return true, tx.AppendEvent(ctx, "issues.field_value_deleted", x.Caller.UserID(), x.Repo.ID, x.Org(), p)
	})
}

// errUserFields answers field values on a repository of a user.
var errUserFields = model.Custom("IssueFieldValue", "issue_field_values", "Issue fields are only available for repositories owned by organizations.")
