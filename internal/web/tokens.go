package web

import (
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/patokens"
	"github.com/hubd/hubd/internal/websession"
)

// The token creation forms of /settings/tokens: a classic token (note,
// expiration, scopes) and a fine-grained one (name, resource owner,
// repositories, permissions), both through the personal access token
// service the CLI uses; the new token's value is shown once, on the
// answer to the form, and never stored in plain.

// classicScopes are the scopes the classic form offers (GitHub's list,
// top-level scopes with their parts).
var classicScopes = []string{"repo", "workflow", "write:packages", "read:packages", "delete:packages", "admin:org",
	"write:org", "read:org", "admin:public_key", "admin:repo_hook", "admin:org_hook", "gist", "notifications", "user",
	"read:user", "user:email", "delete_repo", "write:discussion", "project", "codespace", "audit_log", "admin:gpg_key",
	"admin:ssh_signing_key"}

// finePermissions are the permissions the fine-grained form offers, with
// the levels GitHub allows for each.
var finePermissions = []struct {
	Name, Label string
	Levels      []string
	Org         bool
}{
	{"contents", "Contents", []string{"read", "write"}, false},
	{"issues", "Issues", []string{"read", "write"}, false},
	{"pull_requests", "Pull requests", []string{"read", "write"}, false},
	{"actions", "Actions", []string{"read", "write"}, false},
	{"workflows", "Workflows", []string{"write"}, false},
	{"checks", "Checks", []string{"read", "write"}, false},
	{"statuses", "Commit statuses", []string{"read", "write"}, false},
	{"administration", "Administration", []string{"read", "write"}, false},
	{"secrets", "Secrets", []string{"read", "write"}, false},
	{"actions_variables", "Variables", []string{"read", "write"}, false},
	{"members", "Members (organization)", []string{"read", "write"}, true},
}

// tokenLifetimes are the expiration choices, in days (0: none).
var tokenLifetimes = []int{7, 30, 60, 90, 0}

// newToken is the answer to a creation form: the token's value, once.
type newToken struct {
	Plain, Kind, Name string
}

// createToken creates a token from one of the two forms.
func (s *site) createToken() bool {
	if websession.Session(s.r) == "" || s.h.svc.PATokens == nil {
		return s.notFound()
	}
	f := s.r.PostForm
	u := user(s.r)
	ctx := s.r.Context()
	days, err := strconv.Atoi(f.Get("expires_in_days"))
	if err != nil || days < 0 {
		return s.back("/settings/tokens", model.Invalid("PersonalAccessToken", "expires_at", "invalid"))
	}
	life := time.Duration(days) * 24 * time.Hour
	made := newToken{Kind: f.Get("kind")}
	switch made.Kind {
	case "classic":
		plain, _, err := s.h.svc.PATokens.CreateClassic(ctx, patokens.ClassicInput{User: u, Note: f.Get("note"), Scopes: f["scopes"], ExpiresIn: life})
		if err != nil {
			return s.back("/settings/tokens", err)
		}
		made.Plain, made.Name = plain, strings.TrimSpace(f.Get("note"))
	case "fine_grained":
		in := patokens.CreateInput{User: u, Owner: u, Name: f.Get("name"), Description: f.Get("description"),
			Reason: f.Get("reason"), ExpiresIn: life, Never: days == 0, Permissions: map[string]string{}}
		if o := strings.TrimSpace(f.Get("owner")); o != "" && !strings.EqualFold(o, u.Login) {
			owner, err := s.h.d.Store.R().AccountByLogin(ctx, o)
			if err != nil {
				return s.back("/settings/tokens", model.Invalid("PersonalAccessToken", "resource_owner", "invalid"))
			}
			in.Owner = owner
		}
		switch f.Get("repository_selection") {
		case "all":
			in.Selection = authz.SelectionAll
		case "selected":
			in.Selection = authz.SelectionSubset
			in.Repositories = strings.FieldsFunc(f.Get("repositories"), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' })
		default:
			in.Selection = authz.SelectionNone
		}
		for _, p := range finePermissions {
			if level := f.Get("permission_" + p.Name); level != "" {
				in.Permissions[p.Name] = level
			}
		}
		c, err := s.h.svc.PATokens.Create(ctx, in)
		if err != nil {
			return s.back("/settings/tokens", err)
		}
		made.Plain, made.Name = c.Plain, c.Token.Name
	default:
		return s.notFound()
	}
	return s.tokensList(&made)
}

// Cache headers: a page that shows a new token's value is never stored.
func (v tokensView) noStore() bool { return v.New != nil }
