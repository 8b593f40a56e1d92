package wire

import (
	"net/url"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// ContentLinks is the _links object of every content shape.
type ContentLinks struct {
	Self string  `json:"self"`
	Git  *string `json:"git"`
	HTML *string `json:"html"`
}

// ContentItem is an item of components/schemas/content-directory and of
// content-tree's entries; the other content shapes extend it.
type ContentItem struct {
	Type        string       `json:"type"`
	Size        int64        `json:"size"`
	Name        string       `json:"name"`
	Path        string       `json:"path"`
	SHA         string       `json:"sha"`
	URL         string       `json:"url"`
	GitURL      *string      `json:"git_url"`
	HTMLURL     *string      `json:"html_url"`
	DownloadURL *string      `json:"download_url"`
	Links       ContentLinks `json:"_links"`
}

// ContentFile is components/schemas/content-file.
type ContentFile struct {
	ContentItem
	Encoding string `json:"encoding"` // base64, or none for files over 1 MB
	Content  string `json:"content"`
}

// ContentSymlink is components/schemas/content-symlink.
type ContentSymlink struct {
	ContentItem
	Target string `json:"target"`
}

// ContentSubmodule is components/schemas/content-submodule.
type ContentSubmodule struct {
	ContentItem
	SubmoduleGitURL string `json:"submodule_git_url"`
}

// ContentTree is components/schemas/content-tree: a directory in the
// object media type.
type ContentTree struct {
	ContentItem
	Entries []ContentItem `json:"entries"`
}

// ContentEntry is what the content converters know of one tree entry.
type ContentEntry struct {
	Type string // file, dir, symlink, submodule
	Path string // from the repository root; "" is the root
	SHA  string
	Size int64
	// DownloadURL is the raw URL of files and symlinks (carrying its token
	// for private repositories); nil for directories and submodules.
	DownloadURL *string
	// SubmoduleRepo is "owner/name" when a submodule's repository is hosted
	// here; its git and html URLs are null otherwise, as GitHub's are for
	// submodules hosted elsewhere.
	SubmoduleRepo string
}

// EscapeContentPath escapes each segment of a repository path for a URL.
func EscapeContentPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// ContentURL is the API URL of a path (with ?ref= when ref is not "").
func (u URLs) ContentURL(r *model.Repo, p, ref string) string {
	s := u.RepoAPIURL(r) + "/contents/" + EscapeContentPath(p)
	if ref != "" {
		s += "?ref=" + url.QueryEscape(ref)
	}
	return s
}

// ToContentItem converts an entry read at ref. withRef puts ?ref= on url and
// _links.self, as GET does (the write operations answer without it).
func (u URLs) ToContentItem(r *model.Repo, ref string, e ContentEntry, withRef bool) ContentItem {
	name := e.Path
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	q := ""
	if withRef {
		q = ref
	}
	it := ContentItem{Type: e.Type, Size: e.Size, Name: name, Path: e.Path, SHA: e.SHA,
		URL: u.ContentURL(r, e.Path, q), DownloadURL: e.DownloadURL}
	web := u.RepoHTMLURL(r)
	var git, html string
	switch e.Type {
	case "dir":
		git = u.RepoAPIURL(r) + "/git/trees/" + e.SHA
		html = web + "/tree/" + EscapeContentPath(ref) + "/" + EscapeContentPath(e.Path)
	case "submodule":
		if e.SubmoduleRepo != "" {
			git = u.API + "/repos/" + e.SubmoduleRepo + "/git/trees/" + e.SHA
			html = u.Web + "/" + e.SubmoduleRepo + "/tree/" + e.SHA
		}
	default:
		git = u.RepoAPIURL(r) + "/git/blobs/" + e.SHA
		html = web + "/blob/" + EscapeContentPath(ref) + "/" + EscapeContentPath(e.Path)
	}
	if e.Path == "" && e.Type == "dir" {
		html = web + "/tree/" + EscapeContentPath(ref)
	}
	if git != "" {
		it.GitURL, it.HTMLURL = &git, &html
	}
	it.Links = ContentLinks{Self: it.URL, Git: it.GitURL, HTML: it.HTMLURL}
	return it
}

// FileCommit is components/schemas/file-commit: the answer of the create,
// update and delete file operations (content is null after a delete). Its
// commit is the Git database API's commit object.
type FileCommit struct {
	Content *ContentItem `json:"content"`
	Commit  GitCommit    `json:"commit"`
}

// ToFileCommit converts a commit the contents API made.
func (u URLs) ToFileCommit(r *model.Repo, content *ContentItem, c *gitrepo.Commit) FileCommit {
	return FileCommit{Content: content, Commit: u.ToGitCommit(r, c)}
}
