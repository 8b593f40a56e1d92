package model

import "time"

// OAuthClient is what users authorize in the web and device flows: an
// OAuth app (its tokens are gho_ with classic scopes) or a GitHub App
// (its tokens are user access tokens, ghu_, narrowed by the app).
type OAuthClient struct {
	ClientID    string
	OAuthAppID  int64 // an OAuth app's id; 0 for a GitHub App
	AppID       int64 // a GitHub App's id; 0 for an OAuth app
	Name        string
	URL         string
	OwnerID     int64 // 0 for the apps hubd ships (the GitHub CLI)
	CallbackURL string
	DeviceFlow  bool
	// Permissions are a GitHub App's (nil for OAuth apps).
	Permissions map[string]string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// GitHubApp reports whether the client is a GitHub App.
func (c *OAuthClient) GitHubApp() bool { return c.AppID != 0 }

// OAuthCode is a short-lived secret of the authorization flows, kept only
// as a hash: an authorization code (web flow), a device code with its user
// code (device flow) or a refresh token of a user access token.
type OAuthCode struct {
	ID          int64
	Kind        string // OAuthCodeWeb, OAuthCodeDevice or OAuthCodeRefresh
	ClientID    string
	UserID      int64 // 0 until a device code is authorized
	Scopes      string
	RedirectURI string
	// CodeChallenge is a web flow code's PKCE challenge (S256), "" when
	// the client sent none.
	CodeChallenge string
	State         string // device codes: pending, approved, denied
	Interval      int    // device codes: seconds between polls
	LastPollAt    *time.Time
	TokenID       int64 // refresh tokens: the access token issued with it
	ExpiresAt     time.Time
	CreatedAt     time.Time
}

// Kinds of OAuthCode and states of device codes.
const (
	OAuthCodeWeb     = "code"
	OAuthCodeDevice  = "device"
	OAuthCodeRefresh = "refresh"

	DevicePending  = "pending"
	DeviceApproved = "approved"
	DeviceDenied   = "denied"
)
