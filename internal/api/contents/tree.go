package contents

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	pathpkg "path"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/gitpath"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Size limits of GitHub's contents API: up to 1 MB a file comes with its
// content; up to 100 MB only the raw and object forms serve it (the object
// form with an empty content and encoding "none"); beyond, not at all.
const (
	inlineMax = 1 << 20
	serveMax  = 100 << 20
	// maxEntries is GitHub's limit on the entries of a directory listing.
	maxEntries = 1000
)

// Errors of this package that GitHub words its own way.
var (
	errEmptyRepo = &model.HTTPError{Status: http.StatusNotFound, Message: "This repository is empty."}
	errTooLarge  = model.Forbidden("This API returns blobs up to 1 MB in size with their content, and up to 100 MB with the raw media type. The requested blob is too large to fetch via the API, but you can always clone the repository via Git to obtain it.")
)

// snapshot is a repository at one commit, with the name the client used for
// it (which the URLs of the answer repeat).
type snapshot struct {
	repo   *model.Repo
	g      *gitrepo.Repo
	ref    string // as named, or the default branch
	commit string
	tree   string
}

// at resolves ref ("" = the default branch) to a snapshot.
func (a *API) at(ctx context.Context, repo *model.Repo, ref string) (*snapshot, error) {
	g, err := a.d.GitRepo(ctx, repo)
	if err != nil {
		return nil, err
	}
	name := ref
	if name == "" {
		name = repo.DefaultBranch
	}
	// Fast path: a plain branch name is the first thing ResolveCommit
	// tries, and a branch that resolves means the repository is not empty
	// (which ResolveCommit would check first, at the cost of reading HEAD).
	if !strings.HasPrefix(name, "refs/") && gitrepo.PlainRefName("refs/heads/"+name) {
		info, err := g.Info(ctx, "refs/heads/"+name+"^{commit}")
		if err == nil {
			t, err := g.Info(ctx, info.OID+"^{tree}")
			if err != nil {
				return nil, err
			}
			return &snapshot{repo: repo, g: g, ref: name, commit: info.OID, tree: t.OID}, nil
		}
	}
	commit, err := a.d.ResolveCommit(ctx, g, repo, ref)
	switch {
	case errors.Is(err, api.ErrEmptyRepo):
		return nil, errEmptyRepo
	case errors.Is(err, model.ErrNotFound):
		return nil, &model.HTTPError{Status: http.StatusNotFound, Message: "No commit found for the ref " + name}
	case err != nil:
		return nil, err
	}
	info, err := g.Info(ctx, commit+"^{tree}")
	if err != nil {
		return nil, err
	}
	return &snapshot{repo: repo, g: g, ref: name, commit: commit, tree: info.OID}, nil
}

// entry is a tree entry and its path from the root.
type entry struct {
	gitrepo.TreeEntry
	Path string
}

func (e entry) kind() string {
	switch e.Mode {
	case "040000", "40000":
		return "dir"
	case "120000":
		return "symlink"
	case "160000":
		return "submodule"
	}
	return "file"
}

func readTree(ctx context.Context, g *gitrepo.Repo, oid string) ([]gitrepo.TreeEntry, error) {
	info, data, err := g.Read(ctx, oid, 0)
	if err != nil {
		return nil, err
	}
	if info.Type != "tree" {
		return nil, gitrepo.ErrInvalidObject
	}
	return gitrepo.ParseTree(data)
}

// lookup finds a path in the snapshot by walking the trees from the root by
// id (one cat-file round trip per level). The root is a "dir" entry with an
// empty path. Missing paths, and paths through a file, are model.ErrNotFound.
func (s *snapshot) lookup(ctx context.Context, p string) (entry, error) {
	cur := entry{TreeEntry: gitrepo.TreeEntry{Mode: "040000", OID: s.tree}}
	if p == "" {
		return cur, nil
	}
	for _, name := range strings.Split(p, "/") {
		if cur.kind() != "dir" {
			return entry{}, model.ErrNotFound
		}
		entries, err := readTree(ctx, s.g, cur.OID)
		if err != nil {
			return entry{}, err
		}
		found := false
		for _, e := range entries {
			if e.Name == name {
				child := cur.Path + "/" + name
				if cur.Path == "" {
					child = name
				}
				cur, found = entry{TreeEntry: e, Path: child}, true
				break
			}
		}
		if !found {
			return entry{}, model.ErrNotFound
		}
	}
	return cur, nil
}

// maxSymlinkHops bounds chains of symlinks (and loops).
const maxSymlinkHops = 8

// follow resolves a symlink to the regular file it names inside the
// repository; ok is false when it names something else (a directory, a
// path outside the repository, nothing), in which case GitHub describes the
// symlink itself.
func (s *snapshot) follow(ctx context.Context, link entry) (entry, bool, error) {
	cur := link
	for range maxSymlinkHops {
		_, data, err := s.g.Read(ctx, cur.OID, 4096)
		if errors.Is(err, gitrepo.ErrTooLarge) {
			return entry{}, false, nil
		}
		if err != nil {
			return entry{}, false, err
		}
		target := string(data)
		if strings.HasPrefix(target, "/") {
			return entry{}, false, nil
		}
		joined := pathpkg.Clean(pathpkg.Join(pathpkg.Dir(cur.Path), target))
		if joined == "." || joined == ".." || strings.HasPrefix(joined, "../") || !validPath(joined) {
			return entry{}, false, nil
		}
		next, err := s.lookup(ctx, joined)
		if errors.Is(err, model.ErrNotFound) {
			return entry{}, false, nil
		}
		if err != nil {
			return entry{}, false, err
		}
		switch next.kind() {
		case "file":
			return next, true, nil
		case "symlink":
			cur = next
		default:
			return entry{}, false, nil
		}
	}
	return entry{}, false, nil
}

// gitmodules reads the .gitmodules file at the root of the snapshot (none
// is no submodule URLs).
func (s *snapshot) gitmodules(ctx context.Context) ([]gitmodule, error) {
	root, err := readTree(ctx, s.g, s.tree)
	if err != nil {
		return nil, err
	}
	for _, e := range root {
		if e.Name != ".gitmodules" || e.Type() != "blob" {
			continue
		}
		_, data, err := s.g.Read(ctx, e.OID, inlineMax)
		if errors.Is(err, gitrepo.ErrTooLarge) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return parseGitmodules(string(data)), nil
	}
	return nil, nil
}

// moduleURL is the url .gitmodules gives the submodule at p ("" if none).
func moduleURL(modules []gitmodule, p string) string {
	for _, m := range modules {
		if strings.Trim(m.path, "/") == p {
			return m.url
		}
	}
	return ""
}

type gitmodule struct{ path, url string }

// parseGitmodules reads the submodule sections of a .gitmodules file (git
// config syntax: [submodule "name"] with path and url keys).
func parseGitmodules(src string) []gitmodule {
	var out []gitmodule
	cur := -1
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			cur = -1
			if strings.HasPrefix(line, "[submodule") {
				out = append(out, gitmodule{})
				cur = len(out) - 1
			}
			continue
		}
		if cur < 0 {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "path":
			out[cur].path = v
		case "url":
			out[cur].url = v
		}
	}
	return out
}

// hostedRepo is "owner/name" when a submodule URL names a repository of this
// hubd (absolute, or relative to the superproject as git allows), else "".
func (a *API) hostedRepo(repo *model.Repo, raw string) string {
	if strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") {
		base, err := url.Parse(a.d.URLs.CloneURL(repo) + "/")
		if err != nil {
			return ""
		}
		rel, err := url.Parse(raw)
		if err != nil {
			return ""
		}
		raw = base.ResolveReference(rel).String()
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	web, err := url.Parse(a.d.URLs.Web)
	if err != nil || !strings.EqualFold(u.Hostname(), web.Hostname()) {
		return ""
	}
	parts := strings.Split(strings.Trim(strings.TrimPrefix(u.Path, web.Path), "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return ""
	}
	return parts[0] + "/" + strings.TrimSuffix(parts[1], ".git")
}

// validPath accepts a repository path GitHub could hold: non-empty segments
// separated by single slashes, none of them ".", ".." or a .git directory
// (in any case), no NUL or newline.
func validPath(p string) bool {
	if p == "" || strings.ContainsAny(p, "\x00\n\r") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.EqualFold(seg, ".git") {
			return false
		}
	}
	return true
}

// writablePath accepts the paths a write may create: the paths git itself
// accepts (no alias of .git on any filesystem, see gitpath) and no line
// breaks, as validPath.
func writablePath(p string) bool {
	return validPath(p) && gitpath.Verify(p, false) == nil
}

// downloadURL is the raw URL of a file at the snapshot's ref, with a token
// for private repositories.
func (a *API) downloadURL(s *snapshot, p string) *string {
	u := a.d.URLs.Web + "/_raw/" + s.repo.Owner.Login + "/" + s.repo.Name + "/" + url.PathEscape(s.ref) + "/" + wire.EscapeContentPath(p)
	if s.repo.Private() {
		u += "?token=" + a.sign.Token("raw", s.repo.ID, s.ref+"/"+p, time.Now())
	}
	return &u
}
