package wire

import (
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// CodespaceMachine is components/schemas/codespace-machine.
type CodespaceMachine struct {
	Name                 string  `json:"name"`
	DisplayName          string  `json:"display_name"`
	OperatingSystem      string  `json:"operating_system"`
	StorageInBytes       int64   `json:"storage_in_bytes"`
	MemoryInBytes        int64   `json:"memory_in_bytes"`
	CPUs                 int     `json:"cpus"`
	PrebuildAvailability *string `json:"prebuild_availability"`
}

// CodespaceGitStatus is the git_status of a codespace.
type CodespaceGitStatus struct {
	Ahead                 int64  `json:"ahead"`
	Behind                int64  `json:"behind"`
	HasUnpushedChanges    bool   `json:"has_unpushed_changes"`
	HasUncommittedChanges bool   `json:"has_uncommitted_changes"`
	Ref                   string `json:"ref"`
}

// Codespace is components/schemas/codespace.
type Codespace struct {
	ID                     int64              `json:"id"`
	Name                   string             `json:"name"`
	DisplayName            *string            `json:"display_name"`
	EnvironmentID          *string            `json:"environment_id"`
	Owner                  SimpleUser         `json:"owner"`
	BillableOwner          SimpleUser         `json:"billable_owner"`
	Repository             MinimalRepository  `json:"repository"`
	Machine                *CodespaceMachine  `json:"machine"`
	DevcontainerPath       *string            `json:"devcontainer_path"`
	Prebuild               *bool              `json:"prebuild"`
	CreatedAt              time.Time          `json:"created_at"`
	UpdatedAt              time.Time          `json:"updated_at"`
	LastUsedAt             time.Time          `json:"last_used_at"`
	State                  string             `json:"state"`
	URL                    string             `json:"url"`
	GitStatus              CodespaceGitStatus `json:"git_status"`
	Location               string             `json:"location"`
	IdleTimeoutMinutes     *int64             `json:"idle_timeout_minutes"`
	WebURL                 string             `json:"web_url"`
	MachinesURL            string             `json:"machines_url"`
	StartURL               string             `json:"start_url"`
	StopURL                string             `json:"stop_url"`
	PublishURL             *string            `json:"publish_url"`
	PullsURL               *string            `json:"pulls_url"`
	RecentFolders          []string           `json:"recent_folders"`
	PendingOperation       *bool              `json:"pending_operation"`
	IdleTimeoutNotice      *string            `json:"idle_timeout_notice"`
	RetentionPeriodMinutes *int64             `json:"retention_period_minutes"`
	RetentionExpiresAt     *time.Time         `json:"retention_expires_at"`
	LastKnownStopNotice    *string            `json:"last_known_stop_notice"`
}

// CodespaceExport is components/schemas/codespace-export-details.
type CodespaceExport struct {
	State       *string    `json:"state"`
	CompletedAt *time.Time `json:"completed_at"`
	Branch      *string    `json:"branch"`
	SHA         *string    `json:"sha"`
	ID          string     `json:"id"`
	ExportURL   string     `json:"export_url"`
	HTMLURL     *string    `json:"html_url"`
}

// CodespaceURL is the API URL of a codespace.
func (u URLs) CodespaceURL(name string) string { return u.API + "/user/codespaces/" + name }

// ToCodespace is a codespace; machine is its machine type (nil when gone),
// notice the stop or failure notice to show.
func (u URLs) ToCodespace(c *model.Codespace, owner *model.Account, repo *model.Repo, m *CodespaceMachine) Codespace {
	api := u.CodespaceURL(c.Name)
	idle, retention := c.IdleTimeout, c.Retention
	prebuild := false
	out := Codespace{ID: c.ID, Name: c.Name, DisplayName: &c.DisplayName, EnvironmentID: &c.EnvironmentID,
		Owner: u.ToSimpleUser(owner), BillableOwner: u.ToSimpleUser(owner), Repository: u.ToBareRepository(repo),
		Machine: m, Prebuild: &prebuild, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, LastUsedAt: c.LastUsedAt,
		State: c.State, URL: api, Location: c.Location, IdleTimeoutMinutes: &idle, WebURL: u.Web + "/codespaces/" + c.Name + "/",
		MachinesURL: api + "/machines", StartURL: api + "/start", StopURL: api + "/stop", RecentFolders: c.RecentFolders,
		RetentionPeriodMinutes: &retention, LastKnownStopNotice: &c.Notes,
		GitStatus: CodespaceGitStatus{Ahead: c.Ahead, Behind: c.Behind, HasUnpushedChanges: c.Unpushed, HasUncommittedChanges: c.Uncommitted, Ref: c.Ref}}
	if c.DevcontainerPath != "" {
		out.DevcontainerPath = &c.DevcontainerPath
	}
	if repo.IsTemplate && c.PublishedRepoID == 0 {
		p := api + "/publish"
		out.PublishURL = &p
	}
	if c.PullNumber != 0 {
		p := u.API + "/repos/" + repo.FullName() + "/pulls/" + strconv.FormatInt(c.PullNumber, 10)
		out.PullsURL = &p
	}
	if !c.StoppedAt.IsZero() {
		t := c.StoppedAt.Add(time.Duration(c.Retention) * time.Minute)
		out.RetentionExpiresAt = &t
	}
	return out
}

// ToCodespaceExport is an export's details.
func (u URLs) ToCodespaceExport(c *model.Codespace, e *model.CodespaceExport, target *model.Repo) CodespaceExport {
	id := strconv.FormatInt(e.ID, 10)
	out := CodespaceExport{State: &e.State, ID: id, ExportURL: u.CodespaceURL(c.Name) + "/exports/" + id}
	if e.Branch != "" {
		out.Branch = &e.Branch
	}
	if e.SHA != "" {
		out.SHA = &e.SHA
	}
	if !e.CompletedAt.IsZero() {
		t := e.CompletedAt
		out.CompletedAt = &t
	}
	if target != nil && e.State == "succeeded" {
		h := u.Web + "/" + target.FullName() + "/tree/" + e.Branch
		out.HTMLURL = &h
	}
	return out
}
