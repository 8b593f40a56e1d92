// Package projects is the REST adapter of Projects (v2)
// (/orgs/{org}/projectsV2..., /users/{username}/projectsV2...): it reads
// paths, cursors and bodies, calls the projects service and writes
// GitHub's shapes.
package projects

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read, write := []string{"read:project", "project"}, []string{"project"}
	r := func(method, pattern, op string, h rest.Handler, scopes []string) rest.Route {
		return rest.Route{Method: method, Pattern: pattern, OperationID: "projects/" + op, Handler: h, Scopes: scopes}
	}
	note := map[string]string{
		"list":            "q matches words of the title and is:open / is:closed; GitHub's other project filters are not read.",
		"list-items":      "q reads is:archived and -is:archived only; GitHub's other item filters are not read.",
		"list-view-items": "The view's filter, sort and grouping are stored and returned but not applied: the items come in project order, archived ones left out.",
		"add-field":       "Issue fields (issue_field_id) can't be added to projects.",
	}
	var out []rest.Route
	for _, o := range []struct{ base, sfx string }{{"/orgs/{org}/projectsV2", "for-org"}, {"/users/{username}/projectsV2", "for-user"}} {
		b := o.base
		kind := strings.TrimPrefix(o.sfx, "for-")
		out = append(out,
			noted(r("GET", b, "list-"+o.sfx, a.list, read), note["list"]),
			r("GET", b+"/{project_number}", "get-"+o.sfx, a.get, read),
			r("GET", b+"/{project_number}/fields", "list-fields-"+o.sfx, a.fields, read),
			noted(r("POST", b+"/{project_number}/fields", "add-field-"+o.sfx, a.addField, write), note["add-field"]),
			r("GET", b+"/{project_number}/fields/{field_id}", "get-field-"+o.sfx, a.field, read),
			noted(r("GET", b+"/{project_number}/items", "list-items-"+o.sfx, a.items, read), note["list-items"]),
			r("POST", b+"/{project_number}/items", "add-item-"+o.sfx, a.addItem, write),
			r("GET", b+"/{project_number}/items/{item_id}", "get-"+kind+"-item", a.item, read),
			r("PATCH", b+"/{project_number}/items/{item_id}", "update-item-"+o.sfx, a.updateItem, write),
			r("DELETE", b+"/{project_number}/items/{item_id}", "delete-item-"+o.sfx, a.deleteItem, write),
			noted(r("GET", b+"/{project_number}/views/{view_number}/items", "list-view-items-"+o.sfx, a.viewItems, read), note["list-view-items"]),
		)
	}
	out = append(out,
		r("POST", "/orgs/{org}/projectsV2/{project_number}/drafts", "create-draft-item-for-org", a.addDraft, write),
		r("POST", "/user/{user_id}/projectsV2/{project_number}/drafts", "create-draft-item-for-authenticated-user", a.addDraft, write),
		r("POST", "/orgs/{org}/projectsV2/{project_number}/views", "create-view-for-org", a.createView, write),
		r("POST", "/users/{user_id}/projectsV2/{project_number}/views", "create-view-for-user", a.createView, write),
	)
	return out
}

func noted(r rest.Route, note string) rest.Route {
	r.Note = note
	return r
}

// owner is the organization or user of the path.
func (a *API) owner(r *http.Request) (*model.Account, error) {
	ctx := r.Context()
	if org := r.PathValue("org"); org != "" {
		return a.svc.Owner(ctx, org, true)
	}
	if login := r.PathValue("username"); login != "" {
		return a.svc.Owner(ctx, login, false)
	}
	id, err := strconv.ParseInt(r.PathValue("user_id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, model.ErrNotFound
	}
	u, err := a.d.Store.R().AccountByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if u.IsOrg() {
		return nil, model.ErrNotFound
	}
	return u, nil
}

func pathID(r *http.Request, name string) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || n <= 0 {
		return 0, model.ErrNotFound
	}
	return n, nil
}

// project is the project of the path, for a caller who needs need.
func (a *API) project(r *http.Request, need authz.Permission) (*svc.Project, error) {
	c := rest.Caller(r)
	if need > authz.Read && !c.Authenticated() {
		return nil, rest.ErrRequiresAuth
	}
	owner, err := a.owner(r)
	if err != nil {
		return nil, err
	}
	n, err := pathID(r, "project_number")
	if err != nil {
		return nil, err
	}
	return a.svc.Get(r.Context(), c, owner, n, need)
}

var errCursor = model.BadRequest("Invalid cursor")

// keyset reads per_page, before and after (opaque cursors of row ids).
func keyset(r *http.Request) (store.Keyset, error) {
	q := r.URL.Query()
	k := store.Keyset{Limit: rest.ParsePage(r).PerPage}
	for _, c := range []struct {
		name string
		dst  *int64
	}{{"after", &k.After}, {"before", &k.Before}} {
		s := q.Get(c.name)
		if s == "" {
			continue
		}
		b, err := base64.RawURLEncoding.DecodeString(s)
		id, ok := strings.CutPrefix(string(b), "id:")
		n, err2 := strconv.ParseInt(id, 10, 64)
		if err != nil || !ok || err2 != nil || n <= 0 {
			return k, errCursor
		}
		*c.dst = n
	}
	if k.After > 0 && k.Before > 0 {
		return k, model.Unprocessable("Only one of before and after may be given.")
	}
	return k, nil
}

func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("id:" + strconv.FormatInt(id, 10)))
}

// setLink writes the cursor links of a page whose first and last ids are
// first and last (n rows; more: rows remain in the paging direction).
func (a *API) setLink(w http.ResponseWriter, r *http.Request, k store.Keyset, n int, first, last int64, more bool) {
	if n == 0 {
		return
	}
	var next, prev string
	if k.Before > 0 || more {
		next = encodeCursor(last)
	}
	if k.After > 0 || k.Before > 0 && more {
		prev = encodeCursor(first)
	}
	rest.SetCursorLink(w, r, a.d.URLs.API, next, prev)
}

func (a *API) toProject(r *http.Request, p *svc.Project, users map[int64]*model.Account) (wire.ProjectV2, error) {
	if users == nil {
		var err error
		if users, err = a.d.Store.R().AccountsByID(r.Context(), []int64{p.CreatorID}); err != nil {
			return wire.ProjectV2{}, err
		}
	}
	return a.d.URLs.ToProjectV2(p.Project, p.Owner, users[p.CreatorID]), nil
}

// GET /orgs/{org}/projectsV2, /users/{username}/projectsV2
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	owner, err := a.owner(r)
	if err != nil {
		return err
	}
	k, err := keyset(r)
	if err != nil {
		return err
	}
	f := store.ProjectQuery{Page: k}
	// q filters by title; is:open / is:closed by state.
	for _, word := range strings.Fields(r.URL.Query().Get("q")) {
		switch strings.ToLower(word) {
		case "is:open":
			b := false
			f.Closed = &b
		case "is:closed":
			b := true
			f.Closed = &b
		default:
			f.Title = strings.TrimSpace(f.Title + " " + word)
		}
	}
	list, more, err := a.svc.List(r.Context(), rest.Caller(r), owner, f)
	if err != nil {
		return err
	}
	ids := make([]int64, 0, len(list))
	for _, p := range list {
		ids = append(ids, p.CreatorID)
	}
	users, err := a.d.Store.R().AccountsByID(r.Context(), ids)
	if err != nil {
		return err
	}
	out := make([]wire.ProjectV2, 0, len(list))
	for _, p := range list {
		w, _ := a.toProject(r, p, users)
		out = append(out, w)
	}
	if len(list) > 0 {
		a.setLink(w, r, k, len(list), list[0].ID, list[len(list)-1].ID, more)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /orgs/{org}/projectsV2/{project_number}, /users/{username}/projectsV2/{project_number}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Read)
	if err != nil {
		return err
	}
	out, err := a.toProject(r, p, nil)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

func (a *API) today() string { return a.d.Store.Now().UTC().Format("2006-01-02") }

// GET .../projectsV2/{project_number}/fields
func (a *API) fields(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Read)
	if err != nil {
		return err
	}
	k, err := keyset(r)
	if err != nil {
		return err
	}
	list, more, err := a.d.Store.R().ListProjectFields(r.Context(), p.ID, k)
	if err != nil {
		return err
	}
	url := a.d.URLs.ProjectAPIURL(p.Owner, p.Number)
	out := make([]wire.ProjectV2Field, 0, len(list))
	for _, f := range list {
		out = append(out, wire.ToProjectV2Field(url, f, a.today()))
	}
	if len(list) > 0 {
		a.setLink(w, r, k, len(list), list[0].ID, list[len(list)-1].ID, more)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET .../projectsV2/{project_number}/fields/{field_id}
func (a *API) field(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "field_id")
	if err != nil {
		return err
	}
	f, err := a.d.Store.R().ProjectFieldByID(r.Context(), p.ID, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToProjectV2Field(a.d.URLs.ProjectAPIURL(p.Owner, p.Number), f, a.today()))
}

type fieldBody struct {
	IssueFieldID *int64 `json:"issue_field_id"`
	Name         string `json:"name"`
	DataType     string `json:"data_type"`
	Options      []struct {
		Name, Color, Description string
	} `json:"single_select_options"`
	Iteration *struct {
		StartDate  string `json:"start_date"`
		Duration   int    `json:"duration"`
		Iterations []struct {
			Title     string `json:"title"`
			StartDate string `json:"start_date"`
			Duration  int    `json:"duration"`
		} `json:"iterations"`
	} `json:"iteration_configuration"`
}

// POST .../projectsV2/{project_number}/fields
func (a *API) addField(w http.ResponseWriter, r *http.Request) error {
	p, err := a.project(r, authz.Write)
	if err != nil {
		return err
	}
	var b fieldBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	if b.IssueFieldID != nil {
		return model.Custom("ProjectV2Field", "issue_field_id", "Issue fields can't be added to projects on this server.")
	}
	in := svc.FieldInput{Name: b.Name, DataType: b.DataType}
	for _, o := range b.Options {
		in.Options = append(in.Options, model.ProjectOption{Name: o.Name, Color: o.Color, Description: o.Description})
	}
	if it := b.Iteration; it != nil {
		cfg := &model.ProjectIterations{Duration: it.Duration, StartDay: 1}
		if t, err := parseDate(it.StartDate); err == nil {
			cfg.StartDay = int(t.Weekday())
			if cfg.StartDay == 0 {
				cfg.StartDay = 7
			}
		} else {
			return model.Custom("ProjectV2Field", "iteration_configuration", "Invalid start_date '"+it.StartDate+"'.")
		}
		for _, i := range it.Iterations {
			cfg.Iterations = append(cfg.Iterations, model.ProjectIteration{Title: i.Title, StartDate: i.StartDate, Duration: i.Duration})
		}
		if len(cfg.Iterations) == 0 {
			// GitHub starts an iteration field with iterations from its
			// start date; one is enough to assign items.
			cfg.Iterations = []model.ProjectIteration{{Title: "Iteration 1", StartDate: it.StartDate, Duration: it.Duration}}
		}
		in.Iteration = cfg
	}
	f, err := a.svc.CreateField(r.Context(), rest.Caller(r), p, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, wire.ToProjectV2Field(a.d.URLs.ProjectAPIURL(p.Owner, p.Number), f, a.today()))
}
