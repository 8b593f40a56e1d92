package wire

import (
	"net"
	"net/url"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// RepoBase holds the fields every repository shape carries, down to the
// minimal one of GET /repositories: identity, owner and the URL templates.
type RepoBase struct {
	ID               int64      `json:"id"`
	NodeID           string     `json:"node_id"`
	Name             string     `json:"name"`
	FullName         string     `json:"full_name"`
	Private          bool       `json:"private"`
	Owner            SimpleUser `json:"owner"`
	HTMLURL          string     `json:"html_url"`
	Description      *string    `json:"description"`
	Fork             bool       `json:"fork"`
	URL              string     `json:"url"`
	ForksURL         string     `json:"forks_url"`
	KeysURL          string     `json:"keys_url"`
	CollaboratorsURL string     `json:"collaborators_url"`
	TeamsURL         string     `json:"teams_url"`
	HooksURL         string     `json:"hooks_url"`
	IssueEventsURL   string     `json:"issue_events_url"`
	EventsURL        string     `json:"events_url"`
	AssigneesURL     string     `json:"assignees_url"`
	BranchesURL      string     `json:"branches_url"`
	TagsURL          string     `json:"tags_url"`
	BlobsURL         string     `json:"blobs_url"`
	GitTagsURL       string     `json:"git_tags_url"`
	GitRefsURL       string     `json:"git_refs_url"`
	TreesURL         string     `json:"trees_url"`
	StatusesURL      string     `json:"statuses_url"`
	LanguagesURL     string     `json:"languages_url"`
	StargazersURL    string     `json:"stargazers_url"`
	ContributorsURL  string     `json:"contributors_url"`
	SubscribersURL   string     `json:"subscribers_url"`
	SubscriptionURL  string     `json:"subscription_url"`
	CommitsURL       string     `json:"commits_url"`
	GitCommitsURL    string     `json:"git_commits_url"`
	CommentsURL      string     `json:"comments_url"`
	IssueCommentURL  string     `json:"issue_comment_url"`
	ContentsURL      string     `json:"contents_url"`
	CompareURL       string     `json:"compare_url"`
	MergesURL        string     `json:"merges_url"`
	ArchiveURL       string     `json:"archive_url"`
	DownloadsURL     string     `json:"downloads_url"`
	IssuesURL        string     `json:"issues_url"`
	PullsURL         string     `json:"pulls_url"`
	MilestonesURL    string     `json:"milestones_url"`
	NotificationsURL string     `json:"notifications_url"`
	LabelsURL        string     `json:"labels_url"`
	ReleasesURL      string     `json:"releases_url"`
	DeploymentsURL   string     `json:"deployments_url"`
}

// RepoDetails are the fields of every repository shape except the minimal
// one of GET /repositories.
type RepoDetails struct {
	CreatedAt                *string          `json:"created_at"`
	UpdatedAt                *string          `json:"updated_at"`
	PushedAt                 *string          `json:"pushed_at"`
	GitURL                   string           `json:"git_url"`
	SSHURL                   string           `json:"ssh_url"`
	CloneURL                 string           `json:"clone_url"`
	SvnURL                   string           `json:"svn_url"`
	Homepage                 *string          `json:"homepage"`
	Size                     int64            `json:"size"`
	StargazersCount          int              `json:"stargazers_count"`
	WatchersCount            int              `json:"watchers_count"`
	Language                 *string          `json:"language"`
	HasIssues                bool             `json:"has_issues"`
	HasProjects              bool             `json:"has_projects"`
	HasDownloads             bool             `json:"has_downloads"`
	HasWiki                  bool             `json:"has_wiki"`
	HasPages                 bool             `json:"has_pages"`
	HasDiscussions           bool             `json:"has_discussions"`
	ForksCount               int              `json:"forks_count"`
	MirrorURL                *string          `json:"mirror_url"`
	Archived                 bool             `json:"archived"`
	Disabled                 bool             `json:"disabled"`
	OpenIssuesCount          int              `json:"open_issues_count"`
	License                  *LicenseSimple   `json:"license"`
	AllowForking             bool             `json:"allow_forking"`
	IsTemplate               bool             `json:"is_template"`
	WebCommitSignoffRequired bool             `json:"web_commit_signoff_required"`
	Topics                   []string         `json:"topics"`
	Visibility               string           `json:"visibility"`
	Forks                    int              `json:"forks"`
	OpenIssues               int              `json:"open_issues"`
	Watchers                 int              `json:"watchers"`
	DefaultBranch            string           `json:"default_branch"`
	Permissions              *RepoPermissions `json:"permissions,omitempty"`
}

// MergeSettings are the pull request settings GitHub shows to callers who
// may push.
type MergeSettings struct {
	AllowSquashMerge          bool   `json:"allow_squash_merge"`
	AllowMergeCommit          bool   `json:"allow_merge_commit"`
	AllowRebaseMerge          bool   `json:"allow_rebase_merge"`
	AllowAutoMerge            bool   `json:"allow_auto_merge"`
	DeleteBranchOnMerge       bool   `json:"delete_branch_on_merge"`
	AllowUpdateBranch         bool   `json:"allow_update_branch"`
	UseSquashPRTitleAsDefault bool   `json:"use_squash_pr_title_as_default"`
	SquashMergeCommitTitle    string `json:"squash_merge_commit_title"`
	SquashMergeCommitMessage  string `json:"squash_merge_commit_message"`
	MergeCommitTitle          string `json:"merge_commit_title"`
	MergeCommitMessage        string `json:"merge_commit_message"`
}

// RepoPermissions is the caller's permissions object.
type RepoPermissions struct {
	Admin    bool `json:"admin"`
	Maintain bool `json:"maintain"`
	Push     bool `json:"push"`
	Triage   bool `json:"triage"`
	Pull     bool `json:"pull"`
}

// LicenseSimple is components/schemas/license-simple.
type LicenseSimple struct {
	Key     string  `json:"key"`
	Name    string  `json:"name"`
	URL     *string `json:"url"`
	SpdxID  *string `json:"spdx_id"`
	NodeID  string  `json:"node_id"`
	HTMLURL string  `json:"html_url,omitempty"`
}

// MinimalRepository is components/schemas/minimal-repository. Details is
// nil only in GET /repositories, which lists the bare fields.
type MinimalRepository struct {
	RepoBase
	*RepoDetails
}

// Repository is components/schemas/repository (GET /user/repos).
type Repository struct {
	RepoBase
	RepoDetails
}

// FullRepository is components/schemas/full-repository.
type FullRepository struct {
	RepoBase
	RepoDetails
	*MergeSettings
	Organization *SimpleUser `json:"organization,omitempty"`
	Parent       *Repository `json:"parent,omitempty"` // forks only: forked from
	Source       *Repository `json:"source,omitempty"` // forks only: the network's root
	// TemplateRepository is the template the repository was generated
	// from (absent for others, and when the viewer may not see it).
	TemplateRepository *Repository    `json:"template_repository,omitempty"`
	NetworkCount       int            `json:"network_count"`
	SubscribersCount   int            `json:"subscribers_count"`
	CustomProperties   map[string]any `json:"custom_properties"`
	// TempCloneToken lets git clone a private repository for a while
	// (internal/tempclone); null for public ones and for callers who may
	// not clone.
	TempCloneToken *string `json:"temp_clone_token"`
	// SecurityAndAnalysis is shown to administrators only.
	SecurityAndAnalysis *SecurityAndAnalysis `json:"security_and_analysis,omitempty"`
}

// SecurityAndAnalysis is components/schemas/security-and-analysis, with
// the features hubd keeps.
type SecurityAndAnalysis struct {
	AdvancedSecurity SecurityStatus `json:"advanced_security"`
	SecretScanning   SecurityStatus `json:"secret_scanning"`
	PushProtection   SecurityStatus `json:"secret_scanning_push_protection"`
}

// SecurityStatus is a feature's {"status": "enabled"|"disabled"}.
type SecurityStatus struct {
	Status string `json:"status"`
}

func securityStatus(on bool) SecurityStatus {
	if on {
		return SecurityStatus{"enabled"}
	}
	return SecurityStatus{"disabled"}
}

// ToSecurityAndAnalysis is a repository's security_and_analysis.
func ToSecurityAndAnalysis(s model.RepoSecurity) *SecurityAndAnalysis {
	return &SecurityAndAnalysis{securityStatus(s.AdvancedSecurity), securityStatus(s.SecretScanning), securityStatus(s.PushProtection)}
}

// RepoCounts are the fields of a repository object that other tables hold:
// the counters (forks, open issues) and what the last push revealed
// (license, top language). Stars and watchers come with the repository
// row (model.Repo's StargazersCount and SubscribersCount).
type RepoCounts struct {
	Forks, OpenIssues int
	License           *LicenseSimple // nil: no license file
	Language          string         // "": none detected
}

// RepoAPIURL is the API URL of a repository.
func (u URLs) RepoAPIURL(r *model.Repo) string {
	return u.API + "/repos/" + r.Owner.Login + "/" + r.Name
}

// RepoHTMLURL is the web URL of a repository.
func (u URLs) RepoHTMLURL(r *model.Repo) string {
	return u.Web + "/" + r.Owner.Login + "/" + r.Name
}

// SSHURL is the repository's ssh remote: at hubd's SSH server when it runs
// (SSHBase), else as GitHub writes it (the address only completes the
// shape).
func (u URLs) SSHURL(r *model.Repo) string {
	if u.SSHBase != "" {
		return u.SSHBase + r.FullName() + ".git"
	}
	return "git@" + u.host() + ":" + r.FullName() + ".git"
}

// SSHBaseFor is the SSHBase of an SSH server at host:port: GitHub's
// scp-like "git@host:" on port 22, else "ssh://git@host:port/" (git's
// scp-like form cannot name a port).
func SSHBaseFor(host, port string) string {
	if port == "" || port == "22" {
		return "git@" + host + ":"
	}
	return "ssh://git@" + net.JoinHostPort(host, port) + "/"
}

// CloneURL is the smart-HTTP clone URL, <web>/<owner>/<repo>.git.
func (u URLs) CloneURL(r *model.Repo) string { return u.RepoHTMLURL(r) + ".git" }

// host is the host name (no port) of the web URL, used by ssh and git URLs.
func (u URLs) host() string {
	p, err := url.Parse(u.Web)
	if err != nil || p.Hostname() == "" {
		return "localhost"
	}
	return p.Hostname()
}

// ToRepoBase builds the fields every repository shape has.
func (u URLs) ToRepoBase(r *model.Repo) RepoBase {
	b := u.RepoAPIURL(r)
	return RepoBase{
		ID: r.ID, NodeID: NodeID("R", r.ID), Name: r.Name, FullName: r.FullName(),
		Private: r.Private(), Owner: u.ToSimpleUser(r.Owner), HTMLURL: u.RepoHTMLURL(r),
		Description: strPtr(r.Description), Fork: r.ParentID != 0, URL: b,
		ForksURL:         b + "/forks",
		KeysURL:          b + "/keys{/key_id}",
		CollaboratorsURL: b + "/collaborators{/collaborator}",
		TeamsURL:         b + "/teams",
		HooksURL:         b + "/hooks",
		IssueEventsURL:   b + "/issues/events{/number}",
		EventsURL:        b + "/events",
		AssigneesURL:     b + "/assignees{/user}",
		BranchesURL:      b + "/branches{/branch}",
		TagsURL:          b + "/tags",
		BlobsURL:         b + "/git/blobs{/sha}",
		GitTagsURL:       b + "/git/tags{/sha}",
		GitRefsURL:       b + "/git/refs{/sha}",
		TreesURL:         b + "/git/trees{/sha}",
		StatusesURL:      b + "/statuses/{sha}",
		LanguagesURL:     b + "/languages",
		StargazersURL:    b + "/stargazers",
		ContributorsURL:  b + "/contributors",
		SubscribersURL:   b + "/subscribers",
		SubscriptionURL:  b + "/subscription",
		CommitsURL:       b + "/commits{/sha}",
		GitCommitsURL:    b + "/git/commits{/sha}",
		CommentsURL:      b + "/comments{/number}",
		IssueCommentURL:  b + "/issues/comments{/number}",
		ContentsURL:      b + "/contents/{+path}",
		CompareURL:       b + "/compare/{base}...{head}",
		MergesURL:        b + "/merges",
		ArchiveURL:       b + "/{archive_format}{/ref}",
		DownloadsURL:     b + "/downloads",
		IssuesURL:        b + "/issues{/number}",
		PullsURL:         b + "/pulls{/number}",
		MilestonesURL:    b + "/milestones{/number}",
		NotificationsURL: b + "/notifications{?since,all,participating}",
		LabelsURL:        b + "/labels{/name}",
		ReleasesURL:      b + "/releases{/id}",
		DeploymentsURL:   b + "/deployments",
	}
}

// ToRepoDetails builds the fields of every shape but the bare minimal one.
// perm is the caller's permission; withPerms false leaves the permissions
// object out (anonymous callers).
func (u URLs) ToRepoDetails(r *model.Repo, c RepoCounts, perm authz.Permission, withPerms bool) RepoDetails {
	topics := r.Topics
	if topics == nil {
		topics = []string{}
	}
	created, updated := Time(r.CreatedAt), Time(r.UpdatedAt)
	d := RepoDetails{
		CreatedAt: &created, UpdatedAt: &updated, PushedAt: TimePtr(r.PushedAt),
		GitURL:   "git://" + u.host() + "/" + r.FullName() + ".git",
		SSHURL:   u.SSHURL(r),
		CloneURL: u.CloneURL(r), SvnURL: u.RepoHTMLURL(r),
		Homepage: strPtr(r.Homepage), Size: r.Size, Language: strPtr(c.Language), License: c.License,
		StargazersCount: r.StargazersCount, WatchersCount: r.StargazersCount,
		HasIssues: r.HasIssues, HasProjects: r.HasProjects, HasDownloads: r.HasDownloads,
		HasWiki: r.HasWiki, HasDiscussions: r.HasDiscussions,
		ForksCount: c.Forks, Archived: r.Archived, Disabled: r.Disabled,
		OpenIssuesCount: c.OpenIssues, AllowForking: r.AllowForking, IsTemplate: r.IsTemplate,
		WebCommitSignoffRequired: r.WebCommitSignoffRequired, Topics: topics,
		Visibility: string(r.Visibility), Forks: c.Forks, OpenIssues: c.OpenIssues,
		Watchers: r.StargazersCount, DefaultBranch: r.DefaultBranch,
	}
	if withPerms {
		d.Permissions = ToRepoPermissions(perm)
	}
	return d
}

// ToRepoPermissions expands a level into GitHub's permissions object.
func ToRepoPermissions(p authz.Permission) *RepoPermissions {
	return &RepoPermissions{
		Admin: p >= authz.Admin, Maintain: p >= authz.Maintain, Push: p >= authz.Write,
		Triage: p >= authz.Triage, Pull: p >= authz.Read,
	}
}

// ToMergeSettings converts the pull request settings.
func ToMergeSettings(r *model.Repo) *MergeSettings {
	return &MergeSettings{
		AllowSquashMerge: r.AllowSquashMerge, AllowMergeCommit: r.AllowMergeCommit,
		AllowRebaseMerge: r.AllowRebaseMerge, AllowAutoMerge: r.AllowAutoMerge,
		DeleteBranchOnMerge: r.DeleteBranchOnMerge, AllowUpdateBranch: r.AllowUpdateBranch,
		UseSquashPRTitleAsDefault: r.SquashMergeCommitTitle == "PR_TITLE",
		SquashMergeCommitTitle:    r.SquashMergeCommitTitle, SquashMergeCommitMessage: r.SquashMergeCommitMessage,
		MergeCommitTitle: r.MergeCommitTitle, MergeCommitMessage: r.MergeCommitMessage,
	}
}

// Access is what a repository converter needs to know about the caller:
// their permission, and whether they are authenticated at all (anonymous
// callers get no permissions object).
type Access struct {
	Perm          authz.Permission
	Authenticated bool
}

// ToFullRepository is GET /repos/{owner}/{repo}. Merge settings are shown
// to callers who may push, as on GitHub.
func (u URLs) ToFullRepository(r *model.Repo, c RepoCounts, v Access) FullRepository {
	f := FullRepository{
		RepoBase:         u.ToRepoBase(r),
		RepoDetails:      u.ToRepoDetails(r, c, v.Perm, v.Authenticated),
		SubscribersCount: r.SubscribersCount,
		CustomProperties: map[string]any{},
	}
	if f.PushedAt == nil {
		// full-repository's pushed_at is never null: a repository that was
		// never pushed reports its creation.
		f.PushedAt = f.CreatedAt
	}
	if v.Authenticated && v.Perm >= authz.Write {
		f.MergeSettings = ToMergeSettings(r)
	}
	if r.Owner.IsOrg() {
		org := u.ToSimpleUser(r.Owner)
		f.Organization = &org
	}
	return f
}

// ToRepository is an item of GET /user/repos.
func (u URLs) ToRepository(r *model.Repo, c RepoCounts, v Access) Repository {
	return Repository{RepoBase: u.ToRepoBase(r), RepoDetails: u.ToRepoDetails(r, c, v.Perm, v.Authenticated)}
}

// ToMinimalRepository is an item of the user and organization lists.
func (u URLs) ToMinimalRepository(r *model.Repo, c RepoCounts, v Access) MinimalRepository {
	d := u.ToRepoDetails(r, c, v.Perm, v.Authenticated)
	return MinimalRepository{RepoBase: u.ToRepoBase(r), RepoDetails: &d}
}

// ToBareRepository is an item of GET /repositories: the minimal fields only.
func (u URLs) ToBareRepository(r *model.Repo) MinimalRepository {
	return MinimalRepository{RepoBase: u.ToRepoBase(r)}
}

// Topics is components/schemas/topic.
type Topics struct {
	Names []string `json:"names"`
}

// MergedUpstream is components/schemas/merged-upstream.
type MergedUpstream struct {
	Message    string `json:"message"`
	MergeType  string `json:"merge_type"`
	BaseBranch string `json:"base_branch"`
}
