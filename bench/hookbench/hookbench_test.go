// Package hookbench measures webhook deliveries (run by bench/hooks.sh):
// the time from a write over the API to its delivery's arrival at a local
// receiver, and the fan-out of a burst of outbox events to ten hooks.
package hookbench

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// receiver counts deliveries and remembers when each issue's arrived.
type receiver struct {
	n       atomic.Int64
	arrived chan string
	url     string
}

func newReceiver(b *testing.B) *receiver {
	r := &receiver{arrived: make(chan string, 100000)}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.n.Add(1)
		select {
		case r.arrived <- req.Header.Get("X-GitHub-Event"):
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	ln := listen(b)
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	r.url = "http://" + ln.Addr().String() + "/hook"
	return r
}

func setup(b *testing.B, hooks int) (*apitest.Env, string, []*receiver) {
	b.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8")
	e := apitest.New(b, apitest.Options{NoVerify: true})
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "app"})
	var rs []*receiver
	for range hooks {
		r := newReceiver(b)
		e.Must(201, "POST", "/repos/mona/app/hooks", tok, map[string]any{"config": map[string]any{"url": r.url, "content_type": "json", "secret": "s"}, "events": []string{"issues"}})
		rs = append(rs, r)
		waitFor(b, r, "ping")
	}
	return e, tok, rs
}

func waitFor(b *testing.B, r *receiver, event string) {
	deadline := time.After(time.Minute)
	for {
		select {
		case ev := <-r.arrived:
			if ev == event {
				return
			}
		case <-deadline:
			b.Fatalf("no %s delivery within a minute", event)
		}
	}
}

// BenchmarkDeliveryLatency: one issue opened over the API, then the wait
// until its issues delivery arrives. ms/op is the mean; p50 and p99 are
// reported beside it.
func BenchmarkDeliveryLatency(b *testing.B) {
	e, tok, rs := setup(b, 1)
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		e.Must(201, "POST", "/repos/mona/app/issues", tok, map[string]any{"title": fmt.Sprintf("issue %d", i)})
		waitFor(b, rs[0], "issues")
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkFanOut: 1,000 issues events committed at once (one transaction
// of the outbox), each delivered to ten hooks: the time until all 10,000
// deliveries arrived. The target of issue 13 is under 10 s.
func BenchmarkFanOut(b *testing.B) {
	const events, hooks = 1000, 10
	e, tok, rs := setup(b, hooks)
	r := e.Must(201, "POST", "/repos/mona/app/issues", tok, map[string]any{"title": "fan-out"})
	body := string(r.Body)
	id := field(body, `"id":`)
	number := field(body, `"number":`)
	for _, rc := range rs {
		waitFor(b, rc, "issues")
	}
	v, err := e.Store.R().RepoByName(ctx, "mona", "app", 0)
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for b.Loop() {
		before := int64(0)
		for _, rc := range rs {
			before += rc.n.Load()
		}
		start := time.Now()
		err := e.Store.Tx(ctx, func(tx store.Q) error {
			for range events {
				if err := tx.AppendEvent(ctx, "issues.opened", v.Repo.OwnerID, v.Repo.ID, 0,
					map[string]any{"action": "opened", "issue_id": id, "number": number}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		queued := time.Duration(0)
		for {
			if queued == 0 {
				if p, d, err := e.Store.R().HookDeliveryCounts(ctx); err == nil && p+d >= int(before)+events*hooks {
					queued = time.Since(start)
				}
			}
			got := int64(0)
			for _, rc := range rs {
				got += rc.n.Load()
			}
			if got-before >= events*hooks {
				break
			}
			if time.Now().After(deadline) {
				p, d, _ := e.Store.R().HookDeliveryCounts(ctx)
				jc, _ := e.Store.R().JobCounts(ctx)
				b.Fatalf("%d of %d deliveries after a minute (deliveries pending %d, made %d; jobs %v)", got-before, events*hooks, p, d, jc)
			}
			time.Sleep(5 * time.Millisecond)
		}
		total += time.Since(start)
		b.Logf("dispatched (all deliveries queued) after %v, delivered after %v", queued, time.Since(start))
		for _, rc := range rs {
			for len(rc.arrived) > 0 {
				<-rc.arrived
			}
		}
	}
	b.ReportMetric(float64(events*hooks*b.N)/total.Seconds(), "deliveries/s")
	b.ReportMetric(total.Seconds()/float64(b.N), "s/burst")
}

func field(body, key string) int64 {
	i := strings.Index(body, key)
	var n int64
	fmt.Sscanf(body[i+len(key):], "%d", &n)
	return n
}
