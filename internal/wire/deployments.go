package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Deployment is components/schemas/deployment.
type Deployment struct {
	URL                   string      `json:"url"`
	ID                    int64       `json:"id"`
	NodeID                string      `json:"node_id"`
	SHA                   string      `json:"sha"`
	Ref                   string      `json:"ref"`
	Task                  string      `json:"task"`
	Payload               any         `json:"payload"`
	OriginalEnvironment   string      `json:"original_environment"`
	Environment           string      `json:"environment"`
	Description           *string     `json:"description"`
	Creator               *SimpleUser `json:"creator"`
	CreatedAt             string      `json:"created_at"`
	UpdatedAt             string      `json:"updated_at"`
	StatusesURL           string      `json:"statuses_url"`
	RepositoryURL         string      `json:"repository_url"`
	TransientEnvironment  bool        `json:"transient_environment"`
	ProductionEnvironment bool        `json:"production_environment"`
	PerformedViaGitHubApp any         `json:"performed_via_github_app"`
}

// ToDeployment converts a deployment of repository r made by creator.
func (u URLs) ToDeployment(r *model.Repo, d *model.Deployment, creator *model.Account) Deployment {
	base := u.RepoAPI(r.Owner.Login, r.Name)
	self := base + "/deployments/" + strconv.FormatInt(d.ID, 10)
	out := Deployment{URL: self, ID: d.ID, NodeID: NodeID("DE", d.ID), SHA: d.SHA, Ref: d.Ref, Task: d.Task, Payload: map[string]any{},
		OriginalEnvironment: d.Environment, Environment: d.Environment, Description: d.Description, CreatedAt: Time(d.CreatedAt),
		UpdatedAt: Time(d.UpdatedAt), StatusesURL: self + "/statuses", RepositoryURL: base,
		ProductionEnvironment: d.Environment == "production" || d.Environment == "Production"}
	if creator != nil {
		c := u.ToSimpleUser(creator)
		out.Creator = &c
	}
	return out
}

// PendingDeployment is components/schemas/pending-deployment.
type PendingDeployment struct {
	Environment           PendingEnvironment    `json:"environment"`
	WaitTimer             int                   `json:"wait_timer"`
	WaitTimerStartedAt    *string               `json:"wait_timer_started_at"`
	CurrentUserCanApprove bool                  `json:"current_user_can_approve"`
	Reviewers             []EnvironmentReviewer `json:"reviewers"`
}

// PendingEnvironment is the environment of a pending deployment or of a
// deployment review (environment-approvals).
type PendingEnvironment struct {
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	Name      string `json:"name"`
	URL       string `json:"url"`
	HTMLURL   string `json:"html_url"`
	CreatedAt string `json:"created_at,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
}

// EnvironmentApprovals is components/schemas/environment-approvals.
type EnvironmentApprovals struct {
	Environments []PendingEnvironment `json:"environments"`
	State        string               `json:"state"`
	User         SimpleUser           `json:"user"`
	Comment      string               `json:"comment"`
}

// ToPendingEnvironment is the short form of a rendered environment.
func ToPendingEnvironment(e Environment, times bool) PendingEnvironment {
	out := PendingEnvironment{ID: e.ID, NodeID: e.NodeID, Name: e.Name, URL: e.URL, HTMLURL: e.HTMLURL}
	if times {
		out.CreatedAt, out.UpdatedAt = e.CreatedAt, e.UpdatedAt
	}
	return out
}

// EnvironmentReviewers are the required reviewers of a rendered
// environment (none: an empty list).
func EnvironmentReviewers(e Environment) []EnvironmentReviewer {
	for _, p := range e.ProtectionRules {
		if r, ok := p.(ProtectionRule); ok && r.Type == "required_reviewers" {
			return r.Reviewers
		}
	}
	return []EnvironmentReviewer{}
}
