package repos

import (
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/rest"
)

// settings are the repository fields that POST /user/repos, POST
// /orgs/{org}/repos and PATCH /repos/{owner}/{repo} share. Absent and null
// leave a field as it is (null clears description and homepage).
type settings struct {
	Name                      rest.Opt[string] `json:"name"`
	Description               rest.Opt[string] `json:"description"`
	Homepage                  rest.Opt[string] `json:"homepage"`
	Private                   rest.Opt[bool]   `json:"private"`
	Visibility                rest.Opt[string] `json:"visibility"`
	HasIssues                 rest.Opt[bool]   `json:"has_issues"`
	HasProjects               rest.Opt[bool]   `json:"has_projects"`
	HasWiki                   rest.Opt[bool]   `json:"has_wiki"`
	HasDiscussions            rest.Opt[bool]   `json:"has_discussions"`
	HasDownloads              rest.Opt[bool]   `json:"has_downloads"`
	IsTemplate                rest.Opt[bool]   `json:"is_template"`
	AllowSquashMerge          rest.Opt[bool]   `json:"allow_squash_merge"`
	AllowMergeCommit          rest.Opt[bool]   `json:"allow_merge_commit"`
	AllowRebaseMerge          rest.Opt[bool]   `json:"allow_rebase_merge"`
	AllowAutoMerge            rest.Opt[bool]   `json:"allow_auto_merge"`
	AllowUpdateBranch         rest.Opt[bool]   `json:"allow_update_branch"`
	AllowForking              rest.Opt[bool]   `json:"allow_forking"`
	DeleteBranchOnMerge       rest.Opt[bool]   `json:"delete_branch_on_merge"`
	WebCommitSignoffRequired  rest.Opt[bool]   `json:"web_commit_signoff_required"`
	UseSquashPRTitleAsDefault rest.Opt[bool]   `json:"use_squash_pr_title_as_default"`
	SquashMergeCommitTitle    rest.Opt[string] `json:"squash_merge_commit_title"`
	SquashMergeCommitMessage  rest.Opt[string] `json:"squash_merge_commit_message"`
	MergeCommitTitle          rest.Opt[string] `json:"merge_commit_title"`
	MergeCommitMessage        rest.Opt[string] `json:"merge_commit_message"`
}

// CreateInput is the body of the two create operations (and what
// GraphQL's createRepository fills in).
type CreateInput struct {
	settings
	AutoInit          rest.Opt[bool]           `json:"auto_init"`
	GitignoreTemplate rest.Opt[string]         `json:"gitignore_template"`
	LicenseTemplate   rest.Opt[string]         `json:"license_template"`
	TeamID            rest.Opt[int64]          `json:"team_id"`
	CustomProperties  rest.Opt[map[string]any] `json:"custom_properties"`
}

// UpdateInput is the body of PATCH /repos/{owner}/{repo} (and what
// GraphQL's archiveRepository fills in).
type UpdateInput struct {
	settings
	DefaultBranch             rest.Opt[string]         `json:"default_branch"`
	Archived                  rest.Opt[bool]           `json:"archived"`
	HasPullRequests           rest.Opt[bool]           `json:"has_pull_requests"`
	PullRequestCreationPolicy rest.Opt[string]         `json:"pull_request_creation_policy"`
	SecurityAndAnalysis       rest.Opt[map[string]any] `json:"security_and_analysis"`
}

// errs collects the field errors of one request.
type errs []model.FieldError

func (e *errs) invalid(field string, value any) {
	*e = append(*e, model.FieldError{Resource: "Repository", Field: field, Code: "invalid", Value: value})
}

func (e *errs) custom(field, msg string) {
	*e = append(*e, model.FieldError{Resource: "Repository", Field: field, Code: "custom", Message: msg})
}

func (e errs) err() error {
	if len(e) == 0 {
		return nil
	}
	return &model.ValidationError{Errors: e}
}

// Allowed values of the commit message settings.
var (
	squashTitles   = []string{"PR_TITLE", "COMMIT_OR_PR_TITLE"}
	squashMessages = []string{"PR_BODY", "COMMIT_MESSAGES", "BLANK"}
	mergeTitles    = []string{"PR_TITLE", "MERGE_MESSAGE"}
	mergeMessages  = []string{"PR_BODY", "PR_TITLE", "BLANK"}
)

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// apply validates s and writes it onto repo. orgOwned tells whether internal
// visibility is possible. Field errors are collected in e.
func (s *settings) apply(repo *model.Repo, orgOwned bool, e *errs) {
	if s.Name.Set && !s.Name.Null && s.Name.Value != "" { // callers report a blank name
		n, err := names.NormalizeRepo(s.Name.Value)
		if err != nil {
			e.custom("name", err.Error())
		} else {
			repo.Name = n
		}
	}
	if s.Description.Set {
		repo.Description = s.Description.Value // null clears
	}
	if s.Homepage.Set {
		repo.Homepage = strings.TrimSpace(s.Homepage.Value)
	}
	if v, ok := s.Private.Get(); ok {
		if v {
			repo.Visibility = model.Private
		} else {
			repo.Visibility = model.Public
		}
	}
	if v, ok := s.Visibility.Get(); ok { // visibility wins over private
		switch model.Visibility(v) {
		case model.Public, model.Private:
			repo.Visibility = model.Visibility(v)
		case model.Internal:
			if orgOwned {
				repo.Visibility = model.Internal
			} else {
				e.custom("visibility", "Only organization-owned repositories can be internal.")
			}
		default:
			e.invalid("visibility", v)
		}
	}
	setBool(&repo.HasIssues, s.HasIssues)
	setBool(&repo.HasProjects, s.HasProjects)
	setBool(&repo.HasWiki, s.HasWiki)
	setBool(&repo.HasDiscussions, s.HasDiscussions)
	setBool(&repo.HasDownloads, s.HasDownloads)
	setBool(&repo.IsTemplate, s.IsTemplate)
	setBool(&repo.AllowSquashMerge, s.AllowSquashMerge)
	setBool(&repo.AllowMergeCommit, s.AllowMergeCommit)
	setBool(&repo.AllowRebaseMerge, s.AllowRebaseMerge)
	setBool(&repo.AllowAutoMerge, s.AllowAutoMerge)
	setBool(&repo.AllowUpdateBranch, s.AllowUpdateBranch)
	setBool(&repo.AllowForking, s.AllowForking)
	setBool(&repo.DeleteBranchOnMerge, s.DeleteBranchOnMerge)
	setBool(&repo.WebCommitSignoffRequired, s.WebCommitSignoffRequired)
	// The deprecated switch maps onto the squash title, as on GitHub.
	if v, ok := s.UseSquashPRTitleAsDefault.Get(); ok {
		if v {
			repo.SquashMergeCommitTitle = "PR_TITLE"
		} else {
			repo.SquashMergeCommitTitle, repo.SquashMergeCommitMessage = "COMMIT_OR_PR_TITLE", "COMMIT_MESSAGES"
		}
	}
	setEnum(&repo.SquashMergeCommitTitle, s.SquashMergeCommitTitle, squashTitles, "squash_merge_commit_title", e)
	setEnum(&repo.SquashMergeCommitMessage, s.SquashMergeCommitMessage, squashMessages, "squash_merge_commit_message", e)
	setEnum(&repo.MergeCommitTitle, s.MergeCommitTitle, mergeTitles, "merge_commit_title", e)
	setEnum(&repo.MergeCommitMessage, s.MergeCommitMessage, mergeMessages, "merge_commit_message", e)
	// GitHub only accepts these pairs: a title taken from the commits or
	// the merge goes with the matching default message.
	if repo.SquashMergeCommitTitle == "COMMIT_OR_PR_TITLE" && repo.SquashMergeCommitMessage != "COMMIT_MESSAGES" {
		e.custom("squash_merge_commit_message", "squash_merge_commit_message must be COMMIT_MESSAGES when squash_merge_commit_title is COMMIT_OR_PR_TITLE")
	}
	if repo.MergeCommitTitle == "MERGE_MESSAGE" && repo.MergeCommitMessage != "PR_TITLE" {
		e.custom("merge_commit_message", "merge_commit_message must be PR_TITLE when merge_commit_title is MERGE_MESSAGE")
	}
}

func setBool(dst *bool, o rest.Opt[bool]) {
	if v, ok := o.Get(); ok {
		*dst = v
	}
}

func setEnum(dst *string, o rest.Opt[string], allowed []string, field string, e *errs) {
	v, ok := o.Get()
	if !ok {
		return
	}
	if !oneOf(v, allowed) {
		e.invalid(field, v)
		return
	}
	*dst = v
}

// newRepo is a repository with GitHub's defaults.
func newRepo(owner *model.Account) *model.Repo {
	return &model.Repo{
		OwnerID: owner.ID, Owner: owner, Visibility: model.Public, DefaultBranch: "main",
		HasIssues: true, HasProjects: true, HasWiki: true, HasDownloads: true,
		AllowSquashMerge: true, AllowMergeCommit: true, AllowRebaseMerge: true, AllowForking: true,
		SquashMergeCommitTitle: "COMMIT_OR_PR_TITLE", SquashMergeCommitMessage: "COMMIT_MESSAGES",
		MergeCommitTitle: "MERGE_MESSAGE", MergeCommitMessage: "PR_TITLE",
		Topics: []string{},
	}
}
