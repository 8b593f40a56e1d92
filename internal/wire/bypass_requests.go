package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// PushRuleBypassRequest is push-rule-bypass-request.
type PushRuleBypassRequest struct {
	ID                 int64                 `json:"id"`
	Number             int64                 `json:"number"`
	Repository         BypassRepository      `json:"repository"`
	Organization       BypassOrganization    `json:"organization"`
	Requester          BypassActorRef        `json:"requester"`
	RequestType        string                `json:"request_type"`
	Data               []BypassRuleData      `json:"data"`
	ResourceIdentifier string                `json:"resource_identifier"`
	Status             string                `json:"status"`
	RequesterComment   *string               `json:"requester_comment"`
	ExpiresAt          string                `json:"expires_at"`
	CreatedAt          string                `json:"created_at"`
	Responses          []BypassResponseEntry `json:"responses"`
	URL                string                `json:"url"`
	HTMLURL            string                `json:"html_url"`
}

// BypassRepository is the request's repository.
type BypassRepository struct {
	ID       *int64  `json:"id"`
	Name     *string `json:"name"`
	FullName *string `json:"full_name"`
}

// BypassOrganization is the request's organization (nulls for a user's
// repository).
type BypassOrganization struct {
	ID   *int64  `json:"id"`
	Name *string `json:"name"`
}

// BypassActorRef names a requester or reviewer.
type BypassActorRef struct {
	ActorID   int64  `json:"actor_id"`
	ActorName string `json:"actor_name"`
}

// BypassRuleData is one broken push rule of a ruleset.
type BypassRuleData struct {
	RulesetID       int64  `json:"ruleset_id"`
	RulesetName     string `json:"ruleset_name"`
	TotalViolations int    `json:"total_violations"`
	RuleType        string `json:"rule_type"`
}

// BypassResponseEntry is bypass-response.
type BypassResponseEntry struct {
	ID        int64          `json:"id"`
	Reviewer  BypassActorRef `json:"reviewer"`
	Status    string         `json:"status"`
	CreatedAt string         `json:"created_at"`
}

// BypassRequestHTMLURL is where a request is reviewed in a browser.
func (u URLs) BypassRequestHTMLURL(x *model.PushBypassRequest) string {
	return u.Web + "/" + x.RepoOwner + "/" + x.RepoName + "/exemptions/" + strconv.FormatInt(x.Number, 10)
}

// ToPushRuleBypassRequest converts a request with its status at now's
// reading (state).
func (u URLs) ToPushRuleBypassRequest(x *model.PushBypassRequest, state string) PushRuleBypassRequest {
	id, name, full := x.RepoID, x.RepoName, x.RepoOwner+"/"+x.RepoName
	out := PushRuleBypassRequest{ID: x.ID, Number: x.Number, Repository: BypassRepository{ID: &id, Name: &name, FullName: &full},
		Requester: BypassActorRef{ActorID: x.RequesterID, ActorName: x.RequesterLogin}, RequestType: "push_ruleset_bypass",
		Data: []BypassRuleData{}, ResourceIdentifier: x.Resource, Status: state, RequesterComment: x.Comment,
		ExpiresAt: Time(x.ExpiresAt), CreatedAt: Time(x.CreatedAt), Responses: []BypassResponseEntry{},
		URL: u.RepoAPI(x.RepoOwner, x.RepoName) + "/bypass-requests/push-rules/" + strconv.FormatInt(x.Number, 10), HTMLURL: u.BypassRequestHTMLURL(x)}
	if x.OrgID != 0 {
		org, login := x.OrgID, x.RepoOwner
		out.Organization = BypassOrganization{ID: &org, Name: &login}
	}
	for _, d := range x.Data {
		out.Data = append(out.Data, BypassRuleData{RulesetID: d.RulesetID, RulesetName: d.RulesetName, TotalViolations: d.Total, RuleType: d.RuleType})
	}
	for _, r := range x.Responses {
		out.Responses = append(out.Responses, BypassResponseEntry{ID: r.ID, Reviewer: BypassActorRef{ActorID: r.ReviewerID, ActorName: r.ReviewerLogin},
			Status: r.Status, CreatedAt: Time(r.CreatedAt)})
	}
	return out
}
