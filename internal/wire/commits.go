package wire

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// Commit is components/schemas/commit (the repository view of a commit:
// git data plus the GitHub users behind its identities). Stats and Files
// come only with a single commit.
type Commit struct {
	URL         string         `json:"url"`
	SHA         string         `json:"sha"`
	NodeID      string         `json:"node_id"`
	HTMLURL     string         `json:"html_url"`
	CommentsURL string         `json:"comments_url"`
	Commit      CommitDetail   `json:"commit"`
	Author      *SimpleUser    `json:"author"`
	Committer   *SimpleUser    `json:"committer"`
	Parents     []CommitParent `json:"parents"`
	Stats       *CommitStats   `json:"stats,omitempty"`
	Files       *[]DiffEntry   `json:"files,omitempty"`
}

// CommitDetail is the "commit" object inside a commit: the git data.
type CommitDetail struct {
	CommitGitData
	Verification GitVerification `json:"verification"`
}

// CommitGitData is the git data of a commit, as commits and commit search
// results show it (the latter without verification: the index keeps no
// signature, and the schema allows it left out).
type CommitGitData struct {
	URL          string          `json:"url"`
	Author       *CommitIdentity `json:"author"`
	Committer    *CommitIdentity `json:"committer"`
	Message      string          `json:"message"`
	CommentCount int             `json:"comment_count"`
	Tree         SHAURL          `json:"tree"`
}

// CommitIdentity is components/schemas/nullable-git-user.
type CommitIdentity struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// SHAURL is the {sha, url} pair that points at a commit or tree.
type SHAURL struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

// CommitParent is one entry of a commit's parents.
type CommitParent struct {
	SHA     string `json:"sha"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url"`
}

// CommitStats are the line counts of a commit's diff.
type CommitStats struct {
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	Total     int `json:"total"`
}

// DiffEntry is components/schemas/diff-entry.
type DiffEntry struct {
	SHA              *string `json:"sha"`
	Filename         string  `json:"filename"`
	Status           string  `json:"status"`
	Additions        int     `json:"additions"`
	Deletions        int     `json:"deletions"`
	Changes          int     `json:"changes"`
	BlobURL          string  `json:"blob_url"`
	RawURL           string  `json:"raw_url"`
	ContentsURL      string  `json:"contents_url"`
	Patch            *string `json:"patch,omitempty"`
	PreviousFilename string  `json:"previous_filename,omitempty"`
}

// CommitComparison is components/schemas/commit-comparison.
type CommitComparison struct {
	URL             string       `json:"url"`
	HTMLURL         string       `json:"html_url"`
	PermalinkURL    string       `json:"permalink_url"`
	DiffURL         string       `json:"diff_url"`
	PatchURL        string       `json:"patch_url"`
	BaseCommit      Commit       `json:"base_commit"`
	MergeBaseCommit Commit       `json:"merge_base_commit"`
	Status          string       `json:"status"`
	AheadBy         int          `json:"ahead_by"`
	BehindBy        int          `json:"behind_by"`
	TotalCommits    int          `json:"total_commits"`
	Commits         []Commit     `json:"commits"`
	Files           *[]DiffEntry `json:"files,omitempty"`
}

// Tag is components/schemas/tag (GET /repos/{owner}/{repo}/tags).
type Tag struct {
	Name       string `json:"name"`
	Commit     SHAURL `json:"commit"`
	ZipballURL string `json:"zipball_url"`
	TarballURL string `json:"tarball_url"`
	NodeID     string `json:"node_id"`
}

// Languages is components/schemas/language: bytes of code per language,
// written largest first as GitHub does.
type Languages map[string]int64

// MarshalJSON writes the languages by size, descending (then by name).
func (l Languages) MarshalJSON() ([]byte, error) {
	names := make([]string, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if l[names[i]] != l[names[j]] {
			return l[names[i]] > l[names[j]]
		}
		return names[i] < names[j]
	})
	b := []byte{'{'}
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
		b = append(b, k...)
		b = append(b, ':')
		b = strconv.AppendInt(b, l[n], 10)
	}
	return append(b, '}'), nil
}

// NoreplyDomain is the domain of the instance's private commit addresses:
// ID+login@users.noreply.<host>, as GitHub's users.noreply.github.com.
func (u URLs) NoreplyDomain() string { return "users.noreply." + u.host() }

// CommitAPIURL is the API URL of a commit of a repository.
func (u URLs) CommitAPIURL(r *model.Repo, sha string) string {
	return u.RepoAPIURL(r) + "/commits/" + sha
}

// CommitHTMLURL is the web URL of a commit.
func (u URLs) CommitHTMLURL(r *model.Repo, sha string) string {
	return u.RepoHTMLURL(r) + "/commit/" + sha
}

// UserLookup finds the user a commit identity's email belongs to (nil for
// none).
type UserLookup func(email string) *model.Account

// ToCommit converts a commit; users maps identities to GitHub users, as
// GitHub does by email (null when no user has the address).
func (u URLs) ToCommit(r *model.Repo, c *gitrepo.Commit, users UserLookup) Commit {
	base := u.RepoAPIURL(r)
	out := Commit{
		URL: u.CommitAPIURL(r, c.OID), SHA: c.OID, NodeID: GitNodeID("C", r.ID, c.OID),
		HTMLURL: u.CommitHTMLURL(r, c.OID), CommentsURL: u.CommitAPIURL(r, c.OID) + "/comments",
		Commit: CommitDetail{
			CommitGitData: CommitGitData{
				URL:       base + "/git/commits/" + c.OID,
				Author:    identity(c.Author),
				Committer: identity(c.Committer),
				Message:   strings.TrimRight(c.Message, "\n"),
				Tree:      SHAURL{SHA: c.Tree, URL: base + "/git/trees/" + c.Tree},
			},
			Verification: ToGitVerification(c.Signature, string(c.Payload)),
		},
	}
	out.Author, out.Committer, out.Parents = u.commitLinks(r, users(c.Author.Email), users(c.Committer.Email), c.Parents)
	return out
}

// commitLinks are a commit's author and committer as GitHub users (nil
// for none) and its parents.
func (u URLs) commitLinks(r *model.Repo, author, committer *model.Account, parents []string) (*SimpleUser, *SimpleUser, []CommitParent) {
	var a, c *SimpleUser
	if author != nil {
		su := u.ToSimpleUser(author)
		a = &su
	}
	if committer != nil {
		su := u.ToSimpleUser(committer)
		c = &su
	}
	list := make([]CommitParent, 0, len(parents))
	for _, p := range parents {
		list = append(list, CommitParent{SHA: p, URL: u.CommitAPIURL(r, p), HTMLURL: u.CommitHTMLURL(r, p)})
	}
	return a, c, list
}

func identity(s gitrepo.Signature) *CommitIdentity {
	return &CommitIdentity{Name: s.Name, Email: s.Email, Date: Time(s.When)}
}

// ToDiffEntry converts one file of a diff between commits parent and
// commit (a removed file points at the parent, where it still exists).
func (u URLs) ToDiffEntry(r *model.Repo, commit, parent string, f gitrepo.FileChange) DiffEntry {
	ref, sha := commit, f.NewOID
	if f.Status == "removed" {
		ref, sha = parent, f.OldOID
	}
	p := escapePath(f.Path)
	e := DiffEntry{
		SHA: &sha, Filename: f.Path, Status: f.Status,
		Additions: f.Additions, Deletions: f.Deletions, Changes: f.Additions + f.Deletions,
		BlobURL:          u.RepoHTMLURL(r) + "/blob/" + ref + "/" + p,
		RawURL:           u.RepoHTMLURL(r) + "/raw/" + ref + "/" + p,
		ContentsURL:      u.RepoAPIURL(r) + "/contents/" + p + "?ref=" + ref,
		PreviousFilename: f.OldPath,
	}
	if f.HasPatch {
		patch := f.Patch
		e.Patch = &patch
	}
	return e
}

// ToTag converts a tag of GET /repos/{owner}/{repo}/tags; commit is the
// commit it points to (peeled).
func (u URLs) ToTag(r *model.Repo, name, commit string) Tag {
	base := u.RepoAPIURL(r)
	ref := "refs/tags/" + name
	return Tag{
		Name: name, Commit: SHAURL{SHA: commit, URL: u.CommitAPIURL(r, commit)},
		ZipballURL: base + "/zipball/" + escapePath(ref), TarballURL: base + "/tarball/" + escapePath(ref),
		NodeID: GitNodeID("REF", r.ID, ref),
	}
}

// escapePath escapes each segment of a slash-separated path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
