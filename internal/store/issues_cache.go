package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/hubd/hubd/internal/model"
)

// The small, hot rows every issue object shows — accounts, labels,
// milestones and authors' associations — go through the read cache: an
// entry is good until the next committed write (or for two seconds), so a
// page of issues costs its issue and link rows plus whatever changed. The
// values are shared: callers must not modify them.

type (
	accountKey   int64
	labelKey     int64
	milestoneKey int64
	assocKey     struct{ repo, user int64 }
	issueKey     int64 // an issue with its details
	issueTypeKey int64 // an issue's type (nil: none)
	pullCountKey int64 // a repository's open and closed pull request counts
	// issuePageKey is a page of a repository's default issue list.
	issuePageKey struct {
		repo          int64
		state         string
		noPulls, desc bool
		limit, offset int
	}
)

// issuePage is a page of issue ids and the list's total.
type issuePage struct {
	ids   []int64
	total int
}

// issueFlights lets concurrent requests that miss the read cache for the
// same page, or the same issues, share one load (every entry of a hot page
// expires at once, and every connection asking would otherwise load it).
var issueFlights flights

// sharedLoad runs load once among the concurrent callers of key outside
// transactions (in one, it just runs it).
func sharedLoad[V any](q Q, key any, load func() (V, error)) (V, error) {
	if q.tx != nil {
		return load()
	}
	v, _, err := issueFlights.do(q.s, key, q.s.cache.gen.Load(), func() (any, error) { return load() })
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}

// cachedIssuePage is listIssueIDs of a simple query through the read cache.
// The ids are the caller's to change.
func (q Q) cachedIssuePage(ctx context.Context, f IssueQuery) ([]int64, int, error) {
	k := issuePageKey{repo: f.RepoID, state: f.State, noPulls: f.NoPulls, desc: f.Desc, limit: f.Limit, offset: f.Offset}
	load := func() (map[issuePageKey]issuePage, error) {
		return cachedBatch(q, []issuePageKey{k}, func([]issuePageKey) (map[issuePageKey]issuePage, error) {
			ids, total, err := q.listIssueIDs(ctx, f)
			if err != nil {
				return nil, err
			}
			return map[issuePageKey]issuePage{k: {ids, total}}, nil
		})
	}
	if q.tx == nil {
		if v, _, ok := q.s.cache.get(k); ok {
			p := v.(issuePage)
			return slices.Clone(p.ids), p.total, nil
		}
	}
	got, err := sharedLoad(q, k, load)
	if err != nil {
		return nil, 0, err
	}
	p := got[k]
	return slices.Clone(p.ids), p.total, nil
}

// cachedBatch returns the values of keys, from the cache where it can
// (outside transactions) and from load for the rest, which it caches.
func cachedBatch[K comparable, V any](q Q, keys []K, load func(missing []K) (map[K]V, error)) (map[K]V, error) {
	out := make(map[K]V, len(keys))
	var missing []K
	seen := make(map[K]bool, len(keys))
	var gen uint64
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if q.tx == nil {
			v, g, ok := q.s.cache.get(k)
			gen = g
			if ok {
				out[k] = v.(V)
				continue
			}
		}
		missing = append(missing, k)
	}
	if len(missing) == 0 {
		return out, nil
	}
	if q.tx == nil {
		gen = q.s.cache.gen.Load() // before loading: a write meanwhile makes the entries stale
	}
	for start := 0; start < len(missing); start += 100 {
		got, err := load(missing[start:min(start+100, len(missing))])
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			out[k] = v
			if q.tx == nil {
				q.s.cache.put(k, gen, v)
			}
		}
	}
	return out, nil
}

func keyIDs[K ~int64](keys []K) []int64 {
	out := make([]int64, len(keys))
	for i, k := range keys {
		out[i] = int64(k)
	}
	return out
}

// cachedAccounts loads slim accounts by id.
func (q Q) cachedAccounts(ctx context.Context, ids []int64) (map[int64]*model.Account, error) {
	keys := make([]accountKey, 0, len(ids))
	for _, id := range ids {
		if id != 0 {
			keys = append(keys, accountKey(id))
		}
	}
	got, err := cachedBatch(q, keys, func(missing []accountKey) (map[accountKey]*model.Account, error) {
		accs, err := q.slimAccounts(ctx, keyIDs(missing))
		if err != nil {
			return nil, err
		}
		out := make(map[accountKey]*model.Account, len(accs))
		for id, a := range accs {
			out[accountKey(id)] = a
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*model.Account, len(got))
	for k, v := range got {
		out[int64(k)] = v
	}
	return out, nil
}

// cachedLabels loads labels by id.
func (q Q) cachedLabels(ctx context.Context, ids []int64) (map[int64]*model.Label, error) {
	keys := make([]labelKey, len(ids))
	for i, id := range ids {
		keys[i] = labelKey(id)
	}
	got, err := cachedBatch(q, keys, func(missing []labelKey) (map[labelKey]*model.Label, error) {
		in, args := inList(keyIDs(missing))
		list, err := q.labels(ctx, `SELECT `+labelCols+` FROM labels l WHERE l.id IN (`+in+`)`, args...)
		if err != nil {
			return nil, err
		}
		out := make(map[labelKey]*model.Label, len(list))
		for _, l := range list {
			out[labelKey(l.ID)] = l
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*model.Label, len(got))
	for k, v := range got {
		out[int64(k)] = v
	}
	return out, nil
}

// cachedMilestones loads milestones (with their creators) by id.
func (q Q) cachedIssueTypes(ctx context.Context, issueIDs []int64) (map[int64]*model.IssueType, error) {
	keys := make([]issueTypeKey, len(issueIDs))
	for i, id := range issueIDs {
		keys[i] = issueTypeKey(id)
	}
	got, err := cachedBatch(q, keys, func(missing []issueTypeKey) (map[issueTypeKey]*model.IssueType, error) {
		types, err := q.IssueTypesOf(ctx, keyIDs(missing))
		if err != nil {
			return nil, err
		}
		out := make(map[issueTypeKey]*model.IssueType, len(missing))
		for _, k := range missing {
			out[k] = types[int64(k)] // nil too: most issues have no type
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*model.IssueType, len(got))
	for k, v := range got {
		if v != nil {
			out[int64(k)] = v
		}
	}
	return out, nil
}

func (q Q) cachedMilestones(ctx context.Context, ids []int64) (map[int64]*model.Milestone, error) {
	keys := make([]milestoneKey, len(ids))
	for i, id := range ids {
		keys[i] = milestoneKey(id)
	}
	got, err := cachedBatch(q, keys, func(missing []milestoneKey) (map[milestoneKey]*model.Milestone, error) {
		ms, err := q.milestonesByID(ctx, keyIDs(missing))
		if err != nil {
			return nil, err
		}
		out := make(map[milestoneKey]*model.Milestone, len(ms))
		for id, m := range ms {
			out[milestoneKey(id)] = m
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*model.Milestone, len(got))
	for k, v := range got {
		out[int64(k)] = v
	}
	return out, nil
}

// associations computes author_association for (repository, user) pairs:
// one query per repository for the users missing from the cache.
func (q Q) associations(ctx context.Context, pairs []assocKey) (map[assocKey]string, error) {
	return cachedBatch(q, pairs, func(missing []assocKey) (map[assocKey]string, error) {
		byRepo := map[int64][]int64{}
		for _, k := range missing {
			byRepo[k.repo] = append(byRepo[k.repo], k.user)
		}
		out := make(map[assocKey]string, len(missing))
		for repo, users := range byRepo {
			in, args := inList(users)
			rows, err := q.query(ctx, `SELECT a.id, `+association("a.id")+` FROM accounts a JOIN repos r ON r.id = ?
 WHERE a.id IN (`+in+`)`, append([]any{repo}, args...)...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var id int64
				var assoc string
				if err := rows.Scan(&id, &assoc); err != nil {
					rows.Close()
					return nil, err
				}
				out[assocKey{repo, id}] = assoc
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

// DetailedIssues loads issues by id, in the order of ids (missing ones are
// left out), with what IssueDetails loads (closedBy false), through the
// read cache: a page of a list whose ids a query found costs nothing more
// while no write commits. The issues are shared: callers must not modify
// them.
func (q Q) DetailedIssues(ctx context.Context, ids []int64) ([]*model.Issue, error) {
	// A hot page finds every issue in the cache: no maps on that path.
	out := make([]*model.Issue, len(ids))
	var keys []issueKey
	for i, id := range ids {
		if q.tx == nil {
			if v, _, ok := q.s.cache.get(issueKey(id)); ok {
				out[i] = v.(*model.Issue)
				continue
			}
		}
		keys = append(keys, issueKey(id))
	}
	if len(keys) == 0 {
		return out, nil
	}
	// The flight's key is the list of missing ids.
	fk := make([]byte, 0, 8*len(keys))
	for _, k := range keys {
		fk = binary.LittleEndian.AppendUint64(fk, uint64(k))
	}
	got, err := sharedLoad(q, issuesFlight(fk), func() (map[issueKey]*model.Issue, error) {
		return cachedBatch(q, keys, func(missing []issueKey) (map[issueKey]*model.Issue, error) {
			return q.loadDetailed(ctx, missing)
		})
	})
	if err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, is := range out {
		if is == nil {
			is = got[issueKey(ids[i])]
		}
		if is != nil {
			kept = append(kept, is)
		}
	}
	return kept, nil
}

// issuesFlight names a load of issues by their ids.
type issuesFlight string

// loadDetailed loads issues with their details, by id.
func (q Q) loadDetailed(ctx context.Context, missing []issueKey) (map[issueKey]*model.Issue, error) {
	list, err := q.IssuesByID(ctx, keyIDs(missing))
	if err != nil {
		return nil, err
	}
	if err := q.IssueDetails(ctx, list, false); err != nil {
		return nil, err
	}
	out := make(map[issueKey]*model.Issue, len(list))
	for _, is := range list {
		out[issueKey(is.ID)] = is
	}
	return out, nil
}

// pullCounts is a repository's open and closed pull request counts (from
// its counters, through the read cache).
func (q Q) pullCounts(ctx context.Context, repoID int64) ([2]int, error) {
	k := pullCountKey(repoID)
	got, err := cachedBatch(q, []pullCountKey{k}, func([]pullCountKey) (map[pullCountKey][2]int, error) {
		var c [2]int
		err := q.row(ctx, `SELECT open_pulls, closed_pulls FROM issue_counters WHERE repo_id = ?`, repoID).Scan(&c[0], &c[1])
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return map[pullCountKey][2]int{k: c}, nil
	})
	return got[k], err
}

// WriteGen is the store's write generation: it changes whenever a write
// transaction commits in this process. Caches of values read from the
// store stay valid while it does not (and, for writes of other processes,
// for a short while; on PostgreSQL the writes of other nodes change it too,
// see cluster.go). While the cache is off every call gives a new value.
func (s *Store) WriteGen() uint64 {
	if s.cache.answersNothing() {
		return s.cache.gen.Add(1)
	}
	return s.cache.gen.Load()
}
