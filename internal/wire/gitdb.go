package wire

import (
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// The shapes of the Git database API (blobs, trees, commits, refs, tags).

// ShortBlob is components/schemas/short-blob.
type ShortBlob struct {
	URL string `json:"url"`
	SHA string `json:"sha"`
}

// GitPerson is the author, committer or tagger of git-commit and git-tag.
type GitPerson struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// GitVerification is components/schemas/verification as the Git database
// API sends it.
type GitVerification struct {
	Verified   bool    `json:"verified"`
	Reason     string  `json:"reason"`
	Signature  *string `json:"signature"`
	Payload    *string `json:"payload"`
	VerifiedAt *string `json:"verified_at"`
}

// GitObjectLink is the {sha, url} of a commit's tree.
type GitObjectLink struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

// GitParent is one parent of a git-commit.
type GitParent struct {
	SHA     string `json:"sha"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url"`
}

// GitCommit is components/schemas/git-commit.
type GitCommit struct {
	SHA          string          `json:"sha"`
	NodeID       string          `json:"node_id"`
	URL          string          `json:"url"`
	HTMLURL      string          `json:"html_url"`
	Author       GitPerson       `json:"author"`
	Committer    GitPerson       `json:"committer"`
	Tree         GitObjectLink   `json:"tree"`
	Message      string          `json:"message"`
	Parents      []GitParent     `json:"parents"`
	Verification GitVerification `json:"verification"`
}

// GitTreeEntry is one entry of a git-tree: size only for blobs, url for
// everything but submodules.
type GitTreeEntry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	SHA  string `json:"sha"`
	Size *int64 `json:"size,omitempty"`
	URL  string `json:"url,omitempty"`
}

// GitTree is components/schemas/git-tree.
type GitTree struct {
	SHA       string         `json:"sha"`
	URL       string         `json:"url"`
	Tree      []GitTreeEntry `json:"tree"`
	Truncated bool           `json:"truncated"`
}

// GitRefObject is the object a git-ref points to.
type GitRefObject struct {
	Type string `json:"type"`
	SHA  string `json:"sha"`
	URL  string `json:"url"`
}

// GitRef is components/schemas/git-ref.
type GitRef struct {
	Ref    string       `json:"ref"`
	NodeID string       `json:"node_id"`
	URL    string       `json:"url"`
	Object GitRefObject `json:"object"`
}

// GitTag is components/schemas/git-tag.
type GitTag struct {
	NodeID       string          `json:"node_id"`
	Tag          string          `json:"tag"`
	SHA          string          `json:"sha"`
	URL          string          `json:"url"`
	Message      string          `json:"message"`
	Tagger       GitPerson       `json:"tagger"`
	Object       GitRefObject    `json:"object"`
	Verification GitVerification `json:"verification"`
}

// GitNodeID is the global id of a git object or ref: a type prefix ("B"
// blob, "C" commit, "REF" ref, "TA" tag), an underscore and the base64 of the
// MessagePack array [0, repository id, sha or ref name].
func GitNodeID(prefix string, repoID int64, name string) string {
	b := []byte{0x93, 0x00}
	u := uint64(repoID)
	switch {
	case u < 128:
		b = append(b, byte(u))
	case u < 1<<8:
		b = append(b, 0xcc, byte(u))
	case u < 1<<16:
		b = binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(u))
	case u < 1<<32:
		b = binary.BigEndian.AppendUint32(append(b, 0xce), uint32(u))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 0xcf), u)
	}
	switch n := len(name); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n < 1<<16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	b = append(b, name...)
	return prefix + "_" + base64.RawURLEncoding.EncodeToString(b)
}

// GitObjectURL is the API URL of a git object by type: .../git/blobs/sha,
// .../git/trees/sha, .../git/commits/sha or .../git/tags/sha.
func (u URLs) GitObjectURL(r *model.Repo, typ, sha string) string {
	return u.RepoAPIURL(r) + "/git/" + typ + "s/" + sha
}

// GitRefURL is the API URL of a ref (refs/heads/main → .../git/refs/heads/main).
func (u URLs) GitRefURL(r *model.Repo, ref string) string {
	return u.RepoAPIURL(r) + "/git/" + ref
}

// GitCommitHTMLURL is a commit's web page.
func (u URLs) GitCommitHTMLURL(r *model.Repo, sha string) string {
	return u.RepoHTMLURL(r) + "/commit/" + sha
}

// CommitEmail is the address commits made through the API by a are signed
// with when they name no author: the account's email, or the no-reply
// address <id>+<login>@users.noreply.<host> as on GitHub.
func (u URLs) CommitEmail(a *model.Account) string {
	if a.Email != "" {
		return a.Email
	}
	return strconv.FormatInt(a.ID, 10) + "+" + a.Login + "@" + u.NoreplyDomain()
}

// ToGitPerson converts a git signature (dates in UTC, as GitHub sends them).
func ToGitPerson(s gitrepo.Signature) GitPerson {
	return GitPerson{Name: s.Name, Email: s.Email, Date: Time(s.When)}
}

// ToGitVerification describes an object's signature: hubd holds no signing
// keys yet, so a signed object is never verified; its reason says why.
func ToGitVerification(signature, payload string) GitVerification {
	if signature == "" {
		return GitVerification{Verified: false, Reason: "unsigned"}
	}
	return GitVerification{Verified: false, Reason: SignatureReason(signature), Signature: &signature, Payload: &payload}
}

// SignatureReason is the verification reason of an unverifiable signature:
// GPG and SSH signatures are from a key no account registered, anything else
// is of a type hubd does not read.
func SignatureReason(sig string) string {
	for _, armor := range []string{"-----BEGIN PGP SIGNATURE-----", "-----BEGIN SSH SIGNATURE-----"} {
		if len(sig) >= len(armor) && sig[:len(armor)] == armor {
			return "unknown_key"
		}
	}
	return "unknown_signature_type"
}

// ToGitCommit converts a parsed commit object.
func (u URLs) ToGitCommit(r *model.Repo, c *gitrepo.Commit) GitCommit {
	parents := make([]GitParent, len(c.Parents))
	for i, p := range c.Parents {
		parents[i] = GitParent{SHA: p, URL: u.GitObjectURL(r, "commit", p), HTMLURL: u.GitCommitHTMLURL(r, p)}
	}
	return GitCommit{
		SHA: c.OID, NodeID: GitNodeID("C", r.ID, c.OID),
		URL: u.GitObjectURL(r, "commit", c.OID), HTMLURL: u.GitCommitHTMLURL(r, c.OID),
		Author: ToGitPerson(c.Author), Committer: ToGitPerson(c.Committer),
		Tree:    GitObjectLink{SHA: c.Tree, URL: u.GitObjectURL(r, "tree", c.Tree)},
		Message: c.Message, Parents: parents,
		Verification: ToGitVerification(c.Signature, string(c.Payload)),
	}
}

// ToGitTreeEntry converts one tree entry at path; size is the blob's size
// (ignored for trees and submodules).
func (u URLs) ToGitTreeEntry(r *model.Repo, path, mode, oid string, size int64) GitTreeEntry {
	e := GitTreeEntry{Path: path, Mode: mode, SHA: oid}
	switch mode {
	case "040000":
		e.Type, e.URL = "tree", u.GitObjectURL(r, "tree", oid)
	case "160000":
		e.Type = "commit"
	default:
		e.Type, e.URL = "blob", u.GitObjectURL(r, "blob", oid)
		e.Size = &size
	}
	return e
}

// ToGitRef converts a ref (full name, refs/...) and the object it points to.
func (u URLs) ToGitRef(r *model.Repo, name, typ, oid string) GitRef {
	return GitRef{
		Ref: name, NodeID: GitNodeID("REF", r.ID, name), URL: u.GitRefURL(r, name),
		Object: GitRefObject{Type: typ, SHA: oid, URL: u.GitObjectURL(r, typ, oid)},
	}
}

// ToGitTag converts a parsed annotated tag; payload is the object without its
// signature. A tag without tagger (possible in pushed tags) gets an empty one.
func (u URLs) ToGitTag(r *model.Repo, t *gitrepo.Tag, payload string) GitTag {
	var tagger GitPerson
	if t.Tagger != nil {
		tagger = ToGitPerson(*t.Tagger)
	} else {
		tagger.Date = Time(time.Unix(0, 0))
	}
	return GitTag{
		NodeID: GitNodeID("TA", r.ID, t.OID), Tag: t.Name, SHA: t.OID,
		URL: u.GitObjectURL(r, "tag", t.OID), Message: t.Message, Tagger: tagger,
		Object:       GitRefObject{Type: t.Type, SHA: t.Object, URL: u.GitObjectURL(r, t.Type, t.Object)},
		Verification: ToGitVerification(t.Sig, payload),
	}
}
