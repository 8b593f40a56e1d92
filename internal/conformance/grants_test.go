package conformance

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// grantCaller is a token whose grant lies elsewhere: none of the matrix's
// fixtures is inside it, though the user behind some of them owns or
// administers every one.
type grantCaller struct {
	name, token string
	kind        authz.TokenKind
	perms       map[string]string // the token's fine-grained permissions (nil for OAuth)
	message     string            // GitHub's 403 for a write outside the grant ("": 404)
}

// grantCallers makes one token of each kind whose grant is elsewhere:
//
//   - an installation token of an app (every permission) installed on
//     bob's account;
//   - a workflow job's GITHUB_TOKEN of alice/tools (the job token hubd's
//     runner gets, narrowed to that repository);
//   - alice's fine-grained token selecting alice/tools, with every
//     repository permission;
//   - alice's user access token (ghu_) of the app installed on bob only;
//   - alice's OAuth app token (gho_) with read:user, no repository scope.
//
// alice/tools is public and holds no marker: what these tokens may see of
// their own grant is not private data of the fixtures.
func (w *world) grantCallers() []grantCaller {
	t, e := w.t, w.e
	t.Helper()
	ctx := context.Background()
	e.Must(201, "POST", "/user/repos", w.aliceTok, map[string]any{"name": "tools"})
	tools, err := e.Store.R().RepoByName(ctx, "alice", "tools", 0)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{}
	repoAll := map[string]string{}
	for name, levels := range authz.PermissionLevels {
		all[name] = levels[len(levels)-1]
		if authz.PermissionClass(name) == "repository" {
			repoAll[name] = levels[len(levels)-1]
		}
	}
	var app struct {
		ID       int64  `json:"id"`
		Slug     string `json:"slug"`
		ClientID string `json:"client_id"`
	}
	e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "bob", "name": "Elsewhere", "default_permissions": all}).JSON(t, &app)
	var in struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, map[string]any{"account": "bob"}).JSON(t, &in)
	inst, err := e.Store.R().InstallationByID(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	var oauth struct {
		ClientID string `json:"client_id"`
	}
	e.Must(201, "POST", "/admin/oauth-apps", e.AdminToken, map[string]any{"owner": "bob", "name": "Reader",
		"callback_url": "https://example.com/cb"}).JSON(t, &oauth)
	exp := e.Store.Now().Add(8 * time.Hour)
	var ghs, ghu, gho string
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if ghs, _, err = tx.CreateInstallationToken(ctx, inst, inst.Permissions, nil, exp); err != nil {
			return err
		}
		if ghu, _, err = tx.CreateClientToken(ctx, authz.UserToServer, w.alice.ID, app.ClientID, app.ID, nil, &exp); err != nil {
			return err
		}
		gho, _, err = tx.CreateClientToken(ctx, authz.OAuthApp, w.alice.ID, oauth.ClientID, 0, authz.ParseScopes("read:user"), nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	jobPerms := map[string]string{"actions": "write", "checks": "write", "contents": "write", "deployments": "write",
		"issues": "write", "pull_requests": "write", "statuses": "write", "discussions": "write", "pages": "write", "metadata": "read"}
	job, _, err := (&actions.Tokens{Apps: &apps.Service{Store: e.Store}}).Mint(ctx, tools.Repo, jobPerms)
	if err != nil {
		t.Fatal(err)
	}
	var pat struct {
		Token string `json:"token"`
	}
	e.Must(201, "POST", "/admin/users/alice/personal-access-tokens", w.aliceTok, map[string]any{"name": "tools only",
		"repositories": []string{"tools"}, "permissions": repoAll}).JSON(t, &pat)
	integration := authz.ErrIntegrationMessage
	return []grantCaller{
		{name: "installation-elsewhere", token: ghs, kind: authz.Installation, perms: inst.Permissions, message: integration},
		{name: "job-token-elsewhere", token: job, kind: authz.Installation, perms: jobPerms, message: integration},
		{name: "fine-grained-elsewhere", token: pat.Token, kind: authz.FineGrained, perms: authz.WithMetadata(repoAll), message: authz.ErrPATMessage},
		{name: "user-token-elsewhere", token: ghu, kind: authz.UserToServer, perms: inst.Permissions, message: integration},
		{name: "oauth-no-repo-scope", token: gho, kind: authz.OAuthApp},
	}
}

// gateRefuses reports whether the token may not call the operation on any
// repository (its kind lacks GitHub's badge for it, or the token the
// permission it needs): such a refusal says nothing about grants.
func (c grantCaller) gateRefuses(rt *rest.Route) bool {
	if c.kind == authz.OAuthApp {
		return false
	}
	op, ok := catalogue.ByID(rt.OperationID)
	var category, subcategory string
	if ok {
		category, subcategory = op.Category, op.Subcategory
		switch c.kind {
		case authz.Installation:
			ok = slices.Contains(op.Tokens, "IAT")
		case authz.UserToServer:
			ok = slices.Contains(op.Tokens, "UAT")
		case authz.FineGrained:
			ok = authz.FineGrainedOperation(rt.OperationID, op.Tokens)
		}
		if !ok {
			return true
		}
	}
	sets, known := authz.RequiredPermissions(rt.OperationID, category, subcategory, rt.Method)
	return !known || !authz.AllowedBy(sets, c.perms)
}

// ownActs are writes that name a repository but act on the caller's own
// account (its stars and subscriptions): a grant does not limit them.
var ownActs = map[string]bool{
	"activity/star-repo-for-authenticated-user":   true,
	"activity/unstar-repo-for-authenticated-user": true,
	"activity/set-repo-subscription":              true,
	"activity/delete-repo-subscription":           true,
}

// TestGrantMatrix calls every registered operation that names a
// repository as each token kind whose grant lies elsewhere (grantCallers),
// against the public repositories alice/pub and acme/open (alice owns or
// administers both) and, for reads, alice's private one:
//
//   - every write answers 401, 403 or 404 and changes nothing; a 403 of a
//     token narrowed to repositories carries GitHub's words for its kind
//     ("Resource not accessible by integration" / "... by personal access
//     token"); the OAuth token without a repository scope is answered 404
//     (or 403 for the role an operation needs);
//   - a read of a public repository answers 2xx whenever it does for an
//     anonymous caller, unless the token may not call the operation at all
//     (its kind's badge, its permissions);
//   - the private repository stays hidden: every call answers 401, 403 or
//     404 and no answer shows its marker.
//
// What is expected is derived from the route and the callers, not listed
// per operation.
func TestGrantMatrix(t *testing.T) {
	w := newWorld(t)
	start := time.Now()
	callers := w.grantCallers()
	public := []*repoFix{w.repos["alice/pub"], w.repos[w.org+"/open"]}
	private := w.repos["alice/"+marker+"-a"]

	routes := slices.Clone(w.e.Server.Routes())
	slices.SortStableFunc(routes, func(a, b *rest.Route) int {
		return boolInt(a.Method == "DELETE") - boolInt(b.Method == "DELETE")
	})
	fp := w.fingerprint()
	fails, checked, writes, reads := 0, 0, 0, 0
	for _, rt := range routes {
		if !slices.Contains(params(rt.Pattern), "repo") {
			continue
		}
		write := isWrite(rt.Method)
		repos := public
		if !write {
			repos = append(slices.Clone(public), private)
		}
		for _, f := range repos {
			tg := target{repo: f, org: w.org, username: "alice"}
			var body []byte
			if s := bodySchema(w.operation(rt)); s != nil {
				body = mustJSON(w.object(s, tg, 1))
			}
			p := w.path(rt, tg, "", "")
			var control response
			if !write && !f.private {
				control = w.do(rt.Method, p, "", "", body)
			}
			for _, c := range callers {
				r := w.do(rt.Method, p, "", c.token, body)
				checked++
				report := func(check, format string, args ...any) {
					msg := fmt.Sprintf("%s %s [%s] as %s on %s: %s: %s", rt.Method, rt.Pattern, rt.OperationID, c.name, f.full(), check, fmt.Sprintf(format, args...))
					if known("grants", rt.OperationID, c.name, check) {
						t.Logf("known failure: %s", msg)
						return
					}
					fails++
					if fails <= 200 {
						t.Error(msg)
					}
				}
				ok2xx := r.status >= 200 && r.status < 300
				changed := ""
				if write {
					writes++
					after := w.fingerprint()
					changed = fp.diff(after)
					fp = after
				}
				switch {
				case r.status == 0:
					report("hang", "no answer in %v", w.http.Timeout)
				case r.status >= 500:
					report("5xx", "status %d: %.300s", r.status, r.body)
				case write && ownActs[rt.OperationID]:
					// The caller's own stars and subscriptions.
				case write && changed != "":
					report("grant", "status %d and changed %s, want a refusal: %.300s", r.status, changed, r.body)
				case write && r.status != 401 && r.status != 403 && r.status != 404:
					report("grant", "status %d, want 401, 403 or 404: %.300s", r.status, r.body)
				case write && r.status == 403 && c.message != "" && !bytes.Contains(r.body, []byte(`"message":"`+c.message+`"`)):
					report("message", "403 without %q: %.300s", c.message, r.body)
				case write && c.message == "" && r.status == 403 && strings.HasPrefix(rt.Pattern, "/repos/") && !bytes.Contains(r.body, []byte(`"message":"Must have `)):
					// A scope-limited token's role is looked at first (it
					// counts no write without the scope); past it, 404.
					report("message", "403 for a token without a repository scope, want 404: %.300s", r.body)
				case f.private && ok2xx && bytes.Contains(bytes.ToLower(r.body), []byte(marker)):
					report("leak", "status %d body shows private data: %.300s", r.status, r.body)
				case f.private && r.status != 401 && r.status != 403 && r.status != 404:
					report("hidden", "status %d on a private repository outside the grant, want 401, 403 or 404: %.300s", r.status, r.body)
				case !write && !f.private && control.status >= 200 && control.status < 300 && !c.gateRefuses(rt):
					reads++
					if !ok2xx {
						report("read", "status %d where an anonymous caller gets %d: %.300s", r.status, control.status, r.body)
					}
				}
				if why := errorShape(r); why != "" {
					report("shape", "status %d: %s", r.status, why)
				}
			}
		}
	}
	if fails > 200 {
		t.Errorf("... %d failures in all", fails)
	}
	checkKnownUsed(t, "grants")
	t.Logf("grants: %d callers, %d calls (%d writes, %d reads of public data compared), %d requests in %v", len(callers), checked, writes, reads, w.sent.Load(), time.Since(start).Round(time.Millisecond))
	if writes == 0 || reads == 0 || checked < 1000 {
		t.Fatalf("only %d calls, %d writes, %d reads compared", checked, writes, reads)
	}
}
