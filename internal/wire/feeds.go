package wire

// LinkWithType is the link-with-type schema.
type LinkWithType struct {
	Href string `json:"href"`
	Type string `json:"type"`
}

// FeedLinks is the feed schema's _links.
type FeedLinks struct {
	Timeline                 LinkWithType   `json:"timeline"`
	User                     LinkWithType   `json:"user"`
	CurrentUserPublic        *LinkWithType  `json:"current_user_public,omitempty"`
	CurrentUser              *LinkWithType  `json:"current_user,omitempty"`
	CurrentUserActor         *LinkWithType  `json:"current_user_actor,omitempty"`
	CurrentUserOrganization  *LinkWithType  `json:"current_user_organization,omitempty"`
	CurrentUserOrganizations []LinkWithType `json:"current_user_organizations,omitempty"`
}

// Feed is the feed schema. security_advisories_url is left out: hubd
// keeps no advisory database to serve that feed from.
type Feed struct {
	TimelineURL                 string    `json:"timeline_url"`
	UserURL                     string    `json:"user_url"`
	CurrentUserPublicURL        string    `json:"current_user_public_url,omitempty"`
	CurrentUserURL              string    `json:"current_user_url,omitempty"`
	CurrentUserActorURL         string    `json:"current_user_actor_url,omitempty"`
	CurrentUserOrganizationURL  string    `json:"current_user_organization_url,omitempty"`
	CurrentUserOrganizationURLs []string  `json:"current_user_organization_urls,omitempty"`
	Links                       FeedLinks `json:"_links"`
}
