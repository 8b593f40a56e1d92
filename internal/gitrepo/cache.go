package gitrepo

import (
	"bufio"
	"bytes"
	"container/list"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Reads of a file's contents resolve a branch, peel it to its tree, walk
// the trees and read the blob: six round trips to cat-file, each a pair of
// context switches. Two caches take them off the hot path:
//
//   - objects are immutable, so what cat-file said about an object id (or
//     an expression rooted at one, "<oid>^{tree}") and the content of small
//     objects is kept, per repository, in one LRU bounded in bytes;
//   - refs are read from the files git keeps them in (a loose ref file,
//     else packed-refs, parsed once per change of the file), exactly as git
//     reads them; anything unusual (a symbolic ref outside refs/, a name
//     git would expand, a missing ref) is left to git itself.

// objCacheBytes bounds the object cache of a manager; objects larger than
// objCacheMaxObject are never kept.
const (
	objCacheBytes     = 64 << 20
	objCacheMaxObject = 256 << 10
)

type objKey struct {
	repo int64
	rev  string
}

type objVal struct {
	key  objKey
	info ObjectInfo
	data []byte // nil when only the info is known
	// derived is a result computed from immutable objects (derivedKey), of
	// about dcost bytes.
	derived any
	dcost   int64
}

// objCache is an LRU of object infos and contents.
type objCache struct {
	mu    sync.Mutex
	size  int64
	max   int64
	order *list.List // front: most recently used
	m     map[objKey]*list.Element
}

func newObjCache(max int64) *objCache {
	return &objCache{max: max, order: list.New(), m: map[objKey]*list.Element{}}
}

func (v *objVal) cost() int64 { return int64(len(v.data)+len(v.key.rev)+128) + v.dcost }

// get returns what is known of key; data is a copy (callers may keep and
// change it).
func (c *objCache) get(k objKey, wantData bool) (ObjectInfo, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return ObjectInfo{}, nil, false
	}
	v := el.Value.(*objVal)
	if wantData && v.data == nil {
		return ObjectInfo{}, nil, false
	}
	c.order.MoveToFront(el)
	if !wantData {
		return v.info, nil, true
	}
	return v.info, bytes.Clone(v.data), true
}

func (c *objCache) put(k objKey, info ObjectInfo, data []byte) {
	if len(data) > objCacheMaxObject {
		data = nil
	}
	v := &objVal{key: k, info: info}
	if data != nil {
		v.data = bytes.Clone(data)
		if v.data == nil {
			v.data = []byte{}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		old := el.Value.(*objVal)
		if old.data != nil && v.data == nil {
			c.order.MoveToFront(el)
			return // keep the content already known
		}
		c.size -= old.cost()
		el.Value = v
		c.size += v.cost()
		c.order.MoveToFront(el)
	} else {
		c.m[k] = c.order.PushFront(v)
		c.size += v.cost()
	}
	c.evict()
}

// Results computed from objects alone — the merge base of two commits, the
// commits one reaches and another does not, the file stats between two
// trees — are the same forever, like the objects, so the object LRU keeps
// them too, under keys no revision can spell (derivedKey). A result is kept
// only when git found every object: a missing one may arrive with a push.

// derivedKey is the cache key of an operation on object ids.
func derivedKey(repo int64, op string, args ...string) objKey {
	return objKey{repo: repo, rev: "\x00" + op + "\x00" + strings.Join(args, "\x00")}
}

func (c *objCache) getDerived(k objKey) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok || el.Value.(*objVal).derived == nil {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*objVal).derived, true
}

// putDerived keeps v (which callers must not change afterwards), of about
// cost bytes.
func (c *objCache) putDerived(k objKey, v any, cost int64) {
	if cost > objCacheMaxObject {
		return
	}
	val := &objVal{key: k, derived: v, dcost: cost}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.size -= el.Value.(*objVal).cost()
		el.Value = val
		c.order.MoveToFront(el)
	} else {
		c.m[k] = c.order.PushFront(val)
	}
	c.size += val.cost()
	c.evict()
}

// evict drops the least recently used entries while the cache is over its
// size (c.mu held).
func (c *objCache) evict() {
	for c.size > c.max && c.order.Len() > 0 {
		el := c.order.Back()
		old := el.Value.(*objVal)
		c.order.Remove(el)
		delete(c.m, old.key)
		c.size -= old.cost()
	}
}

// forget drops every entry of a repository (it was removed).
func (c *objCache) forget(repo int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.m {
		if k.repo == repo {
			c.size -= el.Value.(*objVal).cost()
			c.order.Remove(el)
			delete(c.m, k)
		}
	}
}

// immutableRev reports whether rev names the same object forever: a full
// lowercase object id, alone or peeled to a commit or tree.
func immutableRev(rev string) bool {
	base, _ := splitPeel(rev)
	return len(base) == 40 && isLowerHex(base)
}

// splitPeel splits "<name>^{commit}" or "<name>^{tree}" into the name and
// the suffix ("" when there is none).
func splitPeel(rev string) (base, peel string) {
	for _, s := range []string{"^{commit}", "^{tree}"} {
		if strings.HasSuffix(rev, s) {
			return rev[:len(rev)-len(s)], s
		}
	}
	return rev, ""
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// packedRefs is a repository's packed-refs file as last parsed, with the
// identity of the file it was parsed from.
type packedRefs struct {
	mu    sync.Mutex
	stamp fileStamp
	refs  map[string]string
}

// fileStamp identifies a version of a file: git replaces packed-refs by
// renaming a new file over it, so a new version has a new inode.
type fileStamp struct {
	ino   uint64
	size  int64
	mtime time.Time
}

// racy reports whether a file changed so recently that another change in
// the same clock tick would leave its stamp alone (filesystems with
// one-second times; an inode reused for a same-sized file): git's
// "racily clean" rule. Such a file is read but not remembered.
func (s fileStamp) racy() bool { return time.Since(s.mtime) < racyWindow }

// racyWindow is wider than the coarsest file-time granularity in use.
const racyWindow = 2 * time.Second

func stampOf(fi os.FileInfo) fileStamp {
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(st.Ino)
	}
	return s
}

// lookup finds name in packed-refs; ok is false when the file or the name
// is not there.
func (p *packedRefs) lookup(dir, name string) (string, bool) {
	path := filepath.Join(dir, "packed-refs")
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	st := stampOf(fi)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refs == nil || p.stamp != st {
		refs, err := parsePackedRefs(path)
		if err != nil {
			return "", false
		}
		if st.racy() {
			p.refs = nil // read again next time
			oid, ok := refs[name]
			return oid, ok
		}
		p.refs, p.stamp = refs, st
	}
	oid, ok := p.refs[name]
	return oid, ok
}

func parsePackedRefs(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	refs := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		oid, name, ok := strings.Cut(line, " ")
		if ok && ValidOID(oid) {
			refs[name] = strings.ToLower(oid)
		}
	}
	return refs, sc.Err()
}

// looseRefs remembers the content of loose ref files by their stamp, so
// that a ref that did not change costs one stat: git writes a ref to a
// lock file and renames it into place, so a changed ref is a new inode.
type looseRefs struct {
	mu sync.Mutex
	m  map[string]looseRef
}

type looseRef struct {
	stamp   fileStamp
	content string
}

// read returns the content of the ref file at path.
func (l *looseRefs) read(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return "", syscall.EISDIR
	}
	st := stampOf(fi)
	l.mu.Lock()
	e, ok := l.m[path]
	l.mu.Unlock()
	if ok && e.stamp == st {
		return e.content, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if int64(len(data)) != st.size {
		return "", errNotPlain // changed while read: let git decide
	}
	if st.racy() {
		return string(data), nil
	}
	l.mu.Lock()
	if l.m == nil || len(l.m) > 4096 {
		l.m = map[string]looseRef{}
	}
	l.m[path] = looseRef{stamp: st, content: string(data)}
	l.mu.Unlock()
	return string(data), nil
}

// PlainRefName accepts the ref names readRef resolves itself: HEAD, or
// refs/... made of ordinary characters (no revision syntax, nothing git
// would expand) with no component git treats specially. Others go to git.
func PlainRefName(name string) bool {
	if name == "HEAD" {
		return true
	}
	if !strings.HasPrefix(name, "refs/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".lock") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "/.") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '-' || c == '_' || c == '.' || c == '+') {
			return false
		}
	}
	return true
}

var errNotPlain = errors.New("gitrepo: ref not resolved here")

// readRef reads the object id a ref points to from the ref files, following
// symbolic refs within refs/; errNotPlain when git must decide.
func (r *Repo) readRef(name string, depth int) (string, error) {
	if depth > 4 || !PlainRefName(name) {
		return "", errNotPlain
	}
	data, err := r.m.poolFor(r.ID).loose.read(filepath.Join(r.Path, name))
	switch {
	case err == nil:
		s := strings.TrimRight(data, "\n")
		if target, ok := strings.CutPrefix(s, "ref: "); ok {
			return r.readRef(target, depth+1)
		}
		if ValidOID(s) {
			return strings.ToLower(s), nil
		}
		return "", errNotPlain
	case name == "HEAD":
		return "", errNotPlain
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if oid, ok := r.m.poolFor(r.ID).packed.lookup(r.Path, name); ok {
			return oid, nil
		}
	}
	return "", errNotPlain
}

// fastInfo answers Info without cat-file when it can: an immutable rev
// known to the cache, or a plain ref read from its file and its target
// known to the cache (or asked once and remembered).
func (r *Repo) fastInfo(rev string) (info ObjectInfo, ok bool) {
	if immutableRev(rev) {
		info, _, ok = r.m.objects.get(objKey{r.ID, rev}, false)
		return info, ok
	}
	return ObjectInfo{}, false
}

// refRev rewrites a rev rooted at a plain ref ("refs/heads/main^{tree}",
// "HEAD") to the same rev rooted at the id the ref holds now, which is
// immutable; ok is false when git must resolve rev as it is.
func (r *Repo) refRev(rev string) (string, bool) {
	base, peel := splitPeel(rev)
	if base != "HEAD" && !strings.HasPrefix(base, "refs/") {
		return "", false
	}
	oid, err := r.readRef(base, 0)
	if err != nil {
		return "", false
	}
	return oid + peel, true
}
