package web

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// What a page renders at most; past these it shows sizes and links.
const (
	maxReadme      = 512 << 10 // a README rendered below a listing
	maxBlob        = 512 << 10 // a file shown on its page
	maxLines       = 10000     // lines of a file shown on its page
	maxEntries     = 1000      // entries of a directory listing
	maxDiffFiles   = 100       // files of a commit or comparison with their patch
	maxPatch       = 64 << 10  // one file's patch
	maxDiffLines   = 20000     // lines of patches on one page
	commitsPerPage = 30
	maxCompare     = 250 // commits of a comparison, as GitHub lists
	maxRefTries    = 10  // ref/path splits tried for one address
)

// head is what every repository page shows above its content.
type Head struct {
	Repo     *model.Repo
	Base     string // the repository's page, /owner/name
	Private  bool
	Tab      string // code, issues, commits
	CloneURL string
	Admin    bool // the reader administers it: the Settings tab
}

func (x *req) head(tab string) Head {
	return Head{Repo: x.repo, Base: x.base, Private: x.repo.Private(), Tab: tab, CloneURL: x.h.d.URLs.CloneURL(x.repo),
		Admin: x.perm >= authz.Admin && x.caller().UserID() != 0}
}

// crumb is one link of a path's breadcrumbs.
type crumb struct{ Name, Href string }

// entry is one line of a directory listing.
type entry struct {
	Name, Href, Icon, Note string
}

type treeView struct {
	Head
	Ref, Path string
	Crumbs    []crumb
	Commit    *gitrepo.Commit
	Entries   []entry
	More      int // entries left out
	Readme    template.HTML
	ReadmeRaw string
	Empty     bool
}

func (x *req) repoPage() bool {
	v := treeView{Head: x.head("code"), Ref: x.repo.DefaultBranch, Empty: true}
	g := x.h.d.Git.Open(x.repo.ID)
	if g.Exists() {
		c, err := g.Commit(x.r.Context(), "refs/heads/"+x.repo.DefaultBranch)
		switch {
		case errors.Is(err, gitrepo.ErrNotFound):
		case err != nil:
			return x.fail(err)
		default:
			v.Empty = false
			if err := x.listing(g, c, "", c.Tree, &v); err != nil {
				return x.fail(err)
			}
		}
	}
	title := x.repo.FullName()
	if x.repo.Description != "" {
		title += ": " + x.repo.Description
	}
	return x.ok(title, "repo", v)
}

// listing fills a directory's entries and README.
func (x *req) listing(g *gitrepo.Repo, c *gitrepo.Commit, dir, tree string, v *treeView) error {
	v.Commit = c
	_, data, err := g.Read(x.r.Context(), tree, 0)
	if err != nil {
		return err
	}
	list, err := gitrepo.ParseTree(data)
	if err != nil {
		return err
	}
	sortEntries(list)
	ref := wire.EscapeContentPath(v.Ref)
	var readme *gitrepo.TreeEntry
	for i, e := range list {
		if i >= maxEntries {
			v.More = len(list) - maxEntries
			break
		}
		p := wire.EscapeContentPath(path.Join(dir, e.Name))
		it := entry{Name: e.Name}
		switch {
		case e.Type() == "tree":
			it.Icon, it.Href = "dir", x.base+"/tree/"+ref+"/"+p
		case e.Type() == "commit":
			it.Icon, it.Note = "module", "@ "+e.OID[:7]
		case e.Mode == "120000":
			it.Icon, it.Href = "link", x.base+"/blob/"+ref+"/"+p
		default:
			it.Icon, it.Href = "file", x.base+"/blob/"+ref+"/"+p
		}
		v.Entries = append(v.Entries, it)
	}
	for i, e := range list {
		name := strings.ToLower(e.Name)
		if e.Type() == "blob" && e.Mode != "120000" && (name == "readme" || strings.HasPrefix(name, "readme.")) {
			readme = &list[i]
			break
		}
	}
	if readme == nil {
		return nil
	}
	_, text, err := g.Read(x.r.Context(), readme.OID, maxReadme)
	if errors.Is(err, gitrepo.ErrTooLarge) {
		return nil
	}
	if err != nil {
		return err
	}
	if isMarkdown(readme.Name) {
		v.Readme = x.markdown(string(text), dir, v.Ref)
	} else if utf8.Valid(text) {
		v.ReadmeRaw = string(text)
	}
	return nil
}

func isMarkdown(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".md") || strings.HasSuffix(n, ".markdown") || strings.HasSuffix(n, ".mdown")
}

// markdown renders a document of the repository at ref, its relative links
// pointing at the repository's pages.
func (x *req) markdown(src, dir, ref string) template.HTML {
	out := markdown.HTML(src) // sanitized: raw HTML keeps GitHub's safe subset only
	rawBase := x.h.d.URLs.Web + "/_raw" + x.base
	return template.HTML(relink(out, dir, x.base, ref, rawBase))
}

// sortEntries puts directories first, as GitHub lists a tree (git keeps
// names in order within each group).
func sortEntries(list []gitrepo.TreeEntry) {
	dirFirst := func(e gitrepo.TreeEntry) int {
		if e.Type() == "tree" {
			return 0
		}
		return 1
	}
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && dirFirst(list[j]) < dirFirst(list[j-1]); j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

// resolve splits segs into a ref and a path as GitHub does for hand-written
// addresses: the shortest prefix that names a commit is the ref. The
// repository's storage, the ref, the commit and the path come back;
// model.ErrNotFound when no prefix is a ref (or the repository is empty).
func (x *req) resolve(segs []string) (*gitrepo.Repo, string, *gitrepo.Commit, string, error) {
	g := x.h.d.Git.Open(x.repo.ID)
	if !g.Exists() {
		return nil, "", nil, "", model.ErrNotFound
	}
	ctx := x.r.Context()
	for i := 1; i <= len(segs) && i <= maxRefTries; i++ {
		ref := strings.Join(segs[:i], "/")
		sha, err := x.h.d.ResolveCommit(ctx, g, x.repo, ref)
		if errors.Is(err, model.ErrNotFound) {
			continue
		}
		if errors.Is(err, deps.ErrEmptyRepo) {
			return nil, "", nil, "", model.ErrNotFound
		}
		if err != nil {
			return nil, "", nil, "", err
		}
		c, err := g.Commit(ctx, sha)
		if err != nil {
			return nil, "", nil, "", err
		}
		return g, ref, c, strings.Join(segs[i:], "/"), nil
	}
	return nil, "", nil, "", model.ErrNotFound
}

// lookup finds the tree entry at p below a commit's tree (a zero entry with
// the tree's id for the root).
func lookup(x *req, g *gitrepo.Repo, c *gitrepo.Commit, p string) (gitrepo.TreeEntry, error) {
	if p == "" {
		return gitrepo.TreeEntry{Mode: "040000", OID: c.Tree}, nil
	}
	dir, name := path.Split(p)
	tree := c.Tree
	if dir != "" {
		info, err := g.Info(x.r.Context(), c.OID+":"+strings.TrimSuffix(dir, "/"))
		if err != nil {
			return gitrepo.TreeEntry{}, err
		}
		if info.Type != "tree" {
			return gitrepo.TreeEntry{}, gitrepo.ErrNotFound
		}
		tree = info.OID
	}
	_, data, err := g.Read(x.r.Context(), tree, 0)
	if err != nil {
		return gitrepo.TreeEntry{}, err
	}
	list, err := gitrepo.ParseTree(data)
	if err != nil {
		return gitrepo.TreeEntry{}, err
	}
	for _, e := range list {
		if e.Name == name {
			return e, nil
		}
	}
	return gitrepo.TreeEntry{}, gitrepo.ErrNotFound
}

type blobView struct {
	Head
	Ref, Path, Name string
	Crumbs          []crumb
	Commit          *gitrepo.Commit
	Size            int64
	RawURL          string
	Binary, TooBig  bool
	Symlink         string
	Markdown        template.HTML
	PlainURL        string // the source of a rendered document
	Lines           []string
}

// codePage serves /tree/{ref}/{path} and /blob/{ref}/{path}.
func (x *req) codePage() bool {
	g, ref, c, p, err := x.resolve(x.pg.rest)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	e, err := lookup(x, g, c, p)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	at := wire.EscapeContentPath(ref)
	if p != "" {
		at += "/" + wire.EscapeContentPath(p)
	}
	switch {
	case e.Type() == "commit":
		return x.notFound() // a submodule has no page in this repository
	case e.Type() == "tree" && x.pg.kind == "blob":
		return x.redirect(x.base + "/tree/" + at)
	case e.Type() == "blob" && x.pg.kind == "tree":
		return x.redirect(x.base + "/blob/" + at)
	}
	crumbs := x.crumbs(ref, p)
	if e.Type() == "tree" {
		v := treeView{Head: x.head("code"), Ref: ref, Path: p, Crumbs: crumbs}
		if err := x.listing(g, c, p, e.OID, &v); err != nil {
			return x.fail(err)
		}
		title := x.repo.FullName()
		if p != "" {
			title = x.repo.FullName() + "/" + p + " at " + ref
		}
		return x.ok(title, "tree", v)
	}
	v := blobView{Head: x.head("code"), Ref: ref, Path: p, Name: path.Base(p), Crumbs: crumbs, Commit: c,
		RawURL: x.h.d.URLs.Web + "/_raw" + x.base + "/" + wire.EscapeContentPath(ref) + "/" + wire.EscapeContentPath(p)}
	info, data, err := g.Read(x.r.Context(), e.OID, maxBlob)
	v.Size = info.Size
	switch {
	case errors.Is(err, gitrepo.ErrTooLarge):
		v.TooBig = true
	case err != nil:
		return x.fail(err)
	case e.Mode == "120000":
		v.Symlink = string(data)
	case bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 || !utf8.Valid(data):
		v.Binary = true
	case isMarkdown(p) && x.query("plain") != "1":
		v.Markdown = x.markdown(string(data), path.Dir(p), ref)
		v.PlainURL = x.base + "/blob/" + at + "?plain=1"
	default:
		s := strings.TrimSuffix(string(data), "\n")
		if n := strings.Count(s, "\n"); n >= maxLines {
			v.TooBig = true
		} else if s != "" {
			v.Lines = strings.Split(s, "\n")
		}
	}
	return x.ok(x.repo.FullName()+"/"+p+" at "+ref, "blob", v)
}

// crumbs are the links of a path: the repository's root at ref, then each
// directory.
func (x *req) crumbs(ref, p string) []crumb {
	at := x.base + "/tree/" + wire.EscapeContentPath(ref)
	out := []crumb{{Name: x.repo.Name, Href: at}}
	if p == "" {
		return out
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		out = append(out, crumb{Name: s, Href: at + "/" + wire.EscapeContentPath(strings.Join(segs[:i+1], "/"))})
	}
	out[len(out)-1].Href = "" // the page itself
	return out
}

// rawRedirect sends /{owner}/{repo}/raw/{ref}/{path} (the raw_url of
// commit files) to the bytes, which /_raw serves with the same ref rules.
func (x *req) rawRedirect() bool {
	rest := strings.TrimPrefix(below(x.r.URL.EscapedPath()), "/raw")
	http.Redirect(x.w, x.r, x.h.d.URLs.Web+"/_raw"+x.base+rest, http.StatusFound)
	return true
}

// person is a commit's author or committer, linked to the account its
// address belongs to.
type person struct {
	Name, Login string
}

type commitItem struct {
	*gitrepo.Commit
	Author person
	Base   string // the repository's page
}

// people attributes the authors of commits to accounts.
func (x *req) people(list []*gitrepo.Commit) ([]commitItem, error) {
	emails := make([]string, 0, len(list))
	for _, c := range list {
		emails = append(emails, c.Author.Email)
	}
	accounts, err := x.h.d.AccountsByCommitEmail(x.r.Context(), emails)
	if err != nil {
		return nil, err
	}
	out := make([]commitItem, len(list))
	for i, c := range list {
		out[i] = commitItem{Commit: c, Author: person{Name: c.Author.Name}, Base: x.base}
		if a := accounts[strings.ToLower(c.Author.Email)]; a != nil {
			out[i].Author.Login = a.Login
		}
	}
	return out, nil
}

// diffLine is one line of a patch with its class (add, del, hunk or "").
type diffLine struct{ Class, Text string }

type diffFile struct {
	Path, OldPath, Status, Href string
	Additions, Deletions        int
	Lines                       []diffLine
	Note                        string // why no patch is shown
}

type diffView struct {
	Files                []diffFile
	Additions, Deletions int
	More                 int // files past maxDiffFiles
}

// diff compares two commits (from is gitrepo.EmptyTree for a root commit);
// links point at the files as of at.
func (x *req) diff(g *gitrepo.Repo, from, to string) (diffView, error) {
	changes, err := g.Diff(x.r.Context(), from, to, gitrepo.DiffOptions{Max: maxDiffFiles, MaxPatch: maxPatch})
	if err != nil {
		return diffView{}, err
	}
	var v diffView
	lines := 0
	for i, f := range changes {
		v.Additions += f.Additions
		v.Deletions += f.Deletions
		if i >= maxDiffFiles {
			v.More++
			continue
		}
		at := to
		if f.Status == "removed" {
			at = from // the file still exists there
		}
		df := diffFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions,
			Href: x.base + "/blob/" + at + "/" + wire.EscapeContentPath(f.Path)}
		switch {
		case f.Binary:
			df.Note = "Binary file not shown."
		case f.PatchTooLarge:
			df.Note = "Large diff not shown."
		case !f.HasPatch || f.Patch == "":
			df.Note = "No changes to show."
		case lines > maxDiffLines:
			df.Note = "Diff not shown: this page shows enough already."
		default:
			for _, l := range strings.Split(strings.TrimSuffix(f.Patch, "\n"), "\n") {
				c := ""
				switch {
				case strings.HasPrefix(l, "@@"):
					c = "hunk"
				case strings.HasPrefix(l, "+"):
					c = "add"
				case strings.HasPrefix(l, "-"):
					c = "del"
				}
				df.Lines = append(df.Lines, diffLine{Class: c, Text: l})
			}
			lines += len(df.Lines)
		}
		v.Files = append(v.Files, df)
	}
	return v, nil
}

type commitView struct {
	Head
	Commit  commitItem
	Parents []string
	Diff    diffView
}

// commitPage serves /commit/{sha} (a branch or tag name works too).
func (x *req) commitPage() bool {
	g, _, c, p, err := x.resolve(x.pg.rest)
	if errors.Is(err, model.ErrNotFound) || (err == nil && p != "") {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	items, err := x.people([]*gitrepo.Commit{c})
	if err != nil {
		return x.fail(err)
	}
	from := gitrepo.EmptyTree
	if len(c.Parents) > 0 {
		from = c.Parents[0]
	}
	d, err := x.diff(g, from, c.OID)
	if err != nil {
		return x.fail(err)
	}
	v := commitView{Head: x.head("commits"), Commit: items[0], Parents: c.Parents, Diff: d}
	return x.ok(summary(c.Message)+" · "+x.repo.FullName()+"@"+c.OID[:7], "commit", v)
}

type commitsView struct {
	Head
	Ref          string
	Commits      []commitItem
	Total        int
	Page         int
	Prev, Next   string
	Title, Intro string
	Diff         *diffView
	Open         *openForm // the compare page's "Open a pull request"
}

// openForm is the compare page's form that opens a pull request.
type openForm struct {
	Action, CSRF, Title, Flash string
	Existing                   string // the open pull request of these branches
	SignIn                     string
}

// commitList serves /commits/{ref} (the default branch without one).
func (x *req) commitList() bool {
	segs := x.pg.rest
	if len(segs) == 0 {
		segs = []string{x.repo.DefaultBranch}
	}
	g, ref, c, p, err := x.resolve(segs)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	n := pageNumber(x.r)
	o := gitrepo.LogOptions{Include: []string{c.OID}, Path: p, Skip: (n - 1) * commitsPerPage, Max: commitsPerPage}
	ids, total, err := g.RevList(x.r.Context(), o)
	if err != nil {
		return x.fail(err)
	}
	list, err := g.Commits(x.r.Context(), ids)
	if err != nil {
		return x.fail(err)
	}
	items, err := x.people(list)
	if err != nil {
		return x.fail(err)
	}
	v := commitsView{Head: x.head("commits"), Ref: ref, Commits: items, Total: total, Page: n, Title: "Commits on " + ref}
	if p != "" {
		v.Title = "History of " + p + " on " + ref
	}
	self := strings.TrimSuffix(x.r.URL.EscapedPath(), "/")
	v.Prev, v.Next = pager(self, "", n, total, commitsPerPage)
	return x.ok(v.Title+" · "+x.repo.FullName(), "commits", v)
}

// comparePage serves /compare/{base}...{head} (and base..head): the commits
// head has that base has not, and the changes since their merge base.
func (x *req) comparePage() bool {
	basehead := strings.Join(x.pg.rest, "/")
	base, headRef, ok := strings.Cut(basehead, "...")
	threeDot := ok
	if !ok {
		base, headRef, ok = strings.Cut(basehead, "..")
	}
	if !ok || base == "" || headRef == "" {
		return x.notFound()
	}
	g, _, bc, bp, err := x.resolve(strings.Split(base, "/"))
	if err == nil && bp != "" {
		err = model.ErrNotFound
	}
	var hc *gitrepo.Commit
	if err == nil {
		var hp string
		_, _, hc, hp, err = x.resolve(strings.Split(headRef, "/"))
		if err == nil && hp != "" {
			err = model.ErrNotFound
		}
	}
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	ctx := x.r.Context()
	from := bc.OID
	if threeDot {
		mb, err := g.MergeBase(ctx, bc.OID, hc.OID)
		if errors.Is(err, gitrepo.ErrNotFound) {
			return x.notFound() // unrelated histories: nothing to compare
		}
		if err != nil {
			return x.fail(err)
		}
		from = mb
	}
	ids, total, err := g.RevList(ctx, gitrepo.LogOptions{Include: []string{hc.OID}, Exclude: []string{bc.OID}, Reverse: true, Max: maxCompare})
	if err != nil {
		return x.fail(err)
	}
	list, err := g.Commits(ctx, ids)
	if err != nil {
		return x.fail(err)
	}
	items, err := x.people(list)
	if err != nil {
		return x.fail(err)
	}
	d, err := x.diff(g, from, hc.OID)
	if err != nil {
		return x.fail(err)
	}
	v := commitsView{Head: x.head("commits"), Commits: items, Total: total, Page: 1, Diff: &d,
		Title: "Comparing " + base + "..." + headRef}
	if total > len(items) {
		v.Intro = "Showing the first " + plural(len(items), "commit") + " of " + plural(total, "commit") + "."
	}
	if threeDot && total > 0 {
		if v.Open, err = x.openForm(base, headRef, list); err != nil {
			return x.fail(err)
		}
	}
	return x.ok(v.Title+" · "+x.repo.FullName(), "commits", v)
}
