package transfers_test

import (
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// The webhooks of transfers: repository transferred (with where it came
// from) and issues transferred (with where the issue went) to the source
// repository's hooks, each valid against GitHub's webhook schemas.
func TestTransferWebhooks(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8,::1")
	sch, err := hookstest.Load()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	recv := hookstest.NewReceiver(t)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "src"})
	dst := e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "dst"}).Map(t)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(201, "POST", "/repos/mona/src/hooks", tok, map[string]any{"config": map[string]any{"url": recv.URL, "content_type": "json"},
		"events": []string{"issues", "repository"}})
	is := e.Must(201, "POST", "/repos/mona/src/issues", tok, map[string]any{"title": "Move me"}).Map(t)

	if _, errs := gql(t, e, tok, transferIssue, map[string]any{"issue": is["node_id"], "repo": dst["node_id"]}); len(errs) > 0 {
		t.Fatal(errs)
	}
	d := recv.WaitFor(t, "issues", "transferred")
	if err := sch.Validate(d.Event(), d.Payload); err != nil {
		t.Errorf("issues transferred: %v\n%.1500s", err, d.Payload)
	}
	m := d.Map(t)
	changes := m["changes"].(map[string]any)
	if m["issue"].(map[string]any)["number"] != float64(1) || changes["new_issue"].(map[string]any)["number"] != float64(1) ||
		changes["new_repository"].(map[string]any)["full_name"] != "mona/dst" || m["repository"].(map[string]any)["full_name"] != "mona/src" {
		t.Fatalf("issues transferred payload: %v", m)
	}

	e.Must(202, "POST", "/repos/mona/src/transfer", tok, map[string]any{"new_owner": "acme"})
	d = recv.WaitFor(t, "repository", "transferred")
	if err := sch.Validate(d.Event(), d.Payload); err != nil {
		t.Errorf("repository transferred: %v\n%.1500s", err, d.Payload)
	}
	m = d.Map(t)
	from := m["changes"].(map[string]any)["owner"].(map[string]any)["from"].(map[string]any)
	if m["repository"].(map[string]any)["full_name"] != "acme/src" || from["user"].(map[string]any)["login"] != "mona" ||
		m["organization"].(map[string]any)["login"] != "acme" {
		t.Fatalf("repository transferred payload: %v", m)
	}
}
