package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Runner is GitHub's runner (a self-hosted runner).
type Runner struct {
	ID            int64         `json:"id"`
	RunnerGroupID *int64        `json:"runner_group_id,omitempty"`
	Name          string        `json:"name"`
	OS            string        `json:"os"`
	Status        string        `json:"status"`
	Busy          bool          `json:"busy"`
	Ephemeral     bool          `json:"ephemeral"`
	Labels        []RunnerLabel `json:"labels"`
}

// RunnerLabel is GitHub's runner-label.
type RunnerLabel struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// ToRunnerLabels converts labels.
func ToRunnerLabels(ls []model.RunnerLabel) []RunnerLabel {
	out := make([]RunnerLabel, len(ls))
	for i, l := range ls {
		out[i] = RunnerLabel{ID: l.ID, Name: l.Name, Type: "custom"}
		if l.ReadOnly {
			out[i].Type = "read-only"
		}
	}
	return out
}

// ToRunner converts a runner (online: its status).
func ToRunner(r *model.Runner, online bool) Runner {
	out := Runner{ID: r.ID, Name: r.Name, OS: r.OS, Status: "offline", Busy: r.Busy, Ephemeral: r.Ephemeral, Labels: ToRunnerLabels(r.Labels)}
	if online {
		out.Status = "online"
	}
	if r.Scope != model.RunnerRepo || r.Worker {
		g := r.GroupID
		out.RunnerGroupID = &g
	}
	return out
}

// RunnerGroup is GitHub's runner-groups-org and runner-groups-enterprise.
type RunnerGroup struct {
	ID                           int64    `json:"id"`
	Name                         string   `json:"name"`
	Visibility                   string   `json:"visibility"`
	Default                      bool     `json:"default"`
	SelectedRepositoriesURL      string   `json:"selected_repositories_url,omitempty"`
	SelectedOrganizationsURL     string   `json:"selected_organizations_url,omitempty"`
	RunnersURL                   string   `json:"runners_url"`
	HostedRunnersURL             string   `json:"hosted_runners_url,omitempty"`
	Inherited                    *bool    `json:"inherited,omitempty"`
	AllowsPublicRepositories     bool     `json:"allows_public_repositories"`
	WorkflowRestrictionsReadOnly bool     `json:"workflow_restrictions_read_only"`
	RestrictedToWorkflows        bool     `json:"restricted_to_workflows"`
	SelectedWorkflows            []string `json:"selected_workflows"`
}

// ToRunnerGroup converts a group of an organization (org set) or of the
// enterprise (slug).
func (u URLs) ToRunnerGroup(g *model.RunnerGroup, org, slug string) RunnerGroup {
	out := RunnerGroup{ID: g.ID, Name: g.Name, Visibility: g.Visibility, Default: g.Default, AllowsPublicRepositories: g.AllowsPublic,
		RestrictedToWorkflows: g.RestrictedToWorkflows, SelectedWorkflows: append([]string{}, g.SelectedWorkflows...)}
	base := u.API + "/enterprises/" + slug + "/actions/runner-groups/" + strconv.FormatInt(g.ID, 10)
	if org != "" {
		base = u.API + "/orgs/" + org + "/actions/runner-groups/" + strconv.FormatInt(g.ID, 10)
		f := false
		out.Inherited = &f
		out.HostedRunnersURL = base + "/hosted-runners"
		if g.Visibility == "selected" {
			out.SelectedRepositoriesURL = base + "/repositories"
		}
	} else if g.Visibility == "selected" {
		out.SelectedOrganizationsURL = base + "/organizations"
	}
	out.RunnersURL = base + "/runners"
	return out
}
