package attestations_test

import (
	"testing"
	"time"

	"github.com/hubd/hubd/internal/store"
)

// installationToken installs a new app with perms on octo and answers a
// token of it.
func (w *world) installationToken(t *testing.T, name string, perms map[string]string) string {
	t.Helper()
	e := w.e
	var app struct {
		Slug string `json:"slug"`
	}
	e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "octo", "name": name, "default_permissions": perms}).JSON(t, &app)
	var in struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, map[string]any{"account": "octo"}).JSON(t, &in)
	inst, err := e.Store.R().InstallationByID(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tok string
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		tok, _, err = tx.CreateInstallationToken(ctx, inst, inst.Permissions, nil, e.Store.Now().Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return tok
}

// An app installation attests with attestations:write (its attestations
// are initiated by github_app) and reads with attestations:read; without
// the permission it is refused.
func TestAttestationsInstallation(t *testing.T) {
	w := newWorld(t)
	e := w.e
	d := digest("built-by-app")
	writer := w.installationToken(t, "Attester", map[string]string{"attestations": "write", "metadata": "read"})
	reader := w.installationToken(t, "Auditor", map[string]string{"attestations": "read", "metadata": "read"})
	other := w.installationToken(t, "Issue Bot", map[string]string{"issues": "write", "metadata": "read"})

	body := map[string]any{"bundle": w.sign.bundle(t, statement(provenance, d))}
	e.Must(201, "POST", "/repos/octo/secret/attestations", writer, body)
	e.Must(403, "POST", "/repos/octo/secret/attestations", reader, body)
	e.Must(403, "POST", "/repos/octo/secret/attestations", other, body)

	var l listed
	e.Must(200, "GET", "/repos/octo/secret/attestations/"+d, reader, nil).JSON(t, &l)
	if len(l.Attestations) != 1 || l.Attestations[0].Initiator != "github_app" {
		t.Fatalf("installation's attestation %+v", l)
	}
	e.Must(200, "GET", "/orgs/octo/attestations/"+d, reader, nil).JSON(t, &l)
	if len(l.Attestations) != 1 {
		t.Fatalf("org list %+v", l)
	}
	e.Must(403, "GET", "/repos/octo/secret/attestations/"+d, other, nil)

	// Artifact metadata of the private repository, read by an app with
	// artifact_metadata:read.
	e.Must(200, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.olgaT, map[string]any{"name": "img", "digest": d, "registry_url": "https://reg.example.com/"})
	meta := w.installationToken(t, "Inventory", map[string]string{"artifact_metadata": "read", "metadata": "read"})
	var st struct {
		TotalCount int `json:"total_count"`
	}
	e.Must(200, "GET", "/orgs/octo/artifacts/"+d+"/metadata/storage-records", meta, nil).JSON(t, &st)
	if st.TotalCount != 1 {
		t.Fatalf("app reads %d storage records", st.TotalCount)
	}
	e.Must(403, "GET", "/orgs/octo/artifacts/"+d+"/metadata/storage-records", other, nil)
	e.Must(403, "DELETE", "/orgs/octo/attestations/digest/"+d, reader, nil)
	e.Must(200, "DELETE", "/orgs/octo/attestations/digest/"+d, writer, nil)
}
