package graphql

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/wire"
)

// Git objects of a repository: Repository.object (a blob, tree, commit or
// annotated tag by revision expression or id) and the fields of Blob,
// Tree, TreeEntry and Tag. Every read goes through the repository's
// long-lived `git cat-file --batch` process (gitrepo.Repo.Read), whose
// object cache keeps a commit read once per request however many of its
// fields are asked.

// blobObj is a blob; its content is read when a field needs it.
type blobObj struct {
	repo *repoObj
	oid  string
	size int64 // -1 until read
	data []byte
	// truncated: the blob is larger than maxBlobText and data holds its
	// beginning.
	truncated, loaded bool
}

// treeObj is a tree; dir is its path in the commit it was reached from
// ("" for a root tree or one named by id).
type treeObj struct {
	repo *repoObj
	oid  string
	dir  string
}

// treeEntryObj is an entry of a tree.
type treeEntryObj struct {
	repo *repoObj
	e    gitrepo.TreeEntry
	dir  string
}

// tagObj is an annotated tag.
type tagObj struct {
	repo *repoObj
	t    *gitrepo.Tag
}

// maxBlobText is how much of a blob Blob.text returns (GitHub truncates
// large blobs too: isTruncated).
const maxBlobText = 512 << 10

// gitOf is the repository's git storage (nil without one).
func (a *API) gitOf(o *repoObj) *gitrepo.Repo {
	if a.d.Git == nil {
		return nil
	}
	g := a.d.Git.Open(o.v.Repo.ID)
	if !g.Exists() {
		return nil
	}
	return g
}

// gitObject makes the GraphQL object of what rev names (nil when nothing);
// dir is the path the expression names, for a tree's entries.
func (a *API) gitObject(ctx context.Context, o *repoObj, rev, dir string) (any, error) {
	g := a.gitOf(o)
	if g == nil {
		return nil, nil
	}
	info, err := g.Info(ctx, rev)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return a.objectOf(ctx, g, o, info.OID, info.Type, info.Size, dir)
}

func (a *API) objectOf(ctx context.Context, g *gitrepo.Repo, o *repoObj, oid, typ string, size int64, dir string) (any, error) {
	switch typ {
	case "blob":
		return &blobObj{repo: o, oid: oid, size: size}, nil
	case "tree":
		return &treeObj{repo: o, oid: oid, dir: dir}, nil
	case "commit":
		return &commitObj{repo: o, sha: oid}, nil
	case "tag":
		_, data, err := g.Read(ctx, oid, 0)
		if err != nil {
			return nil, err
		}
		t, err := gitrepo.ParseTag(oid, data)
		if err != nil {
			return nil, err
		}
		return &tagObj{repo: o, t: t}, nil
	}
	return nil, nil
}

// expressionPath is the path part of "rev:path" ("" without one).
func expressionPath(expr string) string {
	if _, p, ok := strings.Cut(expr, ":"); ok {
		return strings.Trim(p, "/")
	}
	return ""
}

// load reads the blob (its first maxBlobText bytes when larger).
func (a *API) loadBlob(ctx context.Context, b *blobObj) error {
	if b.loaded {
		return nil
	}
	g := a.gitOf(b.repo)
	if g == nil {
		return errors.New("graphql: blob of a repository without git storage")
	}
	info, data, err := g.Read(ctx, b.oid, maxBlobText)
	switch {
	case errors.Is(err, gitrepo.ErrTooLarge):
		// The beginning only, streamed so the shared process is not held.
		rc, err := g.OpenBlob(ctx, b.oid)
		if err != nil {
			return err
		}
		defer rc.Close()
		if data, err = io.ReadAll(io.LimitReader(rc, maxBlobText)); err != nil {
			return err
		}
		b.truncated = true
	case err != nil:
		return err
	}
	b.size, b.data, b.loaded = info.Size, data, true
	return nil
}

// binary is git's own test: a NUL byte in the first 8000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// treeMode is a tree entry's mode as GitHub's Int (the octal mode's value).
func treeMode(m string) int64 {
	n, _ := strconv.ParseInt(m, 8, 64)
	return n
}

func (a *API) registerGitObjects() {
	a.field("Repository", "object", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		if oid, _ := args["oid"].(string); oid != "" {
			if !gitrepo.ValidOID(oid) {
				return nil, nil
			}
			return a.gitObject(ctx, o, oid, "")
		}
		expr, _ := args["expression"].(string)
		if expr == "" {
			return nil, nil
		}
		return a.gitObject(ctx, o, expr, expressionPath(expr))
	})

	// GitObject's fields on each kind.
	type gitObj struct {
		repo *repoObj
		oid  string
	}
	common := func(p any) gitObj {
		switch v := p.(type) {
		case *blobObj:
			return gitObj{v.repo, v.oid}
		case *treeObj:
			return gitObj{v.repo, v.oid}
		case *tagObj:
			return gitObj{v.repo, v.t.OID}
		}
		return gitObj{}
	}
	for typ, prefix := range map[string]string{"Blob": "B", "Tree": "T", "Tag": "TA"} {
		a.field(typ, "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
			c := common(p)
			return wire.GitNodeID(prefix, c.repo.v.Repo.ID, c.oid), nil
		})
		a.field(typ, "oid", func(_ context.Context, p any, _ map[string]any) (any, error) { return common(p).oid, nil })
		a.field(typ, "abbreviatedOid", func(_ context.Context, p any, _ map[string]any) (any, error) { return common(p).oid[:7], nil })
		a.field(typ, "repository", func(_ context.Context, p any, _ map[string]any) (any, error) { return common(p).repo, nil })
	}

	blob := func(name string, f func(b *blobObj) any) {
		a.field("Blob", name, func(ctx context.Context, p any, _ map[string]any) (any, error) {
			b := p.(*blobObj)
			if err := a.loadBlob(ctx, b); err != nil {
				return nil, err
			}
			return f(b), nil
		})
	}
	a.field("Blob", "byteSize", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		b := p.(*blobObj)
		if b.size < 0 {
			if err := a.loadBlob(ctx, b); err != nil {
				return nil, err
			}
		}
		return b.size, nil
	})
	blob("isBinary", func(b *blobObj) any { return isBinary(b.data) })
	blob("isTruncated", func(b *blobObj) any { return b.truncated })
	blob("text", func(b *blobObj) any {
		if isBinary(b.data) {
			return nil
		}
		return strings.ToValidUTF8(string(b.data), string(utf8.RuneError))
	})

	a.field("Tree", "entries", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		t := p.(*treeObj)
		g := a.gitOf(t.repo)
		if g == nil {
			return nil, nil
		}
		_, data, err := g.Read(ctx, t.oid, 0)
		if err != nil {
			return nil, err
		}
		entries, err := gitrepo.ParseTree(data)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(entries))
		for i, e := range entries {
			out[i] = &treeEntryObj{repo: t.repo, e: e, dir: t.dir}
		}
		return out, nil
	})
	te := func(name string, f func(e *treeEntryObj) any) {
		a.field("TreeEntry", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*treeEntryObj)), nil })
	}
	te("name", func(e *treeEntryObj) any { return e.e.Name })
	te("path", func(e *treeEntryObj) any { return path.Join(e.dir, e.e.Name) })
	te("type", func(e *treeEntryObj) any { return e.e.Type() })
	te("mode", func(e *treeEntryObj) any { return treeMode(e.e.Mode) })
	te("oid", func(e *treeEntryObj) any { return e.e.OID })
	te("repository", func(e *treeEntryObj) any { return e.repo })
	te("extension", func(e *treeEntryObj) any {
		if e.e.Type() != "blob" {
			return nil
		}
		return strPtr(path.Ext(e.e.Name))
	})
	// The entry's object: its type is the mode's, so nothing is read until
	// one of its fields needs it (a submodule's commit is in another
	// repository: null).
	te("object", func(e *treeEntryObj) any {
		switch e.e.Type() {
		case "blob":
			return &blobObj{repo: e.repo, oid: e.e.OID, size: -1}
		case "tree":
			return &treeObj{repo: e.repo, oid: e.e.OID, dir: path.Join(e.dir, e.e.Name)}
		}
		return nil
	})

	tag := func(name string, f func(t *tagObj) any) {
		a.field("Tag", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*tagObj)), nil })
	}
	tag("name", func(t *tagObj) any { return t.t.Name })
	tag("message", func(t *tagObj) any { return strPtr(t.t.Message) })
	a.field("Tag", "target", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		t := p.(*tagObj)
		g := a.gitOf(t.repo)
		if g == nil {
			return nil, nil
		}
		return a.objectOf(ctx, g, t.repo, t.t.Object, t.t.Type, -1, "")
	})

	a.registerCommitData()
	a.registerCommitSignature()
	a.registerRefs()
}

// commitData reads a commit (through the object cache: once per request).
func (a *API) commitData(ctx context.Context, o *commitObj) (*gitrepo.Commit, error) {
	g := a.gitOf(o.repo)
	if g == nil {
		return nil, errors.New("graphql: commit of a repository without git storage")
	}
	_, data, err := g.Read(ctx, o.sha, 0)
	if err != nil {
		return nil, err
	}
	return gitrepo.ParseCommit(o.sha, data)
}

// registerCommitData serves the Commit fields read from the commit object.
func (a *API) registerCommitData() {
	cd := func(name string, f func(c *gitrepo.Commit, o *commitObj) any) {
		a.field("Commit", name, func(ctx context.Context, p any, _ map[string]any) (any, error) {
			o := p.(*commitObj)
			c, err := a.commitData(ctx, o)
			if err != nil {
				return nil, err
			}
			return f(c, o), nil
		})
	}
	// message, dates and people: prfiles.go (one batch per repository).
	cd("tree", func(c *gitrepo.Commit, o *commitObj) any { return &treeObj{repo: o.repo, oid: c.Tree} })
}

// registerRefs serves Repository.refs (Renovate lists tags by commit date
// with it) and Repository.ref, and what a ref points to.
func (a *API) registerRefs() {
	a.connectionTypes("RefConnection", "RefEdge")
	a.schema.Resolve("Repository", "refs", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		prefix, _ := b.Args["refPrefix"].(string)
		if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") {
			return nil, engine.Errorf("INVALID_ARGUMENTS", "refPrefix must start with \"refs/\" and end with a trailing slash")
		}
		var refs []gitrepo.DatedRef
		if g := a.gitOf(o); g != nil {
			var err error
			if refs, err = g.RefsWithDates(ctx, prefix); err != nil {
				return nil, err
			}
		}
		q, _ := b.Args["query"].(string)
		list := make([]gitrepo.DatedRef, 0, len(refs))
		for _, r := range refs {
			if strings.Contains(strings.TrimPrefix(r.Name, prefix), q) {
				list = append(list, r)
			}
		}
		// for-each-ref lists by name; TAG_COMMIT_DATE orders by the
		// commit's date (names break ties), DESC reverses either.
		field, dir := "ALPHABETICAL", b.Args["direction"]
		if ob, ok := b.Args["orderBy"].(map[string]any); ok {
			field, dir = fmt.Sprint(ob["field"]), ob["direction"]
		}
		if field == "TAG_COMMIT_DATE" {
			sort.SliceStable(list, func(i, j int) bool { return list[i].CommitDate < list[j].CommitDate })
		}
		if dir == "DESC" {
			slices.Reverse(list)
		}
		objs := make([]*refObj, len(list))
		for i, r := range list {
			objs[i] = &refObj{repo: o, name: strings.TrimPrefix(r.Name, prefix), prefix: prefix, oid: r.OID}
		}
		return slicePage(objs, b, "refs")
	}))
	a.field("Repository", "ref", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		q, _ := args["qualifiedName"].(string)
		g := a.gitOf(o)
		if g == nil || q == "" {
			return nil, nil
		}
		full := q
		if !strings.HasPrefix(q, "refs/") {
			// A short name: a branch first, then a tag, as GitHub resolves it.
			for _, ns := range []string{"refs/heads/", "refs/tags/"} {
				if _, err := g.ResolveRef(ctx, ns+q); err == nil {
					full = ns + q
					break
				}
			}
		}
		oid, err := g.ResolveRef(ctx, full)
		if errors.Is(err, gitrepo.ErrNotFound) || err != nil && !strings.HasPrefix(full, "refs/") {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		// refs/heads/feature/x: prefix refs/heads/, name feature/x.
		ns, name, ok := strings.Cut(strings.TrimPrefix(full, "refs/"), "/")
		if !ok {
			return nil, nil
		}
		return &refObj{repo: o, name: name, prefix: "refs/" + ns + "/", oid: oid}, nil
	})
	a.field("Ref", "target", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		r := p.(*refObj)
		rev := r.oid
		if rev == "" {
			rev = r.fullName()
		}
		return a.gitObject(ctx, r.repo, rev, "")
	})
}
