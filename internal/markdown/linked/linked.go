// Package linked renders Markdown for a reader with its references
// linked against stored state: @mentions to accounts, owner/repo#N to
// issues, SHAs to commits, each only when the reader may see it. Every
// transport that shows body_html (REST, the web pages) renders through it.
package linked

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/model"
)

// Render renders body_html for a reader: comment marks issue and comment
// bodies (gfm mode), repo is the repository they belong to (nil for none).
func Render(ctx context.Context, d *deps.Deps, c *authz.Caller, repo *model.Repo, src string, comment bool) (string, error) {
	o := markdown.Options{Comment: comment, Web: d.URLs.Web}
	if comment {
		o.Resolver = Resolver(d, c)
		if repo != nil {
			o.Context = repo.FullName()
		}
	}
	return markdown.Render(ctx, src, o)
}

// Resolver looks references up for caller c: accounts by login, and
// repositories (with their issues and commits) only when c may see them.
// It remembers repositories for the one document it serves.
func Resolver(d *deps.Deps, c *authz.Caller) markdown.Resolver {
	return &resolver{d: d, c: c, repos: map[string]*model.Repo{}}
}

type resolver struct {
	d     *deps.Deps
	c     *authz.Caller
	repos map[string]*model.Repo // lower full name; nil = none
}

func (r *resolver) Account(ctx context.Context, login string) (string, bool, bool, error) {
	acc, err := r.d.Store.R().AccountByLogin(ctx, login)
	if errors.Is(err, model.ErrNotFound) {
		return "", false, false, nil
	}
	if err != nil {
		return "", false, false, err
	}
	return acc.Login, acc.IsOrg(), true, nil
}

func (r *resolver) repo(ctx context.Context, full string) (*model.Repo, error) {
	key := strings.ToLower(full)
	if v, ok := r.repos[key]; ok {
		return v, nil
	}
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, nil
	}
	v, err := r.d.Store.R().RepoByName(ctx, owner, name, r.c.UserID())
	if errors.Is(err, model.ErrNotFound) {
		r.repos[key] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var repo *model.Repo
	if authz.CanSee(authz.RepoPermission(r.c, v.Repo, v.Facts)) {
		repo = v.Repo
	}
	r.repos[key] = repo
	return repo, nil
}

func (r *resolver) Repo(ctx context.Context, full string) (string, bool, error) {
	repo, err := r.repo(ctx, full)
	if err != nil || repo == nil {
		return "", false, err
	}
	return repo.FullName(), true, nil
}

func (r *resolver) Issue(ctx context.Context, full string, n int64) (bool, bool, error) {
	repo, err := r.repo(ctx, full)
	if err != nil || repo == nil {
		return false, false, err
	}
	is, err := r.d.Store.R().IssueByNumber(ctx, repo.ID, n)
	if errors.Is(err, model.ErrNotFound) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	return is.IsPull, true, nil
}

func (r *resolver) Commit(ctx context.Context, full, sha string) (string, bool, error) {
	repo, err := r.repo(ctx, full)
	if err != nil || repo == nil {
		return "", false, err
	}
	// Open, not GitRepo: a read must not create storage.
	g := r.d.Git.Open(repo.ID)
	if !g.Exists() {
		return "", false, nil
	}
	info, err := g.Info(ctx, sha+"^{commit}")
	if errors.Is(err, gitrepo.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return info.OID, true, nil
}

// VisibleRepo is the repository full ("owner/name") when the caller of res
// (made by Resolver) may see it, else nil; res caches it for the render.
func VisibleRepo(ctx context.Context, res markdown.Resolver, full string) (*model.Repo, error) {
	if x, ok := res.(*resolver); ok {
		return x.repo(ctx, full)
	}
	return nil, nil
}
