package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Link is one entry of a pull request's _links.
type Link struct {
	Href string `json:"href"`
}

// PullLinks is a pull request's _links.
type PullLinks struct {
	Comments       Link `json:"comments"`
	Commits        Link `json:"commits"`
	Statuses       Link `json:"statuses"`
	HTML           Link `json:"html"`
	Issue          Link `json:"issue"`
	ReviewComments Link `json:"review_comments"`
	ReviewComment  Link `json:"review_comment"`
	Self           Link `json:"self"`
}

// PullBranch is a pull request's head or base.
type PullBranch struct {
	Label string      `json:"label"`
	Ref   string      `json:"ref"`
	Repo  *Repository `json:"repo"`
	SHA   string      `json:"sha"`
	User  *SimpleUser `json:"user"`
}

// PullSimple is components/schemas/pull-request-simple (list items).
type PullSimple struct {
	URL               string      `json:"url"`
	ID                int64       `json:"id"`
	NodeID            string      `json:"node_id"`
	HTMLURL           string      `json:"html_url"`
	DiffURL           string      `json:"diff_url"`
	PatchURL          string      `json:"patch_url"`
	IssueURL          string      `json:"issue_url"`
	CommitsURL        string      `json:"commits_url"`
	ReviewCommentsURL string      `json:"review_comments_url"`
	ReviewCommentURL  string      `json:"review_comment_url"`
	CommentsURL       string      `json:"comments_url"`
	StatusesURL       string      `json:"statuses_url"`
	Number            int64       `json:"number"`
	State             string      `json:"state"`
	Locked            bool        `json:"locked"`
	Title             string      `json:"title"`
	User              *SimpleUser `json:"user"`
	Body
	Labels             []Label      `json:"labels"`
	Milestone          *Milestone   `json:"milestone"`
	ActiveLockReason   *string      `json:"active_lock_reason"`
	CreatedAt          string       `json:"created_at"`
	UpdatedAt          string       `json:"updated_at"`
	ClosedAt           *string      `json:"closed_at"`
	MergedAt           *string      `json:"merged_at"`
	MergeCommitSHA     *string      `json:"merge_commit_sha"`
	Assignee           *SimpleUser  `json:"assignee"`
	Assignees          []SimpleUser `json:"assignees"`
	RequestedReviewers []SimpleUser `json:"requested_reviewers"`
	RequestedTeams     []any        `json:"requested_teams"`
	Head               PullBranch   `json:"head"`
	Base               PullBranch   `json:"base"`
	Links              PullLinks    `json:"_links"`
	AuthorAssociation  string       `json:"author_association"`
	AutoMerge          *struct{}    `json:"auto_merge"`
	Draft              bool         `json:"draft"`
}

// Pull is components/schemas/pull-request (one pull request).
type Pull struct {
	PullSimple
	Merged              bool        `json:"merged"`
	Mergeable           *bool       `json:"mergeable"`
	Rebaseable          *bool       `json:"rebaseable"`
	MergeableState      string      `json:"mergeable_state"`
	MergedBy            *SimpleUser `json:"merged_by"`
	Comments            int         `json:"comments"`
	ReviewComments      int         `json:"review_comments"`
	MaintainerCanModify bool        `json:"maintainer_can_modify"`
	Commits             int         `json:"commits"`
	Additions           int         `json:"additions"`
	Deletions           int         `json:"deletions"`
	ChangedFiles        int         `json:"changed_files"`
}

// PullMergeResult is components/schemas/pull-request-merge-result.
type PullMergeResult struct {
	SHA     string `json:"sha"`
	Merged  bool   `json:"merged"`
	Message string `json:"message"`
}

// PullURL is the API URL of a pull request.
func (u URLs) PullURL(repo *model.Repo, number int64) string {
	return u.RepoAPIURL(repo) + "/pulls/" + strconv.FormatInt(number, 10)
}

// PullRepos are the repositories a pull request object embeds, with the
// caller's access to each (head repositories may be forks).
type PullRepos struct {
	Base       *model.Repo
	BaseAccess Access
	HeadAccess func(*model.Repo) Access
}

// ToPullSimple converts a pull request whose issue details and pull
// details were loaded.
func (w *IssueWriter) ToPullSimple(rs PullRepos, p *model.Pull) PullSimple {
	repo := rs.Base
	is := p.Issue
	num := strconv.FormatInt(p.Number, 10)
	api := w.U.RepoAPIURL(repo)
	self := api + "/pulls/" + num
	html := w.U.RepoHTMLURL(repo) + "/pull/" + num
	issue := api + "/issues/" + num
	out := PullSimple{
		URL: self, ID: p.IssueID, NodeID: NodeID("PR", p.IssueID), HTMLURL: html, DiffURL: html + ".diff",
		PatchURL: html + ".patch", IssueURL: issue, CommitsURL: self + "/commits",
		ReviewCommentsURL: self + "/comments", ReviewCommentURL: api + "/pulls/comments{/number}",
		CommentsURL: issue + "/comments", StatusesURL: api + "/statuses/" + p.HeadSHA,
		Number: p.Number, State: is.State, Locked: is.Locked, Title: is.Title, User: w.User(is.User),
		Body: w.Body.body(is.Body), Labels: w.U.ToLabels(repo, is.Labels), ActiveLockReason: is.LockReason,
		CreatedAt: Time(is.CreatedAt), UpdatedAt: Time(is.UpdatedAt), ClosedAt: TimePtr(is.ClosedAt),
		MergedAt: TimePtr(p.MergedAt), MergeCommitSHA: p.MergeCommitSHA, Assignees: w.userList(is.Assignees),
		RequestedReviewers: w.userList(p.RequestedReviewers), RequestedTeams: []any{},
		AuthorAssociation: is.Association, Draft: p.Draft,
	}
	if !is.Locked {
		out.ActiveLockReason = nil
	}
	if len(out.Assignees) > 0 {
		out.Assignee = &out.Assignees[0]
	}
	if is.Milestone != nil {
		out.Milestone = w.ToMilestone(repo, is.Milestone)
	}
	base := w.U.ToRepository(repo, RepoCounts{}, rs.BaseAccess)
	out.Base = PullBranch{Label: repo.Owner.Login + ":" + p.BaseRef, Ref: p.BaseRef, Repo: &base, SHA: p.BaseSHA, User: w.User(repo.Owner)}
	login := ""
	if p.HeadOwner != nil {
		login = p.HeadOwner.Login
	}
	out.Head = PullBranch{Label: login + ":" + p.HeadRef, Ref: p.HeadRef, SHA: p.HeadSHA, User: w.User(p.HeadOwner)}
	if p.HeadRepo != nil {
		if p.HeadRepo.ID == repo.ID {
			out.Head.Repo = &base
		} else {
			h := w.U.ToRepository(p.HeadRepo, RepoCounts{}, rs.HeadAccess(p.HeadRepo))
			out.Head.Repo = &h
		}
	}
	out.Links = PullLinks{Self: Link{self}, HTML: Link{html}, Issue: Link{issue}, Comments: Link{issue + "/comments"},
		ReviewComments: Link{self + "/comments"}, ReviewComment: Link{api + "/pulls/comments{/number}"},
		Commits: Link{self + "/commits"}, Statuses: Link{api + "/statuses/" + p.HeadSHA}}
	return out
}

// ToPull converts one pull request with its merge and review figures.
func (w *IssueWriter) ToPull(rs PullRepos, p *model.Pull) Pull {
	out := Pull{PullSimple: w.ToPullSimple(rs, p), Merged: p.Merged(), Mergeable: p.Mergeable, Rebaseable: p.Rebaseable,
		MergeableState: p.MergeableState, MergedBy: w.User(p.MergedBy), Comments: p.Issue.Comments,
		ReviewComments: p.ReviewComments, MaintainerCanModify: p.MaintainerCanModify, Commits: p.Commits,
		Additions: p.Additions, Deletions: p.Deletions, ChangedFiles: p.ChangedFiles}
	return out
}
