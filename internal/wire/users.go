package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// SimpleUser is components/schemas/simple-user.
type SimpleUser struct {
	Name              *string `json:"name,omitempty"`
	Email             *string `json:"email,omitempty"`
	Login             string  `json:"login"`
	ID                int64   `json:"id"`
	NodeID            string  `json:"node_id"`
	AvatarURL         string  `json:"avatar_url"`
	GravatarID        string  `json:"gravatar_id"`
	URL               string  `json:"url"`
	HTMLURL           string  `json:"html_url"`
	FollowersURL      string  `json:"followers_url"`
	FollowingURL      string  `json:"following_url"`
	GistsURL          string  `json:"gists_url"`
	StarredURL        string  `json:"starred_url"`
	SubscriptionsURL  string  `json:"subscriptions_url"`
	OrganizationsURL  string  `json:"organizations_url"`
	ReposURL          string  `json:"repos_url"`
	EventsURL         string  `json:"events_url"`
	ReceivedEventsURL string  `json:"received_events_url"`
	Type              string  `json:"type"`
	UserViewType      string  `json:"user_view_type"`
	SiteAdmin         bool    `json:"site_admin"`
}

// AvatarURL is the account's avatar (identicon-style route served by hubd).
func (u URLs) AvatarURL(a *model.Account) string {
	return u.Web + "/avatars/u/" + strconv.FormatInt(a.ID, 10) + "?v=4"
}

// NodePrefix is the node id prefix of an account.
func NodePrefix(a *model.Account) string {
	if a.IsOrg() {
		return "O"
	}
	return "U"
}

// ToSimpleUser converts an account (user or organization as an owner).
func (u URLs) ToSimpleUser(a *model.Account) SimpleUser {
	base := u.API + "/users/" + a.Login
	return SimpleUser{
		Login: a.Login, ID: a.ID, NodeID: NodeID(NodePrefix(a), a.ID),
		AvatarURL: u.AvatarURL(a), GravatarID: "",
		URL: base, HTMLURL: u.Web + "/" + a.Login,
		FollowersURL: base + "/followers", FollowingURL: base + "/following{/other_user}",
		GistsURL: base + "/gists{/gist_id}", StarredURL: base + "/starred{/owner}{/repo}",
		SubscriptionsURL: base + "/subscriptions", OrganizationsURL: base + "/orgs",
		ReposURL: base + "/repos", EventsURL: base + "/events{/privacy}",
		ReceivedEventsURL: base + "/received_events", Type: string(a.Type),
		UserViewType: "public", SiteAdmin: a.SiteAdmin,
	}
}

// PublicUser is components/schemas/public-user.
type PublicUser struct {
	SimpleUser
	Name            *string `json:"name"`
	Company         *string `json:"company"`
	Blog            *string `json:"blog"`
	Location        *string `json:"location"`
	Email           *string `json:"email"`
	Hireable        *bool   `json:"hireable"`
	Bio             *string `json:"bio"`
	TwitterUsername *string `json:"twitter_username"`
	PublicRepos     int     `json:"public_repos"`
	PublicGists     int     `json:"public_gists"`
	Followers       int     `json:"followers"`
	Following       int     `json:"following"`
	CreatedAt       string  `json:"created_at"`
	UpdatedAt       string  `json:"updated_at"`
}

// PrivateUser is components/schemas/private-user (GET /user).
type PrivateUser struct {
	PublicUser
	NotificationEmail       *string `json:"notification_email"`
	PrivateGists            int     `json:"private_gists"`
	TotalPrivateRepos       int     `json:"total_private_repos"`
	OwnedPrivateRepos       int     `json:"owned_private_repos"`
	DiskUsage               int     `json:"disk_usage"`
	Collaborators           int     `json:"collaborators"`
	TwoFactorAuthentication bool    `json:"two_factor_authentication"`
	Plan                    *Plan   `json:"plan,omitempty"`
}

// Plan is the plan object of users (organizations have OrgPlan).
type Plan struct {
	Name          string `json:"name"`
	Space         int    `json:"space"`
	PrivateRepos  int    `json:"private_repos"`
	Collaborators int    `json:"collaborators"`
}

// UserCounts are the counters a full user object carries.
type UserCounts struct {
	PublicRepos, TotalPrivateRepos, OwnedPrivateRepos, Collaborators int
}

// ToPublicUser is the full public view of a user.
func (u URLs) ToPublicUser(a *model.Account, c UserCounts) PublicUser {
	p := PublicUser{
		SimpleUser: u.ToSimpleUser(a),
		Name:       strPtr(a.Name), Company: strPtr(a.Company), Blog: ptr(a.Blog), Location: strPtr(a.Location),
		Email: strPtr(a.Email), Hireable: a.Hireable, Bio: strPtr(a.Bio), TwitterUsername: strPtr(a.TwitterUsername),
		PublicRepos: c.PublicRepos, CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt),
	}
	return p
}

// ToPrivateUser is the authenticated user's view of themselves.
func (u URLs) ToPrivateUser(a *model.Account, c UserCounts) PrivateUser {
	pub := u.ToPublicUser(a, c)
	pub.UserViewType = "private"
	return PrivateUser{
		PublicUser:        pub,
		NotificationEmail: strPtr(a.Email),
		TotalPrivateRepos: c.TotalPrivateRepos, OwnedPrivateRepos: c.OwnedPrivateRepos,
		Collaborators: c.Collaborators,
		Plan:          &Plan{Name: "enterprise", Space: 976562499, PrivateRepos: 9999, Collaborators: 0},
	}
}

func ptr(s string) *string { return &s }
