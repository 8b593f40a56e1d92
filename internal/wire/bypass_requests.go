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

// ExemptionRequest is the webhooks' exemption-request of a push rule
// bypass request (status in the webhooks' words: denied is rejected, an
// approved request not yet pushed is still pending).
type ExemptionRequest struct {
	ID                   int64               `json:"id"`
	Number               int64               `json:"number"`
	RepositoryID         int64               `json:"repository_id"`
	RequesterID          int64               `json:"requester_id"`
	RequesterLogin       string              `json:"requester_login"`
	RequestType          string              `json:"request_type"`
	ExemptionRequestData ExemptionPushData   `json:"exemption_request_data"`
	ResourceIdentifier   string              `json:"resource_identifier"`
	Status               string              `json:"status"`
	RequesterComment     *string             `json:"requester_comment"`
	Metadata             any                 `json:"metadata"`
	ExpiresAt            string              `json:"expires_at"`
	CreatedAt            string              `json:"created_at"`
	Responses            []ExemptionResponse `json:"responses"`
	HTMLURL              string              `json:"html_url"`
}

// ExemptionPushData is exemption-request-push-ruleset-bypass.
type ExemptionPushData struct {
	Type string           `json:"type"`
	Data []BypassRuleData `json:"data"`
}

// ExemptionResponse is exemption-response.
type ExemptionResponse struct {
	ID              int64   `json:"id"`
	ReviewerID      int64   `json:"reviewer_id"`
	ReviewerLogin   string  `json:"reviewer_login"`
	Status          string  `json:"status"`
	ReviewerComment *string `json:"reviewer_comment"`
	CreatedAt       string  `json:"created_at"`
}

// exemptionStatus words a response's or request's status as the webhooks
// do.
func exemptionStatus(s string) string {
	switch s {
	case model.BypassRequestDenied:
		return "rejected"
	case model.BypassRequestApproved:
		return model.BypassRequestPending
	case model.BypassRequestExpired:
		return model.BypassRequestCancelled
	}
	return s
}

// ToExemptionResponse converts a reviewer's response.
func ToExemptionResponse(r model.BypassResponse) ExemptionResponse {
	st := r.Status
	if st == model.BypassRequestDenied {
		st = "rejected"
	}
	return ExemptionResponse{ID: r.ID, ReviewerID: r.ReviewerID, ReviewerLogin: r.ReviewerLogin, Status: st, CreatedAt: Time(r.CreatedAt)}
}

// ToExemptionRequest converts a request at its status (state).
func (u URLs) ToExemptionRequest(x *model.PushBypassRequest, state string) ExemptionRequest {
	out := ExemptionRequest{ID: x.ID, Number: x.Number, RepositoryID: x.RepoID, RequesterID: x.RequesterID, RequesterLogin: x.RequesterLogin,
		RequestType: "push_ruleset_bypass", ExemptionRequestData: ExemptionPushData{Type: "push_ruleset_bypass", Data: []BypassRuleData{}},
		ResourceIdentifier: x.Resource, Status: exemptionStatus(state), RequesterComment: x.Comment, ExpiresAt: Time(x.ExpiresAt),
		CreatedAt: Time(x.CreatedAt), Responses: []ExemptionResponse{}, HTMLURL: u.BypassRequestHTMLURL(x)}
	for _, d := range x.Data {
		out.ExemptionRequestData.Data = append(out.ExemptionRequestData.Data,
			BypassRuleData{RulesetID: d.RulesetID, RulesetName: d.RulesetName, TotalViolations: d.Total, RuleType: d.RuleType})
	}
	for _, r := range x.Responses {
		out.Responses = append(out.Responses, ToExemptionResponse(r))
	}
	return out
}
