package wire

import (
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// PullReview is components/schemas/pull-request-review.
type PullReview struct {
	ID     int64       `json:"id"`
	NodeID string      `json:"node_id"`
	User   *SimpleUser `json:"user"`
	Body
	State          string `json:"state"`
	HTMLURL        string `json:"html_url"`
	PullRequestURL string `json:"pull_request_url"`
	Links          struct {
		HTML        Link `json:"html"`
		PullRequest Link `json:"pull_request"`
	} `json:"_links"`
	SubmittedAt       *string `json:"submitted_at,omitempty"` // GitHub leaves it out while pending
	CommitID          *string `json:"commit_id"`
	AuthorAssociation string  `json:"author_association"`
}

// PullReviewComment is components/schemas/pull-request-review-comment.
// position, line, original_line and side are left out when null (an
// outdated comment, a file comment): the schema declares them as
// non-nullable integers and strings but not required.
type PullReviewComment struct {
	URL                 string      `json:"url"`
	PullRequestReviewID *int64      `json:"pull_request_review_id"`
	ID                  int64       `json:"id"`
	NodeID              string      `json:"node_id"`
	DiffHunk            string      `json:"diff_hunk"`
	Path                string      `json:"path"`
	Position            *int64      `json:"position,omitempty"`
	OriginalPosition    *int64      `json:"original_position,omitempty"`
	CommitID            string      `json:"commit_id"`
	OriginalCommitID    string      `json:"original_commit_id"`
	InReplyToID         *int64      `json:"in_reply_to_id,omitempty"`
	User                *SimpleUser `json:"user"`
	Body
	CreatedAt         string `json:"created_at"`
	UpdatedAt         string `json:"updated_at"`
	HTMLURL           string `json:"html_url"`
	PullRequestURL    string `json:"pull_request_url"`
	AuthorAssociation string `json:"author_association"`
	Links             struct {
		Self        Link `json:"self"`
		HTML        Link `json:"html"`
		PullRequest Link `json:"pull_request"`
	} `json:"_links"`
	StartLine         *int64         `json:"start_line"`
	OriginalStartLine *int64         `json:"original_start_line"`
	StartSide         *string        `json:"start_side"`
	Line              *int64         `json:"line,omitempty"`
	OriginalLine      *int64         `json:"original_line,omitempty"`
	Side              *string        `json:"side,omitempty"`
	SubjectType       string         `json:"subject_type"`
	Reactions         ReactionRollup `json:"reactions"`
}

// ReviewComment is components/schemas/review-comment (the comments of one
// review), where position is required and nullable and
// original_position required.
type ReviewComment struct {
	PullReviewComment
	Position         *int64 `json:"position"`
	OriginalPosition int64  `json:"original_position"`
}

// PullReviewCommentAPIURL is the API URL of a review comment.
func (u URLs) PullReviewCommentAPIURL(repo *model.Repo, id int64) string {
	return u.RepoAPIURL(repo) + "/pulls/comments/" + strconv.FormatInt(id, 10)
}

// ToPullReview converts a review. body is always sent (the schema
// requires it), with body_text/body_html as the media type asks.
func (w *IssueWriter) ToPullReview(repo *model.Repo, v *model.PullReview) PullReview {
	f := w.Body
	f.Raw = true
	html := w.U.RepoHTMLURL(repo) + "/pull/" + strconv.FormatInt(v.PullNumber, 10) + "#pullrequestreview-" + strconv.FormatInt(v.ID, 10)
	commit := v.CommitID
	out := PullReview{ID: v.ID, NodeID: NodeID("PRR", v.ID), User: w.User(v.User), Body: f.body(&v.Body), State: v.State,
		HTMLURL: html, PullRequestURL: w.U.PullURL(repo, v.PullNumber), SubmittedAt: TimePtr(v.SubmittedAt),
		CommitID: &commit, AuthorAssociation: v.Association}
	out.Links.HTML, out.Links.PullRequest = Link{html}, Link{out.PullRequestURL}
	return out
}

// ToPullReviewComment converts a review comment.
func (w *IssueWriter) ToPullReviewComment(repo *model.Repo, c *model.PullReviewComment) PullReviewComment {
	f := w.Body
	f.Raw = true
	self := w.U.PullReviewCommentAPIURL(repo, c.ID)
	html := w.U.RepoHTMLURL(repo) + "/pull/" + strconv.FormatInt(c.PullNumber, 10) + "#discussion_r" + strconv.FormatInt(c.ID, 10)
	review := c.ReviewID
	out := PullReviewComment{URL: self, PullRequestReviewID: &review, ID: c.ID, NodeID: NodeID("PRRC", c.ID),
		DiffHunk: c.DiffHunk, Path: c.Path, Position: c.Position, OriginalPosition: c.OriginalPosition,
		CommitID: c.CommitID, OriginalCommitID: c.OriginalCommitID, User: w.User(c.User), Body: f.body(&c.Body),
		CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt), HTMLURL: html,
		PullRequestURL: w.U.PullURL(repo, c.PullNumber), AuthorAssociation: c.Association,
		StartLine: c.StartLine, OriginalStartLine: c.OriginalStartLine, StartSide: c.StartSide,
		Line: c.Line, OriginalLine: c.OriginalLine, Side: c.Side, SubjectType: c.SubjectType,
		Reactions: ToRollup(self+"/reactions", c.Rollup)}
	if c.InReplyToID != 0 {
		r := c.InReplyToID
		out.InReplyToID = &r
	}
	out.Links.Self, out.Links.HTML, out.Links.PullRequest = Link{self}, Link{html}, Link{out.PullRequestURL}
	return out
}

// ToReviewComment converts a comment of a review's comment list; a file
// comment, which has no position, shows original_position 1 (the schema
// requires an integer).
func (w *IssueWriter) ToReviewComment(repo *model.Repo, c *model.PullReviewComment) ReviewComment {
	out := ReviewComment{PullReviewComment: w.ToPullReviewComment(repo, c), Position: c.Position, OriginalPosition: 1}
	if c.OriginalPosition != nil {
		out.OriginalPosition = *c.OriginalPosition
	}
	return out
}

// TimelineReview is components/schemas/timeline-reviewed-event.
type TimelineReview struct {
	Event string `json:"event"`
	PullReview
}

// ToTimelineReview converts a "reviewed" entry of a timeline, whose state
// GitHub writes in lower case ("approved", "changes_requested").
func (w *IssueWriter) ToTimelineReview(repo *model.Repo, v *model.PullReview) TimelineReview {
	out := TimelineReview{Event: "reviewed", PullReview: w.ToPullReview(repo, v)}
	out.State = strings.ToLower(out.State)
	return out
}

// DismissedReview is components/schemas/issue-event-dismissed-review.
type DismissedReview struct {
	State            string  `json:"state"`
	ReviewID         int64   `json:"review_id"`
	DismissalMessage *string `json:"dismissal_message"`
}
