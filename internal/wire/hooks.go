package wire

import (
	"encoding/json"
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// HookConfig is components/schemas/webhook-config. The secret is never
// shown: "********" stands for one that is set.
type HookConfig struct {
	ContentType string `json:"content_type"`
	InsecureSSL string `json:"insecure_ssl"`
	URL         string `json:"url"`
	Secret      string `json:"secret,omitempty"`
}

// HookResponse is components/schemas/hook-response: what the last
// delivery got back.
type HookResponse struct {
	Code    *int    `json:"code"`
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// Hook is components/schemas/hook (repositories) and org-hook
// (organizations, without test_url and last_response).
type Hook struct {
	Type          string        `json:"type"`
	ID            int64         `json:"id"`
	Name          string        `json:"name"`
	Active        bool          `json:"active"`
	Events        []string      `json:"events"`
	Config        HookConfig    `json:"config"`
	UpdatedAt     string        `json:"updated_at"`
	CreatedAt     string        `json:"created_at"`
	URL           string        `json:"url"`
	TestURL       string        `json:"test_url,omitempty"`
	PingURL       string        `json:"ping_url"`
	DeliveriesURL string        `json:"deliveries_url"`
	LastResponse  *HookResponse `json:"last_response,omitempty"`
}

// HookAPIURL is the API URL of a repository's or organization's hook
// (repo or org is nil).
func (u URLs) HookAPIURL(repo *model.Repo, org *model.Account, id int64) string {
	if repo != nil {
		return u.RepoAPIURL(repo) + "/hooks/" + strconv.FormatInt(id, 10)
	}
	return u.OrgURL(org.Login) + "/hooks/" + strconv.FormatInt(id, 10)
}

// ToHookConfig converts a hook's config.
func ToHookConfig(h *model.Hook) HookConfig {
	c := HookConfig{ContentType: h.ContentType, InsecureSSL: h.InsecureSSL, URL: h.URL}
	if h.Secret != "" {
		c.Secret = "********"
	}
	return c
}

// ToHookResponse converts a hook's last response ("unused" before the
// first delivery).
func ToHookResponse(h *model.Hook) *HookResponse {
	if h.LastStatus == "" {
		return &HookResponse{Status: "unused"}
	}
	msg := h.LastMessage
	return &HookResponse{Code: h.LastCode, Status: h.LastStatus, Message: &msg}
}

// ToHook converts a hook of repo (or, repo nil, of org).
func (u URLs) ToHook(repo *model.Repo, org *model.Account, h *model.Hook) Hook {
	self := u.HookAPIURL(repo, org, h.ID)
	events := h.Events
	if events == nil {
		events = []string{}
	}
	out := Hook{ID: h.ID, Name: h.Name, Active: h.Active, Events: events, Config: ToHookConfig(h),
		UpdatedAt: Time(h.UpdatedAt), CreatedAt: Time(h.CreatedAt), URL: self, PingURL: self + "/pings",
		DeliveriesURL: self + "/deliveries"}
	if repo != nil {
		out.Type, out.TestURL, out.LastResponse = "Repository", self+"/test", ToHookResponse(h)
	} else {
		out.Type = "Organization"
	}
	return out
}

// HookDeliveryItem is components/schemas/hook-delivery-item.
type HookDeliveryItem struct {
	ID             int64   `json:"id"`
	GUID           string  `json:"guid"`
	DeliveredAt    string  `json:"delivered_at"`
	Redelivery     bool    `json:"redelivery"`
	Duration       float64 `json:"duration"`
	Status         string  `json:"status"`
	StatusCode     int     `json:"status_code"`
	Event          string  `json:"event"`
	Action         *string `json:"action"`
	InstallationID *int64  `json:"installation_id"`
	RepositoryID   *int64  `json:"repository_id"`
	ThrottledAt    *string `json:"throttled_at"`
}

// HookDeliveryRequest and HookDeliveryResponse are the request and
// response of a delivery as the log shows them.
type HookDeliveryRequest struct {
	Headers map[string]string `json:"headers"`
	Payload json.RawMessage   `json:"payload"`
}

type HookDeliveryResponse struct {
	Headers map[string]string `json:"headers"`
	Payload *string           `json:"payload"`
}

// HookDelivery is components/schemas/hook-delivery.
type HookDelivery struct {
	HookDeliveryItem
	URL      string               `json:"url"`
	Request  HookDeliveryRequest  `json:"request"`
	Response HookDeliveryResponse `json:"response"`
}

func nonZero(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// ToHookDeliveryItem converts a delivery for the list.
func ToHookDeliveryItem(d *model.HookDelivery) HookDeliveryItem {
	out := HookDeliveryItem{ID: d.ID, GUID: d.GUID, DeliveredAt: Time(d.DeliveredAt), Redelivery: d.Redelivery,
		Duration: float64(d.Duration.Microseconds()) / 1e6, Status: d.Status, StatusCode: d.StatusCode, Event: d.Event,
		InstallationID: nonZero(d.InstallationID), RepositoryID: nonZero(d.RepoID)}
	if d.Action != "" {
		a := d.Action
		out.Action = &a
	}
	return out
}

// ToHookDelivery converts one delivery with its request and response;
// url is where it was sent.
func ToHookDelivery(d *model.HookDelivery, url string) HookDelivery {
	payload := json.RawMessage(d.Payload)
	if len(payload) == 0 {
		payload = json.RawMessage("null")
	}
	return HookDelivery{HookDeliveryItem: ToHookDeliveryItem(d), URL: url,
		Request:  HookDeliveryRequest{Headers: d.RequestHeaders, Payload: payload},
		Response: HookDeliveryResponse{Headers: d.ResponseHeaders, Payload: d.ResponseBody}}
}
