package meta_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/server"
)

func TestMeta(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	gh := e.GitHub("")
	m, _, err := gh.Meta.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.VerifiablePasswordAuthentication == nil || *m.VerifiablePasswordAuthentication || len(m.Hooks) != 0 || len(m.Git) != 0 {
		t.Fatalf("meta = %+v", m)
	}
	if m.Domains == nil || len(m.Domains.Website) != 1 || m.Domains.Website[0] != "127.0.0.1" {
		t.Fatalf("domains = %+v", m.Domains)
	}
	raw := e.Must(200, "GET", "/meta", "", nil).Map(t)
	if raw["installed_version"] != "3.19.0" || raw["hubd_version"] != "test" {
		t.Fatalf("versions: %v %v", raw["installed_version"], raw["hubd_version"])
	}
	// Enterprise clients ask at /api/v3/meta without credentials.
	e.Must(200, "GET", e.URL+"/api/v3/meta", "", nil)

	versions, _, err := gh.Meta.ListAPIVersions(ctx)
	if err != nil || strings.Join(versions, ",") != strings.Join(server.APIVersions, ",") {
		t.Fatalf("versions = %v %v", versions, err)
	}
}

func TestZenAndOctocat(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	gh := e.GitHub("")
	seen := map[string]bool{}
	for i := 0; i < 40; i++ {
		z, resp, err := gh.Meta.Zen(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if z == "" || strings.Contains(z, "\n") || resp.Header.Get("Content-Type") != "text/plain;charset=utf-8" {
			t.Fatalf("zen %q (%s)", z, resp.Header.Get("Content-Type"))
		}
		seen[z] = true
	}
	if len(seen) < 5 {
		t.Fatalf("zen is not random: %v", seen)
	}

	cat, resp, err := gh.Meta.Octocat(ctx, "Hello from hubd")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "application/octocat-stream" || !strings.Contains(cat, "< Hello from hubd >") || !strings.Contains(cat, "(    =^=    )") {
		t.Fatalf("octocat (%s):\n%s", resp.Header.Get("Content-Type"), cat)
	}
	// A long message wraps inside the bubble; without one, the cat speaks zen.
	long := strings.Repeat("words that wrap ", 8)
	cat, _, err = gh.Meta.Octocat(ctx, long)
	if err != nil || !strings.Contains(cat, "/ words that wrap") || !strings.Contains(cat, "\\ ") {
		t.Fatalf("long octocat:\n%s %v", cat, err)
	}
	cat, _, err = gh.Meta.Octocat(ctx, "")
	if err != nil || !strings.Contains(cat, "=^=") || !strings.Contains(cat, " _____") {
		t.Fatalf("zen octocat:\n%s %v", cat, err)
	}
}
