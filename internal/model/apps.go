package model

import "time"

// ActionsAppSlug is the slug of hubd's GitHub Actions app, whose check
// runs are workflow jobs.
const ActionsAppSlug = "github-actions"

// TypeBot is the account type of a GitHub App's bot user ("slug[bot]"),
// the author of what the app does with an installation token.
const TypeBot AccountType = "Bot"

// App is a GitHub App: its identity, the permissions and events it asks
// for, and the bot account that acts for it. The client secret and the
// private keys are not part of it: only their hashes and public halves are
// kept (see store/apps.go).
type App struct {
	ID          int64
	Slug        string
	Name        string
	OwnerID     int64
	Owner       *Account
	BotID       int64
	Description *string
	ExternalURL string
	ClientID    string
	// Permissions are fine-grained permission names ("issues",
	// "contents", "members", ...) to "read", "write" or "admin".
	Permissions map[string]string
	Events      []string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// AppKey is the public half of one of an app's private keys.
type AppKey struct {
	ID          int64
	AppID       int64
	PublicPEM   string
	Fingerprint string // "SHA256:..." of the DER public key, as GitHub shows it
	CreatedAt   time.Time
}

// Installation is an app installed on a user or organization account, on
// all of its repositories or a selection of them.
type Installation struct {
	ID          int64
	AppID       int64
	App         *App
	AccountID   int64
	Account     *Account
	Selection   string // "all" or "selected"
	Permissions map[string]string
	Events      []string
	SuspendedAt *time.Time
	SuspendedBy *Account
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// Enterprise is an installation on hubd's enterprise rather than on an
	// account: AccountID is then the app's bot, which owns no repositories.
	Enterprise bool
}

// Installation repository selections.
const (
	SelectAll      = "all"
	SelectSelected = "selected"
)
