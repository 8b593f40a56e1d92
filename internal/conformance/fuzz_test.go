package conformance

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/rest"
)

// trace logs every request before it is sent (CONFORMANCE_TRACE=1 go test -v).
var trace = os.Getenv("CONFORMANCE_TRACE") != ""

// variant is one bad request of an operation.
type variant struct {
	kind  string // "body:title:nul", "path:owner:dotdot", "query:page:-1", ...
	path  string // escaped
	query string // escaped
	body  []byte // nil: none
}

// TestNegativeFuzz sends every registered operation malformed bodies,
// wrong types, oversized and control-character strings, and hostile path
// and query values, and checks every answer: never a 5xx, an error is
// GitHub's error JSON, and a refused write changes neither the database nor
// any repository's refs. The variants come from the route table and each
// operation's request schema in GitHub's description, so an operation added
// later is fuzzed without code of its own.
func TestNegativeFuzz(t *testing.T) {
	w := newWorld(t)
	start := time.Now()
	w.e.NewUser("victim", false)
	w.e.Must(201, "POST", "/admin/organizations", w.e.AdminToken, map[string]any{"login": "victim-org", "admin": "alice"})

	// Deletions run last, so the fixtures the other operations address
	// are still there if a variant is accepted.
	routes := append([]*rest.Route(nil), w.e.Server.Routes()...)
	sort.SliceStable(routes, func(i, j int) bool {
		return routes[i].Method != "DELETE" && routes[j].Method == "DELETE"
	})
	fp := w.fingerprint()
	// Control: an accepted write shows in the fingerprint, in its table and
	// in the repository's refs, so an unchanged fingerprint means something.
	pub := w.repos["alice/pub"]
	w.e.Must(201, "POST", "/repos/alice/pub/labels", w.aliceTok, map[string]any{"name": "control", "color": "ededed"})
	w.e.Must(201, "POST", "/repos/alice/pub/git/refs", w.aliceTok, map[string]any{"ref": "refs/heads/control", "sha": pub.commit})
	after := w.fingerprint()
	if d := fp.diff(after); !strings.Contains(d, "labels") || !strings.Contains(d, "git:") {
		t.Fatalf("control: a new label and branch changed %q of the fingerprint", d)
	}
	fp = after
	fails, fingerprints := 0, 0
	statuses := map[int]int{}
	var accepted []string
	for _, rt := range routes {
		tok := w.aliceTok
		tg := target{repo: w.repos["alice/pub"], org: w.org, username: "bob"}
		if strings.HasPrefix(rt.Pattern, "/admin/") {
			tok, tg.org, tg.username = w.e.AdminToken, "victim-org", "victim"
		}
		for _, v := range w.variants(rt, tg) {
			if known("fuzz", rt.OperationID, v.kind, "hang") {
				// Not sent: the handler would hold its connection (and the
				// repository's git process) forever.
				t.Logf("known failure, not sent: %s %s %s hangs", rt.Method, rt.Pattern, v.kind)
				continue
			}
			if trace {
				t.Logf("%s %s %s", rt.Method, rt.Pattern, v.kind)
			}
			r := w.do(rt.Method, v.path, v.query, tok, v.body)
			statuses[r.status]++
			if isWrite(rt.Method) && r.status < 300 {
				// Not a failure by itself (GitHub ignores what it does not
				// know, and trims some text), but worth a look: listed.
				accepted = append(accepted, rt.OperationID+" "+v.kind)
			}
			report := func(check, format string, args ...any) {
				msg := fmt.Sprintf("%s %s [%s] %s %s: %s", rt.Method, rt.Pattern, rt.OperationID, v.kind, check, fmt.Sprintf(format, args...))
				if known("fuzz", rt.OperationID, v.kind, check) {
					t.Logf("known failure: %s", msg)
					return
				}
				fails++
				if fails <= 200 {
					t.Error(msg)
				}
			}
			if r.status == 0 {
				report("hang", "no answer in %v", w.http.Timeout)
			} else if r.status >= 500 {
				report("5xx", "status %d: %.300s", r.status, r.body)
			} else if why := errorShape(r); why != "" {
				report("shape", "status %d: %s", r.status, why)
			}
			if isWrite(rt.Method) {
				after := w.fingerprint()
				fingerprints++
				if r.status >= 300 {
					if d := fp.diff(after); d != "" {
						report("state", "refused with %d but changed %s: %.200s", r.status, d, r.body)
					}
				}
				fp = after
			}
		}
		if !isWrite(rt.Method) {
			// Reads must not write (the traffic counters aside).
			after := w.fingerprint()
			fingerprints++
			if d := fp.diff(after); d != "" {
				if !known("fuzz", rt.OperationID, "read", "state") {
					fails++
					t.Errorf("%s %s [%s]: reads changed %s", rt.Method, rt.Pattern, rt.OperationID, d)
				}
			}
			fp = after
		}
	}
	if fails > 200 {
		t.Errorf("... %d failures in all", fails)
	}
	checkKnownUsed(t, "fuzz")
	t.Logf("fuzz: answers by status: %v", statuses)
	t.Logf("fuzz: %d writes accepted a variant: %s", len(accepted), trunc(strings.Join(accepted, "; "), 3000))
	t.Logf("fuzz: %d operations, %d requests, %d fingerprints in %v", len(routes), w.sent.Load(), fingerprints, time.Since(start).Round(time.Millisecond))
}

// variants are the bad requests of one route.
func (w *world) variants(rt *rest.Route, tg target) []variant {
	op := w.operation(rt)
	schema := bodySchema(op)
	var base map[string]any
	var baseJSON []byte
	if schema != nil {
		base = w.object(schema, tg, 1)
		baseJSON = mustJSON(base)
	}
	path := w.path(rt, tg, "", "")
	var out []variant

	// Bodies that are not the object the operation takes.
	if schema != nil {
		for _, b := range []struct{ kind, body string }{
			{"malformed", `{"zq": `}, {"array", `[]`}, {"string", `"zq"`}, {"null", `null`}, {"number", `12`}, {"empty", ``},
		} {
			out = append(out, variant{kind: "body:" + b.kind, path: path, body: []byte(b.body)})
		}
		ps := props(schema)
		for _, name := range sortedKeys(ps) {
			for _, m := range w.mutations(ps[name], tg, 1) {
				b := map[string]any{}
				for k, v := range base {
					b[k] = v
				}
				b[name] = m.value
				out = append(out, variant{kind: "body:" + name + ":" + m.kind, path: path, body: mustJSON(b)})
			}
		}
	}

	// Hostile path parameters (already escaped: %00 is a NUL byte in the
	// parameter, %2500 the text "%00").
	for _, p := range params(rt.Pattern) {
		val := url.PathEscape(w.fill(rt, p, tg))
		vals := []struct{ kind, seg string }{
			{"nul", val + "%00"}, {"control", "%01" + val + "%1B"}, {"dotdot", ".."}, {"slash", val + "%2F.."},
			{"pct00", "%2500"}, {"long", long}, {"dot", "."},
		}
		if strings.HasSuffix(p, "...") {
			vals = append(vals, struct{ kind, seg string }{"traverse", val + "/..%2F..%2F..%2Fetc%2Fpasswd"})
		}
		for _, pv := range vals {
			out = append(out, variant{kind: "path:" + p + ":" + pv.kind, path: w.path(rt, tg, p, pv.seg), body: baseJSON})
		}
	}

	// Absurd query values for every declared query parameter.
	if op != nil {
		for _, pr := range op.Parameters {
			if pr.Value == nil || pr.Value.In != "query" {
				continue
			}
			for _, q := range []struct{ kind, val string }{
				{"-1", "-1"}, {"0", "0"}, {"huge", "99999999999999999999"}, {"abc", "abc"}, {"nul", "a\x00b"},
				{"control", "\x01\x1b"}, {"long", long}, {"array", "x"},
			} {
				qs := url.Values{pr.Value.Name: {q.val}}
				if q.kind == "array" {
					qs = url.Values{pr.Value.Name + "[]": {"x"}, pr.Value.Name: {"1", "2"}}
				}
				out = append(out, variant{kind: "query:" + pr.Value.Name + ":" + q.kind, path: path, query: qs.Encode(), body: baseJSON})
			}
		}
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
