package apps_test

import (
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/catalogue"
)

var param = regexp.MustCompile(`\{([^}]+)\}`)

// fill puts fixture values in a route pattern's parameters.
func fill(pattern string) string {
	return param.ReplaceAllStringFunc(pattern, func(p string) string {
		switch strings.Trim(p, "{}.") {
		case "owner", "org":
			return "acme"
		case "repo":
			return "widgets"
		case "username":
			return "alice"
		case "path", "rest":
			return "README.md"
		}
		return "1"
	})
}

// The permission matrix: for every registered operation an installation
// token may call, a token without the fine-grained permission the
// operation needs is refused with GitHub's 403 and the header naming it,
// and a token with every permission is let through. Operations without the
// installation token badge are refused to any installation token.
func TestPermissionMatrix(t *testing.T) {
	w := newWorld(t)
	// A second app with every permission, installed on all of acme.
	all := map[string]string{}
	for name, levels := range authz.PermissionLevels {
		all[name] = levels[len(levels)-1]
	}
	var app createdApp
	w.e.Must(201, "POST", "/admin/apps", w.e.AdminToken, map[string]any{"owner": "acme", "name": "Everything", "default_permissions": all}).JSON(t, &app)
	var in struct {
		ID int64 `json:"id"`
	}
	w.e.Must(201, "POST", "/admin/apps/everything/installations", w.e.AdminToken, map[string]any{"account": "acme"}).JSON(t, &in)
	now := w.now().Unix()
	jwt := signJWT(t, app.PEM, "RS256", map[string]any{"iat": now - 30, "exp": now + 300, "iss": app.ID})
	tokenFor := func(perms map[string]string) string {
		t.Helper()
		var tok struct {
			Token string `json:"token"`
		}
		body := map[string]any{}
		if perms != nil {
			body["permissions"] = perms
		}
		r := w.bearer("POST", "/app/installations/"+strconv.FormatInt(in.ID, 10)+"/access_tokens", jwt, body)
		if r.StatusCode != 201 {
			t.Fatalf("token with %v: %d %s", perms, r.StatusCode, r.Body)
		}
		r.JSON(t, &tok)
		return tok.Token
	}
	full := tokenFor(nil)

	// lacking is a token with every permission but those a rule names
	// (without metadata, no repository permission at all).
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
		for _, s := range sets {
			for _, n := range s {
				delete(perms, n.Name)
				if n.Name == "metadata" {
					// Without metadata: organization permissions only.
					for k := range perms {
						if k != "members" && !strings.HasPrefix(k, "organization_") {
							delete(perms, k)
						}
					}
				}
			}
		}
		lacking[key] = tokenFor(perms)
		return lacking[key]
	}

	routes := slices.Clone(w.e.Server.Routes())
	// Deletions last: one that is let through may remove a fixture.
	sort.SliceStable(routes, func(i, j int) bool { return routes[i].Method != "DELETE" && routes[j].Method == "DELETE" })
	checked, refusedOps := 0, 0
	for _, rt := range routes {
		if apps.JWTOperations[rt.OperationID] || rt.NoRateLimit && rt.Extension {
			continue // the app's own (JWT) operations, and hubd's pages
		}
		path := fill(rt.Pattern)
		var category, subcategory string
		badge := rt.Extension
		if op, ok := catalogue.ByID(rt.OperationID); ok {
			badge = slices.Contains(op.Tokens, "IAT")
			category, subcategory = op.Category, op.Subcategory
		}
		sets, known := authz.RequiredPermissions(rt.OperationID, category, subcategory, rt.Method)
		granted := full
		if rt.OperationID == "apps/revoke-installation-access-token" {
			granted = tokenFor(nil) // it revokes the token it is called with
		}
		refused := func(tok string) (*http.Response, bool) {
			r := w.e.Do(rt.Method, path, tok, nil)
			return r.Response, r.StatusCode == 403 && message(t, r) == "Resource not accessible by integration"
		}
		if !badge || !known {
			if _, ok := refused(granted); !ok {
				t.Errorf("%s %s (%s): an installation token is not refused (badge %v, rule %v)", rt.Method, rt.Pattern, rt.OperationID, badge, known)
			}
			refusedOps++
			continue
		}
		checked++
		if len(sets) > 0 {
			resp, ok := refused(lackingFor(sets))
			if !ok {
				t.Errorf("%s %s (%s): a token without %s is not refused: %d", rt.Method, rt.Pattern, rt.OperationID, authz.AcceptedHeader(sets), resp.StatusCode)
			} else if got := resp.Header.Get("X-Accepted-GitHub-Permissions"); got != authz.AcceptedHeader(sets) {
				t.Errorf("%s %s: X-Accepted-GitHub-Permissions %q, want %q", rt.Method, rt.Pattern, got, authz.AcceptedHeader(sets))
			}
		}
		if resp, ok := refused(granted); ok {
			t.Errorf("%s %s (%s): a token with every permission is refused (%d)", rt.Method, rt.Pattern, rt.OperationID, resp.StatusCode)
		}
	}
	if checked < 250 || refusedOps < 10 {
		t.Fatalf("checked %d operations and %d refused ones: the route table is not what this test expects", checked, refusedOps)
	}
	t.Logf("%d operations checked with and without their permission, %d refused to installation tokens", checked, refusedOps)
}
