package projects

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// optionID is a new single select option or iteration id (8 hex digits,
// GitHub's shape).
func optionID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

var colors = map[string]bool{"BLUE": true, "GRAY": true, "GREEN": true, "ORANGE": true, "PINK": true, "PURPLE": true, "RED": true, "YELLOW": true}

// FieldInput is a new custom field.
type FieldInput struct {
	Name      string
	DataType  string // text, number, date, single_select, iteration
	Options   []model.ProjectOption
	Iteration *model.ProjectIterations
}

// CreateField adds a custom field (write).
func (s *Service) CreateField(ctx context.Context, c *authz.Caller, p *Project, in FieldInput) (*model.ProjectField, error) {
	if p.Perm < authz.Write {
		return nil, model.Forbidden("You do not have permission to update this project.")
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, model.Invalid("ProjectV2Field", "name", "missing_field")
	}
	f := &model.ProjectField{ProjectID: p.ID, Name: name, DataType: in.DataType}
	switch in.DataType {
	case "text", "number", "date":
	case "single_select":
		if len(in.Options) == 0 {
			return nil, model.Custom("ProjectV2Field", "single_select_options", "At least one option must be provided when creating a single select field.")
		}
		for _, o := range in.Options {
			if strings.TrimSpace(o.Name) == "" {
				return nil, model.Custom("ProjectV2Field", "single_select_options", "Option names can't be blank.")
			}
			if o.Color == "" {
				o.Color = "GRAY"
			}
			if !colors[o.Color] {
				return nil, model.Custom("ProjectV2Field", "single_select_options", fmt.Sprintf("Invalid color '%s'.", o.Color))
			}
			o.ID = optionID()
			f.Options = append(f.Options, o)
		}
	case "iteration":
		it := in.Iteration
		if it == nil || it.Duration < 1 {
			return nil, model.Custom("ProjectV2Field", "iteration_configuration", "Duration must be at least 1 day.")
		}
		cfg := &model.ProjectIterations{StartDay: it.StartDay, Duration: it.Duration}
		for _, i := range it.Iterations {
			if _, err := time.Parse(time.DateOnly, i.StartDate); err != nil {
				return nil, model.Custom("ProjectV2Field", "iteration_configuration", fmt.Sprintf("Invalid start_date '%s'.", i.StartDate))
			}
			if i.Duration < 1 {
				i.Duration = it.Duration
			}
			i.ID = optionID()
			cfg.Iterations = append(cfg.Iterations, i)
		}
		f.Iteration = cfg
	default:
		return nil, model.Invalid("ProjectV2Field", "data_type", "invalid")
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		fields, err := tx.ProjectFields(ctx, p.ID)
		if err != nil {
			return err
		}
		if len(fields) >= 50 {
			return model.Custom("ProjectV2Field", "name", "Projects can have at most 50 fields.")
		}
		for _, o := range fields {
			if strings.EqualFold(o.Name, name) {
				return &model.ValidationError{Errors: []model.FieldError{{Resource: "ProjectV2Field", Field: "name", Code: "already_exists", Value: name}}}
			}
		}
		if err := tx.CreateProjectField(ctx, f); err != nil {
			return err
		}
		return tx.TouchProject(ctx, p.ID)
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// DeleteField deletes a custom field with its values (write); built-in
// fields stay.
func (s *Service) DeleteField(ctx context.Context, c *authz.Caller, p *Project, f *model.ProjectField) error {
	if p.Perm < authz.Write {
		return model.Forbidden("You do not have permission to update this project.")
	}
	if Builtin(f.DataType) || f.Name == "Status" && f.DataType == "single_select" && f.Position == 3 {
		return model.Unprocessable("Built-in fields cannot be deleted.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteProjectField(ctx, f.ID); err != nil {
			return err
		}
		return tx.TouchProject(ctx, p.ID)
	})
}

// AddIssue adds an issue or pull request to a project (write on the
// project; the caller must see the issue). An issue already there gives
// its item.
func (s *Service) AddIssue(ctx context.Context, c *authz.Caller, p *Project, is *model.Issue) (*model.ProjectItem, error) {
	if p.Perm < authz.Write {
		return nil, model.Forbidden("You do not have permission to update this project.")
	}
	it := &model.ProjectItem{ProjectID: p.ID, ContentType: "Issue", IssueID: is.ID, CreatorID: c.UserID()}
	if is.IsPull {
		it.ContentType = "PullRequest"
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		err := tx.AddProjectItem(ctx, it)
		if errors.Is(err, store.ErrDuplicate) {
			return err
		}
		if err != nil {
			return err
		}
		if err := tx.TouchProject(ctx, p.ID); err != nil {
			return err
		}
		return s.itemEvent(ctx, tx, c, p, it, "created", nil)
	})
	if errors.Is(err, store.ErrDuplicate) {
		return s.Store.R().ProjectItemOfIssue(ctx, p.ID, is.ID)
	}
	return it, err
}

// AddDraft adds a draft issue (write).
func (s *Service) AddDraft(ctx context.Context, c *authz.Caller, p *Project, title, body string) (*model.ProjectItem, error) {
	if p.Perm < authz.Write {
		return nil, model.Forbidden("You do not have permission to update this project.")
	}
	if strings.TrimSpace(title) == "" {
		return nil, model.Invalid("DraftIssue", "title", "missing_field")
	}
	it := &model.ProjectItem{ProjectID: p.ID, ContentType: "DraftIssue", DraftTitle: title, DraftBody: body, CreatorID: c.UserID()}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.AddProjectItem(ctx, it); err != nil {
			return err
		}
		if err := tx.TouchProject(ctx, p.ID); err != nil {
			return err
		}
		return s.itemEvent(ctx, tx, c, p, it, "created", nil)
	})
	return it, err
}

// Item is item id of a project.
func (s *Service) Item(ctx context.Context, p *Project, id int64) (*model.ProjectItem, error) {
	return s.Store.R().ProjectItemByID(ctx, p.ID, id)
}

// DeleteItem removes an item (write).
func (s *Service) DeleteItem(ctx context.Context, c *authz.Caller, p *Project, it *model.ProjectItem) error {
	if p.Perm < authz.Write {
		return model.Forbidden("You do not have permission to update this project.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.itemEvent(ctx, tx, c, p, it, "deleted", nil); err != nil {
			return err
		}
		if err := tx.DeleteProjectItem(ctx, it.ID); err != nil {
			return err
		}
		return tx.TouchProject(ctx, p.ID)
	})
}

// Archive archives or restores an item (write).
func (s *Service) Archive(ctx context.Context, c *authz.Caller, p *Project, it *model.ProjectItem, archived bool) error {
	if p.Perm < authz.Write {
		return model.Forbidden("You do not have permission to update this project.")
	}
	if archived == (it.ArchivedAt != nil) {
		return nil
	}
	action, from := "restored", it.ArchivedAt
	if archived {
		now := s.Store.Now()
		it.ArchivedAt, action = &now, "archived"
	} else {
		it.ArchivedAt = nil
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateProjectItem(ctx, it); err != nil {
			return err
		}
		return s.itemEvent(ctx, tx, c, p, it, action, map[string]any{"archived_at": map[string]any{"from": from, "to": it.ArchivedAt}})
	})
}

// EditDraft changes a draft issue's title and body (write).
func (s *Service) EditDraft(ctx context.Context, c *authz.Caller, p *Project, it *model.ProjectItem, title, body *string) error {
	if p.Perm < authz.Write {
		return model.Forbidden("You do not have permission to update this project.")
	}
	if it.ContentType != "DraftIssue" {
		return model.Unprocessable("Only draft issues can be edited through the project.")
	}
	if title != nil {
		if strings.TrimSpace(*title) == "" {
			return model.Invalid("DraftIssue", "title", "missing_field")
		}
		it.DraftTitle = *title
	}
	if body != nil {
		it.DraftBody = *body
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateProjectItem(ctx, it); err != nil {
			return err
		}
		return s.itemEvent(ctx, tx, c, p, it, "edited", nil)
	})
}

// Value is a new value of a field: nil clears it; text, number and date
// fields take their value, single select fields an option id and
// iteration fields an iteration id.
type Value struct {
	FieldID int64
	Value   any // string, float64, nil
}

// SetValues sets (or clears) field values of an item in one transaction
// (write); every value is checked before anything is written.
func (s *Service) SetValues(ctx context.Context, c *authz.Caller, p *Project, it *model.ProjectItem, vals []Value) error {
	if p.Perm < authz.Write {
		return model.Forbidden("You do not have permission to update this project.")
	}
	if len(vals) == 0 {
		return nil
	}
	fields, err := s.Store.R().ProjectFields(ctx, p.ID)
	if err != nil {
		return err
	}
	byID := map[int64]*model.ProjectField{}
	for _, f := range fields {
		byID[f.ID] = f
	}
	type op struct {
		f     *model.ProjectField
		v     *model.ProjectValue
		title *string
	}
	var ops []op
	for _, v := range vals {
		f := byID[v.FieldID]
		if f == nil {
			return model.Custom("ProjectV2ItemFieldValue", "fields", fmt.Sprintf("Field %d does not exist in this project.", v.FieldID))
		}
		if v.Value == nil {
			if f.DataType == "title" {
				return model.Custom("ProjectV2ItemFieldValue", "fields", "The title can't be blank.")
			}
			ops = append(ops, op{f: f})
			continue
		}
		pv, title, err := parseValue(f, it, v.Value)
		if err != nil {
			return err
		}
		ops = append(ops, op{f: f, v: pv, title: title})
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		var changed []map[string]any
		for _, o := range ops {
			var err error
			switch {
			case o.title != nil:
				it.DraftTitle = *o.title
				err = tx.UpdateProjectItem(ctx, it)
			case o.v == nil:
				err = tx.ClearProjectValue(ctx, it.ID, o.f.ID)
			default:
				o.v.ItemID = it.ID
				err = tx.SetProjectValue(ctx, o.v)
			}
			if err != nil {
				return err
			}
			changed = append(changed, map[string]any{"field_id": o.f.ID, "field_type": o.f.DataType, "field_name": o.f.Name})
		}
		if err := tx.TouchProject(ctx, p.ID); err != nil {
			return err
		}
		for _, ch := range changed {
			if err := s.itemEvent(ctx, tx, c, p, it, "edited", ch); err != nil {
				return err
			}
		}
		return nil
	})
}

// parseValue checks a value against its field.
func parseValue(f *model.ProjectField, it *model.ProjectItem, v any) (*model.ProjectValue, *string, error) {
	bad := func(msg string) error {
		return model.Custom("ProjectV2ItemFieldValue", "fields", msg)
	}
	pv := &model.ProjectValue{FieldID: f.ID}
	str, isStr := v.(string)
	switch f.DataType {
	case "title":
		if it.ContentType != "DraftIssue" {
			return nil, nil, bad("The title of an issue or pull request is changed on the issue or pull request.")
		}
		if !isStr || strings.TrimSpace(str) == "" {
			return nil, nil, bad("The title must be a non-empty string.")
		}
		return nil, &str, nil
	case "text":
		if !isStr {
			return nil, nil, bad(fmt.Sprintf("The value of %s must be a string.", f.Name))
		}
		if len(str) > 1024 {
			return nil, nil, bad(fmt.Sprintf("The value of %s is too long (maximum is 1024 characters).", f.Name))
		}
		pv.Text = str
	case "number":
		var n float64
		switch x := v.(type) {
		case float64:
			n = x
		case string:
			var err error
			if n, err = strconv.ParseFloat(x, 64); err != nil {
				return nil, nil, bad(fmt.Sprintf("The value of %s must be a number.", f.Name))
			}
		default:
			return nil, nil, bad(fmt.Sprintf("The value of %s must be a number.", f.Name))
		}
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, nil, bad(fmt.Sprintf("The value of %s must be a number.", f.Name))
		}
		pv.Number = &n
	case "date":
		d, ok := parseDate(str)
		if !isStr || !ok {
			return nil, nil, bad(fmt.Sprintf("The value of %s must be a date (YYYY-MM-DD).", f.Name))
		}
		pv.Text = d
	case "single_select":
		for _, o := range f.Options {
			if isStr && o.ID == str {
				pv.Text = str
				return pv, nil, nil
			}
		}
		return nil, nil, bad(fmt.Sprintf("The option %v does not exist in %s.", v, f.Name))
	case "iteration":
		if f.Iteration != nil {
			for _, i := range f.Iteration.Iterations {
				if isStr && i.ID == str {
					pv.Text = str
					return pv, nil, nil
				}
			}
		}
		return nil, nil, bad(fmt.Sprintf("The iteration %v does not exist in %s.", v, f.Name))
	default:
		return nil, nil, bad(fmt.Sprintf("The field %s can't be updated through the project.", f.Name))
	}
	return pv, nil, nil
}

func parseDate(s string) (string, bool) {
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateOnly), true
		}
	}
	return "", false
}

func (s *Service) itemEvent(ctx context.Context, tx store.Q, c *authz.Caller, p *Project, it *model.ProjectItem, action string, changes map[string]any) error {
	payload := map[string]any{"project_id": p.ID, "project_number": p.Number, "item_id": it.ID, "webhook": map[string]any{"item": *it}}
	if changes != nil {
		payload["changes"] = changes
	}
	return s.event(ctx, tx, c, p.Owner, "projects_v2_item", action, payload)
}

// ViewInput is a new view.
type ViewInput struct {
	Name, Layout    string
	Filter          *string
	VisibleFields   []int64
	SortBy          [][2]any
	GroupBy         []int64
	VerticalGroupBy []int64
}

// CreateView adds a view (write); the fields it names must be the
// project's.
func (s *Service) CreateView(ctx context.Context, c *authz.Caller, p *Project, in ViewInput) (*model.ProjectView, error) {
	if p.Perm < authz.Write {
		return nil, model.Forbidden("You do not have permission to update this project.")
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, model.Invalid("ProjectV2View", "name", "missing_field")
	}
	switch in.Layout {
	case "table", "board", "roadmap":
	default:
		return nil, model.Invalid("ProjectV2View", "layout", "invalid")
	}
	fields, err := s.Store.R().ProjectFields(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	known := map[int64]*model.ProjectField{}
	for _, f := range fields {
		known[f.ID] = f
	}
	checkIDs := func(name string, ids []int64) error {
		for _, id := range ids {
			if known[id] == nil {
				return model.Custom("ProjectV2View", name, fmt.Sprintf("Field %d does not exist in this project.", id))
			}
		}
		return nil
	}
	if in.Layout == "roadmap" && len(in.VisibleFields) > 0 {
		return nil, model.Custom("ProjectV2View", "visible_fields", "visible_fields is not applicable to roadmap layout views.")
	}
	if err := checkIDs("visible_fields", in.VisibleFields); err != nil {
		return nil, err
	}
	if err := checkIDs("group_by", in.GroupBy); err != nil {
		return nil, err
	}
	if err := checkIDs("vertical_group_by", in.VerticalGroupBy); err != nil {
		return nil, err
	}
	if len(in.GroupBy) > 1 || len(in.VerticalGroupBy) > 1 {
		return nil, model.Custom("ProjectV2View", "group_by", "Views group by a single field.")
	}
	for _, id := range append(append([]int64{}, in.GroupBy...), in.VerticalGroupBy...) {
		switch known[id].DataType {
		case "title", "reviewers", "linked_pull_requests", "labels", "sub_issues_progress":
			return nil, model.Custom("ProjectV2View", "group_by", fmt.Sprintf("Field %s can't be used to group items.", known[id].Name))
		}
	}
	for _, sb := range in.SortBy {
		id, ok := sb[0].(int64)
		dir, _ := sb[1].(string)
		if !ok || known[id] == nil || dir != "asc" && dir != "desc" {
			return nil, model.Custom("ProjectV2View", "sort_by", "Each sort_by entry is [field_id, \"asc\" or \"desc\"] naming a field of the project.")
		}
	}
	v := &model.ProjectView{ProjectID: p.ID, Name: in.Name, Layout: in.Layout, Filter: in.Filter, VisibleFields: in.VisibleFields,
		SortBy: in.SortBy, GroupBy: in.GroupBy, VerticalGroupBy: in.VerticalGroupBy, CreatorID: c.UserID()}
	if v.VisibleFields == nil && in.Layout != "roadmap" {
		for _, f := range fields {
			if f.DataType == "title" || f.DataType == "assignees" || f.Name == "Status" {
				v.VisibleFields = append(v.VisibleFields, f.ID)
			}
		}
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateProjectView(ctx, v); err != nil {
			return err
		}
		return tx.TouchProject(ctx, p.ID)
	})
	return v, err
}

// LinkRepo links (or unlinks) a repository the caller may read to a
// project (write).
func (s *Service) LinkRepo(ctx context.Context, c *authz.Caller, p *Project, repo *model.Repo, link bool) error {
	if p.Perm < authz.Write {
		return model.Forbidden("You do not have permission to update this project.")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if link {
			return tx.LinkProjectRepo(ctx, p.ID, repo.ID)
		}
		return tx.UnlinkProjectRepo(ctx, p.ID, repo.ID)
	})
}
