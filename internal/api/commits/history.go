package commits

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GitHub's limits on the files of a single commit: 300 a page, 3000 in all.
const (
	filesPerPage = 300
	maxFiles     = 3000
	// maxPatch leaves out the patch of a file whose diff is larger.
	maxPatch = 1 << 20
)

// GET /repos/{owner}/{repo}/commits: newest first from sha (the default
// branch by default), filtered by path, author, committer, since and until,
// one rev-list per request.
func (a *API) listCommits(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	q := r.URL.Query()
	opts := gitrepo.LogOptions{Path: strings.Trim(q.Get("path"), "/")}
	if opts.Since, err = parseTime(q, "since"); err != nil {
		return err
	}
	if opts.Until, err = parseTime(q, "until"); err != nil {
		return err
	}
	g, start, err := a.resolve(ctx, repo, q.Get("sha"))
	if err != nil {
		return notFound(err, model.ErrNotFound)
	}
	opts.Include = []string{start}
	if opts.Authors, err = a.identities(ctx, q.Get("author")); err != nil {
		return err
	}
	if opts.Committers, err = a.identities(ctx, q.Get("committer")); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	opts.Skip, opts.Max = p.Offset(), p.Limit()
	ids, total, err := g.RevList(ctx, opts)
	if err != nil {
		return err
	}
	list, err := g.Commits(ctx, ids)
	if err != nil {
		return err
	}
	out, err := a.toCommits(ctx, repo, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// parseTime reads an ISO 8601 timestamp parameter (zero when absent).
func parseTime(q url.Values, name string) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, model.BadRequest("Invalid value for parameter '" + name + "': " + v)
}

// maxIdentity is the longest filter that could name someone (an e-mail
// address is at most 254 characters, a login 39).
const maxIdentity = 320

// identities turns an author or committer filter — a login or an email
// address — into the idents git should match: the address, or the user's
// address and noreply addresses. An unknown login matches nothing.
func (a *API) identities(ctx context.Context, who string) ([]string, error) {
	who = strings.TrimSpace(who)
	if who == "" {
		return nil, nil
	}
	if len(who) > maxIdentity {
		// No login or address is this long, and git refuses patterns of
		// this size: it matches nothing.
		return []string{"<@>"}, nil
	}
	if strings.Contains(who, "@") {
		return []string{"<" + who + ">"}, nil
	}
	u, err := a.d.Store.R().AccountByLogin(ctx, who)
	if errors.Is(err, model.ErrNotFound) || (err == nil && u.IsOrg()) {
		return []string{"<" + who + "@>"}, nil // no address looks like this
	}
	if err != nil {
		return nil, err
	}
	domain := a.d.URLs.NoreplyDomain()
	ids := []string{
		"<" + strconv.FormatInt(u.ID, 10) + "+" + u.Login + "@" + domain + ">",
		"<" + u.Login + "@" + domain + ">",
	}
	if u.Email != "" {
		ids = append(ids, "<"+u.Email+">")
	}
	return ids, nil
}

// GET /repos/{owner}/{repo}/commits/{ref}: the commit with its files
// (against its first parent), 300 files a page up to 3000; the diff, patch
// and sha media types answer text.
func (a *API) getCommit(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	ref := r.PathValue("ref")
	g, sha, err := a.resolve(ctx, repo, ref)
	if ref == "" {
		err = model.ErrNotFound
	}
	if err != nil {
		return notFound(err, model.Unprocessable("No commit found for SHA: "+ref))
	}
	media := rest.From(r).Media
	switch media.Param {
	case "sha":
		// go-github and Octokit poll with If-None-Match: "<sha>".
		if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Trim(strings.TrimPrefix(inm, "W/"), `"`) == sha {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		return writeText(w, "application/vnd.github.sha", sha)
	case "patch":
		return text(w, "application/vnd.github.patch", func(b io.Writer) error { return g.FormatPatch(ctx, b, "", sha) })
	}
	c, err := g.Commit(ctx, sha)
	if err != nil {
		return err
	}
	parent := gitrepo.EmptyTree
	if len(c.Parents) > 0 {
		parent = c.Parents[0]
	}
	if media.Param == "diff" {
		return text(w, "application/vnd.github.diff", func(b io.Writer) error { return g.DiffText(ctx, b, parent, sha) })
	}
	p := filesPage(r)
	files, err := g.Diff(ctx, parent, sha, gitrepo.DiffOptions{Skip: p.Offset(), Max: p.Limit(), MaxPatch: maxPatch})
	if err != nil {
		return err
	}
	users, err := a.users(ctx, c)
	if err != nil {
		return err
	}
	out := a.d.URLs.ToCommit(repo, c, users)
	vs, err := a.d.CommitVerifications(ctx, c)
	if err != nil {
		return err
	}
	out.Commit.Verification = vs[0]
	stats := wire.CommitStats{}
	for _, f := range files {
		stats.Additions += f.Additions
		stats.Deletions += f.Deletions
	}
	stats.Total = stats.Additions + stats.Deletions
	out.Stats = &stats
	listed := min(len(files), maxFiles)
	entries := make([]wire.DiffEntry, 0, p.Limit())
	for _, f := range files[min(p.Offset(), listed):min(p.Offset()+p.Limit(), listed)] {
		entries = append(entries, a.d.URLs.ToDiffEntry(repo, sha, parent, f))
	}
	out.Files = &entries
	rest.SetLink(w, r, a.d.URLs.API, p, listed)
	return rest.JSON(w, http.StatusOK, out)
}

// filesPage is the page of a commit's files: 300 a page unless per_page
// asks for fewer.
func filesPage(r *http.Request) rest.Page {
	q := r.URL.Query()
	p := rest.Page{Page: 1, PerPage: filesPerPage}
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		p.Page = v
	}
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		p.PerPage = min(v, filesPerPage)
	}
	return p
}
