package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a webhook receiver: it keeps what it got; with hang set it
// holds every request until the test ends. Armed, it holds the next issues
// delivery until the sender hangs up, after telling held its GUID.
type recorder struct {
	srv   *httptest.Server
	hang  chan struct{}
	once  sync.Once // closes hang
	armed atomic.Bool
	held  chan string
	mu    sync.Mutex
	got   []http.Header
	body  []string
}

func newRecorder(t *testing.T, hang bool) *recorder {
	r := &recorder{held: make(chan string, 1)}
	if hang {
		r.hang = make(chan struct{})
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, req.Header.Clone())
		r.body = append(r.body, string(b))
		r.mu.Unlock()
		if req.Header.Get("X-GitHub-Event") == "issues" && r.armed.CompareAndSwap(true, false) {
			r.held <- req.Header.Get("X-GitHub-Delivery")
			<-req.Context().Done()
			return
		}
		if r.hang != nil {
			select {
			case <-r.hang:
			case <-req.Context().Done():
			}
		}
	}))
	t.Cleanup(func() {
		r.answer()
		r.srv.CloseClientConnections()
		r.srv.Close()
	})
	return r
}

// answer ends the hang: held requests and the ones after them are
// answered.
func (r *recorder) answer() {
	if r.hang != nil {
		r.once.Do(func() { close(r.hang) })
	}
}

// guids are the distinct X-GitHub-Delivery of the event's deliveries and
// how many deliveries there were.
func (r *recorder) guids(event string) (map[string]bool, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out, n := map[string]bool{}, 0
	for _, h := range r.got {
		if h.Get("X-GitHub-Event") == event {
			out[h.Get("X-GitHub-Delivery")] = true
			n++
		}
	}
	return out, n
}

func (r *recorder) wait(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
	}
}

func createHook(t *testing.T, s *running, tok, url string) int64 {
	t.Helper()
	st, _, m := s.do(t, "POST", "/api/v3/repos/mona/hooked/hooks", tok,
		fmt.Sprintf(`{"config":{"url":%q,"content_type":"json"},"events":["issues"]}`, url))
	if st != 201 {
		t.Fatalf("create hook: %d %v", st, m)
	}
	return int64(m["id"].(float64))
}

// hookedServer runs `hubd serve` (webhooks may reach this machine) with
// user mona, her token and her repository "hooked".
func hookedServer(t *testing.T) (*cli, *running, string) {
	t.Helper()
	c := newCLI(t)
	c.ok("user", "create", "--login", "mona")
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo,admin:repo_hook"))
	s := c.serve("--hook-allow", "127.0.0.0/8")
	if st, _, m := s.do(t, "POST", "/api/v3/user/repos", tok, `{"name":"hooked"}`); st != 201 {
		t.Fatalf("create repository: %d %v", st, m)
	}
	return c, s, tok
}

// TestHookDeliveryCrash kills `hubd serve` (SIGKILL) after issues were
// created and acknowledged but before their webhook deliveries went out:
// the delivery workers are held by two receivers that do not answer. After
// the restart every issue is delivered, at least once, each delivery
// recognisable by its X-GitHub-Delivery.
func TestHookDeliveryCrash(t *testing.T) {
	c, s, tok := hookedServer(t)
	recv, stuck := newRecorder(t, false), newRecorder(t, true)
	createHook(t, s, tok, recv.srv.URL+"/hook")
	recv.wait(t, "ping", func() bool { _, n := recv.guids("ping"); return n == 1 })
	// hubd serve runs two job workers: two hooks whose receiver never
	// answers hold both (each for the 10 s delivery timeout).
	createHook(t, s, tok, stuck.srv.URL+"/a")
	createHook(t, s, tok, stuck.srv.URL+"/b")
	stuck.wait(t, "the stuck pings", func() bool { _, n := stuck.guids("ping"); return n == 2 })
	const issues = 3
	for i := range issues {
		if st, _, m := s.do(t, "POST", "/api/v3/repos/mona/hooked/issues", tok, fmt.Sprintf(`{"title":"issue %d"}`, i)); st != 201 {
			t.Fatalf("create issue: %d %v", st, m)
		}
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.cmd.Wait()
	if _, n := recv.guids("issues"); n != 0 {
		t.Fatalf("%d issues deliveries went out before the kill: the crash tested nothing", n)
	}

	// The stuck receivers answer now: the jobs of the killed process are
	// taken back at once and must not hold the workers for their timeouts.
	stuck.answer()
	s = c.serve("--hook-allow", "127.0.0.0/8")
	recv.wait(t, "the issues deliveries after the restart", func() bool { g, _ := recv.guids("issues"); return len(g) == issues })
	g, n := recv.guids("issues")
	titles := map[string]bool{}
	recv.mu.Lock()
	for i, h := range recv.got {
		if h.Get("X-GitHub-Event") != "issues" {
			continue
		}
		var p struct {
			Action string `json:"action"`
			Issue  struct {
				Title string `json:"title"`
			} `json:"issue"`
		}
		if err := json.Unmarshal([]byte(recv.body[i]), &p); err != nil || p.Action != "opened" {
			t.Errorf("payload %v %.200s", err, recv.body[i])
		}
		titles[p.Issue.Title] = true
	}
	recv.mu.Unlock()
	if len(titles) != issues {
		t.Errorf("delivered titles %v", titles)
	}
	t.Logf("%d issues: %d deliveries, %d distinct X-GitHub-Delivery", issues, n, len(g))
}

// TestHookDeliveryAtMostOnce kills `hubd serve` (SIGKILL) three times
// while a webhook delivery is in flight (the receiver holds it until the
// connection drops) and issues are being opened. A delivery is recorded as
// begun before it is sent, so after each restart the one in flight is
// recorded as interrupted instead of being sent again: no delivery GUID
// reaches the receiver twice, every issue has one delivery, each either
// delivered (it arrived once) or interrupted (it arrived at most once).
// An explicit redelivery of an interrupted one sends it again, as on
// GitHub.
func TestHookDeliveryAtMostOnce(t *testing.T) {
	c, s, tok := hookedServer(t)
	recv := newRecorder(t, false)
	hook := createHook(t, s, tok, recv.srv.URL+"/hook")
	cl := &crashClient{t: t, base: s.base, token: tok}
	const kills = 3
	var held []string
	var opened atomic.Int64 // issues opened (fewer than a page of 100)
	for round := range kills {
		// Issues are opened until the kill; the receiver holds one of
		// their deliveries.
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil && opened.Load() < 90; i++ {
				if st, _ := cl.callCtx(ctx, "POST", "/api/v3/repos/mona/hooked/issues", map[string]any{"title": fmt.Sprintf("round %d issue %d", round, i)}); st == 201 {
					opened.Add(1)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		// Under way: a few of this round's deliveries arrived.
		_, before := recv.guids("issues")
		recv.wait(t, "deliveries under load", func() bool { _, n := recv.guids("issues"); return n >= before+5 })
		recv.armed.Store(true)
		select {
		case g := <-recv.held:
			held = append(held, g)
		case <-time.After(time.Minute):
			t.Fatalf("round %d: no delivery in flight within a minute", round)
		}
		s.cmd.Process.Kill()
		s.cmd.Wait()
		cancel()
		wg.Wait()
		s = c.serve("--hook-allow", "127.0.0.0/8")
		cl.base = s.base
	}

	// Every issue gets its one delivery in the log.
	var issues []map[string]any
	if st := cl.getJSON("/api/v3/repos/mona/hooked/issues?state=all&per_page=100", &issues); st != 200 || len(issues) == 0 || len(issues) == 100 {
		t.Fatalf("issues: %d, %d of them", st, len(issues))
	}
	deliveries := func() map[string]map[string]any {
		var list []map[string]any
		if st := cl.getJSON(fmt.Sprintf("/api/v3/repos/mona/hooked/hooks/%d/deliveries?per_page=100", hook), &list); st != 200 {
			t.Fatalf("deliveries: %d", st)
		}
		out := map[string]map[string]any{}
		for _, d := range list {
			if d["event"] == "issues" && !d["redelivery"].(bool) {
				out[d["guid"].(string)] = d
			}
		}
		return out
	}
	var log map[string]map[string]any
	recv.wait(t, "a delivery of every issue in the log", func() bool { log = deliveries(); return len(log) >= len(issues) })
	if len(log) != len(issues) {
		t.Fatalf("%d issues, %d deliveries", len(issues), len(log))
	}
	arrived := func() map[string]int {
		recv.mu.Lock()
		defer recv.mu.Unlock()
		n := map[string]int{}
		for _, h := range recv.got {
			if h.Get("X-GitHub-Event") == "issues" {
				n[h.Get("X-GitHub-Delivery")]++
			}
		}
		return n
	}
	got := arrived()
	interrupted := 0
	for g, d := range log {
		switch {
		case got[g] > 1:
			t.Errorf("delivery %s reached the receiver %d times", g, got[g])
		case d["status"] == "OK" && got[g] != 1:
			t.Errorf("delivery %s is OK in the log but reached the receiver %d times", g, got[g])
		case d["status"] == "the hubd process stopped during this delivery":
			interrupted++
		case d["status"] != "OK":
			t.Errorf("delivery %s: status %v", g, d["status"])
		}
	}
	for _, g := range held {
		if log[g]["status"] != "the hubd process stopped during this delivery" {
			t.Errorf("the delivery in flight at a kill, %s, is %v in the log", g, log[g]["status"])
		}
	}
	t.Logf("%d kills: %d issues, %d deliveries, %d interrupted, none sent twice", kills, len(issues), len(log), interrupted)

	// Redelivering an interrupted delivery by hand sends it again.
	id := int64(log[held[0]]["id"].(float64))
	if st, _, m := s.do(t, "POST", fmt.Sprintf("/api/v3/repos/mona/hooked/hooks/%d/deliveries/%d/attempts", hook, id), tok, ""); st != 202 {
		t.Fatalf("redeliver: %d %v", st, m)
	}
	recv.wait(t, "the redelivery", func() bool { return arrived()[held[0]] == 2 })
}

// TestServeHookAllow: without --hook-allow a hook whose name resolves to
// this machine (its host name: accepted when the hook is created, as any
// name is) is refused when its delivery connects (the check is on the
// address the name resolves to at delivery time, as against DNS
// rebinding), and shows so in the
// delivery log; a malformed --hook-allow stops hubd serve before it
// starts.
func TestServeHookAllow(t *testing.T) {
	c := newCLI(t)
	if _, errs, code := c.run("serve", "--addr", "127.0.0.1:0", "--hook-allow", "10.0.0.0/33"); code == 0 || !strings.Contains(errs, "--hook-allow") {
		t.Errorf("bad --hook-allow: exit %d: %s", code, errs)
	}
	c.ok("user", "create", "--login", "mona")
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo,admin:repo_hook"))
	s := c.serve()
	if st, _, m := s.do(t, "POST", "/api/v3/user/repos", tok, `{"name":"hooked"}`); st != 201 {
		t.Fatalf("create repository: %d %v", st, m)
	}
	recv := newRecorder(t, false)
	port := recv.srv.URL[strings.LastIndexByte(recv.srv.URL, ':')+1:]
	// The machine's own name: an ordinary name when the hook is created,
	// this machine's address (loopback or private) when it is delivered.
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := net.LookupHost(host)
	if err != nil || len(addrs) == 0 {
		t.Fatalf("this machine's name %q does not resolve: %v", host, err)
	}
	for _, a := range addrs {
		if ip, _ := netip.ParseAddr(a); ip.IsGlobalUnicast() && !ip.IsPrivate() {
			t.Fatalf("this machine's name %q resolves to the public address %s", host, a)
		}
	}
	id := createHook(t, s, tok, "http://"+host+":"+port+"/hook")
	path := fmt.Sprintf("/api/v3/repos/mona/hooked/hooks/%d", id)
	var last map[string]any
	recv.wait(t, "the ping's failure", func() bool {
		_, _, last = s.get(t, path, tok)
		lr, _ := last["last_response"].(map[string]any)
		return lr != nil && lr["message"] != nil && lr["message"] != ""
	})
	lr := last["last_response"].(map[string]any)
	if msg, _ := lr["message"].(string); !strings.Contains(msg, "not allowed") {
		t.Errorf("last_response %v", lr)
	}
	if _, n := recv.guids("ping"); n != 0 {
		t.Errorf("a refused address got %d pings", n)
	}
}
