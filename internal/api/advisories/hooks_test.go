package advisories_test

import (
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// A repository hook subscribed to repository_advisory hears a private
// vulnerability report arrive and an advisory published, each payload
// valid against GitHub's webhooks description; edits send nothing.
func TestAdvisoryWebhooks(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8,::1")
	sch, err := hookstest.LoadFlavour("api.github.com") // GHES sends no repository_advisory
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	_, ritaT := e.NewUser("rita", false)
	mg := e.GitHub(monaT)
	if _, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lib")}); err != nil {
		t.Fatal(err)
	}
	recv := hookstest.NewReceiver(t)
	if _, _, err := mg.Repositories.CreateHook(ctx, "mona", "lib", &github.Hook{Events: []string{"repository_advisory"}, Active: github.Ptr(true),
		Config: &github.HookConfig{URL: github.Ptr(recv.URL), ContentType: github.Ptr("json")}}); err != nil {
		t.Fatal(err)
	}
	recv.WaitFor(t, "ping", "")
	e.Must(204, "PUT", "/repos/mona/lib/private-vulnerability-reporting", monaT, nil)
	var r advisory
	e.Must(201, "POST", "/repos/mona/lib/security-advisories/reports", ritaT, map[string]any{
		"summary": "Overflow", "description": "Long input overflows.", "vulnerabilities": vuln("lib"), "cwe_ids": []string{"CWE-787"},
		"cvss_vector_string": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}).JSON(t, &r)
	d := recv.WaitFor(t, "repository_advisory", "reported")
	if err := sch.Validate(d.Event(), d.Payload); err != nil {
		t.Errorf("reported: %v\n%.1500s", err, d.Payload)
	}
	m := d.Map(t)
	if ra := m["repository_advisory"].(map[string]any); ra["ghsa_id"] != r.GHSAID || ra["state"] != "triage" || m["sender"].(map[string]any)["login"] != "rita" {
		t.Errorf("reported payload %v", m)
	}
	path := "/repos/mona/lib/security-advisories/" + r.GHSAID
	e.Must(200, "PATCH", path, monaT, map[string]any{"state": "draft", "summary": "Buffer overflow"})
	e.Must(200, "PATCH", path, monaT, map[string]any{"state": "published"})
	d = recv.WaitFor(t, "repository_advisory", "published")
	if err := sch.Validate(d.Event(), d.Payload); err != nil {
		t.Errorf("published: %v\n%.1500s", err, d.Payload)
	}
	if ra := d.Map(t)["repository_advisory"].(map[string]any); ra["state"] != "published" || ra["summary"] != "Buffer overflow" {
		t.Errorf("published payload %v", ra)
	}
	if n := len(recv.All()); n != 3 {
		t.Errorf("%d deliveries, want ping, reported and published", n)
	}
}
