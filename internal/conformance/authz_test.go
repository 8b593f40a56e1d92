package conformance

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/rest"
)

// caller is one principal of the matrix. None of them may see the private
// fixtures: anonymous, a user with every scope and no relation to them,
// and their owner through tokens that lack the repo scope.
type caller struct {
	name   string
	token  string
	scopes authz.Scopes // nil: anonymous
}

func (c caller) has(any []string) bool {
	if c.scopes == nil {
		return false
	}
	for _, s := range any {
		if c.scopes.Has(s) {
			return true
		}
	}
	return false
}

// TestAuthorizationMatrix calls every registered operation as each caller
// against private fixtures (a private repository of a user, one of an
// organization the caller is not in, another user's resources), and writes
// also against public repositories, by callers without a write scope and
// by the unrelated user, who has no role in them. What
// is expected is derived from the fixture and the route, not listed per
// operation:
//
//   - an operation on a private repository answers 401, 403 or 404;
//   - a write to any repository by a caller without a repo scope, or by
//     a user with no role in it, answers 401, 403 or 404 (only opening an
//     issue, commenting and reacting are open to anyone: anyoneMay);
//   - a site administration operation (/admin/...) answers 401, 403 or 404;
//   - another write may succeed only when it names no resource (it acts on
//     the caller's own account: PATCH /user, POST /user/repos, POST
//     /markdown) and the token carries one of the route's scopes (or the
//     route needs none);
//   - any other read may answer 2xx (public data, the caller's own), but
//     its body must not contain the marker that every private fixture
//     carries;
//   - a refused write changes neither the database nor any refs, nothing
//     answers 5xx, and every error is GitHub's error JSON.
func TestAuthorizationMatrix(t *testing.T) {
	w := newWorld(t)
	start := time.Now()
	callers := []caller{
		{name: "anonymous"},
		{name: "unrelated", token: w.bobTok, scopes: authz.ParseScopes(apitest.AllScopes)},
		{name: "owner-no-scope", token: w.e.Token(w.alice, ""), scopes: authz.Scopes{}},
		{name: "owner-read-org", token: w.e.Token(w.alice, "read:org"), scopes: authz.ParseScopes("read:org")},
	}
	private := []*repoFix{w.repos["alice/"+marker+"-a"], w.repos[w.org+"/"+marker+"-o"]}
	public := []*repoFix{w.repos["alice/pub"], w.repos[w.org+"/open"]}

	// Deletions last, as in the fuzz: a wrongly accepted one would remove
	// fixtures the other operations address.
	routes := slices.Clone(w.e.Server.Routes())
	slices.SortStableFunc(routes, func(a, b *rest.Route) int {
		return boolInt(a.Method == "DELETE") - boolInt(b.Method == "DELETE")
	})
	// Controls: the owner sees the private fixtures and their marker, so
	// the refusals and the leak check below test something.
	for _, f := range private {
		r := w.do("GET", "/repos/"+f.full()+"/issues", "", w.aliceTok, nil)
		if r.status != 200 || !bytes.Contains(r.body, []byte(marker)) {
			t.Fatalf("control: the owner lists %s's issues: %d %.200s", f.full(), r.status, r.body)
		}
	}
	statuses := map[string]int{}
	fp := w.fingerprint()
	fails, checked := 0, 0
	for _, rt := range routes {
		ps := params(rt.Pattern)
		onRepo := slices.Contains(ps, "repo")
		admin := strings.HasPrefix(rt.Pattern, "/admin/")
		write := isWrite(rt.Method) && !readsByPost[rt.OperationID]
		for _, c := range callers {
			var repos []*repoFix
			switch {
			case onRepo && write && (!c.has([]string{"public_repo"}) || c.name == "unrelated"):
				repos = append(append(repos, private...), public...)
			case onRepo:
				repos = private
			default:
				repos = private[:1] // only fills stray parameters
			}
			for _, f := range repos {
				tg := target{repo: f, org: w.org, username: "alice"}
				var body []byte
				if s := bodySchema(w.operation(rt)); s != nil {
					body = mustJSON(w.object(s, tg, 1))
				}
				r := w.do(rt.Method, w.path(rt, tg, "", ""), "", c.token, body)
				checked++
				where := "no repository"
				if onRepo {
					where = f.full()
				}
				report := func(check, format string, args ...any) {
					msg := fmt.Sprintf("%s %s [%s] as %s on %s: %s: %s", rt.Method, rt.Pattern, rt.OperationID, c.name, where, check, fmt.Sprintf(format, args...))
					if known("authz", rt.OperationID, c.name, check) {
						t.Logf("known failure: %s", msg)
						return
					}
					fails++
					if fails <= 200 {
						t.Error(msg)
					}
				}
				refusedOnly := admin || onRepo && (f.private || write) || write && ((len(ps) > 0 && !ownAccount[rt.OperationID]) || len(rt.Scopes) > 0 && !c.has(rt.Scopes))
				if onRepo && !f.private && c.name == "unrelated" && anyoneMay[rt.OperationID] {
					refusedOnly = false
				}
				ok2xx := r.status >= 200 && r.status < 300
				changed := ""
				if write {
					after := w.fingerprint()
					changed = fp.diff(after)
					fp = after
				}
				// GitHub answers some writes of a user with no role in a
				// public repository with the unchanged resource (assignees
				// are silently dropped): a 2xx that changed nothing is no
				// write. On a private repository even that would reveal it,
				// and a token without a write scope must be refused.
				ignored := ok2xx && write && changed == "" && onRepo && !f.private && c.has([]string{"public_repo"})
				statuses[fmt.Sprintf("refused-only=%v %d", refusedOnly, r.status)]++
				switch {
				case r.status == 0:
					report("hang", "no answer in %v", w.http.Timeout)
				case r.status >= 500:
					report("5xx", "status %d: %.300s", r.status, r.body)
				case refusedOnly && ok2xx && changed != "":
					report("authz", "status %d and changed %s, want 401, 403 or 404: %.300s", r.status, changed, r.body)
				case refusedOnly && !ignored && r.status != 401 && r.status != 403 && r.status != 404:
					report("authz", "status %d, want 401, 403 or 404: %.300s", r.status, r.body)
				case !ok2xx && changed != "":
					report("state", "refused with %d but changed %s", r.status, changed)
				case ok2xx && bytes.Contains(bytes.ToLower(r.body), []byte(marker)):
					i := bytes.Index(bytes.ToLower(r.body), []byte(marker))
					report("leak", "status %d body shows private data: …%s…", r.status, r.body[max(0, i-150):min(len(r.body), i+60)])
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
	checkKnownUsed(t, "authz")
	t.Logf("authz: answers by expectation and status: %v", statuses)
	t.Logf("authz: %d operations, %d callers, %d requests in %v", len(routes), len(callers), w.sent.Load(), time.Since(start).Round(time.Millisecond))
	if checked < len(routes)*len(callers) {
		t.Fatalf("only %d calls for %d routes", checked, len(routes))
	}
}

// anyoneMay are the writes GitHub lets any signed-in user with a write
// scope make on a public repository they have no role in: opening an
// issue, commenting, reacting, forking, making a repository from a public
// template. Every other write there needs a role.
// ownAccount are writes that act on the caller's own account although
// their path names another user (blocking them).
// readsByPost are the operations GitHub's description makes POSTs only
// to carry a long query in the body: they read, and are checked as reads.
var readsByPost = map[string]bool{"orgs/list-attestations-bulk": true, "users/list-attestations-bulk": true}

var ownAccount = map[string]bool{"users/block": true, "users/unblock": true}

var anyoneMay = map[string]bool{
	"issues/create":                                    true,
	"issues/create-comment":                            true,
	"reactions/create-for-issue":                       true,
	"reactions/create-for-issue-comment":               true,
	"repos/create-commit-comment":                      true,
	"reactions/create-for-commit-comment":              true,
	"pulls/create":                                     true,
	"repos/create-fork":                                true,
	"repos/create-using-template":                      true,
	"pulls/create-review":                              true,
	"pulls/submit-review":                              true,
	"pulls/create-review-comment":                      true,
	"pulls/create-reply-for-review-comment":            true,
	"reactions/create-for-pull-request-review-comment": true,
	// Starring and watching act on the caller's own stars and
	// subscriptions, on any repository they see.
	"activity/star-repo-for-authenticated-user":   true,
	"activity/unstar-repo-for-authenticated-user": true,
	"activity/set-repo-subscription":              true,
	"activity/delete-repo-subscription":           true,
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
