package model

import "time"

// Hook is a webhook of a repository (RepoID), an organization (OrgID) or a
// GitHub App (AppID): exactly one of them is set.
type Hook struct {
	ID                      int64
	RepoID, OrgID, AppID    int64
	Name                    string // always "web"
	Active                  bool
	Events                  []string
	URL                     string
	ContentType             string // json or form
	Secret                  string // "" when none; never shown
	InsecureSSL             string // "0" or "1"
	SinceEvent              int64  // events up to this id predate the hook
	LastCode                *int   // the last delivery's answer (nil: none yet)
	LastStatus, LastMessage string
	CreatorID               int64
	CreatedAt, UpdatedAt    time.Time
}

// Hook target types, as X-GitHub-Hook-Installation-Target-Type names them.
const (
	HookRepository   = "repository"
	HookOrganization = "organization"
	HookApp          = "integration"
)

// TargetType is the kind of account or resource the hook is installed on.
func (h *Hook) TargetType() string {
	switch {
	case h.RepoID != 0:
		return HookRepository
	case h.OrgID != 0:
		return HookOrganization
	}
	return HookApp
}

// TargetID is the id of what the hook is installed on.
func (h *Hook) TargetID() int64 {
	switch {
	case h.RepoID != 0:
		return h.RepoID
	case h.OrgID != 0:
		return h.OrgID
	}
	return h.AppID
}

// Wants reports whether the hook is subscribed to a webhook event name.
func (h *Hook) Wants(event string) bool {
	for _, e := range h.Events {
		if e == event || e == "*" {
			return true
		}
	}
	return false
}

// HookPayload is the body of one webhook event, shared by the deliveries of
// every hook that gets it.
type HookPayload struct {
	ID        int64
	Event     string
	Action    string // "" when the event has none
	Body      []byte // JSON
	CreatedAt time.Time
}

// HookDelivery is one attempt to deliver a payload to a hook: the first
// and every redelivery (same GUID, Redelivery set) are rows of their own,
// automatic retries of a failed delivery included.
type HookDelivery struct {
	ID             int64
	HookID         int64
	PayloadID      int64
	GUID           string
	Event, Action  string
	RepoID         int64 // 0: none
	InstallationID int64 // 0: none
	Redelivery     bool
	// Attempt counts the automatic attempts of one delivery (1: the
	// first; a manual redelivery starts again at 1); RetryAt is when a
	// retry may be sent (zero: at once).
	Attempt   int
	RetryAt   time.Time
	Delivered bool // false while it waits for the worker
	// StartedAt is when a worker began sending it, committed before it
	// sends (zero: not begun); one found begun and not Delivered was
	// interrupted and is not sent again on its own.
	StartedAt      time.Time
	Status         string
	StatusCode     int
	Duration       time.Duration
	DeliveredAt    time.Time
	RequestHeaders map[string]string
	// ResponseHeaders and ResponseBody are what the receiver answered
	// (the body cut at a limit); empty when it did not answer.
	ResponseHeaders map[string]string
	ResponseBody    *string
	CreatedAt       time.Time

	Payload []byte // loaded for single deliveries and for sending
}
