package projects

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

func parseDate(s string) (time.Time, error) { return time.Parse(time.DateOnly, s) }

// fieldsParam reads fields: field ids, comma separated or repeated
// (fields[]=); nil when absent (the title only, as on GitHub).
func fieldsParam(r *http.Request) ([]int64, error) {
	q := r.URL.Query()
	var out []int64
	for _, v := range append(q["fields"], q["fields[]"]...) {
		for _, s := range strings.Split(v, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n <= 0 {
				return nil, model.Unprocessable("Invalid field id '" + s + "'.")
			}
			out = append(out, n)
		}
	}
	return out, nil
}

// render converts loaded items; withFields adds the values of the fields
// named (the title when none is).
func (a *API) render(r *http.Request, p *svc.Project, l *svc.Loaded, fieldIDs []int64, withFields bool) ([]wire.ProjectV2Item, error) {
	iw := a.d.URLs.NewIssueWriter(a.d.Bodies(r))
	purl := a.d.URLs.ProjectAPIURL(p.Owner, p.Number)
	var show []*model.ProjectField
	if withFields {
		want := map[int64]bool{}
		for _, id := range fieldIDs {
			want[id] = true
		}
		for _, f := range l.Fields {
			if want[f.ID] || len(fieldIDs) == 0 && f.DataType == "title" {
				show = append(show, f)
				delete(want, f.ID)
			}
		}
		for id := range want {
			return nil, model.Custom("ProjectV2Item", "fields", "Field "+strconv.FormatInt(id, 10)+" does not exist in this project.")
		}
	}
	out := make([]wire.ProjectV2Item, 0, len(l.Items))
	for _, it := range l.Items {
		w := wire.ProjectV2Item{
			ID: it.ID, NodeID: wire.NodeID("PVTI", it.ID), ProjectURL: purl, ContentType: it.ContentType,
			CreatedAt: wire.Time(it.CreatedAt), UpdatedAt: wire.Time(it.UpdatedAt), ArchivedAt: wire.TimePtr(it.ArchivedAt),
			ItemURL: purl + "/items/" + strconv.FormatInt(it.ID, 10),
		}
		if u := l.Users[it.CreatorID]; u != nil {
			su := a.d.URLs.ToSimpleUser(u)
			w.Creator = &su
		}
		is := l.Issues[it.IssueID]
		switch {
		case it.ContentType == "DraftIssue":
			w.Content = wire.ProjectV2DraftIssue{ID: it.ID, NodeID: wire.NodeID("DI", it.ID), Title: it.DraftTitle, Body: &it.DraftBody,
				User: w.Creator, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
		case is != nil:
			w.Content = iw.ToIssue(l.Repos[is.RepoID], is, nil)
		default:
			// Content the caller may not see is redacted.
			w.ContentType = "Issue"
		}
		if withFields {
			w.Fields = []any{}
			vals := map[int64]*model.ProjectValue{}
			for _, v := range l.Values[it.ID] {
				vals[v.FieldID] = v
			}
			for _, f := range show {
				w.Fields = append(w.Fields, map[string]any{"id": f.ID, "name": f.Name, "data_type": f.DataType, "value": value(f, it, is, l, vals[f.ID])})
			}
		}
		out = append(out, w)
	}
	return out, nil
}

// value is a field's value on an item as the REST answers show it.
func value(f *model.ProjectField, it *model.ProjectItem, is *model.Issue, l *svc.Loaded, v *model.ProjectValue) any {
	switch f.DataType {
	case "title":
		if it.ContentType == "DraftIssue" {
			return map[string]any{"raw": it.DraftTitle}
		}
		if is != nil {
			return map[string]any{"raw": is.Title, "number": is.Number}
		}
		return nil
	case "assignees":
		if is == nil {
			return nil
		}
		out := []string{}
		for _, u := range is.Assignees {
			out = append(out, u.Login)
		}
		return out
	case "labels":
		if is == nil {
			return nil
		}
		out := []string{}
		for _, lb := range is.Labels {
			out = append(out, lb.Name)
		}
		return out
	case "milestone":
		if is == nil || is.Milestone == nil {
			return nil
		}
		return map[string]any{"title": is.Milestone.Title, "number": is.Milestone.Number}
	case "repository":
		if is == nil {
			return nil
		}
		return l.Repos[is.RepoID].FullName()
	}
	if v == nil {
		return nil
	}
	switch f.DataType {
	case "number":
		if v.Number != nil {
			return *v.Number
		}
		return nil
	case "single_select":
		for _, o := range f.Options {
			if o.ID == v.Text {
				return map[string]any{"id": o.ID, "name": o.Name, "color": o.Color, "description": o.Description}
			}
		}
		return nil
	case "iteration":
		if f.Iteration != nil {
			for _, i := range f.Iteration.Iterations {
				if i.ID == v.Text {
					return map[string]any{"id": i.ID, "title": i.Title, "start_date": i.StartDate, "duration": i.Duration}
				}
			}
		}
		return nil
	}
	return v.Text
}

// writeItems answers a page of items with their fields.
func (a *API) writeItems(w http.ResponseWriter, r *http.Request, p *svc.Project, k store.Keyset, list []*model.ProjectItem, more bool) error {
	fieldIDs, err := fieldsParam(r)
	if err != nil {
		return err
	}
	l, err := a.svc.Load(r.Context(), rest.Caller(r), p, list)
	if err != nil {
		return err
	}
	out, err := a.render(r, p, l, fieldIDs, true)
	if err != nil {
		return err
	}
	if len(list) > 0 {
		a.setLink(w, r, k, len(list), list[0].ID, list[len(list)-1].ID, more)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET .../projectsV2/{project_number}/items
func (a *API) items(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Read)
	if err != nil {
		return err
	}
	k, err := keyset(r)
	if err != nil {
		return err
	}
	f := store.ItemQuery{Page: k}
	for _, word := range strings.Fields(r.URL.Query().Get("q")) {
		switch strings.ToLower(word) {
		case "is:archived":
			b := true
			f.Archived = &b
		case "-is:archived":
			b := false
			f.Archived = &b
		}
	}
	list, more, err := a.svc.Items(r.Context(), p, f)
	if err != nil {
		return err
	}
	return a.writeItems(w, r, p, k, list, more)
}

// GET .../projectsV2/{project_number}/views/{view_number}/items
func (a *API) viewItems(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Read)
	if err != nil {
		return err
	}
	n, err := pathID(r, "view_number")
	if err != nil {
		return err
	}
	if _, err := a.d.Store.R().ProjectViewByNumber(r.Context(), p.ID, n); err != nil {
		return err
	}
	k, err := keyset(r)
	if err != nil {
		return err
	}
	// Views show the project's items that are not archived.
	b := false
	list, more, err := a.svc.Items(r.Context(), p, store.ItemQuery{Page: k, Archived: &b})
	if err != nil {
		return err
	}
	return a.writeItems(w, r, p, k, list, more)
}

// itemOf is the item of the path.
func (a *API) itemOf(r *http.Request, p *svc.Project) (*model.ProjectItem, error) {
	id, err := pathID(r, "item_id")
	if err != nil {
		return nil, err
	}
	return a.svc.Item(r.Context(), p, id)
}

func (a *API) writeItem(w http.ResponseWriter, r *http.Request, p *svc.Project, it *model.ProjectItem, status int, withFields bool) error {
	var ids []int64
	if withFields {
		var err error
		if ids, err = fieldsParam(r); err != nil {
			return err
		}
	}
	l, err := a.svc.Load(r.Context(), rest.Caller(r), p, []*model.ProjectItem{it})
	if err != nil {
		return err
	}
	out, err := a.render(r, p, l, ids, withFields)
	if err != nil {
		return err
	}
	return rest.JSON(w, status, out[0])
}

// GET .../projectsV2/{project_number}/items/{item_id}
func (a *API) item(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Read)
	if err != nil {
		return err
	}
	it, err := a.itemOf(r, p)
	if err != nil {
		return err
	}
	return a.writeItem(w, r, p, it, http.StatusOK, true)
}

// POST .../projectsV2/{project_number}/items
func (a *API) addItem(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Write)
	if err != nil {
		return err
	}
	var b struct {
		Type   string `json:"type"`
		ID     int64  `json:"id"`
		Owner  string `json:"owner"`
		Repo   string `json:"repo"`
		Number int64  `json:"number"`
	}
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	c := rest.Caller(r)
	is, _, err := a.svc.FindIssue(r.Context(), c, b.ID, b.Owner, b.Repo, b.Number, b.Type == "PullRequest")
	if errors.Is(err, model.ErrNotFound) {
		return model.Custom("ProjectV2Item", "id", "The content does not exist or you do not have access to it.")
	}
	if err != nil {
		return err
	}
	it, err := a.svc.AddIssue(r.Context(), c, p, is)
	if err != nil {
		return err
	}
	return a.writeItem(w, r, p, it, http.StatusCreated, false)
}

// POST /orgs/{org}/projectsV2/{project_number}/drafts, /user/{user_id}/projectsV2/{project_number}/drafts
func (a *API) addDraft(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Write)
	if err != nil {
		return err
	}
	var b struct {
		Title string `json:"title"`
		Body  string `json:"body"`
	}
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	it, err := a.svc.AddDraft(r.Context(), rest.Caller(r), p, b.Title, b.Body)
	if err != nil {
		return err
	}
	return a.writeItem(w, r, p, it, http.StatusCreated, false)
}

// PATCH .../projectsV2/{project_number}/items/{item_id}
func (a *API) updateItem(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Write)
	if err != nil {
		return err
	}
	it, err := a.itemOf(r, p)
	if err != nil {
		return err
	}
	var b struct {
		// archived is go-github's (not in GitHub's description).
		Archived *bool `json:"archived"`
		Fields   []struct {
			ID    int64           `json:"id"`
			Value json.RawMessage `json:"value"`
		} `json:"fields"`
	}
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	var vals []svc.Value
	for _, f := range b.Fields {
		var v any
		if err := json.Unmarshal(f.Value, &v); err != nil && len(f.Value) > 0 {
			return model.BadRequest("Problems parsing JSON")
		}
		vals = append(vals, svc.Value{FieldID: f.ID, Value: v})
	}
	if err := a.svc.SetValues(r.Context(), rest.Caller(r), p, it, vals); err != nil {
		return err
	}
	if b.Archived != nil {
		if err := a.svc.Archive(r.Context(), rest.Caller(r), p, it, *b.Archived); err != nil {
			return err
		}
	}
	return a.writeItem(w, r, p, it, http.StatusOK, true)
}

// DELETE .../projectsV2/{project_number}/items/{item_id}
func (a *API) deleteItem(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Write)
	if err != nil {
		return err
	}
	it, err := a.itemOf(r, p)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteItem(r.Context(), rest.Caller(r), p, it); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// POST /orgs/{org}/projectsV2/{project_number}/views, /users/{user_id}/projectsV2/{project_number}/views
func (a *API) createView(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Write)
	if err != nil {
		return err
	}
	var b struct {
		Name            string  `json:"name"`
		Layout          string  `json:"layout"`
		Filter          *string `json:"filter"`
		VisibleFields   []int64 `json:"visible_fields"`
		SortBy          [][]any `json:"sort_by"`
		GroupBy         []int64 `json:"group_by"`
		VerticalGroupBy []int64 `json:"vertical_group_by"`
	}
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	in := svc.ViewInput{Name: b.Name, Layout: b.Layout, Filter: b.Filter, VisibleFields: b.VisibleFields, GroupBy: b.GroupBy, VerticalGroupBy: b.VerticalGroupBy}
	for _, s := range b.SortBy {
		if len(s) != 2 {
			return model.Custom("ProjectV2View", "sort_by", "Each sort_by entry is [field_id, direction].")
		}
		var id int64
		switch x := s[0].(type) {
		case float64:
			id = int64(x)
		case string:
			id, _ = strconv.ParseInt(x, 10, 64)
		}
		in.SortBy = append(in.SortBy, [2]any{id, s[1]})
	}
	c := rest.Caller(r)
	v, err := a.svc.CreateView(r.Context(), c, p, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToProjectV2View(p.Owner, p.Project, v, c.User))
}
