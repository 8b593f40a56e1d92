package deps

import (
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// Repo is the lookup every /repos/{owner}/{repo}/... endpoint starts with. It
// finds the repository named by the {owner} and {repo} path values with its
// owner, computes the caller's permission on it, and answers as GitHub does:
//
//   - 401 when need is above read, or the operation writes (the route
//     table's rest.Info.Writes), and nobody is authenticated;
//   - a *model.Moved (301 for GET and HEAD, 307 otherwise) when the name
//     belonged to a repository that was renamed, pointing at the same path
//     under the new name;
//   - 404 when there is no such repository or the caller may not see it
//     (a private repository and a token without the repo scope included);
//   - for an operation that writes to a repository outside the caller's
//     grant (another account's for an installation or job token, one a
//     fine-grained token does not select, a public one for a classic
//     token without public_repo): GitHub's refusal (authz.Authorize);
//   - 403 when the caller sees it but has less than need.
//
// Callers that write must still refuse archived repositories themselves.
func (d *Deps) Repo(r *http.Request, need authz.Permission) (*model.Repo, authz.Permission, error) {
	info := rest.From(r)
	c := info.Caller
	if (need > authz.Read || info.Writes) && !c.Authenticated() {
		return nil, authz.None, rest.ErrRequiresAuth
	}
	owner, name := r.PathValue("owner"), r.PathValue("repo")
	if !plausibleName(owner) || !plausibleName(name) {
		// No login or repository name holds a control character or runs
		// this long: such values never reach the database.
		return nil, authz.None, model.ErrNotFound
	}
	q := d.Store.R()
	v, err := q.RepoByName(r.Context(), owner, name, c.UserID())
	if errors.Is(err, model.ErrNotFound) {
		return nil, authz.None, d.redirect(r, owner, name)
	}
	if err != nil {
		return nil, authz.None, err
	}
	// The one permission resolver: visibility, the token's grant for
	// operations that write (the route table's), the role needed.
	perm, err := authz.Authorize(c, v.Repo, v.Facts, info.Writes, need)
	if err != nil {
		return nil, perm, err
	}
	return v.Repo, perm, nil
}

// plausibleName reports whether s could be a login or a repository name
// (or an old one): at most 100 bytes, no control characters. The exact
// rules are checked where names are made; this only keeps hostile path
// values away from the database.
func plausibleName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// redirect answers for a name that is not a repository: Moved when it is the
// old name of one the caller may see, otherwise not found.
func (d *Deps) redirect(r *http.Request, owner, name string) error {
	id, err := d.Store.R().RepoRedirect(r.Context(), owner, name)
	if err != nil {
		return err
	}
	repo, err := d.visibleRepo(r, id)
	if err != nil {
		return err
	}
	// Same path below the repository, same query, under the new name.
	sub := ""
	if parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 4); len(parts) == 4 {
		sub = "/" + parts[3]
	}
	return d.movedTo(r, "/repos/"+repo.FullName()+sub)
}

// visibleRepo is repository id when the caller may see it, else not found.
func (d *Deps) visibleRepo(r *http.Request, id int64) (*model.Repo, error) {
	c := rest.Caller(r)
	v, err := d.Store.R().RepoByID(r.Context(), id, c.UserID())
	if err != nil {
		return nil, err
	}
	if !authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
		return nil, model.ErrNotFound
	}
	return v.Repo, nil
}

// movedTo is GitHub's redirect of a request to path (under the same prefix,
// with the same query): 301 for GET and HEAD, 307 otherwise.
func (d *Deps) movedTo(r *http.Request, path string) error {
	base := d.URLs.Web // the client came without the /api/v3 prefix
	if rest.From(r).Prefix != "" {
		base = d.URLs.API
	}
	loc := base + path
	if r.URL.RawQuery != "" {
		loc += "?" + r.URL.RawQuery
	}
	status := http.StatusMovedPermanently
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		status = http.StatusTemporaryRedirect
	}
	return &model.Moved{Location: loc, Status: status}
}

// ErrArchived is GitHub's 403 for a change to an archived repository.
var ErrArchived = model.ErrArchived

// WritableRepo is Repo for operations that change what a repository holds
// (content, refs, issues, labels, topics): an archived repository, or one
// a migration locked, is read-only for them. Settings (admin) go through Repo, since unarchiving is
// one of them.
func (d *Deps) WritableRepo(r *http.Request, need authz.Permission) (*model.Repo, authz.Permission, error) {
	repo, perm, err := d.Repo(r, need)
	if err != nil {
		return nil, perm, err
	}
	if err := repo.WriteRefusal(); err != nil {
		return nil, perm, err
	}
	return repo, perm, nil
}

// NeedPermission is GitHub's 403 for a caller who sees a repository but may
// not do what they asked (authz.NeedPermission).
func NeedPermission(need authz.Permission) error { return authz.NeedPermission(need) }

// ViewerOf is the store's view of a caller for repository lists: the user
// and the limits of their token, matching authz.RepoPermission.
func ViewerOf(c *authz.Caller) store.Viewer {
	v := store.Viewer{UserID: c.UserID()}
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		v.PublicOnly = !c.Scopes.Has("repo")
	case authz.UserToServer:
		return userAppViewer(c, v)
	case authz.FineGrained, authz.Installation:
		if c.Kind == authz.FineGrained {
			// Its resource owner's repositories only, once it lets it in.
			v.PublicOnly, v.OnlyOwnerID = !c.OwnerAccess, c.ResourceOwnerID
		}
		if c.RepoIDs != nil {
			v.RepoIDs = make([]int64, 0, len(c.RepoIDs))
			for id, ok := range c.RepoIDs {
				if ok {
					v.RepoIDs = append(v.RepoIDs, id)
				}
			}
			sort.Slice(v.RepoIDs, func(i, j int) bool { return v.RepoIDs[i] < v.RepoIDs[j] })
		}
	}
	return v
}

// userAppViewer limits a user access token's viewer to what its app
// reaches: its installations' selected repositories and every repository
// of the accounts it is installed on for all (a scoped token: its
// repositories).
func userAppViewer(c *authz.Caller, v store.Viewer) store.Viewer {
	v.RepoIDs = []int64{}
	switch {
	case c.RepoIDs != nil:
		for id, ok := range c.RepoIDs {
			if ok {
				v.RepoIDs = append(v.RepoIDs, id)
			}
		}
	case authz.Covers(c.Permissions, "metadata", "read"):
		for account, set := range c.AppReach {
			if set == nil {
				v.OwnerIDs = append(v.OwnerIDs, account)
			}
			for id := range set {
				v.RepoIDs = append(v.RepoIDs, id)
			}
		}
	}
	slices.Sort(v.RepoIDs)
	slices.Sort(v.OwnerIDs)
	return v
}
