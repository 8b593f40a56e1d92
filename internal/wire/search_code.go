package wire

import (
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// CodeSearchItem is components/schemas/code-search-result-item.
type CodeSearchItem struct {
	Name        string            `json:"name"`
	Path        string            `json:"path"`
	SHA         string            `json:"sha"`
	URL         string            `json:"url"`
	GitURL      string            `json:"git_url"`
	HTMLURL     string            `json:"html_url"`
	Repository  MinimalRepository `json:"repository"`
	Score       float64           `json:"score"`
	FileSize    int64             `json:"file_size"`
	Language    *string           `json:"language"`
	TextMatches *[]TextMatch      `json:"text_matches,omitempty"`
}

// ToCodeSearchItem converts a file found in repository r (repo is its
// minimal-repository object).
func (u URLs) ToCodeSearchItem(r *model.Repo, repo MinimalRepository, h *model.CodeHit, m Matching) CodeSearchItem {
	f := h.File
	out := CodeSearchItem{
		Name: f.Name, Path: f.Path, SHA: f.SHA,
		URL:        u.ContentURL(r, f.Path, h.Commit),
		GitURL:     u.RepoAPIURL(r) + "/git/blobs/" + f.SHA,
		HTMLURL:    u.RepoHTMLURL(r) + "/blob/" + h.Commit + "/" + EscapeContentPath(f.Path),
		Repository: repo, Score: 1, FileSize: f.Size,
	}
	if f.Language != "" {
		out.Language = &f.Language
	}
	out.TextMatches = m.textMatches(out.URL, "FileContent", [2]string{"content", f.Content}, [2]string{"path", f.Path})
	return out
}

// CommitSearchItem is components/schemas/commit-search-result-item.
type CommitSearchItem struct {
	URL         string            `json:"url"`
	SHA         string            `json:"sha"`
	NodeID      string            `json:"node_id"`
	HTMLURL     string            `json:"html_url"`
	CommentsURL string            `json:"comments_url"`
	Commit      CommitGitData     `json:"commit"`
	Author      *SimpleUser       `json:"author"`
	Committer   *SimpleUser       `json:"committer"`
	Parents     []CommitParent    `json:"parents"`
	Repository  MinimalRepository `json:"repository"`
	Score       float64           `json:"score"`
	TextMatches *[]TextMatch      `json:"text_matches,omitempty"`
}

// searchDate is a commit date with its author's zone, as commit searches
// show them.
func searchDate(unix int64, tzMinutes int) string {
	return time.Unix(unix, 0).In(time.FixedZone("", tzMinutes*60)).Format("2006-01-02T15:04:05.000-07:00")
}

// ToCommitSearchItem converts a commit found in repository r; people maps
// account ids to the accounts commits are attributed to.
func (u URLs) ToCommitSearchItem(r *model.Repo, repo MinimalRepository, c *model.CodeCommit, people map[int64]*model.Account, m Matching) CommitSearchItem {
	base := u.RepoAPIURL(r)
	out := CommitSearchItem{
		URL: u.CommitAPIURL(r, c.SHA), SHA: c.SHA, NodeID: GitNodeID("C", r.ID, c.SHA),
		HTMLURL: u.CommitHTMLURL(r, c.SHA), CommentsURL: u.CommitAPIURL(r, c.SHA) + "/comments",
		Commit: CommitGitData{
			URL:          base + "/git/commits/" + c.SHA,
			Author:       &CommitIdentity{Name: c.AuthorName, Email: c.AuthorEmail, Date: searchDate(c.AuthorDate, c.AuthorTZ)},
			Committer:    &CommitIdentity{Name: c.CommitterName, Email: c.CommitterEmail, Date: searchDate(c.CommitterDate, c.CommitterTZ)},
			Message:      strings.TrimRight(c.Message, "\n"),
			CommentCount: c.CommentCount,
			Tree:         SHAURL{SHA: c.Tree, URL: base + "/git/trees/" + c.Tree},
		},
		Repository: repo, Score: 1,
	}
	out.Author, out.Committer, out.Parents = u.commitLinks(r, people[c.AuthorID], people[c.CommitterID], c.Parents)
	out.TextMatches = m.textMatches(out.URL, "Commit", [2]string{"message", out.Commit.Message})
	return out
}
