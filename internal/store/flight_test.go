package store

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Callers of one key at one generation share a load; another generation
// loads apart; a failed load is not shared, each waiting caller loads for
// itself.
func TestFlightsShareOneLoad(t *testing.T) {
	var f flights
	s := &Store{}
	var loads atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{})
	const callers = 8
	var wg sync.WaitGroup
	results := make([]any, callers)
	sharedN := atomic.Int32{}
	// The first caller leads and waits until the others have joined.
	wg.Add(1)
	go func() {
		defer wg.Done()
		v, shared, err := f.do(s, "k", 1, func() (any, error) {
			loads.Add(1)
			close(started)
			<-release
			return "page", nil
		})
		if err != nil || shared {
			t.Errorf("leader: %v %v", shared, err)
		}
		results[0] = v
	}()
	<-started
	for i := 1; i < callers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, shared, err := f.do(s, "k", 1, func() (any, error) { loads.Add(1); return "own", nil })
			if err != nil {
				t.Error(err)
			}
			if shared {
				sharedN.Add(1)
			}
			results[i] = v
		}()
	}
	// Another generation (a write committed) does not wait for the first.
	if v, shared, err := f.do(s, "k", 2, func() (any, error) { loads.Add(1); return "newer", nil }); v != "newer" || shared || err != nil {
		t.Fatalf("generation 2: %v %v %v", v, shared, err)
	}
	// Let the followers reach the wait before the leader finishes: they
	// either share its result or, if they came after it ended, load
	// themselves; either way each gets a page.
	for f.waiting(s, "k", 1) < callers-1 {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	for i, v := range results {
		if v != "page" {
			t.Errorf("caller %d got %v", i, v)
		}
	}
	if loads.Load() != 2 || sharedN.Load() != callers-1 {
		t.Fatalf("%d loads, %d shared", loads.Load(), sharedN.Load())
	}

	// A failed load is the leader's alone.
	boom := errors.New("cancelled")
	started2 := make(chan struct{})
	release2 := make(chan struct{})
	var got any
	var gotErr error
	done := make(chan struct{})
	go func() {
		_, _, gotErr = f.do(s, "e", 1, func() (any, error) { close(started2); <-release2; return nil, boom })
		close(done)
	}()
	<-started2
	follower := make(chan struct{})
	go func() {
		got, _, _ = f.do(s, "e", 1, func() (any, error) { return "retried", nil })
		close(follower)
	}()
	for f.waiting(s, "e", 1) < 1 {
		runtime.Gosched()
	}
	close(release2)
	<-done
	<-follower
	if !errors.Is(gotErr, boom) || got != "retried" {
		t.Fatalf("leader %v, follower %v", gotErr, got)
	}
}
