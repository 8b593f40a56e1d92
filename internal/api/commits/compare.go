package commits

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// Without paging parameters a comparison lists the 250 most recent commits
// (oldest first), as GitHub does; its files stop at 300.
const (
	compareCommits = 250
	compareFiles   = 300
)

// GET /repos/{owner}/{repo}/compare/{basehead}: BASE...HEAD compares head
// with the merge base (BASE..HEAD with base itself); either side may be
// OWNER:REF or OWNER:REPO:REF naming this repository. The diff and patch
// media types answer text.
func (a *API) compare(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	basehead := r.PathValue("basehead")
	baseName, headName, threeDot := splitBasehead(basehead)
	if headName == "" || baseName == "" {
		return model.ErrNotFound
	}
	baseRef, ok1 := sameRepo(repo, baseName)
	headRef, ok2 := sameRepo(repo, headName)
	if !ok1 || !ok2 {
		return model.ErrNotFound // forks do not exist yet: no other repository can be named
	}
	g, base, err := a.resolve(ctx, repo, baseRef)
	if errors.Is(err, api.ErrEmptyRepo) {
		return model.ErrNotFound // nothing to compare; the operation declares no 409
	}
	if err != nil {
		return notFound(err, model.ErrNotFound)
	}
	head, err := a.d.ResolveCommit(ctx, g, repo, headRef)
	if err != nil {
		return notFound(err, model.ErrNotFound)
	}
	mergeBase, err := g.MergeBase(ctx, base, head)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return &model.HTTPError{Status: http.StatusNotFound, Message: "No common ancestor between " + baseRef + " and " + headRef + "."}
	}
	if err != nil {
		return err
	}
	from := mergeBase
	if !threeDot {
		from = base
	}
	switch rest.From(r).Media.Param {
	case "diff":
		return text(w, "application/vnd.github.diff", func(b io.Writer) error { return g.DiffText(ctx, b, from, head) })
	case "patch":
		return text(w, "application/vnd.github.patch", func(b io.Writer) error { return g.FormatPatch(ctx, b, base, head) })
	}
	ahead, behind, err := g.AheadBehind(ctx, base, head)
	if err != nil {
		return err
	}
	// Commits of base..head: with paging parameters, pages from the oldest;
	// without, the most recent 250, oldest first.
	q := r.URL.Query()
	paged := q.Has("page") || q.Has("per_page")
	p := rest.ParsePage(r)
	opts := gitrepo.LogOptions{Include: []string{head}, Exclude: []string{base}}
	if paged {
		opts.Reverse, opts.Skip, opts.Max = true, p.Offset(), p.Limit()
	} else {
		opts.Max = compareCommits
	}
	ids, total, err := g.RevList(ctx, opts)
	if err != nil {
		return err
	}
	if !paged {
		for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
			ids[i], ids[j] = ids[j], ids[i]
		}
	}
	list, err := g.Commits(ctx, append([]string{base, mergeBase}, ids...))
	if err != nil {
		return err
	}
	converted, err := a.toCommits(ctx, repo, list)
	if err != nil {
		return err
	}
	web := a.d.URLs.RepoHTMLURL(repo)
	owner := repo.Owner.Login
	out := wire.CommitComparison{
		URL:             a.d.URLs.RepoAPIURL(repo) + "/compare/" + basehead,
		HTMLURL:         web + "/compare/" + basehead,
		PermalinkURL:    web + "/compare/" + owner + ":" + base + "..." + owner + ":" + head,
		DiffURL:         web + "/compare/" + basehead + ".diff",
		PatchURL:        web + "/compare/" + basehead + ".patch",
		BaseCommit:      converted[0],
		MergeBaseCommit: converted[1],
		Status:          compareStatus(ahead, behind),
		AheadBy:         ahead,
		BehindBy:        behind,
		TotalCommits:    total,
		Commits:         converted[2:],
	}
	if !paged || p.Page == 1 {
		// The files come with the first page only, for the whole comparison.
		files, err := g.Diff(ctx, from, head, gitrepo.DiffOptions{Max: compareFiles, MaxPatch: maxPatch})
		if err != nil {
			return err
		}
		entries := make([]wire.DiffEntry, 0, min(len(files), compareFiles))
		for _, f := range files[:min(len(files), compareFiles)] {
			entries = append(entries, a.d.URLs.ToDiffEntry(repo, head, from, f))
		}
		out.Files = &entries
	}
	if paged {
		rest.SetLink(w, r, a.d.URLs.API, p, total)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// splitBasehead splits BASE...HEAD (threeDot) or BASE..HEAD.
func splitBasehead(s string) (base, head string, threeDot bool) {
	if b, h, ok := strings.Cut(s, "..."); ok {
		return b, h, true
	}
	if b, h, ok := strings.Cut(s, ".."); ok {
		return b, h, false
	}
	return "", "", false
}

// sameRepo strips an OWNER: or OWNER:REPO: prefix that names this
// repository; ok is false when it names another one.
func sameRepo(repo *model.Repo, side string) (string, bool) {
	parts := strings.SplitN(side, ":", 3)
	switch len(parts) {
	case 1:
		return side, true
	case 2:
		return parts[1], strings.EqualFold(parts[0], repo.Owner.Login)
	default:
		return parts[2], strings.EqualFold(parts[0], repo.Owner.Login) && strings.EqualFold(parts[1], repo.Name)
	}
}

func compareStatus(ahead, behind int) string {
	switch {
	case ahead == 0 && behind == 0:
		return "identical"
	case behind == 0:
		return "ahead"
	case ahead == 0:
		return "behind"
	}
	return "diverged"
}
