package store

import (
	"context"

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
)

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

// WriteGen is the store's write generation: it changes whenever a write
// transaction commits in this process. Caches of values read from the
// store stay valid while it does not (and, for writes of other processes,
// for a short while).
func (s *Store) WriteGen() uint64 { return s.cache.gen.Load() }
