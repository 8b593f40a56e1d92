package wire

import (
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// PATPermissions is a fine-grained token's permissions by the kind of
// resource they act on.
type PATPermissions struct {
	Organization map[string]string `json:"organization"`
	Repository   map[string]string `json:"repository"`
	Other        map[string]string `json:"other"`
}

// patToken is what grants and requests say of their token.
type patToken struct {
	Owner               SimpleUser     `json:"owner"`
	RepositorySelection string         `json:"repository_selection"`
	RepositoriesURL     string         `json:"repositories_url"`
	Permissions         PATPermissions `json:"permissions"`
	TokenID             int64          `json:"token_id"`
	TokenName           string         `json:"token_name"`
	TokenExpired        bool           `json:"token_expired"`
	TokenExpiresAt      *string        `json:"token_expires_at"`
	TokenLastUsedAt     *string        `json:"token_last_used_at"`
}

// PATGrantRequest is organization-programmatic-access-grant-request.
type PATGrantRequest struct {
	ID     int64   `json:"id"`
	Reason *string `json:"reason"`
	patToken
	CreatedAt string `json:"created_at"`
}

// PATGrant is organization-programmatic-access-grant.
type PATGrant struct {
	ID int64 `json:"id"`
	patToken
	AccessGrantedAt string `json:"access_granted_at"`
}

// PATGrantFacts is what a grant or a request says of itself and of its
// fine-grained token (filled from the store by the caller, so wire stays
// free of storage).
type PATGrantFacts struct {
	ID        int64
	Reason    *string // the user's reason for the request
	CreatedAt time.Time
	GrantedAt *time.Time
	Owner     *model.Account // the token's user
	// The token's.
	TokenID        int64
	TokenName      string
	Selection      string
	Permissions    map[string]string
	TokenExpiresAt *time.Time
}

func (u URLs) patToken(g PATGrantFacts, org, kind string, now time.Time) patToken {
	p := PATPermissions{Organization: map[string]string{}, Repository: map[string]string{}, Other: map[string]string{}}
	for name, level := range g.Permissions {
		switch authz.PermissionClass(name) {
		case "organization":
			p.Organization[name] = level
		case "repository":
			p.Repository[name] = level
		default:
			p.Other[name] = level
		}
	}
	return patToken{Owner: u.ToSimpleUser(g.Owner), RepositorySelection: g.Selection,
		RepositoriesURL: u.API + "/orgs/" + org + "/" + kind + "/" + strconv.FormatInt(g.ID, 10) + "/repositories",
		Permissions:     p, TokenID: g.TokenID, TokenName: g.TokenName,
		TokenExpired: g.TokenExpiresAt != nil && !g.TokenExpiresAt.After(now), TokenExpiresAt: TimePtr(g.TokenExpiresAt)}
}

// ToPATGrantRequest converts a pending grant of the organization org.
func (u URLs) ToPATGrantRequest(g PATGrantFacts, org string, now time.Time) PATGrantRequest {
	return PATGrantRequest{ID: g.ID, Reason: g.Reason, patToken: u.patToken(g, org, "personal-access-token-requests", now), CreatedAt: Time(g.CreatedAt)}
}

// ToPATGrant converts an approved grant of the organization org.
func (u URLs) ToPATGrant(g PATGrantFacts, org string, now time.Time) PATGrant {
	granted := g.CreatedAt
	if g.GrantedAt != nil {
		granted = *g.GrantedAt
	}
	return PATGrant{ID: g.ID, patToken: u.patToken(g, org, "personal-access-tokens", now), AccessGrantedAt: Time(granted)}
}
