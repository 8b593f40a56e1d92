package wire

import (
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// GistFile is one entry of a gist's files: without content in lists
// (base-gist), with content and truncated in a single gist (gist-simple).
type GistFile struct {
	Filename  string  `json:"filename"`
	Type      string  `json:"type"`
	Language  string  `json:"language"`
	RawURL    string  `json:"raw_url"`
	Size      int64   `json:"size"`
	Truncated *bool   `json:"truncated,omitempty"`
	Content   *string `json:"content,omitempty"`
	Encoding  string  `json:"encoding,omitempty"`
}

// Gist is the gist schemas: base-gist in lists, gist-simple for one gist
// (with history, forks and fork_of).
type Gist struct {
	URL         string              `json:"url"`
	ForksURL    string              `json:"forks_url"`
	CommitsURL  string              `json:"commits_url"`
	ID          string              `json:"id"`
	NodeID      string              `json:"node_id"`
	GitPullURL  string              `json:"git_pull_url"`
	GitPushURL  string              `json:"git_push_url"`
	HTMLURL     string              `json:"html_url"`
	Files       map[string]GistFile `json:"files"`
	Public      bool                `json:"public"`
	CreatedAt   string              `json:"created_at"`
	UpdatedAt   string              `json:"updated_at"`
	Description *string             `json:"description"`
	Comments    int                 `json:"comments"`
	// CommentsEnabled is always true: hubd has no setting to lock a gist.
	CommentsEnabled bool          `json:"comments_enabled"`
	User            *SimpleUser   `json:"user"`
	CommentsURL     string        `json:"comments_url"`
	Owner           SimpleUser    `json:"owner"`
	Truncated       bool          `json:"truncated"`
	Forks           []GistFork    `json:"forks,omitempty"`
	History         []GistHistory `json:"history,omitempty"`
	ForkOf          *Gist         `json:"fork_of,omitempty"`
}

// GistFork is an entry of a single gist's forks.
type GistFork struct {
	ID        string     `json:"id"`
	URL       string     `json:"url"`
	User      PublicUser `json:"user"`
	CreatedAt string     `json:"created_at"`
	UpdatedAt string     `json:"updated_at"`
}

// GistHistory is gist-history and gist-commit: one revision.
type GistHistory struct {
	URL          string           `json:"url"`
	Version      string           `json:"version"`
	User         *SimpleUser      `json:"user"`
	ChangeStatus GistChangeStatus `json:"change_status"`
	CommittedAt  string           `json:"committed_at"`
}

// GistChangeStatus counts a revision's changed lines.
type GistChangeStatus struct {
	Total     int `json:"total"`
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
}

// GistComment is the gist-comment schema.
type GistComment struct {
	ID                int64       `json:"id"`
	NodeID            string      `json:"node_id"`
	URL               string      `json:"url"`
	Body              string      `json:"body"`
	User              *SimpleUser `json:"user"`
	CreatedAt         string      `json:"created_at"`
	UpdatedAt         string      `json:"updated_at"`
	AuthorAssociation string      `json:"author_association"`
}

// GistFileContent is what a single gist shows of a file's content.
type GistFileContent struct {
	Text      string
	Truncated bool
}

// GistURL is a gist's API URL.
func (u URLs) GistURL(g *model.Gist) string { return u.API + "/gists/" + g.Name }

// GistHTMLURL is a gist's page, in GitHub Enterprise Server's form.
func (u URLs) GistHTMLURL(g *model.Gist) string { return u.Web + "/gist/" + g.Name }

// GistGitURL is where git clones and pushes a gist (GHES's /gist/{id}.git).
func (u URLs) GistGitURL(g *model.Gist) string { return u.Web + "/gist/" + g.Name + ".git" }

// GistRawURL is the raw content of file name at revision rev, served by
// hubd at /gist/{owner}/{id}/raw/{rev}/{name} (GHES's form of
// gist.githubusercontent.com).
func (u URLs) GistRawURL(g *model.Gist, rev, name string) string {
	return u.Web + "/gist/" + g.Owner.Login + "/" + g.Name + "/raw/" + rev + "/" + url.PathEscape(name)
}

// ToGist converts a gist for lists (no contents). files is capped at
// max entries (0: all), truncated set beyond.
func (u URLs) ToGist(g *model.Gist, max int) Gist {
	api := u.GistURL(g)
	out := Gist{
		URL: api, ForksURL: api + "/forks", CommitsURL: api + "/commits", ID: g.Name, NodeID: NodeID("G", g.ID),
		GitPullURL: u.GistGitURL(g), GitPushURL: u.GistGitURL(g), HTMLURL: u.GistHTMLURL(g),
		Files: make(map[string]GistFile, len(g.Files)), Public: g.Public,
		CreatedAt: Time(g.CreatedAt), UpdatedAt: Time(g.UpdatedAt), Description: g.Description,
		Comments: g.Comments, CommentsEnabled: true, CommentsURL: api + "/comments", Owner: u.ToSimpleUser(g.Owner),
	}
	for i, f := range g.Files {
		if max > 0 && i == max {
			out.Truncated = true
			break
		}
		out.Files[f.Name] = GistFile{Filename: f.Name, Type: GistFileType(f.Name), Language: GistLanguage(f.Name),
			RawURL: u.GistRawURL(g, g.Head, f.Name), Size: f.Size}
	}
	return out
}

// ToGistFull converts a single gist: its files with content, its history
// (newest first), forks and the gist it was forked from.
func (u URLs) ToGistFull(g *model.Gist, max int, contents map[string]GistFileContent, history []gitrepo.Revision, forks []GistFork, parent *model.Gist) Gist {
	out := u.ToGist(g, max)
	for name, f := range out.Files {
		c := contents[name]
		text, truncated := c.Text, c.Truncated
		f.Content, f.Truncated, f.Encoding = &text, &truncated, "utf-8"
		out.Files[name] = f
	}
	out.History = make([]GistHistory, len(history))
	for i, h := range history {
		out.History[i] = u.ToGistHistory(g, h)
	}
	out.Forks = forks
	if parent != nil {
		p := u.ToGist(parent, max)
		out.ForkOf = &p
	}
	return out
}

// ToGistHistory converts a revision.
func (u URLs) ToGistHistory(g *model.Gist, h gitrepo.Revision) GistHistory {
	owner := u.ToSimpleUser(g.Owner)
	return GistHistory{URL: u.GistURL(g) + "/" + h.OID, Version: h.OID, User: &owner, CommittedAt: Time(h.When),
		ChangeStatus: GistChangeStatus{Total: h.Additions + h.Deletions, Additions: h.Additions, Deletions: h.Deletions}}
}

// ToGistFork converts a fork for a single gist's forks.
func (u URLs) ToGistFork(g *model.Gist, c UserCounts) GistFork {
	return GistFork{ID: g.Name, URL: u.GistURL(g), User: u.ToPublicUser(g.Owner, c), CreatedAt: Time(g.CreatedAt), UpdatedAt: Time(g.UpdatedAt)}
}

// ToGistComment converts a gist comment.
func (u URLs) ToGistComment(g *model.Gist, c *model.GistComment, association string) GistComment {
	user := u.ToSimpleUser(c.User)
	return GistComment{ID: c.ID, NodeID: NodeID("GC", c.ID), URL: u.GistURL(g) + "/comments/" + strconv.FormatInt(c.ID, 10), Body: c.Body,
		User: &user, CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt), AuthorAssociation: association}
}

// gistLanguages names the languages of prose and data files, which the
// repository statistics leave out but gists show.
var gistLanguages = map[string]string{
	".md": "Markdown", ".markdown": "Markdown", ".txt": "Text", ".json": "JSON", ".yml": "YAML", ".yaml": "YAML",
	".csv": "CSV", ".xml": "XML", ".html": "HTML", ".htm": "HTML", ".css": "CSS", ".toml": "TOML", ".rst": "reStructuredText",
	".ini": "INI", ".sql": "SQL", ".diff": "Diff", ".patch": "Diff",
}

// GistLanguage is the language gists show for a file name: "Text" for
// names no language claims (GitHub's schema has no null here).
func GistLanguage(name string) string {
	if l, ok := gistLanguages[strings.ToLower(path.Ext(name))]; ok {
		return l
	}
	if l := gitrepo.LanguageOf(name); l != "" {
		return l
	}
	return "Text"
}

// gistTypes are the media types of common file extensions (a fixed table,
// not the host's mime.types, so that answers do not depend on the host).
var gistTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".json": "application/json", ".js": "application/javascript",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".xml": "application/xml", ".csv": "text/csv",
	".rb": "application/x-ruby", ".py": "application/x-python", ".sh": "application/x-sh", ".go": "text/x-go",
	".yml": "application/x-yaml", ".yaml": "application/x-yaml", ".svg": "image/svg+xml", ".png": "image/png",
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".pdf": "application/pdf",
}

// GistFileType is the media type of a gist file: text/plain unless its
// extension says otherwise.
func GistFileType(name string) string {
	if t, ok := gistTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "text/plain"
}
