// Package commits serves the history side of repositories: branches (and
// renaming them), commits, comparisons, tags and language statistics. All of
// it is read from git through internal/gitrepo; the database only maps
// commit identities to users and records branch renames.
package commits

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the commits package.
type API struct {
	d *api.Deps
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d} }

// Routes is the package's route table. Branch names, refs and comparisons
// contain slashes, hence the trailing {name...} wildcards.
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	write := []string{"public_repo", "repo"}
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/branches", OperationID: "repos/list-branches", Handler: a.listBranches, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/branches/{branch...}", OperationID: "repos/get-branch", Handler: a.getBranch, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/branches/{branch}/rename", OperationID: "repos/rename-branch", Handler: a.renameBranch, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/commits", OperationID: "repos/list-commits", Handler: a.listCommits, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/commits/{ref...}", OperationID: "repos/get-commit", Handler: a.getCommit, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/compare/{basehead...}", OperationID: "repos/compare-commits-with-basehead", Handler: a.compare, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/tags", OperationID: "repos/list-tags", Handler: a.listTags, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/languages", OperationID: "repos/list-languages", Handler: a.listLanguages, Scopes: read,
			Note: "Languages are told by file extension and name (vendored, generated and documentation paths left out, as GitHub does); no content heuristics and no .gitattributes linguist overrides."},
	}
}

// gitFor opens a repository's git storage for reading; ok is false when
// nothing was ever pushed (no storage yet), which reads treat as empty
// without creating anything.
func (a *API) gitFor(repo *model.Repo) (*gitrepo.Repo, bool) {
	g := a.d.Git.Open(repo.ID)
	return g, g.Exists()
}

// resolve resolves a commit-ish of the request (branch, tag, sha; "" for the
// default branch): model.ErrNotFound for unknown names, api.ErrEmptyRepo
// for a repository without commits.
func (a *API) resolve(ctx context.Context, repo *model.Repo, ref string) (*gitrepo.Repo, string, error) {
	g, ok := a.gitFor(repo)
	if !ok {
		return nil, "", api.ErrEmptyRepo
	}
	sha, err := a.d.ResolveCommit(ctx, g, repo, ref)
	return g, sha, err
}

// users maps the identities of commits to hubd users in one query (see
// api.Deps.AccountsByCommitEmail).
func (a *API) users(ctx context.Context, commits ...*gitrepo.Commit) (wire.UserLookup, error) {
	var emails []string
	for _, c := range commits {
		if c != nil {
			emails = append(emails, c.Author.Email, c.Committer.Email)
		}
	}
	found, err := a.d.AccountsByCommitEmail(ctx, emails)
	if err != nil {
		return nil, err
	}
	return func(email string) *model.Account { return found[strings.ToLower(email)] }, nil
}

// toCommits converts commits with their users.
func (a *API) toCommits(ctx context.Context, repo *model.Repo, commits []*gitrepo.Commit) ([]wire.Commit, error) {
	users, err := a.users(ctx, commits...)
	if err != nil {
		return nil, err
	}
	vs, err := a.d.CommitVerifications(ctx, commits...)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Commit, 0, len(commits))
	for i, c := range commits {
		out = append(out, a.d.URLs.ToCommit(repo, c, users))
		out[i].Commit.Verification = vs[i]
	}
	return out, nil
}

// notFound turns git's and the resolver's "no such object" into err.
func notFound(err, with error) error {
	if errors.Is(err, model.ErrNotFound) || errors.Is(err, gitrepo.ErrNotFound) {
		return with
	}
	return err
}

// maxText bounds a diff or patch answer: they are built in memory (the
// server buffers GET answers for their ETag anyway). Tests lower it.
var maxText = 16 << 20

// text answers the diff or patch media type with what gen writes, or
// GitHub's 406 when that is too large to send.
func text(w http.ResponseWriter, mediaType string, gen func(io.Writer) error) error {
	b := &cappedBuffer{max: maxText}
	if err := gen(b); err != nil {
		if b.over {
			return &model.HTTPError{Status: http.StatusNotAcceptable, Message: "Sorry, this diff is too large to show. Use the JSON media type, or clone the repository."}
		}
		return err
	}
	return writeText(w, mediaType, b.buf.String())
}

// cappedBuffer fails writes past max (and stops the git process feeding
// it). It has no ReadFrom, so that io.Copy goes through Write.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.over = true
		return 0, errors.New("commits: text too large")
	}
	return c.buf.Write(p)
}

// writeText answers a diff, patch or sha media type.
func writeText(w http.ResponseWriter, mediaType, body string) error {
	w.Header().Set("Content-Type", mediaType+"; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write([]byte(body))
	return err
}
