package wire

import (
	"net/url"

	"github.com/hubd/hubd/internal/model"
)

// Environment is components/schemas/environment.
type Environment struct {
	ID                     int64                   `json:"id"`
	NodeID                 string                  `json:"node_id"`
	Name                   string                  `json:"name"`
	URL                    string                  `json:"url"`
	HTMLURL                string                  `json:"html_url"`
	CreatedAt              string                  `json:"created_at"`
	UpdatedAt              string                  `json:"updated_at"`
	ProtectionRules        []any                   `json:"protection_rules"`
	DeploymentBranchPolicy *DeploymentBranchPolicy `json:"deployment_branch_policy"`
}

// DeploymentBranchPolicy is components/schemas/deployment-branch-policy-settings.
type DeploymentBranchPolicy struct {
	ProtectedBranches    bool `json:"protected_branches"`
	CustomBranchPolicies bool `json:"custom_branch_policies"`
}

// ProtectionRule is one of an environment's protection_rules (wait_timer,
// required_reviewers or branch_policy).
type ProtectionRule struct {
	ID                int64                 `json:"id"`
	NodeID            string                `json:"node_id"`
	Type              string                `json:"type"`
	WaitTimer         *int                  `json:"wait_timer,omitempty"`
	PreventSelfReview *bool                 `json:"prevent_self_review,omitempty"`
	Reviewers         []EnvironmentReviewer `json:"reviewers,omitempty"`
}

// EnvironmentReviewer is a required reviewer: a simple user or a team.
type EnvironmentReviewer struct {
	Type     string `json:"type"`
	Reviewer any    `json:"reviewer"`
}

// BranchPolicy is components/schemas/deployment-branch-policy.
type BranchPolicy struct {
	ID     int64  `json:"id"`
	NodeID string `json:"node_id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
}

// EnvironmentURL is an environment's API URL.
func (u URLs) EnvironmentURL(r *model.Repo, name string) string {
	return u.RepoAPI(r.Owner.Login, r.Name) + "/environments/" + url.PathEscape(name)
}

// ToEnvironment converts an environment of repository r; users and teams
// hold its reviewers (those missing are left out: deleted since).
func (u URLs) ToEnvironment(r *model.Repo, e *model.Environment, users map[int64]*model.Account, teams map[int64]*model.Team) Environment {
	out := Environment{ID: e.ID, NodeID: NodeID("EN", e.ID), Name: e.Name, URL: u.EnvironmentURL(r, e.Name),
		HTMLURL:   u.RepoHTMLURL(r) + "/deployments/activity_log?environments_filter=" + url.QueryEscape(e.Name),
		CreatedAt: Time(e.CreatedAt), UpdatedAt: Time(e.UpdatedAt), ProtectionRules: []any{}}
	// Rule ids are derived from the environment's: three kinds at most.
	rule := func(k int64, typ string) ProtectionRule {
		id := e.ID*3 + k
		return ProtectionRule{ID: id, NodeID: NodeID("GA", id), Type: typ}
	}
	if e.WaitTimer > 0 {
		p := rule(0, "wait_timer")
		p.WaitTimer = &e.WaitTimer
		out.ProtectionRules = append(out.ProtectionRules, p)
	}
	if len(e.Reviewers) > 0 {
		p := rule(1, "required_reviewers")
		p.PreventSelfReview = &e.PreventSelfReview
		p.Reviewers = []EnvironmentReviewer{}
		for _, rv := range e.Reviewers {
			switch {
			case rv.Type == "User" && users[rv.ID] != nil:
				p.Reviewers = append(p.Reviewers, EnvironmentReviewer{Type: rv.Type, Reviewer: u.ToSimpleUser(users[rv.ID])})
			case rv.Type == "Team" && teams[rv.ID] != nil:
				p.Reviewers = append(p.Reviewers, EnvironmentReviewer{Type: rv.Type, Reviewer: u.ToTeamWithParent(teams[rv.ID])})
			}
		}
		out.ProtectionRules = append(out.ProtectionRules, p)
	}
	if e.BranchPolicy != "" {
		out.ProtectionRules = append(out.ProtectionRules, rule(2, "branch_policy"))
		out.DeploymentBranchPolicy = &DeploymentBranchPolicy{ProtectedBranches: e.BranchPolicy == model.BranchPolicyProtected,
			CustomBranchPolicies: e.BranchPolicy == model.BranchPolicyCustom}
	}
	return out
}

// ToBranchPolicy converts a deployment branch policy.
func ToBranchPolicy(p *model.DeploymentBranchPolicy) BranchPolicy {
	return BranchPolicy{ID: p.ID, NodeID: NodeID("DBP", p.ID), Name: p.Name, Type: p.Type}
}

// Variable is components/schemas/actions-variable, and with Visibility
// organization-actions-variable.
type Variable struct {
	Name                    string `json:"name"`
	Value                   string `json:"value"`
	CreatedAt               string `json:"created_at"`
	UpdatedAt               string `json:"updated_at"`
	Visibility              string `json:"visibility,omitempty"`
	SelectedRepositoriesURL string `json:"selected_repositories_url,omitempty"`
}

// ToVariable converts a variable; an organization's has its visibility
// (and the URL of its selected repositories when selected).
func (u URLs) ToVariable(v *model.Variable, orgLogin string) Variable {
	out := Variable{Name: v.Name, Value: v.Value, CreatedAt: Time(v.CreatedAt), UpdatedAt: Time(v.UpdatedAt)}
	if v.RepoID == 0 && v.EnvironmentID == 0 {
		out.Visibility = v.Visibility
		if v.Visibility == "selected" {
			out.SelectedRepositoriesURL = u.API + "/orgs/" + orgLogin + "/" + v.Kind + "/variables/" + url.PathEscape(v.Name) + "/repositories"
		}
	}
	return out
}
