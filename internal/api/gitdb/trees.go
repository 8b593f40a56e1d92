package gitdb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitpath"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GitHub's limits on a tree listing: 100,000 entries or 7 MB of JSON. Past
// either the listing stops and says it was truncated. (Variables so that
// tests can lower them.)
var (
	maxTreeEntries = 100_000
	maxTreeBytes   = 7 << 20
)

// emptyTree is the id of the tree with no entries.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// GET /repos/{owner}/{repo}/git/trees/{tree_sha}: a tree by id, or the tree
// of a commit, branch or tag; recursive (any value) lists everything below.
func (a *API) getTree(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, false)
	if err != nil {
		return err
	}
	ctx := r.Context()
	oid, err := resolveTree(ctx, g, r.PathValue("tree_sha"))
	if err != nil {
		return err
	}
	recursive := r.URL.Query().Has("recursive")
	key := treeKey{repo.ID, repo.FullName(), oid, recursive, [2]int{maxTreeEntries, maxTreeBytes}}
	if body, ok := a.trees.Get(key); ok {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, err := w.Write(body)
		return err
	}
	t, err := a.listTree(ctx, g, repo, oid, recursive)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as rest.JSON encodes
	if err := enc.Encode(t); err != nil {
		return err
	}
	body := buf.Bytes()
	a.trees.Put(key, body)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, err = w.Write(body)
	return err
}

// resolveTree finds the tree a tree_sha names: a (possibly abbreviated)
// object id of a tree, or of a commit or tag that leads to one, or a branch
// or tag name.
func resolveTree(ctx context.Context, g *gitrepo.Repo, name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "-") || strings.Contains(name, "..") || strings.ContainsAny(name, " ~^:?*[\\@{}\x00\n\t") {
		return "", model.ErrNotFound
	}
	candidates := []string{"refs/heads/" + name, "refs/tags/" + name}
	if isHexish(name) {
		candidates = append([]string{strings.ToLower(name)}, candidates...)
	}
	revs := make([]string, len(candidates))
	for i, c := range candidates {
		revs[i] = c + "^{tree}"
	}
	infos, err := g.InfoMany(ctx, revs)
	if err != nil {
		return "", err
	}
	for _, info := range infos {
		if info.Type == "tree" {
			return info.OID, nil
		}
	}
	return "", model.ErrNotFound
}

// isHexish reports whether s could be a (possibly abbreviated) object id.
func isHexish(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// listTree is the git-tree of oid: its entries (all below it when
// recursive) up to GitHub's limits.
func (a *API) listTree(ctx context.Context, g *gitrepo.Repo, repo *model.Repo, oid string, recursive bool) (wire.GitTree, error) {
	t := wire.GitTree{SHA: oid, URL: a.d.URLs.GitObjectURL(repo, "tree", oid), Tree: []wire.GitTreeEntry{}}
	if !recursive {
		// One tree: read through the long-lived cat-file process, with the
		// blob sizes asked in one pipelined batch.
		_, data, err := g.Read(ctx, oid, 0)
		if err != nil {
			return t, err
		}
		entries, err := gitrepo.ParseTree(data)
		if err != nil {
			return t, err
		}
		sizes, err := blobSizes(ctx, g, entries)
		if err != nil {
			return t, err
		}
		bytes := 0
		for i, e := range entries {
			te := a.d.URLs.ToGitTreeEntry(repo, e.Name, e.Mode, e.OID, sizes[i])
			if len(t.Tree) >= maxTreeEntries || bytes+entryBytes(te) > maxTreeBytes {
				t.Truncated = true
				break
			}
			bytes += entryBytes(te)
			t.Tree = append(t.Tree, te)
		}
		return t, nil
	}
	bytes := 0
	err := g.LsTree(ctx, oid, true, func(e gitrepo.LsTreeEntry) bool {
		te := a.d.URLs.ToGitTreeEntry(repo, e.Path, e.Mode, e.OID, e.Size)
		if len(t.Tree) >= maxTreeEntries || bytes+entryBytes(te) > maxTreeBytes {
			t.Truncated = true
			return false
		}
		bytes += entryBytes(te)
		t.Tree = append(t.Tree, te)
		return true
	})
	return t, err
}

// entryBytes is about the JSON size of an entry (its strings and the
// punctuation and keys around them).
func entryBytes(e wire.GitTreeEntry) int {
	return len(e.Path) + len(e.Mode) + len(e.Type) + len(e.SHA) + len(e.URL) + 70
}

// blobSizes asks the sizes of a tree's blobs in one batch (0 for others).
func blobSizes(ctx context.Context, g *gitrepo.Repo, entries []gitrepo.TreeEntry) ([]int64, error) {
	sizes := make([]int64, len(entries))
	var revs []string
	var at []int
	for i, e := range entries {
		if e.Type() == "blob" {
			revs = append(revs, e.OID)
			at = append(at, i)
		}
	}
	infos, err := g.InfoMany(ctx, revs)
	if err != nil {
		return nil, err
	}
	for k, info := range infos {
		sizes[at[k]] = info.Size
	}
	return sizes, nil
}

// treeBody is the body of POST .../git/trees.
type treeBody struct {
	Tree     rest.Opt[[]treeItem] `json:"tree"`
	BaseTree rest.Opt[string]     `json:"base_tree"`
}

type treeItem struct {
	Path    rest.Opt[string] `json:"path"`
	Mode    rest.Opt[string] `json:"mode"`
	Type    rest.Opt[string] `json:"type"`
	SHA     rest.Opt[string] `json:"sha"`
	Content rest.Opt[string] `json:"content"`
}

var treeModes = map[string]string{"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree", "160000": "commit"}

// edit is one validated entry of the body: set path to (mode, oid), or
// delete it when oid is "".
type edit struct {
	path    []string
	mode    string
	oid     string
	content *string
}

// POST /repos/{owner}/{repo}/git/trees: a new tree from base_tree (or
// nothing) and the entries, which may name nested paths ("a/b/c.txt"
// edits or creates the subtrees on the way), carry inline content, or
// delete a path with a null sha.
func (a *API) createTree(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, true)
	if err != nil {
		return err
	}
	var in treeBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	items, ok := in.Tree.Get()
	if !in.Tree.Set {
		return required("tree")
	}
	if !ok {
		return model.Unprocessable("Invalid request.\n\nFor 'properties/tree', nil is not an array.")
	}
	edits, err := parseEdits(items)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := checkObjects(ctx, g, edits); err != nil {
		return err
	}
	b := &treeBuilder{g: g, root: &dir{entries: map[string]*dirEntry{}, changed: true}}
	if base, ok := in.BaseTree.Get(); ok && base != "" {
		info, err := object(ctx, g, base, "tree")
		if errors.Is(err, model.ErrNotFound) {
			return model.Unprocessable("base_tree is not a valid tree oid")
		} else if err != nil {
			return err
		}
		b.root = &dir{oid: info.OID}
	}
	for _, e := range edits {
		if e.content != nil {
			if e.oid, err = g.WriteObject(ctx, "blob", []byte(*e.content)); err != nil {
				return err
			}
		}
		if err := b.apply(ctx, e); err != nil {
			return err
		}
	}
	oid, err := b.write(ctx, b.root)
	if err != nil {
		return err
	}
	t, err := a.listTree(ctx, g, repo, oid, false)
	if err != nil {
		return err
	}
	w.Header().Set("Location", t.URL)
	return rest.JSON(w, http.StatusCreated, t)
}

// parseEdits validates the entries of a create-tree body.
func parseEdits(items []treeItem) ([]edit, error) {
	edits := make([]edit, 0, len(items))
	for _, it := range items {
		path, ok := it.Path.Get()
		if !ok || path == "" {
			return nil, model.Unprocessable("Must supply a valid tree.path")
		}
		if strings.HasPrefix(path, "/") {
			return nil, model.Unprocessable("tree.path cannot start with a slash")
		}
		mode, hasMode := it.Mode.Get()
		// git's own rules (gitpath): no empty, "." or ".." component and
		// no alias of .git on any filesystem; a symlink may not be
		// .gitmodules.
		if gitpath.Verify(path, mode == "120000") != nil {
			return nil, model.Unprocessable("tree.path contains a malformed path component")
		}
		parts := strings.Split(path, "/")
		e := edit{path: parts}
		if hasMode {
			if _, ok := treeModes[mode]; !ok {
				return nil, invalid("Tree", "mode", mode)
			}
		}
		typ, hasType := it.Type.Get()
		if hasType {
			if typ != "blob" && typ != "tree" && typ != "commit" {
				return nil, invalid("Tree", "type", typ)
			}
			if hasMode && treeModes[mode] != typ {
				return nil, model.Unprocessable("tree.type " + typ + " does not match tree.mode " + mode)
			}
		}
		sha, hasSHA := it.SHA.Get()
		content, hasContent := it.Content.Get()
		switch {
		case hasSHA && hasContent:
			return nil, model.Unprocessable("Only one of tree.sha and tree.content may be supplied")
		case hasContent:
			if (hasMode && treeModes[mode] != "blob") || (hasType && typ != "blob") {
				return nil, model.Unprocessable("tree.content may only be supplied for blobs")
			}
			if len(content) > maxBlobBytes {
				return nil, model.Unprocessable("content is too large: blobs are limited to 100 MB")
			}
			c := content
			e.content = &c
		case hasSHA:
			e.oid = strings.ToLower(sha)
			if !isOID(e.oid) {
				return nil, badEntrySHA(sha, entryType(mode, typ))
			}
		case it.SHA.Null:
			// A deletion: mode and type do not matter.
			edits = append(edits, e)
			continue
		default:
			return nil, model.Unprocessable("Must supply either tree.sha or tree.content")
		}
		switch {
		case hasMode:
			e.mode = mode
		case hasType && typ == "tree":
			e.mode = "040000"
		case hasType && typ == "commit":
			e.mode = "160000"
		case hasType || e.content != nil:
			e.mode = "100644"
		}
		// An entry with neither mode nor type takes the mode its object's
		// type implies (checkObjects).
		edits = append(edits, e)
	}
	return edits, nil
}

func entryType(mode, typ string) string {
	if t, ok := treeModes[mode]; ok {
		return t
	}
	if typ != "" {
		return typ
	}
	return "blob"
}

func badEntrySHA(sha, typ string) error {
	return model.Unprocessable("tree.sha " + sha + " is not a valid " + typ)
}

// checkObjects checks, in one batch, that the objects the entries name
// exist with the type of their mode; a submodule's commit need not be in the
// repository. Entries without a mode get the one of their object.
func checkObjects(ctx context.Context, g *gitrepo.Repo, edits []edit) error {
	var revs []string
	var at []int
	for i, e := range edits {
		if e.oid != "" && e.mode != "160000" {
			revs = append(revs, e.oid)
			at = append(at, i)
		}
	}
	infos, err := g.InfoMany(ctx, revs)
	if err != nil {
		return err
	}
	for k, info := range infos {
		e := &edits[at[k]]
		if e.mode == "" {
			switch info.Type {
			case "blob":
				e.mode = "100644"
			case "tree":
				e.mode = "040000"
			default:
				return badEntrySHA(e.oid, "blob")
			}
		}
		if want := treeModes[e.mode]; info.Type != want {
			return badEntrySHA(e.oid, want)
		}
	}
	return nil
}

// dir is a directory of the tree being built. It is read from git only when
// an edit goes into it; unchanged directories keep their id.
type dir struct {
	oid     string               // the tree it was read from ("" when new)
	entries map[string]*dirEntry // nil until read
	changed bool
}

type dirEntry struct {
	mode string
	oid  string
	sub  *dir // a subtree an edit went into
}

type treeBuilder struct {
	g    *gitrepo.Repo
	root *dir
}

func (b *treeBuilder) load(ctx context.Context, d *dir) error {
	if d.entries != nil {
		return nil
	}
	d.entries = map[string]*dirEntry{}
	if d.oid == "" {
		return nil
	}
	_, data, err := b.g.Read(ctx, d.oid, 0)
	if err != nil {
		return err
	}
	list, err := gitrepo.ParseTree(data)
	if err != nil {
		return err
	}
	for _, e := range list {
		d.entries[e.Name] = &dirEntry{mode: e.Mode, oid: e.OID}
	}
	return nil
}

// errNoPath is GitHub's answer to deleting a path that is not there.
func errNoPath(path []string) error {
	return model.Unprocessable("tree.path " + strings.Join(path, "/") + " does not exist, so it cannot be deleted")
}

// apply makes one edit: the directories on the way are read, created (a
// file in the way is replaced) and marked changed.
func (b *treeBuilder) apply(ctx context.Context, e edit) error {
	d := b.root
	for _, name := range e.path[:len(e.path)-1] {
		if err := b.load(ctx, d); err != nil {
			return err
		}
		x := d.entries[name]
		switch {
		case x == nil || x.mode != "040000":
			if e.oid == "" {
				return errNoPath(e.path)
			}
			x = &dirEntry{mode: "040000", sub: &dir{entries: map[string]*dirEntry{}}}
			d.entries[name] = x
		case x.sub == nil:
			x.sub = &dir{oid: x.oid}
		}
		d.changed = true
		d = x.sub
	}
	if err := b.load(ctx, d); err != nil {
		return err
	}
	last := e.path[len(e.path)-1]
	if e.oid == "" {
		if d.entries[last] == nil {
			return errNoPath(e.path)
		}
		delete(d.entries, last)
	} else {
		d.entries[last] = &dirEntry{mode: e.mode, oid: e.oid}
	}
	d.changed = true
	return nil
}

// write stores the changed directories bottom-up and returns d's id.
// Directories left empty by deletions disappear, as in git.
func (b *treeBuilder) write(ctx context.Context, d *dir) (string, error) {
	if !d.changed {
		return d.oid, nil
	}
	list := make([]gitrepo.TreeEntry, 0, len(d.entries))
	for name, e := range d.entries {
		if e.sub != nil {
			oid, err := b.write(ctx, e.sub)
			if err != nil {
				return "", err
			}
			if oid == emptyTree && e.sub.changed {
				continue
			}
			e.oid = oid
		}
		list = append(list, gitrepo.TreeEntry{Mode: e.mode, Name: name, OID: e.oid})
	}
	// git's order (directories sort as if they ended in "/"), so that the
	// encoder finds the entries sorted already.
	key := func(e gitrepo.TreeEntry) string {
		if e.Mode == "040000" {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(list, func(i, j int) bool { return key(list[i]) < key(list[j]) })
	data, err := gitrepo.EncodeTree(list)
	if err != nil {
		return "", err
	}
	return b.g.WriteObject(ctx, "tree", data)
}
