package store

import (
	"errors"
	"sync"
)

// flights lets concurrent identical reads that missed the read cache share
// one load: when a cached list expires under load, every connection asking
// for it would otherwise run the same query at once, each slower for the
// others. A load is shared only by callers that start it at the same write
// generation (a caller arriving after a commit starts its own, and never
// sees a result older than its own view); a failed load (the leader's
// request cancelled, say) is not shared: each waiting caller loads for
// itself.
type flights struct {
	mu sync.Mutex
	m  map[flightKey]*flight
}

// listFlights serves ListRepos; its keys name their store.
var listFlights flights

type flightKey struct {
	s   *Store
	key any
	gen uint64
}

// errFlightAborted is a load that ended without a result (a panic).
var errFlightAborted = errors.New("store: shared load aborted")

type flight struct {
	done    chan struct{}
	val     any
	err     error
	waiters int // callers waiting for it (under flights.mu)
}

// do runs load once for key at generation gen among concurrent callers and
// gives each of them its result; shared reports whether it came from
// another caller's load (the caller must then copy what it changes).
func (f *flights) do(s *Store, key any, gen uint64, load func() (any, error)) (val any, shared bool, err error) {
	k := flightKey{s, key, gen}
	f.mu.Lock()
	if f.m == nil {
		f.m = map[flightKey]*flight{}
	}
	if fl, ok := f.m[k]; ok {
		fl.waiters++
		f.mu.Unlock()
		<-fl.done
		if fl.err == nil {
			return fl.val, true, nil
		}
		v, err := load()
		return v, false, err
	}
	fl := &flight{done: make(chan struct{}), err: errFlightAborted}
	f.m[k] = fl
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.m, k)
		f.mu.Unlock()
		close(fl.done)
	}()
	fl.val, fl.err = load()
	return fl.val, false, fl.err
}

// waiting is how many callers wait for the load of key at gen.
func (f *flights) waiting(s *Store, key any, gen uint64) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl, ok := f.m[flightKey{s, key, gen}]; ok {
		return fl.waiters
	}
	return 0
}
