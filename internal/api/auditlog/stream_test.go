package auditlog_test

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// An HTTPS Event Collector stream gets the entries recorded after its
// creation, signed with its token, through the job queue; pausing stops
// it, and the configuration operations answer GitHub's shapes.
func TestAuditLogStream(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8")
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	admin := e.Token(e.Admin, "admin:enterprise")
	b := "/enterprises/hubd/audit-log/"

	var mu sync.Mutex
	var got []map[string]any
	var bad []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m := hmac.New(sha256.New, []byte("hec-token"))
		m.Write(body)
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/collect" || r.Header.Get("Authorization") != "Splunk hec-token" ||
			r.Header.Get("X-Hub-Signature-256") != "sha256="+hex.EncodeToString(m.Sum(nil)) {
			bad = append(bad, r.URL.Path+" "+r.Header.Get("Authorization"))
		}
		sc := bufio.NewScanner(bytes.NewReader(body))
		for sc.Scan() {
			var ev struct {
				Event map[string]any `json:"event"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				bad = append(bad, sc.Text())
			}
			got = append(got, ev.Event)
		}
		w.WriteHeader(200)
	}))
	defer srv.Close()
	host, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	portN, _ := strconv.Atoi(port)

	var key map[string]string
	e.Must(200, "GET", b+"stream-key", admin, nil).JSON(t, &key)
	if key["key_id"] == "" || key["key"] == "" {
		t.Fatalf("stream key = %v", key)
	}
	sealed := seal(t, &github.PublicKey{KeyID: github.Ptr(key["key_id"]), Key: github.Ptr(key["key"])}, "hec-token")
	vendor := map[string]any{"domain": host, "port": portN, "path": "/collect", "key_id": key["key_id"], "encrypted_token": sealed, "ssl_verify": false}
	body := map[string]any{"enabled": true, "stream_type": "HTTPS Event Collector", "vendor_specific": vendor}

	// Refusals first: they leave no stream.
	e.Must(401, "GET", b+"streams", "", nil)
	e.Must(403, "GET", b+"streams", monaTok, nil)
	e.Must(403, "POST", b+"streams", e.Token(e.Admin, "read:audit_log"), body)
	e.Must(404, "GET", "/enterprises/other/audit-log/streams", admin, nil)
	e.Must(422, "POST", b+"streams", admin, map[string]any{"enabled": true, "stream_type": "Datadog", "vendor_specific": vendor})
	e.Must(422, "POST", b+"streams", admin, map[string]any{"enabled": true, "stream_type": "HTTPS Event Collector"})
	badBox := map[string]any{"domain": host, "port": portN, "path": "/collect", "key_id": key["key_id"], "encrypted_token": "bm90IGEgYm94", "ssl_verify": false}
	e.Must(422, "POST", b+"streams", admin, map[string]any{"enabled": true, "stream_type": "HTTPS Event Collector", "vendor_specific": badBox})
	var list []map[string]any
	e.Must(200, "GET", b+"streams", admin, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("streams after refusals = %v", list)
	}

	var s map[string]any
	e.Must(200, "POST", b+"streams", admin, body).JSON(t, &s)
	if s["stream_type"] != "HTTPS Event Collector" || s["enabled"] != true || s["paused_at"] != nil {
		t.Fatalf("created = %v", s)
	}
	id := strconv.Itoa(int(s["id"].(float64)))
	e.Must(200, "GET", b+"streams/"+id, admin, nil)
	e.Must(404, "GET", b+"streams/999", admin, nil)
	e.Must(200, "GET", b+"streams", admin, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("streams = %v", list)
	}

	// A recorded action reaches the endpoint.
	if _, _, err := e.GitHub(monaTok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app")}); err != nil {
		t.Fatal(err)
	}
	waitFor := func(action string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			if err := e.Deps.Jobs.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			for _, ev := range got {
				if ev["action"] == action {
					mu.Unlock()
					return
				}
			}
			mu.Unlock()
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("no %s streamed; got %v", action, got)
	}
	waitFor("repo.create")
	mu.Lock()
	if len(bad) > 0 {
		t.Errorf("bad requests: %v", bad)
	}
	for _, ev := range got {
		if ev["action"] == "repo.create" && (ev["actor"] != "mona" || ev["repo"] != "mona/app" || ev["business"] != "hubd") {
			t.Errorf("streamed entry = %v", ev)
		}
	}
	mu.Unlock()

	// Pause: paused_at is set and nothing more is sent.
	body["enabled"] = false
	e.Must(200, "PUT", b+"streams/"+id, admin, body).JSON(t, &s)
	if s["enabled"] != false || s["paused_at"] == nil {
		t.Fatalf("paused = %v", s)
	}
	mu.Lock()
	n := len(got)
	mu.Unlock()
	e.Must(204, "DELETE", "/repos/mona/app", monaTok, nil)
	time.Sleep(300 * time.Millisecond)
	if err := e.Deps.Jobs.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(got) != n {
		t.Errorf("a paused stream sent %v", got[n:])
	}
	mu.Unlock()
	// Resume: what happened meanwhile follows.
	body["enabled"] = true
	e.Must(200, "PUT", b+"streams/"+id, admin, body).JSON(t, &s)
	if s["paused_at"] != nil {
		t.Fatalf("resumed = %v", s)
	}
	waitFor("repo.destroy")

	// The changes are in the log.
	entries, _ := entries(t, e, "/enterprises/hubd/audit-log", e.Token(e.Admin, "read:audit_log"), "phrase", "action:audit_log_streaming")
	if g := actions(entries); len(g) != 3 || g[2] != "audit_log_streaming.create" {
		t.Errorf("stream entries = %v", g)
	}
	e.Must(204, "DELETE", b+"streams/"+id, admin, nil)
	e.Must(404, "GET", b+"streams/"+id, admin, nil)
	e.Must(404, "DELETE", b+"streams/"+id, admin, nil)
}
