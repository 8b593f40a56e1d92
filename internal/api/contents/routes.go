// Package contents serves the repository contents category: reading files
// and directories at any commit-ish, creating, updating and deleting files
// (each a commit on a branch), the README, and source archives. Downloads
// (raw files and archives) are served by hubd's own routes, the counterparts
// of raw.githubusercontent.com and codeload.github.com; for private
// repositories their URLs carry a short-lived signed token so that a browser
// without credentials can follow them.
package contents

import (
	"sync"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/bytecache"
	"github.com/hubd/hubd/internal/rest"
)

// API is the contents package.
type API struct {
	d    *api.Deps
	sign *api.DownloadSigner
	// writeLocks serialize this process's file commits to a repository
	// (striped by repository id).
	writeLocks [64]sync.Mutex
	rendered   *bytecache.Cache[renderKey] // JSON of public files by blob id
}

// New makes the package. The download token key is made here, per process.
func New(d *api.Deps) *API {
	return &API{d: d, sign: d.Downloads(), rendered: bytecache.New[renderKey](32<<20, 2<<20)}
}

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	markup := "The html media type renders Markdown only: other markup formats (reStructuredText, AsciiDoc, Org, Textile, ...) are returned as preformatted text."
	write := []string{"public_repo", "repo"}
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/contents/{path...}", OperationID: "repos/get-content", Handler: a.getContent, Scopes: read, Note: markup},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/contents/{path...}", OperationID: "repos/create-or-update-file-contents", Handler: a.putFile, Scopes: write},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/contents/{path...}", OperationID: "repos/delete-file", Handler: a.deleteFile, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/readme", OperationID: "repos/get-readme", Handler: a.getReadme, Scopes: read, Note: markup},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/readme/{dir...}", OperationID: "repos/get-readme-in-directory", Handler: a.getReadme, Scopes: read, Note: markup},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/tarball/{ref...}", OperationID: "repos/download-tarball-archive", Handler: a.tarball, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/zipball/{ref...}", OperationID: "repos/download-zipball-archive", Handler: a.zipball, Scopes: read},

		// GitHub also answers these spellings without the trailing path
		// parameter (go-github's GetArchiveLink without a ref uses them).
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/contents", OperationID: "hubd/get-root-content", Handler: a.getContent, Scopes: read, Extension: true},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/tarball", OperationID: "hubd/download-tarball-default-branch", Handler: a.tarball, Scopes: read, Extension: true},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/zipball", OperationID: "hubd/download-zipball-default-branch", Handler: a.zipball, Scopes: read, Extension: true},
		// The download hosts: raw files (download_url) and archives.
		{Method: "GET", Pattern: "/_raw/{owner}/{repo}/{rest...}", OperationID: "hubd/raw", Handler: a.raw, Extension: true, Stream: true, NoRateLimit: true},
		{Method: "GET", Pattern: "/_codeload/{owner}/{repo}/{format}/{ref...}", OperationID: "hubd/codeload", Handler: a.codeload, Extension: true, Stream: true, NoRateLimit: true},
	}
}
