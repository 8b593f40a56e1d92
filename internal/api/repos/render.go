package repos

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// rendered caches the JSON of repository objects as the list endpoints
// render them. An object depends on the store's rows (the repository, its
// owner, counters and detected facts) and on the caller only through their
// permission level and whether they are authenticated, so those two are
// part of the key: a caller is never served another caller's permissions.
// Entries stay good until the next write transaction commits — any write,
// coarse but always correct: permission changes, renames of the owner and
// pushes all commit one — and for at most renderedMaxAge, which bounds
// staleness from writes of other processes, as the store's read cache does.
type rendered struct {
	mu      sync.Mutex
	entries map[renderKey]renderEntry
}

type renderKey struct {
	repo  int64
	shape shape
	perm  authz.Permission
	authn bool
}

type renderEntry struct {
	gen     uint64
	expires time.Time
	json    []byte
}

// shape is which repository schema a list sends.
type shape uint8

const (
	shapeRepository shape = iota // repository (GET /user/repos)
	shapeMinimal                 // minimal-repository (user and organization lists)
	shapeFull                    // full-repository (GET /repos/{owner}/{repo}), see getFull
)

const (
	renderedMaxAge     = 2 * time.Second
	renderedMaxEntries = 8192 // ~45 MB of repository objects at most
)

func newRendered() *rendered { return &rendered{entries: map[renderKey]renderEntry{}} }

func (c *rendered) get(k renderKey, gen uint64, now time.Time) ([]byte, bool) {
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if !ok || e.gen != gen || !now.Before(e.expires) {
		return nil, false
	}
	return e.json, true
}

func (c *rendered) put(k renderKey, e renderEntry) {
	c.mu.Lock()
	if len(c.entries) >= renderedMaxEntries {
		clear(c.entries)
	}
	c.entries[k] = e
	c.mu.Unlock()
}

// expiry spreads the ends of entries over the second before renderedMaxAge,
// so that a page rendered at once does not expire all at once.
func expiry(id int64, now time.Time) time.Time {
	jitter := time.Duration(uint64(id)*2654435761%1000) * time.Millisecond
	return now.Add(renderedMaxAge - jitter)
}

var listBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// page runs a list query for the caller, writes the Link header and answers
// the repositories in the given shape, from cached objects where it can.
func (a *API) page(w http.ResponseWriter, r *http.Request, f store.RepoQuery, sh shape) error {
	a.svc.Backfill()
	c := rest.Caller(r)
	p := rest.ParsePage(r)
	f.Viewer = api.ViewerOf(c)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	ctx := r.Context()
	gen := a.d.Store.WriteGen() // before reading: a write meanwhile makes what is read stale
	list, total, err := a.d.Store.R().ListRepos(ctx, f)
	if err != nil {
		return err
	}
	now := time.Now()
	authn := c.Authenticated()
	parts := make([][]byte, len(list))
	keys := make([]renderKey, len(list))
	var missing []int64
	for i, v := range list {
		keys[i] = renderKey{repo: v.Repo.ID, shape: sh, perm: authz.RepoPermission(c, v.Repo, v.Facts), authn: authn}
		if b, ok := a.cache.get(keys[i], gen, now); ok {
			parts[i] = b
		} else {
			missing = append(missing, v.Repo.ID)
		}
	}
	if len(missing) > 0 {
		facts, err := a.d.Store.R().RepoFacts(ctx, missing)
		if err != nil {
			return err
		}
		for i, v := range list {
			if parts[i] != nil {
				continue
			}
			access := wire.Access{Perm: keys[i].perm, Authenticated: authn}
			var obj any
			if sh == shapeRepository {
				obj = a.d.URLs.ToRepository(v.Repo, a.counts(v.Repo, facts[v.Repo.ID]), access)
			} else {
				obj = a.d.URLs.ToMinimalRepository(v.Repo, a.counts(v.Repo, facts[v.Repo.ID]), access)
			}
			b, err := marshal(obj)
			if err != nil {
				return err
			}
			parts[i] = b
			a.cache.put(keys[i], renderEntry{gen: gen, expires: expiry(v.Repo.ID, now), json: b})
		}
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	bp := listBuffers.Get().(*[]byte)
	b := append((*bp)[:0], '[')
	for i, part := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, part...)
	}
	b = append(b, ']', '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	if cap(b) <= 4<<20 {
		*bp = b
		listBuffers.Put(bp)
	}
	return err
}

// marshal encodes as rest.JSON does (no HTML escaping), without the
// trailing newline.
func marshal(v any) ([]byte, error) {
	buf := rest.GetBuffer()
	defer rest.PutBuffer(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return append([]byte(nil), b[:len(b)-1]...), nil
}
