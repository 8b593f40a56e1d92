package server_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/server"
	"github.com/hubd/hubd/internal/store"
)

// build makes the real server on a scratch SQLite database. A route that
// conflicts with another makes Build fail (ServeMux refuses it).
func build(t *testing.T) *server.Server {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "hubd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, _, err := server.Build(server.Config{Store: st, ExternalURL: "http://127.0.0.1:8080", Limits: ratelimit.DefaultLimits()})
	if err != nil {
		t.Fatalf("server.Build: %v", err)
	}
	return s
}

// TestRoutesAreSpecOperations is half of the catalogue's proof: every
// registered route is an operation of GitHub's description (method and spec
// path, with its operationId) or a declared extension, no two routes serve
// the same operation, and none is declared Never.
func TestRoutesAreSpecOperations(t *testing.T) {
	s := build(t)
	routes := catalogue.Infos(s.Routes())
	if len(routes) == 0 {
		t.Fatal("empty route table")
	}
	for _, p := range catalogue.Check(routes) {
		t.Error(p)
	}
	exts := 0
	for _, rt := range routes {
		if rt.Extension {
			exts++
		}
	}
	if exts == 0 {
		t.Error("no extension routes: /catalogue and /catalogue.json should be registered")
	}
}

var param = regexp.MustCompile(`\{[^}]+\}`)

// TestRoutesDoNotShadowEachOther sends a request to every route's own path
// (each parameter filled in) and checks that this route, not another one,
// serves it.
func TestRoutesDoNotShadowEachOther(t *testing.T) {
	s := build(t)
	for _, rt := range s.Routes() {
		path := param.ReplaceAllStringFunc(rt.Pattern, func(p string) string {
			switch {
			case p == "{$}":
				return ""
			case strings.HasSuffix(p, "...}"):
				return "zq9/zq9"
			}
			return "zq9"
		})
		req := httptest.NewRequest(rt.Method, path, nil)
		got, _, ok := s.Match(req)
		switch {
		case !ok:
			t.Errorf("%s %s: %s %s finds no route", rt.Method, rt.Pattern, rt.Method, path)
		case got != rt:
			t.Errorf("%s %s: %s %s is served by %s %s", rt.Method, rt.Pattern, rt.Method, path, got.Method, got.Pattern)
		}
	}
}

// TestCheckCatchesBadRoutes makes sure the proof fails on the mistakes it
// exists for.
func TestCheckCatchesBadRoutes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes []catalogue.RouteInfo
		want   string
	}{
		{"not a spec path", []catalogue.RouteInfo{{Method: "GET", Pattern: "/users/{login}", OperationID: "users/get-by-username"}}, "not an operation"},
		{"wrong method", []catalogue.RouteInfo{{Method: "DELETE", Pattern: "/user", OperationID: "users/get-authenticated"}}, "not an operation"},
		{"wrong operationId", []catalogue.RouteInfo{{Method: "GET", Pattern: "/user", OperationID: "users/get"}}, "the description says"},
		{"twice", []catalogue.RouteInfo{
			{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/refs/{ref}", OperationID: "git/get-ref"},
			{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/ref/{ref...}", OperationID: "git/get-ref"},
			{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/ref/{ref}", OperationID: "git/get-ref"},
		}, "conflicts with"},
		{"subtree", []catalogue.RouteInfo{{Method: "GET", Pattern: "/", OperationID: "meta/root"}}, "every path below"},
		{"wildcard mid-path", []catalogue.RouteInfo{{Method: "GET", Pattern: "/repos/{owner...}/{repo}", OperationID: "repos/get"}}, "trailing"},
		{"extension shadowing an operation", []catalogue.RouteInfo{{Method: "GET", Pattern: "/user", OperationID: "x", Extension: true}}, "declared an extension"},
		{"never and registered", []catalogue.RouteInfo{{Method: "GET", Pattern: "/manage/v1/cluster/status", OperationID: "enterprise-admin/get-cluster-status"}}, "declared Never"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := strings.Join(catalogue.Check(tc.routes), "\n")
			if !strings.Contains(problems, tc.want) {
				t.Errorf("Check = %q, want a problem containing %q", problems, tc.want)
			}
		})
	}
	ok := []catalogue.RouteInfo{
		{Method: "GET", Pattern: "/{$}", OperationID: "meta/root"},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/ref/{ref...}", OperationID: "git/get-ref"},
		{Method: "GET", Pattern: "/catalogue", OperationID: "hubd/catalogue", Extension: true},
	}
	if p := catalogue.Check(ok); len(p) > 0 {
		t.Errorf("Check(valid routes) = %q", p)
	}
}
