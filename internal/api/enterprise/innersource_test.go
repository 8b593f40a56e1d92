package enterprise_test

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

type syncResult struct {
	Processed, Created, Updated, Withdrawn, Errors int
	Results                                        []struct {
		ExternalID string `json:"external_id"`
		Status     string `json:"status"`
		GHSAID     string `json:"ghsa_id"`
		Error      string `json:"error"`
	}
}

// A sync is queued as a job: 202 with its status URL, the status 202
// "processing" until the queue runs it, then the result; a second sync
// updates and withdraws by OSV id, keeping the GHIS ids.
func TestInnersourceVulnerabilitySync(t *testing.T) {
	// The test runs the queue itself: a worker could finish the sync
	// before the "processing" answer is checked.
	e := apitest.New(t, apitest.Options{ManualJobs: true})
	tok := enterpriseAppToken(t, e, "Vuln Sync", map[string]string{"enterprise_administration": "write"})
	reader := enterpriseAppToken(t, e, "Vuln Reader", map[string]string{"enterprise_administration": "read"})
	b := "/enterprises/hubd/innersource-vulnerabilities/sync"
	osv := func(id, summary string, extra ...string) map[string]any {
		v := map[string]any{"id": id, "schema_version": "1.4.0", "summary": summary, "modified": "2026-01-01T00:00:00Z",
			"affected": []map[string]any{{"package": map[string]any{"ecosystem": "npm", "name": "left-pad"},
				"ranges": []map[string]any{{"type": "SEMVER", "events": []map[string]any{{"introduced": "1.0.0"}, {"fixed": "1.0.1"}}}}}}}
		for i := 0; i+1 < len(extra); i += 2 {
			v[extra[i]] = extra[i+1]
		}
		return v
	}
	var acc struct{ ID, URL, Status string }
	r := e.Must(202, "POST", b, tok, map[string]any{"vulnerabilities": []any{osv("MVS-1", "one"), osv("MVS-2", "two")}})
	r.JSON(t, &acc)
	if !strings.HasPrefix(acc.ID, "external-vulnerability-sync-") || acc.Status != "queued" || r.Header.Get("Location") != acc.URL ||
		!strings.HasSuffix(acc.URL, "/enterprises/hubd/innersource-vulnerabilities/sync/status/"+acc.ID) {
		t.Fatalf("accepted = %+v (Location %q)", acc, r.Header.Get("Location"))
	}
	status := b + "/status/" + acc.ID
	var pending map[string]any
	e.Must(202, "GET", status, tok, nil).JSON(t, &pending)
	if pending["status"] != "processing" || pending["id"] != acc.ID {
		t.Fatalf("before the job = %v", pending)
	}
	e.RunJobs()
	var res syncResult
	e.Must(200, "GET", status, reader, nil).JSON(t, &res)
	if res.Processed != 2 || res.Created != 2 || len(res.Results) != 2 || res.Results[0].ExternalID != "MVS-1" ||
		res.Results[0].Status != "created" || !strings.HasPrefix(res.Results[0].GHSAID, "GHIS-") {
		t.Fatalf("first sync = %+v", res)
	}
	ghis := res.Results[0].GHSAID

	// Update one, withdraw the other, withdraw one never synced.
	e.Must(202, "POST", b, tok, map[string]any{"vulnerabilities": []any{osv("MVS-1", "one, revised"),
		osv("MVS-2", "two", "withdrawn", "2026-02-01T00:00:00Z"), osv("MVS-9", "nine", "withdrawn", "2026-02-01T00:00:00Z")}}).JSON(t, &acc)
	e.RunJobs()
	e.Must(200, "GET", b+"/status/"+acc.ID, tok, nil).JSON(t, &res)
	if res.Processed != 3 || res.Updated != 1 || res.Withdrawn != 1 || res.Errors != 1 || res.Results[0].GHSAID != ghis ||
		res.Results[1].Status != "withdrawn" || res.Results[2].Status != "error" || res.Results[2].Error == "" {
		t.Fatalf("second sync = %+v", res)
	}

	// Validation: none, too many, no id, an id twice; nothing is queued.
	e.Must(422, "POST", b, tok, map[string]any{"vulnerabilities": []any{}})
	many := make([]any, 101)
	for i := range many {
		many[i] = osv("MVS-x"+strings.Repeat("1", i+1), "x")
	}
	e.Must(422, "POST", b, tok, map[string]any{"vulnerabilities": many})
	e.Must(422, "POST", b, tok, map[string]any{"vulnerabilities": []any{map[string]any{"summary": "no id"}}})
	e.Must(422, "POST", b, tok, map[string]any{"vulnerabilities": []any{osv("MVS-3", "a"), osv("MVS-3", "b")}})
	e.Must(400, "POST", b, tok, "not an object")

	// Who: read permission cannot sync; classic tokens (even an owner's)
	// are refused; an unknown job or enterprise is not found.
	e.Must(403, "POST", b, reader, map[string]any{"vulnerabilities": []any{osv("MVS-4", "a")}})
	e.Must(403, "GET", status, e.Token(e.Admin, "admin:enterprise"), nil)
	e.Must(404, "GET", b+"/status/external-vulnerability-sync-nope", tok, nil)
	e.Must(404, "GET", "/enterprises/other/innersource-vulnerabilities/sync/status/"+acc.ID, tok, nil)
	e.Must(401, "GET", status, "", nil)
}
