// Package authz is the one place that knows who a caller is and what it may
// do: token kinds, classic scopes, fine-grained permissions, repository
// visibility and organization roles.
package authz

import (
	"sort"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// TokenKind is the kind of credential a caller presented.
type TokenKind string

const (
	Anonymous    TokenKind = ""
	ClassicPAT   TokenKind = "classic"        // ghp_
	FineGrained  TokenKind = "fine_grained"   // github_pat_
	OAuthApp     TokenKind = "oauth"          // gho_
	UserToServer TokenKind = "user_to_server" // ghu_ (UAT)
	Installation TokenKind = "installation"   // ghs_ (IAT)
)

// Prefixes maps each kind to GitHub's token prefix.
var Prefixes = map[TokenKind]string{
	ClassicPAT:   "ghp_",
	FineGrained:  "github_pat_",
	OAuthApp:     "gho_",
	UserToServer: "ghu_",
	Installation: "ghs_",
}

// KindOfToken guesses the kind from the prefix ("" when none matches).
func KindOfToken(tok string) TokenKind {
	for k, p := range Prefixes {
		if strings.HasPrefix(tok, p) {
			return k
		}
	}
	return Anonymous
}

// Permission is a repository access level, ordered.
type Permission int

const (
	None Permission = iota
	Read
	Triage
	Write
	Maintain
	Admin
)

var permNames = [...]string{"none", "read", "triage", "write", "maintain", "admin"}

func (p Permission) String() string { return permNames[p] }

// ParsePermission reads a level name ("pull"/"push" are GitHub's old names).
func ParsePermission(s string) (Permission, bool) {
	switch s {
	case "none":
		return None, true
	case "read", "pull":
		return Read, true
	case "triage":
		return Triage, true
	case "write", "push":
		return Write, true
	case "maintain":
		return Maintain, true
	case "admin":
		return Admin, true
	}
	return None, false
}

// Caller is the authenticated principal of a request.
type Caller struct {
	Kind    TokenKind
	User    *model.Account // nil for anonymous callers and app JWTs; the app's bot for installation tokens
	TokenID int64
	Scopes  Scopes // classic and OAuth tokens
	// ExpiresAt is when the token stops working (zero: it does not
	// expire); caches of authentications keep it no longer.
	ExpiresAt time.Time

	// Fine-grained, UAT and IAT tokens: permissions by name ("contents",
	// "issues", "metadata", "administration", "members", ...) to "read",
	// "write" or "admin"; RepoIDs limits them to selected repositories when
	// non-nil.
	Permissions    map[string]string
	RepoIDs        map[int64]bool
	InstallationID int64
	AppID          int64

	// DeployKeyID is the deploy key a git client signed in with over SSH
	// (it acts for no user).
	DeployKeyID int64

	// Installation tokens: the account the installation is on (its
	// repositories are the ones the token may reach, RepoIDs narrowing
	// them further when set) and whether it is suspended.
	InstallationTargetID  int64
	InstallationSuspended bool

	// User access tokens (ghu_): the repositories the app's installations
	// reach, by account: nil for all of the account's, else the selected
	// ones (authz/uat.go).
	AppReach map[int64]map[int64]bool

	// ClientID is the client of ClientCredentials callers and of the
	// tokens an OAuth app or a GitHub App obtained for a user.
	ClientID string
	// The repositories the installation reaches and, on an organization,
	// its active members: its rate limit scales with them.
	InstallationRepos, InstallationUsers int

	// Fine-grained personal access tokens: the account whose resources the
	// token reaches (the user or one organization; patoken.go) and whether
	// it may reach its private ones now (the organization's policy and
	// approval allow it).
	ResourceOwnerID    int64
	ResourceOwnerLogin string
	OwnerAccess        bool
}

// Authenticated reports whether a credential was presented and accepted.
func (c *Caller) Authenticated() bool { return c != nil && c.Kind != Anonymous }

// UserID is the acting user's id, 0 when there is none.
func (c *Caller) UserID() int64 {
	if c == nil || c.User == nil {
		return 0
	}
	return c.User.ID
}

// SiteAdmin reports whether the caller acts as a site administrator.
func (c *Caller) SiteAdmin() bool { return c != nil && c.User != nil && c.User.SiteAdmin }

// HasScope reports whether a classic or OAuth token carries scope s, directly
// or through a parent scope. Other token kinds are not limited by scopes.
func (c *Caller) HasScope(s string) bool {
	if c == nil || !c.Authenticated() {
		return false
	}
	if c.Kind != ClassicPAT && c.Kind != OAuthApp {
		return true
	}
	return c.Scopes.Has(s)
}

// OrgToken is the token check an organization-level operation starts
// with. An installation is answered at once (done): allowed when it is
// installed on organization orgID, else not found. A classic or OAuth
// token without scope gets a 403. Otherwise the caller's user is left for
// the operation's own permission check (done is false).
func (c *Caller) OrgToken(orgID int64, scope string) (done bool, err error) {
	switch c.Kind {
	case Installation:
		if c.InstallationTargetID != orgID {
			return true, model.ErrNotFound
		}
		return true, nil
	case ClassicPAT, OAuthApp:
		if !c.HasScope(scope) {
			return true, model.Forbidden("Resource not accessible by personal access token")
		}
	}
	return false, nil
}

// Scopes is a set of classic OAuth scopes.
type Scopes map[string]bool

// parents lists, for each scope, the scopes that imply it.
var parents = map[string][]string{
	"repo:status":                  {"repo"},
	"repo_deployment":              {"repo"},
	"public_repo":                  {"repo"},
	"repo:invite":                  {"repo"},
	"security_events":              {"repo"},
	"write:org":                    {"admin:org"},
	"read:org":                     {"write:org", "admin:org"},
	"manage_runners:org":           {"admin:org"},
	"write:public_key":             {"admin:public_key"},
	"read:public_key":              {"write:public_key", "admin:public_key"},
	"write:repo_hook":              {"admin:repo_hook"},
	"read:repo_hook":               {"write:repo_hook", "admin:repo_hook"},
	"read:user":                    {"user"},
	"user:email":                   {"user"},
	"user:follow":                  {"user"},
	"write:packages":               {},
	"read:packages":                {"write:packages"},
	"write:discussion":             {},
	"read:discussion":              {"write:discussion"},
	"read:enterprise":              {"admin:enterprise"},
	"manage_runners:enterprise":    {"admin:enterprise"},
	"manage_billing:enterprise":    {"admin:enterprise"},
	"scim:enterprise":              {},
	"read:network_configurations":  {"write:network_configurations"},
	"write:network_configurations": {},
	"write:gpg_key":                {"admin:gpg_key"},
	"read:gpg_key":                 {"write:gpg_key", "admin:gpg_key"},
	"read:ssh_signing_key":         {"write:ssh_signing_key", "admin:ssh_signing_key"},
	"write:ssh_signing_key":        {"admin:ssh_signing_key"},
	"read:audit_log":               {"admin:enterprise", "admin:org"},
	"read:project":                 {"project"},
	"codespace:secrets":            {"codespace"},
}

// Known lists every scope GitHub issues (classic tokens).
var Known = func() map[string]bool {
	m := map[string]bool{
		"repo": true, "workflow": true, "admin:org": true, "admin:public_key": true,
		"admin:repo_hook": true, "admin:org_hook": true, "gist": true, "notifications": true,
		"user": true, "delete_repo": true, "admin:enterprise": true, "admin:gpg_key": true,
		"admin:ssh_signing_key": true, "codespace": true, "copilot": true, "project": true,
		"site_admin": true, "audit_log": true, "delete:packages": true,
	}
	for s := range parents {
		m[s] = true
	}
	return m
}()

// ParseScopes reads a comma or space separated list, dropping empties.
func ParseScopes(s string) Scopes {
	out := Scopes{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out[f] = true
	}
	return out
}

// Has reports whether s is in the set or implied by one of its members.
func (sc Scopes) Has(s string) bool {
	if sc[s] {
		return true
	}
	for _, p := range parents[s] {
		if sc.Has(p) {
			return true
		}
	}
	return false
}

// String is the header form GitHub sends in X-OAuth-Scopes ("repo, user").
func (sc Scopes) String() string {
	l := make([]string, 0, len(sc))
	for s := range sc {
		l = append(l, s)
	}
	sort.Strings(l)
	return strings.Join(l, ", ")
}
