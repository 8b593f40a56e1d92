// Package hookstest helps tests of webhooks: a receiver that records what
// hubd delivers, and the validation of a delivered payload against GitHub's
// webhooks description (@octokit/openapi-webhooks, the GHES 3.19 flavour
// hubd answers as), the schema of the payload's event and action.
package hookstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/hubd/hubd/internal/apitest"
)

// Schemas are the webhook payload schemas by event and action
// ("issues/opened", "push").
type Schemas struct {
	byOp map[string]*openapi3.Schema
}

var (
	mu     sync.Mutex
	loaded = map[string]*Schemas{}
)

// Load reads the description once per test binary. A missing package is a
// failure: `make deps` installs it.
func Load() (*Schemas, error) { return LoadFlavour("ghes-3.19") }

// LoadFlavour reads one flavour of the description ("ghes-3.19",
// "api.github.com"), for events GHES does not send (repository_advisory).
func LoadFlavour(flavour string) (*Schemas, error) {
	mu.Lock()
	defer mu.Unlock()
	if s := loaded[flavour]; s != nil {
		return s, nil
	}
	path := filepath.Join(apitest.Root(), "node_modules", "@octokit", "openapi-webhooks", "generated", flavour+".json")
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s (run `make deps`): %w", path, err)
	}
	s := &Schemas{byOp: map[string]*openapi3.Schema{}}
	for _, item := range doc.Webhooks {
		op := item.Post
		if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
			continue
		}
		mt := op.RequestBody.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		s.byOp[op.OperationID] = mt.Schema.Value
		nullableAllOf(mt.Schema.Value, map[*openapi3.Schema]bool{})
	}
	if len(s.byOp) == 0 {
		return nil, fmt.Errorf("%s holds no webhook schemas", path)
	}
	loaded[flavour] = s
	return s, nil
}

// nullableAllOf repairs what the description's conversion to OpenAPI 3.1
// made of a nullable reference ({"allOf": [ref], "nullable": true}): type
// ["null"] beside the allOf, which only null could satisfy. It is read as
// meant: the reference, or null.
func nullableAllOf(sc *openapi3.Schema, seen map[*openapi3.Schema]bool) {
	if sc == nil || seen[sc] {
		return
	}
	seen[sc] = true
	if sc.Type != nil && len(*sc.Type) == 1 && sc.Type.Is("null") && len(sc.AllOf) > 0 {
		sc.Type, sc.Nullable = nil, true
	}
	for _, list := range []openapi3.SchemaRefs{sc.AllOf, sc.AnyOf, sc.OneOf} {
		for _, r := range list {
			nullableAllOf(r.Value, seen)
		}
	}
	for _, r := range sc.Properties {
		nullableAllOf(r.Value, seen)
	}
	if sc.Items != nil {
		nullableAllOf(sc.Items.Value, seen)
	}
}

// opID is the description's operation id of an event and action:
// "pull_request"+"opened" is "pull-request/opened".
func opID(event, action string) string {
	id := strings.ReplaceAll(event, "_", "-")
	if action != "" {
		id += "/" + strings.ReplaceAll(action, "_", "-")
	}
	return id
}

// Validate checks a payload of event (X-GitHub-Event) against its schema;
// the action comes from the payload.
func (s *Schemas) Validate(event string, body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("%s payload is not JSON: %w", event, err)
	}
	action := ""
	if m, ok := v.(map[string]any); ok {
		action, _ = m["action"].(string)
	}
	sch := s.byOp[opID(event, action)]
	if sch == nil && action != "" {
		sch = s.byOp[opID(event, "")]
	}
	if sch == nil {
		return fmt.Errorf("GitHub's webhooks description has no schema for %s %s", event, action)
	}
	if err := sch.VisitJSON(v, openapi3.MultiErrors(), openapi3.EnableFormatValidation()); err != nil {
		return fmt.Errorf("%s %s payload: %w", event, action, err)
	}
	return nil
}

// Delivery is one request the receiver got.
type Delivery struct {
	Header http.Header
	Body   []byte
	// Payload is the JSON payload (decoded from payload= for form
	// deliveries).
	Payload []byte
}

// Event is X-GitHub-Event, Action the payload's action.
func (d *Delivery) Event() string { return d.Header.Get("X-GitHub-Event") }

// Action is the payload's action ("" when it has none).
func (d *Delivery) Action() string {
	var m struct {
		Action string `json:"action"`
	}
	json.Unmarshal(d.Payload, &m)
	return m.Action
}

// Map decodes the payload.
func (d *Delivery) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(d.Payload, &m); err != nil {
		t.Fatalf("payload: %v", err)
	}
	return m
}

// Receiver is a local HTTP receiver of deliveries. Status is what it
// answers (200 unless set).
type Receiver struct {
	URL string
	srv *httptest.Server

	mu     sync.Mutex
	got    []*Delivery
	status int
	notify chan struct{}
}

// NewReceiver starts a receiver, closed when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	r := &Receiver{status: http.StatusOK, notify: make(chan struct{}, 1)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = r.srv.URL + "/hook"
	t.Cleanup(r.srv.Close)
	return r
}

// SetStatus makes the receiver answer status from now on.
func (r *Receiver) SetStatus(status int) {
	r.mu.Lock()
	r.status = status
	r.mu.Unlock()
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	d := &Delivery{Header: req.Header.Clone(), Body: body, Payload: body}
	if strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if v, err := url.ParseQuery(string(body)); err == nil {
			d.Payload = []byte(v.Get("payload"))
		}
	}
	r.mu.Lock()
	r.got = append(r.got, d)
	status := r.status
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	w.Header().Set("X-Receiver", "hookstest")
	w.WriteHeader(status)
	fmt.Fprintf(w, "got %s", req.Header.Get("X-GitHub-Delivery"))
}

// All is every delivery received so far, in order.
func (r *Receiver) All() []*Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Delivery(nil), r.got...)
}

// WaitFor waits until a delivery matches (event, and action unless ""),
// failing the test after a minute. It returns the first match.
func (r *Receiver) WaitFor(t testing.TB, event, action string) *Delivery {
	t.Helper()
	return r.Wait(t, event+" "+action, func(d *Delivery) bool {
		return d.Event() == event && (action == "" || d.Action() == action)
	})
}

// Wait waits until a delivery satisfies match, failing after a minute.
func (r *Receiver) Wait(t testing.TB, what string, match func(*Delivery) bool) *Delivery {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, d := range r.All() {
			if match(d) {
				return d
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			var seen []string
			for _, d := range r.All() {
				seen = append(seen, d.Event()+" "+d.Action())
			}
			t.Fatalf("no delivery of %s within a minute; got %v", what, seen)
		}
		select {
		case <-r.notify:
		case <-time.After(min(left, 100*time.Millisecond)):
		}
	}
}

// Count is how many deliveries of event (any action when "") arrived.
func (r *Receiver) Count(event, action string) int {
	n := 0
	for _, d := range r.All() {
		if d.Event() == event && (action == "" || d.Action() == action) {
			n++
		}
	}
	return n
}

// Drain waits until no delivery job is due or running in env (the
// outbox dispatcher has handled everything before it returns too).
func Drain(t testing.TB, e *apitest.Env) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		counts, err := e.Store.R().JobCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if counts["running"] == 0 {
			// Pending jobs that are not due (a failed delivery's retry
			// waits for its backoff) do not hold the drain.
			next, err := e.Store.R().NextJobAt(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if counts["pending"] == 0 || next.After(e.Store.Now()) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs still queued after a minute: %v", counts)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Equal reports whether two JSON documents are equal.
func Equal(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
