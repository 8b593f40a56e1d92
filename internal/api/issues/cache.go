package issues

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// fragments caches the JSON of issue objects as repository lists render
// them. An issue object depends on nothing but the store's rows (no field
// varies with the caller), so its bytes stay good until the next write
// transaction commits — any write, which is coarse but simple and always
// correct — and for at most fragmentMaxAge, which bounds staleness from
// writes of other processes, as the store's read cache does. A list page
// then costs the query of its ids, plus rendering the issues that changed.
type fragments struct {
	mu      sync.Mutex
	entries map[fragmentKey]fragment
}

type fragmentKey struct {
	issue  int64
	format wire.BodyFormat
}

type fragment struct {
	gen     uint64
	expires time.Time
	json    []byte
}

const (
	fragmentMaxAge     = 2 * time.Second
	fragmentMaxEntries = 8192 // ~50 MB of typical issue objects at most
)

// expiry spreads the ends of entries over the second before
// fragmentMaxAge, so that a page rendered at once is not re-rendered by
// every concurrent request at the same instant.
func expiry(id int64, now time.Time) time.Time {
	jitter := time.Duration(uint64(id)*2654435761%1000) * time.Millisecond
	return now.Add(fragmentMaxAge - jitter)
}

func newFragments() *fragments { return &fragments{entries: map[fragmentKey]fragment{}} }

func (c *fragments) get(k fragmentKey, gen uint64, now time.Time) ([]byte, bool) {
	c.mu.Lock()
	f, ok := c.entries[k]
	c.mu.Unlock()
	if !ok || f.gen != gen || !now.Before(f.expires) {
		return nil, false
	}
	return f.json, true
}

func (c *fragments) put(k fragmentKey, f fragment) {
	c.mu.Lock()
	if len(c.entries) >= fragmentMaxEntries {
		clear(c.entries)
	}
	c.entries[k] = f
	c.mu.Unlock()
}

// listPage answers a page of a repository's issues (whose ids are ids, in
// order) from cached issue objects, rendering and caching the missing ones.
// gen is the store's write generation read before the ids were.
func (a *API) listPage(w http.ResponseWriter, r *http.Request, x *access, ids []int64, gen uint64) error {
	format := a.d.Bodies(r)
	now := time.Now()
	parts := make([][]byte, len(ids))
	var missing []int64
	for i, id := range ids {
		if b, ok := a.frags.get(fragmentKey{id, format}, gen, now); ok {
			parts[i] = b
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		st := a.d.Store.R()
		list, err := st.IssuesByID(r.Context(), missing)
		if err != nil {
			return err
		}
		if err := st.IssueDetails(r.Context(), list, false); err != nil {
			return err
		}
		wr := a.writer(r)
		rendered := map[int64][]byte{}
		for _, is := range list {
			v := wr.ToIssue(x.Repo, is, nil)
			b := wr.AppendIssue(nil, &v)
			rendered[is.ID] = b
			a.frags.put(fragmentKey{is.ID, format}, fragment{gen: gen, expires: expiry(is.ID, now), json: b})
		}
		for i, id := range ids {
			if parts[i] == nil {
				parts[i] = rendered[id] // nil when the issue went away meanwhile
			}
		}
	}
	bp := listBuffers.Get().(*[]byte)
	b := append((*bp)[:0], '[')
	first := true
	for _, p := range parts {
		if p == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		b, first = append(b, p...), false
	}
	b = append(b, ']', '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	if cap(b) <= 4<<20 {
		*bp = b
		listBuffers.Put(bp)
	}
	return err
}

func wireParam(r *http.Request) string { return rest.From(r).Media.Param }
