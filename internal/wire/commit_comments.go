package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// CommitComment is components/schemas/commit-comment.
type CommitComment struct {
	HTMLURL string `json:"html_url"`
	URL     string `json:"url"`
	ID      int64  `json:"id"`
	NodeID  string `json:"node_id"`
	Body
	Path              *string        `json:"path"`
	Position          *int64         `json:"position"`
	Line              *int64         `json:"line"`
	CommitID          string         `json:"commit_id"`
	User              *SimpleUser    `json:"user"`
	CreatedAt         string         `json:"created_at"`
	UpdatedAt         string         `json:"updated_at"`
	AuthorAssociation string         `json:"author_association"`
	Reactions         ReactionRollup `json:"reactions"`
}

// CommitCommentAPIURL is the API URL of a commit comment.
func (u URLs) CommitCommentAPIURL(repo *model.Repo, id int64) string {
	return u.RepoAPIURL(repo) + "/comments/" + strconv.FormatInt(id, 10)
}

// ToCommitComment converts a commit comment, with the writer's body
// format (body_text, body_html) and shared user objects. body is always
// sent: the commit-comment schema requires it, whatever the media type.
func (w *IssueWriter) ToCommitComment(repo *model.Repo, c *model.CommitComment) CommitComment {
	self := w.U.CommitCommentAPIURL(repo, c.ID)
	f := w.Body
	f.Raw = true
	return CommitComment{
		HTMLURL: w.U.RepoHTMLURL(repo) + "/commit/" + c.CommitID + "#commitcomment-" + strconv.FormatInt(c.ID, 10),
		URL:     self, ID: c.ID, NodeID: NodeID("CC", c.ID), Body: f.body(&c.Body),
		Path: c.Path, Position: c.Position, Line: c.Line, CommitID: c.CommitID, User: w.User(c.User),
		CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt), AuthorAssociation: c.Association,
		Reactions: ToRollup(self+"/reactions", c.Rollup),
	}
}
