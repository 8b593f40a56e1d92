package web

import (
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/wire"
)

const listPerPage = 25

type releaseItem struct {
	Release    *model.Release
	Title      string
	Href       string
	Assets     []wire.ReleaseAsset
	Draft, Pre bool
	Latest     bool
}

type releaseListView struct {
	Head
	Releases   []releaseItem
	Total      int
	Prev, Next string
}

// releaseList serves /releases: the releases newest first (drafts only to
// those who may push, as GET /repos/{owner}/{repo}/releases), each with
// its assets, paginated in SQL.
func (x *req) releaseList() bool {
	n := pageNumber(x.r)
	acc := releases.Access{Repo: x.repo, Perm: x.perm, UserID: x.caller().UserID(), Auth: x.caller()}
	list, total, err := (&releases.Service{Store: x.h.d.Store}).List(x.r.Context(), acc, listPerPage, (n-1)*listPerPage)
	if err != nil {
		return x.fail(err)
	}
	v := releaseListView{Head: x.head("releases"), Total: total}
	for i, r := range list {
		it := releaseItem{Release: r, Title: r.TagName, Draft: r.Draft, Pre: r.Prerelease,
			Href: x.base + "/releases/tag/" + pathEscapeRef(r.TagName), Latest: n == 1 && i == 0 && !r.Draft && !r.Prerelease}
		if r.Name != nil && *r.Name != "" {
			it.Title = *r.Name
		}
		for _, as := range r.Assets {
			it.Assets = append(it.Assets, x.h.d.URLs.ToReleaseAsset(x.repo, as))
		}
		v.Releases = append(v.Releases, it)
	}
	v.Prev, v.Next = pager(x.base+"/releases", "", n, total, listPerPage)
	return x.ok("Releases · "+x.repo.FullName(), "releases", v)
}

// latestRelease serves /releases/latest: a redirect to the latest
// release's page (the list when there is none), as on GitHub.
func (x *req) latestRelease() bool {
	acc := releases.Access{Repo: x.repo, Perm: x.perm, UserID: x.caller().UserID(), Auth: x.caller()}
	r, err := (&releases.Service{Store: x.h.d.Store}).Latest(x.r.Context(), acc)
	if errors.Is(err, model.ErrNotFound) {
		http.Redirect(x.w, x.r, x.h.d.URLs.Web+x.base+"/releases", http.StatusFound)
		return true
	}
	if err != nil {
		return x.fail(err)
	}
	http.Redirect(x.w, x.r, x.h.d.URLs.Web+x.base+"/releases/tag/"+pathEscapeRef(r.TagName), http.StatusFound)
	return true
}

// pathEscapeRef escapes each segment of a ref name, keeping its slashes.
func pathEscapeRef(ref string) string {
	parts := strings.Split(ref, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

type refItem struct {
	Name, Href, OID string
	When            time.Time
	Protected       bool
	Default         bool
	Zip, Tar        string
}

type refListView struct {
	Head
	Kind       string // "branches" or "tags"
	Refs       []refItem
	Total      int
	Prev, Next string
}

// tagList serves /tags: the tags, newest commit first, with their source
// archives.
func (x *req) tagList() bool { return x.refList("tags", "refs/tags/") }

// branchList serves /branches: the default branch first, then the others
// by their last commit, newest first, marked when protected.
func (x *req) branchList() bool { return x.refList("branches", "refs/heads/") }

func (x *req) refList(kind, prefix string) bool {
	ctx := x.r.Context()
	refs, err := x.h.d.Git.Open(x.repo.ID).RefsWithDates(ctx, prefix)
	if err != nil && !isEmptyRepo(err) {
		return x.fail(err)
	}
	var protected map[string]bool
	if kind == "branches" {
		names, err := x.h.d.Store.R().ProtectedBranchNames(ctx, x.repo.ID)
		if err != nil {
			return x.fail(err)
		}
		protected = map[string]bool{}
		for _, b := range names {
			protected[b] = true
		}
	}
	sort.SliceStable(refs, func(i, j int) bool {
		if kind == "branches" {
			di, dj := refs[i].Name == prefix+x.repo.DefaultBranch, refs[j].Name == prefix+x.repo.DefaultBranch
			if di != dj {
				return di
			}
		}
		if refs[i].CommitDate != refs[j].CommitDate {
			return refs[i].CommitDate > refs[j].CommitDate
		}
		return refs[i].Name < refs[j].Name
	})
	n := pageNumber(x.r)
	v := refListView{Head: x.head("code"), Kind: kind, Total: len(refs)}
	from := min((n-1)*listPerPage, len(refs))
	for _, ref := range refs[from:min(from+listPerPage, len(refs))] {
		name := strings.TrimPrefix(ref.Name, prefix)
		oid := ref.OID
		if ref.Peeled != "" {
			oid = ref.Peeled
		}
		it := refItem{Name: name, Href: x.base + "/tree/" + pathEscapeRef(name), OID: oid,
			Protected: protected[name], Default: kind == "branches" && name == x.repo.DefaultBranch}
		if ref.CommitDate > 0 {
			it.When = time.Unix(ref.CommitDate, 0)
		}
		if kind == "tags" {
			it.Zip = x.h.d.URLs.RepoAPIURL(x.repo) + "/zipball/refs/tags/" + pathEscapeRef(name)
			it.Tar = x.h.d.URLs.RepoAPIURL(x.repo) + "/tarball/refs/tags/" + pathEscapeRef(name)
		}
		v.Refs = append(v.Refs, it)
	}
	v.Prev, v.Next = pager(x.base+"/"+kind, "", n, len(refs), listPerPage)
	title := "Tags"
	if kind == "branches" {
		title = "Branches"
	}
	return x.ok(title+" · "+x.repo.FullName(), "refs", v)
}

// isEmptyRepo reports a repository without a git directory yet.
func isEmptyRepo(err error) bool { return errors.Is(err, gitrepo.ErrNotFound) }

func init() {
	icons["tag"] = `<path d="M1.5 2.5v5l7 7 6-6-7-7h-5z" fill="none" stroke="#59636e" stroke-width="1.3" stroke-linejoin="round"/><circle cx="4.5" cy="5" r="1" fill="#59636e"/>`
	icons["branch"] = `<circle cx="4" cy="3.5" r="1.7" fill="none" stroke="#59636e" stroke-width="1.3"/><circle cx="4" cy="12.5" r="1.7" fill="none" stroke="#59636e" stroke-width="1.3"/><circle cx="12" cy="4.5" r="1.7" fill="none" stroke="#59636e" stroke-width="1.3"/><path d="M4 5.2v5.6M12 6.2c0 3-8 2-8 4.6" fill="none" stroke="#59636e" stroke-width="1.3"/>`
}
