package wire

import (
	"html"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// ProjectV2 is components/schemas/projects-v2.
type ProjectV2 struct {
	ID                 int64       `json:"id"`
	NodeID             string      `json:"node_id"`
	Owner              SimpleUser  `json:"owner"`
	Creator            SimpleUser  `json:"creator"`
	Title              string      `json:"title"`
	Description        *string     `json:"description"`
	Public             bool        `json:"public"`
	ClosedAt           *string     `json:"closed_at"`
	CreatedAt          string      `json:"created_at"`
	UpdatedAt          string      `json:"updated_at"`
	Number             int64       `json:"number"`
	ShortDescription   *string     `json:"short_description"`
	DeletedAt          *string     `json:"deleted_at"`
	DeletedBy          *SimpleUser `json:"deleted_by"`
	State              string      `json:"state"`
	LatestStatusUpdate any         `json:"latest_status_update"`
	IsTemplate         bool        `json:"is_template"`
}

// ProjectAPIURL is a project's REST URL.
func (u URLs) ProjectAPIURL(owner *model.Account, number int64) string {
	kind := "/users/"
	if owner.IsOrg() {
		kind = "/orgs/"
	}
	return u.API + kind + owner.Login + "/projectsV2/" + strconv.FormatInt(number, 10)
}

// ProjectHTMLURL is a project's page.
func (u URLs) ProjectHTMLURL(owner *model.Account, number int64) string {
	kind := "/users/"
	if owner.IsOrg() {
		kind = "/orgs/"
	}
	return u.Web + kind + owner.Login + "/projects/" + strconv.FormatInt(number, 10)
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ToProjectV2 converts a project; creator may be nil (a deleted account:
// the owner stands in).
func (u URLs) ToProjectV2(p *model.Project, owner, creator *model.Account) ProjectV2 {
	if creator == nil {
		creator = owner
	}
	out := ProjectV2{
		ID: p.ID, NodeID: NodeID("PVT", p.ID), Owner: u.ToSimpleUser(owner), Creator: u.ToSimpleUser(creator),
		Title: p.Title, Description: nonEmpty(p.Readme), Public: p.Public, ClosedAt: TimePtr(p.ClosedAt),
		CreatedAt: Time(p.CreatedAt), UpdatedAt: Time(p.UpdatedAt), Number: p.Number,
		ShortDescription: nonEmpty(p.ShortDescription), State: "open",
	}
	if p.ClosedAt != nil {
		out.State = "closed"
	}
	return out
}

// ProjectV2Field is components/schemas/projects-v2-field.
type ProjectV2Field struct {
	ID            int64                `json:"id"`
	NodeID        string               `json:"node_id"`
	ProjectURL    string               `json:"project_url"`
	Name          string               `json:"name"`
	DataType      string               `json:"data_type"`
	Options       []ProjectV2Option    `json:"options,omitempty"`
	Configuration *ProjectV2IterConfig `json:"configuration,omitempty"`
	CreatedAt     string               `json:"created_at"`
	UpdatedAt     string               `json:"updated_at"`
}

// RawHTML is a text in raw and HTML forms.
type RawHTML struct {
	Raw  string `json:"raw"`
	HTML string `json:"html"`
}

func rawHTML(s string) RawHTML { return RawHTML{Raw: s, HTML: html.EscapeString(s)} }

// ProjectV2Option is components/schemas/projects-v2-single-select-options.
type ProjectV2Option struct {
	ID          string  `json:"id"`
	Name        RawHTML `json:"name"`
	Description RawHTML `json:"description"`
	Color       string  `json:"color"`
}

// ProjectV2IterConfig is the configuration of an iteration field.
type ProjectV2IterConfig struct {
	StartDay   int                  `json:"start_day"`
	Duration   int                  `json:"duration"`
	Iterations []ProjectV2Iteration `json:"iterations"`
}

// ProjectV2Iteration is components/schemas/projects-v2-iteration-settings.
type ProjectV2Iteration struct {
	ID        string  `json:"id"`
	StartDate string  `json:"start_date"`
	Duration  int     `json:"duration"`
	Title     RawHTML `json:"title"`
	Completed bool    `json:"completed"`
}

// ToProjectV2Field converts a field; today (YYYY-MM-DD) decides which
// iterations are completed.
func ToProjectV2Field(projectURL string, f *model.ProjectField, today string) ProjectV2Field {
	out := ProjectV2Field{ID: f.ID, NodeID: ProjectFieldNodeID(f), ProjectURL: projectURL, Name: f.Name, DataType: f.DataType,
		CreatedAt: Time(f.CreatedAt), UpdatedAt: Time(f.UpdatedAt)}
	if f.DataType == "single_select" {
		out.Options = []ProjectV2Option{}
		for _, o := range f.Options {
			out.Options = append(out.Options, ProjectV2Option{ID: o.ID, Name: rawHTML(o.Name), Description: rawHTML(o.Description), Color: o.Color})
		}
	}
	if it := f.Iteration; it != nil {
		c := &ProjectV2IterConfig{StartDay: it.StartDay, Duration: it.Duration, Iterations: []ProjectV2Iteration{}}
		for _, i := range it.Iterations {
			c.Iterations = append(c.Iterations, ProjectV2Iteration{ID: i.ID, StartDate: i.StartDate, Duration: i.Duration, Title: rawHTML(i.Title), Completed: IterationEnd(i) <= today})
		}
		out.Configuration = c
	}
	return out
}

// IterationEnd is the day after an iteration's last (YYYY-MM-DD).
func IterationEnd(i model.ProjectIteration) string {
	t, err := parseDay(i.StartDate)
	if err != nil {
		return i.StartDate
	}
	return t.AddDate(0, 0, i.Duration).Format("2006-01-02")
}

// ProjectFieldNodeID is a field's node id (single select and iteration
// fields have their own prefixes, as on GitHub).
func ProjectFieldNodeID(f *model.ProjectField) string {
	switch f.DataType {
	case "single_select":
		return NodeID("PVTSSF", f.ID)
	case "iteration":
		return NodeID("PVTIF", f.ID)
	}
	return NodeID("PVTF", f.ID)
}

// ProjectV2DraftIssue is components/schemas/projects-v2-draft-issue.
type ProjectV2DraftIssue struct {
	ID        int64       `json:"id"`
	NodeID    string      `json:"node_id"`
	Title     string      `json:"title"`
	Body      *string     `json:"body"`
	User      *SimpleUser `json:"user"`
	CreatedAt string      `json:"created_at"`
	UpdatedAt string      `json:"updated_at"`
}

// ProjectV2Item is components/schemas/projects-v2-item-with-content (and,
// without fields, projects-v2-item-simple).
type ProjectV2Item struct {
	ID          int64       `json:"id"`
	NodeID      string      `json:"node_id"`
	ProjectURL  string      `json:"project_url"`
	ContentType string      `json:"content_type"`
	Content     any         `json:"content"`
	Creator     *SimpleUser `json:"creator,omitempty"`
	CreatedAt   string      `json:"created_at"`
	UpdatedAt   string      `json:"updated_at"`
	ArchivedAt  *string     `json:"archived_at"`
	ItemURL     string      `json:"item_url"`
	Fields      []any       `json:"fields,omitempty"`
}

// ProjectV2View is components/schemas/projects-v2-view.
type ProjectV2View struct {
	ID              int64      `json:"id"`
	Number          int64      `json:"number"`
	Name            string     `json:"name"`
	Layout          string     `json:"layout"`
	NodeID          string     `json:"node_id"`
	ProjectURL      string     `json:"project_url"`
	HTMLURL         string     `json:"html_url"`
	Creator         SimpleUser `json:"creator"`
	CreatedAt       string     `json:"created_at"`
	UpdatedAt       string     `json:"updated_at"`
	Filter          *string    `json:"filter"`
	VisibleFields   []int64    `json:"visible_fields"`
	SortBy          [][2]any   `json:"sort_by"`
	GroupBy         []int64    `json:"group_by"`
	VerticalGroupBy []int64    `json:"vertical_group_by"`
}

// ToProjectV2View converts a view.
func (u URLs) ToProjectV2View(owner *model.Account, p *model.Project, v *model.ProjectView, creator *model.Account) ProjectV2View {
	if creator == nil {
		creator = owner
	}
	nz := func(x []int64) []int64 {
		if x == nil {
			return []int64{}
		}
		return x
	}
	sortBy := v.SortBy
	if sortBy == nil {
		sortBy = [][2]any{}
	}
	return ProjectV2View{
		ID: v.ID, Number: v.Number, Name: v.Name, Layout: v.Layout, NodeID: NodeID("PVTV", v.ID),
		ProjectURL: u.ProjectAPIURL(owner, p.Number), HTMLURL: u.ProjectHTMLURL(owner, p.Number) + "/views/" + strconv.FormatInt(v.Number, 10),
		Creator: u.ToSimpleUser(creator), CreatedAt: Time(v.CreatedAt), UpdatedAt: Time(v.UpdatedAt), Filter: v.Filter,
		VisibleFields: nz(v.VisibleFields), SortBy: sortBy, GroupBy: nz(v.GroupBy), VerticalGroupBy: nz(v.VerticalGroupBy),
	}
}

func parseDay(s string) (time.Time, error) { return time.Parse("2006-01-02", s) }
