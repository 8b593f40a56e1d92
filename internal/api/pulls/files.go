package pulls

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GitHub's limits: a pull request lists at most 250 commits and 3,000
// files; a diff or patch answer is at most maxText bytes.
const (
	maxCommits = 250
	maxFiles   = 3000
	maxPatch   = 1 << 20
)

var maxText = 16 << 20

// pullRange opens a pull request and its git range: the merge base of its
// base and head, and the head.
func (a *API) pullRange(r *http.Request) (*model.Repo, *model.Pull, *gitrepo.Repo, string, error) {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return nil, nil, nil, "", err
	}
	n, err := number(r)
	if err != nil {
		return nil, nil, nil, "", err
	}
	p, err := a.d.Store.R().PullByNumber(r.Context(), repo.ID, n)
	if err != nil {
		return nil, nil, nil, "", err
	}
	g := a.d.Git.Open(repo.ID)
	mb, err := g.MergeBase(r.Context(), p.BaseSHA, p.HeadSHA)
	if errors.Is(err, gitrepo.ErrNotFound) {
		mb = p.BaseSHA
	} else if err != nil {
		return nil, nil, nil, "", err
	}
	return repo, p, g, mb, nil
}

// GET /repos/{owner}/{repo}/pulls/{pull_number}/commits
func (a *API) commits(w http.ResponseWriter, r *http.Request) error {
	repo, p, g, mb, err := a.pullRange(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	pg := rest.ParsePage(r)
	skip := pg.Offset()
	n := min(pg.Limit(), max(0, maxCommits-skip))
	ids, total, err := g.RevList(ctx, gitrepo.LogOptions{Include: []string{p.HeadSHA}, Exclude: []string{mb}, Reverse: true, Skip: skip, Max: max(n, 1)})
	if err != nil {
		return err
	}
	if n == 0 {
		ids = nil
	}
	commits, err := g.Commits(ctx, ids)
	if err != nil {
		return err
	}
	emails := make([]string, 0, 2*len(commits))
	for _, c := range commits {
		emails = append(emails, c.Author.Email, c.Committer.Email)
	}
	found, err := a.d.AccountsByCommitEmail(ctx, emails)
	if err != nil {
		return err
	}
	users := func(email string) *model.Account { return found[strings.ToLower(email)] }
	vs, err := a.d.CommitVerifications(ctx, commits...)
	if err != nil {
		return err
	}
	out := make([]wire.Commit, 0, len(commits))
	for i, c := range commits {
		out = append(out, a.d.URLs.ToCommit(repo, c, users))
		out[i].Commit.Verification = vs[i]
	}
	rest.SetLink(w, r, a.d.URLs.API, pg, min(total, maxCommits))
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/pulls/{pull_number}/files
func (a *API) files(w http.ResponseWriter, r *http.Request) error {
	repo, p, g, mb, err := a.pullRange(r)
	if err != nil {
		return err
	}
	pg := rest.ParsePage(r)
	skip := pg.Offset()
	n := min(pg.Limit(), max(0, maxFiles-skip))
	files, err := g.Diff(r.Context(), mb, p.HeadSHA, gitrepo.DiffOptions{Skip: skip, Max: max(n, 1), MaxPatch: maxPatch})
	if err != nil {
		return err
	}
	total := min(len(files), maxFiles)
	out := []wire.DiffEntry{}
	for i := skip; i < skip+n && i < total; i++ {
		out = append(out, a.d.URLs.ToDiffEntry(repo, p.HeadSHA, mb, files[i]))
	}
	rest.SetLink(w, r, a.d.URLs.API, pg, total)
	return rest.JSON(w, http.StatusOK, out)
}

// text answers GET .../pulls/{n} as a diff (merge base to head) or as the
// head's commits in mailbox form.
func (a *API) text(w http.ResponseWriter, r *http.Request, repo *model.Repo, p *model.Pull, format string) error {
	g := a.d.Git.Open(repo.ID)
	ctx := r.Context()
	mb, err := g.MergeBase(ctx, p.BaseSHA, p.HeadSHA)
	if errors.Is(err, gitrepo.ErrNotFound) {
		mb = p.BaseSHA
	} else if err != nil {
		return err
	}
	b := &capped{max: maxText}
	media := "application/vnd.github.diff"
	if format == "patch" {
		media = "application/vnd.github.patch"
		err = g.FormatPatch(ctx, b, mb, p.HeadSHA)
	} else {
		err = g.DiffText(ctx, b, mb, p.HeadSHA)
	}
	if err != nil {
		if b.over {
			return &model.HTTPError{Status: http.StatusNotAcceptable, Message: "Sorry, the diff exceeded the maximum number of lines (20000)"}
		}
		return err
	}
	w.Header().Set("Content-Type", media+"; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(b.buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, &b.buf)
	return err
}

// capped fails writes past max (which stops the git process feeding it).
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.over = true
		return 0, errors.New("pulls: text too large")
	}
	return c.buf.Write(p)
}
