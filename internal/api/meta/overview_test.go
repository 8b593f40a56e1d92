package meta_test

import (
	"context"
	"sort"
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
	resp := e.Must(200, "GET", "/meta", "", nil)
	raw := resp.Map(t)
	// GitHub Enterprise Server's keys only; hubd's own version is a header.
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "domains,installed_version,packages,verifiable_password_authentication" {
		t.Fatalf("keys: %s", got)
	}
	if raw["installed_version"] != "3.19.0" || resp.Header.Get("X-Hubd-Version") != "test" || resp.Header.Get("X-GitHub-Enterprise-Version") != "3.19.0" {
		t.Fatalf("versions: %v %q %q", raw["installed_version"], resp.Header.Get("X-Hubd-Version"), resp.Header.Get("X-GitHub-Enterprise-Version"))
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
