package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/hubd/hubd/internal/gitrepo"

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
	Label string          `json:"label"`
	Ref   string          `json:"ref"`
	Repo  json.RawMessage `json:"repo"` // a repository object, encoded once per response
	SHA   string          `json:"sha"`
	User  *SimpleUser     `json:"user"`
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
	Labels             []Label          `json:"labels"`
	Milestone          *Milestone       `json:"milestone"`
	ActiveLockReason   *string          `json:"active_lock_reason"`
	CreatedAt          string           `json:"created_at"`
	UpdatedAt          string           `json:"updated_at"`
	ClosedAt           *string          `json:"closed_at"`
	MergedAt           *string          `json:"merged_at"`
	MergeCommitSHA     *string          `json:"merge_commit_sha"`
	Assignee           *SimpleUser      `json:"assignee"`
	Assignees          []SimpleUser     `json:"assignees"`
	RequestedReviewers []SimpleUser     `json:"requested_reviewers"`
	RequestedTeams     []TeamWithParent `json:"requested_teams"`
	Head               PullBranch       `json:"head"`
	Base               PullBranch       `json:"base"`
	Links              PullLinks        `json:"_links"`
	AuthorAssociation  string           `json:"author_association"`
	AutoMerge          *AutoMerge       `json:"auto_merge"`
	Draft              bool             `json:"draft"`
	Stack              *PullStackRef    `json:"stack"`
}

// AutoMerge is components/schemas/auto-merge: the pull request's
// auto-merge request.
type AutoMerge struct {
	EnabledBy     *SimpleUser `json:"enabled_by"`
	MergeMethod   string      `json:"merge_method"`
	CommitTitle   string      `json:"commit_title"`
	CommitMessage string      `json:"commit_message"`
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

	// encoded holds each repository object of the response once: every
	// pull request of a list repeats the base (and mostly a few heads),
	// and those objects are most of a list's bytes.
	encoded map[int64]json.RawMessage
}

var null = json.RawMessage("null")

// repoJSON is the encoded repository object of r with access v.
func (rs *PullRepos) repoJSON(u URLs, r *model.Repo, v Access) json.RawMessage {
	if b, ok := rs.encoded[r.ID]; ok {
		return b
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(u.ToRepository(r, RepoCounts{}, v)); err != nil {
		return null // a repository object always encodes
	}
	b := json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if rs.encoded == nil {
		rs.encoded = map[int64]json.RawMessage{}
	}
	rs.encoded[r.ID] = b
	return b
}

// ToPullSimple converts a pull request whose issue details and pull
// details were loaded.
func (w *IssueWriter) ToPullSimple(rs *PullRepos, p *model.Pull) PullSimple {
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
		RequestedReviewers: w.userList(p.RequestedReviewers), RequestedTeams: w.U.ToTeams(p.RequestedTeams),
		AuthorAssociation: is.Association, Draft: p.Draft, Stack: ToPullStackRef(p.Stack),
	}
	if !is.Locked {
		out.ActiveLockReason = nil
	}
	if a := p.AutoMerge; a != nil && a.EnabledBy != nil {
		out.AutoMerge = &AutoMerge{EnabledBy: w.User(a.EnabledBy), MergeMethod: a.Method,
			CommitTitle: orEmpty(a.CommitTitle), CommitMessage: orEmpty(a.CommitMessage)}
	}
	if len(out.Assignees) > 0 {
		out.Assignee = &out.Assignees[0]
	}
	if is.Milestone != nil {
		out.Milestone = w.ToMilestone(repo, is.Milestone)
	}
	out.Base = PullBranch{Label: repo.Owner.Login + ":" + p.BaseRef, Ref: p.BaseRef, Repo: rs.repoJSON(w.U, repo, rs.BaseAccess),
		SHA: p.BaseSHA, User: w.User(repo.Owner)}
	login := ""
	if p.HeadOwner != nil {
		login = p.HeadOwner.Login
	}
	out.Head = PullBranch{Label: login + ":" + p.HeadRef, Ref: p.HeadRef, Repo: null, SHA: p.HeadSHA, User: w.User(p.HeadOwner)}
	switch {
	case p.HeadRepo == nil: // deleted: null
	case p.HeadRepo.ID == repo.ID:
		out.Head.Repo = rs.repoJSON(w.U, repo, rs.BaseAccess)
	default:
		out.Head.Repo = rs.repoJSON(w.U, p.HeadRepo, rs.HeadAccess(p.HeadRepo))
	}
	out.Links = PullLinks{Self: Link{self}, HTML: Link{html}, Issue: Link{issue}, Comments: Link{issue + "/comments"},
		ReviewComments: Link{self + "/comments"}, ReviewComment: Link{api + "/pulls/comments{/number}"},
		Commits: Link{self + "/commits"}, Statuses: Link{api + "/statuses/" + p.HeadSHA}}
	return out
}

// ToPull converts one pull request with its merge and review figures.
func (w *IssueWriter) ToPull(rs *PullRepos, p *model.Pull) Pull {
	out := Pull{PullSimple: w.ToPullSimple(rs, p), Merged: p.Merged(), Mergeable: p.Mergeable, Rebaseable: p.Rebaseable,
		MergeableState: p.MergeableState, MergedBy: w.User(p.MergedBy), Comments: p.Issue.Comments,
		ReviewComments: p.ReviewComments, MaintainerCanModify: p.MaintainerCanModify, Commits: p.Commits,
		Additions: p.Additions, Deletions: p.Deletions, ChangedFiles: p.ChangedFiles}
	return out
}

// repoMarker stands in for a branch's repository while a list item is
// encoded: the real (already encoded) object is spliced in after, so the
// encoder neither re-encodes nor re-validates the largest part of a list.
// User text cannot produce it: quotes inside strings are escaped.
var repoMarker = []byte(`"repo":-1`)

// AppendPulls appends the JSON array of list to dst.
func AppendPulls(dst []byte, list []PullSimple) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	marker := json.RawMessage("-1")
	dst = append(dst, '[')
	for i := range list {
		it := list[i]
		repos := [2]json.RawMessage{it.Head.Repo, it.Base.Repo} // field order: head, then base
		it.Head.Repo, it.Base.Repo = marker, marker
		buf.Reset()
		if err := enc.Encode(&it); err != nil {
			return dst, err
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if i > 0 {
			dst = append(dst, ',')
		}
		for _, r := range repos {
			k := bytes.Index(b, repoMarker)
			if k < 0 {
				return dst, errors.New("wire: pull request without its repository marker")
			}
			dst = append(dst, b[:k+len(`"repo":`)]...)
			dst = append(dst, r...)
			b = b[k+len(repoMarker):]
		}
		dst = append(dst, b...)
	}
	return append(dst, ']'), nil
}

// TimelineCommitted is a "committed" entry of a pull request's timeline:
// a commit the pull request gained, as the git commit object.
type TimelineCommitted struct {
	Event string `json:"event"`
	GitCommit
}

// ToTimelineCommitted converts a commit of a pull request's timeline.
func (u URLs) ToTimelineCommitted(r *model.Repo, c *gitrepo.Commit) TimelineCommitted {
	return TimelineCommitted{Event: "committed", GitCommit: u.ToGitCommit(r, c)}
}

// orEmpty is *s, or "" for nil.
func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
