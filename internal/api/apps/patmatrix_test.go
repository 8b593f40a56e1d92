package apps_test

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/patokens"
)

// The permission matrix for fine-grained personal access tokens: for every
// registered operation such a token may call, one without the permission
// the operation needs is refused with GitHub's 403 and the header naming
// it, and one with every permission is let through. Operations GitHub does
// not open to them are refused to any.
func TestFineGrainedPermissionMatrix(t *testing.T) {
	w := newWorld(t)
	// acme lets tokens in without approval, so each is in reach at once.
	w.e.Must(200, "PUT", "/admin/organizations/acme/personal-access-token-policy", w.aliceTok, map[string]any{"approval_required": false})
	svc := &patokens.Service{Store: w.e.Store}
	n := 0
	tokenFor := func(perms map[string]string, selection string) string {
		t.Helper()
		n++
		made, err := svc.Create(ctx, patokens.CreateInput{User: w.alice, Owner: mustAccount(t, w, "acme"), Name: "matrix " + strconv.Itoa(n),
			Selection: selection, Permissions: perms})
		if err != nil {
			t.Fatalf("token with %v: %v", perms, err)
		}
		return made.Plain
	}
	all := map[string]string{}
	for name, levels := range authz.PermissionLevels {
		if authz.PermissionClass(name) != "enterprise" {
			all[name] = levels[len(levels)-1]
		}
	}
	full := tokenFor(all, authz.SelectionAll)
	lacking := map[string]string{}
	lackingFor := func(sets []authz.PermissionSet) string {
		key := authz.AcceptedHeader(sets)
		if tok, ok := lacking[key]; ok {
			return tok
		}
		perms := map[string]string{}
		for k, v := range all {
			perms[k] = v
		}
		selection := authz.SelectionAll
		for _, s := range sets {
			for _, need := range s {
				delete(perms, need.Name)
				if need.Name == "metadata" {
					// Without metadata: no repository permission at all.
					selection = authz.SelectionNone
					for k := range perms {
						if authz.PermissionClass(k) == "repository" {
							delete(perms, k)
						}
					}
				}
			}
		}
		lacking[key] = tokenFor(perms, selection)
		return lacking[key]
	}

	routes := slices.Clone(w.e.Server.Routes())
	sort.SliceStable(routes, func(i, j int) bool { return routes[i].Method != "DELETE" && routes[j].Method == "DELETE" })
	refused := func(method, path, tok string) (*http.Response, bool) {
		r := w.e.Do(method, path, tok, nil)
		return r.Response, r.StatusCode == 403 && message(t, r) == authz.ErrPATMessage
	}
	type allowed struct {
		method, pattern, path, op string
	}
	var pass []allowed
	checked, refusedOps := 0, 0
	// First every refusal, then (deletions last) every operation with all
	// permissions: one let through may remove a fixture.
	for _, rt := range routes {
		if apps.JWTOperations[rt.OperationID] || rt.NoRateLimit && rt.Extension {
			continue
		}
		path := fill(rt.Pattern)
		var category, subcategory string
		open := rt.Extension // hubd's own routes: as their rule says
		if op, ok := catalogue.ByID(rt.OperationID); ok {
			open = authz.FineGrainedOperation(rt.OperationID, op.Tokens)
			category, subcategory = op.Category, op.Subcategory
		}
		sets, known := authz.RequiredPermissions(rt.OperationID, category, subcategory, rt.Method)
		if !open || !known {
			if _, ok := refused(rt.Method, path, full); !ok {
				t.Errorf("%s %s (%s): a fine-grained token is not refused (open %v, rule %v)", rt.Method, rt.Pattern, rt.OperationID, open, known)
			}
			refusedOps++
			continue
		}
		checked++
		if len(sets) > 0 {
			resp, ok := refused(rt.Method, path, lackingFor(sets))
			if !ok {
				t.Errorf("%s %s (%s): a token without %s is not refused: %d", rt.Method, rt.Pattern, rt.OperationID, authz.AcceptedHeader(sets), resp.StatusCode)
			} else if got := resp.Header.Get("X-Accepted-GitHub-Permissions"); got != authz.AcceptedHeader(sets) {
				t.Errorf("%s %s: X-Accepted-GitHub-Permissions %q, want %q", rt.Method, rt.Pattern, got, authz.AcceptedHeader(sets))
			}
		}
		pass = append(pass, allowed{rt.Method, rt.Pattern, path, rt.OperationID})
	}
	for _, a := range pass {
		if resp, ok := refused(a.method, a.path, full); ok {
			t.Errorf("%s %s (%s): a token with every permission is refused (%d)", a.method, a.pattern, a.op, resp.StatusCode)
		}
	}
	if checked < 250 || refusedOps < 10 {
		t.Fatalf("checked %d operations and %d refused ones: the route table is not what this test expects", checked, refusedOps)
	}
	t.Logf("%d operations checked with and without their permission, %d refused to fine-grained tokens", checked, refusedOps)
}

func mustAccount(t *testing.T, w *world, login string) *model.Account {
	t.Helper()
	a, err := w.e.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
